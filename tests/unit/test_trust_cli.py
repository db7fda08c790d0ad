"""Someone else's run folder never runs its code without asking: ``studio eval RUN`` on a run folder from
elsewhere whose ``code/`` this user has not trusted exits 2 with one sentence naming ``studio trust``; after
``studio trust RUN`` the code may be imported. ``studio list models --timm PATTERN`` lists timm's names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio import cli
from tests.own_code_files import write_user_files


def foreign_run(tmp_path: Path) -> Path:
    model, _ = write_user_files(tmp_path / "tree")
    run = tmp_path / "from_a_colleague" / "r1"
    (run / "code").mkdir(parents=True)
    (run / "code" / "my_models.py").write_text(model.read_text())
    (run / "code" / "manifest.json").write_text(json.dumps({"files": [
        {"section": "model", "source": "/home/someone/my_models.py", "file": "my_models.py", "sha256": "x"}]}))
    (run / "config.toml").write_text('[data]\nname = "moons"\nn_samples = 60\n[model]\nname = "python"\n'
                                     'path = "code/my_models.py"\nclass = "MLP"\n')
    return run


def test_eval_refuses_untrusted_code_until_trusted(tmp_path: Path, studio_home: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    run = foreign_run(tmp_path)
    assert cli.main(["eval", str(run), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"studio: error: run folder {run} holds code you have not trusted (my_models.py): read it, then "
                   f"trust it with studio trust {run} (the window asks when you open the run)"]
    assert cli.main(["trust", str(run), "--json"]) == 0
    trusted = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["trusted"]
    assert [Path(t["file"]).name for t in trusted] == ["my_models.py"]
    assert cli.main(["eval", str(run), "--quiet"]) == 2  # now it gets as far as the missing checkpoints
    assert "not trusted" not in capsys.readouterr().err


def test_list_models_timm_pattern(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["list", "models", "--timm", "resnet1*", "--json"]) == 0
    names = json.loads(capsys.readouterr().out)["timm"]
    assert "resnet18" in names and all(n.startswith("resnet1") for n in names)


def test_a_model_attached_to_someone_elses_run_is_not_imported_until_trusted(tmp_path: Path) -> None:
    from studio.core.errors import ConfigError
    from studio.core.models.attached import build_model
    from studio.core.usercode.trust import sha256_of, trust

    model, _ = write_user_files(tmp_path / "tree")
    run = tmp_path / "colleague" / "r9"
    (run / "attached").mkdir(parents=True)
    (run / "config.toml").write_text("")
    (run / "attached" / "model.py").write_text(model.read_text())
    (run / "attached" / "model.json").write_text(json.dumps({"class": "MLP", "init": {"input_shape": [4],
                                                                                      "num_classes": 2}}))
    with pytest.raises(ConfigError, match="holds code you have not trusted"):
        build_model(run)
    trust([sha256_of(run / "attached" / "model.py")])
    assert sum(p.numel() for p in build_model(run).parameters()) == (4 * 64 + 64) + (64 * 2 + 2)
