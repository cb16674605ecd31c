"""Step 3 of grading: the book's checks judge the values, in a kernel no student code ran in.

A checking notebook is made of the book's cells on the submitting student's variant
(``exercises.use_variant`` with the seed the grader derives from the student id and the course
secret), each solution replaced by a cell that loads the student's value, and each check cell
with "Exercise N: correct (P points)" stored as its output. ``pytest --nbval`` runs it with
``--noconftest``, no cache and an empty, private IPYTHONDIR, in a folder created for it that no
student process ever saw. An exercise passes when nbval finds its check's output equal to the
stored verdict.

The same kernel records, for each check, the expected value on the variant it ran (the
exercises' record file, ``NBCORE_EXERCISES_RECORD``, written in the checking folder): the
feedback pages show it once the chapter's solutions are released.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from nbcore.answers import Unanswered, decode
from nbcore.classroom.display import value_text
from nbcore.classroom.results import FAILED, NOT_ATTEMPTED, PASSED, ExerciseResult, GradingError
from nbcore.classroom.run import chapter_cells, left_out_cells
from nbcore.classroom.student import KERNEL
from nbcore.exercises import CORRECT, RECORD_ENV, verdict_line

__all__ = ["checking_notebook", "run_nbval", "check_batch"]

REPORT_ENV = "NBCORE_NBVAL_REPORT"


UNREADABLE = "your answer could not be read"


def _load_source(exercise, text):
    """The cell that loads a student's value: the name holds a stand-in until it has loaded."""
    return (
        "from nbcore import answers as _nbcore_answers\n"
        f"{exercise.answer_name} = _nbcore_answers.Unanswered({UNREADABLE!r})\n"
        f"{exercise.answer_name} = _nbcore_answers.loads({text!r})"
    )


def _reset_source(exercises):
    """The cell that forgets every answer name before a submission's values load."""
    names = sorted({exercise.answer_name for exercise in exercises})
    return f"for _nbcore_name in {names!r}:\n    globals().pop(_nbcore_name, None)"


def _ignored(source, **meta):
    return nbformat.v4.new_code_cell(source, metadata={"tags": ["nbval-ignore-output"], **meta})


def checking_notebook(chapter, plans):
    """The book's cells once, then for each plan its variant, its values and the checks."""
    figures = left_out_cells(chapter)
    cells = [
        _ignored(cell.source) for index, cell in chapter_cells(chapter) if index not in figures
    ]
    qualifier = chapter.exercises[0].check_qualifier
    data = [chapter.nb.cells[i] for ex in chapter.exercises for i in ex.data_cells]
    for plan in plans:
        tag = {"submission": plan.number}
        cells.append(_ignored(_reset_source(chapter.exercises), **tag))
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
    """Run ``pytest --nbval`` on ``nb`` in a new folder under ``parent``.

    Returns its cell records, and {(exercise, variant seed): expected value as display text}
    from the checks' own record file.
    """
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
    expected_file = work / "expected.jsonl"
    env.update(
        {
            REPORT_ENV: str(report),
            RECORD_ENV: str(expected_file),
            "IPYTHONDIR": str(ipython),
            "MPLBACKEND": "Agg",
        }
    )
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise GradingError(
            f"pytest --nbval failed to run:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    file = report / "checks.jsonl"
    lines = file.read_text(encoding="utf-8").splitlines() if file.exists() else []
    return [json.loads(line) for line in lines if line], _expected_values(expected_file)


def _expected_values(path):
    """{(exercise, seed): display text of the expected value} from the checks' record file."""
    found = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    for line in lines:
        try:
            entry = json.loads(line)
            value = decode(entry["expected"])
        except (ValueError, KeyError, TypeError):
            continue
        if not isinstance(value, Unanswered):
            found[(entry.get("exercise"), entry.get("variant"))] = value_text(value)
    return found


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
    records, expected = run_nbval(checking_notebook(chapter, plans), parent, cell_timeout)
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
            own = [r for r in mine if r.get("exercise") == exercise.id]
            loads = [r["outcome"] for r in own if r.get("role") == "answer"]
            if "passed" not in loads or "failed" in loads:  # never this submission's value
                result = ExerciseResult(exercise.id, exercise.points, FAILED, UNREADABLE)
            else:
                check = next((r for r in own if r.get("role") == "check"), None)
                result = _result(exercise, check)
            result.expected = expected.get((exercise.id, plan.seed), "")
            plan.result.results.append(result)
