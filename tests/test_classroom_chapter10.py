"""Chapter 10 graded in the sandbox as it runs in the book: its Dask cluster of worker
processes starts (multiprocessing needs a writable /dev/shm), and a filled copy gets full marks
with no note that a cell of the chapter failed.

A graded run leaves out the book cells nothing graded reads (nbcore.classroom.liveness), the
Dask cell among them; here one answer also reads a name the Dask cell binds, so that cell runs
in the sandbox as in the book."""

import csv
import os
import subprocess
import sys

import nbformat
from classroom_helpers import ROOT

from nbcore.classroom.markup import find_exercises
from nbcore.classroom.sandbox import sandbox_command
from nbcore.classroom.student import make_student_copies

CHAPTER = ROOT / "book" / "10_scale.ipynb"
SECRET = "a throw-away course secret for this test"


def test_a_filled_chapter_10_copy_gets_full_marks_without_failed_cells(tmp_path):
    book = nbformat.read(CHAPTER, as_version=4)
    solutions = {
        e.id: "\n".join(book.cells[i].source for i in e.solution_cells)
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
            if cell.metadata["exercise"] == "10.1":  # a name of the Dask cell: it must run
                cell.source += "\nassert dask_gaussian.theta_.shape[0] == len(class_names)"
    returned = tmp_path / "returned"
    returned.mkdir()
    nbformat.write(nb, returned / "ada 10_scale.ipynb")
    done = subprocess.run(
        [sys.executable, "-m", "nbcore.classroom", "grade", str(returned)]
        + ["--solutions", str(CHAPTER.parent)],
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ, NBCORE_COURSE_SECRET=SECRET),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with (returned / "gradebook_10_scale.csv").open(encoding="utf-8") as file:
        (row,) = list(csv.DictReader(file))
    assert row["student"] == "ada"
    assert row["total"] == row["out_of"] and int(row["out_of"]) > 0, row
    assert "failed" not in row["note"] and "Error" not in row["note"], row["note"]


def test_worker_processes_start_in_the_sandbox_and_dev_shm_is_its_own(tmp_path):
    """A multiprocessing lock (a file in /dev/shm) works; what one sandbox leaves in /dev/shm
    is gone in the next one."""
    script = (
        "import multiprocessing as mp, os\n"
        "lock = mp.Lock(); lock.acquire(); lock.release()\n"
        "print(sorted(os.listdir('/dev/shm')))\n"
        "open('/dev/shm/left-behind', 'w').write('x')\n"
    )
    runs = [
        subprocess.run(
            sandbox_command([sys.executable, "-c", script]),
            capture_output=True,
            text=True,
            timeout=120,
        )
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    assert "left-behind" not in runs[1].stdout
    assert not os.path.exists("/dev/shm/left-behind")
