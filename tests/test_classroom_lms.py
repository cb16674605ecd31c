"""LMS files and overrides, on results made by hand (no grading run)."""

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from classroom_helpers import FIXTURE

from nbcore.classroom.lms import write_lms_files
from nbcore.classroom.overrides import (
    OverrideError,
    add_override,
    apply_overrides,
    read_overrides,
)
from nbcore.classroom.results import FAILED, PASSED, ExerciseResult, SubmissionResult
from nbcore.classroom.roster import read_roster


def _result(student, statuses, name=None, verified=True, refused=""):
    results = [ExerciseResult(f"3.{i + 1}", 2, s) for i, s in enumerate(statuses)]
    path = Path(name or f"{student}.ipynb")
    return SubmissionResult(path, "03_mle", student, results, [], refused, verified)


def _rows(path):
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.reader(file))


@pytest.fixture
def moodle(tmp_path):
    path = tmp_path / "moodle.csv"
    path.write_text(
        "First name,Last name,ID number,Email address\n"
        "Ann,Ames,s1,a@example.org\nBob,Baker,s2,b@example.org\nCid,Cole,s3,c@example.org\n"
    )
    return read_roster(path)


def test_moodle_roster_to_both_files_blank_for_the_missing(tmp_path, moodle):
    results = [
        _result("s1", [PASSED, PASSED]),
        _result("s2", [PASSED, FAILED]),
        _result("zed", [PASSED, PASSED]),  # not on the roster
        _result("s3", [], name="s3_broken.ipynb", refused="not a readable notebook"),
    ]
    write_lms_files(results, moodle, tmp_path, missing="blank")
    assert _rows(tmp_path / "moodle_03_mle.csv") == [
        ["ID number", "Email address", "03_mle"],
        ["s1", "a@example.org", "4"],
        ["s2", "b@example.org", "2"],
        ["s3", "c@example.org", ""],  # refused: listed as missing, blank as asked
    ]
    canvas = _rows(tmp_path / "canvas_03_mle.csv")
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "03_mle"]
    assert canvas[1][0].strip() == "Points Possible" and canvas[1][5] == "4"
    assert [row[2] for row in canvas[2:]] == ["s1", "s2", "s3"]
    unmatched = _rows(tmp_path / "unmatched_03_mle.csv")
    assert [row[:2] for row in unmatched[1:]] == [["s3_broken.ipynb", "s3"], ["zed.ipynb", "zed"]]


def test_an_unverified_copy_never_stands_for_a_student_when_copies_are_sealed(tmp_path, moodle):
    results = [_result("s1", [PASSED, PASSED]), _result("s2", [PASSED, PASSED], verified=False)]
    write_lms_files(results, moodle, tmp_path)
    points = {row[0]: row[2] for row in _rows(tmp_path / "moodle_03_mle.csv")[1:]}
    assert points == {"s1": "4", "s2": "0", "s3": "0"}


def test_overrides_are_applied_and_audited(tmp_path):
    audit = tmp_path / "overrides.csv"
    add_override(audit, "s2", "03", "3.2", 1.5, "a rounding the check was too strict on", "kim")
    results = [_result("s2", [PASSED, FAILED])]
    apply_overrides(results, read_overrides(audit), audit)
    assert results[0].score == 3.5
    assert re.fullmatch(
        r"override: a rounding the check was too strict on \(kim, 20\d\d-.*\)",
        results[0].results[1].note,
    )


@pytest.mark.parametrize(
    "row, message",
    [
        ("s2,03,3.9,1,r,kim,now", "row 2: chapter 03_mle has no exercise 3.9"),
        ("s2,03,3.2,5,r,kim,now", "row 2: points must be between 0 and 2, got 5"),
        ("s2,03,3.2,one,r,kim,now", "row 2: points must be a number, got 'one'"),
        ("s2,03,3.2,1,,kim,now", "row 2: reason must be given"),
    ],
)
def test_bad_overrides_are_explained(tmp_path, row, message):
    audit = tmp_path / "overrides.csv"
    audit.write_text("student,chapter,exercise,points,reason,who,when\n" + row + "\n")
    with pytest.raises(OverrideError, match=re.escape(message)):
        apply_overrides([_result("s2", [PASSED, FAILED])], read_overrides(audit), audit)


def test_student_copies_only_of_the_courses_chapters(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    shutil.copy(FIXTURE, book / "90_spam.ipynb")
    shutil.copy(FIXTURE, book / "91_spam.ipynb")
    (tmp_path / "roster.csv").write_text("student\nann\n")
    (tmp_path / "secret.txt").write_text("s" * 32)
    (tmp_path / "course.toml").write_text(
        'name = "T"\nroster = "roster.csv"\nsecret_file = "secret.txt"\n[chapters.91]\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "nbcore.classroom", "student", str(book), "--out", "copies"]
        + ["--course", str(tmp_path / "course.toml")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    written = sorted(
        p.relative_to(tmp_path / "copies").as_posix()
        for p in tmp_path.rglob("*.ipynb")
        if "copies" in p.parts
    )
    assert written == ["ann/91_spam.ipynb"]


def test_a_regrade_on_other_seeds_stops(tmp_path):
    from nbcore.classroom import term
    from nbcore.classroom.results import GradingError

    graded = [_result("s1", [PASSED, FAILED])]
    graded[0].seed = 7
    state = tmp_path / "state"
    graded[0].path = tmp_path / "s1.ipynb"
    graded[0].path.write_text("{}")
    term.store(graded, state)
    records, paths = term.stored(state)
    assert paths[0].read_text() == "{}" and paths[0].name == "s1.ipynb"
    again = [_result("s1", [PASSED, PASSED])]
    again[0].seed = 7
    term.restore(again, records)
    assert term.regrade_changes(again, records) == [("s1", "03_mle", "3.2", 0, 2)]
    again[0].seed = 8  # another course secret
    with pytest.raises(GradingError, match="on seed 8, but it was graded as s1 on seed 7"):
        term.restore(again, records)


def test_a_canvas_download_of_a_practice_copy_is_matched_by_canvas_user_id(tmp_path):
    from nbcore.classroom import term

    roster_file = tmp_path / "canvas.csv"
    roster_file.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        '"Ames, Ann",101,s1,aames,A\n"Baker, Bob",102,s2,bbaker,A\n'
    )
    roster = read_roster(roster_file)
    name = "amesann_101_5000_03_mle.ipynb"
    result = _result(Path(name).stem, [PASSED, PASSED], name=name, verified=False)
    term.finish([result], term.Term(roster=roster), tmp_path)
    assert result.student == "s1"
    rows = _rows(tmp_path / "canvas_03_mle.csv")
    assert rows[2] == ["Ames, Ann", "101", "s1", "aames", "A", "4"]
    assert rows[3] == ["Baker, Bob", "102", "s2", "bbaker", "A", "0"]


def test_a_classmates_copy_handed_in_from_another_account_counts_for_neither(tmp_path):
    """The attack: s2 uploads the copy made for s1 (sealed, so verified as s1's), filled
    with wrong answers, after s1's own submission; by Canvas's submission ids it was the
    latest of s1's copies and replaced s1's grade. Now the Canvas user id in the download's
    name (s2's account) contradicts the copy's student: it goes to neither, with the reason."""
    from nbcore.classroom import term

    roster_file = tmp_path / "roster.csv"
    roster_file.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        "    Points Possible,,,,\n"
        '"Ames, Ann",101,s1,aames,A\n"Baker, Bob",102,s2,bbaker,A\n'
    )
    results = [
        _result("s1", [PASSED, PASSED], name="amesann_101_5001_03_mle.ipynb"),
        _result("s2", [PASSED, PASSED], name="bakerbob_102_5002_03_mle.ipynb"),
        _result("s1", [FAILED, FAILED], name="bakerbob_102_5002_03_mle-1.ipynb"),
    ]
    out = tmp_path / "out"
    term.finish(results, term.Term(roster=read_roster(roster_file)), out)
    canvas = {row[2]: row[5] for row in _rows(out / "canvas_03_mle.csv")[2:]}
    assert canvas == {"s1": "4", "s2": "4"}
    unmatched = _rows(out / "unmatched_03_mle.csv")
    assert [row[0] for row in unmatched[1:]] == ["bakerbob_102_5002_03_mle-1.ipynb"]
    assert "handed in from the account of s2" in unmatched[1][2]
    book = {row["student"]: row for row in csv.DictReader((out / "gradebook_03_mle.csv").open())}
    assert book["s1"]["total"] == "4"
    flagged = [row for key, row in book.items() if key not in ("s1", "s2")]
    assert len(flagged) == 1 and "counted for neither" in flagged[0]["note"]


@pytest.mark.parametrize(
    "names",
    [
        # Canvas download names with a plain roster (no Canvas user ids to match)
        (
            "amesann_101_5001_03_mle.ipynb",
            "bakerbob_102_5002_03_mle.ipynb",
            "bakerbob_102_5002_03_mle-1.ipynb",
        ),
        # Moodle's download folders: full name, participant id, assignsubmission
        (
            "Ann Ames_1001_assignsubmission_file_/03_mle.ipynb",
            "Bob Baker_1002_assignsubmission_file_/03_mle.ipynb",
            "Bob Baker_1002_assignsubmission_file_/03_mle (copy).ipynb",
        ),
    ],
)
def test_a_classmates_copy_from_an_account_that_hands_in_two_students_counts_for_nobody(
    tmp_path, names
):
    """The attack after the Canvas fix: with a plain or Moodle roster no user id names the
    account's owner. An account that handed in copies sealed for two students is suspect;
    its copy of a student who also handed in from their own account is set aside."""
    from nbcore.classroom import term

    roster_file = tmp_path / "roster.csv"
    roster_file.write_text("student\ns1\ns2\n")
    own, theirs, forged = names
    results = [
        _result("s1", [PASSED, PASSED], name=own),
        _result("s2", [PASSED, PASSED], name=theirs),
        _result("s1", [FAILED, FAILED], name=forged),
    ]
    for n, result in enumerate(results):
        result.order = (n,)  # the forged copy is the latest
    out = tmp_path / "out"
    term.finish(results, term.Term(roster=read_roster(roster_file)), out)
    canvas = {row[2]: row[5] for row in _rows(out / "canvas_03_mle.csv")[2:]}
    assert canvas == {"s1": "4", "s2": "4"}
    unmatched = _rows(out / "unmatched_03_mle.csv")
    assert [row[0] for row in unmatched[1:]] == [Path(forged).name]
    assert "other students' copies too" in unmatched[1][2]


def test_a_copy_handed_in_from_an_account_off_the_roster_counts_for_neither(tmp_path):
    """The attack after the first fix: the uploader (Canvas user 102) is not on the roster
    export, so no roster row names the account; the copy's own student has ID 101."""
    from nbcore.classroom import term

    roster_file = tmp_path / "roster.csv"
    roster_file.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        "    Points Possible,,,,\n"
        '"Ames, Ann",101,s1,aames,A\n"Cole, Cid",103,s3,ccole,A\n'
    )
    results = [
        _result("s1", [PASSED, PASSED], name="amesann_101_5001_03_mle.ipynb"),
        _result("s1", [FAILED, FAILED], name="stranger_102_5002_03_mle.ipynb"),
    ]
    out = tmp_path / "out"
    term.finish(results, term.Term(roster=read_roster(roster_file)), out)
    canvas = {row[2]: row[5] for row in _rows(out / "canvas_03_mle.csv")[2:]}
    assert canvas["s1"] == "4"
    unmatched = _rows(out / "unmatched_03_mle.csv")
    assert [row[0] for row in unmatched[1:]] == ["stranger_102_5002_03_mle.ipynb"]
    assert "Canvas user 102" in unmatched[1][2]


def test_only_a_classmates_copy_from_another_account_never_zeroes_its_owner(tmp_path):
    """The attack on the first rule: account 1002 hands in only s1's copy (wrong answers),
    s1 hands in their own from 1001. Nothing says which account is s1's: neither copy is set
    aside (that zeroed s1); the latest is graded and both say so, for the instructor."""
    from nbcore.classroom import term

    roster_file = tmp_path / "roster.csv"
    roster_file.write_text("student\ns1\ns2\n")
    results = [
        _result("s1", [PASSED, PASSED], name="Ann Ames_1001_assignsubmission_file_/03_mle.ipynb"),
        _result("s1", [FAILED, FAILED], name="Bob Baker_1002_assignsubmission_file_/03_mle.ipynb"),
    ]
    results[0].order, results[1].order = (0,), (1,)
    out = tmp_path / "out"
    term.finish(results, term.Term(roster=read_roster(roster_file)), out)
    book = {row["student"]: row for row in csv.DictReader((out / "gradebook_03_mle.csv").open())}
    assert "more than one account (1001, 1002)" in book["s1"]["note"]
    assert _rows(out / "unmatched_03_mle.csv")[1:] == []


@pytest.mark.parametrize(
    "folder, expected",
    [
        ("Ann Ames_1001_assignsubmission_file_", ("moodle", "1001")),
        # a display name that claims a classmate's id: the last suffix is Moodle's own
        ("Zed_1001_assignsubmission_file_1002_assignsubmission_file_", ("moodle", "1002")),
        ("ml_3_assignment_1", None),  # the instructor's folder, not an upload
    ],
)
def test_the_uploader_is_read_from_the_files_own_folder_only(folder, expected):
    from nbcore.classroom.term import uploader

    assert uploader(Path("ml_3_assignment_1_4_assignsubmission_file_") / folder / "x.ipynb") == (
        expected
    )


def test_identifiers_are_written_as_the_lms_gave_them_and_names_never_as_formulas(tmp_path):
    """An SIS login starting with + used to be written '+login, which Canvas's import cannot
    match to the student; a student's display name starting with = must still not become a
    formula in a spreadsheet."""
    roster_file = tmp_path / "canvas.csv"
    roster_file.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        "    Points Possible,,,,\n"
        '"=HYPERLINK(""http://x"")",101,s1,+s1login,-A\n"Baker, Bob",102,s2,bbaker,A\n'
    )
    write_lms_files([_result("s1", [PASSED, PASSED])], read_roster(roster_file), tmp_path)
    rows = _rows(tmp_path / "canvas_03_mle.csv")
    assert rows[2] == ['\'=HYPERLINK("http://x")', "101", "s1", "+s1login", "-A", "4"]
    moodle_file = tmp_path / "moodle.csv"
    moodle_file.write_text(
        "First name,Last name,ID number,Email address\n=Ann,Ames,s1,+ann@example.org\n"
    )
    (tmp_path / "m").mkdir()
    write_lms_files([_result("s1", [PASSED, PASSED])], read_roster(moodle_file), tmp_path / "m")
    # the email address a Moodle student can edit is kept from formulas; the ID number is not
    assert _rows(tmp_path / "m" / "moodle_03_mle.csv")[1] == ["s1", "'+ann@example.org", "4"]
