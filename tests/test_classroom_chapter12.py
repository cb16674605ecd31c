"""Chapter 12 graded in the sandbox as it runs in the book (the SMS collection, EM and the
digits of scikit-learn): a copy made for one student, with her own numbers, filled with the
solutions, gets full marks with no note that a cell of the chapter failed."""

import csv
import os
import subprocess
import sys

import nbformat
from classroom_helpers import ROOT

from nbcore.classroom.markup import find_exercises
from nbcore.classroom.student import make_student_copies

CHAPTER = ROOT / "book" / "12_unlabelled.ipynb"
SECRET = "a throw-away course secret for this test"


def test_a_filled_chapter_12_copy_gets_full_marks_without_failed_cells(tmp_path):
    book = nbformat.read(CHAPTER, as_version=4)
    solutions = {
        e.id: "\n".join(
            book.cells[i].source for i in e.solution_cells if book.cells[i].cell_type == "code"
        )
        for e in find_exercises(book)
    }
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nada\n")
    (copy,) = make_student_copies(
        [CHAPTER], tmp_path / "copies", roster=roster, secret=SECRET.encode(), log=lambda m: None
    )
    nb = nbformat.read(copy, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("role") == "answer":
            cell.source = solutions[cell.metadata["exercise"]]
    returned = tmp_path / "returned"
    returned.mkdir()
    nbformat.write(nb, returned / "ada 12_unlabelled.ipynb")
    done = subprocess.run(
        [sys.executable, "-m", "nbcore.classroom", "grade", str(returned)]
        + ["--solutions", str(CHAPTER.parent)],
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ, NBCORE_COURSE_SECRET=SECRET),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with (returned / "gradebook_12_unlabelled.csv").open(encoding="utf-8") as file:
        (row,) = list(csv.DictReader(file))
    assert row["student"] == "ada"
    assert row["total"] == row["out_of"] and int(row["out_of"]) > 0, row["note"]
    assert "failed" not in row["note"] and "Error" not in row["note"], row["note"]
