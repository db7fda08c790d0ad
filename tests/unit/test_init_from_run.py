"""Transfer learning without downloads: an image model's ``model.init_from`` names a finished run of the same model;
the launcher's checks (one sentence each), the weights file handed to the builder as a value, every layer but the
last copied, the base frozen for ``frozen_epochs`` at ``base_lr_factor``."""

from __future__ import annotations

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError

SHAPE = (1, 28, 28)


def _finished_run(store, model: str = "cnn", status: str = "finished", classes: int = 6, **params):
    import torch

    from studio.core.contracts import layout
    from studio.core.models import MODELS

    params = {"filters": [8, 8], "dense": 16, **params} if model == "cnn" else params
    cfg = RunConfig.from_dict({"data": {"name": "fashion_mnist_small"}, "model": {"name": model, **params}})
    info = store.create_run(cfg)
    torch.manual_seed(1)
    net = MODELS.build(model, input_shape=SHAPE, num_classes=classes, **params)
    layout.checkpoints_dir(info.dir).mkdir(parents=True, exist_ok=True)
    torch.save({"model": net.state_dict(), "step": 1}, layout.final_path(info.dir))
    store.set_status(info.id, status)
    return info, net


def _child(**model) -> RunConfig:
    return RunConfig.from_dict({"data": {"name": "fashion_mnist_small"},
                                "model": {"name": "cnn", "filters": [8, 8], "dense": 16, **model}})


def test_the_child_starts_from_every_layer_of_the_run_but_the_last():
    import torch

    from studio.core.models import MODELS
    from studio.core.runs.lineage import check_lineage, start_weights
    from studio.core.runs.store import RunStore

    store = RunStore()
    info, parent = _finished_run(store)
    cfg = _child(init_from=info.id, frozen_epochs=2, base_lr_factor=0.1)
    check_lineage(cfg, store)
    weights = start_weights(cfg, store)
    assert weights["init_weights"].endswith("final.pt")
    torch.manual_seed(2)
    child = MODELS.build("cnn", input_shape=SHAPE, num_classes=4, **cfg.model.params, **weights)
    theirs, mine = parent.state_dict(), child.net.state_dict()
    head = child.head_name
    for key, value in theirs.items():
        if key.startswith(head + "."):
            assert mine[key].shape[0] == 4 and value.shape[0] == 6  # a new last layer for the new classes
        else:
            assert torch.equal(mine[key], value), key
    assert child.base_frozen and child.frozen_epochs == 2
    assert not any(p.requires_grad for p in child.base_parameters())
    assert all(p.requires_grad for p in child.head_parameters())
    groups = child.optimizer_groups(0.01)
    assert groups[1]["lr"] == pytest.approx(0.001)
    child.train()
    assert not any(m.training for m in child.net.modules() if isinstance(m, torch.nn.BatchNorm2d))  # frozen stats
    x = torch.randn(3, *SHAPE)
    assert child(x).shape == (3, 4)


def test_without_init_from_the_model_is_the_plain_one_and_a_resume_builds_the_same_shape():
    from studio.core.models import MODELS

    plain = MODELS.build("cnn", input_shape=SHAPE, num_classes=4, filters=[8, 8], dense=16)
    assert not hasattr(plain, "freeze_base")
    resumed = MODELS.build("cnn", input_shape=SHAPE, num_classes=4, filters=[8, 8], dense=16, init_from="x",
                           frozen_epochs=1)  # no weights file: the run's own checkpoint loads next
    assert {k.removeprefix("net.") for k in resumed.state_dict()} == set(plain.state_dict())


def test_a_run_that_cannot_be_a_parent_is_refused_in_one_sentence():
    from studio.core.contracts import layout
    from studio.core.runs.lineage import check_lineage
    from studio.core.runs.store import RunStore

    store = RunStore()
    with pytest.raises(ConfigError, match="no run 'nope'"):
        check_lineage(_child(init_from="nope"), store)
    stopped, _ = _finished_run(store, status="stopped")
    with pytest.raises(ConfigError, match="is stopped, not finished: finish it first"):
        check_lineage(_child(init_from=stopped.id), store)
    gone, _ = _finished_run(store)
    layout.final_path(gone.dir).unlink()
    with pytest.raises(ConfigError, match="has no final weights"):
        check_lineage(_child(init_from=gone.id), store)
    other, _ = _finished_run(store, model="mlp", widths=[16])
    with pytest.raises(ConfigError, match="trained mlp, not cnn: model.init_from must name a cnn run"):
        check_lineage(_child(init_from=other.id), store)
    good, _ = _finished_run(store)
    with pytest.raises(ConfigError, match=r"model.filters is 16,8 but run .* has filters 8,8: .* model.filters=8,8"):
        check_lineage(_child(init_from=good.id, filters=[16, 8]), store)
    check_lineage(_child(init_from=good.id, dropout=0.5, frozen_epochs=3), store)  # free settings may differ


def test_weights_of_another_image_size_are_one_sentence_when_they_load(tmp_path):
    import torch

    from studio.core.models import MODELS

    parent = MODELS.build("cnn", input_shape=(3, 32, 32), num_classes=6, filters=[8, 8], dense=16)
    path = tmp_path / "final.pt"
    torch.save({"model": parent.state_dict()}, path)
    with pytest.raises(ConfigError, match="the weights of run r1 do not fit this model .*0.weight"):
        MODELS.build("cnn", input_shape=SHAPE, num_classes=4, filters=[8, 8], dense=16, init_from="r1",
                     init_weights=str(path))
