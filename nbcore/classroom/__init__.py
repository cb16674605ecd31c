"""Classroom tools: student copies of the chapters, and grading of the returned notebooks.

Command line (from the repository's root)::

    python -m nbcore.classroom student [book] [--out _build/student] [--roster roster.csv]
    python -m nbcore.classroom grade PATH... [--solutions book] [--jobs N] [--out FOLDER]
        [--course course.toml | --roster roster.csv] [--submitted times.csv]
    python -m nbcore.classroom regrade FOLDER/state [--course course.toml]
    python -m nbcore.classroom override STUDENT CHAPTER EXERCISE POINTS --reason TEXT

The exercise format they read is described in :mod:`nbcore.exercises`; answers cross between
processes as data (:mod:`nbcore.answers`). The submodules: ``markup`` (reading the format),
``prose`` (book markdown to plain markdown), ``variants`` (roster, course secret, seeds, seals),
``student`` and ``selfcheck`` (student copies, their self-checks), ``grading`` (the pipeline
of grading, one module per step: ``screen``, ``run``, ``check``, ``report``, with
``similarity``), ``sandbox``, ``confine`` and ``driver`` (running student code in
bubblewrap), ``nbval_report`` (the pytest plugin the grader loads); around them, a term:
``course`` (course.toml), ``roster`` (plain, Canvas, Moodle), ``unpack`` (ZIPs as LMSs give
them), ``late``, ``overrides``, ``lms`` (Canvas and Moodle files) and ``term`` (the exports
after grading, the state kept for regrading). They are imported on first use.
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
        "write_gradebooks",
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
