"""Lessons: a teacher's sequence of steps (a demo with its settings, a dataset, a training config, runs to compare,
notes) saved as one ``.studio-lesson`` file that a student opens read-only (``lesson.py``: the steps, checked;
``lesson_file.py``: the file). Data only: nothing in a lesson can run code. Torch-free and Qt-free."""
