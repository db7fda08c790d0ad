"""Attention while training: the snapshot callback's steps, the maps (rows sum to 1, no attention to the future in a
causal model), typed text with unknown words, rollout on a hand-worked case, the PCA, and ``studio attention``.

The text path uses a tiny causal text Transformer built from ``Stack`` (any model with attention layers that takes
(B, T) token ids; tiny_text_transformer.py), registered for the test's duration."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import pytest

from studio.cli import main as cli_main
from studio.core.config import RunConfig
from studio.core.contracts import layout
from studio.core.contracts.attention import AttentionRequest
from studio.core.contracts.registry import Entry
from studio.core.errors import ConfigError
from studio.core.maths.attention import pca_2d, rollout
from studio.core.models import MODELS
from studio.engine.loop.sinks import NullSink

if TYPE_CHECKING:
    from torch import nn

TEXT = ["data.name=fortunes", "data.vocab_size=200", "data.max_len=6", "train.batch_size=256",
        "train.epochs=1", "train.metric_interval=2", "train.histogram_every=0", "train.trajectory_snapshots=false"]


def build_tiny(input_shape: tuple[int, ...], num_classes: int, **params) -> nn.Module:
    from tests.unit.tiny_text_transformer import TinyTextTransformer

    return TinyTextTransformer(tuple(input_shape), num_classes, **params)


@pytest.fixture(scope="module")
def tiny_text_model():
    MODELS.add(Entry("tiny_text_tf", "a test's causal text Transformer", (), builder=f"{__name__}:build_tiny",
                     info="test", tags=("text", "attention")))
    yield "tiny_text_tf"
    MODELS.remove("tiny_text_tf")


def train(run_dir, sets: list[str]):
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides(sets)
    run_dir.mkdir(exist_ok=True)
    cfg.save(layout.config_path(run_dir))
    trainer = build_trainer(cfg, DistContext(), NullSink(), run_dir.name, str(run_dir), None)
    trainer.fit()
    return trainer


@pytest.fixture(scope="module")
def text_run(tmp_path_factory, tiny_text_model):
    run_dir = tmp_path_factory.mktemp("runs") / "text-run"
    trainer = train(run_dir, [*TEXT, f"model.name={tiny_text_model}", "train.attention_every=3"])
    return run_dir, trainer


def test_snapshots_are_written_at_the_start_every_n_steps_and_at_the_end(text_run):
    import torch

    from studio.engine.callbacks import attention_snapshots

    run_dir, trainer = text_run
    total = trainer.step
    assert total > 3 and total % 3  # the end is not a multiple: it gets its own snapshot
    steps = [r.step for r in layout.list_attention(run_dir)]
    assert steps == [*range(0, total, 3), total]
    record = torch.load(layout.attention_path(run_dir, 3), weights_only=True)
    assert record["step"] == 3 and record["probe_x"].shape == (attention_snapshots.PROBES, 6)
    assert len(record["maps"]) == 2 and record["maps"][0].shape == (attention_snapshots.PROBES, 2, 6, 6)
    assert record["model"]["head.weight"].dtype == torch.float16


def test_models_without_attention_keep_no_snapshots(tmp_path):
    from studio.engine.tasks.attention import compute

    run_dir = tmp_path / "mlp-run"
    train(run_dir, ["data.name=moons", "data.n_samples=200", "model.name=mlp", "model.widths=8", "train.epochs=1",
                    "train.batch_size=32", "train.attention_every=1", "train.histogram_every=0"])
    assert not layout.attention_dir(run_dir).exists()
    with pytest.raises(ConfigError, match="has no attention layers"):
        compute(AttentionRequest(str(run_dir)))


def test_past_the_limit_every_other_snapshot_goes_and_the_interval_doubles(tmp_path, monkeypatch):
    from studio.engine.callbacks import attention_snapshots

    monkeypatch.setattr(attention_snapshots, "MAX_FILES", 4)
    folder = layout.attention_dir(tmp_path)
    folder.mkdir()
    for step in range(6):
        layout.attention_path(tmp_path, step).write_bytes(b"")
    keeper = attention_snapshots.AttentionSnapshots(tmp_path, every=5)
    keeper._thin()
    assert [r.step for r in layout.list_attention(tmp_path)] == [0, 2, 4, 5] and keeper.every == 10


def test_typed_text_maps_rows_sum_to_one_and_never_look_ahead(text_run):
    from studio.engine.tasks.attention import compute

    run_dir, trainer = text_run
    out = compute(AttentionRequest(str(run_dir), text="the zzyzx of"))
    assert out["tokens"] == ["the", "<oov>", "of"] and out["oov"] == ["zzyzx"] and out["causal"]
    assert [f["step"] for f in out["frames"]] == out["steps"] and out["steps"][-1] == trainer.step
    for frame in out["frames"]:
        maps = frame["maps"]  # (layers, heads, T, T)
        assert maps.shape == (2, 2, 3, 3)
        np.testing.assert_allclose(maps.sum(axis=-1), 1.0, atol=1e-5)
        assert np.all(np.triu(maps, k=1) == 0)  # causal: no token attends to a later one
        np.testing.assert_allclose(frame["rollout"].sum(axis=-1), 1.0, atol=1e-6)
    assert len(out["embedding_labels"]) == len(out["frames"][0]["embedding"]) > 3
    assert out["embedding_labels"][:3] == ["the", "<oov>", "of"] and out["embedding_input"][:4] == [True] * 3 + [False]


def test_the_probe_maps_are_read_from_the_snapshots(text_run):
    import torch

    from studio.engine.tasks.attention import compute

    run_dir, _ = text_run
    out = compute(AttentionRequest(str(run_dir), probe=1, step=3))
    saved = torch.load(layout.attention_path(run_dir, 3), weights_only=True)["maps"]
    assert out["precomputed"] and [f["step"] for f in out["frames"]] == [3]
    np.testing.assert_array_equal(out["frames"][0]["maps"][1, 0], saved[1][1, 0].float().numpy())


def test_character_vocabularies_tokenise_by_character():
    from studio.engine.tasks.attention import encode_text, is_char_vocabulary

    chars = ["<pad>", "<oov>", "a", "b", " "]
    assert is_char_vocabulary(chars) and not is_char_vocabulary(["<pad>", "<oov>", "ab", "b"])
    assert encode_text("ab c", chars) == ([2, 3, 4, 1], ["a", "b", " ", "<oov>"], ["c"])
    assert encode_text("The cat", ["<pad>", "<oov>", "the", "dog"]) == ([2, 1], ["the", "<oov>"], ["cat"])


def test_rollout_on_a_hand_worked_case():
    a1 = np.array([[[1.0, 0.0], [0.5, 0.5]]])  # one head, two tokens
    a2 = np.array([[[0.0, 1.0], [0.0, 1.0]]])
    # with the residual: Â1 = [[1, 0], [.25, .75]], Â2 = [[.5, .5], [0, 1]]; R = Â2 Â1
    np.testing.assert_allclose(rollout([a1, a2]), [[0.625, 0.375], [0.25, 0.75]])
    eye = np.eye(3)[None].repeat(4, axis=0)  # 4 heads that each look at themselves: nothing mixes
    np.testing.assert_allclose(rollout([eye, eye, eye]), np.eye(3))


def test_pca_puts_points_on_a_line_on_the_first_axis():
    points = np.outer(np.arange(5.0), [1.0, 2.0, 2.0])  # along (1, 2, 2)
    xy, share = pca_2d(points)
    np.testing.assert_allclose(np.abs(xy[:, 0]), np.abs(np.arange(5.0) - 2) * 3, atol=1e-9)
    np.testing.assert_allclose(xy[:, 1], 0, atol=1e-9)
    np.testing.assert_allclose(share, [1.0, 0.0], atol=1e-12)


def test_a_request_gives_one_input():
    with pytest.raises(ConfigError, match="one input"):
        AttentionRequest("x", text="a", image=1).validate()
    with pytest.raises(ConfigError, match="type some text"):
        AttentionRequest("x", text="  ").validate()


def test_cli_attention_json_and_its_refusals(text_run, capsys):
    run_dir, trainer = text_run
    assert cli_main(["attention", str(run_dir), "--text", "the man", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(out) == {"run_id", "model", "kind", "input", "tokens", "oov", "causal", "grid", "steps", "step",
                        "maps", "rollout", "patch_maps", "patch_rollout", "embedding", "seconds"}
    assert out["kind"] == "text" and out["step"] == trainer.step and out["tokens"] == ["the", "man"]
    assert np.asarray(out["maps"]).shape == (2, 2, 2, 2) and out["patch_maps"] is None
    assert set(out["embedding"]) == {"labels", "input", "xy", "variance"}
    assert cli_main(["attention", str(run_dir), "--text", "the man", "--step", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["step"] == 3
    assert cli_main(["attention", str(run_dir), "--step", "4"]) == 2
    assert "no attention snapshot at step 4; steps: 0, 3, 6" in capsys.readouterr().err
    assert cli_main(["attention", str(run_dir), "--image", "0"]) == 2
    assert "is a text run" in capsys.readouterr().err
    assert cli_main(["attention", str(run_dir), "--text", "the man"]) == 0  # the plain report
    assert "layer 2 head 2: the→the man→" in capsys.readouterr().out


def test_typed_text_for_a_bert_run_starts_with_cls_and_keeps_a_typed_mask():
    from studio.engine.tasks.attention import encode_text

    vocabulary = ["<pad>", "<oov>", "[CLS]", "[MASK]", "the", "cat"]
    ids, labels, unknown = encode_text("The cat [MASK] here", vocabulary)
    assert labels == ["[CLS]", "the", "cat", "[MASK]", "<oov>"] and ids == [2, 4, 5, 3, 1] and unknown == ["here"]
