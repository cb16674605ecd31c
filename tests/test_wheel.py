"""``make wheel``: what students install holds nbcore and its course extra, no chapter, no solution.

The wheel is built as ``make wheel`` builds it (``pip wheel --no-deps``), from a copy of the
repository's tracked files, so the test never writes into the checkout.
"""

import email
import json
import shutil
import subprocess
import sys
import tomllib
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
    assert json.loads(wheel.read(config[0])) == {"KernelManager": {"transport_encryption": "auto"}}


def test_the_readme_installs_that_wheel_with_the_course_extra():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = f'pip install -c constraints.txt "nbcore-{VERSION}-py3-none-any.whl[course]"'
    assert command in readme
    assert 'pip install -c constraints.txt ".[course]"' not in readme
