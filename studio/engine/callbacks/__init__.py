"""Training features as callbacks the loop calls (PyTorch Lightning's model): metrics, control, evaluation and
checkpoints (``builtin.py``), stopping rules, regularisers, fine-tuning, live landscapes, trajectory snapshots."""
