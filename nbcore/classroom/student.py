"""Student copies: the chapter with every solution taken out and an answer cell in its place.

The book's notebooks are the source of truth; a student copy is generated from one and never
edited by hand. In the copy

* every solution cell (code or markdown) is gone, source, outputs and metadata: nothing of it
  remains in the file;
* an answer cell stands where the solution was, ``answer = ...`` under a comment that says
  what to do, marked ``exercise: '6.1'``, ``role: answer``;
* the check cell stays, read-only, with the verdict "correct" stored as its output (so
  ``pytest --nbval`` on a finished copy passes); its expected value is sealed
  (:func:`nbcore.exercises.sealed`) instead of written out;
* the other cells keep their outputs. A chapter in which a later cell uses a name that only a
  solution defines is refused (its output would give the solution away).

To seal the expected values, the chapter runs once in a kernel that records them; every check
must say "correct" there, or the copy is refused.
"""

import copy
import json
import os
import re
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from nbcore.classroom.markup import ExerciseFormatError, find_exercises, solution_leaks
from nbcore.exercises import CORRECT, RECORD_ENV, verdict_line

__all__ = [
    "chapter_sources",
    "read_chapter",
    "placeholder_source",
    "record_expected",
    "student_copy",
    "make_student_copies",
]

CHAPTER = re.compile(r"^\d\d_[A-Za-z0-9_-]+$")
KERNEL = "python3"

NOTE = (
    "**Student copy.** Each exercise below has an answer cell (`your answer`): replace the "
    "`...` with your code, then run the check cell under it, which says *correct*, *not yet* "
    "(with a hint) or *not attempted*. Write your answer in that cell (add cells just below it "
    "if you need them), keep the names it uses, and hand in this notebook as it is."
)


def chapter_sources(paths):
    """Chapter files, one per chapter: the .ipynb when there is one, else the .md.

    A folder contributes its files named like a chapter (``NN_slug``); a file given by name
    is taken as it is.
    """
    found = {}
    for path in map(Path, paths):
        if path.is_dir():
            candidates = [
                p
                for p in sorted(path.iterdir())
                if p.suffix in (".ipynb", ".md") and CHAPTER.match(p.stem)
            ]
        elif path.is_file():
            candidates = [path]
        else:
            raise FileNotFoundError(f"no such chapter or folder: {path}")
        for candidate in candidates:
            key = candidate.with_suffix("")
            if key not in found or candidate.suffix == ".ipynb":
                found[key] = candidate
    return [found[key] for key in sorted(found)]


def read_chapter(path):
    """The chapter as a notebook (version 4.5, with cell ids)."""
    path = Path(path)
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
    else:
        import jupytext  # only for chapters that have no .ipynb yet

        nb = jupytext.read(path, fmt="md:myst")
    nb.nbformat, nb.nbformat_minor = 4, max(5, nb.get("nbformat_minor", 5))
    for index, cell in enumerate(nb.cells):
        if "id" not in cell:
            cell["id"] = f"cell-{index}"
    return nb


def placeholder_source(exercise):
    """What a student finds where the solution was."""
    return (
        f"# Exercise {exercise.id}: your answer. Replace the ... with your code.\n"
        f"{exercise.answer_name} = ..."
    )


def _cell_id(prefix, exercise_id):
    return f"{prefix}-{exercise_id.replace('.', '-')}"[:64]


def record_expected(nb, cwd, timeout=600):
    """Run the notebook once and return {exercise: (sealed expected, verdict line)}."""
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "expected.jsonl"
        record.touch()
        env = dict(os.environ, **{RECORD_ENV: str(record)})
        client = NotebookClient(
            copy.deepcopy(nb),
            timeout=timeout,
            kernel_name=KERNEL,
            allow_errors=False,
            resources={"metadata": {"path": str(cwd)}},
        )
        client.execute(env=env)
        entries = [json.loads(line) for line in record.read_text().splitlines() if line]
    return {entry["exercise"]: (entry["expected"], entry["line"]) for entry in entries}


def _replace_span(source, span, text):
    """Replace the (line, byte column) span of an ast node in ``source`` with ``text``."""
    lines = source.encode("utf-8").split(b"\n")
    start_line, start_col, end_line, end_col = span
    head = b"\n".join(lines[: start_line - 1] + [lines[start_line - 1][:start_col]])
    tail = b"\n".join([lines[end_line - 1][end_col:]] + lines[end_line:])
    return (head + text.encode("utf-8") + tail).decode("utf-8")


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_MODEL_REFERENCE = re.compile(r"IPY_MODEL_([0-9A-Za-z-]+)")


def _keep_shown_widgets(nb):
    """Drop the saved state of every widget that no kept output shows.

    The notebook's metadata stores the state of every widget the chapter created, solutions
    included; a widget made by a solution would otherwise survive in the student copy. Kept
    are the models a remaining output displays and the models they refer to (layouts,
    styles, children), found through their ``IPY_MODEL_<id>`` references.
    """
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state")
    if not state:
        return
    to_visit = [
        output["data"][WIDGET_VIEW]["model_id"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if WIDGET_VIEW in output.get("data", {})
    ]
    kept = set()
    while to_visit:
        model_id = to_visit.pop()
        if model_id in kept or model_id not in state:
            continue
        kept.add(model_id)
        to_visit += _MODEL_REFERENCE.findall(json.dumps(state[model_id]))
    for model_id in set(state) - kept:
        del state[model_id]


def student_copy(nb, exercises, sealed_values, chapter):
    """The student copy of ``nb`` (a new notebook; ``nb`` is not changed)."""
    solution_of = {i: ex for ex in exercises for i in ex.solution_cells}
    check_of = {ex.check_cell: ex for ex in exercises}
    cells = [nbformat.v4.new_markdown_cell(NOTE, id="student-copy-note")] if exercises else []
    count = 0
    for index, cell in enumerate(nb.cells):
        if index in solution_of:
            exercise = solution_of[index]
            if index == exercise.solution_cells[0]:
                cells.append(
                    nbformat.v4.new_code_cell(
                        placeholder_source(exercise),
                        id=_cell_id("answer", exercise.id),
                        metadata={"exercise": exercise.id, "role": "answer"},
                    )
                )
            continue
        cell = copy.deepcopy(cell)
        cell.metadata.pop("execution", None)
        if index in check_of:
            exercise = check_of[index]
            key = sealed_values[exercise.id]
            sealed = f'{exercise.check_qualifier}.sealed("{key}")'
            cell.source = _replace_span(cell.source, exercise.expected_span, sealed)
            cell.metadata.update(editable=False, deletable=False)
            line = verdict_line(exercise.id, CORRECT, exercise.points)
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=line + "\n")]
        if cell.cell_type == "code":
            if cell.execution_count is not None or index in check_of:
                count += 1
                cell.execution_count = count
            for output in cell.outputs:
                if "execution_count" in output:
                    output["execution_count"] = cell.execution_count
        cells.append(cell)
    student = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(nb.metadata))
    _keep_shown_widgets(student)
    student.metadata.pop("jupytext", None)
    student.metadata["nbcore"] = {"chapter": chapter, "copy": "student"}
    return student


def make_student_copies(paths, out_dir, timeout=600, log=print):
    """Write ``out_dir/NN_slug.ipynb`` for every chapter among ``paths``; return the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for source in chapter_sources(paths):
        nb = read_chapter(source)
        exercises = find_exercises(nb)
        leaks = solution_leaks(nb, exercises)
        if leaks:
            raise ExerciseFormatError(f"{source}: " + "; ".join(leaks))
        sealed_values = {}
        if exercises:
            recorded = record_expected(nb, source.parent.resolve(), timeout)
            for exercise in exercises:
                if exercise.id not in recorded:
                    raise ExerciseFormatError(f"{source}: the check of {exercise.id} did not run")
                key, line = recorded[exercise.id]
                if line != verdict_line(exercise.id, CORRECT, exercise.points):
                    raise ExerciseFormatError(
                        f"{source}: the solution of exercise {exercise.id} fails its own "
                        f"check: {line}"
                    )
                sealed_values[exercise.id] = key
        student = student_copy(nb, exercises, sealed_values, source.stem)
        target = out_dir / f"{source.stem}.ipynb"
        nbformat.write(student, target)
        written.append(target)
        log(f"wrote {target} ({len(exercises)} exercises)")
    return written
