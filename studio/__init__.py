"""Studio: a desktop deep-learning training studio."""

__version__ = "0.1.0"
