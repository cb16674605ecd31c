"""The course file, ``course.toml``: what one term of the course uses and when.

An example, with every key (dates are TOML date-times; give the offset of your time zone)::

    name = "Naive Bayes, spring term"
    roster = "roster.csv"            # plain, Canvas or Moodle export (nbcore.classroom.roster)
    secret_file = "course-secret.txt"  # optional: else NBCORE_COURSE_SECRET
    missing = "zero"                 # what students who hand nothing in get in LMS files:
                                     # "zero" (0 points) or "blank" (an empty cell)

    [late]
    per_day = 10                     # percent of the chapter's points deducted per day late
    grace_minutes = 15               # handed in this long after the due time is on time
    extensions = { s1003 = 2 }       # days more for a student (all chapters)

    [chapters.01]
    due = 2027-02-05T23:59:00+01:00
    release = 2027-02-08T09:00:00+01:00  # its solutions appear in the student edition
    points = { "1.2" = 3 }           # an exercise's points, else the book's
    assignment = "Chapter 1 exercises"  # its name in the LMS (else the chapter's file name)

Paths are relative to the course file. :func:`load_course` checks every key and names the
key and its line when one is wrong.
"""

import datetime as dt
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Course", "ChapterPlan", "LateRule", "CourseError", "load_course"]

MISSING = ("zero", "blank")


class CourseError(ValueError):
    """A course file that cannot be used; the message names the key and its line."""


@dataclass
class LateRule:
    per_day: float = 0.0  # percent of the points deducted per day late
    grace: dt.timedelta = dt.timedelta(0)
    extensions: dict = field(default_factory=dict)  # student -> days


@dataclass
class ChapterPlan:
    number: str  # "01"
    due: dt.datetime | None = None
    release: dt.datetime | None = None
    points: dict = field(default_factory=dict)  # exercise -> points
    assignment: str | None = None  # its name in the LMS (the LMS files' grade column)


@dataclass
class Course:
    path: Path
    name: str
    roster: Path | None
    secret_file: Path | None
    missing: str
    late: LateRule
    chapters: dict  # "01" -> ChapterPlan

    def chapter(self, name):
        """The plan of a chapter given as "01" or "01_slug"; None when the course leaves it out."""
        return self.chapters.get(str(name)[:2])

    def released(self, now=None):
        """The numbers of the chapters whose solutions are released at ``now``."""
        now = now or dt.datetime.now(dt.UTC)
        return {n for n, c in self.chapters.items() if c.release is not None and c.release <= now}


class _Reader:
    """Reads keys of the parsed file; errors name the key and the line it is on."""

    def __init__(self, path, text):
        self.path, self.lines = path, text.splitlines()

    def line(self, parts):
        """The line of the key ``parts`` (("late", "per_day")): found in the text."""
        start = 0
        for depth in range(len(parts), 0, -1):  # the key's own table, or the one holding it
            found = self._table(parts[:depth])
            if found is not None and depth == len(parts):
                return found + 1
            if found is not None:
                start = found
                break
        key = re.compile(r"(^|[\s{,])" + _quoted(parts[-1]) + r"\s*=")
        for i in range(start, len(self.lines)):
            if key.search(self.lines[i]):
                return i + 1
        return start + 1

    def _table(self, parts):
        dotted = r"\s*\.\s*".join(map(_quoted, parts))
        table = re.compile(r"^\s*\[\s*" + dotted + r"\s*\]")
        return next((i for i, text in enumerate(self.lines) if table.match(text)), None)

    def fail(self, key, expected, got):
        """Stop on the key ``key`` (a tuple of its parts, or one name)."""
        parts = (key,) if isinstance(key, str) else key
        where = f"{self.path}, line {self.line(parts)}"
        raise CourseError(f"{where}: {'.'.join(parts)} must be {expected}, got {got!r}")


def _quoted(name):
    return "[\"']?" + re.escape(name) + "[\"']?"


def _datetime(reader, key, value):
    if value is None:
        return None
    if not isinstance(value, dt.datetime) or value.tzinfo is None:
        reader.fail(key, "a date-time with its offset, such as 2027-02-05T23:59:00+01:00", value)
    return value


def _number(reader, key, value, low=0.0, high=None):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < low:
        reader.fail(key, f"a number of at least {low}", value)
    if high is not None and value > high:
        reader.fail(key, f"a number of at most {high}", value)
    return value


def _known(reader, table, prefix, keys):
    for key in table:
        if key not in keys:
            reader.fail((*prefix, key), f"one of the known keys ({', '.join(keys)})", key)


def _late(reader, table):
    if not isinstance(table, dict):
        reader.fail("late", "a table", table)
    _known(reader, table, ("late",), ("per_day", "grace_minutes", "extensions"))
    per_day = _number(reader, ("late", "per_day"), table.get("per_day", 0), 0, 100)
    grace = _number(reader, ("late", "grace_minutes"), table.get("grace_minutes", 0))
    extensions = table.get("extensions", {})
    if not isinstance(extensions, dict):
        reader.fail(("late", "extensions"), "a table of student = days", extensions)
    for student, days in extensions.items():
        if isinstance(days, bool) or not isinstance(days, int) or days < 0:
            reader.fail(("late", "extensions", student), "a whole number of days", days)
    return LateRule(float(per_day), dt.timedelta(minutes=grace), dict(extensions))


def _chapter(reader, number, table):
    key = ("chapters", number)
    if not re.fullmatch(r"\d\d", number):
        reader.fail(key, 'a two-digit chapter number such as "01"', number)
    if not isinstance(table, dict):
        reader.fail(key, "a table", table)
    _known(reader, table, key, ("due", "release", "points", "assignment"))
    assignment = table.get("assignment")
    if assignment is not None and (not isinstance(assignment, str) or not assignment.strip()):
        reader.fail((*key, "assignment"), "the assignment's name in the LMS (text)", assignment)
    points = table.get("points", {})
    if not isinstance(points, dict):
        reader.fail((*key, "points"), 'a table of exercise = points, such as { "1.2" = 3 }', points)
    for exercise, value in points.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            reader.fail((*key, "points", exercise), "a whole number of points", value)
    due = _datetime(reader, (*key, "due"), table.get("due"))
    release = _datetime(reader, (*key, "release"), table.get("release"))
    return ChapterPlan(number, due, release, dict(points), assignment)


def _path(reader, base, key, value):
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        reader.fail(key, "a file name", value)
    path = base / value
    if not path.is_file():
        reader.fail(key, "an existing file (relative to the course file)", value)
    return path


def load_course(path):
    """The :class:`Course` of the file at ``path``; CourseError when it is not a valid one."""
    path = Path(path)
    if not path.is_file():
        raise CourseError(f"no course file at {path}")
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CourseError(f"{path}: not valid TOML: {error}") from None
    reader = _Reader(path, text)
    _known(reader, data, (), ("name", "roster", "secret_file", "missing", "late", "chapters"))
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        reader.fail("name", "the course's name (text)", name)
    missing = data.get("missing", "zero")
    if missing not in MISSING:
        reader.fail("missing", '"zero" or "blank"', missing)
    chapters = data.get("chapters")
    if not isinstance(chapters, dict) or not chapters:
        reader.fail("chapters", "at least one [chapters.NN] table", chapters)
    return Course(
        path=path,
        name=name,
        roster=_path(reader, path.parent, "roster", data.get("roster")),
        secret_file=_path(reader, path.parent, "secret_file", data.get("secret_file")),
        missing=missing,
        late=_late(reader, data.get("late", {})),
        chapters={n: _chapter(reader, n, t) for n, t in sorted(chapters.items())},
    )
