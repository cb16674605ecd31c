"""Which book cells a graded run leaves out (nbcore.classroom.liveness): never one that a graded
value, a later staying cell or the student's code depends on."""

import nbformat
import pytest

from nbcore.classroom.liveness import free_names, skippable_cells
from nbcore.classroom.markup import find_exercises
from nbcore.classroom.results import Chapter
from nbcore.classroom.run import left_out_cells, student_steps


@pytest.mark.parametrize(
    "source, free",
    [
        ("x = 1\ny = x", set()),  # bound above its use in the same cell
        ("y = x\nx = 1", {"x"}),  # read before the cell binds it
        ("n = n + 1", {"n"}),  # the right-hand side is read first
        ("def f(a):\n    b = a + c\n    return b", {"c"}),  # only the global is free
        ("f = lambda a: a + k", {"k"}),
        ("s = [i * w for i in range(3)]", {"range", "w"}),
        ("for k in items:\n    total = k", {"items"}),
        ("with open_it() as handle:\n    data = handle", {"open_it"}),
        ("try:\n    v = 1\nexcept KeyError as e:\n    v = e", {"KeyError"}),
        ("import numpy as np\nnp.ones(3)", set()),
        ("model.fit(X)", {"model", "X"}),  # a method call reads the name it may change
        ("table[0] = 1", {"table"}),
        ("rows = frame.query('a > @limit')", {"frame", "limit"}),  # pandas reads @limit
        ("if c:\n    x = 1\ny = x", {"c", "x"}),  # x may not be bound here: the notebook's x
        ("for k in ks:\n    last = k\nfirst = last", {"ks", "last"}),
    ],
)
def test_free_names_are_what_a_cell_reads_from_the_notebook(source, free):
    assert free_names(source) == free


def test_a_huge_answer_is_not_analysed_and_a_large_one_in_linear_time():
    """The attack: an answer of 100,000 assignments took minutes of the grader's own time
    (the analysis was quadratic). Code over MAX_SOURCE is not read (every cell then stays);
    code just under it is read in one pass (run in a child process with a generous limit)."""
    import subprocess
    import sys

    from nbcore.classroom.liveness import MAX_SOURCE

    huge = "".join(f"v{i} = 0\n" for i in range(100_000))
    assert len(huge) > MAX_SOURCE and free_names(huge) is None
    chapter = _chapter("from nbcore import exercises", "total = 6", "shown = 1")
    assert skippable_cells(chapter, [huge, "answer = total"]) == set()
    script = (
        "from nbcore.classroom.liveness import MAX_SOURCE, free_names\n"
        "lines, size = [], 0\n"
        "while size < MAX_SOURCE - 20:\n"
        "    lines.append(f'v{len(lines)} = w\\n'); size += len(lines[-1])\n"
        "assert free_names(''.join(lines[:-1])) == {'w'}\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


@pytest.mark.parametrize(
    "answer",
    [
        "%%time\nanswer = total",  # a cell magic: the code is a string to IPython
        "%time answer = total",
        "answer = globals()['total']",
        "answer = eval('total')",
        "answer = get_ipython().user_ns['total']",
        "answer = vars()['total']",
        "answer = sys._getframe().f_globals['total']",
    ],
)
def test_an_answer_whose_reads_are_hidden_keeps_every_cell(answer):
    """The attack was an honest one: 8.1 answered under %%time lost its points, because the
    magic hides the names the answer reads and the cell defining them was left out."""
    assert free_names(answer) is None
    chapter = _chapter("from nbcore import exercises", "total = 6", "shown = 1")
    assert skippable_cells(chapter, [answer]) == set()


def test_unreadable_code_has_no_free_names_list():
    assert free_names("def (") is None
    assert free_names("(" * 10_000 + ")" * 10_000) is None
    assert free_names("x = 1\0") is None
    assert free_names("-" * 200_000 + "x") is None  # too deep for the parser


def _chapter(*sources, answer="answer = total"):
    """A chapter: the given book cells, then one exercise (data cell, solution, check)."""
    cells = [nbformat.v4.new_code_cell(s) for s in sources]
    cells += [
        nbformat.v4.new_code_cell(
            "data = exercises.variant_rng('1.1').integers(5)",
            metadata={"exercise": "1.1", "role": "data"},
        ),
        nbformat.v4.new_code_cell(answer, metadata={"exercise": "1.1", "role": "solution"}),
        nbformat.v4.new_code_cell(
            'exercises.check_number("1.1", answer, expected=data, points=1)',
            metadata={"exercise": "1.1", "role": "check"},
        ),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    return Chapter("01_test", nb, find_exercises(nb))


def test_a_cell_nothing_graded_reads_is_left_out_and_what_it_alone_needed_too():
    chapter = _chapter(
        "from nbcore import exercises",
        "total = 6",
        "sizes = [1, 2, 3]",  # read only by the left-out cell below
        "shown = sum(sizes)",  # nothing reads shown
    )
    assert skippable_cells(chapter, ["answer = total"]) == {2, 3}


def test_a_cell_whose_names_the_student_reads_stays():
    chapter = _chapter("from nbcore import exercises", "total = 6", "shown = 12")
    assert 2 in skippable_cells(chapter, ["answer = total"])
    assert 2 not in skippable_cells(chapter, ["answer = shown / 2"])


def test_a_cell_that_may_change_a_name_a_later_cell_reads_stays():
    chapter = _chapter(
        "from nbcore import exercises",
        "model = [1]",
        "model.append(2)",  # binds nothing, changes model
        "fitted = model.copy()",  # binds a dead name, reads model: may change it too
        "total = len(model)",
    )
    assert skippable_cells(chapter, ["answer = total"]) == set()


@pytest.mark.parametrize(
    "cell",
    [
        "noise = np.random.rand(3)",  # the global random state
        "import random\nnoise = random.random()",
        "written = path.write_text('x')",  # a file
        "np.seterr(all='raise')",  # a setting
        "os.environ['X'] = '1'",
        "global total",
        "exec('total = 5')",
    ],
)
def test_a_cell_that_touches_hidden_state_stays(cell):
    chapter = _chapter("from nbcore import exercises\nimport numpy as np", "total = 6", cell)
    assert 2 not in skippable_cells(chapter, ["answer = total"])


def test_a_private_generator_is_not_hidden_state_but_a_shared_one_is_read():
    private = _chapter(
        "from nbcore import exercises\nimport numpy as np",
        "total = 6",
        "noise = np.random.default_rng(0).normal(size=3)",
    )
    assert skippable_cells(private, ["answer = total"]) == {2}
    shared = _chapter(
        "from nbcore import exercises\nimport numpy as np",
        "rng = np.random.default_rng(0)",
        "noise = rng.normal(size=3)",  # draws from the generator the next cell draws from
        "total = rng.integers(10)",
    )
    assert 2 not in skippable_cells(shared, ["answer = total"])


def test_in_a_chapter_that_seeds_the_global_state_random_cells_stay():
    chapter = _chapter(
        "from nbcore import exercises\nimport numpy as np\nnp.random.seed(0)",
        "total = 6",
        "noise = np.random.default_rng(0).normal(size=3)",
    )
    assert 2 not in skippable_cells(chapter, ["answer = total"])


def test_a_cell_tagged_grading_skip_is_left_out_unless_an_answer_needs_it():
    """Its author vouches that its files and changes matter only to the demonstrations: it
    goes even though it writes a file and reads a name later cells read, but stays when an
    answer reads a name it binds or a setting it reads."""
    chapter = _chapter(
        "from nbcore import exercises\nWORKDIR = 'w'",
        "paths = write(WORKDIR, 3)",  # a file: hidden state
        "total = 6",
        "shown = len(paths)",
    )
    chapter.nb.cells[1].metadata["tags"] = ["grading-skip"]
    assert {1, 3} <= skippable_cells(chapter, ["answer = total"])
    assert 1 not in skippable_cells(chapter, ["answer = shown"])  # needs paths
    assert 1 not in skippable_cells(chapter, ["answer = open(WORKDIR).read()"])
    chapter.nb.cells[1].metadata["tags"] = []
    assert 1 not in skippable_cells(chapter, ["answer = total"])  # untagged: a file stays


def test_exercise_cells_are_never_left_out():
    chapter = _chapter("from nbcore import exercises", "total = 6")
    kept = {i for ex in chapter.exercises for i in [*ex.data_cells, *ex.solution_cells]}
    kept |= {ex.check_cell for ex in chapter.exercises}
    assert not skippable_cells(chapter, ["answer = 1"]) & kept


def test_an_answer_the_grader_cannot_read_keeps_every_cell():
    chapter = _chapter("from nbcore import exercises", "total = 6", "shown = 1")
    assert skippable_cells(chapter, ["answer = (", "answer = 1"]) == set()


def test_the_student_run_runs_what_the_answer_reads():
    """The steps of a student run include the cell that binds a name the answer reads, and
    leave out the ones nothing reads."""
    chapter = _chapter("from nbcore import exercises", "total = 6", "shown = 12")
    for answer, present in [("answer = total", False), ("answer = shown / 2", True)]:
        steps = student_steps(chapter, {"1.1": [answer]}, None)
        sources = [s.source for s in steps]
        assert ("shown = 12" in sources) is present
        assert "total = 6" in sources and answer in sources
    assert 2 in left_out_cells(chapter, ["answer = total"])


def test_a_huge_answer_is_not_parsed_by_the_grader(monkeypatch):
    """The attack: an answer of 4,000,000 list items made the grader parse it outside the
    sandbox (5.8 GB, minutes). Past MAX_SOURCE characters, or MAX_ANSWER_CELLS cells, the
    grader reads nothing of the answers: every book cell runs, in the sandbox's limits."""
    from nbcore.classroom import run

    def no_analysis(*args, **kwargs):
        raise AssertionError("the answers were analysed")

    monkeypatch.setattr(run, "left_out_cells", no_analysis)
    chapter = _chapter("from nbcore import exercises", "total = 6", "shown = 12")
    huge = "x = [" + "a, " * 100_000 + "]\nanswer = total"
    steps = run.student_steps(chapter, {"1.1": [huge]}, None)
    assert "shown = 12" in [s.source for s in steps]
    many = ["a = 1"] * (run.MAX_ANSWER_CELLS + 1) + ["answer = total"]
    steps = run.student_steps(chapter, {"1.1": many}, None)
    assert "shown = 12" in [s.source for s in steps]


def test_a_scratch_cell_ipython_cannot_read_fails_nothing_else():
    """The attack (an honest slip found by fuzzing): an unmarked cell ``=%\'\'\'`` made
    IPython's input transformer raise IndexError while the grader planned the run, and every
    exercise failed. It is now a cell like any other: it raises in the sandbox, alone."""
    from nbcore.classroom.markup import bound_names, loaded_names

    scratch = "=%'''"
    assert bound_names(scratch) == set() and loaded_names(scratch) == set()
    chapter = _chapter("from nbcore import exercises", "total = 6", "shown = 12")
    steps = student_steps(chapter, {"1.1": ["answer = total", scratch]}, None)
    assert [s.source for s in steps if s.kind == "student"] == ["answer = total", scratch]


def test_answers_that_read_through_main_profilers_or_annotations_keep_their_cells():
    """The attack (on one's own run): honest answers that read a book name through
    ``__main__``, ``cProfile.run`` or after a bare annotation (``shown: int``) lost the book
    cell that binds it, and failed."""
    chapter = _chapter("from nbcore import exercises", "total = 6", "shown = 12")
    for answer in [
        "import __main__\nanswer = __main__.shown / 2",
        "import cProfile\ncProfile.run('answer = shown / 2')",
        "shown: int\nanswer = shown / 2",
    ]:
        assert 2 not in left_out_cells(chapter, [answer]), answer
