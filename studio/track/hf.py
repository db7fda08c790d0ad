"""``StudioCallback``: a Hugging Face ``TrainerCallback`` that records into Studio's run store (``studio.track``).

::

    from studio.track.hf import StudioCallback
    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[StudioCallback(tags=["bert"])])

Every number the Trainer logs (``loss``, ``learning_rate``, ``grad_norm``, ``eval_*``) is recorded at the
Trainer's global step, named ``train/loss``, ``eval/loss`` … as the Trainer's own TensorBoard callback names
them; the training arguments and the model's config become the run's settings. Only the main process records.
Import this module only where ``transformers`` is installed.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

import studio.track
from studio.track.run import Run


def metric_name(key: str) -> str:
    """``eval_loss`` → ``eval/loss``, ``loss`` → ``train/loss`` (the Trainer's TensorBoard names)."""
    for prefix in ("eval_", "test_", "predict_"):
        if key.startswith(prefix):
            return f"{prefix[:-1]}/{key[len(prefix):]}"
    return key if "/" in key else f"train/{key}"


class StudioCallback(TrainerCallback):
    """Records a Trainer's logs, arguments and model config in a ``studio.track`` run."""

    def __init__(self, name: str = "", config: Mapping[str, Any] | None = None, tags: Iterable[str] = (), *,
                 home: str | Path | None = None, flush_s: float = 0.5) -> None:
        self._name, self._config, self._tags = name, dict(config or {}), list(tags)
        self._home, self._flush_s = home, flush_s
        self.run: Run | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        if not state.is_world_process_zero or self.run is not None:
            return
        self.run = studio.track.init(self._name or getattr(args, "run_name", "") or "hf-trainer", self._config,
                                     self._tags, home=self._home, rank=0, flush_s=self._flush_s)
        plain = (numbers.Number, str, bool)
        settings: dict[str, Any] = {k: v for k, v in args.to_dict().items() if isinstance(v, plain)}
        model_config = getattr(model, "config", None)
        if model_config is not None and hasattr(model_config, "to_dict"):
            settings["model"] = {k: v for k, v in model_config.to_dict().items()
                                 if isinstance(v, (numbers.Number, str, bool))}
        self.run.set_config(settings)

    def on_log(self, args: Any, state: Any, control: Any, logs: Mapping[str, Any] | None = None,
               **kwargs: Any) -> None:
        if self.run is None or not logs:
            return
        self.run.log({metric_name(k): v for k, v in logs.items() if isinstance(v, numbers.Number)},
                     step=state.global_step)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.run is not None:
            self.run.finish()
