"""Shared set-up of the classroom tests: the fixture chapter, its copies, filled submissions."""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat

from nbcore.classroom.markup import find_exercises

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "tests" / "fixtures" / "book"
FIXTURE = BOOK / "90_spam.ipynb"

# Student code that answers the grader's next requests in advance (from a thread, on every
# pipe it holds), then stops reading them: SIGINT ignored, the cell sleeps for an hour.
ANSWER_AHEAD = """
import os, signal, stat, threading, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
def answer_ahead():
    line = b'{"ok": true, "pad": "' + b"x" * 100_000 + b'"}\\n'
    for _ in range(2_000):
        for fd in range(3, 64):
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    os.write(fd, line)
            except OSError:
                pass
threading.Thread(target=answer_ahead, daemon=True).start()
time.sleep(3600)
"""


def solutions():
    """{exercise: the source of its solution cells} of the fixture chapter."""
    instructor = nbformat.read(FIXTURE, as_version=4)
    return {
        e.id: "\n".join(instructor.cells[i].source for i in e.solution_cells)
        for e in find_exercises(instructor)
    }


def with_answers(student, answers, extra=None):
    """A copy of the student notebook with answer cells filled in.

    ``answers``: {exercise: source}; ``extra``: {exercise: source of a cell the student adds
    below the answer cell}.
    """
    nb = nbformat.from_dict(json.loads(json.dumps(student)))
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        exercise = cell.metadata.get("exercise")
        if cell.metadata.get("role") == "answer" and exercise in answers:
            cell.source = answers[exercise]
            if extra and exercise in extra:
                cells.append(nbformat.v4.new_code_cell(extra[exercise]))
    nb.cells = cells
    return nb


def grade_folder(folder, *extra, env=None, timeout=900):
    """``python -m nbcore.classroom grade folder --solutions BOOK ...``; the finished process."""
    done = subprocess.run(
        [sys.executable, "-m", "nbcore.classroom", "grade", str(folder), "--solutions", str(BOOK)]
        + [str(x) for x in extra],
        cwd=folder.parent,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ, **(env or {})),
    )
    return done


def read_details(folder):
    """{submission stem: {exercise: row}} and {submission stem: refusal} of the details file."""
    import csv

    results, refused = {}, {}
    with (folder / "gradebook_details.csv").open() as file:
        for row in csv.DictReader(file):
            stem = Path(row["submission"]).stem
            if row["status"] == "refused":
                refused[stem] = row["hint"]
            else:
                results.setdefault(stem, {})[row["exercise"]] = row
    return results, refused
