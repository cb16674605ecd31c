"""The student edition (``make book-student``, tools/student_book.py) is not the answer key.

Unit tests on each chapter's student-edition notebook, then one build of a partial edition
(HTML and PDF, from the stored outputs: chapter 01 released, chapter 06 not): every unreleased
chapter's solution source, check and solution output is absent from its HTML page and from the
PDF, and chapter 01's solutions are present in both.
"""

import html
import io
import re
import sys
from pathlib import Path

import nbformat
import pytest
from solution_text import CHAPTERS, comparable, notebook_text, solution_texts

from nbcore.classroom.markup import find_exercises

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import student_book  # noqa: E402 - tools/student_book.py

RELEASED = "01"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_an_unreleased_chapter_keeps_tasks_and_data_and_drops_solutions(path):
    nb = nbformat.read(path, as_version=4)
    exercises = find_exercises(nb)
    edition = student_book.student_notebook(nb)
    roles = [cell.metadata.get("role") for cell in edition.cells]
    assert "solution" not in roles and "check" not in roles
    assert roles.count("data") == sum(len(ex.data_cells) for ex in exercises)
    notes = [cell.source for cell in edition.cells if cell.metadata.get("role") == "graded_note"]
    assert len(notes) == len(exercises)
    for exercise, note in zip(exercises, notes, strict=True):
        assert f"Graded exercise {exercise.id}" in note and f"`{exercise.answer_name}`" in note
        assert f"({exercise.points} point" in note
    removed = {i for ex in exercises for i in ex.solution_cells + [ex.check_cell]}
    kept = [cell.cell_type for i, cell in enumerate(nb.cells) if i not in removed]
    assert [c.cell_type for c in edition.cells if c.metadata.get("role") != "graded_note"] == kept
    prose = " ".join(c.source for c in edition.cells if c.cell_type == "markdown")
    assert "Show solution" not in prose and student_book.EDITION_SENTENCE in prose
    text = notebook_text(edition)
    for line in solution_texts()[path.stem]:
        assert comparable(line) not in text, (path.stem, line)


def test_a_released_chapter_shows_its_solutions_unfolded():
    nb = nbformat.read(CHAPTERS[0], as_version=4)
    edition = student_book.student_notebook(nb, released=True)
    text = notebook_text(edition)
    lines = solution_texts()[CHAPTERS[0].stem]
    assert lines and all(comparable(line) in text for line in lines)
    solutions = [c for c in edition.cells if c.metadata.get("role") == "released_solution"]
    assert solutions and not any("hide-cell" in c.metadata.get("tags", []) for c in solutions)


def _exercise_chapter(after):
    """A small chapter with one exercise whose solution computes and glues a value."""
    code = nbformat.v4.new_code_cell
    cells = [
        nbformat.v4.new_markdown_cell(
            "### Exercise 1.1\n\nCompute the mean. Store it in `answer`."
        ),
        code("values = [1, 2, 3]"),
        code(
            "answer = sum(values) / len(values)\nglue('mean_answer', answer, display=False)",
            metadata={"exercise": "1.1", "role": "solution"},
        ),
        code(
            'exercises.check_number("1.1", answer, expected=2.0)',
            metadata={"exercise": "1.1", "role": "check"},
        ),
        after,
    ]
    return nbformat.v4.new_notebook(cells=cells)


@pytest.mark.parametrize(
    "after",
    [
        nbformat.v4.new_markdown_cell("The mean is {eval}`answer`."),
        nbformat.v4.new_markdown_cell("The mean is {eval}`f'{g.mean_answer:.2f}'`."),
        nbformat.v4.new_code_cell("print(answer * 2)"),
    ],
    ids=["quoted-name", "quoted-glue", "code"],
)
def test_a_chapter_that_quotes_a_solution_value_is_refused(after):
    with pytest.raises(student_book.StudentEditionError, match="only"):
        student_book.student_notebook(_exercise_chapter(after))


def test_a_value_the_chapter_also_computes_is_not_a_leak():
    after = nbformat.v4.new_markdown_cell("There are {eval}`len(values)` values.")
    edition = student_book.student_notebook(_exercise_chapter(after))
    assert edition.cells[-1].source == after.source


def test_released_lists_chapter_numbers():
    assert student_book.parse_released("01, 2,10") == {"01", "02", "10"}
    with pytest.raises(SystemExit, match="RELEASED"):
        student_book.parse_released("01,intro")
    with pytest.raises(SystemExit, match="--chapters must list chapter numbers"):
        student_book.main(["--chapters", "1,x"])


def test_a_course_file_releases_chapters_by_date(tmp_path):
    import datetime as dt

    (tmp_path / "course.toml").write_text(
        'name = "Term"\n[chapters.01]\nrelease = 2027-02-08T09:00:00+01:00\n'
        "[chapters.03]\nrelease = 2027-03-08T09:00:00+01:00\n"
    )
    after = dt.datetime(2027, 2, 9, tzinfo=dt.UTC)
    assert student_book.course_released(tmp_path / "course.toml", after) == {"01"}
    (tmp_path / "course.toml").write_text('name = "Term"\n[chapters.01]\nrelease = "soon"\n')
    with pytest.raises(SystemExit, match="line 3: chapters.01.release must be a date-time"):
        student_book.course_released(tmp_path / "course.toml")


def test_the_staged_sources_are_the_edition(tmp_path):
    student_book.stage(tmp_path / "src", {"01"})
    welcome = (tmp_path / "src" / "book" / "00_welcome.md").read_text(encoding="utf-8")
    assert "**Student edition.**" in welcome and "chapters released: 01" in welcome
    staged = sorted(p.name for p in (tmp_path / "src" / "book").glob("*.ipynb"))
    assert staged == [p.name for p in CHAPTERS]
    pages = sorted(p.name for p in (tmp_path / "src" / "book").glob("*.md"))
    # the chapters are the run's notebooks; these are the pages without one
    assert pages == ["00_notation.md", "00_welcome.md", "bibliography.md", "errata.md"]
    for path in CHAPTERS:
        nb = nbformat.read(tmp_path / "src" / "book" / path.name, as_version=4)
        roles = {cell.metadata.get("role") for cell in nb.cells}
        assert ("released_solution" in roles) == path.stem.startswith("01_")
        assert "solution" not in roles


# ------------------------------------------------------------------------ the built edition


# The built edition: chapter 01 released and chapter 06 (exercises, explorers, figures) not.
# Every chapter's edition notebook is tested above; the build renders them as the book's own
# build does, so two chapters show what it keeps and leaves out, in HTML and in print.
BUILT = {RELEASED, "06"}


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("student-book")
    student_book.build(out, released={RELEASED}, pdf=True, only=BUILT)
    return out


def _built_solution_texts():
    texts = {stem: lines for stem, lines in solution_texts().items() if stem[:2] in BUILT}
    assert sorted(stem[:2] for stem in texts) == sorted(BUILT)
    return texts


def test_a_partial_edition_has_only_its_chapters(edition):
    pages = sorted(p.stem for p in (edition / "html" / "book").glob("[0-9][0-9]_*.html"))
    assert [stem[:2] for stem in pages if not stem.startswith("00_")] == sorted(BUILT)
    toc = (edition / "src" / "_toc.yml").read_text(encoding="utf-8")
    assert "book/06_weather" in toc and "book/02_independence" not in toc
    assert "book/00_notation" in toc and "book/bibliography" in toc


def _page_text(edition, stem):
    page = (edition / "html" / "book" / f"{stem}.html").read_text(encoding="utf-8")
    article = page[page.find("<article") : page.rfind("</article>")]
    return comparable(html.unescape(re.sub(r"<[^>]+>", "", article)))


@pytest.mark.browser
def test_the_student_html_holds_no_unreleased_solution(edition):
    for stem, lines in _built_solution_texts().items():
        text = _page_text(edition, stem)
        found = [line for line in lines if comparable(line) in text]
        if stem.startswith(RELEASED + "_"):
            assert found == lines, f"{stem}: released solutions missing"
        else:
            assert not found, f"{stem}: solution text in the student edition: {found[:3]}"
            assert "gradedexercise" in text


@pytest.mark.browser
def test_the_student_pdf_holds_no_unreleased_solution(edition):
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO((edition / "book.pdf").read_bytes()))
    text = comparable(" ".join(page.extract_text() or "" for page in reader.pages))
    assert "studentedition" in text
    for stem, lines in _built_solution_texts().items():
        found = [line for line in lines if comparable(line) in text]
        if stem.startswith(RELEASED + "_"):
            # the released solutions print; check cells never do (the print style leaves them
            # out of every printed edition), so only part of the lines can be found
            assert found, f"{stem}: released solutions missing"
        else:
            assert not found, f"{stem}: solution text in the student PDF: {found[:3]}"
