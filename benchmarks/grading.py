"""Time to grade a class: N filled student copies of one chapter, graded in the sandbox.

Makes per-student copies of a chapter for a roster of N students (a throw-away course
secret), fills every answer cell with the book's solution, grades the folder with
``python -m nbcore.classroom grade --jobs J`` and reports the wall-clock time, the time per
copy and the time that 200 copies would take at that rate.

Usage: ``python benchmarks/grading.py [--copies 50] [--jobs 2] [--chapter book/08_numerics.ipynb]``;
``--chapter all`` grades every chapter with exercises and names the slowest.
"""

import argparse
import csv
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


TARGET_MINUTES = 10  # 200 copies of any one chapter, on a 2-core machine


def grade_copies(chapter, copies, jobs):
    """Make, fill and grade ``copies`` copies of ``chapter``; a dict of what was measured."""
    book = nbformat.read(chapter, as_version=4)
    # the code of each solution (a solution may also have a text cell, which a student's copy
    # asks for in the code cell's comments)
    solutions = {
        e.id: "\n".join(
            book.cells[i].source for i in e.solution_cells if book.cells[i].cell_type == "code"
        )
        for e in find_exercises(book)
    }
    secret = secrets.token_hex(32)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        roster = work / "roster.csv"
        roster.write_text("student\n" + "".join(f"s{n:03d}\n" for n in range(copies)))
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
        command += ["--solutions", str(chapter.parent), "--jobs", str(jobs)]
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
            return None
        with (returned / f"gradebook_{chapter.stem}.csv").open(encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
        full = sum(row["total"] == row["out_of"] for row in rows)
        notes = sum(bool(row["note"]) for row in rows)
    per_copy = seconds / copies
    return {
        "chapter": chapter.stem,
        "making": making,
        "grading": seconds,
        "per_copy": per_copy,
        "minutes_200": 200 * per_copy / 60,
        "full": full,
        "notes": notes,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--chapter",
        action="append",
        help="a chapter notebook (repeatable), or 'all' for every graded chapter of book/ "
        "(default: book/08_numerics.ipynb)",
    )
    args = parser.parse_args(argv)
    chosen = args.chapter or [str(ROOT / "book" / "08_numerics.ipynb")]
    if chosen == ["all"]:
        chapters = [
            path
            for path in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
            if find_exercises(nbformat.read(path, as_version=4))
        ]
    else:
        chapters = [Path(c) for c in chosen]
    print(
        f"grading {args.copies} filled copies of each chapter, --jobs {args.jobs}; load average "
        + ", ".join(f"{v:.2f}" for v in os.getloadavg())
    )
    columns = ["chapter", "copies", "making copies s", "grading s", "s per copy"]
    print("| " + " | ".join(columns + ["200 copies min", "full marks"]) + " |")
    print("|---|---|---|---|---|---|---|")
    measured, failed = [], False
    for chapter in chapters:
        m = grade_copies(chapter, args.copies, args.jobs)
        if m is None:
            print(f"| {chapter.stem} | {args.copies} | grading failed | | | | |")
            failed = True
            continue
        measured.append(m)
        failed |= m["full"] != args.copies
        print(
            f"| {m['chapter']} | {args.copies} | {m['making']:.1f} | {m['grading']:.1f} | "
            f"{m['per_copy']:.2f} | {m['minutes_200']:.1f} | {m['full']} of {args.copies} |",
            flush=True,
        )
    if measured:
        slowest = max(measured, key=lambda m: m["per_copy"])
        ok = slowest["minutes_200"] <= TARGET_MINUTES
        print(
            f"{'PASS' if ok else 'MISS'}  slowest chapter {slowest['chapter']}: 200 copies in "
            f"{slowest['minutes_200']:.1f} min (target <= {TARGET_MINUTES} min on 2 cores)"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
