"""The set-up `make` does by itself: tools/setup_system.sh and the Makefile's order.

The script runs here with a PATH that holds only stub programs, so each test decides which
commands exist (npm, chromium, chromedriver, bwrap, apt-get, sudo), who runs it (``id -u``)
and whether sudo asks for a password; stubs that install record their arguments in a log.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "setup_system.sh"
ALL_TOOLS = ("python3", "npm", "chromium", "chromedriver", "bwrap")


def _stub(folder, name, body="exit 0"):
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)


def _run(tmp_path, present, uid=1000, sudo=None, apt=True, dry_run=True, bodies=None, grading=True):
    """Run the script with only `present` (and the chosen id/sudo/apt-get stubs) on PATH.

    sudo: None (no sudo), "nopasswd" (sudo -n true succeeds, then runs its arguments) or
    "passwd" (sudo -n fails, as when it would ask for a password).
    """
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "log"
    for name in present:
        _stub(bin_, name, (bodies or {}).get(name, "exit 0"))
    _stub(bin_, "id", f'[ "$1" = -u ] && echo {uid}')
    if apt:
        _stub(bin_, "apt-get", f'echo "apt-get $*" >> {log}')
        _stub(bin_, "env", f'echo "env $*" >> {log}')
    if sudo == "nopasswd":
        _stub(bin_, "sudo", f'[ "$1" = -n ] && exit 0\necho "sudo $*" >> {log}')
    elif sudo == "passwd":
        _stub(bin_, "sudo", f'echo "sudo $*" >> {log}\nexit 1')
    args = ["/bin/sh", str(SCRIPT)] + (["--dry-run"] if dry_run else [])
    args += ["--grading"] if grading else []
    result = subprocess.run(
        args, env={"PATH": str(bin_)}, capture_output=True, text=True, timeout=30
    )
    ran = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return result, ran


def test_nothing_missing_installs_nothing(tmp_path):
    result, ran = _run(tmp_path, ALL_TOOLS, uid=0, dry_run=False)
    assert result.returncode == 0, result.stderr
    assert ran == []


@pytest.mark.parametrize(
    "absent, packages",
    [
        (("chromium", "chromedriver"), "chromium chromium-driver"),
        (("npm",), "npm"),
        (("bwrap",), "bubblewrap"),
        (("npm", "chromium", "chromedriver", "bwrap"), "npm chromium chromium-driver bubblewrap"),
    ],
)
def test_root_installs_the_missing_packages(tmp_path, absent, packages):
    present = [t for t in ALL_TOOLS if t not in absent]
    result, ran = _run(tmp_path, present, uid=0)
    assert result.returncode == 0, result.stderr
    assert f"system packages missing: {packages}" in result.stdout
    assert (
        "would run: apt-get update -qq && env DEBIAN_FRONTEND=noninteractive "
        f"apt-get install -y -qq {packages}"
    ) in result.stdout
    assert ran == [], "a dry run must not run anything"


def test_chromium_browser_counts_as_chromium(tmp_path):
    present = ["python3", "npm", "chromium-browser", "chromedriver", "bwrap"]
    result, _ = _run(tmp_path, present, uid=0)
    assert result.returncode == 0 and "missing" not in result.stdout


def test_python_without_venv_module_needs_python3_venv(tmp_path):
    # a python3 whose `import ensurepip` fails (Debian without python3-venv)
    result, _ = _run(tmp_path, ALL_TOOLS, uid=0, bodies={"python3": "exit 1"})
    assert "system packages missing: python3-venv\n" in result.stdout


def test_no_python_at_all(tmp_path):
    result, _ = _run(tmp_path, ALL_TOOLS[1:], uid=0)
    assert "system packages missing: python3 python3-venv\n" in result.stdout


def test_root_really_runs_apt_get(tmp_path):
    result, ran = _run(tmp_path, ["python3", "npm", "chromium", "bwrap"], uid=0, dry_run=False)
    assert result.returncode == 0, result.stderr
    assert ran == [
        "apt-get update -qq",
        "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-driver",
    ]


def test_passwordless_sudo_is_used(tmp_path):
    present = ["python3", "npm", "chromium", "chromedriver"]
    result, ran = _run(tmp_path, present, uid=1000, sudo="nopasswd")
    assert result.returncode == 0, result.stderr
    assert (
        "would run: sudo apt-get update -qq && sudo env DEBIAN_FRONTEND=noninteractive "
        "apt-get install -y -qq bubblewrap"
    ) in result.stdout
    assert ran == []


def test_passwordless_sudo_really_runs(tmp_path):
    present = ["python3", "npm", "chromium", "chromedriver"]
    result, ran = _run(tmp_path, present, uid=1000, sudo="nopasswd", dry_run=False)
    assert result.returncode == 0, result.stderr
    assert ran == [
        "sudo apt-get update -qq",
        "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap",
    ]


@pytest.mark.parametrize("sudo", [None, "passwd"])
@pytest.mark.parametrize("dry_run", [True, False])
def test_without_root_it_stops_with_the_command(tmp_path, sudo, dry_run):
    present = ["python3", "bwrap"]
    result, ran = _run(tmp_path, present, uid=1000, sudo=sudo, dry_run=dry_run)
    assert result.returncode == 1
    assert (
        "sudo apt-get update && sudo apt-get install -y npm chromium chromium-driver"
        in result.stderr
    )
    # nothing installed, and sudo never asked for a password (only `sudo -n true` was tried)
    assert not [line for line in ran if not line.startswith("sudo -n")]


def test_without_apt_get_it_names_what_is_missing(tmp_path):
    result, ran = _run(tmp_path, ["python3", "npm", "bwrap"], uid=0, apt=False)
    assert result.returncode == 1
    assert "chromium chromium-driver" in result.stderr and "package manager" in result.stderr
    assert ran == []


def test_without_grading_bubblewrap_is_not_needed(tmp_path):
    result, ran = _run(tmp_path, ALL_TOOLS[:-1], uid=0, dry_run=False, grading=False)
    assert result.returncode == 0, result.stderr
    assert ran == [] and "missing" not in result.stdout
    (tmp_path / "again").mkdir()
    result, _ = _run(tmp_path / "again", ALL_TOOLS[:-1], uid=0, grading=True)
    assert "system packages missing: bubblewrap" in result.stdout


@pytest.mark.parametrize(
    "target, grading",
    [("book", False), ("lab", False), ("student", False), ("grade NB=x", True), ("test", True)],
)
def test_only_grading_needs_bubblewrap(target, grading):
    result = subprocess.run(
        ["make", "-n", "-B", *target.split()], cwd=ROOT, capture_output=True, text=True
    )
    setups = [line for line in result.stdout.splitlines() if "tools/setup_system.sh" in line]
    assert setups, result.stderr
    assert any("--grading" in line for line in setups) == grading


def test_bad_argument(tmp_path):
    result = subprocess.run(
        ["/bin/sh", str(SCRIPT), "--yes"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2 and "usage" in result.stderr


# --- the Makefile and CI use it --------------------------------------------------------------


def _make_dry(target):
    """Commands `make -n -B TARGET` would run, in order (nothing is run)."""
    result = subprocess.run(
        ["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.mark.parametrize("target", ["install", "book", "test"])
def test_every_readme_command_sets_up_the_system_first(target):
    lines = _make_dry(target)
    first = lambda text: next(i for i, line in enumerate(lines) if text in line)  # noqa: E731
    system, venv = first("tools/setup_system.sh"), first("-m venv")
    vendor = first("tools/vendor_js.py")
    assert system < venv < vendor


def test_ci_only_calls_make_test():
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line for line in lines if line.strip() and not line.startswith("#")]
    assert commands[-1] == "make test"
    assert not any("apt-get" in line or "sudo" in line for line in commands)


def test_lab_uses_the_projects_workspaces_and_encrypted_kernels():
    result = subprocess.run(
        ["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "tools/lab.py" in result.stdout  # make lab starts Lab through tools/lab.py
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import lab
    finally:
        sys.path.remove(str(ROOT / "tools"))
    command = " ".join(map(str, lab.lab_command()))
    assert f"--LabApp.workspaces_dir={ROOT}/_build/lab-workspaces" in command
    assert "--KernelManager.transport_encryption=auto" in command
    assert "_build/" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()
