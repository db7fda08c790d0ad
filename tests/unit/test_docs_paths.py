"""The documentation names only code that exists: every module, folder or test path written in backticks in
docs/ and README.md (``core/runs/store.py``, ``engine/training/distributed.py:broadcast_code``,
``core/maths/augment.Augmenter``, ``python -m studio.engine.worker``) is there, with the name it points at. A move
or a rename that leaves a page behind fails here; `mkdocs build --strict` (CI) checks the links between pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
LAYERS = r"(?:studio/)?(?:core|engine|gui|cli)/|studio/|tests/|packaging/|\.ci/"
PATH = re.compile(rf"(?<![\w/.])(?:{LAYERS})[\w/{{}},.:<>-]*")
MODULE = re.compile(r"python -m (studio(?:\.\w+)+)")


def expand(path: str) -> list[str]:
    """``core/{a,b}.py`` → ``core/a.py``, ``core/b.py``."""
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path]
    return [p for option in m.group(1).split(",") for p in expand(path[:m.start()] + option + path[m.end():])]


def resolve(path: str) -> Path | None:
    """The file or folder ``path`` names (relative to the repository, or to studio/ for a layer path)."""
    for base in (ROOT, ROOT / "studio"):
        for candidate in (base / path, base / f"{path}.py"):
            if candidate.exists():
                return candidate
    return None


def split(token: str) -> tuple[str, str | None]:
    """A path and the name it points at: ``a/b.py:name`` and ``a/b.py.name`` (a file's name), ``a/b.Name`` (a
    module's name), ``a/b/`` and ``a/b.py`` (no name)."""
    token = token.rstrip(".,:;")
    if ".py" in token:
        path, _, rest = token.partition(".py")
        return path + ".py", rest.lstrip(":.") or None
    if resolve(token) is not None:  # a file of another kind: packaging/build.sh, .ci/mypy-gui-baseline.txt
        return token, None
    head, slash, last = token.rpartition("/")
    m = re.match(r"([\w-]+)[.:](\w+)", last)
    return (f"{head}{slash}{m.group(1)}", m.group(2)) if m else (token, None)


def references(text: str) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for code in re.findall(r"`([^`\n]+)`", text):
        for m in MODULE.finditer(code):
            out.append((m.group(1).replace(".", "/"), None))
        for m in PATH.finditer(code):
            if "<" in m.group(0) or re.search(r"(^|/)my_", m.group(0)):
                continue  # a placeholder of a recipe (core/contracts/<feature>.py, gui/tabs/my_view.py)
            path, name = split(m.group(0))
            out += [(p, name) for p in expand(path)]
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_page_names_exists(page: Path) -> None:
    missing = []
    for path, name in references(page.read_text(encoding="utf-8")):
        found = resolve(path.rstrip("/"))
        if found is None:
            missing.append(path)
        elif name and found.is_file() and not re.search(rf"\b{re.escape(name)}\b", found.read_text("utf-8")):
            missing.append(f"{path}: {name}")
    assert missing == [], f"{page.relative_to(ROOT)} names what is not in the code: {missing}"


def test_the_check_sees_a_stale_path() -> None:
    refs = references("`core/runs/store.py`, `engine/training/distributed.py:broadcast_code`, "
                      "`core/maths/augment.Augmenter`, `core/{host,runs}/`, `python -m studio.engine.worker`, "
                      "`core/contracts/<feature>.py`, `core/jobs.py`, `core/runs/store.py:curves_of`")
    assert ("core/runs/store.py", None) in refs and ("core/maths/augment", "Augmenter") in refs
    assert ("core/host/", None) in refs and ("studio/engine/worker", None) in refs
    assert not any("<" in p for p, _ in refs)
    assert resolve("core/jobs.py") is None  # moved to core/contracts/progress.py
    store = resolve("core/runs/store.py")
    assert store is not None and not re.search(r"\bcurves_of\b", store.read_text("utf-8"))
