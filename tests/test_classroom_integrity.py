"""What keeps a grade the student's own: copying is flagged, and private chapters can be used.

One graded run of the fixture chapter: pasted solutions (as published, and with the names
changed), two students who share an answer of their own, and a student whose honest answers
are short. Then a private chapter, made here, goes through `student` and `grade` by its folder.
"""

import csv
import subprocess
import sys

import nbformat
import pytest
from classroom_helpers import FIXTURE, ROOT, grade_folder, read_details, solutions
from classroom_helpers import with_answers as fill

from nbcore.classroom.similarity import similarity, tokens
from nbcore.classroom.student import make_student_copies

ALL = ["90.1", "90.2", "90.3", "90.4", "90.5"]
RENAMED = {
    "90.1": "c = counts[1]\nanswer = (c[0] + 1) / (c.sum() + len(vocabulary))\n"
    "p_offer_spam = answer  # my own work",
    "90.2": "lp = np.log([3 / 5, 2 / 5])\n"
    "lt = np.log((counts + 1) / (counts + 1).sum(axis=1, keepdims=True))\n"
    "log_joint = lp + x_new[0] @ lt.T\n"
    "p = np.exp(log_joint - log_joint.max())\n"
    "posterior = p / p.sum()",
}
# an answer of their own (not the solution's way), shared by two students
SHARED = """
groups = {}
for length, name in zip(np.concatenate([lengths["ham"], lengths["spam"]]),
                        ["ham"] * len(lengths["ham"]) + ["spam"] * len(lengths["spam"])):
    groups.setdefault(name, []).append(length)
means = {name: sum(v) / len(v) for name, v in groups.items()}
variances = np.array([sum((x - means[n]) ** 2 for x in groups[n]) / len(groups[n])
                      for n in ["ham", "spam"]])
"""
SHORT = {
    "90.1": "p_offer_spam = 6 / 14",
    "90.3": 'label = "spam"',
    "90.4": "model = nbcore.MultinomialNB().fit(X, y)",
}


@pytest.fixture(scope="module")
def flagged(tmp_path_factory):
    work = tmp_path_factory.mktemp("copying")
    (copy,) = make_student_copies([FIXTURE], work / "copies", log=lambda message: None)
    student = nbformat.read(copy, as_version=4)
    solution = solutions()
    folder = work / "returned"
    folder.mkdir()
    submissions = {
        "bob02": solution,
        "carol": {**solution, **RENAMED},
        "erin": {"90.5": SHARED},
        "frank": {"90.5": SHARED.replace("groups", "by_class").replace("means", "centre")},
        "dave": SHORT,
    }
    for name, answers in submissions.items():
        nbformat.write(fill(student, answers), folder / f"{name}.ipynb")
    done = grade_folder(folder, "--jobs", 2, "--timeout", 20)
    assert done.returncode == 0, done.stderr[-3000:]
    results, _ = read_details(folder)
    with (folder / "gradebook_90_spam.csv").open() as file:
        book = {row["student"]: row for row in csv.DictReader(file)}
    return {"results": results, "book": book}


def _notes(flagged, name):
    return {e: row["note"] for e, row in flagged["results"][name].items() if row["note"]}


def test_pasted_solutions_are_flagged_and_keep_their_score(flagged):
    notes = _notes(flagged, "bob02")
    assert notes == {e: f"similar to the published solution of {e}" for e in ALL}
    assert flagged["book"]["bob02"]["total"] == flagged["book"]["bob02"]["out_of"]
    assert "similar to the published solution of 90.2" in flagged["book"]["bob02"]["note"]


def test_pasted_solutions_with_renamed_variables_are_flagged(flagged):
    notes = _notes(flagged, "carol")
    assert notes["90.1"] == "similar to the published solution of 90.1"
    assert notes["90.2"] == "similar to the published solution of 90.2"


def test_an_answer_shared_by_two_students_is_flagged_on_both(flagged):
    assert _notes(flagged, "erin") == {"90.5": "similar to frank's 90.5"}
    assert _notes(flagged, "frank") == {"90.5": "similar to erin's 90.5"}
    assert "similar to frank's 90.5" in flagged["book"]["erin"]["note"]


def test_short_independent_answers_are_not_flagged(flagged):
    assert _notes(flagged, "dave") == {}
    assert "similar" not in flagged["book"]["dave"]["note"]


def test_tokens_ignore_names_layout_and_comments():
    first = tokens(["p = (c[0] + 1) / (c.sum() + 3)"])
    second = tokens(["prob=(counts[ 0 ]+1)/(counts.sum()+3)  # Laplace"])
    assert first == second
    assert tokens(["x.sum()"]) != tokens(["x.mean()"])  # what is called still counts
    assert similarity(set(), set()) == 0.0


# --------------------------------------------------------------------------- private chapters

PRIVATE_DATA = """import numpy as np

from nbcore import exercises

counts = np.array([[4, 1], [1, 6]])"""
PRIVATE_SOLUTION = "share = (counts[1, 1] + 1) / (counts[1].sum() + 2)"
PRIVATE_CHECK = """exercises.check_number(
    "91.1",
    share,
    expected=(6 + 1) / (7 + 2),
    mistakes={"that is the share without smoothing": 6 / 7},
)"""


def _private_chapter(folder):
    """A chapter of an instructor's own, in the book's markup, in a folder of its own."""
    cells = [
        nbformat.v4.new_markdown_cell("# A private chapter\n\n## Exercises\n\n### Exercise 91.1"),
        nbformat.v4.new_code_cell(PRIVATE_DATA),
        nbformat.v4.new_markdown_cell("Smoothed share of the second word in class 1: `share`."),
        nbformat.v4.new_code_cell(
            PRIVATE_SOLUTION, metadata={"exercise": "91.1", "role": "solution"}
        ),
        nbformat.v4.new_code_cell(PRIVATE_CHECK, metadata={"exercise": "91.1", "role": "check"}),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    folder.mkdir()
    nbformat.write(nb, folder / "91_private.ipynb")
    return folder


def test_a_private_chapter_folder_gives_copies_and_is_graded_from_it(tmp_path):
    private = _private_chapter(tmp_path / "private")
    copies = tmp_path / "copies"
    command = [sys.executable, "-m", "nbcore.classroom"]
    done = subprocess.run(
        [*command, "student", str(private), "--out", str(copies)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    copy = nbformat.read(copies / "91_private.ipynb", as_version=4)
    assert PRIVATE_SOLUTION not in nbformat.writes(copy)
    returned = tmp_path / "returned"
    returned.mkdir()
    nbformat.write(fill(copy, {"91.1": PRIVATE_SOLUTION}), returned / "ann.ipynb")
    nbformat.write(fill(copy, {"91.1": "share = 6 / 7"}), returned / "ben.ipynb")
    done = subprocess.run(
        [*command, "grade", str(returned), "--solutions", str(private), "--jobs", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    results, refused = read_details(returned)
    assert refused == {}
    assert results["ann"]["91.1"]["status"] == "passed"
    assert results["ben"]["91.1"]["hint"] == "that is the share without smoothing"


def test_make_student_and_grade_take_a_chapters_folder():
    def run(*args):
        command = ["make", "-n", *args]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True).stdout

    assert "-m nbcore.classroom student 'private/'" in run("student", "CHAPTERS=private/")
    graded = run("grade", "NB=returned", "CHAPTERS=private/", "SECRET_FILE=course.txt")
    assert "--solutions 'private/'" in graded and "--secret-file 'course.txt'" in graded
