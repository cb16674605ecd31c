"""Time to grade a class: N filled student copies of one chapter, graded in the sandbox.

Makes per-student copies of a chapter for a roster of N students (a throw-away course
secret), fills every answer cell with the book's solution, grades the folder with
``python -m nbcore.classroom grade --jobs J`` and reports the wall-clock time, the time per
copy and the time that 200 copies would take at that rate.

Usage: ``python benchmarks/grading.py [--copies 50] [--jobs 2] [--chapter book/08_numerics.ipynb]``
"""

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from nbcore.classroom.markup import find_exercises
from nbcore.classroom.student import make_student_copies

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--chapter", default=str(ROOT / "book" / "08_numerics.ipynb"))
    args = parser.parse_args(argv)
    chapter = Path(args.chapter)
    book = nbformat.read(chapter, as_version=4)
    solutions = {
        e.id: "\n".join(book.cells[i].source for i in e.solution_cells)
        for e in find_exercises(book)
    }
    secret = secrets.token_hex(32)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        roster = work / "roster.csv"
        roster.write_text("student\n" + "".join(f"s{n:03d}\n" for n in range(args.copies)))
        started = time.perf_counter()
        written = make_student_copies(
            [chapter], work / "copies", roster=roster, secret=secret.encode(), log=lambda m: None
        )
        making = time.perf_counter() - started
        returned = work / "returned"
        returned.mkdir()
        for path in written:
            nb = nbformat.read(path, as_version=4)
            for cell in nb.cells:
                if cell.metadata.get("role") == "answer":
                    cell.source = solutions[cell.metadata["exercise"]]
            nbformat.write(nb, returned / f"{path.parent.name} {chapter.stem}.ipynb")
        command = [sys.executable, "-m", "nbcore.classroom", "grade", str(returned)]
        command += ["--solutions", str(chapter.parent), "--jobs", str(args.jobs)]
        started = time.perf_counter()
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=dict(os.environ, NBCORE_COURSE_SECRET=secret),
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            return 1
        gradebook = (returned / f"gradebook_{chapter.stem}.csv").read_text().splitlines()
        full = sum(1 for row in gradebook[1:] if row.split(",")[-3] == row.split(",")[-2])
    print(f"grading {args.copies} filled copies of {chapter.stem}, --jobs {args.jobs}")
    print("| copies | jobs | making copies s | grading s | s per copy | 200 copies min |")
    print("|---|---|---|---|---|---|")
    per_copy = seconds / args.copies
    print(
        f"| {args.copies} | {args.jobs} | {making:.1f} | {seconds:.1f} | {per_copy:.2f} | "
        f"{200 * per_copy / 60:.1f} |"
    )
    print(f"full marks: {full} of {args.copies}")
    return 0 if full == args.copies else 1


if __name__ == "__main__":
    sys.exit(main())
