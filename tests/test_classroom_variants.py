"""Per-student variants: a roster and a course secret give each student their own numbers."""

import json

import nbformat
import numpy as np
import pytest
from classroom_helpers import BOOK, FIXTURE, grade_folder, read_details, solutions, with_answers

from nbcore.classroom import grading
from nbcore.classroom.student import make_student_copies
from nbcore.classroom.variants import (
    VariantError,
    read_roster,
    read_secret,
    seal,
    student_seed,
)

SECRET = "course-secret-for-the-tests-0123456789"


def _seed_of(nb):
    cell = next(c for c in nb.cells if c.metadata.get("role") == "variant")
    return int(cell.source.rsplit("(", 1)[1].rstrip(")"))


def _lengths(seed):
    from nbcore import exercises

    rng = np.random.default_rng([seed, __import__("zlib").crc32(b"90.5")])
    del exercises
    return {
        "ham": rng.integers(5, 40, size=3).astype(float),
        "spam": rng.integers(30, 90, size=2).astype(float),
    }


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    work = tmp_path_factory.mktemp("variants")
    roster = work / "roster.csv"
    roster.write_text("student,name\nalice,Alice A.\nbob,Bob B.\n")
    written = make_student_copies(
        [FIXTURE], work / "copies", roster=roster, secret=SECRET.encode(), log=lambda m: None
    )
    copies = {path.parent.name: nbformat.read(path, as_version=4) for path in written}
    (plain,) = make_student_copies([FIXTURE], work / "plain", log=lambda m: None)
    solution = solutions()
    folder = work / "returned"
    folder.mkdir()
    nbformat.write(with_answers(copies["alice"], solution), folder / "alice.ipynb")
    alice = _lengths(_seed_of(copies["alice"]))
    variances = [float(np.var(alice["ham"])), float(np.var(alice["spam"]))]
    copied = with_answers(copies["bob"], {**solution, "90.5": f"variances = np.array({variances})"})
    nbformat.write(copied, folder / "bob_copied_alice.ipynb")
    literal = {**solution, "90.5": f"variances = np.array({variances})"}
    # from another upload (a Moodle submission folder): of one upload, only the latest copy of
    # a student runs, and this one must run too
    again = folder / "Alice A_7_assignsubmission_file_"
    again.mkdir()
    nbformat.write(with_answers(copies["alice"], literal), again / "alice_literal.ipynb")
    edited = with_answers(copies["alice"], literal)
    edited.metadata["nbcore"]["student"] = "bob"
    nbformat.write(edited, folder / "alice_edited_id.ipynb")
    for name, student in [("alice_upper", "ALICE"), ("alice_newline", "alice\n")]:
        other = with_answers(copies["alice"], solution)
        other.metadata["nbcore"]["student"] = student
        nbformat.write(other, folder / f"{name}.ipynb")
    practice = with_answers(nbformat.read(plain, as_version=4), solution)
    nbformat.write(practice, folder / "practice_90_spam.ipynb")
    done = grade_folder(folder, "--jobs", 2, env={"NBCORE_COURSE_SECRET": SECRET})
    assert done.returncode == 0, done.stderr[-3000:]
    results, refused = read_details(folder)
    return {
        "copies": copies,
        "written": written,
        "results": results,
        "refused": refused,
        "alice": alice,
        "folder": folder,
    }


def test_one_copy_per_student_with_its_own_numbers_and_no_secret(variants):
    copies = variants["copies"]
    assert sorted(copies) == ["alice", "bob"]
    seeds = {name: _seed_of(nb) for name, nb in copies.items()}
    assert seeds["alice"] == student_seed(SECRET.encode(), "alice") != seeds["bob"]
    for name, nb in copies.items():
        assert nb.metadata["nbcore"] == {
            "chapter": "90_spam",
            "copy": "student",
            "student": name,
            "seal": seal(SECRET.encode(), name, "90_spam"),
        }
        raw = json.dumps(nb)
        assert SECRET not in raw
        own = _lengths(seeds[name])
        for value in (np.var(own["ham"]), np.var(own["spam"])):
            assert repr(float(value)) not in raw and f"{value:.4f}" not in raw
    assert _lengths(seeds["alice"])["ham"].tolist() != _lengths(seeds["bob"])["ham"].tolist()


def test_each_student_is_graded_on_their_own_variant(variants):
    statuses = {
        name: {e: row["status"] for e, row in rows.items()}
        for name, rows in variants["results"].items()
    }
    assert set(statuses["alice"].values()) == {"passed"}
    assert set(statuses["alice_literal"].values()) == {"passed"}  # her own numbers, typed in
    assert statuses["bob_copied_alice"]["90.5"] == "failed"  # a classmate's numbers
    assert "not a copy made for a student of the roster" in variants["refused"]["practice_90_spam"]


def test_an_edited_student_id_is_flagged_not_graded_as_another_student(variants):
    refused = variants["refused"]
    for name, shown in [("alice_edited_id", "bob"), ("alice_upper", "ALICE")]:
        assert name not in variants["results"]
        assert refused[name].startswith(f"flagged: the copy says student {shown} and chapter")
        assert "do not match its seal" in refused[name]
    assert "'alice\\n' is not a valid id" in refused["alice_newline"]
    with (variants["folder"] / "gradebook_90_spam.csv").open() as file:
        rows = {row["student"]: row for row in __import__("csv").DictReader(file)}
    assert rows["alice_upper.ipynb"]["note"].startswith("refused: flagged:")
    assert rows["alice"]["total"] == rows["alice"]["out_of"]


def test_a_roster_copy_needs_the_secret_to_be_graded(variants, tmp_path, monkeypatch):
    monkeypatch.delenv("NBCORE_COURSE_SECRET", raising=False)
    path = tmp_path / "alice.ipynb"
    nbformat.write(variants["copies"]["alice"], path)
    with pytest.raises(grading.GradingError, match="grading them needs the course secret"):
        grading.grade([path], solutions=BOOK)


def test_a_wrong_secret_stops_grading_before_it_starts(variants, tmp_path):
    folder = tmp_path / "returned"
    folder.mkdir()
    for name in ("alice", "bob"):
        copy = with_answers(variants["copies"][name], solutions())
        nbformat.write(copy, folder / f"{name}.ipynb")
    wrong = tmp_path / "other-course.txt"
    wrong.write_text("another-course-secret-0123456789\n")
    done = grade_folder(folder, "--secret-file", wrong)
    assert done.returncode == 2
    assert "matches none of the 2 copies made for the students of a roster" in done.stderr
    assert not (folder / "gradebook_details.csv").exists()


def test_a_run_that_refuses_every_submission_exits_non_zero(variants, tmp_path):
    folder = tmp_path / "returned"
    folder.mkdir()
    nbformat.write(nbformat.v4.new_notebook(), folder / "90_spam_empty.ipynb")
    done = grade_folder(folder, env={"NBCORE_COURSE_SECRET": SECRET})
    assert done.returncode == 1
    assert "all 1 submissions were refused" in done.stderr
    assert "not a student copy" in (folder / "gradebook_details.csv").read_text()


def test_rosters_and_secrets_are_checked(tmp_path, monkeypatch):
    monkeypatch.delenv("NBCORE_COURSE_SECRET", raising=False)
    with pytest.raises(VariantError, match="need the course secret"):
        read_secret(required=True)
    short = tmp_path / "secret.txt"
    short.write_text("short")
    with pytest.raises(VariantError, match="at least 16"):
        read_secret(short)
    roster = tmp_path / "roster.csv"
    roster.write_text("alice\n../bob\n")
    with pytest.raises(VariantError, match="row 2: a student id is"):
        read_roster(roster)
    roster.write_text("id\nalice\nalice\n")
    with pytest.raises(VariantError, match="listed twice"):
        read_roster(roster)
    roster.write_text("alice\nbob@school.edu\n")
    assert read_roster(roster) == ["alice", "bob@school.edu"]
