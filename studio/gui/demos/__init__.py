"""The Teaching lab: one view per demo of ``studio.core.demos`` (the math runs in a background process)."""
