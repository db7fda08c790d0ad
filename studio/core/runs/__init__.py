"""The run store: one folder per run (its layout is ``layout.py``'s alone) indexed by SQLite (``db.py``), the
run queue, the run records, the names a person tells runs apart by, comparison and export."""
