"""Submissions built to break the grading run as a whole: each must fail alone.

One graded run (one job, so that the submissions are run and checked in the order of their
names): an honest submission first and last, and between them submissions that once stopped
the whole run, hung it, or made a check read the previous submission's values.
"""

import json
import time

import nbformat
import pytest
from classroom_helpers import ANSWER_AHEAD, FIXTURE, grade_folder, read_details, solutions
from classroom_helpers import with_answers as fill

from nbcore.classroom.student import make_student_copies

TIMEOUT = 3
BUDGET = 15
ALL = ["90.1", "90.2", "90.3", "90.4", "90.5"]

# The answer's export is replaced by JSON nested 976 deep: it loads in the grader's own
# thread but not in the checking kernel, where the name would keep the previous value.
DEEP = """
import nbcore.answers
nbcore.answers.dumps = lambda value: '{"$": "opaque", "type": ' + "[" * 976 + "]" * 976 + "}"
"""
# The answer's export is an array of 800,000 empty strings of type <U9999: 4 MB of text that
# would decode to 32 GB.
WIDE = """
import nbcore.answers
nbcore.answers.dumps = lambda value: (
    '{"$": "ndarray", "dtype": "<U9999", "shape": [800000], "data": ['
    + ",".join(['""'] * 800_000) + "]}"
)
"""
# Answers the grader's next requests in advance, then stops reading them: the grader's next
# write would block for ever, and the answers it did not ask for pile up in its memory.
BIG_CELL = "# " + "x" * 1_000_000


def _write(folder, name, nb):
    """Write the notebook as JSON with every non-ASCII character escaped (lone surrogates too)."""
    (folder / f"{name}.ipynb").write_text(json.dumps(nb, ensure_ascii=True), encoding="ascii")


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    work = tmp_path_factory.mktemp("breakers")
    (copy,) = make_student_copies([FIXTURE], work / "copies", log=lambda message: None)
    student = nbformat.read(copy, as_version=4)
    solution = solutions()
    folder = work / "returned"
    folder.mkdir()
    _write(folder, "a_honest", fill(student, solution))
    _write(folder, "b_deep_json", fill(student, {**solution, "90.1": DEEP}))
    _write(folder, "c_wide_array", fill(student, {**solution, "90.1": WIDE}))
    chain = "p_offer_spam = x" + ".y" * 3000
    _write(folder, "d_attribute_chain", fill(student, {**solution, "90.1": chain}))
    listed = fill(student, solution)
    listed.cells.append(nbformat.v4.new_code_cell("x = 1", metadata={"exercise": ["90.1"]}))
    _write(folder, "e_list_exercise", listed)
    sourceless = fill(student, solution)
    answer = next(c for c in sourceless.cells if c.metadata.get("exercise") == "90.2")
    del answer["source"]
    _write(folder, "f_no_source", sourceless)
    surrogate = "p_offer_spam = '\udc80'"
    _write(folder, "g_surrogate", fill(student, {**solution, "90.1": surrogate}))
    ahead = fill(student, {**solution, "90.1": ANSWER_AHEAD}, extra={"90.1": BIG_CELL})
    _write(folder, "h_answers_ahead", ahead)
    _write(folder, "z_honest", fill(student, solution))
    started = time.monotonic()
    done = grade_folder(folder, "--timeout", TIMEOUT, "--budget", BUDGET, "--jobs", 1, timeout=600)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-3000:]
    results, refused = read_details(folder)
    return {"results": results, "refused": refused, "seconds": seconds, "stdout": done.stdout}


def _statuses(broken, name):
    return {e: row["status"] for e, row in broken["results"][name].items()}


def test_honest_submissions_around_the_breakers_get_full_marks(broken):
    for name in ("a_honest", "z_honest"):
        assert _statuses(broken, name) == dict.fromkeys(ALL, "passed"), broken["stdout"]


def test_an_answer_that_fails_to_load_never_reads_the_previous_submissions_value(broken):
    statuses = _statuses(broken, "b_deep_json")
    assert statuses["90.1"] == "failed", statuses
    assert broken["results"]["b_deep_json"]["90.1"]["hint"] == "your answer could not be read"


def test_an_answer_that_would_decode_to_a_huge_array_is_refused(broken):
    statuses = _statuses(broken, "c_wide_array")
    assert statuses["90.1"] == "failed", statuses
    assert broken["results"]["c_wide_array"]["90.1"]["hint"] == "your answer could not be read"


def test_submissions_that_break_reading_or_planning_fail_alone(broken):
    refused, results = broken["refused"], broken["results"]
    assert "exercise metadata is not text" in refused["e_list_exercise"]
    assert "has no source text" in refused["f_no_source"]
    assert "not valid Unicode" in refused["g_surrogate"]
    # a 3000-step attribute chain is too deep for Python's parser: that answer fails, alone
    # (the grader's own reading of it keeps every book cell; the other answers are graded)
    statuses = _statuses(broken, "d_attribute_chain")
    assert statuses["90.1"] == "failed" and set(statuses.values()) == {"failed", "passed"}
    assert "d_attribute_chain" in results


def test_a_submission_that_answers_ahead_and_stops_reading_cannot_hang_the_run(broken):
    statuses = _statuses(broken, "h_answers_ahead")
    assert statuses["90.1"] == "failed", statuses
    # nine submissions, each within its 15 s budget, a few seconds of start-up and checks
    assert broken["seconds"] < 300


def test_json_nested_too_deep_is_refused_the_same_in_every_thread():
    from nbcore.answers import loads

    text = '{"$": "opaque", "type": ' + "[" * 976 + "]" * 976 + "}"
    with pytest.raises(ValueError, match="nested 977 deep"):
        loads(text)


def test_a_small_text_that_decodes_to_a_huge_array_is_refused_before_allocating():
    import subprocess
    import sys

    # in a process limited to 1 GiB: an attempt to allocate the array fails there, not here
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))\n"
        "from nbcore.answers import loads\n"
        'text = \'{"$": "ndarray", "dtype": "<U9999", "shape": [800000], "data": [\''
        " + ','.join(['\"\"'] * 800_000) + ']}'\n"
        "try:\n    loads(text)\nexcept ValueError as error:\n    print('refused:', error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.startswith("refused: an encoded array of 31996800000 bytes"), done.stderr


def test_a_value_that_fails_to_load_in_the_checking_kernel_fails_its_exercise(tmp_path):
    # the grader's own reading lets the text through; the checking kernel's does not: the
    # check must not read the value the previous submission loaded under the same name
    from nbcore.answers import dumps
    from nbcore.classroom.check import check_batch
    from nbcore.classroom.markup import find_exercises
    from nbcore.classroom.results import Chapter, Plan, SubmissionResult
    from nbcore.classroom.student import read_chapter

    book = read_chapter(FIXTURE)
    chapter = Chapter("90_spam", book, find_exercises(book))
    texts = {
        "honest": dumps((5 + 1) / (11 + 3)),
        "unloadable": '{"$": "float", "value": "not a float"}',
    }
    plans = []
    for number, (name, text) in enumerate(texts.items()):
        plan = Plan(number, tmp_path / f"{name}.ipynb", chapter, texts={"90.1": text})
        plan.result = SubmissionResult(plan.path, "90_spam", name)
        plans.append(plan)
    check_batch(chapter, plans, tmp_path, 600)
    honest, unloadable = ({r.exercise: r for r in p.result.results} for p in plans)
    assert honest["90.1"].status == "passed"
    assert unloadable["90.1"].status == "failed"
    assert unloadable["90.1"].hint == "your answer could not be read"
