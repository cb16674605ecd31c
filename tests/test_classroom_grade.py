"""Grading: full marks for the solutions, zero for a blank copy, and no way to fake a pass.

One folder of submissions is graded once, through the command line, by the module fixture;
each test reads its rows from the gradebook it wrote.
"""

import csv
import io
import subprocess
import sys

import nbformat
import pytest
from classroom_helpers import BOOK, FIXTURE, ROOT, grade_folder, read_details, solutions
from classroom_helpers import with_answers as _with_answers

from nbcore.classroom import grading, sandbox
from nbcore.classroom.student import make_student_copies

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
def copies(tmp_path_factory):
    work = tmp_path_factory.mktemp("copies")
    (copy,) = make_student_copies([FIXTURE], work, log=lambda message: None)
    return nbformat.read(copy, as_version=4)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, copies):
    """Grade a folder of eight submissions through ``python -m nbcore.classroom grade``."""
    work = tmp_path_factory.mktemp("grading")
    student = copies
    solution = solutions()
    folder = work / "submissions"
    folder.mkdir()
    nbformat.write(_with_answers(student, solution), folder / "full.ipynb")
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

    # after the crash the notebook is replayed: 90.4 reads log_theta, which 90.2's answer
    # defined before the crash, so the answers of finished exercises run again too
    crash = _with_answers(
        student,
        {
            **solution,
            "90.3": "import os\nos._exit(1)",
            "90.4": solution["90.4"] + "\nassert log_theta.shape == (2, 3)",
        },
    )
    nbformat.write(crash, folder / "crash.ipynb")

    done = grade_folder(folder, "--timeout", TIMEOUT, "--jobs", 2)
    assert done.returncode == 0, done.stderr[-3000:]
    results, refused = read_details(folder)
    with (folder / "gradebook_90_spam.csv").open() as file:
        totals = {r["student"]: r for r in csv.DictReader(file)}
    return {
        "results": results,
        "refused": refused,
        "totals": totals,
        "stdout": done.stdout,
        "stderr": done.stderr,
        "folder": folder,
    }


def _statuses(graded, name):
    return {exercise: row["status"] for exercise, row in graded["results"][name].items()}


def _hint(graded, name, exercise):
    return graded["results"][name][exercise]["hint"]


def test_solutions_score_full_marks(graded):
    assert set(_statuses(graded, "full").values()) == {"passed"}
    assert graded["totals"]["full"]["total"] == "7"
    assert graded["totals"]["full"]["out_of"] == "7"


def test_blank_copy_scores_zero_not_attempted(graded):
    assert set(_statuses(graded, "blank").values()) == {"not attempted"}
    assert graded["totals"]["blank"]["total"] == "0"
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
    assert graded["totals"]["wrong"]["total"] == "6"


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
        "your code stopped the Python kernel (a crash, an exit or a limit)"
    )
    assert graded["totals"]["crash"]["total"] == "6"


def test_folder_gives_a_table_and_a_gradebook(graded):
    totals = graded["totals"]
    assert sorted(totals) == sorted(
        ["blank", "crash", "error", "fake", "loop", "full", "tampered", "wrong"]
    )
    assert {name: int(row["total"]) for name, row in totals.items()} == {
        "blank": 0,
        "crash": 6,
        "error": 5,
        "fake": 1,
        "loop": 4,
        "full": 7,
        "tampered": 3,
        "wrong": 6,
    }
    header = (graded["folder"] / "gradebook_90_spam.csv").read_text().splitlines()[0]
    assert header == (
        "student,exercise 90.1,exercise 90.2,exercise 90.3,exercise 90.4,exercise 90.5,"
        "total,out_of,note"
    )
    assert totals["wrong"]["exercise 90.1"] == "0" and totals["wrong"]["exercise 90.2"] == "2"
    assert "wrong.ipynb (chapter 90_spam, student wrong): 6 / 7 points" in graded["stdout"]
    assert (
        "  90.1           0       1  failed         it looks as if you forgot the smoothing: "
        "add alpha to every count"
    ) in graded["stdout"]
    assert "  90.2           2       2  passed" in graded["stdout"]
    assert f"gradebooks: {graded['folder'] / 'gradebook_90_spam.csv'}" in graded["stdout"]
    assert "graded 8/8" in graded["stderr"] and "ETA" in graded["stderr"]


def test_one_notebook_through_the_command_line(tmp_path, copies):
    path = tmp_path / "returned" / "dave final (1).ipynb"
    path.parent.mkdir()
    nbformat.write(_with_answers(copies, solutions()), path)
    done = subprocess.run(
        [sys.executable, "-m", "nbcore.classroom", "grade", str(path), "--solutions", str(BOOK)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == f"{path} (chapter 90_spam, student dave final (1)): 7 / 7 points"
    assert lines[1].split() == ["exercise", "points", "out", "of", "result", "hint"]
    assert [line.split() for line in lines[2:7]] == [
        ["90.1", "1", "1", "passed"],
        ["90.2", "2", "2", "passed"],
        ["90.3", "1", "1", "passed"],
        ["90.4", "2", "2", "passed"],
        ["90.5", "1", "1", "passed"],
    ]
    assert "gradebook" not in done.stdout
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["dave final (1).ipynb", "returned"]


def test_grading_stops_when_nbcore_changes(tmp_path, monkeypatch, copies):
    path = tmp_path / "one.ipynb"
    nbformat.write(_with_answers(copies, {"90.1": "p_offer_spam = 0.5"}), path)
    fingerprints = iter(["before", "after"])
    monkeypatch.setattr(grading, "_package_fingerprint", lambda: next(fingerprints))
    with pytest.raises(grading.GradingError, match="nbcore's code changed"):
        grading.grade([path], solutions=BOOK, jobs=1)


def test_grading_errors_are_clear(tmp_path):
    with pytest.raises(grading.GradingError, match="no such notebook or folder"):
        grading.grade([tmp_path / "missing.ipynb"], solutions=BOOK)
    other = tmp_path / "homework.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), other)
    (result,) = grading.grade([other], solutions=BOOK)
    assert result.refused.startswith("cannot tell which chapter")
    with pytest.raises(grading.GradingError, match="no folder of book notebooks"):
        grading.grade([other], solutions=tmp_path / "nowhere")


def test_without_bubblewrap_grading_is_refused_unless_unsandboxed(tmp_path, monkeypatch, copies):
    path = tmp_path / "one.ipynb"
    nbformat.write(_with_answers(copies, {"90.1": solutions()["90.1"]}), path)
    monkeypatch.setattr(
        grading, "sandbox_problem", lambda: "bwrap is not installed (apt-get install bubblewrap)"
    )
    with pytest.raises(grading.GradingError, match="cannot be sandboxed here: bwrap is not"):
        grading.grade([path], solutions=BOOK)
    with pytest.raises(grading.GradingError, match="--unsandboxed"):
        grading.grade([path], solutions=BOOK)
    (result,) = grading.grade([path], solutions=BOOK, unsandboxed=True, jobs=1)
    assert [r.status for r in result.results] == ["passed"] + ["not attempted"] * 4


def test_a_kernel_that_dies_at_start_up_is_retried_once(tmp_path, monkeypatch, copies):
    path = tmp_path / "one.ipynb"
    nbformat.write(_with_answers(copies, {"90.1": solutions()["90.1"]}), path)
    starts = []
    real_start = sandbox.Sandbox.start

    def flaky(self, timeout=120):
        starts.append(1)
        if len(starts) == 1:
            self.command = ["/bin/false"]
        return real_start(self, timeout)

    monkeypatch.setattr(sandbox.Sandbox, "start", flaky)
    (result,) = grading.grade([path], solutions=BOOK, jobs=1)
    assert len(starts) == 2
    assert result.results[0].status == "passed"


def test_results_are_written_as_each_submission_finishes(tmp_path, monkeypatch, copies):
    folder = tmp_path / "returned"
    folder.mkdir()
    for name in ("a", "b"):
        nbformat.write(
            _with_answers(copies, {"90.1": "p_offer_spam = 0.5"}), folder / f"{name}.ipynb"
        )
    monkeypatch.setattr(grading, "CHECK_BATCH", 1)
    seen = []

    def progress(message):
        book = folder / "gradebook_90_spam.csv"
        seen.append((message.split(" ·")[0], book.read_text().count("\n") if book.exists() else 0))

    grading.grade([folder], solutions=BOOK, jobs=1, out=folder, progress=progress)
    assert seen == [("graded 1/2", 2), ("graded 2/2", 3)]


def test_csv_cells_are_never_formulas():
    assert [grading.cell(v) for v in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "ok", 3, -2]] == [
        "'=1+1",
        "'+1",
        "'-1",
        "'@SUM(A1)",
        "\\x09x",  # a control character is written as its escape: no longer a separator
        "ok",
        3,
        -2,
    ]


def test_no_piece_of_a_csv_cell_is_a_formula_in_any_separator(tmp_path):
    """A spreadsheet set to split at ";" (or a tab, or "|") cuts a cell into pieces whatever its
    quoting: none of the pieces may start with a formula character."""
    from nbcore.classroom.report import _write_csv

    hostile = [
        "x;=HYPERLINK(1)",
        'a,b; "-2+3+cmd|x',
        "line\n=2",
        "a|@x",
        "t\t+1",
        "=1;=2",
    ]
    path = _write_csv(
        tmp_path / "book.csv", ["student", "total", "note"], [[h, 3, h] for h in hostile]
    )
    text = path.read_text(encoding="utf-8")
    for separator in ",;\t|":
        for row in csv.reader(io.StringIO(text), delimiter=separator):
            for piece in row:
                for line in piece.splitlines():
                    assert not line.lstrip(' "').startswith(tuple("=+-@")), (separator, piece)
    # read back with the comma, the text is the student's, behind apostrophes only, its
    # control characters written as escapes
    rows = list(csv.reader(io.StringIO(text)))[1:]
    shown = [h.replace("\n", "\\x0a").replace("\t", "\\x09") for h in hostile]
    assert [r[0].replace("'", "") for r in rows] == [h.replace("'", "") for h in shown]


def test_make_grade_target():
    done = subprocess.run(
        ["make", "-n", "grade", "NB=returned/dave final (1).ipynb"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "-m nbcore.classroom grade 'returned/dave final (1).ipynb'" in done.stdout
    done = subprocess.run(["make", "grade"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "usage: make grade NB=" in done.stderr
