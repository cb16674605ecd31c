"""The exercise markup: how chapters mark exercises, and the rules the tools enforce."""

import json
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

from nbcore import exercises
from nbcore.classroom.markup import ExerciseFormatError, find_exercises, solution_leaks

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "book" / "90_spam"

HEADER = """---
jupytext:
  formats: ipynb,md:myst
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
    jupytext_version: 1.19.6
kernelspec:
  display_name: Python 3 (ipykernel)
  language: python
  name: python3
---
"""


def _notebook(*cells):
    """A notebook from (kind, source, metadata) triples."""
    made = []
    for kind, source, metadata in cells:
        new = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        made.append(new(source, metadata=metadata))
    return nbformat.v4.new_notebook(cells=made)


SOLUTION = {"exercise": "1.1", "role": "solution"}
CHECK = {"exercise": "1.1", "role": "check"}
GOOD_CHECK = 'exercises.check_number("1.1", answer, expected=0.5)'


def test_fixture_exercises_are_read():
    nb = nbformat.read(FIXTURE.with_suffix(".ipynb"), as_version=4)
    found = find_exercises(nb)
    assert [(e.id, e.kind, e.points, e.answer_name) for e in found] == [
        ("90.1", "number", 1, "p_offer_spam"),
        ("90.2", "probabilities", 2, "posterior"),
        ("90.3", "label", 1, "label"),
        ("90.4", "attribute", 2, "model"),
        ("90.5", "array", 1, "variances"),
    ]
    assert found[3].attribute == "feature_log_prob_"
    assert solution_leaks(nb, found) == []


def test_fixture_pair_is_in_sync_and_its_checks_pass():
    md = jupytext.read(FIXTURE.with_suffix(".md"))
    nb = nbformat.read(FIXTURE.with_suffix(".ipynb"), as_version=4)
    assert [c.source for c in md.cells] == [c.source for c in nb.cells]
    assert [c.metadata for c in md.cells] == [
        {k: v for k, v in c.metadata.items() if k != "execution"} for c in nb.cells
    ]
    for exercise in find_exercises(nb):
        outputs = nb.cells[exercise.check_cell].outputs
        assert [o.get("text") for o in outputs] == [
            exercises.verdict_line(exercise.id, "correct", exercise.points) + "\n"
        ]


def test_markup_survives_the_myst_round_trip():
    """The metadata in {code-cell} options comes back unchanged, and the text too."""
    text = FIXTURE.with_suffix(".md").read_text()
    nb = jupytext.reads(text, fmt="md:myst")
    assert jupytext.writes(nb, fmt="md:myst") == text
    again = jupytext.reads(
        jupytext.writes(jupytext.reads(text, fmt="md:myst"), fmt="ipynb"), "ipynb"
    )
    solution = next(c for c in again.cells if c.metadata.get("role") == "solution")
    assert solution.metadata == {
        "exercise": "90.1",
        "mystnb": {"code_prompt_hide": "Hide solution", "code_prompt_show": "Show solution"},
        "role": "solution",
        "tags": ["hide-cell"],
    }
    check = next(c for c in again.cells if c.metadata.get("role") == "check")
    assert check.metadata == {"exercise": "90.1", "role": "check", "tags": ["hide-input"]}


def _docstring_example():
    """The complete exercise shown in CONTRIBUTING.md ("The exercise markup"), as MyST text."""
    doc = (Path(__file__).resolve().parent.parent / "CONTRIBUTING.md").read_text("utf-8")
    start = doc.index("````markdown\n### Exercise 6.1") + len("````markdown\n")
    end = doc.index("````", start)
    return doc[start:end].rstrip() + "\n"


def test_docstring_example_is_canonical_and_valid():
    example = _docstring_example()
    text = HEADER + "\n" + example
    nb = jupytext.reads(text, fmt="md:myst")
    assert jupytext.writes(nb, fmt="md:myst") == text
    found = find_exercises(nb)
    assert [(e.id, e.kind, e.points, e.answer_name) for e in found] == [
        ("6.1", "number", 2, "answer")
    ]


def test_unquoted_exercise_number_is_refused_with_advice():
    text = (
        HEADER + "\n```{code-cell} ipython3\n:exercise: 6.10\n:role: solution\n\nanswer = 1\n```\n"
    )
    nb = jupytext.reads(text, fmt="md:myst")
    with pytest.raises(ExerciseFormatError, match=r"quoted string .* got 6\.1 \(float\)"):
        find_exercises(nb)


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ([("code", GOOD_CHECK, CHECK)], "comes before any solution"),
        ([("code", "answer = 0.5", SOLUTION)], "has no check cell"),
        (
            [("code", "answer = 0.5", SOLUTION), ("code", GOOD_CHECK, CHECK)] * 1
            + [("code", GOOD_CHECK, CHECK)],
            "second check cell",
        ),
        (
            [
                ("code", "answer = 0.5", SOLUTION),
                ("code", "x = 1", {}),
                ("code", GOOD_CHECK, CHECK),
            ],
            "between the solution and the check",
        ),
        (
            [
                ("code", "answer = 0.5", SOLUTION),
                ("code", 'check_number("1.1", answer, expected=0.5)', CHECK),
            ],
            "through the module",
        ),
        (
            [
                ("code", "answer = 0.5", SOLUTION),
                ("code", 'exercises.check_number("1.1", answer[0], expected=0.5)', CHECK),
            ],
            "plain variable name",
        ),
        (
            [("code", "result = 0.5", SOLUTION), ("code", GOOD_CHECK, CHECK)],
            "no solution cell assigns",
        ),
        (
            [
                ("code", "answer = 0.5", SOLUTION),
                ("code", 'exercises.check_number("1.2", answer, expected=0.5)', CHECK),
            ],
            "checks exercise '1.2' but the cell is marked '1.1'",
        ),
        (
            [
                ("code", "answer = 0.5", SOLUTION),
                ("code", 'exercises.check_number("1.1", answer, expected=0.5, points=n)', CHECK),
            ],
            "points must be a literal",
        ),
        (
            [("code", "answer = 0.5", SOLUTION), ("code", "print(answer)", CHECK)],
            "exactly one call",
        ),
        (
            [("code", "answer = 0.5", {"exercise": "1.1", "role": "solutoin"})],
            "role must be one of",
        ),
        (
            [("markdown", "Solution in words", SOLUTION), ("code", GOOD_CHECK, CHECK)],
            "no solution code cell",
        ),
    ],
)
def test_broken_rules_are_refused_naming_the_problem(cells, message):
    with pytest.raises(ExerciseFormatError, match=re.escape(message)):
        find_exercises(_notebook(*cells))


def test_markdown_solutions_and_several_solution_cells():
    nb = _notebook(
        ("code", "import numpy as np", {}),
        ("code", "half = 1 / 2", SOLUTION),
        ("markdown", "Half of the days, by symmetry.", SOLUTION),
        ("code", "answer = half", SOLUTION),
        ("code", GOOD_CHECK, CHECK),
    )
    (exercise,) = find_exercises(nb)
    assert exercise.solution_cells == [1, 2, 3]
    assert GOOD_CHECK[47:50] == "0.5" and exercise.expected_span == (1, 47, 1, 50)


def test_cells_that_would_leak_a_solution_are_listed():
    nb = _notebook(
        ("code", "answer = 0.5\nhelper = 2", SOLUTION),
        ("code", GOOD_CHECK, CHECK),
        ("code", "print(answer)", {}),
        ("code", 'glue("p", helper)', {}),
        ("code", "helper = 3\nprint(helper)", {}),
        ("code", "print(helper)", {}),
    )
    assert solution_leaks(nb, find_exercises(nb)) == [
        "cell 2 uses answer, which only the solution of exercise 1.1 defines: "
        "its output would give the solution away",
        "cell 3 uses helper, which only the solution of exercise 1.1 defines: "
        "its output would give the solution away",
    ]


def test_every_book_chapter_follows_the_format():
    """Whatever exercises the book's chapters have, they parse and leak nothing."""
    chapters = sorted((ROOT / "book").glob("[0-9][0-9]_*.md"))
    assert chapters, "the book has chapters"
    for chapter in chapters:
        nb = jupytext.read(chapter, fmt="md:myst")
        found = find_exercises(nb)
        assert solution_leaks(nb, found) == [], chapter.name
        ipynb = chapter.with_suffix(".ipynb")
        if found and ipynb.exists():
            stored = nbformat.read(ipynb, as_version=4)
            for exercise in find_exercises(stored):
                text = "".join(o.get("text", "") for o in stored.cells[exercise.check_cell].outputs)
                assert (
                    text == exercises.verdict_line(exercise.id, "correct", exercise.points) + "\n"
                )


def test_student_metadata_is_plain_json():
    nb = nbformat.read(FIXTURE.with_suffix(".ipynb"), as_version=4)
    for cell in nb.cells:
        json.dumps(cell.metadata)
