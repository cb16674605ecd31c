"""Step 4 of grading: the report printed per submission, and the gradebooks (CSV)."""

import csv
import os
import re
from pathlib import Path

from nbcore.classroom.display import printable
from nbcore.classroom.results import REFUSED

SUPERSEDED = "superseded"

__all__ = [
    "format_report",
    "cell",
    "write_gradebooks",
    "write_gradebook",
    "submissions_by_student",
]


def format_report(result, base=None):
    """The table printed for one submission (every text a student chose made printable)."""
    name = _name(result, base)
    if result.refused:
        return f"{name}: refused, not graded: {printable(result.refused)}"
    if result.superseded is not None:
        return f"{name}: superseded by {_name(result.superseded, base)}, not graded"
    student = f", student {printable(result.student)}" if result.student else ""
    lines = [f"{name} (chapter {result.chapter}{student}): {result.score} / {result.out_of} points"]
    width = max([len("exercise")] + [len(r.exercise) for r in result.results])
    lines.append(f"  {'exercise':<{width}}  points  out of  {'result':<13}  hint")
    for r in result.results:
        hint = printable(r.hint)
        row = f"  {r.exercise:<{width}}  {r.earned:>6}  {r.points:>6}  {r.status:<13}  {hint}"
        lines.append(row.rstrip())
    if result.late:
        late = result.late
        lines.append(
            f"  late: {late.note}, -{late.penalty:g} points: {result.final:g} / {result.out_of}"
        )
    lines += [f"  note: {printable(problem)}" for problem in result.problems]
    return "\n".join(lines)


def _name(result, base):
    if base is not None:
        try:
            return printable(result.path.relative_to(base).as_posix())
        except ValueError:
            pass
    return printable(result.path.as_posix())


_FORMULA = re.compile(r"^[=+\-@\t\r]")
# A spreadsheet may split a cell again at a separator of its own locale or choosing (";" in
# much of Europe, a tab, "|"), whatever the quoting: every piece that would then start with a
# formula character (after spaces or quotes) gets the apostrophe too.
_PIECE = re.compile(r"""(^|[,;\t\r\n|])([ "]*)(?=[=+\-@])""")


def cell(value):
    """A CSV cell that no spreadsheet reads as a formula: text starting with = + - @ is quoted
    with an apostrophe, and so is every piece of it that starts after a separator."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = _PIECE.sub(r"\1\2'", printable(value))
    return "'" + text if _FORMULA.match(text) else text


def _write_csv(path, header, rows, verbatim=()):
    """Write a CSV whose cells no spreadsheet reads as formulas (:func:`cell`), except the
    columns named in ``verbatim``: identifiers copied from the LMS's own export, which its
    import must find unchanged to match the row to a student."""
    path = Path(path)
    keep = {i for i, name in enumerate(header) if name in verbatim}
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("w", newline="", encoding="utf-8", errors="backslashreplace") as file:
        writer = csv.writer(file)
        writer.writerow([cell(h) for h in header])
        for row in rows:
            writer.writerow([v if i in keep else cell(v) for i, v in enumerate(row)])
    os.replace(partial, path)
    return path


def write_gradebooks(results, folder, base=None):
    """Write one gradebook per chapter and one details file; return their paths.

    ``gradebook_<chapter>.csv``: one row per student (the latest submission when a student
    handed in more than one), columns ``student``, one per exercise (points earned), ``total``,
    ``out_of`` and ``note``. ``gradebook_details.csv``: one row per submission and exercise.

    A verified roster copy (its seal matches) is the row of the student it names. A refused
    submission is a row of its own, named by its file; so is a submission that is not verified
    and names a student who has a verified copy: neither replaces a verified student's row.
    "Latest" is the last by ``result.order`` where it is set (:func:`nbcore.classroom.unpack.
    order_key`), else by modification time, then name. ``total`` is the score less the late
    penalty (``result.late``); overridden points (``result.override``) count as set.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    by_chapter = {}
    for result in results:
        if result.chapter:
            by_chapter.setdefault(result.chapter, []).append(result)
    for chapter, chapter_results in sorted(by_chapter.items()):
        exercises = []
        for result in chapter_results:
            exercises += [r.exercise for r in result.results if r.exercise not in exercises]
        latest = submissions_by_student(chapter_results, base)
        rows = []
        for student in sorted(latest):
            entries = latest[student]
            result = entries[-1][1]
            earned = {r.exercise: r.earned for r in result.results}
            notes = []
            if result.refused:
                notes.append(f"refused: {result.refused}")
            if len(entries) > 1:
                others = ", ".join(_listed(r, base) for _, r in entries[:-1])
                notes.append(f"graded the latest of {len(entries)} submissions; also: {others}")
            if result.late:
                notes.append(f"{result.late.note}: -{result.late.penalty:g} points")
            notes += result.problems
            rows.append(
                [student]
                + [earned.get(exercise, 0) for exercise in exercises]
                + [result.final, result.out_of, "; ".join(notes)]
            )
        header = ["student", *[f"exercise {e}" for e in exercises], "total", "out_of", "note"]
        written.append(_write_csv(folder / f"gradebook_{chapter}.csv", header, rows))
    rows = []
    for result in results:
        if result.refused:
            rows.append(
                [
                    result.student,
                    _name(result, base),
                    result.chapter,
                    "",
                    0,
                    0,
                    REFUSED,
                    result.refused,
                    "",
                ]
            )
        if result.superseded is not None:
            later = _name(result.superseded, base)
            rows.append(
                [
                    result.student,
                    _name(result, base),
                    result.chapter,
                    "",
                    0,
                    0,
                    SUPERSEDED,
                    f"not run: {later} is a later copy from the same account",
                    "",
                ]
            )
        for r in result.results:
            rows.append(
                [
                    result.student,
                    _name(result, base),
                    result.chapter,
                    r.exercise,
                    r.earned,
                    r.points,
                    r.status,
                    r.hint,
                    r.note,
                ]
            )
    header = [
        "student",
        "submission",
        "chapter",
        "exercise",
        "earned",
        "points",
        "status",
        "hint",
        "note",
    ]
    details = _write_csv(folder / "gradebook_details.csv", header, rows)
    return written, details


def submissions_by_student(chapter_results, base=None):
    """{row name: [(order, result)], the latest last} of one chapter's results: the rows of its
    gradebook (see :func:`write_gradebooks` for who gets a row of their own)."""
    verified = {result.student for result in chapter_results if result.verified}
    rows, keys = {}, {}
    for result in chapter_results:
        if result.superseded is not None:
            continue
        key = result.student or result.path.stem
        if result.refused or result.mismatch or (key in verified and not result.verified):
            key = _name(result, base)  # never the row of a verified student
        keys[id(result)] = key
        rows.setdefault(key, []).append((_order(result, base), result))
    for result in chapter_results:  # in the row of the copy graded instead, before it
        if result.superseded is not None:
            key = keys.get(id(result.superseded), _name(result, base))
            rows.setdefault(key, []).append(((), result))
    ranked = {}
    for key, entries in rows.items():
        ranked[key] = sorted(entries, key=lambda pair: (pair[1].superseded is None, pair[0]))
    return ranked


def _listed(result, base):
    """A submission's name in a note, "(superseded, not run)" after it when it was not run."""
    name = _name(result, base)
    return f"{name} (superseded, not run)" if result.superseded is not None else name


def _order(result, base):
    if result.order:
        return result.order
    try:
        when = result.path.stat().st_mtime
    except OSError:
        when = 0
    return (-1, when, _name(result, base))


def write_gradebook(results, path, base=None):
    """Compatibility: the gradebooks in the folder of ``path``; (first gradebook, details)."""
    written, details = write_gradebooks(results, Path(path).parent, base)
    return (written[0] if written else None), details
