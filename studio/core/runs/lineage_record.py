"""``lineage.json``: what a run built on another run keeps of it in its own folder, so that the run needs its parent
only at its first start (for the parent's weights) and never again: deleting the parent breaks nothing.

A ``bert_classifier`` with ``model.init_from`` / ``data.vocab_from`` keeps the parent's id and the settings its
vocabulary is rebuilt from (``vocab_source``: the corpus, the cap and the split fractions; the same lines and cap
give the same words), written before its processes start (core/runs/lineage.py ``keep``); its first rank adds the
vocabulary's words themselves (``vocabulary``), so a corpus changed later does not change the run's tokens. Its
weights are its own from its first checkpoint on. Written to a temporary name and renamed; best effort on a folder
that cannot be written (the run then still reads its parent while it exists). Torch-free; no run store.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from studio.core.config import RunConfig
from studio.core.contracts import layout

PARENT_KEYS = (("model", "init_from"), ("data", "vocab_from"))  # the settings that name a parent run


def parents(cfg: RunConfig) -> set[str]:
    """The runs (ids as given) that ``cfg`` builds on."""
    sections = {"model": cfg.model.params, "data": cfg.data.params}
    return {str(sections[s].get(k) or "") for s, k in PARENT_KEYS} - {""}


def vocab_settings(parent: RunConfig) -> dict[str, Any]:
    """The data settings a ``bert_mlm`` run fitted its vocabulary with (``bert_data.mlm_vocabulary``'s arguments)."""
    p = {"corpus": "fortune_sources", "vocab_size": 2000, "val_fraction": 0.1, "test_fraction": 0.1,
         **parent.data.params}
    return {"corpus": str(p["corpus"]), "vocab_size": int(p["vocab_size"]), "val_fraction": float(p["val_fraction"]),
            "test_fraction": float(p["test_fraction"])}


def read(run_dir: str | Path | None) -> dict[str, Any]:
    """The run's kept lineage ({} when it keeps none, or its file cannot be read)."""
    if not run_dir:
        return {}
    try:
        data = json.loads(layout.lineage_path(run_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write(run_dir: str | Path, record: dict[str, Any]) -> bool:
    """Replace the run's lineage with ``record`` (atomically); False when the folder cannot be written."""
    path = layout.lineage_path(run_dir)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
    return True


def keep(run_dir: str | Path, parent_id: str, parent: RunConfig) -> bool:
    """Keep what the run needs of the ``bert_mlm`` run ``parent_id`` (its vocabulary's settings) unless it keeps
    it already; whether the run now keeps it."""
    if read(run_dir).get("vocab_source"):
        return True
    return write(run_dir, {"parent": parent_id, "parent_model": parent.model.name,
                           "vocab_source": vocab_settings(parent)})


def add_vocabulary(run_dir: str | Path, tokens: list[str]) -> None:
    """Add the vocabulary's words to a kept lineage that does not hold them yet (the run's first rank)."""
    record = read(run_dir)
    if record.get("vocab_source") and not record.get("vocabulary"):
        write(run_dir, {**record, "vocabulary": list(tokens)})
