"""Runs built on other runs: a ``bert_classifier`` fine-tuned from a ``bert_mlm`` pretraining run, and an image
model (mlp, cnn, lenet5, resnet18, vit) fine-tuned from a finished run of the same model (``model.init_from``,
transfer learning without downloads: core/models/from_run.py).

What such a run needs from its pretraining run is checked before any process starts (torch-free: the launcher and
the GUI call it): a finished ``bert_mlm`` run with a final checkpoint, the same encoder shape, and the labelled text
tokenized with that run's vocabulary (``data.vocab_from``, filled in when left empty). The parent is read here and
only here: the datasets and models below take what they need from it as values (the vocabulary's settings, the
encoder's weights file), so no registry entry opens the run store.

A run reads its parent only until it keeps what it needs of it (``keep``, at its first start:
core/runs/lineage_record.py): from then on its loaders read its own ``lineage.json`` first and its checkpoints hold
every weight, so its evaluation, attention, export and resume work with the parent deleted."""

from __future__ import annotations

from typing import Any

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.runs import lineage_record

ENCODER_PARAMS = ("layers", "heads", "d_model", "context")
MLM, CLASSIFIER = "bert_mlm", "bert_classifier"
IMAGE_INIT = ("mlp", "cnn", "lenet5", "resnet18", "vit")  # the models with init_from=RUN (core/models/from_run.py)
# their settings that may differ from the parent run's: not the shape of a copied layer
FREE_PARAMS = ("init_from", "frozen_epochs", "base_lr_factor", "dropout")


def finished_run(run_id: str, model: str, what: str, store: Any = None) -> Any:
    """The finished run ``run_id`` of ``model`` (a RunInfo) with its final weights, or one sentence saying why it
    cannot be used; ``what`` names it in that sentence ("pretraining run")."""
    from studio.core.contracts import layout
    from studio.core.runs.store import RunStore
    from studio.core.vocab import JobState

    info = (store or RunStore()).resolve(run_id)
    trained = info.run_config.model.name
    if trained != model:
        article = "an" if model[0] in "aeiou" else "a"
        raise ConfigError(f"run {info.id} trained {trained}, not {model}: model.init_from must name {article} "
                          f"{model} run")
    if info.status != JobState.FINISHED:
        raise ConfigError(f"{what} {info.id} is {info.status}, not finished: finish it first "
                          f"(studio train --resume {info.id}) so its final weights exist")
    final = layout.final_path(info.dir)
    if not final.is_file():
        raise ConfigError(f"{what} {info.id} has no final weights ({final} is missing); train it again")
    if not _is_checkpoint_file(final):
        raise ConfigError(f"the final weights of {what} {info.id} ({final}) are damaged: the file is not a "
                          "checkpoint; train that run again or start from another one")
    return info


def pretraining_run(run_id: str, store: Any = None) -> Any:
    """The finished ``bert_mlm`` run ``run_id`` (a RunInfo), or one sentence saying why it cannot be used."""
    return finished_run(run_id, MLM, "pretraining run", store)


def _is_checkpoint_file(path: Any) -> bool:
    """Whether ``path`` can be a checkpoint (``torch.save`` writes a zip archive): a cheap look at its structure,
    torch-free, before any process starts."""
    import zipfile

    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


def _params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    from studio.core.models import MODELS

    return {**MODELS.get(name).defaults(), **params}


def check_lineage(cfg: RunConfig, store: Any = None, run_dir: Any = None) -> None:
    """Refuse a run built on another run that cannot work, one sentence each (BERT, and ``init_from`` on an image
    model); ``run_dir``: the run's folder at a resume (its own checkpoint then holds every weight)."""
    check_bert_config(cfg, store, run_dir)
    if run_dir is None:
        check_image_init(cfg, store)


def check_image_init(cfg: RunConfig, store: Any = None) -> None:
    """An image model's ``init_from`` names a finished run of the same model whose layers have the same shapes:
    every setting but ``FREE_PARAMS`` equal (the image size and channels are checked when the weights load)."""
    name = cfg.model.name
    init = str(cfg.model.params.get("init_from") or "") if name in IMAGE_INIT else ""
    if not init:
        return
    info = finished_run(init, name, "run", store)
    mine, theirs = _params(name, cfg.model.params), _params(name, info.run_config.model.params)
    for key in sorted(set(mine) - set(FREE_PARAMS)):
        if _same(mine[key], theirs.get(key)):
            continue
        value = ",".join(map(str, theirs[key])) if isinstance(theirs[key], list | tuple) else theirs[key]
        raise ConfigError(f"model.{key} is {_text(mine[key])} but run {info.id} has {key} {_text(theirs[key])}: "
                          f"the layers copied from it must have its shapes; set model.{key}={value}")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return [str(x) for x in a] == [str(x) for x in b]
    return str(a) == str(b)


def _text(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def check_bert_config(cfg: RunConfig, store: Any = None, run_dir: Any = None) -> None:
    """Refuse a BERT config that cannot work, one sentence each; fills ``data.vocab_from`` from
    ``model.init_from`` when it is empty. ``run_dir``: the run's folder when it exists (a resume): a run that keeps
    its lineage (``lineage.json``) was checked against its parent at its first start and needs it no more."""
    from studio.core.datasets.text.labelled import is_labelled

    name = cfg.model.name
    if name not in (MLM, CLASSIFIER):
        return
    p = _params(name, cfg.model.params)
    if int(p["d_model"]) % int(p["heads"]):
        raise ConfigError(f"heads ({p['heads']}) must divide d_model ({p['d_model']}): each head gets d_model / "
                          "heads dimensions")
    max_len = int(cfg.data.params.get("max_len", 32))
    if max_len + 1 > int(p["context"]):
        raise ConfigError(f"data.max_len {max_len} words plus [CLS] is longer than model.context {p['context']}; "
                          f"raise model.context to {max_len + 1} or lower data.max_len")
    if name == MLM:
        if cfg.data.name != "masked_lm":
            raise ConfigError(f"bert_mlm pretrains on the masked_lm dataset (data.corpus names the text), not on "
                              f"{cfg.data.name}")
        return
    if not is_labelled(cfg.data.name):
        raise ConfigError(f"bert_classifier classifies labelled text (fortune_sources, or a CSV imported with a "
                          f"text and a label column), not {cfg.data.name}")
    init = str(p.get("init_from") or "")
    if not init or lineage_record.read(run_dir).get("vocab_source"):
        return
    info = pretraining_run(init, store)
    pre = _params(MLM, info.run_config.model.params)
    for key in ENCODER_PARAMS:
        if int(pre[key]) != int(p[key]):
            raise ConfigError(f"model.{key} is {p[key]} but pretraining run {info.id} has {key} {pre[key]}: the "
                              f"encoder's shape must match; set model.{key}={pre[key]}")
    vocab_from = str(cfg.data.params.get("vocab_from") or "")
    if not vocab_from:
        cfg.data.params["vocab_from"] = info.id
    elif vocab_from not in (init, info.id):
        raise ConfigError(f"data.vocab_from is {vocab_from} but model.init_from is {init}: the labelled text must "
                          f"be tokenized with the pretraining run's vocabulary; set data.vocab_from={info.id}")


def vocab_source(run_id: str, store: Any = None) -> dict[str, Any]:
    """The data settings a finished ``bert_mlm`` run fitted its vocabulary with (``bert_data.mlm_vocabulary``'s
    arguments): the same lines and cap give the same words."""
    return lineage_record.vocab_settings(pretraining_run(run_id, store).run_config)


def keep(cfg: RunConfig, run_dir: Any, store: Any = None) -> None:
    """At a run's first start (before its processes): keep in its folder what it needs of the run its
    ``data.vocab_from`` names, so that it never needs that run again (core/runs/lineage_record.py)."""
    vocab_from = str(cfg.data.params.get("vocab_from") or "")
    if vocab_from and not lineage_record.read(run_dir).get("vocab_source"):
        info = pretraining_run(vocab_from, store)
        lineage_record.keep(run_dir, info.id, info.run_config)


def load_run_data(cfg: RunConfig, store: Any = None, run_dir: Any = None) -> Any:
    """The ArrayData a run trains on: its dataset in the form its model reads, tokenized with its pretraining
    run's vocabulary when ``data.vocab_from`` names one (workers only: imports torch). ``run_dir``: the run's
    folder: the vocabulary it keeps is read first (its words, else their settings); the parent only when it keeps
    none, and then what is read of it is kept (an older run becomes self-contained while its parent still exists)."""
    from studio.core.config.data_loading import load_dataset

    vocab_from = str(cfg.data.params.get("vocab_from") or "")
    if not vocab_from:
        return load_dataset(cfg.data, seed=cfg.train.seed, model=cfg.model)
    kept = lineage_record.read(run_dir)
    if kept.get("vocabulary"):
        source: dict[str, Any] = {"tokens": list(kept["vocabulary"])}
    elif kept.get("vocab_source"):
        source = dict(kept["vocab_source"])
    else:
        if run_dir:
            keep(cfg, run_dir, store)
        source = vocab_source(vocab_from, store)
    data = load_dataset(cfg.data, seed=cfg.train.seed, model=cfg.model, vocab_source=source)
    if run_dir and "tokens" not in source and data.meta.get("vocabulary"):
        lineage_record.add_vocabulary(run_dir, data.meta["vocabulary"])
    return data


def start_weights(cfg: RunConfig, store: Any = None) -> dict[str, str]:
    """What the model's builder takes at a run's first start (not at a resume: the run's own checkpoint then
    holds every weight): the parent run's final checkpoint for a ``bert_classifier`` or an image model with
    ``init_from``."""
    from studio.core.contracts import layout

    name = cfg.model.name
    init = str(cfg.model.params.get("init_from") or "") if name in (CLASSIFIER, *IMAGE_INIT) else ""
    if not init:
        return {}
    info = pretraining_run(init, store) if name == CLASSIFIER else finished_run(init, name, "run", store)
    return {"init_weights": str(layout.final_path(info.dir))}
