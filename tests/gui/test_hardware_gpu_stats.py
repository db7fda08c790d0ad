"""The hardware panel shows each GPU's utilisation and memory (NVML) live while training. No GPU is reachable
here: the readings come from a stand-in for the pynvml module (tests/unit/test_gpu_stats.FakeNvml); the skip
paths run for real (no GPU found: nothing is read; GPUs but no NVML here: the reason, once)."""

from __future__ import annotations

from studio.gui.panels.hardware import HardwarePanel
from tests.unit.test_gpu_stats import FakeNvml

INFO = {"torch": "2.x", "cuda": "12.4", "cpus": 16, "gpus": ["NVIDIA H100 80GB HBM3", "NVIDIA A100"]}


def panel_of(window) -> HardwarePanel:
    panel = window.findChild(HardwarePanel)
    assert panel is not None
    return panel


def test_gpu_readings_follow_training(window):
    panel = panel_of(window)
    fake = FakeNvml(utils=(40, 80))
    panel.nvml_module = fake  # a stand-in for pynvml: no GPU is reachable here
    panel.set_backend(INFO)
    window.session.state_changed.emit("running")
    assert panel.gpu_timer.isActive() and not panel.gpu_stats.isHidden()
    assert panel.gpu_stats.text().splitlines() == ["GPU 0 NVIDIA H100 80GB HBM3: 40 % busy, 1.0 of 80.0 GB",
                                                   "GPU 1 NVIDIA A100: 80 % busy, 2.0 of 80.0 GB"]
    fake.utils = [95, 10]
    panel.sample_gpus()  # the timer's tick
    assert panel.gpu_stats.text().startswith("GPU 0 NVIDIA H100 80GB HBM3: 95 % busy")
    window.session.state_changed.emit("idle")
    assert not panel.gpu_timer.isActive()


def test_without_gpus_nothing_is_read(window):
    panel = panel_of(window)
    panel.set_backend({**INFO, "gpus": []})
    window.session.state_changed.emit("running")
    assert not panel.gpu_timer.isActive() and panel.gpu_stats.isHidden() and panel._nvml is None


def test_gpus_without_nvml_say_why_once(window):
    """The real open (no stand-in): this machine has no NVIDIA driver or no nvidia-ml-py, so a reason shows."""
    panel = panel_of(window)
    panel.set_backend(INFO)
    window.session.state_changed.emit("running")
    if not isinstance(panel._nvml, str):  # a machine with a real GPU and NVML: it reads
        assert "% busy" in panel.gpu_stats.text()
        return
    assert panel.gpu_stats.text().startswith("GPU utilisation is not measured: ")
    assert not panel.gpu_timer.isActive()
