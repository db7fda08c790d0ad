"""The async SGD study's pure parts: the staleness ledger, the staleness-aware rate, the request's limits, the port
check, and the CLI's parsing (no process is started here)."""

from __future__ import annotations

import socket

import pytest

from studio.cli import build_parser
from studio.cli.async_sgd import format_table, request_from_args
from studio.core.contracts.async_sgd import (
    AsyncRequest,
    parse_delays,
    parse_modes,
    request_from_dict,
    request_to_dict,
    validate,
)
from studio.core.errors import ConfigError
from studio.engine.async_sgd.launch import check, port_problem
from studio.engine.async_sgd.ledger import Ledger, staleness_lr


def test_staleness_is_server_version_minus_the_workers_version():
    book = Ledger(workers=3)
    assert book.record(0, 0) == 0  # the first gradient: fresh
    book.advance()
    assert book.record(1, 0) == 1  # computed on version 0, applied at version 1
    book.advance()
    book.advance()
    assert book.record(2, 0) == 3
    book.advance()
    assert book.version == 4
    assert book.histogram() == [1, 1, 0, 1]
    assert book.per_worker == [1, 1, 1] and book.applied == 3
    assert book.mean == pytest.approx(4 / 3) and book.max_staleness == 3


def test_a_gradient_from_the_future_is_refused_and_large_staleness_is_clipped_into_the_last_bin():
    book = Ledger(workers=1, bins=4)
    with pytest.raises(ValueError):
        book.record(0, 1)
    for _ in range(10):
        book.advance()
    assert book.record(0, 0) == 10  # the true staleness is returned and counted in the mean
    assert book.histogram() == [0, 0, 0, 1] and book.max_staleness == 10


def test_sync_rounds_count_k_gradients_per_update():
    book = Ledger(workers=2)
    for _ in range(3):
        book.record(0, book.version)
        book.record(1, book.version)
        book.advance()
    assert book.version == 3 and book.applied == 6 and book.histogram() == [6]


@pytest.mark.parametrize(("staleness", "aware", "lr"), [(0, True, 0.1), (1, True, 0.1), (4, True, 0.025),
                                                         (4, False, 0.1), (10, True, 0.01)])
def test_staleness_aware_rate_divides_by_the_staleness(staleness, aware, lr):
    assert staleness_lr(0.1, staleness, aware) == pytest.approx(lr)


def test_request_round_trips_through_json_and_adds_async_sa():
    r = AsyncRequest(widths=(64, 32), delays=(0.0, 0.1), staleness_aware=True, modes=("hogwild", "sync", "async"))
    back = request_from_dict(request_to_dict(r))
    assert back == r
    assert r.run_modes() == ("sync", "async", "async-sa", "hogwild")
    assert r.delay_of(1) == 0.1 and r.delay_of(2) == 0.0


@pytest.mark.parametrize(("change", "words"), [
    ({"workers": 0}, "workers must be 1"),
    ({"updates": 0, "seconds": 0.0}, "give a budget"),
    ({"lr": -1.0}, "learning rate"),
    ({"delays": (0.0, 0.0, 0.0, 0.1)}, "4 delays given for 3 workers"),
    ({"delays": (-0.1,)}, "a delay is seconds"),
    ({"modes": ("fast",)}, "unknown mode 'fast'"),
    ({"modes": ()}, "at least one mode"),
    ({"port": 80}, "1024 to 65535"),
    ({"widths": ()}, "widths"),
    ({"batch_size": 0}, "batch per worker"),
])
def test_bad_requests_get_one_sentence(change, words):
    with pytest.raises(ConfigError, match=words):
        validate(AsyncRequest(**change))


def test_parse_delays_and_modes():
    assert parse_delays("0, 0,0.05") == (0.0, 0.0, 0.05)
    assert parse_delays("") == ()
    assert parse_modes("Sync, hogwild") == ("sync", "hogwild")
    with pytest.raises(ConfigError, match="seconds per gradient"):
        parse_delays("0,slow")
    with pytest.raises(ConfigError, match="unknown mode"):
        parse_modes("sync,ring")


def test_a_port_in_use_is_named_before_anything_starts():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert port_problem(port).startswith(f"port {port} is in use: ")
        with pytest.raises(ConfigError, match=f"port {port} is in use"):
            check(AsyncRequest(port=port))
        assert check(AsyncRequest(port=port, modes=("hogwild",))) == 0  # no rpc: the port is not needed
    assert port_problem(port) == ""
    assert check(AsyncRequest(port=port)) == port
    assert check(AsyncRequest()) > 0  # a free one


def test_cli_flags_build_the_request():
    args = build_parser().parse_args(["async", "--workers", "2", "--delays", "0,0.05", "--modes", "sync,async",
                                      "--staleness-aware", "--seconds", "3", "--port", "29512", "--widths", "64,32"])
    r = request_from_args(args)
    assert (r.workers, r.delays, r.modes, r.staleness_aware) == (2, (0.0, 0.05), ("sync", "async"), True)
    assert (r.updates, r.seconds, r.port, r.widths) == (0, 3.0, 29512, (64, 32))
    r = request_from_args(build_parser().parse_args(["async", "--updates", "40"]))
    assert (r.updates, r.seconds, r.modes) == (40, 0.0, ("sync", "async", "hogwild"))
    with pytest.raises(SystemExit):  # one budget, not both
        build_parser().parse_args(["async", "--updates", "40", "--seconds", "2"])
    with pytest.raises(ConfigError, match="widths"):
        request_from_args(build_parser().parse_args(["async", "--widths", "wide"]))


def test_table_has_a_row_per_mode():
    row = {"mode": "async", "updates": 10, "seconds": 0.5, "updates_per_s": 20.0, "final_loss": 0.9, "test_acc": 0.7,
           "mean_staleness": 1.5, "max_staleness": 4, "worker_updates": [6, 4]}
    out = {"workers": 2, "batch_size": 32, "lr": 0.05, "delays": [0.0, 0.05], "rows": [row, {**row, "mode": "sync"}]}
    text = format_table(out)  # type: ignore[arg-type]
    assert "delays 0,0.05 s" in text
    assert text.splitlines()[2].split()[:4] == ["async", "10", "0.50", "20.0"]
    assert text.splitlines()[3].startswith("sync")


def test_snapshot_schedule_is_dense_early_then_regular():
    from studio.engine.async_sgd.ledger import Schedule

    plan = Schedule(every=50)
    due = [u for u in range(1, 201) if plan.due(u, 0.0)]
    assert due[:7] == list(range(1, 8))  # every one of the first updates, then growing by 15 %
    assert {50, 100, 150, 200} <= set(due) and len(due) < 60
    timed = Schedule(every_s=0.5)
    assert timed.due(10_000, 0.1)  # the geometric points catch up at once (one snapshot)...
    hits = [t for t in (0.2, 0.6, 0.7, 1.2) if timed.due(10_000, t)]  # ...then, with no new update, by time only
    assert hits == [0.6, 1.2]
