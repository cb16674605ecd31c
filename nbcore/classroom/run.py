"""Step 2 of grading: the student's code runs in a sandbox, and its answers' values come back.

The grader sends the sandbox (:mod:`nbcore.classroom.sandbox`) the chapter's own cells, from
the book (never its solutions or checks), with each exercise's solution replaced by the
student's answer cells, and after each exercise asks for the answer's *value*, which comes back
as JSON text, size-capped. Every cell has a time limit and the submission a total budget; an
exception, an endless loop, a crash fails only that exercise (the sandbox is replaced and the
notebook replayed without it).
"""

import re
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from nbcore.answers import (
    MAX_ANSWER_BYTES,
    Opaque,
    SubmittedEstimator,
    Unanswered,
    dumps,
    loads,
)
from nbcore.classroom.liveness import MAX_SOURCE, skippable_cells
from nbcore.classroom.markup import bound_names, loaded_names
from nbcore.classroom.results import Step
from nbcore.classroom.sandbox import Limits, Sandbox, SandboxError

__all__ = [
    "Settings",
    "chapter_cells",
    "figure_only_cells",
    "left_out_cells",
    "student_steps",
    "run_student_code",
]

GRACE_SECONDS = 5
# answers larger than this are not analysed for the cells a run may leave out (every cell runs)
MAX_ANSWER_CELLS = 500


def chapter_cells(chapter):
    """(index, cell) of the book's own code cells: no solutions, no checks, no data cells."""
    skip = set()
    for ex in chapter.exercises:
        skip |= set(ex.solution_cells) | {ex.check_cell} | set(ex.data_cells)
    return [
        (i, c) for i, c in enumerate(chapter.nb.cells) if c.cell_type == "code" and i not in skip
    ]


_STATEFUL = re.compile(r"random|seed|rng|shuffle|global|exec|eval|setattr|__")


def figure_only_cells(chapter, extra_sources=()):
    """Indices of book cells that only draw: skipped when grading, they cost seconds each.

    A cell is skipped when the book shows a figure (or a widget) from it, nothing it defines is
    used by a later cell of the chapter or by ``extra_sources`` (the student's answers), and it
    does not touch random state or other hidden state.
    """
    cells = chapter.nb.cells
    used_after = [set() for _ in cells]
    used = set()
    for source in extra_sources:
        used |= loaded_names(source)
    for index in range(len(cells) - 1, -1, -1):
        used_after[index] = set(used)
        if cells[index].cell_type == "code":  # the names it reads that it did not define
            source = cells[index].source
            used |= loaded_names(source) - bound_names(source)
    skipped = set()
    for index, cell in enumerate(cells):
        if cell.cell_type != "code" or _STATEFUL.search(cell.source):
            continue
        draws = cell.metadata.get("mystnb", {}).get("figure") or any(
            "image/png" in output.get("data", {})
            or "application/vnd.jupyter.widget-view+json" in output.get("data", {})
            for output in cell.get("outputs", [])
        )
        if draws and not (bound_names(cell.source) & used_after[index]):
            skipped.add(index)
    return skipped


def left_out_cells(chapter, extra_sources=()):
    """Book cells a graded run leaves out: figures, and cells no graded value depends on
    (:mod:`nbcore.classroom.liveness`). ``extra_sources``: the student's answers."""
    extra_sources = list(extra_sources)
    return figure_only_cells(chapter, extra_sources) | skippable_cells(chapter, extra_sources)


def student_steps(chapter, answers, seed):
    """The cells of the student run, up to the last attempted exercise."""
    attempted = [ex for ex in chapter.exercises if answers[ex.id]]
    if not attempted:
        return []
    last = max(ex.check_cell for ex in attempted)
    first_solution = {ex.solution_cells[0]: ex for ex in chapter.exercises}
    check_of = {ex.check_cell: ex for ex in chapter.exercises}
    data_cells = {i for ex in chapter.exercises for i in ex.data_cells}
    solution_cells = {i for ex in chapter.exercises for i in ex.solution_cells}
    qualifier = chapter.exercises[0].check_qualifier
    sources = [s for texts in answers.values() for s in texts]
    if len(sources) > MAX_ANSWER_CELLS or sum(map(len, sources)) > MAX_SOURCE:
        figures = set()  # too much to read: the grader's time and memory stay bounded
    else:
        figures = left_out_cells(chapter, sources)
    steps, variant_done = [], False
    for index, cell in enumerate(chapter.nb.cells[: last + 1]):
        if cell.cell_type != "code" or index in figures:
            continue
        if index in data_cells and not variant_done:
            steps.append(Step(f"{qualifier}.use_variant({seed!r})", None, "chapter"))
            variant_done = True
        exercise = first_solution.get(index)
        if exercise is not None and answers[exercise.id]:
            steps += [Step(source, exercise.id, "student") for source in answers[exercise.id]]
        elif index in check_of and answers[check_of[index].id]:
            exercise = check_of[index]
            steps.append(Step("", exercise.id, "export", exercise.answer_name, exercise.attribute))
        elif index not in solution_cells and index not in check_of:
            steps.append(Step(cell.source, None, "chapter"))
    return steps


@dataclass
class Settings:
    timeout: float = 60
    chapter_timeout: float = 600
    budget: float = 900
    limits: Limits = field(default_factory=Limits)
    sandboxed: bool = True


def _start(slot, settings):
    """A started sandbox (a kernel that dies at start-up is tried once more)."""
    for attempt in (1, 2):
        if settings.sandboxed:
            box = Sandbox(slot, settings.limits)
        else:
            box = Sandbox(command=[sys.executable, "-I", "-m", "nbcore.classroom.driver"])
        try:
            box.start()
            return box
        except SandboxError:
            box.close()
            if attempt == 2:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def run_student_code(steps, slot, settings):
    """Run the steps; ({exercise: answer JSON text}, {exercise: why it failed}, [problems])."""
    texts, failed, problems, skipped = {}, {}, [], set()
    limit = {"student": settings.timeout, "chapter": settings.chapter_timeout, "export": 60}
    deadline = time.monotonic() + settings.budget

    def blame(index, step, reason):
        if step.owner is not None and step.owner not in texts:
            failed.setdefault(step.owner, reason)
            return
        skipped.add(index)  # a chapter cell, or an answer that failed only when replayed
        if step.owner is None:
            problems.append(f"a cell of the chapter failed in the student run: {reason}")

    while True:
        try:
            box = _start(slot, settings)
        except SandboxError as error:
            problems.append(f"the student's kernel did not start, twice: {error}")
            for step in steps:
                if step.owner is not None and step.owner not in texts:
                    failed.setdefault(step.owner, "the kernel did not start")
            return texts, failed, problems
        restart = False
        with box:
            for index, step in enumerate(steps):
                # a replay runs the answers of finished exercises again (later answers may use
                # their names), but does not ask for their values again
                if step.owner in failed or index in skipped:
                    continue
                if step.kind == "export" and step.owner in texts:
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    reason = f"the notebook ran past its total time budget of {settings.budget:g} s"
                    for later in steps[index:]:
                        if later.owner is not None and later.owner not in texts:
                            failed.setdefault(later.owner, reason)
                    return texts, failed, problems
                seconds = min(limit[step.kind], remaining)
                try:
                    if step.kind == "export":
                        request = {"export": step.name, "attribute": step.attribute}
                        reply = box.request(request, seconds)
                        texts[step.owner] = _checked_text(reply.get("value"), step.name)
                        continue
                    reply = box.request(
                        {"run": step.source, "limit": seconds}, seconds + GRACE_SECONDS
                    )
                except SandboxError as error:
                    if error.kind == "timeout":
                        reason = f"your code ran longer than {limit[step.kind]:g} s, the time limit"
                        if seconds < limit[step.kind]:
                            reason = (
                                f"the notebook ran past its time budget ({settings.budget:g} s)"
                            )
                    elif error.kind == "overflow":
                        reason = "your answer is too large to grade"
                    elif error.kind == "protocol":
                        reason = "your code wrote something that is not an answer"
                    else:
                        reason = "your code stopped the Python kernel (a crash, an exit or a limit)"
                    blame(index, step, reason)
                    restart = True
                    break
                if not reply.get("ok"):
                    error = " ".join(str(reply.get("error", "")).split())[:200]
                    if error.startswith("KeyboardInterrupt"):
                        reason = f"your code ran longer than {limit[step.kind]:g} s, the time limit"
                    else:
                        reason = f"your code raised {error}"
                    if step.owner is not None:
                        blame(index, step, reason)
                    else:
                        blame(index, step, reason)
        if not restart:
            return texts, failed, problems


def _checked_text(text, name="the answer"):
    """The answer text if it is a valid, size-capped encoded answer, else an Unanswered's.

    Whatever comes out of the sandbox is the student's: an ``Unanswered`` in it (which the
    student's code can make, with any reason) never carries its own text to the hint. Its
    reason is one the grader writes: the driver's known reasons, rewritten from their kind
    (``name``: the answer's name), or "a stand-in object" for any other; one nested in the
    value becomes a stand-in of that class.
    """
    if not isinstance(text, str) or len(text) > MAX_ANSWER_BYTES:
        return dumps(Unanswered("your answer is too large to grade"))
    try:
        value = loads(text)
    except ValueError:
        return dumps(Unanswered("your answer could not be read"))
    if isinstance(value, Unanswered):
        return dumps(Unanswered(_grader_reason(value.reason, name)))
    if '"unanswered"' in text:
        return dumps(_without_unanswered(value))
    return text


def _grader_reason(reason, name):
    """The grader's text for the reason the sandbox reported (see ``export_text``)."""
    if reason.startswith("your code does not define "):
        return f"your code does not define {name}: store your answer in {name}"
    if reason.startswith("reading your answer raised "):
        return "reading your answer raised an exception"
    if reason.startswith("your answer could not be read"):
        return "your answer could not be read"
    if reason == "your answer is too large to grade":
        return reason
    return "your answer is a stand-in object (Unanswered), not a value"


def _without_unanswered(value):
    """``value`` with every Unanswered nested in it replaced by a stand-in of its class."""
    if isinstance(value, Unanswered):
        return Opaque("Unanswered")
    if isinstance(value, (list, tuple)):
        return type(value)(_without_unanswered(item) for item in value)
    if isinstance(value, dict):
        return {key: _without_unanswered(item) for key, item in value.items()}
    if isinstance(value, np.ndarray) and value.dtype == object:
        items = [_without_unanswered(item) for item in value.reshape(-1).tolist()]
        array = np.empty(len(items), dtype=object)
        array[:] = items
        return array.reshape(value.shape)
    if isinstance(value, SubmittedEstimator):
        attributes = {k: v for k, v in vars(value).items() if k not in ("type_name", "_params")}
        return SubmittedEstimator(
            value.type_name,
            _without_unanswered(value.get_params()),
            _without_unanswered(attributes),
        )
    return value
