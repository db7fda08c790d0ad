"""The main window's navigation: every view one click away at any window width, in named groups.

A tab bar of 11 tabs does not fit 1024 px: it scrolls, and a click lands on another tab than the one the eye
aimed at. Here each view is a button in its group ("Runs", "Analysis", …, from ``TabSpec.group``), and the groups
flow onto a second row when the window is narrow instead of scrolling: nothing is hidden, nothing moves under
the pointer. The pages stay in the window's QTabWidget (its own tab bar hidden), so ``tabs.setCurrentIndex``,
``tabs.widget(i)`` and ``MainWindow.tab(id)`` work as before; a new TabSpec gets its button without code here.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
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
        x, y, row_height = rect.x(), rect.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if x + hint.width() > rect.right() + 1 and row_height > 0:
                x, y, row_height = rect.x(), y + row_height + self._gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._gap * 2
            row_height = max(row_height, hint.height())
        return y + row_height - rect.y()


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
        self._groups: dict[str, QHBoxLayout] = {}
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def add_page(self, index: int, page_id: str, title: str, group: str, tip: str = "") -> QToolButton:
        """A button for page ``index`` in ``group`` (a group is made on first use, in that order)."""
        if group not in self._groups:
            box = QWidget(self)
            box.setObjectName(f"nav_group_{group}")
            row = QHBoxLayout(box)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(1)
            caption = QLabel(group)
            caption.setObjectName("nav_caption")
            caption.setEnabled(False)  # dimmed: it names the group, it is not a button
            row.addWidget(caption)
            row.addSpacing(3)
            self._groups[group] = row
            self.flow.add(box)
        button = QToolButton(self)
        button.setObjectName(f"nav_{page_id}")
        button.setText(title)
        button.setToolTip(tip or f"The {title} view")
        button.setCheckable(True)
        button.setAutoRaise(True)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.group.addButton(button, index)
        self._groups[group].addWidget(button)
        self.buttons[page_id] = button
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
