"""The course file and the rosters instructors have (Canvas, Moodle, plain)."""

import datetime as dt
import re

import pytest

from nbcore.classroom.course import CourseError, load_course
from nbcore.classroom.late import late_for
from nbcore.classroom.roster import RosterError, read_roster

CANVAS = """Student,ID,SIS User ID,SIS Login ID,Section,Chapter 1 (123)
    Points Possible,,,,,10
"Smith, John",1001,s1001,jsmith,Section A,
"Doe, Jane",1002,s1002,jdoe,Section A,
"Student, Test",1003,,,Section A,
"""


def _course(tmp_path, text, roster="s1\ns2\n"):
    (tmp_path / "roster.csv").write_text(roster)
    path = tmp_path / "course.toml"
    path.write_text(text)
    return path


GOOD = """
name = "Naive Bayes"
roster = "roster.csv"
missing = "blank"

[late]
per_day = 10
grace_minutes = 30
extensions = { s2 = 2 }

[chapters.01]
due = 2027-02-05T23:59:00+01:00
release = 2027-02-08T09:00:00+01:00
points = { "1.2" = 3 }

[chapters.03]
due = 2027-02-12T23:59:00+01:00
"""


def test_a_course_file_is_read(tmp_path):
    course = load_course(_course(tmp_path, GOOD))
    assert course.name == "Naive Bayes"
    assert course.roster == tmp_path / "roster.csv"
    assert course.missing == "blank"
    assert course.late.per_day == 10 and course.late.grace == dt.timedelta(minutes=30)
    assert sorted(course.chapters) == ["01", "03"]
    assert course.chapter("01_intro").points == {"1.2": 3}
    assert course.chapter("02_other") is None
    after = dt.datetime(2027, 2, 9, tzinfo=dt.UTC)
    assert course.released(after) == {"01"}
    assert course.released(after - dt.timedelta(days=3)) == set()


@pytest.mark.parametrize(
    "change, key, line",
    [
        (("per_day = 10", "per_day = -1"), "late.per_day", 7),
        (("per_day = 10", "per_day = 200"), "late.per_day", 7),
        (('missing = "blank"', 'missing = "nothing"'), "missing", 4),
        (("due = 2027-02-12T23:59:00+01:00", "due = 2027-02-12T23:59:00"), "chapters.03.due", 17),
        (('"1.2" = 3', '"1.2" = "three"'), "chapters.01.points.1.2", 14),
        (("grace_minutes = 30", "grace = 30"), "late.grace", 8),
        (("extensions = { s2 = 2 }", "extensions = { s2 = 1.5 }"), "late.extensions.s2", 9),
        (('roster = "roster.csv"', 'roster = "nowhere.csv"'), "roster", 3),
        (("[chapters.03]", "[chapters.3]"), "chapters.3", 16),
    ],
)
def test_a_bad_course_file_names_the_key_and_its_line(tmp_path, change, key, line):
    path = _course(tmp_path, GOOD.replace(*change))
    with pytest.raises(CourseError) as error:
        load_course(path)
    message = str(error.value)
    assert f"line {line}: {key} must be" in message, message


def test_a_course_file_that_is_not_toml(tmp_path):
    with pytest.raises(CourseError, match="not valid TOML"):
        load_course(_course(tmp_path, "name = \n"))


def test_late_rule(tmp_path):
    course = load_course(_course(tmp_path, GOOD))
    due = course.chapters["01"].due
    on_time = late_for(course, "01_intro", "s1", due + dt.timedelta(minutes=29), 8, 10)
    assert on_time is None
    late = late_for(course, "01_intro", "s1", due + dt.timedelta(hours=25), 8, 10)
    assert (late.days, late.penalty, late.note) == (2, 2.0, "2 days late, 20 % off")
    extended = late_for(course, "01_intro", "s2", due + dt.timedelta(hours=25), 8, 10)
    assert extended is None  # two days more for s2
    floor = late_for(course, "01_intro", "s1", due + dt.timedelta(days=30), 3, 10)
    assert floor.penalty == 3  # never below zero
    assert late_for(course, "02_other", "s1", due + dt.timedelta(days=3), 8, 10) is None
    assert late_for(None, "01_intro", "s1", due + dt.timedelta(days=3), 8, 10) is None


def test_canvas_roster(tmp_path):
    path = tmp_path / "canvas.csv"
    path.write_text(CANVAS)
    roster = read_roster(path)
    assert roster.kind == "canvas"
    assert roster.ids == ["s1001", "s1002"]  # no Points Possible row, no Test Student
    assert roster["s1001"].row["Student"] == "Smith, John"
    assert roster["s1002"].row["SIS Login ID"] == "jdoe"


def test_moodle_roster(tmp_path):
    path = tmp_path / "moodle.csv"
    path.write_text(
        "First name,Last name,ID number,Email address\n"
        "John,Smith,s1001,js@example.org\nJane,Doe,s1002,jd@example.org\n"
    )
    roster = read_roster(path)
    assert roster.kind == "moodle"
    assert roster.ids == ["s1001", "s1002"]
    assert roster["s1002"].row["Email address"] == "jd@example.org"


@pytest.mark.parametrize(
    "text, ids", [("s1\ns2\n", ["s1", "s2"]), ("name,student\nA,s1\nB,s2\n", ["s1", "s2"])]
)
def test_plain_roster(tmp_path, text, ids):
    path = tmp_path / "roster.csv"
    path.write_text(text)
    assert read_roster(path).ids == ids


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "is empty"),
        ("s1\ns1\n", "row 2: student s1 is listed twice"),
        ("s1\nbad id\n", "row 2: a student id is"),
        (
            "First name,Last name,ID number,Email address\nJohn,Smith,,js@example.org\n",
            "row 2: the moodle roster's student id column 'ID number' is empty",
        ),
        (
            "Student,ID,SIS User ID,SIS Login ID,Section\n" + '"Smith, John",1,,js,A\n',
            "row 2: the canvas roster's student id column 'SIS User ID' is empty",
        ),
    ],
)
def test_bad_rosters_are_explained(tmp_path, text, message):
    path = tmp_path / "roster.csv"
    path.write_text(text)
    with pytest.raises(RosterError, match=re.escape(message)):
        read_roster(path)


def test_the_readmes_course_file_parses(tmp_path):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", readme, re.S)
    assert len(blocks) == 1
    text = "\n".join(line[3:] for line in blocks[0].splitlines())  # the list item's indent
    (tmp_path / "roster.csv").write_text("s1003\n")
    (tmp_path / "course-secret.txt").write_text("x" * 32)
    (tmp_path / "course.toml").write_text(text)
    course = load_course(tmp_path / "course.toml")
    assert sorted(course.chapters) == ["01", "03"]
    assert course.late.extensions == {"s1003": 2}
    assert course.chapters["03"].points == {"3.2": 3}
    assert course.chapters["03"].assignment == "Exercises 3"


def test_canvas_roster_skips_only_the_points_row_and_canvas_test_student(tmp_path):
    """A real student whose name contains "Points Possible", or is "Test Student" but who has
    an SIS User ID, stays on the roster (a substring test dropped them silently)."""
    path = tmp_path / "canvas.csv"
    path.write_text(
        CANVAS
        + '"Mr Points Possible",1004,s1004,mpp,Section A,\n'
        + '"Test Student",1005,s1005,tst,Section A,\n'
    )
    assert read_roster(path).ids == ["s1001", "s1002", "s1004", "s1005"]
