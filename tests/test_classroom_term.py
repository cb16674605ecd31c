"""A term in miniature, from the roster to the LMS files.

A Canvas roster export of five students; a course file with two chapters (the test chapter
90, and 91: the same chapter under another number), a per-day late penalty; copies made for
the roster; a ZIP of submissions named as Canvas names them, with one student late and one
who hands nothing in; grading; a check the instructor fixes, and a regrade; an override.
"""

import csv
import json
import re
import shutil
import stat
import subprocess
import sys
import zipfile

import nbformat
import pytest
from classroom_helpers import FIXTURE, solutions, with_answers

from nbcore.classroom.student import make_student_copies

SECRET = "term-secret-for-the-tests-0123456789"
ROSTER = """Student,ID,SIS User ID,SIS Login ID,Section
    Points Possible,,,,
"Ames, Ann",101,s1,aames,A
"Baker, Bob",102,s2,bbaker,A
"Cole, Cid",103,s3,ccole,B
"Dunn, Dee",104,s4,ddunn,B
"Eady, Eve",105,s5,eeady,B
"Student, Test",199,,,A
"""
COURSE = """
name = "Naive Bayes, term test"
roster = "roster.csv"
secret_file = "secret.txt"
missing = "zero"

[late]
per_day = 10
grace_minutes = 15

[chapters.90]
due = 2027-02-05T23:59:00+00:00
release = 2020-01-01T00:00:00+00:00

[chapters.91]
due = 2027-02-12T23:59:00+00:00
points = { "90.1" = 2 }
assignment = "Spam, again"
"""
WRONG_CHECK = "expected=(5 + 1) / (11 + 2),"  # the instructor's slip, fixed before regrading
RIGHT_CHECK = "expected=(5 + 1) / (11 + 3),"


def _run(*args, cwd):
    done = subprocess.run(
        [sys.executable, "-m", "nbcore.classroom", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _book(folder, check):
    """The instructor's chapters 90 and 91, chapter 91's check of 90.1 as ``check``."""
    folder.mkdir(exist_ok=True)
    shutil.copy(FIXTURE, folder / "90_spam.ipynb")
    text = FIXTURE.read_text(encoding="utf-8")
    assert RIGHT_CHECK in text
    (folder / "91_spam.ipynb").write_text(text.replace(RIGHT_CHECK, check), encoding="utf-8")


def _rows(path):
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.reader(file))


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    root = tmp_path_factory.mktemp("term")
    (root / "roster.csv").write_text(ROSTER)
    (root / "secret.txt").write_text(SECRET)
    (root / "course.toml").write_text(COURSE)
    _book(root / "book", RIGHT_CHECK)
    written = make_student_copies(
        [root / "book"],
        root / "copies",
        roster=root / "roster.csv",
        secret=SECRET.encode(),
        log=lambda m: None,
    )
    generic = make_student_copies([root / "book" / "90_spam.ipynb"], root / "plain", log=print)[0]
    copies = {(p.parent.name, p.stem[:2]): nbformat.read(p, as_version=4) for p in written}
    answers = solutions()
    # s1, s2, s3 answer everything; s4 leaves 90.2 out; s5 hands nothing in
    archive = {}
    login = ["amesann", "bakerbob", "colecid", "dunndee"]  # Canvas: the sortable name
    for number, student in enumerate(["s1", "s2", "s3", "s4"]):
        user = 101 + number
        for chapter in ("90", "91"):
            given = {k: v for k, v in answers.items() if not (student == "s4" and k == "90.2")}
            nb = with_answers(copies[(student, chapter)], given)
            name = f"{login[number]}_{user}_{5000 + number}_{chapter}_spam.ipynb"
            archive[f"{chapter}/{name}"] = nbformat.writes(nb)
    # s2 handed chapter 90 in twice; the second (higher submission id) is the one graded
    first = with_answers(copies[("s2", "90")], {})
    archive["90/bakerbob_102_4000_90_spam.ipynb"] = nbformat.writes(first)
    with zipfile.ZipFile(root / "submissions.zip", "w") as zf:
        for name, text in archive.items():
            zf.writestr(name, text)
        zf.writestr("../../escape.ipynb", nbformat.writes(first))
        link = zipfile.ZipInfo("90/link_1_1_90_spam.ipynb")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        # a copy made for nobody of the roster: refused, never a student of the LMS files
        nobody = with_answers(nbformat.read(generic, as_version=4), answers)
        zf.writestr("90/strangerx_999_7000_90_spam.ipynb", nbformat.writes(nobody))
    # when the LMS says each was handed in: s3 is 25 hours late with chapter 91
    (root / "submitted.csv").write_text(
        "student,chapter,submitted\n"
        + "".join(f"s{i},90,2027-02-05T20:00:00+00:00\n" for i in range(1, 5))
        + "".join(f"s{i},91,2027-02-12T22:00:00+00:00\n" for i in (1, 2, 4))
        + "s3,91,2027-02-14T00:30:00+00:00\n"
    )
    # the instructor grades with the slip in chapter 91's check of 90.1
    _book(root / "book", WRONG_CHECK)
    out = root / "grades"
    common = ["--course", root / "course.toml", "--solutions", root / "book"]
    graded = _run(
        "grade",
        root / "submissions.zip",
        *common,
        "--submitted",
        root / "submitted.csv",
        "--out",
        out,
        "--jobs",
        "2",
        cwd=root,
    )
    first_run = {p.name: p.read_text() for p in out.glob("*.csv")}
    # the check is fixed; the stored submissions are graded again
    _book(root / "book", RIGHT_CHECK)
    regraded = _run("regrade", out / "state", *common, "--jobs", "2", cwd=root)
    second_run = {p.name: p.read_text() for p in out.glob("*.csv")}
    # an override, with its reason, applied to every later export
    _run(
        "override",
        "s4",
        "90",
        "90.2",
        "1",
        "--reason",
        "answer in a markdown cell",
        "--file",
        out / "overrides.csv",
        cwd=root,
    )
    _run("regrade", out / "state", *common, "--jobs", "2", cwd=root)
    return root, out, graded, first_run, regraded, second_run


def test_the_zip_is_unpacked_safely(term):
    root, out, graded, *_ = term
    assert not (root / "escape.ipynb").exists() and not (root.parent / "escape.ipynb").exists()


def test_grading_applies_the_course_and_the_late_rule(term):
    root, out, graded, first_run, *_ = term
    book = list(csv.DictReader(first_run["gradebook_91_spam.csv"].splitlines()))
    totals = {row["student"]: float(row["total"]) for row in book}
    # 91 is worth 2 + 2 + ... points: 90.1 counts 2 there; the slip fails every 90.1
    out_of = {row["student"]: float(row["out_of"]) for row in book}
    assert len(set(out_of.values())) == 1
    full = out_of["s1"]
    assert totals["s1"] == totals["s2"] == full - 2  # the slip
    assert totals["s3"] == pytest.approx((full - 2) - 0.2 * full)  # 2 days late: -20 %
    note = next(r["note"] for r in book if r["student"] == "s3")
    assert "2 days late, '-20 %" in note  # the apostrophe: no piece of a cell is a formula


def test_the_regrade_reports_every_changed_score(term):
    *_, regraded, second_run = term
    changed = [line for line in regraded.splitlines() if line.startswith("changed:")]
    assert len(changed) == 4  # 90.1 of chapter 91, for s1..s4
    assert all("chapter 91_spam, exercise 90.1: 0 -> 2" in line for line in changed)
    assert "4 scores changed in" in regraded


def test_canvas_file(term):
    root, out, *_ = term
    rows = _rows(out / "canvas_91_spam.csv")
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Spam, again"]
    assert rows[1][0].strip() == "Points Possible"
    full = float(rows[1][5])
    students = {row[2]: row for row in rows[2:]}
    assert list(students) == ["s1", "s2", "s3", "s4", "s5"]  # no Test Student
    assert students["s1"][:5] == ["Ames, Ann", "101", "s1", "aames", "A"]
    assert float(students["s1"][5]) == full
    assert float(students["s3"][5]) == pytest.approx(0.8 * full)
    assert students["s5"][5] == "0"  # no submission: 0, as the course file says


def test_moodle_file_and_the_override(term):
    root, out, *_ = term
    rows = _rows(out / "moodle_90_spam.csv")
    assert rows[0] == ["ID number", "Email address", "90_spam"]
    points = {row[0]: row[2] for row in rows[1:]}
    assert list(points) == ["s1", "s2", "s3", "s4", "s5"]
    full = float(points["s1"])
    book = {r["student"]: r for r in csv.DictReader((out / "gradebook_90_spam.csv").open())}
    # s4 left 90.2 out (2 points); the override gives 1 of them back
    s4 = book["s4"]
    assert s4["exercise 90.2"] == "1.0"
    earned = [float(v) for k, v in s4.items() if k.startswith("exercise ")]
    assert float(s4["total"]) == sum(earned) and float(points["s4"]) == sum(earned)
    assert float(points["s4"]) < full
    assert points["s5"] == "0"
    assert float(points["s2"]) == full  # the later of s2's two submissions
    audit = _rows(out / "overrides.csv")
    assert audit[0] == ["student", "chapter", "exercise", "points", "reason", "who", "when"]
    assert audit[1][:5] == ["s4", "90", "90.2", "1", "answer in a markdown cell"]
    details = list(csv.DictReader((out / "gradebook_details.csv").open()))
    row = next(r for r in details if r["student"] == "s4" and r["exercise"] == "90.2")
    assert row["chapter"] == "90_spam" and row["earned"] == "1.0"
    assert "override: answer in a markdown cell (" in row["note"]


def test_refused_files_are_listed_and_never_become_students(term):
    root, out, *_ = term
    refused = _rows(out / "refused_files.csv")
    assert refused == [
        ["file", "reason"],
        ["submissions.zip: 90/link_1_1_90_spam.ipynb", "a symbolic link"],
    ]
    unmatched = _rows(out / "unmatched_90_spam.csv")
    assert unmatched[0] == ["submission", "student", "reason"]
    assert [row[0] for row in unmatched[1:]] == ["strangerx_999_7000_90_spam.ipynb"]
    assert "not a copy made for a student of the roster" in unmatched[1][2]
    for chapter in ("90_spam", "91_spam"):
        ids = [row[2] for row in _rows(out / f"canvas_{chapter}.csv")[2:]]
        assert ids == ["s1", "s2", "s3", "s4", "s5"]


def test_the_state_keeps_student_and_seed(term):
    root, out, *_ = term
    records = json.loads((out / "state" / "submissions.json").read_text())
    assert {r["student"] for r in records} == {"s1", "s2", "s3", "s4"}
    assert all(r["seed"] is not None for r in records)


# --- feedback pages and the class report -----------------------------------------------------


def test_every_student_who_handed_in_gets_a_feedback_page(term):
    root, out, *_ = term
    pages = {p.relative_to(out / "feedback").as_posix() for p in (out / "feedback").rglob("*.html")}
    for student in ("s1", "s2", "s3", "s4"):
        assert {f"{student}/90_spam.html", f"{student}/91_spam.html"} <= pages
    assert not any(page.startswith("s5/") for page in pages)  # handed nothing in


def test_feedback_pages_show_the_late_penalty_the_override_and_released_answers(term):
    root, out, *_ = term
    s3 = (out / "feedback" / "s3" / "91_spam.html").read_text()
    assert "2 days late, -20 %" in s3 and "&minus;" in s3
    s4 = (out / "feedback" / "s4" / "90_spam.html").read_text()
    assert "(set by your instructor)" in s4
    # chapter 90's solutions are released (the course file's date is past); 91's are not
    assert 'scope="col">Expected value' in s4
    s1 = (out / "feedback" / "s1" / "91_spam.html").read_text()
    assert 'scope="col">Expected value' not in s1 and "once the solutions" in s1
    # the student's own values are shown, as numbers
    values = re.findall(r'<td class="value">([^<]*)</td>', s1)
    assert values and all(re.fullmatch(r"[-0-9.e]+", v) for v in values[:1]), values


def test_the_class_report_lists_the_missing_student_and_the_late_one(term):
    root, out, *_ = term
    report = (out / "report_91_spam.html").read_text()
    assert "<li>s5</li>" in report
    assert "1 on the roster did not hand in" in report
    assert re.search(r'<th scope="row">s3</th><td class="number">2</td>', report)
    assert "4 students graded" in report
