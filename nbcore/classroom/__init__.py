"""Classroom tools: student copies of the chapters, and grading of the returned notebooks.

Command line (from the repository's root)::

    python -m nbcore.classroom student [book] [--out _build/student]
    python -m nbcore.classroom grade PATH... [--solutions book] [--timeout 60] [--csv FILE]

The exercise format they read is described in :mod:`nbcore.exercises`. The submodules:
``markup`` (reading the format), ``values`` (answers as data), ``student`` (student copies),
``grading`` (grading), ``nbval_report`` (the pytest plugin the grader loads). They are
imported on first use, so that a check cell in a student's kernel loads only ``values``.
"""

import importlib

_EXPORTS = {
    "grading": [
        "FAILED",
        "NOT_ATTEMPTED",
        "PASSED",
        "ExerciseResult",
        "GradingError",
        "SubmissionResult",
        "format_report",
        "grade",
        "write_gradebook",
    ],
    "markup": ["Exercise", "ExerciseFormatError", "find_exercises"],
    "student": ["make_student_copies", "student_copy"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name):
    if name in _WHERE:
        module = importlib.import_module(f"nbcore.classroom.{_WHERE[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'nbcore.classroom' has no attribute {name!r}")
