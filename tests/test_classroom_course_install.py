"""Student copies run with exactly ``pip install ".[course]"``: nothing of the book's build.

A fresh virtual environment with that install takes minutes to create, so the test emulates
it in this one: it computes the set of distributions that ``nbcore[course]`` pulls in (from
the installed packages' metadata), and

* checks that every import of every chapter's student copy, and every import anywhere in
  nbcore (but the instructor's two: the nbval plugin, jupytext for chapters given as ``.md``),
  is of the standard library or of those distributions (no myst-nb, Sphinx, jupytext, pytest);
* makes the student copies of every chapter in kernels in which importing any other module
  fails: making a copy runs the whole chapter, its solutions and its checks;
* executes two of the copies (the weather chapter's explorers, the Dask chapter) in such a
  kernel: what a copy runs besides the chapter's own cells (its self-checks, in place of the
  checks) is the same code in every chapter.
"""

import ast
import contextlib
import os
import sys
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from nbcore.classroom.markup import find_exercises, python_source
from nbcore.classroom.student import (
    chapter_sources,
    make_student_copies,
    read_chapter,
    student_copy,
)

ROOT = Path(__file__).resolve().parents[1]

BLOCKER = """
import importlib.abc, importlib.machinery, sys

ALLOWED = set({allowed!r})


class Missing(importlib.abc.Loader):
    def create_module(self, spec):
        raise ModuleNotFoundError(f"{{spec.name}} is not installed by nbcore[course]")

    def exec_module(self, module):
        pass


class CourseOnly(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in ALLOWED or top in sys.stdlib_module_names or top.startswith("_"):
            return None
        return importlib.machinery.ModuleSpec(name, Missing())


sys.meta_path.insert(0, CourseOnly())
"""


def course_distributions():
    """Canonical names of the distributions that nbcore[course] installs."""
    seen, todo = set(), [("nbcore", ("course",))]
    while todo:
        name, extras = todo.pop()
        key = (canonicalize_name(name), extras)
        if key in seen:
            continue
        seen.add(key)
        try:
            requirements = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for text in requirements:
            requirement = Requirement(text)
            environments = [{"extra": extra} for extra in extras] or [{"extra": ""}]
            if requirement.marker and not any(
                requirement.marker.evaluate(env) for env in environments
            ):
                continue
            todo.append((requirement.name, tuple(sorted(requirement.extras))))
    return {name for name, _ in seen}


def course_modules():
    distributions = course_distributions()
    modules = {
        module
        for module, owners in metadata.packages_distributions().items()
        if any(canonicalize_name(owner) in distributions for owner in owners)
    }
    return modules | {"nbcore"}


def test_the_course_extra_is_small_and_excludes_the_book_build():
    distributions = course_distributions()
    for needed in ("nbcore", "numpy", "pandas", "matplotlib", "scikit-learn", "ipywidgets"):
        assert needed in distributions
    for excluded in ("myst-nb", "sphinx", "jupyter-book", "jupytext", "nbval", "pytest"):
        assert excluded not in distributions


def _imports(source):
    tree = ast.parse(python_source(source))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module.partition(".")[0]


def test_every_copy_imports_only_what_the_course_extra_installs():
    allowed = course_modules() | set(sys.stdlib_module_names)
    for source in chapter_sources([ROOT / "book"]):
        nb = read_chapter(source)
        found = find_exercises(nb)
        copy = student_copy(nb, found, {e.id: {"kind": e.kind} for e in found}, source.stem)
        imported = {
            module
            for cell in copy.cells
            if cell.cell_type == "code"
            for module in _imports(cell.source)
        }
        assert imported <= allowed, (source.name, sorted(imported - allowed))


# imports of nbcore that run only on the instructor's side: (file, module)
INSTRUCTOR_ONLY = {
    ("nbcore/classroom/nbval_report.py", "pytest"),  # the plugin `make grade` gives nbval
    ("nbcore/classroom/student.py", "jupytext"),  # `make student` given a chapter's .md
}
BOOKS = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
RUN = ("06_weather.ipynb", "10_scale.ipynb")


def test_every_import_of_nbcore_is_of_the_course_extra():
    allowed = course_modules() | set(sys.stdlib_module_names)
    found = set()
    for path in sorted((ROOT / "nbcore").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        found |= {
            (where, m) for m in _imports(path.read_text(encoding="utf-8")) if m not in allowed
        }
    assert found == INSTRUCTOR_ONLY


@contextlib.contextmanager
def _kernels_see(site):
    """The kernels started meanwhile (they inherit os.environ) load the blocker in ``site``."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(site)
    try:
        yield
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved


@pytest.fixture(scope="module")
def course_only(tmp_path_factory):
    """Every chapter's student copy, made in kernels that import only nbcore[course]; and
    the environment that does so."""
    tmp = tmp_path_factory.mktemp("course")
    site = tmp / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER.format(allowed=sorted(course_modules())))
    env = dict(os.environ, PYTHONPATH=str(site))
    with _kernels_see(site):
        copies = make_student_copies(BOOKS, tmp / "copy", log=lambda message: None)
    return {path.name: path for path in copies}, env, tmp


def test_every_chapter_runs_with_only_the_course_extra(course_only):
    copies, _, _ = course_only
    assert sorted(copies) == [p.name for p in BOOKS]


@pytest.mark.parametrize("chapter", RUN)
def test_a_copy_runs_with_only_the_course_extra(course_only, chapter):
    copies, env, tmp = course_only
    nb = nbformat.read(copies[chapter], as_version=4)
    client = NotebookClient(
        nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(tmp)}}
    )
    client.execute(env=env)  # raises on the first cell that fails
    checks = [c for c in nb.cells if c.metadata.get("role") == "check"]
    texts = ["".join(o.get("text", "") for o in c.outputs) for c in checks]
    book = nbformat.read(ROOT / "book" / chapter, as_version=4)
    assert len(texts) == len(find_exercises(book))
    assert all("not attempted" in text for text in texts), texts


def test_the_blocker_refuses_what_the_course_extra_does_not_install(course_only):
    _, env, _ = course_only
    probe = NotebookClient(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import myst_nb")]),
        kernel_name="python3",
        allow_errors=True,
    )
    probe.execute(env=env)
    assert "not installed by nbcore[course]" in str(probe.nb.cells[0].outputs)


def test_copies_are_made_in_kernels_that_import_only_the_course_extra(course_only, tmp_path):
    """The recording kernels of ``make_student_copies`` get the environment the fixture sets:
    a chapter that imports what the course extra does not install cannot be made a copy of."""
    _, env, _ = course_only
    code = nbformat.v4.new_code_cell
    chapter = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("### Exercise 1.1\n\nCompute the mean of `values`."),
            code("from nbcore import exercises\nimport myst_nb\nvalues = [1, 2, 3]"),
            code(
                "answer = sum(values) / len(values)",
                metadata={"exercise": "1.1", "role": "solution"},
            ),
            code(
                'exercises.check_number("1.1", answer, expected=2.0)',
                metadata={"exercise": "1.1", "role": "check"},
            ),
        ]
    )
    nbformat.write(chapter, tmp_path / "01_probe.ipynb")
    with _kernels_see(env["PYTHONPATH"]):
        with pytest.raises(Exception, match="not installed by nbcore\\[course\\]"):
            make_student_copies([tmp_path / "01_probe.ipynb"], tmp_path / "copy", log=print)
