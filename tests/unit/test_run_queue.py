"""The run queue in the store and its scheduler, without training: devices from a fake GPU list,
two schedulers racing for the same runs, cancel, and the scheduler loop with a fake launcher."""

import os
import threading

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.runs.queue import Inventory, Request, RunQueue, allocate
from studio.core.runs.store import RunStore
from studio.engine.training.scheduler import Scheduler

CPU = Request("cpu")


def test_cpu_runs_one_at_a_time_unless_more_slots():
    assert allocate(CPU, Inventory(), []) == ["cpu"]
    assert allocate(CPU, Inventory(), [["cpu"]]) is None
    assert allocate(CPU, Inventory(cpu_slots=2), [["cpu"]]) == ["cpu"]
    assert allocate(Request("cpu"), Inventory(gpus=(0, 1)), [["cuda:0"]]) == ["cpu"]  # GPUs do not block CPU


def test_gpu_runs_take_free_gpus_one_per_rank():
    four = Inventory(gpus=(0, 1, 2, 3))
    assert allocate(Request("cuda", 1), four, []) == ["cuda:0"]
    assert allocate(Request("cuda", 1), four, [["cuda:0"], ["cuda:2"]]) == ["cuda:1"]
    assert allocate(Request("cuda", 4), four, []) == ["cuda:0", "cuda:1", "cuda:2", "cuda:3"]  # DDP: all
    assert allocate(Request("cuda", 4), four, [["cuda:3"]]) is None
    assert allocate(Request("cuda", 2, (2, 3)), four, [["cuda:0"]]) == ["cuda:2", "cuda:3"]  # the listed ones
    assert allocate(Request("cuda", 2, (2, 3)), four, [["cuda:3"]]) is None


def queue_of(tmp_path, *overrides: list[str]) -> tuple[RunQueue, list[str]]:
    queue = RunQueue(RunStore(tmp_path))
    ids = [queue.add(RunConfig().with_overrides(o)).id for o in overrides]
    return queue, ids


def test_claims_follow_queue_order_and_devices(tmp_path):
    gpu, ddp = ["hardware.device=cuda"], ["hardware.device=cuda", "hardware.processes=2"]
    queue, (a, b, c, d, e) = queue_of(tmp_path, gpu, [], ddp, gpu, [])
    two = Inventory(gpus=(0, 1))
    assert queue.positions() == {a: 1, b: 2, c: 3, d: 4, e: 5}
    first = queue.claim_next("100:1", two)
    assert first.info.id == a and first.devices == ["cuda:0"] and first.config.hardware.gpus == [0]
    assert queue.claim_next("100:1", two).info.id == b  # CPU, beside the GPU run
    # the DDP run needs both GPUs: it waits, and the later single-GPU run waits behind it (no starvation);
    # the later CPU run waits for the CPU slot
    assert queue.claim_next("100:1", two) is None
    queue.finish(a)
    ddp_claim = queue.claim_next("100:1", two)
    assert ddp_claim.info.id == c and ddp_claim.config.hardware.gpus == [0, 1]
    assert queue.positions() == {d: 1, e: 2}
    assert [x.state for x in queue.entries()] == ["running", "running", "waiting", "waiting"]


def test_a_run_the_machine_can_never_serve_fails_with_the_reason(tmp_path):
    queue, (a, b) = queue_of(tmp_path, ["hardware.device=cuda", "hardware.processes=4"], [])
    assert queue.claim_next("1:1", Inventory(gpus=(0, 1))).info.id == b
    run = queue.store.get(a)
    assert run.status == "failed" and "asks for 4 GPUs; this machine has 2" in run.message


def test_cancel_waiting_never_starts_running_is_asked_to_stop(tmp_path):
    queue, (a, b) = queue_of(tmp_path, [], [])
    assert queue.claim_next("7:1", Inventory()).info.id == a
    assert queue.cancel(b) == "cancelled" and queue.store.get(b).status == "cancelled"
    assert queue.cancel(a) == "stopping" and queue.running() == [(a, "7:1", 1)]
    queue.finish(a)
    assert queue.claim_next("7:1", Inventory()) is None  # b never starts
    with pytest.raises(ConfigError, match="already been cancelled"):
        queue.cancel(b)
    with pytest.raises(ConfigError, match="already ended"):
        queue.cancel(a)


def test_a_waiting_run_moves_in_the_queue_and_the_next_claim_follows(tmp_path, capsys, monkeypatch):
    queue, (a, b, c, d) = queue_of(tmp_path, [], [], [], [])
    assert queue.claim_next("100:1", Inventory()).info.id == a  # running: it keeps its place
    token = queue.changes_token()
    assert queue.move(d, 1) == 1
    assert queue.changes_token() != token  # a window watching the store (or another process) sees the move
    assert queue.positions() == {d: 1, b: 2, c: 3}
    assert queue.move(b, 99) == 3  # past the end: last
    assert queue.positions() == {d: 1, c: 2, b: 3}
    assert queue.move(c, 2) == 2 and queue.positions() == {d: 1, c: 2, b: 3}  # where it is: nothing changes
    with pytest.raises(ConfigError, match="only a waiting run can move"):
        queue.move(a, 1)
    with pytest.raises(ConfigError, match="1 or more"):
        queue.move(c, 0)
    queue.finish(a)
    assert queue.claim_next("100:1", Inventory()).info.id == d  # the run moved to the front starts next

    from studio.cli import main  # the same through the CLI, with --json

    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    assert main(["queue", "move", b, "1", "--json"]) == 0
    assert capsys.readouterr().out.strip() == f'{{"run_id": "{b}", "position": 1}}'
    assert queue.positions() == {b: 1, c: 2}


def test_two_schedulers_racing_claim_each_run_exactly_once(tmp_path):
    queue, ids = queue_of(tmp_path, *([["train.epochs=1"]] * 12))
    claimed: dict[str, list[str]] = {"1:1": [], "2:1": []}
    many = Inventory(cpu_slots=100)
    barrier = threading.Barrier(2)

    def scheduler(owner: str) -> None:
        own = RunQueue(RunStore(tmp_path))  # its own connections, as another process would have
        barrier.wait()
        while (claim := own.claim_next(owner, many)) is not None:
            claimed[owner].append(claim.info.id)

    threads = [threading.Thread(target=scheduler, args=(n,)) for n in claimed]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed["1:1"] + claimed["2:1"]) == sorted(ids)  # all claimed, none twice
    assert queue.pending() == 0


def _dead_pid() -> int:
    """The pid of a process that has exited (a low fixed pid such as 11 is a live kernel thread on a fresh VM)."""
    import subprocess

    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_lease_one_scheduler_at_a_time(tmp_path):
    queue = RunQueue(RunStore(tmp_path))
    first, second = _dead_pid(), _dead_pid()
    # the holder's pid is gone, so its start time cannot be read: its beat decides (fresh now, stale later)
    assert queue.take_lease(first) and not queue.take_lease(second) and queue.lease_holder() == first
    assert queue.take_lease(second, now=10**12)  # a stale lease is taken over
    assert not queue.beat(first) and queue.beat(second)
    queue.release_lease(second)
    assert queue.lease_holder() is None


class FakeJob:
    """Finishes after a few polls, as a real run reports "finished" into the store."""

    def __init__(self, store: RunStore, run_id: str, log: list) -> None:
        self.store, self.run_id, self.log = store, run_id, log
        self.polls, self.finished, self.state = 0, False, "running"

    def poll(self, timeout: float = 0) -> list:
        self.polls += 1
        if self.polls >= 3 and not self.finished:
            self.finished, self.state = True, "finished"
            self.store.set_status(self.run_id, "finished")
            self.log.append(("end", self.run_id))
        return []

    def stop(self) -> None:
        self.log.append(("stop", self.run_id))

    def kill(self) -> None:
        pass


def test_scheduler_loop_with_fake_gpus_runs_everything_in_turn(tmp_path):
    gpu = ["hardware.device=cuda"]
    queue, (a, b, c, d) = queue_of(tmp_path, gpu, gpu, gpu, ["hardware.device=cuda", "hardware.processes=2"])
    events: list = []

    def fake_launch(config, store, run):
        events.append(("start", run.id, tuple(config.hardware.gpus)))
        return FakeJob(store, run.id, events)

    sched = Scheduler(queue.store, Inventory(gpus=(0, 1)), idle_exit_s=0.1, log=lambda _: None, launch=fake_launch,
                      housekeeping_s=0.02)
    assert sched.serve() == 0
    starts = [e for e in events if e[0] == "start"]
    assert starts[:2] == [("start", a, (0,)), ("start", b, (1,))]  # two GPUs: two runs at once
    assert ("start", c, (0,)) in starts and ("start", d, (0, 1)) in starts  # DDP run gets both
    assert events.index(("start", d, (0, 1))) > events.index(("end", c))  # only when both are free
    assert all(queue.store.get(r).status == "finished" for r in (a, b, c, d))
    assert queue.entries() == [] and queue.lease_holder() is None


def test_cancelling_a_running_run_stops_it_and_a_dead_schedulers_runs_are_freed(tmp_path):
    queue, (a, reused, b) = queue_of(tmp_path, [], [], [])
    assert queue.claim_next("999999999:1", Inventory()).info.id == a  # a scheduler pid that does not exist
    # a pid that lives, but with another start time: the kernel gave a dead scheduler's pid to a new process
    assert queue.claim_next(f"{os.getpid()}:1", Inventory(cpu_slots=2)).info.id == reused
    events: list = []

    class StopsWhenAsked(FakeJob):
        def poll(self, timeout: float = 0) -> list:
            if ("stop", self.run_id) in self.log and not self.finished:
                self.finished, self.state = True, "stopped"
                self.store.set_status(self.run_id, "stopped")
            return []

    def fake_launch(config, store, run):
        events.append(("start", run.id))
        queue.cancel(run.id)  # the user cancels it as soon as it runs
        return StopsWhenAsked(store, run.id, events)

    sched = Scheduler(queue.store, Inventory(), idle_exit_s=0.1, log=lambda _: None, launch=fake_launch,
                      housekeeping_s=0.02)
    assert sched.serve() == 0
    for orphan in (a, reused):
        orphaned = queue.store.get(orphan)  # claimed, never started: failed with the reason
        assert orphaned.status == "failed" and "scheduler stopped before the run could start" in orphaned.message
    assert events == [("start", b), ("stop", b)] and queue.store.get(b).status == "stopped"


def test_a_pruned_run_stops_with_its_checkpoint_and_is_marked_pruned_and_resumable(tmp_path):
    queue, (a, b) = queue_of(tmp_path, [], [])
    events: list = []

    class StopsWhenAsked(FakeJob):
        def poll(self, timeout: float = 0) -> list:
            if ("stop", self.run_id) in self.log and not self.finished:
                (self.store.get(self.run_id).dir / "checkpoints" / "step_0000010.pt").write_bytes(b"weights")
                self.finished, self.state = True, "stopped"
                self.store.set_status(self.run_id, "stopped", summary={"epochs": 2})
            return []

    def fake_launch(config, store, run):
        events.append(("start", run.id))
        queue.cancel(run.id, prune=run.id == a)  # a search prunes a; the user stops b
        return StopsWhenAsked(store, run.id, events)

    sched = Scheduler(queue.store, Inventory(), idle_exit_s=0.1, log=lambda _: None, launch=fake_launch,
                      housekeeping_s=0.02)
    assert sched.serve() == 0
    pruned, stopped = queue.store.get(a), queue.store.get(b)
    assert pruned.status == "pruned" and "after 2 epochs" in pruned.message and pruned.resumable
    assert stopped.status == "stopped"  # a plain stop stays a stop
    from studio.core.runs.record import read_record

    assert read_record(pruned.dir)["status"] == "pruned"  # run.json says so too (a rebuilt store keeps it)


def test_a_run_added_while_the_scheduler_leaves_is_not_stranded(tmp_path):
    """ensure_scheduler starts no scheduler while the lease looks held; the leaving one must look again."""
    queue, _ = queue_of(tmp_path)
    sched = Scheduler(queue.store, Inventory(), log=lambda _: None)
    assert queue.take_lease(sched.pid)
    late = queue.add(RunConfig()).id  # added while the lease is still held
    assert not sched._leave() and queue.lease_holder() == sched.pid  # it stays to serve the late run
    assert queue.claim_next(sched.me, Inventory()).info.id == late
    assert sched._leave() and queue.lease_holder() is None


def test_live_runs_started_outside_the_queue_hold_their_devices(tmp_path):
    queue, (q,) = queue_of(tmp_path, [])
    store = queue.store
    interactive = store.create_run(RunConfig())  # the GUI's Train: not in the queue
    store.set_status(interactive.id, "running")
    store.set_procs(interactive.id, [os.getpid()])  # its processes are alive
    crashed = store.create_run(RunConfig().with_overrides(["hardware.device=cuda"]))
    store.set_status(crashed.id, "running")
    store.set_procs(crashed.id, [999_999_999])  # killed long ago: settled as interrupted, holds nothing
    gpu = queue.add(RunConfig().with_overrides(["hardware.device=cuda"])).id
    claim = queue.claim_next("1:1", Inventory(gpus=(0,)))
    assert claim.info.id == gpu and claim.devices == ["cuda:0"]  # the CPU run waits; the GPU is free
    assert store.get(crashed.id).status == "interrupted"
    store.set_status(interactive.id, "finished")
    assert queue.claim_next("1:1", Inventory(gpus=(0,))).info.id == q


def test_gpus_are_counted_only_once_a_run_wants_one(tmp_path):
    queue, (cpu,) = queue_of(tmp_path, [])
    counted: list = []
    started: list = []

    def fake_launch(config, store, run):
        started.append((run.id, tuple(config.hardware.gpus)))
        return FakeJob(store, run.id, [])

    def counter() -> int:
        counted.append(1)
        return 2

    def scheduler() -> Scheduler:
        return Scheduler(queue.store, Inventory(), idle_exit_s=0.05, log=lambda _: None, launch=fake_launch,
                         housekeeping_s=0.02, gpu_counter=counter)

    scheduler().serve()
    assert counted == [] and started == [(cpu, ())]  # CPU runs only: torch is never asked
    gpus = [queue.add(RunConfig().with_overrides(["hardware.device=cuda"])).id for _ in range(3)]
    scheduler().serve()
    assert counted == [1]  # once per scheduler
    assert started[1:] == [(gpus[0], (0,)), (gpus[1], (1,)), (gpus[2], (0,))]


@pytest.mark.slow  # imports torch twice (here and in the probe): seconds on a busy machine
def test_count_gpus_asks_a_separate_process():
    import torch

    from studio.engine.training.scheduler import count_gpus

    assert count_gpus() == (torch.cuda.device_count() if torch.cuda.is_available() else 0)


def test_a_group_killed_schedulers_running_run_is_interrupted_and_its_semaphores_freed(tmp_path):
    """The scheduler and its run's ranks all killed (kill -9 of the group): the next scheduler finds the run still
    'running' with no process left. It is interrupted (resumable, as documented), not failed, and the launcher's
    semaphores leave /dev/shm."""
    from _multiprocessing import SemLock  # type: ignore[import-not-found]
    from pathlib import Path

    queue, (a,) = queue_of(tmp_path, [])
    assert queue.claim_next(f"{_dead_pid()}:1", Inventory()).info.id == a
    name = f"/studio-test-{os.getpid()}"
    sem = SemLock(1, 1, 1, name, False)  # a named semaphore, as a launcher's queue leaves one behind
    assert Path("/dev/shm", "sem." + name[1:]).exists()
    queue.store.set_status(a, "running")
    queue.store.set_procs(a, [_dead_pid()], [name])
    sched = Scheduler(queue.store, Inventory(), idle_exit_s=0.05, log=lambda _: None, launch=lambda *a, **k: None,
                      housekeeping_s=0.02)
    sched._recover_orphans()
    info = queue.store.get(a)
    assert info.status == "interrupted" and "interrupted" in info.message, (info.status, info.message)
    assert not Path("/dev/shm", "sem." + name[1:]).exists()
    assert queue.running() == []  # its devices are free
    del sem
