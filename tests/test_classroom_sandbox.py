"""One sandbox, attacked: its file system, keyring, environment, protocol and memory.

A Python below /tmp is bound over the sandbox's private /tmp; the other tests start the
grader's sandbox with the driver in it and run a cell that attacks.
"""

import errno
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from classroom_helpers import ANSWER_AHEAD

from nbcore.classroom import sandbox


def test_a_python_installed_below_tmp_is_visible_and_the_rest_of_tmp_is_not(monkeypatch):
    problem = sandbox.sandbox_problem()
    if problem:
        pytest.fail(f"the grader's sandbox must work on this machine: {problem}")
    # a checkout in /tmp (git clone . /tmp/x): its .venv and nbcore live below /tmp
    checkout = Path(tempfile.mkdtemp(prefix="nbcore-checkout-", dir="/tmp"))
    secret = Path(tempfile.mkdtemp(prefix="nbcore-grader-", dir="/tmp"))
    try:
        checkout.chmod(0o755)
        (checkout / "marker").write_text("the checkout's own file\n")
        (checkout / "marker").chmod(0o644)
        (secret / "answers").write_text("the grader's file\n")
        (secret / "answers").chmod(0o644)
        secret.chmod(0o755)
        dirs = sandbox._python_dirs()
        monkeypatch.setattr(sandbox, "_python_dirs", lambda: [*dirs, checkout])
        command = sandbox.sandbox_command(
            ["/bin/sh", "-c", f"cat {checkout}/marker; cat {secret}/answers; true"]
        )
        run = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert run.stdout == "the checkout's own file\n", run.stderr
        assert "No such file" in run.stderr  # the grader's own /tmp stays out of reach
    finally:
        for folder in (checkout, secret):
            for child in folder.iterdir():
                child.unlink()
            os.rmdir(folder)


# --------------------------------------------------------------------------- attacks on a sandbox

# add_key, request_key: the kernel's keyring calls (x86_64, aarch64)
KEY_CALLS = {"x86_64": (248, 249), "aarch64": (217, 218)}[platform.machine()]
KEYRING = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, REQUEST_KEY = {calls}
{line}
errno_seen = ctypes.get_errno()
"""


def _box(limits=None):
    problem = sandbox.sandbox_problem()
    if problem:
        pytest.fail(f"the grader's sandbox must work on this machine: {problem}")
    box = sandbox.Sandbox(0, limits or sandbox.Limits())
    box.start()
    return box


def _value(box, expression):
    from nbcore.answers import loads

    return loads(box.request({"export": expression, "attribute": None}, 30)["value"])


def test_a_key_left_in_the_keyring_does_not_reach_the_next_sandbox():
    add = "serial = libc.syscall(ADD_KEY, b'user', b'nbcore-left', b'secret', 6, -4)"
    find = "serial = libc.syscall(REQUEST_KEY, b'user', b'nbcore-left', None, 0)"
    with _box() as first:
        code = KEYRING.format(calls=KEY_CALLS, line=add)
        assert first.request({"run": code, "limit": 10}, 20) == {"ok": True}
        assert _value(first, "(serial, errno_seen)") == (-1, errno.EPERM)
    with _box() as second:
        code = KEYRING.format(calls=KEY_CALLS, line=find)
        assert second.request({"run": code, "limit": 10}, 20) == {"ok": True}
        assert _value(second, "serial") == -1


def test_the_grader_environment_stays_out_of_the_sandbox(monkeypatch):
    monkeypatch.setenv("NBCORE_COURSE_SECRET", "course-secret-that-must-not-leak")
    with _box() as box:
        # bwrap is the sandbox's process 1 when it makes a user namespace (a grader that is
        # not root): whatever environment bwrap has, the student's code can read
        environ = Path(f"/proc/{box.process.pid}/environ").read_bytes()
        assert b"course-secret-that-must-not-leak" not in environ
        assert set(dict(v.split(b"=", 1) for v in environ.split(b"\0") if v)) <= {
            b"PATH",
            b"LANG",
            b"PWD",
        }
        code = "import os\nseen = [k for k in os.environ if 'SECRET' in k]"
        assert box.request({"run": code, "limit": 10}, 20) == {"ok": True}
        assert _value(box, "seen") == []


def test_a_sandbox_that_answers_ahead_and_stops_reading_cannot_hang_the_grader():
    outcome = {}

    def attack():
        with _box() as box:
            outcome["first"] = box.request({"run": ANSWER_AHEAD, "limit": 2}, 4)
            time.sleep(2)  # the answers written ahead pile up
            outcome["queued"] = box.replies.qsize()
            started = time.monotonic()
            try:
                box.request({"run": "# " + "x" * 4_000_000, "limit": 2}, 4)
            except sandbox.SandboxError as error:
                outcome["error"] = error.kind
            outcome["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=attack, daemon=True)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the grader's request blocked past its time limit"
    assert outcome["first"]["ok"] is True  # the forged answer: the grader cannot tell
    assert outcome["queued"] <= sandbox.QUEUED_REPLIES
    assert outcome["error"] == "timeout"
    assert outcome["seconds"] < 10


CHILDREN = """
import os, time
pids = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        block = b"\\1" * (400 * 1024**2)  # written, so resident
        time.sleep(3)
        os._exit(0)
    pids.append(pid)
survivors = sum(os.waitpid(pid, 0)[1] == 0 for pid in pids)
"""


def test_the_memory_limit_holds_for_the_sandbox_as_a_whole():
    from nbcore.classroom.confine import cgroup_problem

    if sys.platform.startswith("linux") and cgroup_problem():
        pytest.fail(f"this machine lets the grader make cgroups: {cgroup_problem()}")
    with _box(sandbox.Limits(memory_bytes=768 * 1024**2)) as box:
        reply = box.request({"run": CHILDREN, "limit": 30}, 40)
        assert reply == {"ok": True}, reply
        # 3 x 400 MB fit the limit of each process, not that of the sandbox
        assert _value(box, "survivors") <= 1


EMPTY_FILES = """
import os
made = 0
try:
    for i in range(1_500_000):
        os.close(os.open(f"/tmp/f{i}", os.O_CREAT | os.O_WRONLY))
        made += 1
except OSError:
    pass
"""


def test_empty_files_in_the_private_tmp_count_against_the_memory_limit():
    # an empty file takes kernel memory (its inode and directory entry) and no tmpfs block:
    # the tmpfs size does not stop them, the sandbox's memory cgroup does
    from nbcore.classroom.confine import cgroup_problem

    if cgroup_problem():
        pytest.fail(f"this machine lets the grader make cgroups: {cgroup_problem()}")
    limit = 512 * 1024**2
    with _box(sandbox.Limits(memory_bytes=limit)) as box:
        folder = Path(box.cgroup.procs[0]).parent
        try:
            reply = box.request({"run": EMPTY_FILES, "limit": 100}, 110)
            made = _value(box, "made") if reply.get("ok") else None
        except sandbox.SandboxError as error:  # the kernel's OOM killer ended it
            assert error.kind == "dead"
            made = None
        peak_file = folder / "memory.max_usage_in_bytes"  # cgroup v1; v2: memory.peak
        peak = int((peak_file if peak_file.exists() else folder / "memory.peak").read_text())
    assert made is None or made < 1_500_000
    assert peak <= limit
