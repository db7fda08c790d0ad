"""Runs Studio did not train: a script watched through ``studio.track``, a TensorBoard run imported, a model
attached. Each is an ordinary run of the store, made here through the store's own functions:

- its ``config.toml`` is a RunConfig whose data, model, optimizer and schedule are ``external``
  (core/config/external.py);
- the script's free settings (``{"lr": 1e-3, "model": {"depth": 4}}``) are flattened (``model.depth``) into the
  run's params, so Compare's "what differs", the filter language (``lr>0.001``) and the run list read them like a
  native run's settings; a setting that is not a number, text, a truth value or a list of them is kept as its text;
- ``tracked.json`` in its folder keeps where it came from (``source``: track, tensorboard, attach; the command
  line, the host) and the settings as given.
"""

from __future__ import annotations

import json
import math
import os
import socket
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from studio.core.config import RunConfig
from studio.core.config.external import external_sections
from studio.core.contracts import layout
from studio.core.runs.store import RunInfo, RunStore, flatten

TRACK: Final = "track"
TENSORBOARD: Final = "tensorboard"
ATTACH: Final = "attach"


def external_config() -> RunConfig:
    """The RunConfig of a run Studio did not train."""
    return RunConfig.from_dict(external_sections())


def plain_value(value: Any) -> Any:
    """A setting as JSON keeps it: numbers, text, truth values and None as they are (NaN kept), lists and tuples
    of them as lists, anything else (a dtype, a path, an object) as its text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, (list, tuple)):
        return [plain_value(v) for v in value]
    item = getattr(value, "item", None)  # a numpy or torch scalar
    if callable(item):
        try:
            got = item()
            if isinstance(got, (bool, int, float)):
                return got
        except (TypeError, ValueError, RuntimeError):
            pass
    return str(value)


def settings_of(config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The script's settings as the run's params: nested dicts flattened to ``a.b`` keys, values made plain."""
    if not config:
        return {}
    nested = {str(k).strip() or "_": (dict(v) if isinstance(v, Mapping) else v) for k, v in config.items()}
    return {k: plain_value(v) for k, v in flatten(nested).items()}


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def create_external_run(store: RunStore, *, name: str, config: Mapping[str, Any] | None = None,
                        tags: Iterable[str] = (), source: str = TRACK, run_id: str | None = None,
                        extra: Mapping[str, Any] | None = None) -> RunInfo:
    """Register a run Studio did not train (status queued, as ``create_run`` leaves any run): its external
    config, the script's settings as its params, its tags, and ``tracked.json``. StoreError when the store
    cannot take it; ConfigError for a bad tag (before anything is written)."""
    from studio.core.runs.store import check_tag

    words = [check_tag(t) for t in tags]
    settings = settings_of(config)
    info = store.create_run(external_config(), name=name, run_id=run_id)
    if settings:
        store.record_settings(info.id, settings)
    if words:
        store.add_tags([info.id], words)
    write_tracked(info.dir, {"source": source, "settings": {k: _json_safe(v) for k, v in settings.items()},
                             "argv": list(sys.argv), "host": socket.gethostname(), "pid": os.getpid(),
                             **(extra or {})})
    return store.get(info.id)


def write_tracked(run_dir: Path, data: Mapping[str, Any]) -> None:
    """Merge ``data`` into the run's ``tracked.json`` (best effort: a full disk does not fail the script)."""
    path = layout.tracked_path(run_dir)
    merged = {**read_tracked(run_dir), **data}
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(merged, indent=1, default=str), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def read_tracked(run_dir: Path) -> dict[str, Any]:
    """The run's ``tracked.json`` ({} for a run Studio trained)."""
    try:
        data = json.loads(layout.tracked_path(run_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def summary_of(last: Mapping[str, float], steps: int | None = None,
               seconds: float | None = None) -> dict[str, Any]:
    """A run summary from the last value of each metric: ``train/loss`` → ``train_loss`` (the names native runs'
    summaries use, so ``test_acc>0.8`` filters a tracked run too), plus ``steps`` and ``seconds``."""
    out: dict[str, Any] = {name.replace("/", "_").replace(" ", "_"): value for name, value in last.items()}
    if steps is not None:
        out["steps"] = steps
    if seconds is not None:
        out["seconds"] = round(seconds, 3)
    return out
