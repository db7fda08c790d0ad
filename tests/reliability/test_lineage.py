"""Issue 39.2: a run built on another run (a bert_classifier fine-tuned from a bert_mlm run) is self-contained. It
keeps what it needs of its parent in its own folder at its first start (lineage.json: the vocabulary's settings,
then its words), its checkpoints hold every weight, and deleting the parent names the runs built on it and breaks
none of them: eval, attention, export and resume work. A parent whose final.pt is garbage is one sentence."""

from __future__ import annotations

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from tests.conftest import last_json, run_cli


def finished_mlm(store, d_model: int = 16, final: bytes | None = None):
    """A finished bert_mlm run with real (untrained) final weights, or ``final`` bytes as its final.pt."""
    import torch

    from studio.core.contracts import layout
    from studio.core.models.bert import build_bert_mlm

    cfg = RunConfig.from_dict({"data": {"name": "masked_lm", "max_len": 8, "vocab_size": 300},
                               "model": {"name": "bert_mlm", "layers": 1, "heads": 2, "d_model": d_model,
                                         "context": 12}})
    info = store.create_run(cfg)
    if final is None:
        torch.save({"model": build_bert_mlm((9,), 300, layers=1, heads=2, d_model=d_model, context=12).state_dict()},
                   layout.final_path(info.dir))
    else:
        layout.final_path(info.dir).write_bytes(final)
    store.set_status(info.id, "finished")
    return info


def classifier(init_from: str) -> RunConfig:
    return RunConfig.from_dict({"data": {"name": "fortune_sources", "max_len": 8},
                                "model": {"name": "bert_classifier", "layers": 1, "heads": 2, "d_model": 16,
                                          "context": 12, "init_from": init_from}})


def test_a_classifier_keeps_its_vocabulary_and_outlives_its_parent(home):
    from studio.core.contracts import layout
    from studio.core.runs import lineage_record
    from studio.core.runs.lineage import check_bert_config, load_run_data
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    parent = finished_mlm(store)
    cfg = classifier(parent.id[-8:])  # named by a unique part of its id, as a person may
    check_bert_config(cfg, store)
    child = store.create_run(cfg)
    first = load_run_data(cfg, store, run_dir=child.dir)  # the run's first start (its ranks load the data)
    kept = lineage_record.read(child.dir)
    assert kept["parent"] == parent.id and kept["vocab_source"]["vocab_size"] == 300
    assert kept["vocabulary"] == first.meta["vocabulary"] and len(kept["vocabulary"]) == 300

    assert [c.id for c in store.delete(parent.id)] == [child.id]  # the parent's deletion names its descendants
    with pytest.raises(ConfigError, match="no run"):
        check_bert_config(classifier(parent.id), store)  # a new classifier cannot start from it any more
    check_bert_config(store.get(child.id).run_config, store, run_dir=child.dir)  # its resume still can
    again = load_run_data(store.get(child.id).run_config, store, run_dir=child.dir)  # evaluation, attention, …
    assert again.meta["vocabulary"] == first.meta["vocabulary"]
    assert (again.x_test == first.x_test).all() and layout.lineage_path(child.dir).is_file()


def test_an_older_classifier_is_made_self_contained_when_its_parent_is_deleted(home):
    from studio.core.runs import lineage_record
    from studio.core.runs.lineage import check_bert_config, load_run_data
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    parent = finished_mlm(store)
    cfg = classifier(parent.id)
    check_bert_config(cfg, store)
    child = store.create_run(cfg)  # made before runs kept their lineage: no lineage.json
    before = load_run_data(cfg, store)  # the parent's vocabulary, read from the parent
    assert lineage_record.read(child.dir) == {}
    store.delete(parent.id)
    assert lineage_record.read(child.dir)["vocab_source"]["corpus"] == "fortune_sources"
    after = load_run_data(store.get(child.id).run_config, store, run_dir=child.dir)
    assert after.meta["vocabulary"] == before.meta["vocabulary"]


@pytest.mark.parametrize("garbage", [b"\x80\x04\x95garbage" * 50, b"PK\x03\x04" + b"\x00" * 200])
def test_a_parent_whose_final_weights_are_garbage_is_one_sentence(home, garbage):
    from studio.core.contracts import layout
    from studio.core.models.bert import build_bert_classifier
    from studio.core.runs.lineage import check_bert_config
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    parent = finished_mlm(store, final=garbage)
    with pytest.raises(ConfigError, match="are damaged: the file is not a checkpoint") as caught:
        check_bert_config(classifier(parent.id), store)
    assert "\n" not in str(caught.value)
    with pytest.raises(ConfigError, match="cannot be read: the file is damaged or not a checkpoint") as loaded:
        build_bert_classifier((9,), 4, layers=1, heads=2, d_model=16, context=12, init_from=parent.id,
                              vocab_size=300, init_weights=str(layout.final_path(parent.dir)))  # past the check
    assert "\n" not in str(loaded.value)


SMALL = ["--set", "model.layers=1", "--set", "model.d_model=32", "--set", "model.heads=2", "--set",
         "model.context=17", "--set", "data.max_len=16", "--set", "train.batch_size=64", "--set",
         "hardware.threads=1", "--set", "data.vocab_size=400"]


@pytest.mark.slow
def test_eval_attention_export_and_resume_work_after_the_parent_is_deleted(home, tmp_path):
    from studio.core.runs.store import RunStore

    pre = run_cli("train", "--set", "data.name=masked_lm", "--set", "model.name=bert_mlm", "--set", "data.copies=1",
                  "--set", "train.epochs=1", *SMALL, "--json")
    assert pre.returncode == 0, pre.stderr
    parent = last_json(pre.stdout)["run_id"]
    tuned = run_cli("train", "--set", "data.name=fortune_sources", "--set", "model.name=bert_classifier",
                    "--set", "train.epochs=1", "--set", f"model.init_from={parent}", *SMALL, "--json")
    assert tuned.returncode == 0, tuned.stderr
    child = last_json(tuned.stdout)
    evaluated = last_json(run_cli("eval", child["run_id"], "--json").stdout)

    store = RunStore(home)
    assert [c.id for c in store.delete(parent)] == [child["run_id"]]
    store.close()
    ev = run_cli("eval", child["run_id"], "--json")
    assert ev.returncode == 0, ev.stderr
    assert last_json(ev.stdout)["accuracy"] == evaluated["accuracy"]  # the same tokens, the same weights
    att = run_cli("attention", child["run_id"], "--json")
    assert att.returncode == 0, att.stderr
    exp = run_cli("export", child["run_id"], "--model", str(tmp_path / "model.pt2"), "--json")
    assert exp.returncode == 0, exp.stderr
    res = run_cli("train", "--resume", child["run_id"], "--set", "train.epochs=2", "--json")
    assert res.returncode == 0, res.stderr
    assert last_json(res.stdout)["status"] == "finished" and last_json(res.stdout)["epochs"] == 2


@pytest.mark.slow
def test_init_from_a_run_with_garbage_final_weights_exits_2_in_one_line(home):
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    parent = finished_mlm(store, final=b"\x80\x04\x95" + b"garbage" * 100)
    store.close()
    proc = run_cli("train", "--set", "data.name=fortune_sources", "--set", "model.name=bert_classifier",
                   "--set", f"model.init_from={parent.id}", "--set", "model.layers=1", "--set", "model.heads=2",
                   "--set", "model.d_model=16", "--set", "model.context=12", "--set", "data.max_len=8")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("studio: error: the final weights of pretraining run"), lines
