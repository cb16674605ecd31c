"""The conda environment, the pip lock and pyproject name the same packages at the same pins."""

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement):
    """Normalised distribution name of a requirement string ('Foo_Bar[x]>=1' -> 'foo-bar')."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement.strip()).group(0)
    return re.sub(r"[-_.]+", "-", name).lower()


def _constraints():
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[_name(name)] = version
    return pins


def _environment_pins():
    """(name, version) of every pinned package in environment.yml, conda and pip sections."""
    pins = {}
    for line in (ROOT / "environment.yml").read_text().splitlines():
        item = re.match(r"\s*-\s+([A-Za-z0-9._-]+)\s*(==|=)\s*([^\s#]+)", line)
        if item:
            pins[_name(item.group(1))] = item.group(3)
    return pins


def _pyproject_requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += extra
    return {_name(r) for r in requirements}


def test_constraints_pin_every_line_exactly():
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert re.fullmatch(r"[A-Za-z0-9._-]+==[^\s=]+", line.strip()), line


def test_environment_pins_agree_with_constraints():
    constraints = _constraints()
    environment = _environment_pins()
    environment.pop("python")
    assert environment, "environment.yml pins nothing"
    mismatched = {
        name: (version, constraints.get(name))
        for name, version in environment.items()
        if constraints.get(name) != version
    }
    assert not mismatched, f"environment.yml vs constraints.txt (yml, lock): {mismatched}"


@pytest.mark.parametrize("name", sorted(_pyproject_requirements()))
def test_every_direct_dependency_is_pinned_in_both(name):
    assert name in _constraints(), (
        f"{name} is a dependency in pyproject.toml but not in constraints.txt"
    )
    assert name in _environment_pins(), (
        f"{name} is a dependency in pyproject.toml but not in environment.yml"
    )


def test_python_version_agrees_with_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    assert _environment_pins()["python"] == "3.11"
