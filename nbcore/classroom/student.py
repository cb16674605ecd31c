"""Student copies: the chapter with every solution and every expected value taken out.

The book's notebooks are the source of truth; a student copy is generated from one and never
edited by hand. In the copy

* every solution cell (code or markdown) is gone, source, outputs and metadata: nothing of it
  remains in the file; an answer cell stands in its place, ``answer = ...`` under a comment
  that says what to do, marked ``exercise: '6.1'``, ``role: answer``;
* each check cell is replaced by a *self-check* (:func:`nbcore.exercises.self_check`) that
  holds no expected value: the answer's kind, shape and type, and the salted fingerprints of
  the wrong values the known mistakes give. It has no stored output (a fresh copy shows no
  verdict), and it says "looks plausible, graded on hand-in" rather than "correct";
* an exercise's data cells (``role: data``) stay, without their outputs; a copy made for one
  student of a roster (``--roster``) starts its exercises with that student's variant,
  ``exercises.use_variant(seed)``, and records the student's id in its metadata;
* the markdown reads as prose (:mod:`nbcore.classroom.prose`): glued numbers filled in,
  references resolved, book-only sentences replaced; the other cells keep their outputs. A
  chapter in which a later cell uses a name that only a solution defines is refused.

To build the self-checks the chapter runs once in a kernel that records, for each exercise,
the expected value and the known mistakes' values (on the instructor's machine only); every
check must say "correct" there, on the book's numbers and on every student's variant, or the
copy is refused.
"""

import copy
import json
import os
import re
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

from nbcore.classroom.markup import ExerciseFormatError, find_exercises, solution_leaks
from nbcore.classroom.prose import STUDENT_NOTE, figure_positions, glued_values, render_markdown
from nbcore.classroom.roster import read_roster
from nbcore.classroom.selfcheck import (
    MIN_GUESSES,
    guesses,
    salt,
    self_check_source,
    self_check_spec,
)
from nbcore.classroom.variants import seal, student_seed
from nbcore.exercises import CORRECT, RECORD_ENV, verdict_line

__all__ = [
    "StudentCopyError",
    "chapter_sources",
    "read_chapter",
    "placeholder_source",
    "record_expected",
    "self_check_source",
    "self_check_spec",
    "guesses",
    "MIN_GUESSES",
    "student_copy",
    "make_student_copies",
]


class StudentCopyError(ValueError):
    """A chapter from which no student copy can be made, and why."""


CHAPTER = re.compile(r"^\d\d_[A-Za-z0-9_-]+$")
KERNEL = "python3"
NOTE = STUDENT_NOTE


def chapter_sources(paths):
    """Chapter files, one per chapter: the .ipynb when there is one, else the .md.

    A folder contributes its files named like a chapter (``NN_slug``); a file given by name
    is taken as it is, except a MyST ``.md`` chapter whose paired ``.ipynb`` is beside it: the
    notebook holds the stored run that the copy's prose quotes.
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
            paired = path.with_suffix(".ipynb")
            candidates = [paired if path.suffix == ".md" and paired.is_file() else path]
        else:
            raise StudentCopyError(f"no such chapter or folder: {path}")
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


def variant_source(qualifier, student, seed):
    return (
        f"# Your own numbers for the exercises: this copy was made for {student}.\n"
        f"{qualifier}.use_variant({seed})"
    )


# --------------------------------------------------------------------------- recording


def record_expected(nb, cwd, exercises, variants=(), timeout=600):
    """Run the chapter and record each check: {variant seed or None: {exercise: entry}}.

    The chapter runs once on the book's numbers; then, in the same kernel, the exercises
    (their data, solution and check cells) run again for each seed of ``variants``.
    """
    first = min(min(ex.data_cells + ex.solution_cells) for ex in exercises)
    qualifier = exercises[0].check_qualifier
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "expected.jsonl"
        record.touch()
        client = NotebookClient(
            copy.deepcopy(nb),
            timeout=timeout,
            kernel_name=KERNEL,
            # the kernel's sockets are encrypted (CurveZMQ keys from the kernel manager), so it
            # does not warn that it talks over plain TCP
            config=Config({"KernelManager": {"transport_encryption": "auto"}}),
            allow_errors=False,
            resources={"metadata": {"path": str(cwd)}},
        )
        env = dict(os.environ, **{RECORD_ENV: str(record)})
        with client.setup_kernel(env=env):
            for index, cell in enumerate(client.nb.cells):
                client.execute_cell(cell, index)
            for seed in variants:
                cell = nbformat.v4.new_code_cell(f"{qualifier}.use_variant({seed})")
                client.execute_cell(cell, 0)
                for index in range(first, len(client.nb.cells)):
                    cell = copy.deepcopy(client.nb.cells[index])
                    client.execute_cell(cell, index)
        entries = [json.loads(line) for line in record.read_text().splitlines() if line]
    recorded = {}
    for entry in entries:
        recorded.setdefault(entry["variant"], {})[entry["exercise"]] = entry
    return recorded


# --------------------------------------------------------------------------- the copy


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


def student_copy(nb, exercises, specs, chapter, student=None, seed=None, sealed=None):
    """The student copy of ``nb`` (a new notebook; ``nb`` is not changed).

    ``specs``: {exercise: keyword arguments of its self-check} (see :func:`self_check_spec`);
    ``sealed``: the seal of (student, chapter) under the course secret, recorded with the id.
    """
    solution_of = {i: ex for ex in exercises for i in ex.solution_cells}
    check_of = {ex.check_cell: ex for ex in exercises}
    data_cells = {i for ex in exercises for i in ex.data_cells}
    first_data = min(data_cells) if data_cells else None
    values, figures = glued_values(nb), figure_positions(nb)
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
        if index == first_data and seed is not None:
            cells.append(
                nbformat.v4.new_code_cell(
                    variant_source(exercises[0].check_qualifier, student, seed),
                    id="student-variant",
                    metadata={"role": "variant", "editable": False, "deletable": False},
                )
            )
        cell = copy.deepcopy(cell)
        cell.metadata.pop("execution", None)
        if cell.cell_type == "markdown":
            missing = []
            cell.source = render_markdown(cell.source, values, figures, index, missing)
            if missing:
                raise StudentCopyError(
                    f"{chapter}: markdown cell {index} quotes {missing}, which the stored run "
                    "does not hold: run tools/execute.py on the chapter first"
                )
            cell.metadata.pop("user_expressions", None)  # the values are in the text now
        if index in check_of:
            exercise = check_of[index]
            cell.source = self_check_source(exercise, specs[exercise.id])
            cell.metadata.update(editable=False, deletable=False)
            cell.outputs, cell.execution_count = [], None
        if index in data_cells:
            cell.outputs, cell.execution_count = [], None
        if cell.cell_type == "code":
            if cell.execution_count is not None:
                count += 1
                cell.execution_count = count
            for output in cell.outputs:
                if "execution_count" in output:
                    output["execution_count"] = cell.execution_count
        cells.append(cell)
    student_nb = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(nb.metadata))
    _keep_shown_widgets(student_nb)
    student_nb.metadata.pop("jupytext", None)
    student_nb.metadata["nbcore"] = {"chapter": chapter, "copy": "student"}
    if student is not None:
        student_nb.metadata["nbcore"]["student"] = student
    if sealed is not None:
        student_nb.metadata["nbcore"]["seal"] = sealed
    return student_nb


def _checked(source, exercises, recorded):
    """The recorded entries, after checking that every solution passes its own check."""
    for exercise in exercises:
        if exercise.id not in recorded:
            raise ExerciseFormatError(f"{source}: the check of {exercise.id} did not run")
        line = recorded[exercise.id]["line"]
        if line != verdict_line(exercise.id, CORRECT, exercise.points):
            raise ExerciseFormatError(
                f"{source}: the solution of exercise {exercise.id} fails its own check: {line}"
            )
    return recorded


def make_student_copies(paths, out_dir, timeout=600, log=print, roster=None, secret=None):
    """Write the student copies of every chapter among ``paths``; return their paths.

    Without a roster: ``out_dir/NN_slug.ipynb``, on the book's numbers. With a roster (a CSV
    of student ids, or a Canvas or Moodle export: :mod:`nbcore.classroom.roster`) and the
    course secret: ``out_dir/<student>/NN_slug.ipynb``, each on its
    student's variant.
    """
    out_dir = Path(out_dir)
    students = read_roster(roster).ids if roster is not None else []
    if students and secret is None:
        raise ExerciseFormatError("per-student copies need the course secret")
    seeds = {student: student_seed(secret, student) for student in students}
    written = []
    for source in chapter_sources(paths):
        nb = read_chapter(source)
        exercises = find_exercises(nb)
        leaks = solution_leaks(nb, exercises)
        if leaks:
            raise ExerciseFormatError(f"{source}: " + "; ".join(leaks))
        varies = any(ex.data_cells for ex in exercises)
        recorded = {}
        if exercises:
            variants = list(seeds.values()) if varies else []
            recorded = record_expected(nb, source.parent.resolve(), exercises, variants, timeout)
        cache = {}

        targets = [(None, None, out_dir)] if not students else []
        targets += [(s, seeds[s], out_dir / s) for s in students]
        for student, seed, folder in targets:
            variant = seed if varies else None
            specs = {}
            if exercises:
                entries = _checked(source, exercises, recorded.get(variant, {}))
                for ex in exercises:
                    mark_salt = salt(source.stem, ex, student if ex.data_cells else None)
                    specs[ex.id] = self_check_spec(ex, entries[ex.id], mark_salt, cache)
            sealed = seal(secret, student, source.stem) if student is not None else None
            copy_nb = student_copy(nb, exercises, specs, source.stem, student, variant, sealed)
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"{source.stem}.ipynb"
            nbformat.write(copy_nb, target)
            written.append(target)
        where = out_dir if not students else f"{out_dir}/<student>"
        log(
            f"wrote {where}/{source.stem}.ipynb ({len(exercises)} exercises"
            + (f", {len(students)} students" if students else "")
            + (", per-student variants" if students and varies else "")
            + ")"
        )
    return written
