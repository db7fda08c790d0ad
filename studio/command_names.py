"""The ``studio`` commands' names, known without importing the command line: ``studio/app.py`` tells a command
from a path to open with them, and the window does not wait for every command's module
(``tests/unit/test_command_names.py`` keeps them equal to ``studio.cli.COMMANDS``)."""

COMMAND_NAMES: tuple[str, ...] = (
    "train", "runs", "list", "model", "landscape", "sharpness", "data", "demo", "queue", "search", "lr-find",
    "compare", "eval", "predict",
    "export", "compress", "fit", "scale", "parallel", "async", "dataload", "schedule", "export-config", "generate",
    "attention", "check", "import", "attach", "noise-scale", "allreduce", "dlrm", "trust",
)
