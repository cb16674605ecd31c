"""Rosters as instructors have them: a plain CSV of ids, or an LMS's gradebook export.

The format is told by the header row:

* **Canvas** gradebook export: ``Student, ID, SIS User ID, SIS Login ID, Section, ...``. The
  student id is the **SIS User ID** (the institution's id, which Canvas matches on import);
  the "Points Possible" row and Canvas's "Test Student" are skipped.
* **Moodle** participants or grades export: ``First name, Last name, ID number, Email
  address, ...``. The student id is the **ID number**.
* **Plain**: a column ``student`` (or ``student_id``, ``id``), else the first column, with
  or without a header.

Every student keeps the row it came from, so the LMS files (:mod:`nbcore.classroom.lms`)
can give back the columns each LMS matches students by.
"""

import csv
from dataclasses import dataclass, field
from pathlib import Path

from nbcore.classroom.variants import VariantError, check_student_id

__all__ = ["Student", "Roster", "RosterError", "read_roster", "CANVAS", "MOODLE"]

CANVAS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE = ("First name", "Last name", "ID number", "Email address")
PLAIN_HEADERS = ("student", "student_id", "id")


class RosterError(VariantError):
    """A roster that cannot be read."""


@dataclass
class Student:
    id: str
    row: dict = field(default_factory=dict)  # the roster's own columns


@dataclass
class Roster:
    kind: str  # "plain", "canvas" or "moodle"
    students: list

    @property
    def ids(self):
        return [student.id for student in self.students]

    def __getitem__(self, student_id):
        return next(s for s in self.students if s.id == student_id)

    def __contains__(self, student_id):
        return student_id in self.ids


def _rows(path):
    path = Path(path)
    if not path.is_file():
        raise RosterError(f"no roster file at {path}")
    try:
        with path.open(newline="", encoding="utf-8-sig") as file:
            rows = [row for row in csv.reader(file) if any(c.strip() for c in row)]
    except UnicodeDecodeError as error:
        raise RosterError(f"the roster {path} is not UTF-8 text ({error})") from None
    if not rows:
        raise RosterError(f"the roster {path} is empty")
    return rows


def _kind(header):
    names = [c.strip() for c in header]
    if all(name in names for name in CANVAS[:3]):
        return "canvas"
    if all(name in names for name in MOODLE[2:3]) and "First name" in names:
        return "moodle"
    return "plain"


def _skip(kind, record):
    if kind != "canvas":
        return False
    student = record.get("Student", "").strip()
    # Canvas's second row holds each assignment's points; its "Test Student" (who has no SIS
    # User ID) is not a student. A real student may have either name: exact tests only.
    if student == "Points Possible":
        return True
    test_student = student in ("Test Student", "Student, Test")
    return test_student and not record.get("SIS User ID", "").strip()


def read_roster(path):
    """The :class:`Roster` of a CSV file (Canvas, Moodle or plain; see the module)."""
    rows = _rows(path)
    header = [c.strip() for c in rows[0]]
    kind = _kind(header)
    if kind == "plain":
        lower = [h.lower() for h in header]
        column = next((lower.index(n) for n in PLAIN_HEADERS if n in lower), None)
        first = 2 if column is not None else 1
        body = rows[1:] if column is not None else rows
        column = column or 0
        header = header if first == 2 else [f"column {i + 1}" for i in range(len(rows[0]))]
        key = header[column]
    else:
        key = "SIS User ID" if kind == "canvas" else "ID number"
        column, body, first = header.index(key), rows[1:], 2
    students, seen = [], set()
    for number, row in enumerate(body, start=first):
        record = {name: (row[i].strip() if i < len(row) else "") for i, name in enumerate(header)}
        if _skip(kind, record):
            continue
        student = record.get(key, "")
        if not student:
            raise RosterError(
                f"{path}, row {number}: the {kind} roster's student id column {key!r} is empty"
            )
        try:
            check_student_id(student)
        except VariantError as error:
            raise RosterError(f"{path}, row {number}: {error} (column {key!r})") from None
        if student in seen:
            raise RosterError(f"{path}, row {number}: student {student} is listed twice")
        seen.add(student)
        students.append(Student(student, record))
    if not students:
        raise RosterError(f"the roster {path} lists no student")
    return Roster(kind, students)
