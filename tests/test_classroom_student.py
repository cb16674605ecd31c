"""Student copies: nothing of a solution survives; the checks and their verdicts do."""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from nbcore import exercises
from nbcore.classroom import student as copies_module
from nbcore.classroom.markup import ExerciseFormatError, find_exercises
from nbcore.classroom.student import (
    chapter_sources,
    make_student_copies,
    placeholder_source,
    read_chapter,
    student_copy,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "book" / "90_spam.ipynb"


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """The fixture chapter's student copy, made by the command line (one kernel run)."""
    out = tmp_path_factory.mktemp("student")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nbcore.classroom",
            "student",
            str(FIXTURE.parent),
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {out / '90_spam.ipynb'} (5 exercises)"
    instructor = nbformat.read(FIXTURE, as_version=4)
    return {
        "instructor": instructor,
        "exercises": find_exercises(instructor),
        "path": out / "90_spam.ipynb",
        "student": nbformat.read(out / "90_spam.ipynb", as_version=4),
    }


def _texts(cell):
    """Source and every text output of a cell."""
    texts = [cell.source]
    for output in cell.get("outputs", []):
        texts.append(output.get("text", ""))
        for value in output.get("data", {}).values():
            texts.append(value if isinstance(value, str) else json.dumps(value))
    return texts


def _surviving_solution_text(instructor, found, raw):
    """(solution lines found in the student file ``raw``, number of lines looked for).

    Every line of every solution cell, source and outputs, is looked for in the whole JSON
    text, as written and JSON-escaped; lines that the chapter shows outside its solutions
    anyway, and lines of punctuation only, are not looked for.
    """
    solution_cells = {i for exercise in found for i in exercise.solution_cells}
    kept = "\n".join(
        text
        for i, cell in enumerate(instructor.cells)
        if i not in solution_cells
        for text in _texts(cell)
    )
    survivors, checked = [], 0
    for index in sorted(solution_cells):
        cell = instructor.cells[index]
        if cell.id in raw:
            survivors.append(f"cell id {cell.id}")
        for text in _texts(cell):
            for line in text.splitlines():
                line = line.strip()
                if not re.search(r"\w", line) or line in kept:
                    continue
                checked += 1
                if line in raw or json.dumps(line)[1:-1] in raw:
                    survivors.append(line)
    return survivors, checked


def test_no_line_of_any_solution_survives(copies):
    raw = copies["path"].read_text(encoding="utf-8")
    survivors, checked = _surviving_solution_text(copies["instructor"], copies["exercises"], raw)
    assert survivors == []
    assert checked >= 10  # the fixture's solutions are distinctive


def test_no_solution_survives_in_any_book_chapter():
    """Every chapter of the book, as its student copy is written (self-check arguments
    stubbed: the fixture's tests build them with a kernel)."""
    chapters = chapter_sources([ROOT / "book"])
    assert chapters
    for source in chapters:
        instructor = read_chapter(source)
        found = find_exercises(instructor)
        copy = student_copy(instructor, found, {e.id: {"kind": e.kind} for e in found}, source.stem)
        raw = json.dumps(copy, ensure_ascii=False, indent=1) + json.dumps(copy)
        survivors, _ = _surviving_solution_text(instructor, found, raw)
        assert survivors == [], source.name
        placeholders = [c for c in copy.cells if c.metadata.get("role") == "answer"]
        assert len(placeholders) == len(found)


def test_no_expected_value_is_in_the_copy(copies):
    instructor, found = copies["instructor"], copies["exercises"]
    raw = copies["path"].read_text(encoding="utf-8")
    student_checks = {
        c.metadata["exercise"]: c
        for c in copies["student"].cells
        if c.metadata.get("role") == "check"
    }
    for exercise in found:
        source = instructor.cells[exercise.check_cell].source
        node = ast.parse(source)
        call = next(n for n in ast.walk(node) if isinstance(n, ast.Call) and n.args)
        expected = next(k.value for k in call.keywords if k.arg == "expected")
        assert ast.unparse(expected) not in raw
        assert ast.get_source_segment(source, expected) not in raw
        assert "exercises.self_check(" in student_checks[exercise.id].source
        assert "expected" not in student_checks[exercise.id].source
    for value in (6 / 14, 0.42857, 5 / 11, 0.4545):  # the answer of 90.1 and a mistake's
        assert repr(value) not in raw and f"{value:.4f}" not in raw
    assert "sealed" not in raw and not hasattr(exercises, "sealed")
    for mark in re.findall(r"'([0-9a-f]{32})'", raw):  # fingerprints are salted hashes only
        assert len(mark) == 32


def test_self_checks_of_a_copy_never_say_correct(copies, tmp_path):
    """Run the copy as a student would: blank, finished, wrong, and with an answer that raises."""
    from nbclient import NotebookClient

    solutions = {
        e.id: "\n".join(copies["instructor"].cells[i].source for i in e.solution_cells)
        for e in copies["exercises"]
    }
    wrong = {
        **solutions,
        "90.1": "p_offer_spam = 5 / 11",
        "90.4": "model = nbcore.MultinomialNB(alpha=1.0)\nmodel.fit(X, y)\n1 / 0",
    }
    verdicts = {}
    for name, answers in [("blank", {}), ("finished", solutions), ("wrong", wrong)]:
        nb = _fill(copies["student"], answers)
        NotebookClient(nb, kernel_name="python3", allow_errors=True).execute()
        verdicts[name] = {
            c.metadata["exercise"]: "".join(o.get("text", "") for o in c.outputs).strip()
            for c in nb.cells
            if c.metadata.get("role") == "check"
        }
    assert all("not attempted" in line for line in verdicts["blank"].values())
    assert all(
        line.startswith(f"Exercise {e}: looks plausible, graded on hand-in")
        for e, line in verdicts["finished"].items()
    )
    # one number at six digits can be found by trying them all: its copy names no mistake
    assert verdicts["wrong"]["90.1"].startswith("Exercise 90.1: looks plausible")
    assert verdicts["wrong"]["90.4"].startswith("Exercise 90.4: looks plausible")  # fitted
    raising = _fill(copies["student"], {"90.1": "p_offer_spam = 1 / 0"})
    NotebookClient(raising, kernel_name="python3", allow_errors=True).execute()
    check = next(c for c in raising.cells if c.metadata.get("role") == "check")
    assert [o.output_type for o in check.outputs] == ["stream"]
    assert "p_offer_spam is not defined: run your answer cell" in check.outputs[0].text


def test_enumerable_answers_carry_no_mistake_fingerprints(copies):
    checks = {
        c.metadata["exercise"]: c.source
        for c in copies["student"].cells
        if c.metadata.get("role") == "check"
    }
    # 90.1: one number at 6 digits, 9 * 10**5 guesses a decade; 90.5: two, 8.1 * 10**11
    for exercise in ("90.1", "90.5"):
        assert "mistakes=" not in checks[exercise], checks[exercise]
    assert "mistakes=" in checks["90.4"]  # six numbers at 6 digits: (9 * 10**5) ** 6
    assert copies_module.guesses(1, 4, "number") == 9_000  # Exercise 5.1's variance at rtol=1e-4
    assert copies_module.guesses(3, 6, "probabilities") < copies_module.MIN_GUESSES


def test_answer_cells_replace_the_solutions(copies):
    student, found = copies["student"], copies["exercises"]
    answers = [c for c in student.cells if c.metadata.get("role") == "answer"]
    assert [c.metadata["exercise"] for c in answers] == [e.id for e in found]
    for cell, exercise in zip(answers, found, strict=True):
        assert cell.source == placeholder_source(exercise)
        assert cell.source.endswith(f"\n{exercise.answer_name} = ...")
        assert cell.outputs == [] and cell.execution_count is None
        index = student.cells.index(cell)
        assert student.cells[index + 1].metadata.get("role") == "check"
    assert not [c for c in student.cells if c.metadata.get("role") == "solution"]


def test_checks_are_read_only_and_show_no_verdict(copies):
    checks = [c for c in copies["student"].cells if c.metadata.get("role") == "check"]
    assert len(checks) == 5
    for cell in checks:
        assert cell.metadata["editable"] is False and cell.metadata["deletable"] is False
        assert cell.execution_count is None and cell.outputs == []
    outputs = json.dumps([c.get("outputs", []) for c in copies["student"].cells])
    assert "correct (" not in outputs and "Exercise 90." not in outputs


def test_the_rest_of_the_chapter_is_kept(copies):
    student = copies["student"]
    assert "jupytext" not in student.metadata
    assert student.metadata["nbcore"] == {"chapter": "90_spam", "copy": "student"}
    first = next(c for c in student.cells if c.cell_type == "code")
    assert first.outputs[0]["data"]["text/plain"] == "array([[1, 6, 1],\n       [5, 1, 5]])"
    counts = [c.execution_count for c in student.cells if c.cell_type == "code"]
    numbered = [n for n in counts if n is not None]
    assert numbered == list(range(1, len(numbered) + 1))
    nbformat.validate(student)


def test_copies_are_reproducible(copies, tmp_path):
    (again,) = make_student_copies([FIXTURE], tmp_path, log=lambda message: None)
    assert again.read_bytes() == copies["path"].read_bytes()


def _fill(student, sources):
    """The student copy with answers written in: {exercise: source of the answer cell}."""
    nb = nbformat.from_dict(json.loads(json.dumps(student)))
    for cell in nb.cells:
        if cell.metadata.get("role") == "answer" and cell.metadata["exercise"] in sources:
            cell.source = sources[cell.metadata["exercise"]]
    return nb


def test_a_cell_that_would_leak_is_refused(tmp_path):
    nb = nbformat.read(FIXTURE, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("print(round(p_offer_spam, 3))"))
    nbformat.write(nb, tmp_path / "90_spam.ipynb")
    with pytest.raises(ExerciseFormatError, match="uses p_offer_spam, which only the solution"):
        make_student_copies([tmp_path / "90_spam.ipynb"], tmp_path / "out")
    assert not (tmp_path / "out" / "90_spam.ipynb").exists()


def test_a_solution_that_fails_its_check_is_refused(tmp_path):
    nb = nbformat.read(FIXTURE, as_version=4)
    (first, *_) = find_exercises(nb)
    nb.cells[first.solution_cells[0]].source = "p_offer_spam = 5 / 11"
    nbformat.write(nb, tmp_path / "90_spam.ipynb")
    with pytest.raises(ExerciseFormatError, match="exercise 90.1 fails its own check: .*smoothing"):
        make_student_copies([tmp_path / "90_spam.ipynb"], tmp_path / "out")


def test_make_student_target():
    done = subprocess.run(
        ["make", "-n", "student"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert "-m nbcore.classroom student 'book' --out _build/student" in done.stdout
    done = subprocess.run(
        ["make", "-n", "student", "ROSTER=class 2 roster.csv"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "--roster 'class 2 roster.csv'" in done.stdout


def test_widgets_made_by_a_solution_do_not_survive_in_the_copy():
    from nbcore.classroom.student import WIDGET_STATE, WIDGET_VIEW, student_copy

    book = ROOT / "book" / "06_weather.ipynb"
    nb = read_chapter(book)
    state = nb.metadata["widgets"][WIDGET_STATE]["state"]
    shown = set(state)
    # a solution that displays a slider: its view in the outputs, its models in the state
    found = find_exercises(nb)
    secret, secret_layout = "f" * 32, "e" * 32
    state[secret] = {
        "model_name": "IntSliderModel",
        "state": {"value": 424242, "layout": f"IPY_MODEL_{secret_layout}"},
    }
    state[secret_layout] = {"model_name": "LayoutModel", "state": {}}
    view = nbformat.v4.new_output(
        "display_data", data={WIDGET_VIEW: {"model_id": secret, "version_major": 2}}
    )
    nb.cells[found[0].solution_cells[0]].outputs.append(view)

    copy = student_copy(nb, found, {ex.id: {"kind": ex.kind} for ex in found}, book.stem)
    kept = copy.metadata["widgets"][WIDGET_STATE]["state"]
    assert secret not in kept and secret_layout not in kept
    assert "424242" not in json.dumps(copy)
    # the chapter's own explorers keep every model they need
    assert set(kept) == shown


def test_copies_read_as_prose():
    """Every chapter's copy: no MyST roles, labels, comments or book-only sentences left."""
    for source in chapter_sources([ROOT / "book"]):
        instructor = read_chapter(source)
        found = find_exercises(instructor)
        copy = student_copy(instructor, found, {e.id: {"kind": e.kind} for e in found}, source.stem)
        text = "\n".join(c.source for c in copy.cells if c.cell_type == "markdown")
        for leftover in ("{eval}", "{glue", "{numref}", "{doc}", "{ref}", "Show solution", "```{"):
            assert leftover not in text, (source.name, leftover)
        assert not re.search(r"^\(\S+\)=\s*$", text, re.MULTILINE), source.name
        assert not re.search(r"^% ", text, re.MULTILINE), source.name
    nb = read_chapter(ROOT / "book" / "08_numerics.ipynb")
    found = find_exercises(nb)
    copy = student_copy(nb, found, {e.id: {"kind": e.kind} for e in found}, "08_numerics")
    text = "\n".join(c.source for c in copy.cells if c.cell_type == "markdown")
    assert "the smallest subnormal about 4.94e-324" in text
    assert "The figure below draws the three." in text
    assert (
        "Each exercise asks for one result and names the variable to store it in. Graded copies"
    ) in text
    assert "*correct*" not in text and "Its solution is" not in text


def test_student_takes_a_chapters_md_file_and_explains_what_it_cannot_use(tmp_path):
    # the .md of a chapter paired with its notebook: the notebook's stored run is used
    command = [sys.executable, "-m", "nbcore.classroom", "student"]
    fixture_md = FIXTURE.with_suffix(".md")
    done = subprocess.run(
        [*command, str(fixture_md), "--out", str(tmp_path / "paired")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "paired" / "90_spam.ipynb").is_file()
    # a lone .md whose prose quotes a computed value: a clear error, not a traceback
    lone = tmp_path / "lone"
    lone.mkdir()
    text = fixture_md.read_text(encoding="utf-8")
    text = text.replace("on a corpus of five", "on a corpus of {eval}`len(y)`", 1)
    (lone / "90_spam.md").write_text(text, encoding="utf-8")
    done = subprocess.run(
        [*command, str(lone / "90_spam.md"), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
    assert "run tools/execute.py on the chapter first" in done.stderr
    done = subprocess.run(
        [*command, str(tmp_path / "missing.md")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "no such chapter or folder" in done.stderr
