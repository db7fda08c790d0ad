"""The main window's navigation: every view one click away at any window width, in named groups.

A tab bar of 11 tabs does not fit 1024 px: it scrolls, and a click lands on another tab than the one the eye
aimed at. Here each view is a button in its group ("Runs", "Analysis", …, from ``TabSpec.group``), and the groups
flow onto a second row when the window is narrow instead of scrolling: nothing is hidden, nothing moves under
the pointer. The pages stay in the window's QTabWidget (its own tab bar hidden), so ``tabs.setCurrentIndex``,
``tabs.widget(i)`` and ``Pages.tab(id)`` work as before; a new TabSpec gets its button without code here.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QLabel,
    QLayout,
    QLayoutItem,
    QSizePolicy,
    QToolButton,
    QWidget,
    QWidgetItem,
)


class FlowLayout(QLayout):
    """Items left to right, wrapping onto the next row when the width runs out (Qt's flow-layout example)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt's name
        self._items.append(item)

    def add(self, widget: QWidget) -> None:
        self.addChildWidget(widget)
        self.addItem(QWidgetItem(widget))

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt's name
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt's name
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt's name
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt's name
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt's name
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        return size

    def _arrange(self, rect: QRect, move: bool) -> int:
        """Place the items (or only measure, ``move=False``); the height they take at ``rect``'s width. Items of
        one group sit 1 px apart, a caption 3 px before its first button and ``2 × spacing`` after the group
        before it; a caption never ends a row without its first button."""
        x, y, row_height = rect.x(), rect.y(), 0
        for i, item in enumerate(self._items):
            hint = item.sizeHint()
            width = hint.width()
            follower = self._items[i + 1] if i + 1 < len(self._items) else None
            if is_caption(item) and follower is not None:
                width += 3 + follower.sizeHint().width()
            if x + width > rect.right() + 1 and row_height > 0:
                x, y, row_height = rect.x(), y + row_height + self._gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            if follower is None:
                gap = 0
            elif is_caption(item):
                gap = 3
            else:
                gap = self._gap * 2 if is_caption(follower) else 1
            x += hint.width() + gap
            row_height = max(row_height, hint.height())
        return y + row_height - rect.y()


def is_caption(item: QLayoutItem) -> bool:
    """Whether a flow item is a group's caption (it keeps to the row of its first button)."""
    widget = item.widget()
    return widget is not None and widget.objectName() == "nav_caption"


class Navigation(QWidget):
    """Grouped, checkable buttons, one per page; ``page_chosen(index)`` on a click, ``set_current(index)`` to
    follow the pages. ``buttons[page_id]`` is a page's button (tests click them)."""

    page_chosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("navigation")
        self.flow = FlowLayout(self)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.group.idClicked.connect(self.page_chosen.emit)
        self.buttons: dict[str, QToolButton] = {}
        self.group_of: dict[str, str] = {}  # page id -> its group's name
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def add_page(self, index: int, page_id: str, title: str, group: str, tip: str = "") -> QToolButton:
        """A button for page ``index`` in ``group`` (a group is made on first use, in that order)."""
        if group not in self.group_of.values():  # the buttons and captions are flow items of their own, so a
            caption = QLabel(group, self)     # group wider than the window wraps too (presentation's large font)
            caption.setObjectName("nav_caption")
            caption.setEnabled(False)  # dimmed: it names the group, it is not a button
            self.flow.add(caption)
        button = QToolButton(self)
        button.setObjectName(f"nav_{page_id}")
        button.setText(title)
        button.setToolTip(tip or f"The {title} view")
        button.setCheckable(True)
        button.setAutoRaise(True)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.group.addButton(button, index)
        self.flow.add(button)
        self.buttons[page_id] = button
        self.group_of[page_id] = group
        self.updateGeometry()
        return button

    def set_current(self, index: int) -> None:
        button = self.group.button(index)
        if button is not None and not button.isChecked():
            button.setChecked(True)

    def current(self) -> int:
        return self.group.checkedId()

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
        return self.flow.heightForWidth(width)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        width = max(self.width(), 200)
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.flow.minimumSize()
