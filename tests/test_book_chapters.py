"""Every chapter has the shape the book promises: a figure, and graded exercises numbered
after the chapter, each under its own heading."""

import re
from pathlib import Path

import jupytext
import pytest

from nbcore.classroom.markup import find_exercises

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTERS = sorted(p for p in BOOK.glob("[0-9][0-9]_*.md") if int(p.name[:2]) >= 1)


def test_there_are_twelve_chapters():
    assert [int(p.name[:2]) for p in CHAPTERS] == list(range(1, 13))


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_chapter_ends_with_three_or_more_numbered_exercises(chapter):
    number = int(chapter.name[:2])
    text = chapter.read_text(encoding="utf-8")
    exercises = find_exercises(jupytext.read(chapter))
    ids = [exercise.id for exercise in exercises]
    assert len(ids) >= 3, f"{chapter.name} has {len(ids)} graded exercises, fewer than three"
    assert ids == [f"{number}.{k}" for k in range(1, len(ids) + 1)], ids
    headings = re.findall(r"^### Exercise (\d+\.\d+)", text, re.M)
    assert headings == ids, "each exercise has its heading '### Exercise N.k', in order"
    exercises_section = text.index("\n## Exercises")
    assert all(text.index(f"### Exercise {i}") > exercises_section for i in ids)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_chapter_opens_with_what_you_will_learn_and_has_a_figure(chapter):
    text = chapter.read_text(encoding="utf-8")
    assert "What you will learn" in text[:4000], "the chapter opens with what you will learn"
    assert re.search(r"^\s*figure:\s*$", text, re.M), "the chapter has a captioned figure"
