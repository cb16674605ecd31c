"""What of a chapter only its solutions give away: their source lines and their outputs.

Shared by the tests of the student edition (tests/test_student_book.py) and of the wheel
(tests/test_wheel.py). A line counts when it is long enough to be telling and appears nowhere
else in the book (not in a task, a data cell or another chapter's code), so that finding it
means a solution leaked.
"""

import re
import unicodedata
from pathlib import Path

import nbformat

from nbcore.classroom.markup import find_exercises

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted(p for p in (ROOT / "book").glob("*.ipynb") if re.match(r"\d\d_", p.stem))
MIN_LENGTH = 16


def comparable(text):
    """Text compared across source, HTML and PDF: NFKC, no whitespace, lower case."""
    return "".join(unicodedata.normalize("NFKC", text).split()).lower()


def _output_text(cell):
    texts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            texts.append(output.get("text", ""))
        elif "data" in output:
            texts.append(output["data"].get("text/plain", ""))
    return "".join(texts)


def _lines(text):
    return [line.strip() for line in text.splitlines()]


def _telling(line):
    """Long enough, not a comment, and more than a name (an answer's name is public)."""
    return (
        len(comparable(line)) >= MIN_LENGTH
        and not line.startswith("#")
        and not re.fullmatch(r"[\w.]+,?", line)
    )


def notebook_text(nb):
    """Every cell's source and text outputs, comparable."""
    return "\x00".join(
        comparable(cell.source + "\n" + (_output_text(cell) if cell.cell_type == "code" else ""))
        for cell in nb.cells
    )


def solution_texts():
    """{chapter stem: [telling solution source lines and output lines]}, in notebook order."""
    public, secret = set(), {}
    for path in CHAPTERS:
        nb = nbformat.read(path, as_version=4)
        exercises = find_exercises(nb)
        hidden = {i for ex in exercises for i in ex.solution_cells + [ex.check_cell]}
        found = []
        for index, cell in enumerate(nb.cells):
            lines = _lines(cell.source) + (
                _lines(_output_text(cell)) if cell.cell_type == "code" else []
            )
            if index in hidden:
                found += [line for line in lines if _telling(line)]
            else:
                public |= {comparable(line) for line in lines}
        secret[path.stem] = found
    public_text = "\x00".join(public)
    counts = {}
    for lines in secret.values():
        for line in set(map(comparable, lines)):
            counts[line] = counts.get(line, 0) + 1
    return {
        stem: list(
            dict.fromkeys(
                line
                for line in lines
                if comparable(line) not in public_text and counts[comparable(line)] == 1
            )
        )
        for stem, lines in secret.items()
    }
