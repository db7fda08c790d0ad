"""One module per paper check: ``CHECK = PaperCheck(...)`` (torch-free) and ``run(progress=None, **overrides)``."""
