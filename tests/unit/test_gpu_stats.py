"""NVML readings (core/host/gpu_stats.py). No GPU is reachable here, so the parsing and formatting are tested with a
stand-in for the ``pynvml`` module (the same functions, returning what NVML returns); the skip path runs for
real: without nvidia-ml-py or a driver, :func:`open_nvml` returns a sentence instead of a reader."""

from __future__ import annotations

from types import SimpleNamespace

from studio.core.host.gpu_stats import MB, Nvml, Sampler, format_sample, open_nvml
from tests.conftest import wait_for


class FakeNvml:
    """A stand-in for pynvml (no GPU here): two GPUs whose utilisation follows ``utils``."""

    def __init__(self, utils=(40, 80), fail_init: bool = False, count: int = 2) -> None:
        self.utils, self.fail_init, self.count, self.shut = list(utils), fail_init, count, False

    def nvmlInit(self):
        if self.fail_init:
            raise RuntimeError("Driver Not Loaded")

    def nvmlShutdown(self):
        self.shut = True

    def nvmlDeviceGetCount(self):
        return self.count

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetName(self, handle):
        return b"NVIDIA H100 80GB HBM3" if handle == 0 else "NVIDIA A100"  # old bindings return bytes

    def nvmlDeviceGetUtilizationRates(self, handle):
        return SimpleNamespace(gpu=self.utils[handle], memory=10)

    def nvmlDeviceGetMemoryInfo(self, handle):
        return SimpleNamespace(used=(handle + 1) * 1024 * MB, total=80 * 1024 * MB, free=0)


def test_samples_are_read_per_gpu_and_formatted_in_words():
    reader = open_nvml(FakeNvml())
    assert isinstance(reader, Nvml)
    samples = reader.sample()
    assert [(s["index"], s["name"], s["util"], s["memory_used_mb"]) for s in samples] == [
        (0, "NVIDIA H100 80GB HBM3", 40.0, 1024.0), (1, "NVIDIA A100", 80.0, 2048.0)]
    assert format_sample(samples).splitlines() == ["GPU 0 NVIDIA H100 80GB HBM3: 40 % busy, 1.0 of 80.0 GB",
                                                   "GPU 1 NVIDIA A100: 80 % busy, 2.0 of 80.0 GB"]


def test_a_failing_init_or_no_gpu_is_a_sentence_not_an_exception():
    assert open_nvml(FakeNvml(fail_init=True)) == ("GPU utilisation is not measured: NVML could not start "
                                                   "(RuntimeError: Driver Not Loaded)")
    fake = FakeNvml(count=0)
    assert open_nvml(fake) == "GPU utilisation is not measured: NVML sees no NVIDIA GPU" and fake.shut


def test_sampler_averages_utilisation_and_keeps_the_peak_memory():
    reader = open_nvml(FakeNvml(utils=(20, 60)))
    assert isinstance(reader, Nvml)
    sampler = Sampler(reader, every_s=0.01).start()
    wait_for(lambda: len(sampler._utils) >= 3, 10, "three samples")
    util, memory = sampler.stop()
    assert util == 40.0 and memory == 3072.0


def test_without_a_gpu_here_the_real_open_skips_with_a_reason():
    """The real path on this machine: nvidia-ml-py missing, or NVML without a driver — either way, a reason."""
    reader = open_nvml()
    if isinstance(reader, Nvml):  # a machine with a GPU: it reads
        assert all(0 <= s["util"] <= 100 for s in reader.sample())
        reader.close()
        return
    assert reader.startswith("GPU utilisation is not measured: ")
    assert "nvidia-ml-py is not installed" in reader or "NVML" in reader
