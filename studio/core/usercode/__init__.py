"""A user's own model or dataset file: read with ``ast`` (reader.py, arguments.py: torch-free, the GUI's way in),
imported by path only inside the processes that compute (loading.py), copied into the run folder with its hash
(run_copy.py) and imported from a run folder only when this user trusts it (trust.py)."""
