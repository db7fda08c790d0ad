"""The form of "One model, four ways": which modes, how many ranks, the pipeline's micro-batch counts, the steps,
the global batch and the MLP's hidden widths; ``request()`` reads it into a ``ParallelRequest`` or refuses what
cannot be read (no mode, "1,x") with one sentence (a ``ConfigError``) before anything starts."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QGridLayout, QLineEdit, QSpinBox, QWidget

from studio.core.contracts.parallel import MODES, ParallelRequest
from studio.core.errors import ConfigError
from studio.core.numbers.ints import split_ints

MODE_TIPS = {
    "single": "One process trains the whole model on the whole batch: the reference every other mode is compared with",
    "ddp": "Data parallel (DDP): every rank holds the whole model and a share of the batch; gradients are averaged "
           "by an all-reduce",
    "model": "Model parallel: the layers are split into contiguous stages, one per rank; activations go forward and "
             "gradients back between ranks, one rank working at a time",
    "pipeline-gpipe": "Pipeline (GPipe): the batch is cut into M micro-batches; all forwards, then all backwards",
    "pipeline-1f1b": "Pipeline (1F1B): M micro-batches, each stage alternating one forward and one backward once "
                     "the pipeline is full (fewer activations kept)",
}
MODE_NAMES = {"single": "single", "ddp": "DDP", "model": "model-parallel", "pipeline-gpipe": "GPipe",
              "pipeline-1f1b": "1F1B"}


def _ints(text: str, what: str, example: str) -> tuple[int, ...]:
    try:
        values = tuple(split_ints(text))
    except ValueError:
        raise ConfigError(f"{what} must be whole numbers separated by commas, e.g. {example} "
                          f"(got {text.strip()!r})") from None
    if not values:
        raise ConfigError(f"{what} are empty: give at least one, e.g. {example}")
    if min(values) < 1:
        raise ConfigError(f"{what} must be at least 1 (got {text.strip()!r})")
    return values


class ModesForm(QWidget):
    """Checkboxes for the modes (all on), then the numbers; every control says what it does in its tooltip."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        defaults = ParallelRequest()
        self.mode_boxes: dict[str, QCheckBox] = {}
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        for i, mode in enumerate(MODES):
            box = QCheckBox(MODE_NAMES[mode])
            box.setObjectName(f"parallel_mode_{mode}")
            box.setChecked(True)
            box.setToolTip(MODE_TIPS[mode])
            self.mode_boxes[mode] = box
            grid.addWidget(box, i // 2, i % 2)
        self.ranks = QSpinBox()
        self.ranks.setObjectName("parallel_ranks")
        self.ranks.setRange(2, 16)
        self.ranks.setValue(defaults.ranks)
        self.ranks.setToolTip("Processes (one device each with CUDA): DDP's replicas, or the model's stages")
        self.microbatches = QLineEdit("1,2,4,8")
        self.microbatches.setObjectName("parallel_microbatches")
        self.microbatches.setToolTip("Micro-batch counts M for the pipeline modes, e.g. 1,2,4,8: the bubble "
                                     "(p−1)/(M+p−1) shrinks as M grows")
        self.steps = QSpinBox()
        self.steps.setObjectName("parallel_steps")
        self.steps.setRange(8, 10_000)
        self.steps.setValue(defaults.steps)
        self.steps.setToolTip("Training steps per mode (the same samples in each, so the loss curves can be "
                              "compared); the first few are warm-up")
        self.batch = QSpinBox()
        self.batch.setObjectName("parallel_batch")
        self.batch.setRange(1, 65_536)
        self.batch.setValue(defaults.batch_size)
        self.batch.setToolTip("Global batch: the samples of one step in every mode (split over DDP's ranks, or "
                              "into the pipeline's micro-batches)")
        self.widths = QLineEdit(",".join(str(w) for w in defaults.widths))
        self.widths.setObjectName("parallel_widths")
        self.widths.setToolTip("The MLP's hidden layer widths, e.g. 512,512,512: its layers are what the model "
                               "and pipeline modes split into stages")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(grid)
        form.addRow("Ranks", self.ranks)
        form.addRow("Micro-batches M", self.microbatches)
        form.addRow("Steps", self.steps)
        form.addRow("Global batch", self.batch)
        form.addRow("Hidden widths", self.widths)

    def modes(self) -> tuple[str, ...]:
        return tuple(m for m in MODES if self.mode_boxes[m].isChecked())

    def request(self) -> ParallelRequest:
        """The form as a request; a ``ConfigError`` naming what is wrong when it cannot be one."""
        modes = self.modes()
        if not modes:
            raise ConfigError("choose at least one mode to train")
        microbatches = _ints(self.microbatches.text(), "the micro-batch counts", "1,2,4,8")
        widths = _ints(self.widths.text(), "the hidden widths", "512,512,512")
        # the limits between the numbers (M against the batch, ranks against the layers) are the engine's: it
        # refuses a request in one sentence before any rank starts, and the page shows that sentence
        return ParallelRequest(modes=modes, ranks=self.ranks.value(), microbatches=tuple(sorted(set(microbatches))),
                               widths=widths, batch_size=self.batch.value(), steps=self.steps.value())
