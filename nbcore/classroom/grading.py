"""Grade submitted notebooks: run the students' answers, judge them with the book's checks.

Each submission is graded in two steps, in two separate kernels:

1. **The student's code runs** in a kernel of its own: the chapter's cells from the book's
   copy (not the student's, so an edited chapter changes nothing), with each exercise's
   solution replaced by the student's answer cells. Every answer cell has a time limit; an
   exception, an endless loop or a crashed kernel fails that exercise only (after a loop that
   ignores interrupts, or a crash, a new kernel replays the notebook without the failed
   exercise). After each exercise, its answer's *value* is written out as JSON
   (:mod:`nbcore.classroom.values`); nothing the student's code prints is looked at.
2. **The book's checks judge the values**: a checking notebook made of the book's cells, with
   each solution replaced by a cell that loads the student's answer value and each check cell
   taken from the book's copy with the verdict "correct" stored as its output, goes through
   ``pytest --nbval``. No student code runs in that kernel, so redefining
   ``nbcore.exercises``, patching ``print`` or printing a fake verdict cannot pass a check, and
   edited or deleted check cells in the submission are never used. An exercise passes when
   nbval finds its check cell's output equal to "Exercise N: correct (P points)"; the verdict
   the check printed gives the hint of a failure.

Student code runs with the grader's rights: grade untrusted work in a container or a user
account that cannot write to the repository (the grader does stop when the checking code,
``nbcore/exercises.py`` and ``nbcore/classroom/``, changes during a run).
"""

import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

import nbcore
from nbcore.classroom.markup import find_exercises
from nbcore.classroom.student import KERNEL, placeholder_source, read_chapter
from nbcore.classroom.values import encode, load
from nbcore.exercises import CORRECT, NOT_ATTEMPTED, Unanswered, verdict_line

__all__ = [
    "PASSED",
    "FAILED",
    "NOT_ATTEMPTED",
    "ExerciseResult",
    "SubmissionResult",
    "GradingError",
    "grade",
    "format_report",
    "write_gradebook",
]

PASSED = "passed"
FAILED = "failed"
REPORT_ENV = "NBCORE_NBVAL_REPORT"
PROBE_SECONDS = 5


class GradingError(RuntimeError):
    """Grading could not be carried out (not: a student's answer is wrong)."""


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
    results: list = field(default_factory=list)
    problems: list = field(default_factory=list)

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
    kind: str  # "chapter", "student" or "export"


# --------------------------------------------------------------------------- submissions


def submission_paths(paths):
    """The notebooks to grade: the files given, and every .ipynb under the folders given."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        elif path.is_file():
            found.append(path)
        else:
            raise GradingError(f"no such notebook or folder: {path}")
    return found


def _chapter_name(nb, path, solutions):
    """Which chapter a submission is: from the copy's metadata, else from its file name."""
    name = nb.metadata.get("nbcore", {}).get("chapter")
    if isinstance(name, str) and (solutions / f"{name}.ipynb").exists():
        return name
    names = sorted((p.stem for p in solutions.glob("*.ipynb")), key=len, reverse=True)
    for name in names:
        if name in path.stem:
            return name
    raise GradingError(
        f"{path}: cannot tell which chapter this is (no nbcore.chapter metadata and no "
        f"chapter name of {solutions} in the file name); pass --solutions"
    )


def _normalized(source):
    return "\n".join(line.strip() for line in source.splitlines() if line.strip())


def student_answers(nb, exercises):
    """{exercise: [source of each of the student's code cells for it]}.

    The student's work for an exercise is its answer cell (``role: answer``, or ``solution``
    in the book's own copy) and any unmarked code cell between it and the check cell. An
    exercise whose cells still hold the placeholder, or nothing, gets an empty list.
    """
    cells = nb.cells

    answers = {}
    for exercise in exercises:
        own = [
            i
            for i, cell in enumerate(cells)
            if cell.metadata.get("exercise") == exercise.id
            and cell.metadata.get("role") in ("answer", "solution")
        ]
        checks = [
            i
            for i, cell in enumerate(cells)
            if cell.metadata.get("exercise") == exercise.id and cell.metadata.get("role") == "check"
        ]
        region = []
        if own:
            start = own[0]
            end = len(cells)
            if checks and checks[0] > start:
                end = checks[0]
            else:  # the check cell is gone: stop at the next marked or markdown cell
                for i in range(own[-1] + 1, len(cells)):
                    if cells[i].cell_type != "code" or "exercise" in cells[i].metadata:
                        end = i
                        break
            for i in range(start, end):
                meta = cells[i].metadata
                if cells[i].cell_type == "code" and meta.get("exercise") in (None, exercise.id):
                    if meta.get("role") in (None, "answer", "solution"):
                        region.append(i)
        elif checks:  # the answer cell is gone: take the unmarked code cells above the check
            i = checks[0] - 1
            while i >= 0 and cells[i].cell_type == "code" and "exercise" not in cells[i].metadata:
                region.insert(0, i)
                i -= 1
        sources = [cells[i].source for i in region]
        placeholder = _normalized(placeholder_source(exercise))
        if all(_normalized(s) in ("", placeholder) for s in sources):
            sources = []
        answers[exercise.id] = sources
    return answers


# --------------------------------------------------------------------------- step 1: run


def _package_fingerprint():
    """A hash of the checking code (nbcore.exercises, nbcore.classroom), to notice student
    code that rewrites it."""
    root = Path(nbcore.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted([root / "exercises.py", *(root / "classroom").rglob("*.py")]):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _export_source(exercise, path):
    return (
        "from nbcore.classroom import values as _nbcore_values\n"
        f"_nbcore_values.export({str(path)!r}, lambda: {exercise.answer_name}, "
        f"attribute={exercise.attribute!r})"
    )


def _student_steps(chapter, answers, export_dir):
    """The cells of the student run, up to the last attempted exercise."""
    attempted = [ex for ex in chapter.exercises if answers[ex.id]]
    if not attempted:
        return []
    last = max(ex.check_cell for ex in attempted)
    first_solution = {ex.solution_cells[0]: ex for ex in chapter.exercises}
    solution_cells = {i for ex in chapter.exercises for i in ex.solution_cells}
    check_of = {ex.check_cell: ex for ex in chapter.exercises}
    steps = []
    for index, cell in enumerate(chapter.nb.cells[: last + 1]):
        exercise = first_solution.get(index)
        if exercise is not None and answers[exercise.id]:
            steps += [_Step(source, exercise.id, "student") for source in answers[exercise.id]]
        elif index in check_of and answers[check_of[index].id]:
            exercise = check_of[index]
            steps.append(
                _Step(_export_source(exercise, export_dir / exercise.id), exercise.id, "export")
            )
        elif cell.cell_type == "code" and index not in solution_cells and index not in check_of:
            steps.append(_Step(cell.source, None, "chapter"))
    return steps


def _responsive(client):
    """Interrupt the kernel; True when it then answers within PROBE_SECONDS."""
    try:
        run_sync(client.km.interrupt_kernel)()
        probe = nbformat.v4.new_code_cell("pass", metadata={"nbcore_timeout": PROBE_SECONDS})
        client.execute_cell(probe, 0)
        return True
    except (CellTimeoutError, DeadKernelError, RuntimeError):
        return False


def run_student_code(steps, cwd, timeout, chapter_timeout):
    """Run the steps; return ({exercise: reason it failed}, [problems with chapter cells])."""
    failed, problems, skipped, exported = {}, [], set(), set()
    limit = {"student": timeout, "export": max(timeout, 60), "chapter": chapter_timeout}

    def blame(index, step, reason):
        if step.owner is not None:
            failed.setdefault(step.owner, reason)
        else:
            skipped.add(index)
            problems.append(f"a cell of the chapter failed in the student run: {reason}")

    while True:
        cells = [
            nbformat.v4.new_code_cell(step.source, metadata={"nbcore_timeout": limit[step.kind]})
            for step in steps
        ]
        client = NotebookClient(
            nbformat.v4.new_notebook(cells=cells),
            timeout_func=lambda cell: cell.metadata.get("nbcore_timeout"),
            allow_errors=True,
            kernel_name=KERNEL,
            shutdown_kernel="immediate",
            startup_timeout=120,
            resources={"metadata": {"path": str(cwd)}},
        )
        restart = False
        with client.setup_kernel():
            for index, (step, cell) in enumerate(zip(steps, cells, strict=True)):
                if step.owner in failed or index in skipped:
                    continue
                if step.kind == "export" and step.owner in exported:
                    continue
                try:
                    client.execute_cell(cell, index)
                except CellTimeoutError:
                    seconds = limit[step.kind]
                    blame(index, step, f"your code ran longer than {seconds:g} s, the time limit")
                    if not _responsive(client):
                        restart = True
                        break
                    continue
                except DeadKernelError:
                    blame(index, step, "your code stopped the Python kernel (a crash or an exit)")
                    restart = True
                    break
                errors = [out for out in cell.outputs if out.output_type == "error"]
                if errors and step.owner is not None:
                    error = errors[0]
                    evalue = " ".join(str(error.evalue).split())[:200]
                    blame(index, step, f"your code raised {error.ename}: {evalue}")
                elif step.kind == "export":
                    exported.add(step.owner)
        if not restart:
            return failed, problems


# --------------------------------------------------------------------------- step 2: check


def _load_source(exercise, text):
    return (
        "from nbcore.classroom import values as _nbcore_values\n"
        f"{exercise.answer_name} = _nbcore_values.load({text!r})"
    )


def checking_notebook(chapter, answer_texts):
    """The book's cells with each solution replaced by the student's answer value."""
    first_solution = {ex.solution_cells[0]: ex for ex in chapter.exercises}
    solution_cells = {i for ex in chapter.exercises for i in ex.solution_cells}
    check_of = {ex.check_cell: ex for ex in chapter.exercises}
    last = max(check_of)
    cells = []
    for index, cell in enumerate(chapter.nb.cells[: last + 1]):
        if index in first_solution:
            exercise = first_solution[index]
            source = _load_source(exercise, answer_texts[exercise.id])
            meta = {"exercise": exercise.id, "role": "answer"}
            cells.append(nbformat.v4.new_code_cell(source, metadata=meta))
        elif index in check_of:
            exercise = check_of[index]
            line = verdict_line(exercise.id, CORRECT, exercise.points)
            check = nbformat.v4.new_code_cell(
                cell.source,
                metadata={"exercise": exercise.id, "role": "check"},
                execution_count=len(cells) + 1,
                outputs=[nbformat.v4.new_output("stream", name="stdout", text=line + "\n")],
            )
            cells.append(check)
        elif cell.cell_type == "code" and index not in solution_cells:
            tags = list(cell.metadata.get("tags", []))
            cells.append(nbformat.v4.new_code_cell(cell.source, metadata={"tags": tags}))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    return nb


def run_nbval(notebooks, work, cell_timeout, jobs=1):
    """Run ``pytest --nbval`` on the notebooks; {notebook stem: [cell records]}."""
    report = work / "nbval-report"
    report.mkdir(exist_ok=True)
    ini = work / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--nbval",
        "--nbval-current-env",
        f"--nbval-cell-timeout={cell_timeout}",
        "-p",
        "nbcore.classroom.nbval_report",
        "-p",
        "no:cacheprovider",
        "-q",
        "-c",
        str(ini),
        "--rootdir",
        str(work),
    ]
    # plugins that a checking run does not need cost seconds of start-up each
    command += ["-p", "no:hypothesispytest", "-p", "no:anyio"]
    if jobs > 1 and len(notebooks) > 1:
        command += ["-n", str(min(jobs, len(notebooks))), "--dist", "loadscope"]
    else:
        command += ["-p", "no:xdist"]
    command += [str(path) for path in notebooks]
    env = dict(os.environ, **{REPORT_ENV: str(report)})
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise GradingError(
            f"pytest --nbval failed to run:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    records = {}
    for path in notebooks:
        file = report / f"{path.stem}.jsonl"
        lines = file.read_text(encoding="utf-8").splitlines() if file.exists() else []
        records[path.stem] = [json.loads(line) for line in lines if line]
    return records


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


# --------------------------------------------------------------------------- all together


def grade(
    paths,
    solutions="book",
    timeout=60,
    chapter_timeout=600,
    jobs=1,
    log=None,
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
    jobs : int, default=1
        Parallel nbval workers for the checking step.

    Returns
    -------
    list of SubmissionResult
    """
    log = log or (lambda message: None)
    solutions = Path(solutions)
    if not solutions.is_dir():
        raise GradingError(f"no folder of book notebooks at {solutions}")
    submissions = submission_paths(paths)
    chapters = {}
    plans = []
    for path in submissions:  # read everything first: student code runs only afterwards
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception as error:
            raise GradingError(f"{path}: not a readable notebook ({error})") from error
        name = _chapter_name(nb, path, solutions)
        if name not in chapters:
            book_nb = read_chapter(solutions / f"{name}.ipynb")
            chapters[name] = _Chapter(name, book_nb, find_exercises(book_nb))
            if not chapters[name].exercises:
                raise GradingError(f"chapter {name} has no exercises")
        plans.append((path, chapters[name], student_answers(nb, chapters[name].exercises)))

    fingerprint = _package_fingerprint()
    results, checking = [], []
    with tempfile.TemporaryDirectory(prefix="nbcore-grade-") as tmp:
        work = Path(tmp)
        for number, (path, chapter, answers) in enumerate(plans):
            log(f"running {path}")
            run_dir = work / f"run-{number}"
            export_dir = run_dir / "answers"
            export_dir.mkdir(parents=True)
            steps = _student_steps(chapter, answers, export_dir)
            failed, problems = {}, []
            if steps:
                failed, problems = run_student_code(steps, run_dir, timeout, chapter_timeout)
            if _package_fingerprint() != fingerprint:
                raise GradingError(
                    f"{path}: nbcore's checking code changed while this submission ran; "
                    "grading stopped. Restore it and grade in a sandbox."
                )
            texts = {}
            for exercise in chapter.exercises:
                texts[exercise.id] = _answer_text(exercise, answers, failed, export_dir)
            attempted = any(answers.values())  # a blank copy needs no checking run
            checking.append(checking_notebook(chapter, texts) if attempted else None)
            results.append(SubmissionResult(path, chapter.name, problems=problems))
        check_dir = work / "check"
        check_dir.mkdir()
        notebooks = []
        for number, nb in enumerate(checking):
            notebook = check_dir / f"submission_{number:04d}.ipynb"
            if nb is not None:
                nbformat.write(nb, notebook)
            notebooks.append(notebook)
        records = {}
        to_check = [notebook for notebook in notebooks if notebook.exists()]
        if to_check:
            log(f"checking {len(to_check)} notebook(s) with pytest --nbval")
            records = run_nbval(to_check, work, chapter_timeout, jobs)
        for (_, chapter, answers), result, notebook in zip(plans, results, notebooks, strict=True):
            cell_records = records.get(notebook.stem, [])
            for record in cell_records:
                if record.get("role") not in ("check", "answer") and record["outcome"] == "failed":
                    result.problems.append(
                        f"a cell of the chapter failed while checking: {record.get('error')}"
                    )
            for exercise in chapter.exercises:
                if not answers[exercise.id]:
                    result.results.append(
                        ExerciseResult(exercise.id, exercise.points, NOT_ATTEMPTED)
                    )
                    continue
                record = next(
                    (
                        r
                        for r in cell_records
                        if r.get("role") == "check" and r.get("exercise") == exercise.id
                    ),
                    None,
                )
                result.results.append(_result(exercise, record))
    return results


def _answer_text(exercise, answers, failed, export_dir):
    """The JSON text of the student's answer value (or of why there is none)."""
    if not answers[exercise.id]:
        return json.dumps(encode(Ellipsis))
    if exercise.id in failed:
        return json.dumps(encode(Unanswered(failed[exercise.id])))
    path = export_dir / exercise.id
    if not path.exists():
        reason = "no answer was recorded: the notebook stopped before this exercise"
        return json.dumps(encode(Unanswered(reason)))
    text = path.read_text(encoding="utf-8")
    try:
        load(text)
    except Exception:
        return json.dumps(encode(Unanswered("your answer could not be read")))
    return text


# --------------------------------------------------------------------------- reports


def format_report(result, base=None):
    """The table printed for one submission."""
    name = _name(result, base)
    lines = [f"{name} (chapter {result.chapter}): {result.score} / {result.out_of} points"]
    width = max([len("exercise")] + [len(r.exercise) for r in result.results])
    lines.append(f"  {'exercise':<{width}}  points  {'result':<13}  hint")
    for r in result.results:
        lines.append(f"  {r.exercise:<{width}}  {r.points:>6}  {r.status:<13}  {r.hint}".rstrip())
    lines += [f"  note: {problem}" for problem in result.problems]
    return "\n".join(lines)


def _name(result, base):
    if base is not None:
        try:
            return result.path.relative_to(base).as_posix()
        except ValueError:
            pass
    return result.path.as_posix()


def write_gradebook(results, path, base=None):
    """Write the CSV gradebook and, beside it, the details; return both paths.

    ``gradebook.csv`` has one row per submission: its score, the points it could get, and the
    points earned in each exercise (blank where the chapter has no such exercise).
    ``gradebook_details.csv`` has one row per submission and exercise: points, status, hint.
    """
    path = Path(path)
    details = path.with_name(f"{path.stem}_details{path.suffix}")
    exercises = []
    for result in results:
        exercises += [r.exercise for r in result.results if r.exercise not in exercises]
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["submission", "chapter", "score", "out_of", *exercises])
        for result in results:
            earned = {r.exercise: r.earned for r in result.results}
            row = [_name(result, base), result.chapter, result.score, result.out_of]
            writer.writerow(row + [earned.get(exercise, "") for exercise in exercises])
    with details.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["submission", "chapter", "exercise", "points", "status", "score", "hint"])
        for result in results:
            for r in result.results:
                row = [_name(result, base), result.chapter, r.exercise, r.points, r.status]
                writer.writerow(row + [r.earned, r.hint])
    return path, details
