"""The student edition of the book (``make book-student``): the book without its answer key.

The course book shows every exercise's solution ("Show solution") and its check cell, whose
``expected=`` is the answer. Published as it is, the book is the answer key of every graded
exercise. The student edition is the same book with, in every chapter that is not released,

* each graded exercise's solution cells (code and worked markdown) left out, with their
  outputs, and its check cell (the expected value and the known mistakes) left out too;
* in their place a note: the exercise is graded, where the answer goes in the student copy,
  the points, and that the solution appears once the chapter is released;
* the task (the markdown above the solution) and the data cell (``role: data``) kept.

A chapter in which a value only a solution computes would still show is refused: a later code
cell that uses a name only a solution defines (:func:`nbcore.classroom.markup.solution_leaks`),
or a quoted number (``{eval}`...```) of such a name or of a value glued in a solution.

Chapters listed in ``--released 01,02`` (``make book-student RELEASED=01,02``) keep their
solutions, shown unfolded and printed (a note says they are released), and their checks.

How: the chapters' executed ``.ipynb`` files (tools/execute.py) are rewritten into a staging
copy of the book's sources (``_build/student-book/src/``: ``_config.yml``, ``_toc.yml``, the
pages, ``book-assets``), and built from their stored outputs, nothing executed again, into

* ``_build/student-book/html/`` (``jupyter-book build``), and
* ``_build/student-book/book.pdf`` (the printed edition's own ``tools/build_pdf.py``, run on
  the staging copy).

The exercise markup is read by the classroom tools (:mod:`nbcore.classroom.markup`), the same
reading that makes the student copies.

With ``--course course.toml`` (``make book-student COURSE=course.toml``), the chapters released
are those whose ``release`` date in the course file has passed.

Usage: ``python tools/student_book.py [--released 01,02 | --course FILE] [--out DIR] [--no-pdf]
[--chapters 01,06]``.
"""

import argparse
import ast
import copy
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import yaml

from nbcore.book import expressions
from nbcore.classroom.markup import bound_names, find_exercises, loaded_names, solution_leaks

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "_build" / "student-book"
CHAPTER = re.compile(r"^(\d\d)_[A-Za-z0-9_-]+$")
_GLUED = re.compile(r"""\bglue\(\s*["']([A-Za-z_]\w*)["']""")
RELEASED_ROLE = "released_solution"


class StudentEditionError(ValueError):
    """A chapter would show a solution's value in the student edition."""


def parse_released(text, name="RELEASED"):
    """'01,2, 10' -> {'01', '02', '10'}: chapter numbers, two digits (``name``: the setting
    read, for the error message)."""
    released = set()
    for item in (text or "").replace(" ", "").split(","):
        if not item:
            continue
        if not item.isdigit() or len(item) > 2:
            raise SystemExit(f"{name} must list chapter numbers such as 01,02; got {item!r}")
        released.add(f"{int(item):02d}")
    return released


def course_released(path, now=None):
    """The chapters whose solutions the course file at ``path`` releases by ``now``."""
    from nbcore.classroom.course import CourseError, load_course

    try:
        return load_course(path).released(now)
    except CourseError as error:
        raise SystemExit(f"error: {error}") from None


def graded_note(exercise):
    points = f"{exercise.points} point" + ("s" if exercise.points != 1 else "")
    return (
        f"**Graded exercise {exercise.id}** ({points}). Work it out in your student copy of "
        f"this chapter: its answer cell stores your answer in `{exercise.answer_name}`, and the "
        "check cell under it tells you when something is missing or matches a known mistake. "
        "Whether the value is right is decided when your instructor grades the notebook you "
        "hand in. The solution appears here once the chapter is released."
    )


RELEASED_NOTE = "**Solution of Exercise {id}** (released)."

# Sentences of a chapter's exercise introduction that speak of what this edition leaves out.
BOOK_SENTENCES = re.compile(
    r"Show solution|prints\s+\*correct\*|student copy|make student", re.IGNORECASE
)
EDITION_SENTENCE = (
    "Work them in your student copy of this chapter; their solutions appear here once the "
    "chapter is released."
)


def edition_prose(source):
    """A markdown cell with the sentences about folded solutions and check cells replaced."""
    paragraphs = re.split(r"(\n\s*\n)", source)
    for index, paragraph in enumerate(paragraphs):
        if not BOOK_SENTENCES.search(paragraph):
            continue
        sentences = re.split(r"(?<=[.!?])\s+", paragraph.strip())
        kept = [sentence for sentence in sentences if not BOOK_SENTENCES.search(sentence)]
        paragraphs[index] = " ".join(" ".join([*kept, EDITION_SENTENCE]).split())
    return "".join(paragraphs)


def _solution_only_names(nb, exercises):
    """Names and glued values that only solution cells define (no other code cell binds them)."""
    solution_cells = {i for ex in exercises for i in ex.solution_cells}
    names, glued, elsewhere = set(), set(), set()
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if index in solution_cells:
            names |= bound_names(cell.source)
            glued |= set(_GLUED.findall(cell.source))
        else:
            elsewhere |= bound_names(cell.source)
    return names - elsewhere, glued


def quoted_solution_values(nb, exercises):
    """Messages for markdown cells that quote a value only a solution computes."""
    names, glued = _solution_only_names(nb, exercises)
    solution_cells = {i for ex in exercises for i in ex.solution_cells}
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or index in solution_cells:
            continue
        for expression in expressions(cell.source):
            try:
                tree = ast.parse(expression, mode="eval")
            except SyntaxError:
                continue
            used = loaded_names(expression) & names
            used |= {
                f"g.{node.attr}"
                for node in ast.walk(tree)
                if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "g"
                and node.attr in glued
            }
            problems += [
                f"markdown cell {index} quotes {name}, which only a solution computes"
                for name in sorted(used)
            ]
    return problems


def student_notebook(nb, released=False):
    """The chapter as the student edition shows it (a new notebook; ``nb`` is not changed)."""
    nb = copy.deepcopy(nb)
    exercises = find_exercises(nb)
    if released:
        for exercise in exercises:
            for index in exercise.solution_cells:
                cell = nb.cells[index]
                cell.metadata["role"] = RELEASED_ROLE  # not folded, and printed
                tags = [t for t in cell.metadata.get("tags", []) if t != "hide-cell"]
                cell.metadata["tags"] = tags
                cell.metadata.get("mystnb", {}).pop("code_prompt_show", None)
            first = min(exercise.solution_cells)
            nb.cells[first].metadata["student_edition_note"] = RELEASED_NOTE.format(id=exercise.id)
        notes = [
            (i, c.metadata.pop("student_edition_note"))
            for i, c in enumerate(nb.cells)
            if "student_edition_note" in c.metadata
        ]
        for index, text in reversed(notes):
            nb.cells.insert(index, nbformat.v4.new_markdown_cell(text))
        return _fresh_ids(nb)
    problems = solution_leaks(nb, exercises) + quoted_solution_values(nb, exercises)
    if problems:
        raise StudentEditionError("; ".join(problems))
    removed = {i for ex in exercises for i in ex.solution_cells + [ex.check_cell]}
    notes = {min(ex.solution_cells): ex for ex in exercises}
    cells = []
    for index, cell in enumerate(nb.cells):
        if index in notes:
            note = nbformat.v4.new_markdown_cell(graded_note(notes[index]))
            note.metadata.update(exercise=notes[index].id, role="graded_note")
            cells.append(note)
        if index not in removed:
            cells.append(cell)
    for cell in cells:
        if cell.cell_type == "markdown" and cell.metadata.get("role") != "graded_note":
            cell.source = edition_prose(cell.source)
    nb.cells = cells
    return _fresh_ids(nb)


def _fresh_ids(nb):
    for index, cell in enumerate(nb.cells):
        cell["id"] = cell.get("id") or f"student-{index}"
    seen = set()
    for index, cell in enumerate(nb.cells):
        if cell["id"] in seen:
            cell["id"] = f"student-{index}"
        seen.add(cell["id"])
    return nb


def edition_notice(markdown, released):
    """The welcome page with a note, under its title, saying what this edition leaves out."""
    shown = ", ".join(sorted(released)) or "none yet"
    note = (
        "```{note}\n**Student edition.** The solutions and checks of the graded exercises are "
        "left out of this edition until their chapter is released (chapters released: "
        f"{shown}). Each exercise says where your answer goes and how it is graded.\n```\n"
    )
    lines = markdown.splitlines(keepends=True)
    title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
    if title is None:
        return note + "\n" + markdown
    return "".join(lines[: title + 1]) + "\n" + note + "".join(lines[title + 1 :])


def chapters():
    """The executed chapter notebooks of book/ (NN_slug.ipynb)."""
    return sorted(p for p in (ROOT / "book").glob("*.ipynb") if CHAPTER.match(p.stem))


def stage(src, released, only=None):
    """Write the student edition's sources into ``src`` (emptied first). ``only``: a set of
    chapter numbers to include (the others are left out of the edition and its contents)."""
    if src.exists():
        shutil.rmtree(src)
    (src / "book").mkdir(parents=True)
    (src / "tools").mkdir()
    notebooks = chapters()
    if only is not None:
        notebooks = [p for p in notebooks if CHAPTER.match(p.stem).group(1) in only]
    paired = {p.with_suffix(".md").name for p in notebooks}
    for page in sorted((ROOT / "book").iterdir()):
        if page.suffix == ".md" and page.name not in paired:
            shutil.copy2(page, src / "book" / page.name)
    root = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))["root"]
    welcome = src / (root + ".md")
    welcome.write_text(
        edition_notice(welcome.read_text(encoding="utf-8"), released), encoding="utf-8"
    )
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        number = CHAPTER.match(path.stem).group(1)
        try:
            edition = student_notebook(nb, released=number in released)
        except (StudentEditionError, ValueError) as error:
            raise SystemExit(f"{path.relative_to(ROOT)}: {error}") from None
        nbformat.write(edition, src / "book" / path.name)
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["title"] = f"{config['title']} (student edition)"
    config["exclude_patterns"] = [p for p in config["exclude_patterns"] if not p.endswith("ipynb")]
    config["execute"]["execute_notebooks"] = "off"  # built from the stored run
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    if only is not None:
        # a partial edition: the chapters left out leave the contents, and references to
        # them are left unresolved without a warning (the whole book's build checks them)
        left_out = {f"book/{p.stem}" for p in chapters()} - {f"book/{p.stem}" for p in notebooks}
        for part in toc["parts"]:
            part["chapters"] = [c for c in part["chapters"] if c["file"] not in left_out]
        config["sphinx"]["config"]["suppress_warnings"] = [
            "ref.ref",
            "ref.doc",
            "myst.xref_missing",
        ]
    (src / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (src / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False), encoding="utf-8")
    # the theme's files, and nbcore's source, which chapters quote with literalinclude
    for folder in ("book-assets", "nbcore"):
        os.symlink(ROOT / folder, src / folder, target_is_directory=True)
    shutil.copy2(ROOT / "tools" / "build_pdf.py", src / "tools" / "build_pdf.py")
    # the edition and licence files the footer, the welcome page and the title page name
    for name in ("CITATION.cff", "LICENSE", "LICENSE-CC-BY-4.0.txt", "CHANGELOG.md"):
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, src / name)


def build(out=OUT, released=(), pdf=True, only=None):
    out = Path(out).resolve()
    src = out / "src"
    stage(src, set(released), only)
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    subprocess.run(
        [str(jupyter_book), "build", "-W", "-n", "--keep-going", "--all", str(src)],
        check=True,
        env=env,
    )
    html = out / "html"
    if html.exists():
        shutil.rmtree(html)
    shutil.move(src / "_build" / "html", html)
    print(f"wrote {html.relative_to(ROOT) if html.is_relative_to(ROOT) else html}")
    if pdf:
        subprocess.run([sys.executable, str(src / "tools" / "build_pdf.py")], check=True, env=env)
        shutil.move(src / "_build" / "pdf" / "book.pdf", out / "book.pdf")
        print(f"wrote {out / 'book.pdf'}")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--released",
        default=os.environ.get("RELEASED", ""),
        help="chapters whose solutions are shown, e.g. 01,02 (default: $RELEASED, none)",
    )
    parser.add_argument(
        "--course", type=Path, help="course file: chapters released by their release dates"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="output folder")
    parser.add_argument("--no-pdf", action="store_true", help="build the HTML only")
    parser.add_argument(
        "--chapters", default="", help="only these chapters, e.g. 01,06 (default: every chapter)"
    )
    args = parser.parse_args(argv)
    released = parse_released(args.released)
    if args.course is not None:
        released = course_released(args.course)
    only = parse_released(args.chapters, "--chapters") if args.chapters else None
    build(args.out, released, pdf=not args.no_pdf, only=only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
