"""Per-exercise overrides, kept with their reason in an audit file, ``overrides.csv``.

Columns: ``student, chapter, exercise, points, reason, who, when``. Every row says who set
which points and why; every export (gradebooks, LMS files, regrades) applies the file, the
last row of an exercise winning, so the file is the history of the changes.
``python -m nbcore.classroom override`` appends a row with the user's name and the time.
"""

import csv
import datetime as dt
import getpass
from pathlib import Path

__all__ = ["OverrideError", "read_overrides", "apply_overrides", "add_override", "COLUMNS"]

COLUMNS = ("student", "chapter", "exercise", "points", "reason", "who", "when")


class OverrideError(ValueError):
    """An overrides file that cannot be applied; the message names the row."""


def read_overrides(path):
    """The rows of the audit file at ``path`` (none when it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8-sig") as file:
        reader = csv.DictReader(file)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise OverrideError(f"{path}: the columns {', '.join(missing)} are missing")
        rows = []
        for number, row in enumerate(reader, start=2):
            row = {key: (row[key] or "").strip() for key in COLUMNS}
            empty = [key for key in COLUMNS if not row[key]]
            if empty:
                raise OverrideError(f"{path}, row {number}: {', '.join(empty)} must be given")
            try:
                row["points"] = float(row["points"])
            except ValueError:
                raise OverrideError(
                    f"{path}, row {number}: points must be a number, got {row['points']!r}"
                ) from None
            row["chapter"] = row["chapter"][:2].zfill(2)
            row["row"] = number
            rows.append(row)
    return rows


def apply_overrides(results, rows, path="overrides.csv"):
    """Set the overridden points on ``results`` (in place); OverrideError on a row that
    names an exercise that does not exist or more points than it has."""
    for row in rows:
        where = f"{path}, row {row['row']}"
        for result in results:
            if result.student != row["student"] or str(result.chapter)[:2] != row["chapter"]:
                continue
            if result.refused:
                continue
            exercise = next((r for r in result.results if r.exercise == row["exercise"]), None)
            if exercise is None:
                raise OverrideError(
                    f"{where}: chapter {result.chapter} has no exercise {row['exercise']}"
                )
            if not 0 <= row["points"] <= exercise.points:
                raise OverrideError(
                    f"{where}: points must be between 0 and {exercise.points}, "
                    f"got {row['points']:g}"
                )
            exercise.override = row["points"]
            reason = f"override: {row['reason']} ({row['who']}, {row['when']})"
            exercise.note = f"{exercise.note}; {reason}" if exercise.note else reason
    return results


def add_override(path, student, chapter, exercise, points, reason, who=None, now=None):
    """Append a row to the audit file (created with its header)."""
    path = Path(path)
    if not reason.strip():
        raise OverrideError("an override needs its reason (--reason)")
    who = who or getpass.getuser()
    when = (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds")
    new = not path.is_file()
    with path.open("a", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        if new:
            writer.writerow(COLUMNS)
        writer.writerow([student, chapter, exercise, f"{float(points):g}", reason, who, when])
    return path
