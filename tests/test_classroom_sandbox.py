"""The sandbox's file system: a Python below /tmp is bound over the sandbox's private /tmp."""

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

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
