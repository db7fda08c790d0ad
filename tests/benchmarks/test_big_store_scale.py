"""Scale figures of the curves with a big run store (issue 25) beside a real TensorBoard on the same data.

For each size N runs × S steps (``STUDIO_BENCH_SIZES="10x1000,50x20000"``, the default; the issue's grid is N in
10, 200, 1000 × S in 1k, 20k, 100k; a size over ~8 GB on disk is skipped with its reason) the store is built once
(big_store.py, cached). Then, in a fresh GUI process per case (big_store_gui.py; offscreen, or xcb when DISPLAY is
set): window shown and run list filled (from process start), select the top 1 / 10 / 50 runs until their curves
are drawn, and with 50 runs shown switch the x axis step → wall and change the smoothing, each with the longest
event-loop stall (10 ms heartbeat) and the process's peak RSS. Then ``tensorboard --logdir`` (the Python loader,
``--load_fast=false``, and the Rust data server, ``--load_fast=true``, when its binary is installed) is started
and its HTTP API polled (``/data/runs``, ``/data/plugin/scalars/tags``, ``/data/plugin/scalars/scalars_multirun``
as its dashboard asks) until every run's every scalar series ends at the run's last step; its peak RSS is the
sum over its process tree. TensorBoard serves at most 1,000 points per series by default (a reservoir sample):
the "points served" column says how many it sent, against the points Studio drew.

Run: ``nice -n 5 python -m pytest tests/benchmarks/test_big_store_scale.py -m benchmark -s`` (or
``python tests/benchmarks/test_big_store_scale.py``); ``STUDIO_BENCH_TENSORBOARD=0`` leaves TensorBoard out (its
figures do not change when Studio does), ``=fast`` keeps only its Rust data server (the Python loader took 13 min
for 16 M values); ``STUDIO_BENCH_MAX_GB`` and ``STUDIO_BENCH_PER_STEP`` (big_store.py) open the biggest sizes.
docs/developer/benchmarks.md, "Big run store", has figures.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.benchmarks import big_store

DEFAULT_SIZES = "10x1000,50x20000"
SELECTIONS = (1, 10, 50)
TB_TIMEOUT_S = float(os.environ.get("STUDIO_BENCH_TB_TIMEOUT", "900"))
ROOT = Path(__file__).resolve().parents[2]


def sizes() -> list[tuple[int, int]]:
    text = os.environ.get("STUDIO_BENCH_SIZES", DEFAULT_SIZES)
    out = []
    for part in text.replace(" ", "").split(","):
        if part:
            n, s = part.lower().split("x")
            out.append((int(n), int(s)))
    return out


# --- Studio ------------------------------------------------------------------------------------------------------
def gui_case(big: big_store.BigStore, k: int, interactions: bool) -> dict[str, Any]:
    """One fresh GUI process: its BENCH_RESULT line (or an error)."""
    with tempfile.TemporaryDirectory(prefix="studio-bench-") as settings:  # fresh window settings per case
        env = dict(os.environ, STUDIO_HOME=str(big.home), PYTHONPATH=str(ROOT),
                   STUDIO_SETTINGS=str(Path(settings) / "settings.ini"))
        env["QT_QPA_PLATFORM"] = "xcb" if os.environ.get("DISPLAY") else "offscreen"
        env["STUDIO_BENCH_T0"] = repr(time.time())
        cmd = [sys.executable, str(ROOT / "tests/benchmarks/big_store_gui.py"), str(big.runs), str(k)]
        proc = subprocess.run(cmd + (["--interactions"] if interactions else []), env=env, capture_output=True,
                              text=True, timeout=1800)
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            return json.loads(line[len("BENCH_RESULT "):])
    return {"runs": big.runs, "selected": k, "error": (proc.stderr or proc.stdout).strip()[-400:]}


def studio_figures(big: big_store.BigStore) -> list[dict[str, Any]]:
    picks = sorted({min(k, big.runs) for k in SELECTIONS})
    return [gui_case(big, k, interactions=k == picks[-1]) for k in picks]


# --- TensorBoard --------------------------------------------------------------------------------------------------
def data_server_present() -> bool:
    try:
        import tensorboard_data_server  # type: ignore[import-untyped]
    except ImportError:
        return False
    return bool(tensorboard_data_server.server_binary())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tree_peak_rss_mb(pid: int) -> float:
    """The sum of VmHWM (peak RSS) over ``pid`` and its descendants."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    tree, grew = {pid}, True
    while grew:
        more = {p for p, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    total = 0
    for p in tree:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def _get(url: str, data: bytes | None = None) -> Any:
    with urllib.request.urlopen(url, data=data, timeout=120) as response:
        return json.loads(response.read())


def tensorboard_figures(big: big_store.BigStore, load_fast: bool) -> dict[str, Any]:
    """Seconds from starting ``tensorboard`` until its API serves every run's scalars in full, and its peak RSS."""
    from studio.core.runs.store import RunStore

    store = RunStore(big.home, read_only=True)
    runs = [r.id for r in store.list()]
    store.close()
    expected = big_store.curves(0, big.steps, 0.0)
    last = {tag: int(s[-1]) for tag, (s, _v, _w) in expected.items() if len(s)}
    port = _free_port()
    cmd = [sys.executable, "-m", "tensorboard.main", "--logdir", str(big.logdir), "--host", "127.0.0.1",
           "--port", str(port), f"--load_fast={'true' if load_fast else 'false'}"]
    base = f"http://127.0.0.1:{port}"
    out: dict[str, Any] = {"load_fast": load_fast, "runs": big.runs}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pending = {(r, t) for r in runs for t in last}
        tags: dict[str, Any] = {}
        points = 0
        while pending and time.perf_counter() - t0 < TB_TIMEOUT_S:
            if proc.poll() is not None:
                out["error"] = f"tensorboard exited with {proc.returncode}"
                break
            try:
                if "api_up" not in out:
                    _get(f"{base}/data/runs")
                    out["api_up"] = time.perf_counter() - t0
                if "all_listed" not in out:  # the series listed so far are polled meanwhile
                    listed = _get(f"{base}/data/runs")
                    tags = _get(f"{base}/data/plugin/scalars/tags")
                    out["runs_listed"] = len(set(runs) & set(listed))
                    if set(runs) <= set(listed) and all(set(last) <= set(tags.get(r, {})) for r in runs):
                        out["all_listed"] = time.perf_counter() - t0
                for tag in sorted({t for _r, t in pending}):
                    wanted = sorted(r for r, t in pending
                                    if t == tag and ("all_listed" in out or tag in tags.get(r, {})))
                    if not wanted:
                        continue
                    form = urllib.parse.urlencode([("tag", tag), *(("runs", r) for r in wanted)]).encode()
                    served = _get(f"{base}/data/plugin/scalars/scalars_multirun", form)
                    for run_id, series in served.items():
                        if series and int(series[-1][1]) == last[tag]:
                            pending.discard((run_id, tag))
                            points += len(series)
            except OSError:  # not listening yet
                pass
            if pending:
                time.sleep(0.2)
        out["all_scalars"] = None if pending else time.perf_counter() - t0
        out["series_pending"] = len(pending)
        if pending:
            total = len(runs) * len(last)
            out["error"] = (f"gave up after {TB_TIMEOUT_S:.0f} s (STUDIO_BENCH_TB_TIMEOUT): "
                            f"{out.get('runs_listed', 0)} of {len(runs)} runs listed, {total - len(pending)} of "
                            f"{total} series served in full")
        out["points_served"] = points
        one = _get(f"{base}/data/plugin/scalars/scalars?" + urllib.parse.urlencode({"run": runs[0],
                                                                                    "tag": "train/loss"}))
        out["points_per_series"] = len(one)
        out["peak_rss_mb"] = _tree_peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return out


# --- the table ----------------------------------------------------------------------------------------------------
def _s(v: Any) -> str:
    return "—" if v is None else f"{v:.2f} s"


def _ms(v: Any) -> str:
    return "—" if v is None else f"{v * 1000:.0f} ms"


def _median(values: list[Any]) -> Any:
    values = sorted(v for v in values if v is not None)
    return values[len(values) // 2] if values else None


def table(results: list[dict[str, Any]]) -> str:
    lines = ["| store | case | time | longest stall | RSS after (peak) | points |", "|---|---|---:|---:|---:|---:|"]
    for r in results:
        size = f"{r['runs']}×{r['steps']:,}"
        ok = [c for c in r["studio"] if "error" not in c]
        if ok:
            lines.append(f"| {size} | Studio: window shown (from process start; median of {len(ok)}) | "
                         f"{_s(_median([c.get('shown') for c in ok]))} | | "
                         f"{_median([c.get('shown_rss_mb') for c in ok]) or 0:.0f} MB | |")
            lines.append(f"| {size} | Studio: run list holds all {r['runs']} runs (from process start) | "
                         f"{_s(_median([c.get('listed') for c in ok]))} | | | |")
        for case in r["studio"]:
            k = case["selected"]
            if "error" in case:
                lines.append(f"| {size} | Studio, {k} selected: failed: {case['error'][-120:]} | | | | |")
                continue
            lines.append(f"| {size} | Studio: select {k} → curves drawn | {_s(case.get('select'))} | "
                         f"{_ms(case.get('select_stall'))} | {case.get('select_rss_mb', 0):.0f} MB "
                         f"({case.get('peak_rss_mb', 0):.0f} MB) | {case.get('points_drawn', 0):,} |")
            for key, what in (("x_wall", "x axis step → wall"), ("smoothing", "smoothing 0 → 0.6")):
                if key in case:
                    lines.append(f"| {size} | Studio, {k} shown: {what} | {_s(case[key])} | "
                                 f"{_ms(case.get(key + '_stall'))} | {case.get(key + '_rss_mb', 0):.0f} MB | |")
            if case.get("timeout"):
                lines.append(f"| {size} | Studio: gave up waiting for {case['timeout']} | | | | |")
        for tb in r["tensorboard"]:
            label = "TensorBoard " + ("--load_fast=true (Rust data server)" if tb["load_fast"]
                                      else "--load_fast=false (Python)")
            if "skipped" in tb:
                lines.append(f"| {size} | {label}: {tb['skipped']} | | | | |")
                continue
            lines.append(f"| {size} | {label}: API up / all runs and tags listed | {_s(tb.get('api_up'))} / "
                         f"{_s(tb.get('all_listed'))} | | | |")
            lines.append(f"| {size} | {label}: every run's scalars served in full | {_s(tb.get('all_scalars'))} "
                         f"| | ({tb.get('peak_rss_mb', 0):.0f} MB) | {tb.get('points_served', 0):,} "
                         f"({tb.get('points_per_series', 0)} per train/loss series) |")
            if tb.get("error"):
                lines.append(f"| {size} | {label}: {tb['error']} | | | | |")
    return "\n".join(lines)


def measure(log=print) -> list[dict[str, Any]]:
    results = []
    log(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; QT_QPA_PLATFORM "
        f"{'xcb' if os.environ.get('DISPLAY') else 'offscreen'}")
    for n, s in sizes():
        if reason := big_store.too_big(n, s):
            log(reason)
            continue
        big = big_store.build(n, s, log=log)
        log(f"{n}x{s}: store {big.folder} ({big.disk_bytes() / 1e9:.2f} GB"
            + (f", built in {big.seconds:.0f} s)" if big.seconds else ", from the cache)"))
        result: dict[str, Any] = {"runs": n, "steps": s, "studio": studio_figures(big), "tensorboard": []}
        which = os.environ.get("STUDIO_BENCH_TENSORBOARD", "1")  # 0: none; fast: only the Rust data server
        for fast in {"0": (), "fast": (True,)}.get(which, (False, True)):
            if fast and not data_server_present():
                result["tensorboard"].append({"load_fast": True, "skipped": "no Rust data server installed"})
                continue
            result["tensorboard"].append(tensorboard_figures(big, fast))
        result["load_after"] = os.getloadavg()[0]
        results.append(result)
        log(json.dumps(result))
    return results


@pytest.mark.benchmark
def test_curves_of_a_big_run_store_beside_tensorboard() -> None:
    results = measure()
    print("\n" + table(results))
    for r in results:
        for case in r["studio"]:
            assert "error" not in case, case["error"]


if __name__ == "__main__":
    print(table(measure()))
