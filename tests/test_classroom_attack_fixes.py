"""Forged replies and submissions built against one step of the grader, each driven directly.

Each test performs the attack on the function it targets: the defence must make it fail alone,
with a clear reason, and fast (a thread that holds the interpreter stalls the whole grader).
"""

import csv
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from nbcore import answers


def _within(seconds, function, *args):
    """Run ``function(*args)`` in a thread; fail if it is not done in ``seconds``."""
    outcome = {}

    def target():
        try:
            outcome["value"] = function(*args)
        except Exception as error:  # the outcome under test is often an error
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{function.__name__} still running after {seconds} s"
    return outcome


@pytest.mark.parametrize(
    "text",
    [
        'a"' * 2_000_000,  # 4 MB of unterminated strings
        '"' + 'a\\"' * 1_300_000,  # one string, never closed, of escaped quotes
        '["' + "\\\\" * 1_900_000,  # escaped backslashes, never closed
    ],
)
def test_unterminated_strings_are_refused_fast(text):
    # A generous bound: the counting this replaced took minutes on 120 KB of such text.
    outcome = _within(20, answers.loads, text)
    assert "not JSON" in str(outcome["error"])


def test_depth_counts_brackets_outside_strings_only():
    assert answers.json_depth('{"a": "[[[{{", "b": [[1], "\\"]]]"]}') == 3
    assert answers.json_depth("[" * 200 + "]" * 200) == 200
    assert answers.json_depth('"[[[' + "]" * 5) == 0
    deep = '["\\\\", ' + "[" * 129 + "]" * 129 + "]"
    with pytest.raises(ValueError, match="129|130|more than the 128"):
        answers.loads(deep)


def _wide_arrays(count, length):
    """An encoded list of ``count`` arrays of ``length`` empty strings of type <U9999."""
    empty = ",".join(['""'] * length)
    array = f'{{"$":"ndarray","dtype":"<U9999","shape":[{length}],"data":[{empty}]}}'
    items = ",".join([array] * count)
    return f'{{"$":"list","items":[{items}]}}'


def test_many_wide_arrays_are_refused_by_their_total_size():
    # 20 arrays of 1600 strings of 9999 characters: each under the limit of one array, 1.3 GB
    # in all, from 150 kB of text.
    text = _wide_arrays(20, 1600)
    assert len(text) < 200_000
    with pytest.raises(ValueError, match=f"more than the {answers.MAX_DECODED_BYTES} allowed"):
        answers.loads(text)


def test_arrays_within_the_total_size_still_load():
    value = answers.loads(_wide_arrays(2, 100))
    assert [array.shape for array in value] == [(100,), (100,)]
    assert answers.loads(answers.dumps([[1.5] * 10] * 3)) == [[1.5] * 10] * 3


def _results(folder):
    """A submission whose file name is not UTF-8, refused, and an honest one, graded."""
    from nbcore.classroom.results import PASSED, ExerciseResult, SubmissionResult

    odd = SubmissionResult(folder / os.fsdecode(b"zz\xfe.ipynb"), "", refused="not a notebook")
    odd_graded = SubmissionResult(folder / os.fsdecode(b"yy\xff.ipynb"), "90", student="s1")
    odd_graded.results.append(ExerciseResult("90.1", 2, PASSED))
    honest = SubmissionResult(folder / "a_honest.ipynb", "90", student="s2")
    honest.results.append(ExerciseResult("90.1", 2, PASSED))
    return [odd, odd_graded, honest]


def test_file_names_not_utf8_are_reported(tmp_path):
    from nbcore.classroom.report import format_report, write_gradebooks

    results = _results(tmp_path)
    texts = [format_report(result, tmp_path) for result in results]
    for text in texts:
        text.encode("utf-8")  # printable on a UTF-8 terminal, no lone surrogates
    assert texts[0].startswith("zz\\xfe.ipynb: refused")
    written, details = write_gradebooks(results, tmp_path / "out", tmp_path)
    rows = details.read_text(encoding="utf-8")
    assert "zz\\xfe.ipynb" in rows and "yy\\xff.ipynb" in rows and "a_honest.ipynb" in rows
    gradebook = written[0].read_text(encoding="utf-8")
    assert "s1" in gradebook and "s2" in gradebook


SECRET = b"course-secret-for-the-tests-0123456789"


@pytest.fixture(scope="module")
def roster_copies(tmp_path_factory):
    """{student: roster copy} for alice and bob, made with SECRET."""
    import nbformat
    from classroom_helpers import FIXTURE

    from nbcore.classroom.student import make_student_copies

    work = tmp_path_factory.mktemp("identity")
    roster = work / "roster.csv"
    roster.write_text("student\nalice\nbob\n")
    written = make_student_copies(
        [FIXTURE], work / "copies", roster=roster, secret=SECRET, log=lambda m: None
    )
    return {path.parent.name: nbformat.read(path, as_version=4) for path in written}


def _screen(folder, files, secret=SECRET):
    """Write {name: notebook} (oldest first), screen them; the plans, seals checked."""
    import nbformat
    from classroom_helpers import BOOK

    from nbcore.classroom.screen import book_chapters, check_seals, plan_submission

    for age, (name, nb) in enumerate(files.items()):
        path = folder / f"{name}.ipynb"
        nbformat.write(nb, path)
        os.utime(path, (1_700_000_000 + age * 3600,) * 2)  # the later, the newer
    chapters, loaded = book_chapters(BOOK), {}
    plans = [
        plan_submission(n, folder / f"{name}.ipynb", chapters, loaded, secret)
        for n, name in enumerate(files)
    ]
    check_seals(plans, secret)
    return plans


def _edited(nb, **changes):
    import copy

    nb = copy.deepcopy(nb)
    for key, value in changes.items():
        if value is None:
            del nb.metadata["nbcore"][key]
        else:
            nb.metadata["nbcore"][key] = value
    return nb


def test_a_copy_without_seal_or_with_a_forged_one_never_replaces_a_verified_row(
    roster_copies, tmp_path
):
    import csv

    from nbcore.classroom.report import write_gradebooks
    from nbcore.classroom.results import PASSED, ExerciseResult

    files = {
        "bob": roster_copies["bob"],
        "alice": roster_copies["alice"],
        # newer than bob's own copy: alice's copy, its seal deleted, saying it is bob's
        "zz_alice_as_bob": _edited(roster_copies["alice"], seal=None, student="bob"),
        # and a copy saying bob with a forged seal
        "zz_forged_bob": _edited(roster_copies["alice"], seal="0" * 64, student="bob"),
    }
    plans = _screen(tmp_path, files)
    by_name = {plan.path.stem: plan for plan in plans}
    assert "carries no seal" in by_name["zz_alice_as_bob"].result.refused
    assert by_name["zz_alice_as_bob"].result.refused.startswith("flagged:")
    assert "do not match its seal" in by_name["zz_forged_bob"].result.refused
    assert by_name["bob"].result.verified and not by_name["bob"].result.refused
    for plan in plans:  # grading, as far as the gradebook sees it: 2 points each
        if not plan.result.refused:
            plan.result.results.append(ExerciseResult("90.1", 2, PASSED))
    written, _ = write_gradebooks([p.result for p in plans], tmp_path / "out", tmp_path)
    with written[0].open(encoding="utf-8") as file:
        rows = {row["student"]: row for row in csv.DictReader(file)}
    assert rows["bob"]["total"] == "2" and rows["bob"]["note"] == ""
    assert rows["alice"]["total"] == "2"
    for name in ("zz_alice_as_bob", "zz_forged_bob"):
        assert rows[f"{name}.ipynb"]["total"] == "0"
        assert rows[f"{name}.ipynb"]["note"].startswith("refused: flagged:")


def test_one_copy_with_a_bad_seal_is_refused_two_stop_as_a_wrong_secret(roster_copies, tmp_path):
    from nbcore.classroom.results import GradingError

    forged = {"forged_bob": _edited(roster_copies["alice"], student="bob")}
    (plan,) = _screen(tmp_path, forged)
    assert "do not match its seal" in plan.result.refused
    assert "or the course secret given is not the one" in plan.result.refused
    wrong = b"another-course-secret-0123456789"
    with pytest.raises(GradingError, match="matches none of the 2 copies"):
        _screen(tmp_path, dict(roster_copies), secret=wrong)


def test_code_run_from_a_string_is_flagged():
    from types import SimpleNamespace as Namespace

    from nbcore.classroom.results import SubmissionResult
    from nbcore.classroom.similarity import flag_similar

    solution = "p_offer_spam = (counts[0] + 1) / (counts.sum() + 3)\nprint(p_offer_spam)\n"
    hidden = f"exec(bytes.fromhex({solution.encode().hex()!r}))"
    chapter = Namespace(
        nb=Namespace(cells=[Namespace(source=solution)]),
        exercises=[Namespace(id="90.1", solution_cells=[0])],
    )
    plans = [
        Namespace(
            number=n,
            answers={"90.1": [source]},
            result=SubmissionResult(Path(f"{name}.ipynb"), "90", student=name),
        )
        for n, (name, source) in enumerate(
            [
                ("hex", hidden),
                ("b64", "import base64\neval(compile(base64.b64decode('cA=='), 'x', 'exec'))"),
                ("honest", "p_offer_spam = 6 / 14"),
                ("runs_own_variable", "code = input()\nexec(code)"),
                # the wrappers an attack used to escape the note: an alias, getattr, IPython
                ("alias", "run = exec\nrun(bytes([112, 61, 49]).decode())"),
                ("getattr", "import builtins\ngetattr(builtins, 'ex' + 'ec')('p = 1')"),
                ("ipython", "get_ipython().run_cell('p = 1')"),
                ("magic", "%run /tmp/p.py"),
                ("huge", "p = 1\n" * 50_000),
                # the ways that escaped the note in a later attack: IPython's shell object
                # under other names, runpy, unpickling a function, a shell escape, a magic
                ("ip_ex", "ip = get_ipython()\nip.ex('p = 1')"),
                ("runpy", "import runpy\nrunpy.run_path('/tmp/p.py')"),
                ("pickle", "import pickle\np = pickle.loads(blob)"),
                ("code_object", "f = lambda: 0\nf.__code__ = g\np = f()"),
                ("shell", "!python /tmp/p.py"),
                ("writefile", "%%writefile /tmp/p.py\np = 1"),
                ("os_system", "import os\nos.system('python /tmp/p.py')"),
            ]
        )
    ]
    notes = flag_similar(chapter, plans)
    for n in (0, 1, 3, 4, 5, 6, 7, *range(9, 16)):
        assert notes[(n, "90.1")] == ["90.1 runs code from a string"], n
    assert (2, "90.1") not in notes
    assert notes[(8, "90.1")] == ["90.1 is too long to compare"]


def test_the_copying_note_sees_runners_across_answers_and_not_in_comments():
    """The attacks: the published solution run through cProfile.runctx, or through a
    function's __globals__, scored full marks with no note; a runner bound in one answer and
    used in the others noted only the first. And honest answers were flagged: re.compile, a
    comment with "compile", "eval" or "system", %load_ext, a line starting with !=."""
    from types import SimpleNamespace as Namespace

    from nbcore.classroom.results import SubmissionResult
    from nbcore.classroom.similarity import flag_similar, runs_code_from_string

    for attack in [
        "import cProfile\ncProfile.runctx(code, {}, ns)",
        "f = lambda: 0\nrun = f.__globals__['__builtins__']",
        "run = getattr(mod, 'ex' + 'ec')",
        "import timeit\ntimeit.timeit(code, number=1)",
    ]:
        assert runs_code_from_string([attack]), attack
    for honest in [
        "import re\nwords = re.compile(r'\\w+').findall(text)",
        "# compile the counts, eval them by hand; the system of equations\nn = 3",
        "%load_ext autoreload\nn = 3",
        "x = (1\n!= 2)",
    ]:
        assert not runs_code_from_string([honest]), honest
    chapter = Namespace(
        nb=Namespace(cells=[Namespace(source="a = 1"), Namespace(source="b = 2")]),
        exercises=[
            Namespace(id="90.1", solution_cells=[0]),
            Namespace(id="90.2", solution_cells=[1]),
        ],
    )
    plan = Namespace(
        number=0,
        answers={"90.1": ["run = exec"], "90.2": ["run(blob)"]},
        result=SubmissionResult(Path("x.ipynb"), "90", student="x"),
    )
    notes = flag_similar(chapter, [plan])
    assert notes[(0, "90.1")] == ["90.1 runs code from a string"]
    assert notes[(0, "90.2")] == ["90.2 may use code run from a string in 90.1"]


def test_a_students_page_names_no_classmate():
    """The attack: a student's own feedback page showed "similar to s2's 90.4", so typical
    answers sent on purpose revealed who answered what, and account ids of classmates."""
    from nbcore.classroom.feedback import for_the_student

    assert for_the_student("similar to s2's 90.4") == "similar to another student's 90.4"
    note = "the copy made for s1 was handed in from the account of s2: counted for neither"
    assert "s2" not in for_the_student(note)
    assert "1002" not in for_the_student("copies came from more than one account (1001, 1002)")


# Forks busy loops that leave the session (os.setsid), as one answer did to starve the others;
# the parent waits for them and prints the CPU time they were charged.
BUSY = """
import os, resource, sys, time
end = time.monotonic() + 2
children = []
for _ in range(6):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        while time.monotonic() < end:
            pass
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(usage.ru_utime + usage.ru_stime)
"""


def test_busy_loops_in_one_sandbox_get_no_more_than_its_cpu_share():
    import subprocess
    import sys

    from nbcore.classroom.confine import Cgroup, cgroup_problem
    from nbcore.classroom.sandbox import JOIN

    if cgroup_problem():
        pytest.fail(f"this machine lets the grader make cgroups: {cgroup_problem()}")
    group = Cgroup(1024**3, 64, cpus=0.25)
    try:
        command = ["/bin/sh", "-c", JOIN, "sh", *group.procs, "--", sys.executable, "-c", BUSY]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    finally:
        group.remove()
    assert done.returncode == 0, done.stderr
    # 6 loops for 2 s of wall time: up to 4 s of CPU on 2 cores; a quarter core gives 0.5 s
    # (the margin: a period of 0.1 s at either end, and start-up)
    assert float(done.stdout) < 0.9


# --------------------------------------------------------------------------- a student's folder,
# file names, hints and copies (one graded batch performs these attacks together)

MOODLE_ALICE = "Alice Smith_101_assignsubmission_file_"
MOODLE_BOB = "Bob Jones_102_assignsubmission_file_"
PLANTED = [  # alice's copy, planted by bob inside his own Moodle submission folder
    f"{MOODLE_BOB}/sub/x_999_99999999_90_spam.ipynb",  # a made-up Canvas name
    f"{MOODLE_BOB}/{MOODLE_ALICE}/90_spam.ipynb",  # a folder named like alice's
]
LOOPS = 3  # bob's copies whose every answer loops: only his latest copy may run
STAND_IN = (
    "from nbcore.answers import Unanswered\n"
    "p_offer_spam = Unanswered('\\x1b[31mgrader crashed: \\x1b]0;owned\\x07 please override')"
)
ESCAPES = "\x1b[2K\x1b[1A\x1b]0;TITLE\x07\r"


def _grade_batch(work, paths):
    """Grade ``paths`` (folders, ZIPs) into ``work/out`` as an instructor would, with the
    course secret; (the finished process, {student: gradebook row}, the details rows)."""
    from classroom_helpers import BOOK

    out = work / "out"
    command = [sys.executable, "-m", "nbcore.classroom", "grade", *paths]
    command += ["--solutions", BOOK, "--timeout", "3", "--jobs", "2", "--out", out]
    done = subprocess.run(
        [str(part) for part in command],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, NBCORE_COURSE_SECRET=SECRET.decode()),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    book = {row["student"]: row for row in csv.DictReader((out / "gradebook_90_spam.csv").open())}
    details = list(csv.DictReader((out / "gradebook_details.csv").open(encoding="utf-8")))
    return done, book, details


@pytest.fixture(scope="module")
def folder_attacks(roster_copies, tmp_path_factory):
    """One batch: alice's own copy (the published solutions) in her Moodle folder; in bob's,
    alice's copy planted twice, three copies of bob's that loop and, latest, his copy that
    answers with an Unanswered carrying a made-up hint; a loose file and a ZIP member whose
    names hold terminal escapes."""
    import nbformat
    from classroom_helpers import solutions, with_answers

    work = tmp_path_factory.mktemp("folder-attacks")
    folder = work / "download"

    def put(name, nb, age):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        os.utime(path, (1_700_000_000 + age * 3600,) * 2)  # the later, the newer

    put(f"{MOODLE_ALICE}/90_spam.ipynb", with_answers(roster_copies["alice"], solutions()), 0)
    for n, name in enumerate(PLANTED):  # later than alice's own
        put(name, with_answers(roster_copies["alice"], {"90.1": "p_offer_spam = 0.0"}), 1 + n)
    loops = {exercise: "while True:\n    pass" for exercise in solutions()}
    for n in range(LOOPS):
        put(f"{MOODLE_BOB}/90_spam_loop{n}.ipynb", with_answers(roster_copies["bob"], loops), 1)
    put(f"{MOODLE_BOB}/90_spam.ipynb", with_answers(roster_copies["bob"], {"90.1": STAND_IN}), 5)
    (folder / f"carol{ESCAPES}.ipynb").write_text("not a notebook")
    zipped = work / "more.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr(f"inner{ESCAPES}.zip", b"PK\x05\x06" + b"\0" * 18)
    done, book, details = _grade_batch(work, [folder, zipped])
    out = work / "out"
    for row in details:  # named from the folder graded (two paths were given: no common base)
        row["submission"] = row["submission"].split(f"{folder.as_posix()}/", 1)[-1]
    return {"done": done, "out": out, "book": book, "details": details}


def test_a_copy_planted_in_a_subfolder_of_ones_moodle_folder_never_replaces_a_classmate(
    folder_attacks,
):
    """The attack: graded as a loose folder (not as a ZIP), a classmate's copy that bob put in
    a subfolder of his own Moodle folder, named like a Canvas download or like the classmate's
    Moodle folder, was taken for an upload of another account and, being later, replaced
    alice's grade. Now the first Moodle folder below the folder graded is the account: bob's
    account handed in two students' copies, so its copies of alice count for nobody."""
    book = folder_attacks["book"]
    assert book["alice"]["total"] == str(sum(p for p in _fixture_points().values()))
    assert "more than one account" not in book["alice"]["note"]
    aside = [row for student, row in book.items() if student not in ("alice", "bob")]
    assert len(aside) == 1  # the later planted copy (it superseded the other, not run)
    assert "other students' copies too (102): counted for nobody" in aside[0]["note"]
    assert aside[0]["student"].endswith(PLANTED[1].split("/", 1)[1])


def test_only_the_latest_copy_of_a_student_from_one_account_runs(folder_attacks):
    """The attack: every copy a student handed in ran to its limits (three copies whose
    answers loop cost three times the time, fifty copies fifty times), though only the latest
    is graded. Now the others are listed as superseded and not run."""
    details = folder_attacks["details"]
    bobs = [r for r in details if r["submission"].startswith(f"{MOODLE_BOB}/90_spam")]
    assert not [r for r in bobs if "longer than" in r["hint"]], "a looping copy ran"
    superseded = [r for r in bobs if r["status"] == "superseded"]
    assert len(superseded) == LOOPS
    assert all(f"{MOODLE_BOB}/90_spam.ipynb is a later copy" in r["hint"] for r in superseded)
    assert "(superseded, not run)" in folder_attacks["book"]["bob"]["note"]
    assert "superseded by" in folder_attacks["done"].stdout


def test_a_student_cannot_write_the_graders_hint(folder_attacks):
    """The attack: an answer that is an Unanswered("grader crashed: please override") showed
    that text as the grader's hint in the gradebook, the feedback page and the class report."""
    (row,) = [
        r
        for r in folder_attacks["details"]
        if r["submission"] == f"{MOODLE_BOB}/90_spam.ipynb" and r["exercise"] == "90.1"
    ]
    assert "your answer is a stand-in object (Unanswered), not a value" in row["hint"]
    out = folder_attacks["out"]
    pages = [*out.glob("report_*.html"), *(out / "feedback").rglob("*.html")]
    texts = [folder_attacks["done"].stdout, (out / "gradebook_details.csv").read_text()]
    texts += [page.read_text(encoding="utf-8") for page in pages]
    assert pages and not [t for t in texts if "grader crashed" in t or "owned" in t]


def test_control_characters_reach_no_terminal_and_no_report(folder_attacks):
    """The attack: file names (a loose file, a ZIP's refused member) and hints that held ESC,
    BEL or CR erased and repainted lines of the instructor's terminal and set its title."""
    done, out = folder_attacks["done"], folder_attacks["out"]
    written = [
        p.read_text(encoding="utf-8") for p in out.rglob("*") if p.suffix in (".csv", ".html")
    ]
    for text in [done.stdout, done.stderr, *written]:
        assert not set(text) & set("\x1b\x07\r\x9b\u202e"), text[:300]
    assert "carol\\x1b[2K\\x1b[1A\\x1b]0;TITLE\\x07\\x0d.ipynb" in done.stdout
    assert "inner\\x1b[2K\\x1b[1A\\x1b]0;TITLE\\x07\\x0d.zip" in done.stderr


def test_one_function_makes_every_text_printable():
    from nbcore.classroom.display import escape, printable

    assert printable("a\x1b[31mb\x07c\rd\ne\x9bf\u202eg\u2066h") == (
        "a\\x1b[31mb\\x07c\\x0dd\\x0ae\\x9bf\\u202eg\\u2066h"
    )
    assert printable(os.fsdecode(b"zz\xfe.ipynb")) == "zz\\xfe.ipynb"
    assert printable("Zoë 名前 ok") == "Zoë 名前 ok"
    assert escape("<\x1b>") == "&lt;\\x1b&gt;"


def _fixture_points():
    from classroom_helpers import FIXTURE

    from nbcore.classroom.markup import find_exercises
    from nbcore.classroom.student import read_chapter

    return {e.id: e.points for e in find_exercises(read_chapter(FIXTURE))}


def test_unanswered_from_the_sandbox_carries_only_the_graders_reasons():
    import numpy as np

    from nbcore.answers import Opaque, Unanswered, dumps, loads
    from nbcore.classroom.run import _checked_text

    def reason(value, name="p"):
        return loads(_checked_text(dumps(value), name)).reason

    assert reason(Unanswered("grader crashed: please override")) == (
        "your answer is a stand-in object (Unanswered), not a value"
    )
    # the driver's own reasons, rewritten by the grader from their kind
    said = "your code does not define anything: please override"
    assert reason(Unanswered(said), "p_x") == (
        "your code does not define p_x: store your answer in p_x"
    )
    assert reason(Unanswered("reading your answer raised PleaseOverride")) == (
        "reading your answer raised an exception"
    )
    nested = np.empty(2, dtype=object)
    nested[:] = [Unanswered("grader crashed"), 1]
    value = loads(_checked_text(dumps([nested, {"a": Unanswered("x")}]), "p"))
    assert isinstance(value[0][0], Opaque) and isinstance(value[1]["a"], Opaque)
    assert "grader crashed" not in _checked_text(dumps([nested]), "p")
    assert _checked_text(dumps([1.5, "unanswered"]), "p") == dumps([1.5, "unanswered"])


@pytest.mark.parametrize(
    "path, root, expected",
    [
        (f"{MOODLE_BOB}/sub/x_999_99999999_90_spam.ipynb", ".", ("moodle", "102")),
        (f"{MOODLE_BOB}/{MOODLE_ALICE}/90_spam.ipynb", ".", ("moodle", "102")),
        (f"{MOODLE_ALICE}/90_spam.ipynb", ".", ("moodle", "101")),
        # the instructor's folders above the folder graded are not uploads
        (
            f"x_4_assignsubmission_file_/{MOODLE_ALICE}/90_spam.ipynb",
            "x_4_assignsubmission_file_",
            ("moodle", "101"),
        ),
        (f"{MOODLE_ALICE}/90_spam.ipynb", MOODLE_ALICE, ("moodle", "101")),
        ("canvas/ames_1001_5001_90_spam.ipynb", "canvas", ("canvas", "1001")),
    ],
)
def test_a_folder_is_read_as_its_zip_is(path, root, expected):
    from nbcore.classroom import unpack

    zipped = Path("work") / unpack.UNPACKED / "0" / path
    assert unpack.uploader(Path("download") / path, Path("download") / root) == expected
    if root == ".":
        assert unpack.uploader(zipped) == expected


def test_a_notebook_with_a_byte_order_mark_is_read(tmp_path):
    from classroom_helpers import FIXTURE

    from nbcore.classroom.screen import read_submission

    path = tmp_path / "90_spam.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + FIXTURE.read_bytes())
    assert read_submission(path).cells


def test_a_link_in_a_folder_is_listed_among_the_refused_files(tmp_path):
    from nbcore.classroom.unpack import collect

    folder = tmp_path / "download"
    (folder / "s1").mkdir(parents=True)
    (folder / "s1" / "90_spam.ipynb").write_text("{}")
    (folder / "s1" / "linked.ipynb").symlink_to(tmp_path / "elsewhere.ipynb")
    found, refused, _ = collect([folder], tmp_path / "work")
    assert found == [folder]
    assert refused == [("download/s1/linked.ipynb", "a symbolic link: not followed")]


class _Reduce:
    """An object whose unpickling runs code (what a .npy of an object array may hold)."""

    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        import builtins

        return (builtins.exec, (self.code,))


def _npy_running(code):
    import io

    import numpy as np

    array = np.empty(1, dtype=object)
    array[0] = _Reduce(code)
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue().hex()


def test_the_published_solution_run_through_any_kind_of_runner_is_noted():
    """The attacks: the published solution, hex-encoded, run through trace.Trace().run, through
    np.load(..., allow_pickle=True) of a .npy whose pickle runs it, or written to a module in
    /tmp and imported: full marks and no note. Now the rules go by kind: runners of code,
    deserialisers that can run code, a module written at run time; honest answers stay
    unnoted."""
    from types import SimpleNamespace as Namespace

    from nbcore.classroom.results import SubmissionResult
    from nbcore.classroom.similarity import flag_similar

    solution = "p_offer_spam = (counts[0] + 1) / (counts.sum() + 3)\n"
    code = solution.encode().hex()
    module = ("from __main__ import *\n" + solution).encode().hex()
    npy = _npy_running("import __main__\nexec(" + repr(solution) + ", __main__.__dict__)")
    attacks = {
        "trace": "import trace\nused = (counts)\n"
        f"trace.Trace(count=0, trace=0).run(bytes.fromhex('{code}').decode())",
        "trace_from": f"from trace import Trace as T\nT().run(bytes.fromhex('{code}').decode())",
        "npload": f"import io\nnp.load(io.BytesIO(bytes.fromhex('{npy}')), allow_pickle=True)",
        "npload_positional": f"import io\nnp.load(io.BytesIO(bytes.fromhex('{npy}')), None, True)",
        "read_pickle": "p_offer_spam = pd.read_pickle(io.BytesIO(blob))",
        "joblib": "import joblib\np_offer_spam = joblib.load(path)",
        "marshal_from": "from marshal import loads as l\nf = l(blob)",
        "shelve": "import shelve\np_offer_spam = shelve.open('/tmp/s')['p']",
        "pdb": "import pdb\npdb.run(text)",
        "doctest": "import doctest\ndoctest.run_docstring_examples(f, {})",
        "module": "import sys, os\nos.makedirs('/tmp/mods', exist_ok=True)\n"
        f"open('/tmp/mods/m1.py', 'w').write(bytes.fromhex('{module}').decode())\n"
        "sys.path.insert(0, '/tmp/mods')\nfrom m1 import *",
        "module_in_cwd": f"open('m1.py', 'w').write(bytes.fromhex('{module}').decode())\n"
        "from m1 import *",
        "shadowed_stdlib": f"open('colorsys.py', 'w').write(bytes.fromhex('{module}').decode())\n"
        "from colorsys import *",
        "frame_builtins": "import sys\nf = sys._getframe()\n"
        f'f.f_builtins["ex" "ec"](bytes.fromhex("{code}").decode(), f.f_globals)',
        "getattr_static": "import inspect\n"
        "run = inspect.getattr_static(print.__self__, 'ex' 'ec')\n"
        f"run(bytes.fromhex('{code}').decode(), inspect.currentframe().f_globals)",
    }
    honest = {
        "short": "p_offer_spam = 6 / 14",
        "stdlib": "import math\np_offer_spam = math.comb(6, 2) / math.comb(14, 2)",
        "counter": "from collections import Counter\nc = Counter(words)\np_offer_spam = c[0]",
        "matrix_trace": "p_offer_spam = np.trace(np.diag(counts)) / counts.sum()",
        "json": "import json\np_offer_spam = json.loads('[0.4]')[0]",
        "reads_a_file": "with open('notes.txt') as f:\n    text = f.read()\np_offer_spam = 0.4",
        "package": "from sklearn.naive_bayes import MultinomialNB\nmodel = MultinomialNB()",
        "payload_name": "loaded = 3\npayload = loaded / 7",
        "stacked": "p_offer_spam = np.stack([counts, counts]).mean()",
    }
    sources = {**attacks, **honest}
    chapter = Namespace(
        nb=Namespace(cells=[Namespace(source=solution)]),
        exercises=[Namespace(id="90.1", solution_cells=[0])],
    )
    plans = [
        Namespace(
            number=n,
            answers={"90.1": [source]},
            result=SubmissionResult(Path(f"{name}.ipynb"), "90", student=name),
        )
        for n, (name, source) in enumerate(sources.items())
    ]
    notes = flag_similar(chapter, plans)
    by_name = {name: notes.get((n, "90.1"), []) for n, name in enumerate(sources)}
    for name in attacks:
        assert [n for n in by_name[name] if "runs code from a" in n], name
    for name in honest:
        assert by_name[name] == [], name
    # a module written in one answer and imported in another
    plan = Namespace(
        number=0,
        answers={"90.1": ["open('colorsys.py', 'w').write(text)"], "90.2": ["import colorsys"]},
        result=SubmissionResult(Path("x.ipynb"), "90", student="x"),
    )
    chapter.exercises.append(Namespace(id="90.2", solution_cells=[0]))
    notes = flag_similar(chapter, [plan])
    assert notes[(0, "90.2")] == ["90.2 may use code run from a file written in 90.1"]


# --------------------------------------------------------------------------- Moodle's download
# without folders: "<Full Name>_<id>_assignsubmission_file_<the student's file name>"


@pytest.fixture(scope="module")
def flat_attacks(roster_copies, tmp_path_factory):
    """A ZIP of Moodle's download without folders: alice's own copy (the published solutions);
    from bob's account, alice's copy with a wrong answer, named with a made-up Canvas part, and
    three copies of his own whose answers loop, named so that each would read as an account of
    its own ("_<n>_<m>_"), then his latest copy."""
    import nbformat
    from classroom_helpers import solutions, with_answers

    work = tmp_path_factory.mktemp("flat-attacks")
    loops = {exercise: "while True:\n    pass" for exercise in solutions()}
    members = [
        (f"{MOODLE_ALICE}90_spam.ipynb", with_answers(roster_copies["alice"], solutions())),
        (
            f"{MOODLE_BOB}x_7_999999_90_spam.ipynb",
            with_answers(roster_copies["alice"], {"90.1": "p_offer_spam = 0.0"}),
        ),
        *[
            (f"{MOODLE_BOB}a_{n}_1_90_spam.ipynb", with_answers(roster_copies["bob"], loops))
            for n in range(LOOPS)
        ],
        (f"{MOODLE_BOB}zz_90_spam.ipynb", with_answers(roster_copies["bob"], {})),
    ]
    zipped = work / "download.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for name, nb in members:
            archive.writestr(name, nbformat.writes(nb))
    done, book, details = _grade_batch(work, [zipped])
    return {"done": done, "book": book, "details": details}


def test_a_flat_moodle_download_names_the_account_of_every_file(flat_attacks):
    """The attacks: in Moodle's download without folders no file had an account, so alice's
    copy that bob handed in, being later, superseded her own (0 points, no note); and a digit
    pair in a file name read as a Canvas account of its own, so each looping copy ran. Now the
    LMS's part of the name, which comes first, is the account."""
    book = flat_attacks["book"]
    assert book["alice"]["total"] == str(sum(p for p in _fixture_points().values()))
    looped = [r for r in flat_attacks["details"] if "longer than" in r["hint"]]
    assert not looped, "a looping copy ran"
    superseded = [r for r in flat_attacks["details"] if r["status"] == "superseded"]
    assert len({r["submission"] for r in superseded}) == LOOPS


def test_the_lms_part_of_a_flat_name_comes_first():
    from nbcore.classroom.unpack import uploader

    assert uploader(f"{MOODLE_BOB}x_7_999999_90_spam.ipynb") == ("moodle", "102")
    assert uploader("bob_102_9999_alice_101_assignsubmission_file_x.ipynb") == ("canvas", "102")
    assert uploader("bob_LATE_102_9999_90_spam.ipynb") == ("canvas", "102")
    assert uploader("90_spam.ipynb") is None
