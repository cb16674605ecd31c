"""``make wheel``: what students install holds nbcore and its course extra, no chapter, no solution.

The wheel is built as ``make wheel`` builds it (``pip wheel --no-deps``), from a copy of the
repository's tracked files, so the test never writes into the checkout.
"""

import email
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import pytest
from solution_text import comparable, solution_texts

ROOT = Path(__file__).resolve().parent.parent
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    tracked = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    source = tmp / "source"
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    dist = tmp / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
         "--no-deps", "-w", str(dist), str(source)],
        check=True,
    )  # fmt: skip
    built = list(dist.glob("*.whl"))
    assert [w.name for w in built] == [f"nbcore-{VERSION}-py3-none-any.whl"]
    return zipfile.ZipFile(built[0])


def test_the_wheel_holds_nbcore_and_no_chapter(wheel):
    names = wheel.namelist()
    data = f"nbcore-{VERSION}.data/data/"
    allowed = ("nbcore/", f"nbcore-{VERSION}.dist-info/", data)
    assert all(name.startswith(allowed) for name in names), [
        n for n in names if not n.startswith(allowed)
    ]
    assert "nbcore/__init__.py" in names and "nbcore/data/SMSSpamCollection" in names
    assert "nbcore/data/heightWeightData.txt" in names
    assert "nbcore/data/heightWeightData.README.md" in names
    assert not [n for n in names if n.endswith(".ipynb") or "/book/" in n or n.startswith("book")]


def test_the_wheel_declares_the_course_extra(wheel):
    info = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = email.message_from_bytes(wheel.read(info))
    assert "course" in metadata.get_all("Provides-Extra")
    requires = " ".join(metadata.get_all("Requires-Dist"))
    for package in ("jupyterlab", "ipykernel", "scikit-learn"):
        assert f'{package}; extra == "course"' in requires


def test_the_wheel_holds_no_solution_source(wheel):
    text = comparable(" ".join(wheel.read(n).decode("utf-8", "replace") for n in wheel.namelist()))
    leaked = [
        (stem, line)
        for stem, lines in solution_texts().items()
        for line in lines
        if comparable(line) in text
    ]
    assert not leaked, leaked[:5]


def test_the_wheel_turns_on_encrypted_kernel_sockets_for_jupyter(wheel):
    """A plain `jupyter lab` of the student install reads this file (sys.prefix/etc/jupyter)."""
    name = f"nbcore-{VERSION}.data/data/etc/jupyter/jupyter_server_config.d/"
    config = [n for n in wheel.namelist() if n.startswith(name) and n.endswith(".json")]
    assert len(config) == 1
    assert json.loads(wheel.read(config[0])) == {
        "ServerApp": {"jpserver_extensions": {"nbcore._jupyter": True}}
    }
    assert "nbcore/_jupyter.py" in wheel.namelist()


def test_the_readme_installs_that_wheel_with_the_course_extra():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = f'pip install -c constraints.txt "nbcore-{VERSION}-py3-none-any.whl[course]"'
    assert command in readme
    assert 'pip install -c constraints.txt ".[course]"' not in readme


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_a_kernel_in_plain_lab(config_dir, tmp, extra=()):
    """Start `jupyter lab` with only ``config_dir`` added, start one kernel; return the log."""
    port, token = _free_port(), "wheel-test"
    runtime = tmp / f"runtime-{port}"
    env = dict(os.environ, JUPYTER_CONFIG_PATH=str(config_dir), JUPYTER_RUNTIME_DIR=str(runtime))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("JUPYTER_PREFER_ENV_PATH", None)
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
        "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={tmp}", *extra,
    ]  # fmt: skip
    if os.geteuid() == 0:
        command.append("--allow-root")
    log_path = tmp / f"lab-{port}.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
        try:
            url, headers = f"http://127.0.0.1:{port}/api", {"Authorization": f"token {token}"}
            deadline = time.monotonic() + 120
            kernel = None
            while kernel is None and time.monotonic() < deadline and server.poll() is None:
                try:
                    request = urllib.request.Request(
                        f"{url}/kernels", data=b"{}", method="POST", headers=headers
                    )
                    kernel = json.load(urllib.request.urlopen(request, timeout=30))["id"]
                except OSError:
                    time.sleep(1)
            assert kernel, f"no kernel started: {log_path.read_text()[-2000:]}"
            connection = runtime / f"kernel-{kernel}.json"
            while not connection.is_file() and time.monotonic() < deadline:
                time.sleep(0.5)
            # ipykernel warns just before it binds its shell socket: once that port accepts a
            # connection, the warning (if any) has been written
            port = json.loads(connection.read_text())["shell_port"]
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.5)
            else:
                pytest.fail(f"the kernel never listened: {log_path.read_text()[-2000:]}")
            time.sleep(1)
        finally:
            server.terminate()
            server.wait(30)
    return log_path.read_text(encoding="utf-8", errors="replace")


def test_a_plain_jupyter_lab_of_the_student_install_gives_no_eavesdropping_warning(wheel, tmp_path):
    """The wheel's file in {prefix}/etc/jupyter/jupyter_server_config.d is read by a plain
    `jupyter lab` (here from JUPYTER_CONFIG_PATH, a folder Jupyter searches the same way): its
    kernels get CurveZMQ keys, and ipykernel does not warn that its sockets are plain TCP."""
    config = tmp_path / "etc" / "jupyter"
    prefix = f"nbcore-{VERSION}.data/data/etc/jupyter/"
    for name in wheel.namelist():
        if name.startswith(prefix):
            target = config / name.removeprefix(prefix)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(wheel.read(name))
    log = _start_a_kernel_in_plain_lab(config, tmp_path)
    assert "eavesdropping" not in log, log[-2000:]
    assert "nbcore: kernels use CurveZMQ transport encryption" in log
    # encryption switched off by the user (the extension leaves it so): the warning shows
    off = _start_a_kernel_in_plain_lab(
        config, tmp_path, ["--KernelManager.transport_encryption=disabled"]
    )
    assert "eavesdropping" in off
