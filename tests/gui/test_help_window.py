"""Help > Documentation (F1) opens the user guide in a window of Studio's own, so it works where the desktop has no
program for .md files (issue 22): the contents on the left are the documentation site's navigation (mkdocs.yml),
a click on a page shows it rendered, links to other pages open in the same window and Back returns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QImage, QTextCursor, QTextDocument

from studio.gui.app import commands
from studio.gui.app.commands import documentation_path
from studio.gui.app.help_window import HelpWindow, NavItem, read_guide


def open_help(qtbot, window, monkeypatch) -> HelpWindow:
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)  # no program opens .md files here
    window.docs_action.trigger()
    help_window = window.shell.help_window
    qtbot.waitUntil(help_window.isVisible)
    return help_window


def shown(help_window: HelpWindow) -> str:
    return Path(help_window.browser.source().toLocalFile()).relative_to(help_window.guide.docs_dir.resolve()).as_posix()


def current_entry(help_window: HelpWindow) -> str:
    item = help_window.contents.currentItem()
    return item.text(0) if item is not None else ""


def links(help_window: HelpWindow) -> list[tuple[int, str]]:
    """(position, href) of every link in the page shown."""
    out = []
    block = help_window.browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().isAnchor() and fragment.charFormat().anchorHref():
                out.append((fragment.position(), fragment.charFormat().anchorHref()))
            it += 1
        block = block.next()
    return out


def images(help_window: HelpWindow) -> list[str]:
    out = []
    block = help_window.browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                out.append(fmt.toImageFormat().name())
            it += 1
        block = block.next()
    return out


def click_link(qtbot, help_window: HelpWindow, position: int) -> None:
    """Click the link at ``position`` with the mouse, as a person does."""
    browser = help_window.browser
    cursor = QTextCursor(browser.document())
    cursor.setPosition(position + 1)
    browser.setTextCursor(cursor)
    browser.ensureCursorVisible()
    rect = browser.cursorRect(cursor)
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center().x(), rect.center().y()))


def test_f1_shows_the_guide_with_its_contents_without_any_md_handler(qtbot, window, monkeypatch):
    help_window = open_help(qtbot, window, monkeypatch)
    guide = read_guide(documentation_path())
    assert help_window.page_titles() == [page.title for page in guide.pages()]
    assert {"Getting started", "Training and the curves", "CLI reference", "Layers"} <= set(help_window.page_titles())
    assert shown(help_window) == "index.md" and current_entry(help_window) == "Home"
    text = help_window.browser.toPlainText()
    assert text.startswith("Studio") and "User guide" in text and "](" not in text  # rendered, not raw Markdown
    assert window.status.last_error is None
    window.docs_action.trigger()  # F1 again: the same window, brought to the front
    assert window.shell.help_window is help_window


def test_the_pages_images_show_within_the_window(qtbot, window, monkeypatch):
    help_window = open_help(qtbot, window, monkeypatch)
    names = images(help_window)
    assert names, "the home page has its screenshot"
    page_width = help_window.browser.viewport().width()
    for name in names:
        url = help_window.browser.source().resolved(QUrl(name))
        image = help_window.browser.document().resource(QTextDocument.ResourceType.ImageResource, url)
        assert image is not None and not image.isNull(), name
        full = QImage(url.toLocalFile()).width()
        assert full > page_width  # a 1280-px screenshot: it must be scaled down to the page, not cut or tiny
        assert page_width - 40 <= image.width() <= page_width, (name, image.width(), page_width)


def test_clicking_a_page_in_the_contents_shows_it(qtbot, window, monkeypatch):
    help_window = open_help(qtbot, window, monkeypatch)
    tree = help_window.contents
    item = tree.findItems("Clusters and Slurm", Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive)[0]
    tree.scrollToItem(item)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(item).center())
    qtbot.waitUntil(lambda: shown(help_window) == "user-guide/clusters.md")
    assert "torchrun" in help_window.browser.toPlainText() and help_window.where.text() == "Clusters and Slurm"
    help_window.select_page("CLI reference")
    assert shown(help_window) == "reference/cli.md" and "studio train" in help_window.browser.toPlainText()


def test_a_link_to_another_page_opens_it_and_back_returns(qtbot, window, monkeypatch):
    help_window = open_help(qtbot, window, monkeypatch)
    help_window.select_page("Getting started")
    assert shown(help_window) == "user-guide/getting-started.md"
    position = next(p for p, href in links(help_window) if href == "training.md")
    click_link(qtbot, help_window, position)
    qtbot.waitUntil(lambda: shown(help_window) == "user-guide/training.md")
    assert current_entry(help_window) == "Training and the curves"  # the contents follow the link
    assert "Headless training" in help_window.browser.toPlainText()
    assert help_window.back_button.isEnabled()
    qtbot.mouseClick(help_window.back_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: shown(help_window) == "user-guide/getting-started.md")
    assert current_entry(help_window) == "Getting started"


def test_a_missing_guide_is_said_in_words(window, monkeypatch, tmp_path):
    monkeypatch.setattr(commands, "documentation_path", lambda: tmp_path / "mkdocs.yml")
    assert commands.open_documentation(window.shell) is False
    assert window.status.last_error is not None and "not installed" in window.status.last_error[1]


# --- the contents: mkdocs.yml's nav, read without YAML ---------------------------------------------------------
def as_yaml_nav(items: list[NavItem]) -> list:
    return [{item.title: item.path} if item.path and item.title else item.path if item.path
            else {item.title: as_yaml_nav(item.children)} for item in items]


def test_the_contents_are_mkdocs_nav_as_yaml_reads_it():
    yaml = pytest.importorskip("yaml")
    config = documentation_path()

    class Loader(yaml.SafeLoader):  # MkDocs' own tags, should the file ever use one
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    expected = yaml.load(config.read_text(encoding="utf-8"), Loader=Loader)
    guide = read_guide(config)
    assert as_yaml_nav(guide.nav) == expected["nav"]
    assert guide.docs_dir == config.parent / expected["docs_dir"]
    for page in guide.pages():
        assert (guide.docs_dir / page.path).is_file(), page.path


def test_nav_reader_takes_quotes_comments_bare_paths_and_stops_at_the_next_key(tmp_path):
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nnav:\n  - Home: index.md  # the start\n\n  - 'Guide: part 1':\n"
                      "      - \"A\": a.md\n      # a comment\n      - b.md\n  - Last: z/last.md\ntheme:\n"
                      "  name: material\n", encoding="utf-8")
    guide = read_guide(config)
    assert guide.docs_dir == tmp_path / "docs"
    assert as_yaml_nav(guide.nav) == [{"Home": "index.md"}, {"Guide: part 1": [{"A": "a.md"}, "b.md"]},
                                      {"Last": "z/last.md"}]
    with pytest.raises(ValueError, match="no nav"):
        (tmp_path / "bad.yml").write_text("site_name: x\n", encoding="utf-8")
        read_guide(tmp_path / "bad.yml")


def test_pages_are_plain_markdown_that_the_window_renders_as_the_site_does():
    """No Material-only syntax (admonitions, content tabs, attribute lists): QTextBrowser would show it raw."""
    docs = documentation_path().parent / "docs"
    offenders = [f"{page.relative_to(docs)}:{n}" for page in docs.rglob("*.md")
                 for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
                 if re.match(r"^\s*(!!!|\?\?\?|===\s+\")", line) or re.search(r"\{:\s*[.#]", line)]
    assert offenders == []
