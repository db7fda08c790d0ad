"""An imported dataset trains in a real `studio train` process, with augmentation on."""

import json

from tests.conftest import run_cli
from tests.unit import import_fixtures as fx


def test_import_then_train_with_augmentation(tmp_path):
    root = fx.image_folder(tmp_path / "pets", per_class=20)
    imported = run_cli("data", "import", str(root), "--json", timeout=120)
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout.strip().splitlines()[-1])["name"] == "pets"
    proc = run_cli("train", "--json", "--quiet", "--set", "data.name=pets", "--set", "data.aug_rotation=15",
                   "--set", "data.aug_hflip=true", "--set", "data.aug_samplewise_center=true",
                   "--set", "train.epochs=2", "--set", "train.batch_size=16", timeout=240)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["status"] == "finished" and result["epochs"] == 2
    assert result["test_acc"] is not None and result["val_acc"] is not None
