"""Hostile submissions: each test builds an attack, the module grades them all in one run.

Every submission is a student copy of the fixture chapter. Most attack from an answer cell;
what they try to reach (the grader's files, the book, classmates, the environment, the
network, the machine) is named in the test. Where an attack's success would not show in the
grades, the attacking code reports what it saw through its own answer: ``variances`` is None
when it found nothing, and a string otherwise, so the check's hint tells which.
"""

import hashlib
import os
import socket
import stat
import threading
import time
from pathlib import Path

import nbformat
import pytest
from classroom_helpers import FIXTURE, ROOT, grade_folder, read_details, solutions
from classroom_helpers import with_answers as fill

from nbcore.classroom.student import make_student_copies

TIMEOUT = 3  # seconds per student cell
BUDGET = 15  # seconds per submission
SECRET_NAME = "NBCORE_GRADER_SECRET_TEST"
SECRET_VALUE = "grader-secret-5f1e0c"
NOTHING_FOUND = "your answer is None: assign the value itself (print() returns None)"

CONFTEST = '''
import os, pathlib
conftest = """
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""
record = (
    '{"cell": 0, "exercise": "90.1", "role": "check", "when": "call", "outcome": "passed",'
    ' "stdout": "Exercise 90.1: correct (1 point)\\\\n", "error": "", "submission": 0}\\n'
)
for root in ["/tmp", os.path.expanduser("~"), os.getcwd(), %(repo)r, %(folder)r]:
    for dirpath, dirnames, filenames in os.walk(root):
        for name, text in [("conftest.py", conftest), ("checks.jsonl", record)]:
            try:
                pathlib.Path(dirpath, name).write_text(text)
            except OSError:
                pass
p_offer_spam = 0.5
'''

STARTUP = """
import os, pathlib, sysconfig
payload = (
    "from nbcore import exercises\\n"
    "exercises.check_number = exercises.check_array = exercises.check_label = "
    "lambda exercise, *a, **k: print(f'Exercise {exercise}: correct (1 point)')\\n"
)
homes = [os.path.expanduser("~"), os.environ.get("IPYTHONDIR", ""), %(home)r]
for home in homes:
    folder = pathlib.Path(home, ".ipython", "profile_default", "startup")
    for target in (folder, pathlib.Path(home, "profile_default", "startup")):
        try:
            target.mkdir(parents=True, exist_ok=True)
            (target / "00-nbcore-pass.py").write_text(payload)
        except OSError:
            pass
try:
    pathlib.Path(sysconfig.get_paths()["purelib"], "zz_nbcore_attack.pth").write_text(
        "import os; os.environ['NBCORE_ATTACKED'] = '1'\\n"
    )
except OSError:
    pass
try:
    with open(%(init)r, "a") as file:
        file.write("\\nfrom nbcore import exercises as _e; _e.verdict_line = None\\n")
except OSError:
    pass
import nbcore
try:
    with open(nbcore.__file__, "a") as file:
        file.write("\\nATTACKED = True\\n")
except OSError:
    pass
p_offer_spam = 0.5
"""

FIND_THE_BOOK = """
import glob, json, os
found = None
roots = [os.path.dirname(os.path.dirname(__import__("nbcore").__file__)), "/", "/proc/1/cwd"]
try:
    roots.append(os.readlink(f"/proc/{os.getppid()}/cwd"))
except OSError:
    pass
for root in roots:
    for dirpath, dirnames, filenames in os.walk(root):
        skip = ("proc", "sys", "dev", "usr", "etc", "lib", "lib64", "site-packages", "include")
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames:
            if name.endswith(".ipynb"):
                path = os.path.join(dirpath, name)
                try:
                    nb = json.load(open(path))
                    with open(path, "a") as file:  # and rewrite its checks
                        file.write(" ")
                except (OSError, ValueError):
                    continue
                for cell in nb.get("cells", []):
                    if cell.get("metadata", {}).get("role") == "solution":
                        found = path
                        exec("".join(cell["source"]))
        if found:
            break
if not found:
    p_offer_spam = None
"""

DAEMON = """
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sh", ["sh", "-c", %(script)r])
    os._exit(0)
time.sleep(0.5)
p_offer_spam = 0.5
"""
DAEMON_SCRIPT = (
    "for i in $(seq 40); do sleep 0.5; echo '=HACKED' >> %(gradebook)s; "
    "echo alive >> %(marker)s; done # %(token)s"
)

CHECK_DIR = """
import os, tempfile
for base in ["/tmp", tempfile.gettempdir(), %(host_tmp)r]:
    for name in ["nbcore-grade-0", "check", "check-0"]:
        try:
            os.makedirs(os.path.join(base, name, "check"), exist_ok=True)
            os.chmod(os.path.join(base, name), 0)
        except OSError:
            pass
p_offer_spam = 0.5
"""

CLASSMATES = """
import glob, os
for path in glob.glob(os.path.join(%(folder)r, "*.ipynb")) + glob.glob("/home/*/*.ipynb"):
    try:
        with open(path, "w") as file:
            file.write("{}")
    except OSError:
        pass
p_offer_spam = 0.5
"""

ENVIRONMENT = """
import glob, os
variances = os.environ.get(%(name)r)
for path in glob.glob("/proc/*/environ"):
    try:
        if %(value)r.encode() in open(path, "rb").read():
            variances = "found in " + path
    except OSError:
        pass
"""

NETWORK = """
import socket
variances = None
for host, port in [("127.0.0.1", %(port)d), ("1.1.1.1", 53), (%(host_ip)r, %(port)d)]:
    try:
        socket.create_connection((host, port), timeout=1).close()
        variances = "connected to " + host
    except OSError:
        pass
"""

HUGE = 'p_offer_spam = "0" * 200_000_000'
FORGED = """
import os, stat, time
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, b'{"value": "' + b"9" * 6_000_000)
    except OSError:
        pass
time.sleep(30)
"""
HALF_LINE = """
import os, stat, time
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, b'{"ok": tr')
    except OSError:
        pass
while True:
    time.sleep(1)
"""
FORK_BOMB = """
import os, time
children = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
except OSError:
    pass
label = "ham" if children < 100_000 else "spam"
"""
MEMORY = "hog = bytearray(64 * 1024**3)\nmodel = None"
KILL_ALL = """
import os, signal
for pid in (-1, 1, os.getppid()):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
os._exit(1)
"""
SLEEPER = "import time\ntime.sleep(2.5)"


def _md5(path):
    return hashlib.md5(Path(path).read_bytes()).hexdigest()


def _ipynb(folder, name, nb):
    nbformat.write(nb, folder / f"{name}.ipynb")


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    """Grade one folder of hostile submissions (and two honest ones) in one run."""
    work = tmp_path_factory.mktemp("attacks")
    (copy,) = make_student_copies([FIXTURE], work / "copies", log=lambda message: None)
    student = nbformat.read(copy, as_version=4)
    solution = solutions()
    folder = work / "returned"
    folder.mkdir()
    host_marker = work / "host"
    host_marker.mkdir()
    host_marker.chmod(0o777)
    token = f"nbcore-daemon-{os.getpid()}-{time.time_ns()}"

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    connections = []

    def serve():
        while not stop.is_set():
            try:
                connections.append(server.accept())
            except OSError:
                pass

    stop = threading.Event()
    threading.Thread(target=serve, daemon=True).start()
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))
        host_ip = probe.getsockname()[0]
    except OSError:
        host_ip = "127.0.0.1"
    finally:
        probe.close()

    values = {
        "repo": str(ROOT),
        "folder": str(folder),
        "home": str(Path.home()),
        "init": str(ROOT / "nbcore" / "__init__.py"),
        "host_tmp": str(host_marker),
        "name": SECRET_NAME,
        "value": SECRET_VALUE,
        "port": server.getsockname()[1],
        "host_ip": host_ip,
    }
    script = DAEMON_SCRIPT % {
        "gradebook": folder / "gradebook_90_spam.csv",
        "marker": host_marker / "daemon-alive",
        "token": token,
    }
    attacks = {
        "attack_conftest": {"90.1": CONFTEST % values},
        "attack_startup_pth_init": {"90.1": STARTUP % values},
        "attack_find_the_book": {"90.1": FIND_THE_BOOK},
        "attack_daemon": {"90.1": DAEMON % {"script": script}},
        "attack_check_dir": {"90.1": CHECK_DIR % values},
        "attack_classmates": {"90.1": CLASSMATES % values},
        "attack_environment": {"90.5": ENVIRONMENT % values},
        "attack_network": {"90.5": NETWORK % values},
        "attack_huge_answer": {"90.1": HUGE},
        "attack_forged_reply": {"90.2": FORGED},
        "attack_half_reply": {"90.2": HALF_LINE},
        "attack_fork_bomb": {"90.3": FORK_BOMB},
        "attack_memory": {"90.4": MEMORY},
        "attack_kill_all": {"90.1": KILL_ALL},
    }
    for name, answers in attacks.items():
        _ipynb(folder, name, fill(student, {**solution, **answers}))
    sleepers = fill(student, {**solution, "90.1": SLEEPER}, extra={"90.1": SLEEPER})
    index = next(i for i, c in enumerate(sleepers.cells) if c.metadata.get("exercise") == "90.1")
    sleepers.cells[index + 1 : index + 1] = [nbformat.v4.new_code_cell(SLEEPER) for _ in range(8)]
    _ipynb(folder, "attack_sleepers", sleepers)

    # submissions refused before any code runs
    _ipynb(folder, "refused_book_90_spam", nbformat.read(FIXTURE, as_version=4))
    planted = fill(student, solution)
    answer = next(c for c in planted.cells if c.metadata.get("role") == "answer")
    answer.metadata["role"] = "solution"
    _ipynb(folder, "refused_planted_solution", planted)
    planted = fill(student, solution)
    planted.cells.append(
        nbformat.v4.new_code_cell("x = 1", metadata={"exercise": "90.9", "role": "answer"})
    )
    _ipynb(folder, "refused_planted_exercise", planted)
    dotted = fill(student, solution)
    dotted.metadata["nbcore"]["chapter"] = "../fixtures/book/90_spam"
    _ipynb(folder, "refused_dotted_chapter", dotted)
    foreign = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("p_offer_spam = 6/14")])
    _ipynb(folder, "refused_foreign_90_spam", foreign)
    text = (folder / "attack_conftest.ipynb").read_text()
    (folder / "refused_truncated.ipynb").write_text(text[: len(text) // 2])
    os.mkfifo(folder / "refused_fifo.ipynb")
    nbformat.write(fill(student, {}), folder / "=HYPERLINK(1).ipynb")

    # honest work, graded with (and after most of) the attackers
    _ipynb(folder, "honest_full", fill(student, solution))
    _ipynb(folder, "zz_honest_wrong", fill(student, {**solution, "90.1": "p_offer_spam = 0.5"}))

    hashes = {
        p: _md5(p)
        for p in [*folder.glob("*.ipynb"), FIXTURE, ROOT / "nbcore" / "__init__.py"]
        if p.is_file()
    }
    started = time.monotonic()
    done = grade_folder(
        folder,
        "--timeout",
        TIMEOUT,
        "--budget",
        BUDGET,
        "--jobs",
        2,
        env={SECRET_NAME: SECRET_VALUE},
    )
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-3000:]
    gradebook = (folder / "gradebook_90_spam.csv").read_text()
    time.sleep(3)  # a daemon left behind would write now
    stop.set()
    results, refused = read_details(folder)
    leftovers = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if token.encode() in cmdline.read_bytes():
                leftovers.append(cmdline.parent.name)
        except OSError:
            pass
    return {
        "results": results,
        "refused": refused,
        "folder": folder,
        "hashes": hashes,
        "gradebook": gradebook,
        "marker": host_marker,
        "connections": connections,
        "leftovers": leftovers,
        "seconds": seconds,
        "stdout": done.stdout,
    }


def _status(attacked, name):
    return {e: row["status"] for e, row in attacked["results"][name].items()}


def _hint(attacked, name, exercise):
    return attacked["results"][name][exercise]["hint"]


def _passes_except(attacked, name, failing):
    statuses = _status(attacked, name)
    assert {e for e, s in statuses.items() if s != "passed"} == set(failing), statuses


def test_fake_nbval_records_and_conftest_do_not_pass(attacked):
    _passes_except(attacked, "attack_conftest", ["90.1"])
    assert (
        not (ROOT / "conftest.py").exists()
        or "outcome.get_result()" not in (ROOT / "conftest.py").read_text()
    )
    assert not list(attacked["folder"].rglob("conftest.py"))
    assert not list(attacked["folder"].rglob("checks.jsonl"))


def test_startup_files_pth_and_nbcore_edits_do_not_reach_later_students(attacked):
    _passes_except(attacked, "attack_startup_pth_init", ["90.1"])
    _passes_except(attacked, "zz_honest_wrong", ["90.1"])
    assert _hint(attacked, "zz_honest_wrong", "90.1") == (
        "the denominator needs alpha once per word of the vocabulary: + 3"
    )
    home = Path.home() / ".ipython" / "profile_default" / "startup" / "00-nbcore-pass.py"
    assert not home.exists()
    import sysconfig

    assert not (Path(sysconfig.get_paths()["purelib"]) / "zz_nbcore_attack.pth").exists()
    init = ROOT / "nbcore" / "__init__.py"
    assert _md5(init) == attacked["hashes"][init]


def test_the_book_on_disk_is_neither_found_nor_rewritten(attacked):
    _passes_except(attacked, "attack_find_the_book", ["90.1"])
    assert _hint(attacked, "attack_find_the_book", "90.1") == NOTHING_FOUND
    assert _md5(FIXTURE) == attacked["hashes"][FIXTURE]


def test_a_setsid_daemon_dies_with_the_sandbox(attacked):
    _passes_except(attacked, "attack_daemon", ["90.1"])
    assert attacked["leftovers"] == []
    assert not (attacked["marker"] / "daemon-alive").exists()
    assert (attacked["folder"] / "gradebook_90_spam.csv").read_text() == attacked["gradebook"]
    assert "HACKED" not in attacked["gradebook"]


def test_precreated_check_folders_do_not_stop_the_batch(attacked):
    _passes_except(attacked, "attack_check_dir", ["90.1"])
    assert list(attacked["marker"].iterdir()) == []
    assert _status(attacked, "honest_full") == dict.fromkeys(
        ["90.1", "90.2", "90.3", "90.4", "90.5"], "passed"
    )


def test_classmates_notebooks_cannot_be_overwritten(attacked):
    _passes_except(attacked, "attack_classmates", ["90.1"])
    for path, digest in attacked["hashes"].items():
        if path.suffix == ".ipynb" and path.parent == attacked["folder"]:
            assert _md5(path) == digest, path


def test_the_graders_environment_is_not_visible(attacked):
    _passes_except(attacked, "attack_environment", ["90.5"])
    assert _hint(attacked, "attack_environment", "90.5") == NOTHING_FOUND


def test_no_network(attacked):
    _passes_except(attacked, "attack_network", ["90.5"])
    assert _hint(attacked, "attack_network", "90.5") == NOTHING_FOUND
    assert attacked["connections"] == []


def test_a_huge_answer_is_refused_not_read(attacked):
    _passes_except(attacked, "attack_huge_answer", ["90.1"])
    assert _hint(attacked, "attack_huge_answer", "90.1") == "your answer is too large to grade"


def test_forged_or_half_written_replies_fail_only_their_exercise(attacked):
    _passes_except(attacked, "attack_forged_reply", ["90.2", "90.3"])  # 90.3 reads 90.2's names
    assert _hint(attacked, "attack_forged_reply", "90.2") == "your answer is too large to grade"
    _passes_except(attacked, "attack_half_reply", ["90.2", "90.3"])
    # the half line is read as it comes, unless a loaded machine lets the time limit come first
    assert _hint(attacked, "attack_half_reply", "90.2") in (
        "your code wrote something that is not an answer",
        f"your code ran longer than {TIMEOUT} s, the time limit",
    )


def test_a_fork_bomb_is_contained(attacked):
    _passes_except(attacked, "attack_fork_bomb", ["90.3"])
    assert _hint(attacked, "attack_fork_bomb", "90.3") == "that is the class with the lower score"


def test_a_memory_hog_is_contained(attacked):
    _passes_except(attacked, "attack_memory", ["90.4"])
    assert _hint(attacked, "attack_memory", "90.4").startswith("your code raised MemoryError")


def test_killing_every_process_fails_only_that_exercise(attacked):
    _passes_except(attacked, "attack_kill_all", ["90.1"])
    assert _hint(attacked, "attack_kill_all", "90.1").startswith("your code stopped the Python")


def test_a_submission_has_a_total_time_budget(attacked):
    statuses = _status(attacked, "attack_sleepers")
    assert statuses["90.1"] == "failed"
    assert any(
        "time budget" in _hint(attacked, "attack_sleepers", e) for e in ("90.2", "90.3", "90.4")
    ), attacked["results"]["attack_sleepers"]
    assert attacked["seconds"] < 240


def test_book_notebooks_planted_cells_and_foreign_files_are_refused(attacked):
    refused = attacked["refused"]
    assert "not a student copy" in refused["refused_book_90_spam"]
    assert "role: solution" in refused["refused_planted_solution"]
    assert "exercise '90.9'" in refused["refused_planted_exercise"]
    assert "not a chapter of the book" in refused["refused_dotted_chapter"]
    assert "not a student copy" in refused["refused_foreign_90_spam"]
    assert refused["refused_truncated"].startswith("cannot tell which chapter") or (
        "not a readable notebook" in refused["refused_truncated"]
    )
    assert "not a regular file" in refused["refused_fifo"]
    assert stat.S_ISFIFO((attacked["folder"] / "refused_fifo.ipynb").stat().st_mode)
    for name in refused:
        assert name not in attacked["results"]


def test_gradebook_cells_are_never_formulas(attacked):
    rows = attacked["gradebook"].splitlines()
    assert any(row.startswith("'=HYPERLINK(1)") for row in rows)
    for path in attacked["folder"].glob("gradebook*.csv"):
        for line in path.read_text().splitlines():
            for value in line.split(","):
                assert not value.startswith(("=", "+", "-", "@")), (path.name, line)
