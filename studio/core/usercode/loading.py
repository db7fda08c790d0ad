"""Import a user's file by path, inside the processes that compute (ranks, tasks): never in the GUI process.

Each file becomes a module named after its stem and hash (``studio_usercode.<stem>_<sha>``), registered in
``sys.modules`` so DataLoader workers and pickles find its classes. An exception that comes out of the user's code
(at import, in ``__init__``, ``forward`` or ``__getitem__``) is told as one sentence naming the user's file and
line (:func:`user_error`), not Studio's stack.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from studio.core.usercode.errors import UserCodeError
from studio.core.usercode.reader import read_file
from studio.core.usercode.trust import check_trusted, sha256_of

PACKAGE = "studio_usercode"
LOADED: dict[str, str] = {}  # resolved file path → module name, in this process


def module_name(path: Path) -> str:
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    return f"{PACKAGE}.{stem}_{sha256_of(path)[:12]}"


def import_file(path: str | Path) -> ModuleType:
    """The module of ``path`` (imported once per process and content); UserCodeError in one sentence."""
    path = Path(path).expanduser().resolve()
    read_file(path)  # a missing file or a syntax error: the reader's sentence, with the line
    check_trusted(path)
    name = module_name(path)
    if name in sys.modules:
        return sys.modules[name]
    if PACKAGE not in sys.modules:
        package = ModuleType(PACKAGE)
        package.__path__ = []
        sys.modules[PACKAGE] = package
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a spec
        raise UserCodeError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    LOADED[str(path)] = name
    try:
        spec.loader.exec_module(module)
    except BaseException as err:
        del sys.modules[name]
        raise UserCodeError(import_error(err, path)) from None
    return module


def import_error(err: BaseException, path: Path) -> str:
    if isinstance(err, ModuleNotFoundError) and err.name:
        top = err.name.split(".")[0]
        return f"{path.name} imports {err.name}, which is not installed here (pip install {top})"
    return user_error(err) or f"importing {path.name} failed: {type(err).__name__}: {err}"


def load_object(path: str | Path, name: str) -> Any:
    """The class or function ``name`` (dotted for a nested class) of the file at ``path``."""
    obj: Any = import_file(path)
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UserCodeError(f"{Path(path).name} has no {name!r} when imported") from None
    return obj


def user_error(err: BaseException) -> str | None:
    """One sentence for an exception raised inside a user file loaded here: the file, line, function and code
    line where it happened, and the exception; None when no frame of a user file is in its traceback."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if _is_user_file(f.filename)]
    if not frames:
        return None
    frame = frames[-1]
    where = f"{Path(frame.filename).name} line {frame.lineno}"
    if frame.name != "<module>":
        where += f", in {frame.name}"
    code = f" — `{frame.line.strip()}`" if frame.line else ""
    message = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return f"{where}: {type(err).__name__}{': ' + message if message else ''}{code}"


def _is_user_file(filename: str) -> bool:
    try:
        return str(Path(filename).resolve()) in LOADED
    except OSError:
        return False
