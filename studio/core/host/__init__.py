"""The machine Studio runs on: its processes, folders, CPU threads, devices and GPUs, and the files it writes.
Above core/vocab.py and core/errors.py only (core/__init__.py gives the order)."""
