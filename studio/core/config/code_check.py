"""A config's own code and library models, checked before any process starts (torch-free: the GUI, the CLI, the
queue and sweeps call it through ``core/config/data_fit.check_model_data``): one sentence each for a file that is
missing or does not parse (file and line), defines no model or dataset, lacks the class named, an argument without
a value or of the wrong type, a package it imports that is not installed, a copy from someone else's run folder
this user has not trusted; a missing timm or transformers, a Hugging Face folder that does not exist."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from studio.core.config.run_config import RunConfig
from studio.core.contracts.registry import Choice
from studio.core.errors import ConfigError
from studio.core.usercode.arguments import check_values
from studio.core.usercode.errors import UserCodeError
from studio.core.usercode.imports import missing_imports
from studio.core.usercode.reader import DATASET, MODEL, Definition, read_file
from studio.core.usercode.trust import check_trusted

ROLES = {"model": MODEL, "data": DATASET}


def check_code(cfg: RunConfig) -> None:
    """Raise ConfigError/UserCodeError for the first thing in ``cfg``'s code or library models that cannot work."""
    for section in ("model", "data"):
        choice: Choice = getattr(cfg, section)
        if choice.name == "python":
            check_user_file(choice, section)
    if cfg.model.name == "timm":
        need_package("timm", "timm")
    if cfg.model.name == "hf":
        need_package("transformers", "hf")
        check_hf_path(str(cfg.model.params.get("path") or ""))


def check_user_file(choice: Choice, section: str) -> Definition:
    """The definition a ``python`` section names, its arguments checked."""
    role = ROLES[section]
    path, name = str(choice.params.get("path") or ""), str(choice.params.get("class") or "")
    if not path:
        raise UserCodeError(f"{section}.path is empty: name the .py file that defines the {role}")
    code = read_file(path)
    if not name:
        found = ", ".join(d.name for d in code.of_role(role))
        if not found:
            code.get("", role)  # the file defines none: its sentence
        raise UserCodeError(f"{section}.class is empty: choose one of {Path(path).name}'s {role}s ({found})")
    definition = code.get(name, role)
    check_values(name, definition.arguments, dict(choice.params.get("args") or {}), f"{section}.args")
    missing = missing_imports(path)
    if missing:
        module, line = missing[0]
        raise UserCodeError(f"{Path(path).name} line {line} imports {module}, which is not installed here "
                            f"(pip install {module.split('.')[0]})")
    check_trusted(path)
    return definition


def need_package(module: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ConfigError(f"the {extra} models need the {module} package: pip install 'studio[{extra}]'")


def hub_cache() -> Path:
    """The Hugging Face hub cache (``HF_HUB_CACHE``, else ``HF_HOME/hub``, else ~/.cache/huggingface/hub)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or str(Path.home() / ".cache" / "huggingface")
    return Path(home) / "hub"


def check_hf_path(path: str) -> None:
    """A folder with config.json, or a hub id in the local cache; else one sentence."""
    if not path:
        raise ConfigError("model.path is empty: give a folder with a Hugging Face config.json, or a hub id in the "
                          "local cache")
    folder = Path(path).expanduser()
    if folder.is_dir():
        if not (folder / "config.json").is_file():
            raise ConfigError(f"{folder} is not a Hugging Face model folder: it has no config.json")
        return
    if folder.is_absolute() or folder.exists():
        raise ConfigError(f"no Hugging Face model folder at {path}")
    if not (hub_cache() / ("models--" + path.replace("/", "--"))).is_dir():
        raise ConfigError(f"no Hugging Face model {path!r}: it is not a folder here and not in the local hub cache "
                          f"{hub_cache()} (download it first, e.g. hf download {path}, or give a folder)")
