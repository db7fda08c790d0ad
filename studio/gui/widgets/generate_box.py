"""Generate text with the selected next-word run: a seed, how many tokens, a temperature, top-k, and the result.

Shown under the run list when the one selected run is a next-word model (a model tagged "generates":
lstm_lm, gru_lm, gpt_lm; not bert_mlm, a masked LM whose left-to-right output would be "the the the…"); a
character-level run adds characters, joined as they are; a generation of only blank space says so. The generation is a
background job the Session starts (``engine/tasks/generate.py``), so the window never waits for torch or the model.
"""

from __future__ import annotations

from typing import Any, cast

from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts.generate import GenerateRequest, GenerateResult, blank_sentence, result_notes
from studio.core.errors import StudioError
from studio.gui.session.job_binding import JobBinding
from studio.gui.widgets.forms import TidySpinBox


class GenerateBox(QGroupBox):
    output: QLabel  # built below; the job binding's handlers name them first
    button: QPushButton

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__("Generate text", parent)
        self.setObjectName("generate_box")
        self.session = session
        self.run_id: str | None = None
        self.binding = JobBinding(self)
        self.binding.done.connect(self.show_result)
        self.binding.cancelled.connect(lambda: self.output.setText("<i>cancelled</i>"))
        self.binding.failed.connect(self._failed)
        self.binding.ended.connect(lambda _state: self.button.setText("Generate"))
        self.result: dict[str, Any] | None = None  # the last generation (tests read it)
        self.seed = QLineEdit("the man")
        self.seed.setObjectName("generate_seed")
        self.seed.setPlaceholderText("seed text, e.g. the man")
        self.seed.setToolTip("The text to continue; words outside the run's vocabulary are read as <oov>")
        self.seed.returnPressed.connect(self.generate)
        self.words = QSpinBox()
        self.words.setRange(1, 500)
        self.words.setValue(8)
        self.words.setToolTip("How many tokens to add: words, or characters for a character-level run")
        self.temperature = TidySpinBox()
        self.temperature.setRange(0.0, 5.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setSpecialValueText("0 (greedy)")
        self.temperature.setToolTip("0: always the most likely word (greedy); higher: sample from "
                                    "softmax(logits / T), more surprising")
        self.top_k = QSpinBox()
        self.top_k.setObjectName("generate_top_k")
        self.top_k.setRange(0, 10_000)
        self.top_k.setSpecialValueText("all")
        self.top_k.setToolTip("Sample only among the k most likely tokens (top-k; all: no cut). Used when the "
                              "temperature is above 0")
        self.button = QPushButton("Generate")
        self.button.setObjectName("generate_button")
        self.button.setToolTip("Continue the prompt with the selected run's model")
        self.button.clicked.connect(self._clicked)
        self.output = QLabel("")
        self.output.setObjectName("generate_output")
        self.output.setWordWrap(True)
        self.output.setTextInteractionFlags(self.output.textInteractionFlags() | self.output.textInteractionFlags()
                                            .TextSelectableByMouse)
        row = QHBoxLayout()
        row.addWidget(QLabel("Seed"))
        row.addWidget(self.seed, 1)
        self.words_label = QLabel("Words")
        row.addWidget(self.words_label)
        row.addWidget(self.words)
        row.addWidget(QLabel("Temperature"))
        row.addWidget(self.temperature)
        row.addWidget(QLabel("Top-k"))
        row.addWidget(self.top_k)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(row)
        layout.addWidget(self.output)
        session.selection_changed.connect(self.follow)
        self.follow(session.selected_runs())

    def follow(self, run_ids: list[str]) -> None:
        """Show the box for one selected next-word run; hide it otherwise."""
        run_id = run_ids[0] if len(run_ids) == 1 else None
        if run_id is not None and not self._is_text_run(run_id):
            run_id = None
        if run_id != self.run_id:
            self.output.setText("")
        self.run_id = run_id
        self.setVisible(run_id is not None)
        if run_id:
            self.setTitle(f"Generate text with run {run_id}")
            self.words_label.setText("Characters" if self._tokenizer(run_id) == "char" else "Words")

    def _is_text_run(self, run_id: str) -> bool:
        """A run of a model that writes the next token (bert_mlm fills in masked words: it is not offered)."""
        from studio.core.models import MODELS
        from studio.core.models.catalog import GENERATES

        try:
            model = self.session.store.get(run_id).run_config.model.name
            return GENERATES in MODELS.get(model).tags
        except (StudioError, KeyError, ValueError):
            return False

    def _tokenizer(self, run_id: str) -> str:
        try:
            return str(self.session.store.get(run_id).run_config.data.params.get("tokenizer", "word"))
        except (StudioError, KeyError, ValueError):
            return "word"

    @property
    def job(self) -> Any:
        """The JobHandle of the generation in progress, or None."""
        return self.binding.current

    @property
    def busy(self) -> bool:
        return self.binding.running

    def _clicked(self) -> None:
        if not self.binding.cancel():
            self.generate()

    def generate(self) -> None:
        """Start generating in the background (one generation at a time)."""
        if self.busy or self.run_id is None:
            return
        run = self.session.store.get(self.run_id)
        self.binding.start(self.session.start(GenerateRequest(
            str(run.dir), self.seed.text(), self.words.value(), self.temperature.value(), top_k=self.top_k.value())))
        self.button.setText("Cancel")
        self.output.setText("<i>generating…</i>")

    def _failed(self, message: str) -> None:
        self.output.setText("")
        self.session.error.emit("Generate failed", message)

    def show_result(self, result: dict[str, Any]) -> None:
        import html  # not at import: the window's start-up

        self.result = result
        if result.get("tokenizer") == "char":  # characters as they are; a line end shows as one
            seed, new = (html.escape(t).replace("\n", "<br>") for t in (result["seed"], "".join(result["words"])))
            joiner = ""
        else:
            seed = html.escape(" ".join(result["text"].split()[: len(result["text"].split()) - len(result["words"])]))
            new, joiner = html.escape(" ".join(result["words"])), " "
        how = "greedy" if result["temperature"] == 0 else f"temperature {result['temperature']:g}"
        if result["temperature"] and result.get("top_k"):
            how += f", top-{result['top_k']}"
        oov = f" · not in the vocabulary: {html.escape(', '.join(result['oov_in_seed']))}" \
            if result["oov_in_seed"] else ""
        typed = cast(GenerateResult, result)
        blank = blank_sentence(typed)  # only spaces and line ends: say so, not an output that looks empty
        added = "" if blank else f"{joiner}<b>{new}</b>"
        said = "".join(f"<br><i>{html.escape(note)}</i>" for note in result_notes(typed))  # and an undertrained run
        self.output.setText(f"<span style='font-size:13pt; white-space:pre-wrap'>{seed}{added}</span>{said}<br>"
                            f"<small>{how} · {result['checkpoint']} checkpoint{oov}</small>")
        self._make_room()

    def _make_room(self) -> None:
        """A result taller than the box's share of the window's splitter (a note under the text) takes the room
        from the parts above it (the run list, then the curves), so no line of it is cut off."""
        splitter = self.parentWidget()
        layout = self.layout()
        if not isinstance(splitter, QSplitter) or layout is None:
            return
        index = splitter.indexOf(self)
        sizes = splitter.sizes()
        short = max(layout.totalHeightForWidth(self.width()), self.sizeHint().height()) - sizes[index]
        for above in range(index - 1, -1, -1):
            if short <= 0:
                break
            part = splitter.widget(above)
            least = part.minimumSizeHint().height() if part is not None else sizes[above]
            give = min(short, max(0, sizes[above] - least))
            sizes[above] -= give
            sizes[index] += give
            short -= give
        splitter.setSizes(sizes)

    def shutdown(self) -> None:
        self.binding.cancel()
