"""Help > Documentation: the user guide in a window of Studio's own, so F1 works where the desktop has no program
for ``.md`` files and no browser (issue 22). The contents on the left are the documentation site's navigation
(``nav`` in mkdocs.yml, read here without YAML or MkDocs); the selected page is rendered by a QTextBrowser from
its Markdown. Links between pages open in the same window (Back returns), images show scaled to the window's
width, web links open in the browser."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QGuiApplication, QImage, QKeySequence, QShortcut, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

PATH_ROLE = Qt.ItemDataRole.UserRole
CONTENTS_WIDTH = 270  # the contents' pixels: the longest title ("The Teaching lab and paper checks") fits


@dataclass
class NavItem:
    """One entry of the site's navigation: a page (``path``, relative to the docs folder) or a section of them."""

    title: str
    path: str = ""
    children: list[NavItem] = field(default_factory=list)

    def pages(self) -> list[NavItem]:
        """This entry's pages in reading order (itself, or its sections' pages)."""
        return [self] if self.path else [page for child in self.children for page in child.pages()]


@dataclass
class Guide:
    """The documentation: its folder and its navigation."""

    docs_dir: Path
    nav: list[NavItem]

    def pages(self) -> list[NavItem]:
        return [page for item in self.nav for page in item.pages()]


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _key_value(text: str) -> tuple[str, bool, str]:
    """``Title: page.md`` → (title, True, page); a quoted title may hold a colon; a bare ``page.md`` → (page,
    False, "")."""
    if text[:1] in "'\"" and (end := text.find(text[0], 1)) > 0:
        rest = text[end + 1:].lstrip()
        return text[1:end], rest.startswith(":"), _unquote(rest[1:]) if rest.startswith(":") else ""
    key, colon, value = text.partition(":")
    return _unquote(key), bool(colon), _unquote(value)


def read_guide(config: Path) -> Guide:
    """The docs folder (``docs_dir``, default ``docs``) and the ``nav`` of an mkdocs.yml, read from the plain
    subset of YAML the file uses: ``- Title: page.md`` items and ``- Title:`` sections indented beneath. Raises
    ValueError when there is no nav."""
    lines = config.read_text(encoding="utf-8").splitlines()
    docs_dir = "docs"
    nav_at = None
    for i, line in enumerate(lines):
        if m := re.match(r"^docs_dir:\s*(\S.*?)\s*(#.*)?$", line):
            docs_dir = _unquote(m.group(1))
        if re.match(r"^nav:\s*(#.*)?$", line):
            nav_at = i
    if nav_at is None:
        raise ValueError(f"{config} has no nav")
    root: list[NavItem] = []
    stack: list[tuple[int, list[NavItem]]] = [(-1, root)]
    for line in lines[nav_at + 1:]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            break  # the next top-level key
        m = re.match(r"^\s*-\s+(.*?)\s*(?:\s#.*)?$", line)
        if not m:
            raise ValueError(f"{config}: cannot read this nav line: {line.strip()!r}")
        title, colon, target = _key_value(m.group(1))
        item = NavItem(title, target) if colon else NavItem("", title)
        while indent <= stack[-1][0]:
            stack.pop()
        stack[-1][1].append(item)
        if colon and not target.strip():
            stack.append((indent, item.children))
    return Guide(config.parent / docs_dir, root)


def _page_title(path: Path) -> str:
    """A page's first heading (for nav entries written as a bare path)."""
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    except OSError:
        pass
    return path.stem


class GuideBrowser(QTextBrowser):
    """A QTextBrowser whose images fit its width (the screenshots are 1280 px wide)."""

    def loadResource(self, kind: int, name: QUrl | str) -> Any:  # noqa: N802 - Qt's name
        if kind == QTextDocument.ResourceType.ImageResource.value:
            name = QUrl(name) if isinstance(name, str) else name
            url = self.source().resolved(name) if name.isRelative() else name
            image = QImage(url.toLocalFile()) if url.isLocalFile() else QImage()
            if not image.isNull():
                width = max(320, self.viewport().width() - 24)
                if image.width() > width:
                    image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
                return image
        return super().loadResource(kind, name)


class HelpWindow(QDialog):
    """A non-modal window: the guide's contents on the left, the selected page on the right."""

    def __init__(self, config: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Studio documentation")
        self.setModal(False)
        self.guide = read_guide(config)
        self.contents = QTreeWidget(self)
        self.contents.setHeaderHidden(True)
        self.contents.setObjectName("help_contents")
        self.browser = GuideBrowser(self)
        self.browser.setOpenExternalLinks(True)  # http(s): the browser; local .md files: this window
        self.back_button = QPushButton("Back", self)
        self.back_button.setEnabled(False)
        self.back_button.clicked.connect(self.browser.backward)
        self.browser.backwardAvailable.connect(self.back_button.setEnabled)
        self.where = QLabel(self)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        top = QHBoxLayout()
        top.addWidget(self.back_button)
        top.addWidget(self.where, 1)
        top.addWidget(close)
        splitter = QSplitter(self)
        splitter.addWidget(self.contents)
        splitter.addWidget(self.browser)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Back), self, self.browser.backward)

        self._items: dict[Path, QTreeWidgetItem] = {}
        self._fill(self.contents.invisibleRootItem(), self.guide.nav)
        self.contents.expandAll()
        self.contents.currentItemChanged.connect(self._item_chosen)
        self.browser.sourceChanged.connect(self._source_changed)
        self.resize(self.sizeHint())  # before the first page: its screenshots are scaled to the page's width
        splitter.setSizes([CONTENTS_WIDTH, self.width() - CONTENTS_WIDTH])
        pages = self.guide.pages()
        if pages:
            self.show_file(self.guide.docs_dir / pages[0].path)

    def _fill(self, parent: QTreeWidgetItem, items: list[NavItem]) -> None:
        for entry in items:
            path = (self.guide.docs_dir / entry.path).resolve() if entry.path else None
            title = entry.title or (_page_title(path) if path else "")
            item = QTreeWidgetItem(parent, [title])
            if path is None:
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # a section: a heading, not a page
                font = item.font(0)
                font.setBold(True)
                item.setFont(0, font)
            else:
                item.setData(0, PATH_ROLE, str(path))
                self._items[path] = item
            self._fill(item, entry.children)

    def page_titles(self) -> list[str]:
        """The pages in the contents, in order (sections left out)."""
        return [item.text(0) for item in self._items.values()]

    def select_page(self, title: str) -> None:
        """Show the page the contents list as ``title`` (as a click on it does)."""
        for item in self._items.values():
            if item.text(0) == title:
                self.contents.setCurrentItem(item)
                return
        raise KeyError(title)

    def _item_chosen(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None = None) -> None:
        path = item.data(0, PATH_ROLE) if item is not None else None
        if path and Path(path) != self.current_file():
            self.show_file(Path(path))

    def _source_changed(self, url: QUrl) -> None:
        """A page opened (a click in the contents, a link, Back): its entry becomes the current one."""
        path = Path(url.toLocalFile()).resolve() if url.isLocalFile() else None
        item = self._items.get(path) if path is not None else None
        self.where.setText(item.text(0) if item is not None else url.fileName())
        if item is not None and self.contents.currentItem() is not item:
            self.contents.blockSignals(True)
            self.contents.setCurrentItem(item)
            self.contents.blockSignals(False)

    def current_file(self) -> Path | None:
        url = self.browser.source()
        return Path(url.toLocalFile()).resolve() if url.isLocalFile() else None

    def show_file(self, path: Path) -> None:
        """Show ``path`` (Markdown, by its .md suffix)."""
        self.browser.setSource(QUrl.fromLocalFile(str(path.resolve())))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """Room for the contents and the pages' code blocks, never larger than the screen's free area."""
        size = QSize(1100, 760)
        screen = QGuiApplication.primaryScreen()
        return size.boundedTo(screen.availableGeometry().size() * 0.9) if screen is not None else size


def show_help(parent: QWidget, config: Path, window: HelpWindow | None = None) -> HelpWindow:
    """Show the documentation window for the site whose mkdocs.yml is ``config`` (the one already open, brought to
    the front, or a new one)."""
    if window is None:
        window = HelpWindow(config, parent)
    window.show()
    window.raise_()
    window.activateWindow()
    return window
