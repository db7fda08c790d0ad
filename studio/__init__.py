"""Studio: a desktop deep-learning training studio."""

__version__ = "0.1.0"


def version_line() -> str:
    """``studio 0.1.0 (torch 2.14.1)``: torch's version from its package metadata, without importing it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"studio {__version__} (torch {version('torch')})"
    except PackageNotFoundError:
        return f"studio {__version__} (torch not installed)"
