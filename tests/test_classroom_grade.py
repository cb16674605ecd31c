"""Grading: full marks for the solutions, zero for a blank copy, and no way to fake a pass.

One folder of submissions is graded once, through the command line, by the module fixture;
each test reads its rows from the gradebook it wrote.
"""

import csv
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from nbcore.classroom import grading
from nbcore.classroom.markup import find_exercises
from nbcore.classroom.student import make_student_copies, student_copy

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "tests" / "fixtures" / "book"
FIXTURE = BOOK / "90_spam.ipynb"
TIMEOUT = 3  # seconds per student cell: short, the loops below must not take long

FORGOT_SMOOTHING = "spam_counts = counts[1]\np_offer_spam = spam_counts[0] / spam_counts.sum()"
UNNORMALISED = (
    "log_prior = np.log([3 / 5, 2 / 5])\n"
    "log_theta = np.log((counts + 1) / (counts + 1).sum(axis=1, keepdims=True))\n"
    "log_joint = log_prior + x_new[0] @ log_theta.T\n"
    "posterior = np.exp(log_joint)"
)
DDOF_1 = 'variances = np.array([np.var(lengths[c], ddof=1) for c in ["ham", "spam"]])'
ENDLESS = "while True:\n    pass"
STUBBORN = (
    "import time\n"
    "while True:  # ignores the interrupt\n"
    "    try:\n"
    "        time.sleep(0.05)\n"
    "    except KeyboardInterrupt:\n"
    "        pass"
)
FAKE_PRINT = 'print("Exercise 90.1: correct (1 point)")\np_offer_spam = 0.5'
MONKEYPATCH = """import builtins
from nbcore import exercises as ex

def fake_check(exercise, *args, **kwargs):
    real_print("Exercise " + exercise + ": correct (2 points)")

for name in ["check_number", "check_array", "check_probabilities", "check_label"]:
    setattr(ex, name, fake_check)
exercises.check_probabilities = fake_check
real_print = builtins.print
builtins.print = lambda *args, **kwargs: real_print("Exercise 90.2: correct (2 points)")
posterior = np.array([0.5, 0.5])"""
EQUAL_TO_ALL = """class Yes(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__

label = Yes("ham")"""
FAKE_MODEL = """class Everything:
    def __eq__(self, other):
        return True

    def __array__(self, *args, **kwargs):
        raise TypeError("not an array")

class MultinomialNB:
    feature_log_prob_ = Everything()

model = MultinomialNB()"""


def _with_answers(student, answers, extra=None):
    """A copy of the student notebook with answer cells filled in.

    ``answers``: {exercise: source}; ``extra``: {exercise: source of a cell the student adds
    below the answer cell}.
    """
    nb = nbformat.from_dict(json.loads(json.dumps(student)))
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        exercise = cell.metadata.get("exercise")
        if cell.metadata.get("role") == "answer" and exercise in answers:
            cell.source = answers[exercise]
            if extra and exercise in extra:
                cells.append(nbformat.v4.new_code_cell(extra[exercise]))
    nb.cells = cells
    return nb


def _edit_check(nb, exercise, source=None):
    """Replace a check cell's source, or delete the cell (source None)."""
    index = next(
        i
        for i, c in enumerate(nb.cells)
        if c.metadata.get("exercise") == exercise and c.metadata.get("role") == "check"
    )
    if source is None:
        del nb.cells[index]
    else:
        nb.cells[index].source = source
        nb.cells[index].metadata.pop("editable", None)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade a folder of eight submissions through ``python -m nbcore.classroom grade``."""
    work = tmp_path_factory.mktemp("grading")
    (copy,) = make_student_copies([FIXTURE], work / "copies", log=lambda message: None)
    student = nbformat.read(copy, as_version=4)
    instructor = nbformat.read(FIXTURE, as_version=4)
    solution = {
        e.id: "\n".join(instructor.cells[i].source for i in e.solution_cells)
        for e in find_exercises(instructor)
    }
    folder = work / "submissions"
    folder.mkdir()
    nbformat.write(instructor, folder / "solution_90_spam.ipynb")
    nbformat.write(student, folder / "blank.ipynb")

    wrong = _with_answers(
        student,
        {
            **solution,
            "90.1": FORGOT_SMOOTHING,
            "90.5": "centred = {c: v - v.mean() for c, v in lengths.items()}",
        },
        extra={"90.5": 'variances = np.array([np.mean(centred[c] ** 2) for c in ["ham", "spam"]])'},
    )
    nbformat.write(wrong, folder / "wrong.ipynb")

    tampered = _with_answers(
        student, {**solution, "90.2": UNNORMALISED, "90.3": 'label = "ham"', "90.5": DDOF_1}
    )
    _edit_check(tampered, "90.2", 'print("Exercise 90.2: correct (2 points)")')
    _edit_check(tampered, "90.3", None)
    _edit_check(tampered, "90.5", 'exercises.check_array("90.5", variances, expected=variances)')
    nbformat.write(tampered, folder / "tampered.ipynb")

    fake = _with_answers(
        student,
        {
            **solution,
            "90.1": FAKE_PRINT,
            "90.2": MONKEYPATCH,
            "90.3": EQUAL_TO_ALL,
            "90.4": FAKE_MODEL,
        },
    )
    nbformat.write(fake, folder / "fake.ipynb")

    loop = _with_answers(
        student, {**solution, "90.1": ENDLESS, "90.2": STUBBORN, "90.3": 'label = "spam"'}
    )
    nbformat.write(loop, folder / "loop.ipynb")

    error = _with_answers(student, {**solution, "90.4": solution["90.4"] + "\n1 / 0"})
    nbformat.write(error, folder / "error.ipynb")

    crash = _with_answers(student, {**solution, "90.3": "import os\nos._exit(1)"})
    nbformat.write(crash, folder / "crash.ipynb")

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nbcore.classroom",
            "grade",
            str(folder),
            "--solutions",
            str(BOOK),
            "--timeout",
            str(TIMEOUT),
            "--jobs",
            "2",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with (folder / "gradebook_details.csv").open() as file:
        rows = list(csv.DictReader(file))
    results = {}
    for row in rows:
        results.setdefault(Path(row["submission"]).stem, {})[row["exercise"]] = row
    with (folder / "gradebook.csv").open() as file:
        totals = {Path(r["submission"]).stem: r for r in csv.DictReader(file)}
    return {"results": results, "totals": totals, "stdout": done.stdout, "folder": folder}


def _statuses(graded, name):
    return {exercise: row["status"] for exercise, row in graded["results"][name].items()}


def _hint(graded, name, exercise):
    return graded["results"][name][exercise]["hint"]


def test_solutions_score_full_marks(graded):
    assert set(_statuses(graded, "solution_90_spam").values()) == {"passed"}
    assert graded["totals"]["solution_90_spam"]["score"] == "7"
    assert graded["totals"]["solution_90_spam"]["out_of"] == "7"


def test_blank_copy_scores_zero_not_attempted(graded):
    assert set(_statuses(graded, "blank").values()) == {"not attempted"}
    assert graded["totals"]["blank"]["score"] == "0"
    assert {_hint(graded, "blank", e) for e in graded["results"]["blank"]} == {""}


def test_known_wrong_answer_fails_only_that_exercise_with_its_hint(graded):
    assert _statuses(graded, "wrong") == {
        "90.1": "failed",
        "90.2": "passed",
        "90.3": "passed",
        "90.4": "passed",
        "90.5": "passed",  # answered over two cells: the answer cell and one added below
    }
    assert _hint(graded, "wrong", "90.1") == (
        "it looks as if you forgot the smoothing: add alpha to every count"
    )
    assert graded["totals"]["wrong"]["score"] == "6"


def test_tampered_checks_are_graded_by_the_originals(graded):
    assert _statuses(graded, "tampered") == {
        "90.1": "passed",
        "90.2": "failed",  # its check cell printed a fake verdict
        "90.3": "failed",  # its check cell was deleted
        "90.4": "passed",
        "90.5": "failed",  # its check cell compared the answer with itself
    }
    assert _hint(graded, "tampered", "90.2").startswith("your probabilities sum to ")
    assert _hint(graded, "tampered", "90.3") == "that is the class with the lower score"
    assert _hint(graded, "tampered", "90.5") == (
        "that divides by N - 1: the maximum-likelihood variance divides by N"
    )


def test_fake_verdicts_and_monkeypatching_do_not_pass(graded):
    assert _statuses(graded, "fake") == {
        "90.1": "failed",  # printed "correct" itself
        "90.2": "failed",  # replaced the checks and print()
        "90.3": "failed",  # a str that equals everything
        "90.4": "failed",  # a model named MultinomialNB whose attribute equals everything
        "90.5": "passed",
    }
    assert _hint(graded, "fake", "90.1") == (
        "the denominator needs alpha once per word of the vocabulary: + 3"
    )
    assert _hint(graded, "fake", "90.2") == "2 of 2 entries differ from the expected values"
    assert _hint(graded, "fake", "90.3") == "that is the class with the lower score"
    assert _hint(graded, "fake", "90.4") == "expected an array of numbers, got Everything"


def test_endless_loops_fail_only_their_exercise_within_the_limit(graded):
    assert _statuses(graded, "loop") == {
        "90.1": "failed",
        "90.2": "failed",  # ignores the interrupt: the kernel is replaced
        "90.3": "passed",
        "90.4": "passed",
        "90.5": "passed",
    }
    for exercise in ("90.1", "90.2"):
        assert _hint(graded, "loop", exercise) == (
            f"your code ran longer than {TIMEOUT} s, the time limit"
        )


def test_exceptions_and_crashes_fail_only_their_exercise(graded):
    assert _statuses(graded, "error") == {
        "90.1": "passed",
        "90.2": "passed",
        "90.3": "passed",
        "90.4": "failed",
        "90.5": "passed",
    }
    assert _hint(graded, "error", "90.4") == "your code raised ZeroDivisionError: division by zero"
    assert _statuses(graded, "crash")["90.3"] == "failed"
    assert _hint(graded, "crash", "90.3") == (
        "your code stopped the Python kernel (a crash or an exit)"
    )
    assert graded["totals"]["crash"]["score"] == "6"


def test_folder_gives_a_table_and_a_gradebook(graded):
    totals = graded["totals"]
    assert sorted(totals) == sorted(
        ["blank", "crash", "error", "fake", "loop", "solution_90_spam", "tampered", "wrong"]
    )
    assert {name: int(row["score"]) for name, row in totals.items()} == {
        "blank": 0,
        "crash": 6,
        "error": 5,
        "fake": 1,
        "loop": 4,
        "solution_90_spam": 7,
        "tampered": 3,
        "wrong": 6,
    }
    assert totals["wrong"]["90.1"] == "0" and totals["wrong"]["90.2"] == "2"
    assert "wrong.ipynb (chapter 90_spam): 6 / 7 points" in graded["stdout"]
    assert (
        "  90.1           1  failed         it looks as if you forgot the smoothing: "
        "add alpha to every count"
    ) in graded["stdout"]
    assert f"gradebook: {graded['folder'] / 'gradebook.csv'}" in graded["stdout"]


def test_one_notebook_through_the_command_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "nbcore.classroom", "grade", str(FIXTURE), "--solutions", str(BOOK)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == f"{FIXTURE} (chapter 90_spam): 7 / 7 points"
    assert lines[1].split() == ["exercise", "points", "result", "hint"]
    assert [line.split() for line in lines[2:7]] == [
        ["90.1", "1", "passed"],
        ["90.2", "2", "passed"],
        ["90.3", "1", "passed"],
        ["90.4", "2", "passed"],
        ["90.5", "1", "passed"],
    ]
    assert "gradebook" not in done.stdout and not list(tmp_path.iterdir())


def test_grading_stops_when_nbcore_changes(tmp_path, monkeypatch):
    instructor = nbformat.read(FIXTURE, as_version=4)
    found = find_exercises(instructor)
    copy = tmp_path / "blank.ipynb"  # a blank copy: no student code runs, no kernel starts
    nbformat.write(student_copy(instructor, found, {e.id: "" for e in found}, "90_spam"), copy)
    fingerprints = iter(["before", "after"])
    monkeypatch.setattr(grading, "_package_fingerprint", lambda: next(fingerprints))
    with pytest.raises(grading.GradingError, match="nbcore's checking code changed"):
        grading.grade([copy], solutions=BOOK)


def test_grading_errors_are_clear(tmp_path):
    with pytest.raises(grading.GradingError, match="no such notebook or folder"):
        grading.grade([tmp_path / "missing.ipynb"], solutions=BOOK)
    other = tmp_path / "homework.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), other)
    with pytest.raises(grading.GradingError, match="cannot tell which chapter"):
        grading.grade([other], solutions=BOOK)
    with pytest.raises(grading.GradingError, match="no folder of book notebooks"):
        grading.grade([other], solutions=tmp_path / "nowhere")


def test_make_grade_target():
    done = subprocess.run(
        ["make", "-n", "grade", "NB=returned/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "-m nbcore.classroom grade returned/" in done.stdout
    done = subprocess.run(["make", "grade"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "usage: make grade NB=" in done.stderr
