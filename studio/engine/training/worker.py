"""One training rank: set up the device, process group, data, model and optimizer; run the loop;
report a final status. Every failure becomes an ``error`` message a person can act on.

Also the entry point for clusters: ``torchrun --nproc-per-node N -m studio.engine.worker --config F``.
"""

from __future__ import annotations

import errno
import signal
import sys
import traceback
from typing import Any

import torch

from studio.core.config import RunConfig
from studio.core.contracts import protocol
from studio.core.datasets.arrays import ArrayData
from studio.core.errors import ConfigError, DataError, StoreError, StudioError
from studio.core.host import devices
from studio.core.host import threads as thread_policy
from studio.core.maths.normalise import stats
from studio.core.maths.objectives import task_for
from studio.core.models import MODELS
from studio.core.models.catalog import build_kwargs
from studio.core.models.ghost_batch_norm import use_ghost_batch_norm
from studio.core.optim import OPTIMIZERS, SCHEDULES
from studio.core.runs.lineage import load_run_data, start_weights
from studio.core.runs.store import RunStore
from studio.core.usercode.run_copy import point_to_copies
from studio.engine.callbacks.assemble import assemble
from studio.engine.callbacks.attention_snapshots import attention_callbacks
from studio.engine.callbacks.base import Callback
from studio.engine.callbacks.builtin import Checkpointer, Control, Evaluator, MetricReporter
from studio.engine.callbacks.fine_tuning import TwoStageFineTune, wrap_model
from studio.engine.callbacks.histograms import histogram_callbacks
from studio.engine.callbacks.landscape import live_callbacks
from studio.engine.callbacks.regularisers import GradientClipping, GradientNoise
from studio.engine.callbacks.stopping import ConvergenceCheck, EarlyStopping
from studio.engine.callbacks.trajectory_snapshots import snapshot_callbacks
from studio.engine.jobs.exit import exit_without_finalising
from studio.engine.loop import distributed
from studio.engine.loop.batching import lr_scale, plan_batches, steps_per_epoch
from studio.engine.loop.device_data import DeviceData
from studio.engine.loop.sinks import MultiSink, NullSink, QueueSink, Sink, StoreSink
from studio.engine.loop.trainer import Trainer
from studio.engine.training.rank_spec import RankSpec
from studio.engine.training.rank_watch import Beats, RankGuard, is_peer_loss


def pick_device(cfg: RunConfig, rank: int) -> torch.device:
    """The rank's device: its GPU (``hardware.gpus[rank]``, or the rank's index) or the CPU."""
    if cfg.hardware.device == "cuda":
        return devices.pick_device("cuda", cfg.hardware.gpus[rank] if cfg.hardware.gpus else rank)
    return torch.device("cpu")


def build_trainer(cfg: RunConfig, ctx: distributed.DistContext, sink: Sink, run_id: str, run_dir: str,
                  control_queue: Any, data: ArrayData | None = None, guard: Any = None, beats: Any = None,
                  resume_from: str | None = None) -> Trainer:
    """Everything a run needs, from its config (``data`` replaces loading the config's dataset); with
    ``resume_from``, the state of that checkpoint (engine/loop/resume.py)."""
    torch.manual_seed(cfg.train.seed)
    cfg = point_to_copies(cfg, run_dir)  # a user's file: the copy in the run folder (core/usercode/run_copy.py)

    def stage(text: str) -> None:  # rank 0 says what the wait before the first curve point is
        if ctx.is_main:
            sink.send(protocol.stage(run_id, text))

    if data is None:
        stage("loading the data")
        data = load_run_data(cfg, run_dir=run_dir or None)  # kept lineage first
    train, val, test = device_splits(data, cfg, ctx.device)
    stage("building the model")
    net = build_model(cfg, data, ctx.device, start_weights(cfg) if resume_from is None else {})
    check_output(net, train, data, cfg)
    note = str(getattr(net, "tokens_note", "") or "")  # a Hugging Face model: which tokens it reads
    if ctx.is_main and note:
        sink.send(protocol.log(run_id, note))
    full_batch = is_full_batch(cfg, ctx.world_size)
    batches = plan_batches(len(train), cfg.train, ctx.world_size, full_batch)
    k = cfg.train.accumulate_steps  # the global batch (linear scaling rule) counts every micro-batch of a step
    stage("building the optimizer")  # its first one in a process imports torch._dynamo: seconds on a busy CPU
    optimizer = build_optimizer(cfg, net, batches[0] * k * ctx.world_size, sink if ctx.is_main else None, run_id)
    per_epoch = [steps_per_epoch(len(train), b, ctx.world_size, k, cfg.train.epoch_steps) for b in batches]
    factor = SCHEDULES.build(cfg.schedule.name, total_steps=sum(per_epoch), steps_per_epoch=per_epoch[0],
                             **cfg.schedule.params)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    callbacks = build_callbacks(cfg, ctx, run_dir, control_queue,
                                cfg.optimizer.params.get("tolerance", 0.0) if full_batch else 0.0, guard, beats,
                                frozen_epochs_of(net))
    trainer = Trainer(wrap_model(net, ctx), net, optimizer, scheduler, train, val, test, cfg, ctx, sink, run_id,
                      callbacks, task=task_for(data.meta, cfg.train.label_smoothing), batches=batches)
    if resume_from:
        from studio.engine.loop.checkpoints import load_checkpoint
        from studio.engine.loop.resume import restore

        restore(trainer, load_checkpoint(resume_from), resume_from)
    return trainer


def is_full_batch(cfg: RunConfig, world_size: int) -> bool:
    """Whether the config's optimizer takes the whole training set in each step; ConfigError for one that runs in one
    process only (it re-evaluates the loss: Newton) asked to run in several."""
    entry = OPTIMIZERS.get(cfg.optimizer.name)
    if "closure" in entry.tags and world_size > 1:
        raise ConfigError(f"optimizer {entry.name} runs in one process; set hardware.processes=1")
    return "full_batch" in entry.tags


def device_splits(data: ArrayData, cfg: RunConfig, device: torch.device) -> tuple[DeviceData, DeviceData, DeviceData]:
    """Train, validation and test on the device, normalised with the training set's statistics
    (unless the dataset says its inputs must stay as they are: ``meta["normalise"] = False``)."""
    if len(data.y_train) == 0:
        raise DataError(f"dataset {cfg.data.name!r} has no training samples")
    x_tr, y_tr, x_val, y_val = data.split_validation(cfg.train.val_fraction, cfg.train.seed)
    if getattr(data, "loader", False):  # a dataset read by a DataLoader, not held on the device
        from studio.engine.loop.loader_data import LoaderData

        workers = int(getattr(data, "workers", 0))
        loaders = [LoaderData(x, y, device, workers)  # type: ignore[arg-type]  # columns (core/datasets/code_data.py)
                   for x, y in ((x_tr, y_tr), (x_val, y_val), (data.x_test, data.y_test))]
        return loaders[0], loaders[1], loaders[2]
    mean, std = stats(x_tr) if data.meta.get("normalise", True) else (torch.zeros(1), torch.ones(1))
    return tuple(DeviceData(x, y, mean, std, device)  # type: ignore[return-value]
                 for x, y in ((x_tr, y_tr), (x_val, y_val), (data.x_test, data.y_test)))


def build_model(cfg: RunConfig, data: ArrayData, device: torch.device,
                weights: dict[str, str] | None = None) -> torch.nn.Module:
    """The config's model for ``data`` on ``device``; ``weights``: what its builder starts from at a run's first
    start (a pretraining run's encoder: ``core/runs/lineage.start_weights``)."""
    if data.meta.get("task") == "next_word" and "text" not in MODELS.get(cfg.model.name).tags:
        raise ConfigError(f"{cfg.data.name} is a text dataset: choose a next-word model (lstm_lm, gru_lm or gpt_lm), "
                          f"not {cfg.model.name}")
    net = MODELS.build(cfg.model.name, **build_kwargs(cfg.model.name, cfg.model.params, data.input_shape,
                                                      data.num_classes, data.meta), **(weights or {}))
    if cfg.train.ghost_batch:
        use_ghost_batch_norm(net, cfg.train.ghost_batch)
    return net.to(device)


def check_output(net: torch.nn.Module, train: Any, data: Any, cfg: RunConfig) -> None:
    """A model from outside the catalog (a user's file, timm, Hugging Face) run once on the first training batch
    (RNG and batch-norm statistics untouched): an output that does not fit the task, or an exception in its
    ``forward``, is one sentence before the first step (core/models/output_check.py)."""
    from studio.core.models.output_check import OUTSIDE, check_batch_output

    if cfg.model.name not in OUTSIDE or not len(train):
        return
    first = next(iter(net.parameters()), None)
    was_training = net.training
    net.eval()
    try:
        with torch.random.fork_rng(devices=[]), torch.no_grad():  # a user's random transform draws here too
            x = train.normalise(train.x[:min(64, len(train))]).to(first.device if first is not None else "cpu")
            out = net(x)
    finally:
        net.train(was_training)
    check_batch_output(cfg, out, tuple(x.shape), data.num_classes, str(data.meta.get("task", "")))


def build_optimizer(cfg: RunConfig, net: torch.nn.Module, global_batch: int, sink: Sink | None,
                    run_id: str) -> torch.optim.Optimizer:
    """The config's optimizer over the model's parameters (or its own groups: transfer learning),
    with the linear scaling rule applied to every group's learning rate when it is switched on."""
    params = cfg.optimizer.params
    groups = (net.optimizer_groups(params["lr"])  # type: ignore[operator]  # a TransferNet's method
              if hasattr(net, "optimizer_groups") else net.parameters())
    optimizer = OPTIMIZERS.build(cfg.optimizer.name, params=groups, **params)
    scale = lr_scale(cfg.train, global_batch)
    if scale != 1.0:
        for group in optimizer.param_groups:
            group["lr"] *= scale
        if sink:
            sink.send(protocol.log(run_id, f"linear scaling rule: learning rate {params['lr']:.4g} × {global_batch}"
                                           f"/{cfg.train.base_batch} = {params['lr'] * scale:.4g}"))
    return optimizer


def build_callbacks(cfg: RunConfig, ctx: distributed.DistContext, run_dir: str, control_queue: Any = None,
                    tolerance: float = 0.0, guard: Any = None, beats: Any = None,
                    fine_tune_epochs: int | None = None) -> list[Callback]:
    """The callbacks the config switches on, in the order the loop calls them: each declares its stage and what
    must run before it, and the assembler sorts and checks them (engine/callbacks/assemble.py). ``tolerance``: a
    full-batch optimizer's convergence check (0: none); ``fine_tune_epochs``: a transfer model's frozen epochs
    (:func:`frozen_epochs_of`; None: not one)."""
    tr = cfg.train
    checkpointer = Checkpointer(run_dir, tr.checkpoint_every, tr.keep_checkpoints, tr.checkpoint_minutes)
    callbacks: list[Callback] = [
        Control(control_queue, tr.metric_interval if ctx.device.type == "cuda" else 1, checkpointer, guard, beats),
        MetricReporter(tr.metric_interval), Evaluator(), checkpointer,
    ]
    if tr.grad_clip > 0:
        callbacks.append(GradientClipping(tr.grad_clip))
    if tr.grad_noise > 0:
        callbacks.append(GradientNoise(tr.grad_noise, tr.seed))
    if fine_tune_epochs is not None:
        callbacks.append(TwoStageFineTune(fine_tune_epochs))
    if tr.early_stop_patience > 0:
        callbacks.append(EarlyStopping(tr.early_stop_patience, tr.early_stop_min_delta))
    if tolerance > 0:
        callbacks.append(ConvergenceCheck(tolerance))
    callbacks += live_callbacks(cfg, run_dir)  # landscape snapshots, sharpness curve (engine/callbacks/landscape.py)
    callbacks += snapshot_callbacks(cfg, run_dir)  # weights for trajectory landscapes
    callbacks += histogram_callbacks(cfg, run_dir)  # weight/gradient histograms (engine/callbacks/histograms.py)
    callbacks += attention_callbacks(cfg, run_dir)  # Transformers' attention while training (attention_snapshots.py)
    return assemble(callbacks)


def frozen_epochs_of(net: torch.nn.Module) -> int | None:
    """A transfer-learning model's frozen epochs (it has ``freeze_base``: TwoStageFineTune unfreezes it); None
    for any other model."""
    return int(net.frozen_epochs) if hasattr(net, "freeze_base") else None  # type: ignore[arg-type]  # its int


def describe_failure(err: BaseException, cfg: RunConfig | None) -> tuple[str, int]:
    """A sentence a person can act on, and the CLI exit code (2: fix your input; 3: the run failed)."""
    if isinstance(err, StudioError):
        return str(err), err.exit_code
    from studio.core.usercode.loading import user_error

    in_user_code = user_error(err)  # raised in the user's own file: its line, not Studio's stack
    if in_user_code:
        return in_user_code, 2
    if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full ({err.filename or 'a run file'}); free some space and resume the run", 3
    if is_peer_loss({"message": str(err)}):
        return f"lost contact with another training process ({str(err).splitlines()[0][:200]})", 3
    if isinstance(err, torch.cuda.OutOfMemoryError):
        batch = cfg.train.batch_size if cfg else "?"
        return (f"the GPU ran out of memory with batch size {batch}; lower train.batch_size or pick a "
                "smaller model", 3)
    if isinstance(err, MemoryError):
        return "the machine ran out of memory; lower train.batch_size or use a smaller dataset", 3
    return f"training failed: {type(err).__name__}: {err}", 3


def run_rank(rank: int, spec: RankSpec) -> None:
    """Run rank ``rank`` of a job described by ``spec`` (see engine/training/launcher.py)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; Ctrl+C reaches the whole group
    run_id, world = spec.run_id, spec.world_size
    queue_sink = QueueSink(spec.queue) if spec.queue is not None else NullSink()
    guard = RankGuard(spec.parent_pid, on_parent_gone=getattr(queue_sink, "abandon", None))
    cfg = None
    code = 0
    store = None
    training = False
    ended_cleanly = False
    heartbeat: StoreHeartbeat | None = None
    sink: Sink = queue_sink
    try:
        store = RunStore(spec.home) if rank == 0 and spec.home else None
        store_sink = StoreSink(store) if store else None
        heartbeat = StoreHeartbeat(store, run_id).start() if store else None
        sink = MultiSink(queue_sink, store_sink) if rank == 0 else queue_sink
        cfg = RunConfig.from_dict(spec.config)
        thread_policy.apply(spec.threads or thread_policy.plan(cfg.hardware.threads, processes=world))
        device = pick_device(cfg, rank if spec.local_rank is None else spec.local_rank)
        if rank == 0 and world > 1:
            sink.send(protocol.stage(run_id, f"waiting for the other {world - 1} process{'es' if world > 2 else ''}"))
        ctx = distributed.init(rank, world, spec.init_method, device)
        trainer = build_trainer(cfg, ctx, sink, run_id, spec.run_dir, spec.control if rank == 0 else None,
                                guard=guard, beats=Beats(spec.beats, rank), resume_from=spec.resume_from)
        if trainer.resumed and store and store_sink:
            store.truncate_metrics(run_id, trainer.step)  # rows past the checkpoint are redone
            store_sink.resumed_at = trainer.step  # rows at it are kept, not written twice
        if rank == 0:
            sink.send(protocol.status(run_id, protocol.RUNNING, total_steps=trainer.total_steps,
                                      epochs=cfg.train.epochs, world_size=world, device=device.type))
        training = True  # from here a failure is a failed run (exit 3), even the store's
        summary = trainer.fit()
        final = protocol.STOPPED if trainer.stopped_by_user else protocol.FINISHED
        if rank == 0:
            sink.send(protocol.status(run_id, final, summary=summary, message=trainer.stop_reason))
        ended_cleanly = True
    except BaseException as err:  # noqa: BLE001 - every failure is reported, then the rank exits non-zero
        message, code = describe_failure(err, cfg)
        if training and isinstance(err, StoreError):
            code = 3  # the run store failed mid-run (a full disk): the run failed, it was not a bad input
        queue_sink.send(protocol.error(run_id, message, rank=rank, detail=traceback.format_exc(),
                                       exit_code=code, peer_lost=is_peer_loss({"message": message})))
        if store:
            try:
                store.set_status(run_id, protocol.FAILED, message)
            except StudioError:  # the store itself is what failed (a full disk): the launcher retries
                pass
        code = code or 1
    finally:
        if heartbeat:
            heartbeat.stop()
        if guard.parent_gone:
            abandon = getattr(queue_sink, "abandon", None)
            if abandon:
                abandon()
        try:
            distributed.shutdown(synchronize=ended_cleanly and not guard.parent_gone)
        except Exception:  # noqa: BLE001 - a broken group cannot be shut down cleanly
            pass
        try:
            sink.close()
        except Exception:  # noqa: BLE001 - closing a broken store must not hide the run's result
            pass
    if code:
        sys.exit(code)


class StoreHeartbeat:
    """Rank 0 records a sign of life in the run store every ``every`` seconds, from a thread of its own (so a
    long step, an evaluation or a checkpoint does not silence it): core/runs/store.py shows a run whose
    processes it cannot check (torchrun, Slurm, another machine) as interrupted once it is silent for
    ``STALE_S``."""

    def __init__(self, store: RunStore, run_id: str, every: float = 10.0) -> None:
        import threading

        self.store, self.run_id, self.every = store, run_id, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="studio-heartbeat", daemon=True)

    def start(self) -> StoreHeartbeat:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while True:
                try:
                    self.store.beat(self.run_id)
                except StudioError:  # a busy or full store: the next beat tries again
                    pass
                if self._stop.wait(self.every):
                    return
        finally:
            self.store.close()  # this thread's connection

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def main(argv: list[str] | None = None) -> None:
    """torchrun entry (training/torchrun.py): ranks and rendezvous from the environment; rank 0 records the run."""
    from studio.engine.training.torchrun import rank_from_args

    planned = rank_from_args(argv)
    if planned is not None:
        run_rank(*planned)


if __name__ == "__main__":
    exit_without_finalising(main)
