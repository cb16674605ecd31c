"""Grade returned student copies: run the students' answers in a sandbox, judge them with the
book's own checks in a clean kernel.

Each submission goes through three steps:

1. **It is read and screened**, before any code runs. It must be a student copy
   (``nbcore.copy: student`` in its metadata) of a chapter of the book (its name among the
   book's chapters), hold no ``role: solution`` cell (the book's own notebook is refused) and
   no answer cell for an exercise the chapter does not have. The student's work for an
   exercise is its answer cell and the unmarked code cells right below it; nothing else of the
   submission is used: check cells, edited chapter cells and planted cells are ignored.
2. **The student's code runs in a sandbox** (:mod:`nbcore.classroom.sandbox`: bubblewrap,
   read-only system, no network, no view of the book, the submissions or the grader's folders,
   its own PID namespace, resource limits). The grader sends it the chapter's own cells, from
   the book (never its solutions or checks), with each exercise's solution replaced by the
   student's answer cells, and after each exercise asks for the answer's *value*, which comes
   back as JSON text on the sandbox's standard output, size-capped. Every cell has a time
   limit and the submission a total budget; an exception, an endless loop, a crash fails only
   that exercise (the sandbox is replaced and the notebook replayed without it).
3. **The book's checks judge the values**, in a checking notebook made of the book's cells on
   the submitting student's variant (``exercises.use_variant`` with the seed the grader derives
   from the student id and the course secret), each solution replaced by a cell that loads
   the student's value, and each check cell with "Exercise N: correct (P points)" stored as
   its output. ``pytest --nbval`` runs it with ``--noconftest``, no cache and an empty, private
   IPYTHONDIR, in a folder created for it that no student process ever saw; no student code
   runs in that kernel. An exercise passes when nbval finds its check's output equal to the
   stored verdict.

Submissions run in parallel (``jobs``); their checks run in batches, and the gradebooks are
written after every batch, so an interrupted run keeps what it graded.
"""

import csv
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

import nbcore
from nbcore.answers import MAX_ANSWER_BYTES, Unanswered, dumps, loads
from nbcore.classroom.markup import bound_names, find_exercises, loaded_names
from nbcore.classroom.sandbox import Limits, Sandbox, SandboxError, sandbox_problem
from nbcore.classroom.student import (
    CHAPTER,
    KERNEL,
    placeholder_source,
    read_chapter,
)
from nbcore.classroom.variants import STUDENT_ID, student_seed
from nbcore.exercises import CORRECT, NOT_ATTEMPTED, verdict_line

__all__ = [
    "PASSED",
    "FAILED",
    "NOT_ATTEMPTED",
    "REFUSED",
    "ExerciseResult",
    "SubmissionResult",
    "GradingError",
    "grade",
    "format_report",
    "write_gradebook",
]

PASSED = "passed"
FAILED = "failed"
REFUSED = "refused"
REPORT_ENV = "NBCORE_NBVAL_REPORT"
MAX_NOTEBOOK_BYTES = 20_000_000
GRACE_SECONDS = 5
CHECK_BATCH = 8


class GradingError(RuntimeError):
    """Grading could not be carried out (not: a student's answer is wrong)."""


class Refused(Exception):
    """A submission that is not graded, with the reason."""


@dataclass
class ExerciseResult:
    exercise: str
    points: int
    status: str
    hint: str = ""

    @property
    def earned(self):
        return self.points if self.status == PASSED else 0


@dataclass
class SubmissionResult:
    path: Path
    chapter: str
    student: str = ""
    results: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    refused: str = ""

    @property
    def score(self):
        return sum(result.earned for result in self.results)

    @property
    def out_of(self):
        return sum(result.points for result in self.results)


@dataclass
class _Chapter:
    name: str
    nb: object
    exercises: list


@dataclass
class _Step:
    source: str
    owner: str | None  # exercise id, None for a cell of the chapter
    kind: str  # "chapter", "student", "export"
    name: str = ""
    attribute: str | None = None


@dataclass
class _Plan:
    number: int
    path: Path
    chapter: _Chapter = None
    student: str = ""
    seed: int | None = None
    answers: dict = field(default_factory=dict)
    result: SubmissionResult = None
    texts: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- screening


def submission_paths(paths):
    """The notebooks to grade: the files given, and every .ipynb under the folders given."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(
                p
                for p in path.rglob("*.ipynb")
                if ".ipynb_checkpoints" not in p.parts and not p.is_symlink()
            )
        elif path.is_file():
            found.append(path)
        else:
            raise GradingError(f"no such notebook or folder: {path}")
    return found


def book_chapters(solutions):
    """{chapter name: path} of the book's chapter notebooks."""
    return {
        p.stem: p
        for p in sorted(Path(solutions).glob("*.ipynb"))
        if CHAPTER.match(p.stem) and p.is_file()
    }


def read_submission(path):
    """The notebook at ``path``; Refused when it is not one."""
    if path.is_symlink() or not path.is_file():
        raise Refused("not a regular file (a link or a special file)")
    size = path.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        raise Refused(f"the file is {size} bytes, more than the {MAX_NOTEBOOK_BYTES} allowed")
    try:
        with path.open(encoding="utf-8") as file:
            nb = nbformat.read(file, as_version=4)
    except Exception as error:
        reason = " ".join(str(error).split())[:200]
        raise Refused(f"not a readable notebook ({type(error).__name__}: {reason})") from None
    if not isinstance(nb.get("cells"), list) or not isinstance(nb.get("metadata"), dict):
        raise Refused("not a notebook")
    return nb


def chapter_name(nb, path, chapters):
    """Which chapter a submission is: its copy's metadata, else a chapter name in its name."""
    meta = nb.metadata.get("nbcore")
    name = meta.get("chapter") if isinstance(meta, dict) else None
    if name is not None:
        if not isinstance(name, str) or name not in chapters:
            raise Refused(
                f"its metadata names the chapter {str(name)[:80]!r}, which is not a chapter "
                "of the book"
            )
        return name
    for candidate in sorted(chapters, key=len, reverse=True):
        if candidate in path.name:
            return candidate
    raise Refused("cannot tell which chapter this is (no nbcore.chapter metadata, no chapter name)")


def _normalized(source):
    return "\n".join(line.strip() for line in str(source).splitlines() if line.strip())


def screen(nb, exercises):
    """Refuse what is not a student copy; return {exercise: [sources of the student's cells]}.

    The student's work for an exercise is its answer cell (``role: answer``) and the unmarked
    code cells right below it; an exercise whose cells hold only the placeholder (or nothing)
    gets an empty list.
    """
    meta = nb.metadata.get("nbcore")
    if not isinstance(meta, dict) or meta.get("copy") != "student":
        raise Refused(
            "not a student copy (made by make student); the book's own notebooks "
            "and other notebooks are not graded"
        )
    known = {ex.id: ex for ex in exercises}
    answer_cells = {}
    for index, cell in enumerate(nb.cells):
        cell_meta = cell.get("metadata", {})
        role, exercise = cell_meta.get("role"), cell_meta.get("exercise")
        if role == "solution":
            raise Refused(
                f"cell {index} is a solution cell (role: solution): the book's own notebook, "
                "or solution cells put into a copy, are not graded"
            )
        if role not in (None, "answer", "check", "variant", "data"):
            raise Refused(f"cell {index} has the role {str(role)[:40]!r}, which copies do not use")
        if exercise is not None and exercise not in known:
            raise Refused(
                f"cell {index} belongs to exercise {str(exercise)[:20]!r}, "
                "which the chapter does not have"
            )
        if role == "answer":
            if cell.get("cell_type") != "code":
                raise Refused(f"cell {index}: an answer cell must be code")
            if exercise in answer_cells:
                raise Refused(f"exercise {exercise} has a second answer cell (cell {index})")
            answer_cells[exercise] = index
    answers = {}
    for exercise in exercises:
        sources = []
        index = answer_cells.get(exercise.id)
        if index is not None:
            sources.append(nb.cells[index].source)
            for cell in nb.cells[index + 1 :]:
                if cell.get("cell_type") != "code" or cell.get("metadata", {}).get("role"):
                    break
                if "exercise" in cell.get("metadata", {}):
                    break
                sources.append(cell.source)
        if not all(isinstance(s, str) for s in sources):
            raise Refused(f"exercise {exercise.id}: a cell whose source is not text")
        placeholder = _normalized(placeholder_source(exercise))
        if all(_normalized(s) in ("", placeholder) for s in sources):
            sources = []
        answers[exercise.id] = sources
    return answers


def student_of(nb, path):
    """(student id recorded in the copy or None, the name to show)."""
    meta = nb.metadata.get("nbcore", {})
    student = meta.get("student") if isinstance(meta, dict) else None
    if student is None:
        return None, path.stem
    if not isinstance(student, str) or not STUDENT_ID.match(student):
        raise Refused("the copy's student id is not a valid id (was it edited?)")
    return student, student


# --------------------------------------------------------------------------- step 2: run


def _chapter_cells(chapter):
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
    figures = figure_only_cells(chapter, [s for sources in answers.values() for s in sources])
    steps, variant_done = [], False
    for index, cell in enumerate(chapter.nb.cells[: last + 1]):
        if cell.cell_type != "code" or index in figures:
            continue
        if index in data_cells and not variant_done:
            steps.append(_Step(f"{qualifier}.use_variant({seed!r})", None, "chapter"))
            variant_done = True
        exercise = first_solution.get(index)
        if exercise is not None and answers[exercise.id]:
            steps += [_Step(source, exercise.id, "student") for source in answers[exercise.id]]
        elif index in check_of and answers[check_of[index].id]:
            exercise = check_of[index]
            steps.append(_Step("", exercise.id, "export", exercise.answer_name, exercise.attribute))
        elif index not in solution_cells and index not in check_of:
            steps.append(_Step(cell.source, None, "chapter"))
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
                        texts[step.owner] = _checked_text(reply.get("value"))
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


def _checked_text(text):
    """The answer text if it is a valid, size-capped encoded answer, else an Unanswered's."""
    if not isinstance(text, str) or len(text) > MAX_ANSWER_BYTES:
        return dumps(Unanswered("your answer is too large to grade"))
    try:
        loads(text)
    except ValueError:
        return dumps(Unanswered("your answer could not be read"))
    return text


# --------------------------------------------------------------------------- step 3: check


def _load_source(exercise, text):
    return (
        "from nbcore import answers as _nbcore_answers\n"
        f"{exercise.answer_name} = _nbcore_answers.loads({text!r})"
    )


def _ignored(source, **meta):
    return nbformat.v4.new_code_cell(source, metadata={"tags": ["nbval-ignore-output"], **meta})


def checking_notebook(chapter, plans):
    """The book's cells once, then for each plan its variant, its values and the checks."""
    figures = figure_only_cells(chapter)
    cells = [
        _ignored(cell.source) for index, cell in _chapter_cells(chapter) if index not in figures
    ]
    qualifier = chapter.exercises[0].check_qualifier
    data = [chapter.nb.cells[i] for ex in chapter.exercises for i in ex.data_cells]
    for plan in plans:
        tag = {"submission": plan.number}
        cells.append(_ignored(f"{qualifier}.use_variant({plan.seed!r})", **tag))
        cells += [_ignored(cell.source, **tag) for cell in data]
        for exercise in chapter.exercises:
            if exercise.id not in plan.texts:
                continue
            cells.append(
                _ignored(
                    _load_source(exercise, plan.texts[exercise.id]),
                    exercise=exercise.id,
                    role="answer",
                    **tag,
                )
            )
            line = verdict_line(exercise.id, CORRECT, exercise.points)
            cells.append(
                nbformat.v4.new_code_cell(
                    chapter.nb.cells[exercise.check_cell].source,
                    metadata={"exercise": exercise.id, "role": "check", **tag},
                    execution_count=len(cells) + 1,
                    outputs=[nbformat.v4.new_output("stream", name="stdout", text=line + "\n")],
                )
            )
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    return nb


def run_nbval(nb, parent, cell_timeout):
    """Run ``pytest --nbval`` on ``nb`` in a new folder under ``parent``; its cell records."""
    work = Path(tempfile.mkdtemp(prefix="check-", dir=parent))
    notebook = work / "checks.ipynb"
    nbformat.write(nb, notebook)
    report, ipython = work / "report", work / "ipython"
    report.mkdir()
    ipython.mkdir()
    (work / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--nbval",
        "--nbval-current-env",
        f"--nbval-cell-timeout={cell_timeout}",
        "--noconftest",
        "-p",
        "nbcore.classroom.nbval_report",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:anyio",
        "-p",
        "no:xdist",
        "-q",
        "-c",
        str(work / "pytest.ini"),
        "--rootdir",
        str(work),
        str(notebook),
    ]
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "NBCORE_", "IPYTHON", "JUPYTER"))
    }
    env.update({REPORT_ENV: str(report), "IPYTHONDIR": str(ipython), "MPLBACKEND": "Agg"})
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise GradingError(
            f"pytest --nbval failed to run:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    file = report / "checks.jsonl"
    lines = file.read_text(encoding="utf-8").splitlines() if file.exists() else []
    return [json.loads(line) for line in lines if line]


def _result(exercise, record):
    """Turn the nbval record of one check cell into an ExerciseResult."""
    correct = verdict_line(exercise.id, CORRECT, exercise.points)
    if record is None:
        return ExerciseResult(exercise.id, exercise.points, FAILED, "the check did not run")
    lines = record["stdout"].splitlines()
    if record["outcome"] == "passed" and lines == [correct]:
        return ExerciseResult(exercise.id, exercise.points, PASSED)
    prefix = f"Exercise {exercise.id}: "
    verdict = next((line[len(prefix) :] for line in lines if line.startswith(prefix)), None)
    if verdict is not None and verdict.startswith(NOT_ATTEMPTED):
        return ExerciseResult(exercise.id, exercise.points, NOT_ATTEMPTED)
    if verdict is not None and "hint: " in verdict:
        return ExerciseResult(exercise.id, exercise.points, FAILED, verdict.split("hint: ", 1)[1])
    hint = record.get("error") or "the check printed no verdict"
    return ExerciseResult(exercise.id, exercise.points, FAILED, hint)


def check_batch(chapter, plans, parent, cell_timeout):
    """Judge the values of ``plans`` (one chapter) with the book's checks; fill their results."""
    records = run_nbval(checking_notebook(chapter, plans), parent, cell_timeout)
    for plan in plans:
        mine = [r for r in records if r.get("submission") == plan.number]
        for record in mine:
            if record.get("role") not in ("check", "answer") and record["outcome"] == "failed":
                plan.result.problems.append(
                    f"a cell of the chapter failed while checking: {record.get('error')}"
                )
        for exercise in chapter.exercises:
            if exercise.id not in plan.texts:
                plan.result.results.append(
                    ExerciseResult(exercise.id, exercise.points, NOT_ATTEMPTED)
                )
                continue
            record = next(
                (r for r in mine if r.get("role") == "check" and r.get("exercise") == exercise.id),
                None,
            )
            plan.result.results.append(_result(exercise, record))


# --------------------------------------------------------------------------- all together


def _package_fingerprint():
    """A hash of nbcore's code, to notice a change during a run (the sandbox forbids one)."""
    root = Path(nbcore.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _plan(number, path, chapters, loaded, secret):
    """Screen one submission: a _Plan, its result Refused when it is not graded."""
    plan = _Plan(number, path)
    plan.result = SubmissionResult(path, "", path.stem)
    try:
        nb = read_submission(path)
        name = chapter_name(nb, path, chapters)
        plan.result.chapter = name
        if name not in loaded:
            book = read_chapter(chapters[name])
            loaded[name] = _Chapter(name, book, find_exercises(book))
        plan.chapter = loaded[name]
        if not plan.chapter.exercises:
            raise Refused(f"chapter {name} has no exercises")
        plan.answers = screen(nb, plan.chapter.exercises)
        plan.student, plan.result.student = student_of(nb, path)[0], student_of(nb, path)[1]
        if plan.student is not None:
            if secret is None:
                raise Refused(
                    f"this copy was made for student {plan.student}: grading it needs the "
                    "course secret (NBCORE_COURSE_SECRET or --secret-file)"
                )
            plan.seed = student_seed(secret, plan.student)
        elif secret is not None and any(ex.data_cells for ex in plan.chapter.exercises):
            raise Refused(
                "not a copy made for a student of the roster (no student id), but this "
                "chapter's exercises have per-student variants"
            )
        plan.student = plan.result.student
    except Refused as error:
        plan.result.refused = str(error)
        plan.chapter = None
    return plan


def _clock(seconds):
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def grade(
    paths,
    solutions="book",
    timeout=60,
    chapter_timeout=600,
    budget=900,
    jobs=None,
    secret=None,
    unsandboxed=False,
    limits=None,
    out=None,
    log=None,
    progress=None,
):
    """Grade notebooks (files or folders of them) against the book's copies in ``solutions``.

    Parameters
    ----------
    paths : list of str or Path
        Submitted notebooks, or folders searched for them.
    solutions : str or Path, default="book"
        Folder of the book's chapter notebooks (the instructor's copies).
    timeout : float, default=60
        Time limit, in seconds, of each of the student's cells.
    chapter_timeout : float, default=600
        Time limit of each of the book's own cells.
    budget : float, default=900
        Total time, in seconds, that one submission's code may run (all cells, all restarts).
    jobs : int, optional
        Submissions graded at once (default: the number of CPU cores).
    secret : bytes, optional
        The course secret, for copies made for the students of a roster.
    unsandboxed : bool, default=False
        Run student code without bubblewrap (only where it cannot run, on trusted work).
    limits : Limits, optional
        The sandbox's resource limits.
    out : str or Path, optional
        Folder of the gradebooks, rewritten after every batch of checks.
    log, progress : callable, optional
        Called with messages, and with a one-line progress report.

    Returns
    -------
    list of SubmissionResult, in the order of the submissions
    """
    log = log or (lambda message: None)
    progress = progress or (lambda message: None)
    solutions = Path(solutions)
    if not solutions.is_dir():
        raise GradingError(f"no folder of book notebooks at {solutions}")
    problem = None if unsandboxed else sandbox_problem()
    if problem:
        raise GradingError(
            f"student code cannot be sandboxed here: {problem}. Grading runs each submission "
            "in a bubblewrap sandbox; install bubblewrap, or pass --unsandboxed to run "
            "student code with your own rights (only for work you trust)"
        )
    chapters = book_chapters(solutions)
    jobs = max(1, jobs or os.cpu_count() or 1)
    settings = Settings(timeout, chapter_timeout, budget, limits or Limits(), not unsandboxed)
    loaded = {}
    plans = [_plan(n, p, chapters, loaded, secret) for n, p in enumerate(submission_paths(paths))]
    for plan in plans:
        if plan.result.refused:
            log(f"refused {plan.path}: {plan.result.refused}")
    fingerprint = _package_fingerprint()
    started, finished = time.monotonic(), [0]
    lock = threading.Lock()
    slots = list(range(jobs))

    def report():
        done = finished[0]
        elapsed = time.monotonic() - started
        eta = "--:--" if not done else _clock(elapsed / done * (len(plans) - done))
        progress(f"graded {done}/{len(plans)} · elapsed {_clock(elapsed)} · ETA {eta}")

    def finish(batch):
        with lock:
            finished[0] += len(batch)
        if out is not None:
            write_gradebooks([p.result for p in plans if p.result.results or p.result.refused], out)
        report()

    def run(plan):
        with lock:
            slot = slots.pop()
        try:
            steps = student_steps(plan.chapter, plan.answers, plan.seed)
            texts, failed, problems = (
                run_student_code(steps, slot, settings) if steps else ({}, {}, [])
            )
        finally:
            with lock:
                slots.append(slot)
        if _package_fingerprint() != fingerprint:
            raise GradingError(
                f"{plan.path}: nbcore's code changed while this submission ran; grading stopped"
            )
        plan.result.problems += problems
        for exercise in plan.chapter.exercises:
            if not plan.answers[exercise.id]:
                continue
            if exercise.id in failed:
                plan.texts[exercise.id] = dumps(Unanswered(failed[exercise.id]))
            elif exercise.id in texts:
                plan.texts[exercise.id] = texts[exercise.id]
            else:
                reason = "no answer was recorded: the notebook stopped before this exercise"
                plan.texts[exercise.id] = dumps(Unanswered(reason))
        return plan

    with tempfile.TemporaryDirectory(prefix="nbcore-grade-") as tmp:
        work = Path(tmp)
        waiting = [p for p in plans if p.chapter is not None]
        blank = [p for p in waiting if not any(p.answers.values())]
        for plan in blank:
            plan.result.results = [
                ExerciseResult(ex.id, ex.points, NOT_ATTEMPTED) for ex in plan.chapter.exercises
            ]
        refused = [p for p in plans if p.chapter is None]
        if blank or refused:
            finish(blank + refused)
        queue = [p for p in waiting if p not in blank]
        ready = {}  # chapter -> plans whose code ran, waiting for their checks
        running = {}
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            while queue or running or any(ready.values()):
                while len(running) < jobs:
                    full = [c for c, ps in ready.items() if len(ps) >= CHECK_BATCH]
                    rest = [c for c, ps in ready.items() if ps]
                    name = full[0] if full else (rest[0] if rest and not queue else None)
                    if name is not None:
                        batch, ready[name] = ready[name][:CHECK_BATCH], ready[name][CHECK_BATCH:]
                        future = pool.submit(
                            check_batch, batch[0].chapter, batch, work, chapter_timeout
                        )
                        running[future] = ("check", batch)
                    elif queue:
                        plan = queue.pop(0)
                        log(f"running {plan.path}")
                        running[pool.submit(run, plan)] = ("run", [plan])
                    else:
                        break
                if not running:
                    continue
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    kind, batch = running.pop(future)
                    future.result()  # a GradingError stops the run
                    if kind == "run":
                        ready.setdefault(batch[0].chapter.name, []).append(batch[0])
                    else:
                        finish(batch)
    return [plan.result for plan in plans]


# --------------------------------------------------------------------------- reports


def format_report(result, base=None):
    """The table printed for one submission."""
    name = _name(result, base)
    if result.refused:
        return f"{name}: refused, not graded: {result.refused}"
    student = f", student {result.student}" if result.student else ""
    lines = [f"{name} (chapter {result.chapter}{student}): {result.score} / {result.out_of} points"]
    width = max([len("exercise")] + [len(r.exercise) for r in result.results])
    lines.append(f"  {'exercise':<{width}}  points  out of  {'result':<13}  hint")
    for r in result.results:
        row = f"  {r.exercise:<{width}}  {r.earned:>6}  {r.points:>6}  {r.status:<13}  {r.hint}"
        lines.append(row.rstrip())
    lines += [f"  note: {problem}" for problem in result.problems]
    return "\n".join(lines)


def _name(result, base):
    if base is not None:
        try:
            return result.path.relative_to(base).as_posix()
        except ValueError:
            pass
    return result.path.as_posix()


_FORMULA = re.compile(r"^[=+\-@\t\r]")


def cell(value):
    """A CSV cell that no spreadsheet reads as a formula: text starting with = + - @ is quoted."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = str(value)
    return "'" + text if _FORMULA.match(text) else text


def _write_csv(path, header, rows):
    path = Path(path)
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow([cell(h) for h in header])
        for row in rows:
            writer.writerow([cell(v) for v in row])
    os.replace(partial, path)
    return path


def write_gradebooks(results, folder, base=None):
    """Write one gradebook per chapter and one details file; return their paths.

    ``gradebook_<chapter>.csv``: one row per student (the latest submission when a student
    handed in more than one), columns ``student``, one per exercise (points earned), ``total``,
    ``out_of`` and ``note``. ``gradebook_details.csv``: one row per submission and exercise.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    by_chapter = {}
    for result in results:
        if result.chapter:
            by_chapter.setdefault(result.chapter, []).append(result)
    for chapter, chapter_results in sorted(by_chapter.items()):
        exercises = []
        for result in chapter_results:
            exercises += [r.exercise for r in result.results if r.exercise not in exercises]
        latest = {}
        for result in chapter_results:
            key = result.student or result.path.stem
            try:
                when = result.path.stat().st_mtime
            except OSError:
                when = 0
            latest.setdefault(key, []).append((when, result))
        rows = []
        for student in sorted(latest):
            entries = sorted(latest[student], key=lambda pair: pair[0])
            result = entries[-1][1]
            earned = {r.exercise: r.earned for r in result.results}
            notes = []
            if result.refused:
                notes.append(f"refused: {result.refused}")
            if len(entries) > 1:
                others = ", ".join(_name(r, base) for _, r in entries[:-1])
                notes.append(f"graded the latest of {len(entries)} submissions; also: {others}")
            notes += result.problems
            rows.append(
                [student]
                + [earned.get(exercise, 0) for exercise in exercises]
                + [result.score, result.out_of, "; ".join(notes)]
            )
        header = ["student", *[f"exercise {e}" for e in exercises], "total", "out_of", "note"]
        written.append(_write_csv(folder / f"gradebook_{chapter}.csv", header, rows))
    rows = []
    for result in results:
        if result.refused:
            rows.append(
                [
                    result.student,
                    _name(result, base),
                    result.chapter,
                    "",
                    0,
                    0,
                    REFUSED,
                    result.refused,
                ]
            )
        for r in result.results:
            rows.append(
                [
                    result.student,
                    _name(result, base),
                    result.chapter,
                    r.exercise,
                    r.earned,
                    r.points,
                    r.status,
                    r.hint,
                ]
            )
    header = ["student", "submission", "chapter", "exercise", "earned", "points", "status", "hint"]
    details = _write_csv(folder / "gradebook_details.csv", header, rows)
    return written, details


def write_gradebook(results, path, base=None):
    """Compatibility: the gradebooks in the folder of ``path``; (first gradebook, details)."""
    written, details = write_gradebooks(results, Path(path).parent, base)
    return (written[0] if written else None), details
