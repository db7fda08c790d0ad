"""The ring all-reduce's schedule and cost model without processes: the chunk each rank sends and receives at
each step, run on plain numbers, sums every rank's vector and sends exactly 2(p−1)/p·N; sizes people type are read
or refused in one sentence; timeline helpers fill gaps and cut nested intervals."""

from __future__ import annotations

import pytest

from studio.core.contracts.allreduce import (
    AllreduceRequest,
    model_bytes,
    parse_size,
    parse_sizes,
    ring_bytes,
    server_bytes,
    size_text,
    validate,
)
from studio.core.errors import ConfigError
from studio.engine.allreduce.ring import chunk_of
from studio.engine.allreduce.traffic import carve, with_idle


def simulate_ring(vectors: list[list[int]], steps_short: int = 0) -> tuple[list[list[int]], list[int]]:
    """The ring's schedule on lists (one number per chunk): the result on every rank and the elements each sent."""
    p = len(vectors)
    chunks = [list(v) for v in vectors]
    sent = [0] * p
    for phase in ("reduce-scatter", "all-gather"):
        for s in range(p - 1 - (steps_short if phase == "all-gather" else 0)):
            outgoing = []
            for r in range(p):
                out, _ = chunk_of(r, s, p, phase)
                outgoing.append(chunks[r][out])
                sent[r] += 1
            for r in range(p):
                _, into = chunk_of(r, s, p, phase)
                value = outgoing[(r - 1) % p]  # from the left neighbour
                chunks[r][into] = chunks[r][into] + value if phase == "reduce-scatter" else value
    return chunks, sent


@pytest.mark.parametrize("p", [2, 3, 4, 5, 8])
def test_the_ring_schedule_sums_every_chunk_on_every_rank_with_2_p_minus_1_sends(p: int) -> None:
    vectors = [[(r + 1) * 10 ** c for c in range(p)] for r in range(p)]
    result, sent = simulate_ring(vectors)
    total = [sum(v[c] for v in vectors) for c in range(p)]
    assert all(rank == total for rank in result)
    assert sent == [2 * (p - 1)] * p  # chunks of N/p: 2(p−1)/p·N per rank
    broken, _ = simulate_ring(vectors, steps_short=1)
    assert any(rank != total for rank in broken)  # a step short: some rank keeps a partial sum


def test_cost_model() -> None:
    n = 1 << 20
    assert ring_bytes(2, n) == n and ring_bytes(8, n) == 1.75 * n
    assert all(ring_bytes(p, n) < 2 * n for p in range(2, 100))  # flat: never more than 2N
    assert server_bytes(8, n, 0) == 7 * n and server_bytes(8, n, 3) == n
    assert model_bytes("torch", 4, n, 0) is None and model_bytes("ring", 4, n, 1) == 1.5 * n


@pytest.mark.parametrize(("text", "size"), [("1M", 1 << 20), ("16M", 16 << 20), ("512K", 512 << 10),
                                            ("4096", 4096), ("1.5M", 3 << 19), (" 2 MiB ", 2 << 20)])
def test_sizes_as_people_type_them(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_sizes_read_back_the_way_they_are_written() -> None:
    assert parse_sizes("1M, 16M") == (1 << 20, 16 << 20)
    assert [size_text(n) for n in (1 << 20, 16 << 20, 1536, 1000)] == ["1M", "16M", "1.5K", "1000 B"]
    assert parse_sizes(",".join(size_text(n) for n in (1 << 20, 1536))) == (1 << 20, 1536)


@pytest.mark.parametrize(("text", "words"), [("1G", "a size is a number of bytes with K or M"),
                                             ("abc", "a size is a number of bytes"), ("", "at least one size")])
def test_a_bad_size_is_one_sentence(text: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        parse_sizes(text)


@pytest.mark.parametrize(("request_", "words"), [
    (AllreduceRequest(ranks=(1, 2)), "at least 2 processes"),
    (AllreduceRequest(ranks=(2, 9)), "9 processes is more than this lab starts (at most 8)"),
    (AllreduceRequest(ranks=()), "at least one process count"),
    (AllreduceRequest(sizes=(100 << 20,)), "a size is 1K to 64M (not 100M)"),
    (AllreduceRequest(sizes=(1026,)), "a multiple of 4 bytes"),
    (AllreduceRequest(algorithms=("ring", "tree")), "unknown algorithm 'tree'"),
    (AllreduceRequest(algorithms=()), "choose at least one algorithm"),
    (AllreduceRequest(repeats=0), "repeats are 1 to 20"),
    (AllreduceRequest(timeline_ranks=3), "process count 3 is not one of those measured"),
    (AllreduceRequest(port=80), "1024 to 65535"),
])
def test_bad_requests_are_one_sentence_without_flag_names(request_: AllreduceRequest, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        validate(request_)
    assert words in str(err.value) and "--" not in str(err.value) and "\n" not in str(err.value)


def test_the_default_request_is_valid_and_starts_the_largest_p() -> None:
    validate(AllreduceRequest())
    assert AllreduceRequest(ranks=(2, 4, 8)).world() == 8
    assert AllreduceRequest().shown_size() == 16 << 20


def test_idle_fills_every_gap_and_nested_intervals_are_cut_around() -> None:
    outer = {"rank": 0, "kind": "backward", "start": 1.0, "end": 5.0, "step": 1}
    inner = {"rank": 0, "kind": "all-to-all", "start": 2.0, "end": 3.0, "step": 1}
    cut = carve([outer, inner], ("all-to-all",))
    assert [(i["kind"], i["start"], i["end"]) for i in cut] == [("backward", 1.0, 2.0), ("all-to-all", 2.0, 3.0),
                                                                ("backward", 3.0, 5.0)]
    lanes = with_idle(cut, [0, 1], 6.0)
    assert [(i["rank"], i["kind"], i["start"], i["end"]) for i in lanes] == [
        (0, "idle", 0.0, 1.0), (0, "backward", 1.0, 2.0), (0, "all-to-all", 2.0, 3.0), (0, "backward", 3.0, 5.0),
        (0, "idle", 5.0, 6.0), (1, "idle", 0.0, 6.0)]
