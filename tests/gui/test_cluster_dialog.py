"""Run on a cluster… (issue 16's GUI path to `studio export-config --torchrun`): the window's settings as a Slurm
job, the script shown as it will be written, a bad time limit refused in words, and Save writing the same files
as the CLI (config.toml with the job's device and rank count, an executable run.sbatch)."""

from __future__ import annotations

import os
import tomllib

from studio.gui.app import commands
from studio.gui.app.cluster_dialog import ClusterDialog


def test_the_dialog_writes_the_settings_as_a_slurm_job(qtbot, window, tmp_path):
    window.session.set_param("train", "batch_size", 256)
    dialog = commands.cluster_dialog(window.shell)
    assert isinstance(dialog, ClusterDialog) and dialog.isVisible()
    assert "#SBATCH --nodes=1" in dialog.script.toPlainText() and dialog.save_button.isEnabled()

    dialog.nodes.setValue(2)
    dialog.gpus.setValue(4)
    dialog.partition.setText("gpu")
    dialog.home.setText(str(tmp_path / "shared-store"))
    script = dialog.script.toPlainText()
    assert "#SBATCH --nodes=2" in script and "#SBATCH --gpus-per-node=4" in script
    assert "#SBATCH --partition=gpu" in script and "--nproc-per-node=4" in script
    assert f"RUN_ID={dialog.run_id}" in script and str(tmp_path / "shared-store") in script
    assert not dialog.procs.isEnabled()  # CPU ranks only count without GPUs
    assert "2 node(s) × 4 GPU(s) = 8 rank(s)" in dialog.summary.text()

    dialog.time_limit.setText("four hours")
    assert not dialog.save_button.isEnabled() and "Slurm's form" in dialog.summary.text()
    dialog.time_limit.setText("1-00:00:00")
    assert dialog.save_button.isEnabled() and "#SBATCH --time=1-00:00:00" in dialog.script.toPlainText()

    config_path, script_path = dialog.save_to(tmp_path / "job")
    cfg = tomllib.loads(config_path.read_text())
    assert cfg["hardware"]["device"] == "cuda" and cfg["hardware"]["processes"] == 8
    assert cfg["train"]["batch_size"] == 256  # the window's settings, not the defaults
    written = script_path.read_text()
    assert os.access(script_path, os.X_OK) and f'CONFIG={config_path}' in written
    assert written.replace(str(config_path.parent), "/path/to/folder") == dialog.script.toPlainText()
    dialog.close()


def test_a_job_too_small_for_the_batch_is_refused_before_saving(qtbot, window):
    window.session.set_param("train", "batch_size", 4)
    dialog = commands.cluster_dialog(window.shell)
    dialog.procs.setValue(8)  # 8 CPU ranks cannot share a batch of 4
    assert not dialog.save_button.isEnabled()
    assert "batch_size (4) must be at least hardware.processes (8)" in dialog.summary.text()
    dialog.close()
