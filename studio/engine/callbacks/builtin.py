"""Training features as callbacks: metric reports, control (stop/pause), evaluation, checkpoints."""

from __future__ import annotations

import math
import queue as queue_mod
import time
from pathlib import Path
from typing import Any

from studio.core.contracts import layout, protocol
from studio.core.errors import Diverged
from studio.core.host import fault_points
from studio.core.models.transformer import non_embedding_parameters
from studio.core.vocab import Metric
from studio.engine.callbacks.base import Callback, every
from studio.engine.loop.distributed import agree
from studio.engine.loop.trainer import Trainer


def perplexity(loss: float) -> float:
    """exp(mean cross-entropy in nats): the number of words the model is as unsure as choosing among."""
    return math.exp(min(loss, 700.0)) if math.isfinite(loss) else loss


class MetricReporter(Callback):
    """Every ``interval`` steps: train loss/accuracy, learning rate and throughput; NaN check."""

    stage = "metrics"

    def __init__(self, interval: int) -> None:
        self.interval = interval
        self.last_time = time.perf_counter()
        self.last_step = 0

    def describe(self) -> str:
        return (f"train loss/accuracy, learning rate and throughput {every(self.interval, 'step')}; a loss that is "
                "not finite fails the run")

    def on_train_start(self, t: Trainer) -> None:
        self.last_time, self.last_step = time.perf_counter(), t.step

    def on_step_end(self, t: Trainer) -> None:
        if t.step % self.interval == 0 or t.step == t.total_steps:
            self.report(t)

    def on_train_end(self, t: Trainer) -> None:
        self.report(t)  # a stopped run reports its last partial window

    def report(self, t: Trainer) -> None:
        if t.step == self.last_step:
            return
        loss_sum, correct, count = t.reduce(t.window).tolist()
        t.window.zero_()
        loss = loss_sum / max(count, 1)
        if not math.isfinite(loss):
            raise Diverged(
                f"the training loss became {loss} at step {t.step} (learning rate {t.lr():.3g}); "
                "try a lower learning rate (optimizer.lr) or gradient clipping (train.grad_clip)"
            )
        now = time.perf_counter()
        samples = (t.step - self.last_step) * t.global_batch
        throughput = samples / max(now - self.last_time, 1e-9)
        self.last_time, self.last_step = now, t.step
        wall = time.time()
        rows = [(t.step, Metric.TRAIN_LOSS, loss, wall), (t.step, Metric.LR, t.lr(), wall),
                (t.step, Metric.THROUGHPUT, throughput, wall)]
        if t.task.has_accuracy:
            rows.append((t.step, Metric.TRAIN_ACC, correct / max(count, 1), wall))
        if getattr(t.task, "perplexity", False):
            rows.append((t.step, Metric.TRAIN_PERPLEXITY, perplexity(loss), wall))
        t.emit(protocol.metrics(t.run_id, rows, step=t.step, total_steps=t.total_steps,
                                epoch=t.epoch + 1, epochs=t.cfg.train.epochs))


class Evaluator(Callback):
    """Validation loss/accuracy each epoch; the test split and the run's summary at the end."""

    stage = "evaluate"

    def describe(self) -> str:
        return "validation loss/accuracy each epoch; the test split and the run's summary at the end"

    def on_epoch_end(self, t: Trainer) -> None:
        val_loss, val_acc = t.evaluate(t.val_data)
        train_loss = self._epoch_train_loss(t)
        wall = time.time()
        rows = [(t.step, Metric.EPOCH, t.epoch + 1, wall), (t.step, Metric.TRAIN_EPOCH_LOSS, train_loss, wall)]
        if not math.isnan(val_loss):
            rows.append((t.step, Metric.VAL_LOSS, val_loss, wall))
        if not math.isnan(val_acc):
            rows.append((t.step, Metric.VAL_ACC, val_acc, wall))
        t.summary.update({"train_loss": train_loss, "val_loss": val_loss, "val_acc": val_acc})
        if getattr(t.task, "perplexity", False) and not math.isnan(val_loss):
            rows.append((t.step, Metric.VAL_PERPLEXITY, perplexity(val_loss), wall))
            t.summary["val_perplexity"] = perplexity(val_loss)
        t.emit(protocol.metrics(t.run_id, rows, step=t.step, total_steps=t.total_steps,
                                epoch=t.epoch + 1, epochs=t.cfg.train.epochs))

    def on_stop(self, t: Trainer) -> None:
        """The summary so far (no test split yet), recorded now: a stop forced before the end keeps it."""
        so_far = {**t.summary, "train_loss": self._epoch_train_loss(t), "epochs": t.epochs_done, "steps": t.step,
                  "world_size": t.ctx.world_size, "device": str(t.ctx.device.type), "seconds": round(t.seconds, 3)}
        t.emit(protocol.status(t.run_id, protocol.RUNNING, summary=so_far))

    def on_train_end(self, t: Trainer) -> None:
        fault_points.reached("evaluate.end")
        if "train_loss" not in t.summary or t.should_stop:
            t.summary["train_loss"] = self._epoch_train_loss(t)
        test_loss, test_acc = t.evaluate(t.test_data)
        t.summary.update({
            "epochs": t.epochs_done, "steps": t.step, "test_loss": test_loss, "test_acc": test_acc,
            "world_size": t.ctx.world_size, "device": str(t.ctx.device.type), "seconds": round(t.seconds, 3),
            "n_params_non_embedding": non_embedding_parameters(t.net),  # Kaplan's N (scaling laws)
        })
        t.summary.setdefault("val_loss", math.nan)
        t.summary.setdefault("val_acc", math.nan)
        rows = [(t.step, Metric.TEST_LOSS, test_loss, time.time())]
        if not math.isnan(test_acc):
            rows.append((t.step, Metric.TEST_ACC, test_acc, time.time()))
        if getattr(t.task, "perplexity", False):
            t.summary["test_perplexity"] = perplexity(test_loss)
            rows.append((t.step, Metric.TEST_PERPLEXITY, t.summary["test_perplexity"], time.time()))
        t.emit(protocol.metrics(t.run_id, rows, step=t.step, total_steps=t.total_steps, epoch=t.epochs_done,
                                epochs=t.cfg.train.epochs))

    @staticmethod
    def _epoch_train_loss(t: Trainer) -> float:
        loss_sum, _, count = t.reduce(t.epoch_sums).tolist()
        return loss_sum / count if count else math.nan


class Checkpointer(Callback):
    """Saves the run's state at the start (step 0), every N epochs, on request, and at the end.

    Files are written atomically and load with ``weights_only=True``; only the newest ``keep`` step
    files are kept (engine/loop/checkpoints.py). Every rank calls ``save`` (the RNG states are gathered);
    rank 0 writes. It runs last: a checkpoint holds every other callback's state as its hooks left it.
    """

    stage = "checkpoint"
    runs_after = (Callback,)  # every other callback

    def __init__(self, run_dir: str | Path, every_epochs: int, keep: int = 0, minutes: float = 0.0) -> None:
        self.dir = layout.checkpoints_dir(run_dir)
        self.every = every_epochs
        self.keep = keep
        self.period = minutes * 60
        self.last_saved = time.monotonic()

    def describe(self) -> str:
        when = ["at the start"]
        if self.every:
            when.append(every(self.every, "epoch"))
        if self.period:
            when.append(every(self.period / 60, "minute"))
        kept = f"the newest {self.keep} step files" if self.keep else "every step file"
        return f"checkpoints {', '.join(when)}, on request and at the end; keeps {kept} (and step 0, final.pt)"

    def due(self) -> bool:
        """Whether the time-based checkpoint is due (rank 0 decides; Control shares it as a command)."""
        return self.period > 0 and time.monotonic() - self.last_saved >= self.period

    def save(self, t: Trainer, name: str | None = None, rng: Any = None) -> Path | None:
        from studio.engine.loop.checkpoints import atomic_save, prune
        from studio.engine.loop.resume import training_state

        rng = rng if rng is not None else t.capture_rng()
        self.last_saved = time.monotonic()
        if not t.ctx.is_main:
            return None
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / (name or layout.step_name(t.step))
        state: dict[str, Any] = {
            "model": t.net.state_dict(), "step": t.step, "epoch": t.epochs_done,
            "config": t.cfg.to_dict(), "resume": training_state(t, rng),
        }
        if t.step > 0:
            state["optimizer"] = t.optimizer.state_dict()
        atomic_save(state, path)
        if name is None:
            prune(self.dir, self.keep)
        t.emit(protocol.artifact(t.run_id, protocol.CHECKPOINT_FILE, str(path), step=t.step))
        return path

    def on_train_start(self, t: Trainer) -> None:
        if not t.resumed:
            self.save(t)

    def on_epoch_end(self, t: Trainer) -> None:
        if self.every and (t.epoch + 1) % self.every == 0 and t.epoch + 1 < t.cfg.train.epochs:
            self.save(t)

    def on_stop(self, t: Trainer) -> None:
        self.save(t, rng=t.rng_at_stop)  # the newest state, before the end-of-run work (saved again after it)

    def on_train_end(self, t: Trainer) -> None:
        rng = t.rng_at_stop  # as the loop left it: the end-of-run evaluation must not shift a resume
        self.save(t, rng=rng)
        self.save(t, layout.FINAL, rng=rng)


class Control(Callback):
    """Stop, pause, resume and checkpoint requests from the parent, agreed by all ranks.

    Rank 0 reads its control queue; one collective shares the command, together with whether any rank
    was asked to stop by its own means (``guard``: SIGTERM, its parent gone; engine/training/rank_watch.py), so
    every rank stops at the same step and nobody waits forever in a collective. On CUDA the collective
    is a host sync, so it happens only every ``interval`` steps.
    """

    stage = "control"

    def __init__(self, control_queue: Any, interval: int, checkpointer: Checkpointer, guard: Any = None,
                 beats: Any = None) -> None:
        self.queue = control_queue
        self.interval = interval
        self.checkpointer = checkpointer
        self.guard = guard
        self.beats = beats
        self.reason = "stopped by the user"

    def describe(self) -> str:
        return ("stop, pause, resume and checkpoint requests, agreed by all processes "
                f"{every(self.interval, 'step')} and at each epoch's end")

    def _poll(self, t: Trainer, block: float = 0.0) -> int:
        code = 0
        if t.ctx.is_main and self.queue is not None and not (self.guard and self.guard.parent_gone):
            try:
                command = self.queue.get(timeout=block) if block else self.queue.get_nowait()
                code = protocol.CONTROL_CODES.get(command, 0)
            except (queue_mod.Empty, OSError, EOFError, ValueError):
                code = 0
            if not code and self.checkpointer.due():
                code = protocol.CONTROL_CODES["checkpoint"]
        elif block:
            time.sleep(block)
        local = self.guard.reason if self.guard else ""
        code, stop = agree(t.ctx, code, bool(local))
        if self.beats is not None:
            self.beats.beat(t.step)
        if stop and code != protocol.CONTROL_CODES["stop"]:
            self.reason = local or "stopped: another training process was asked to stop (SIGTERM)"
            return protocol.CONTROL_CODES["stop"]
        if code == protocol.CONTROL_CODES["stop"]:
            self.reason = local or "stopped by the user"  # a SIGTERM to the group reaches the CLI too
        return code

    def on_step_end(self, t: Trainer) -> None:
        if t.step % self.interval == 0:
            self._handle(t, self._poll(t))

    def on_epoch_end(self, t: Trainer) -> None:
        self._handle(t, self._poll(t))

    def _handle(self, t: Trainer, code: int) -> None:
        command = protocol.CODE_NAMES.get(code)
        if command == "stop":
            t.request_stop(self.reason, by_user=True)
        elif command == "checkpoint":
            self.checkpointer.save(t)
        elif command == "pause":
            t.emit(protocol.status(t.run_id, protocol.PAUSED, step=t.step))
            paused_at = time.perf_counter()
            while True:
                command = protocol.CODE_NAMES.get(self._poll(t, block=0.25))
                if command in ("resume", "stop"):
                    break
                if command == "checkpoint":
                    self.checkpointer.save(t)
            t.started += time.perf_counter() - paused_at  # a pause is not training time
            if command == "stop":
                t.request_stop(self.reason, by_user=True)
            else:
                t.emit(protocol.status(t.run_id, protocol.RUNNING, step=t.step))
