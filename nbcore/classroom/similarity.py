"""Copying is flagged: each graded answer is compared with the published solution and with the
other submissions of the same chapter.

The comparison is token-level, so that renaming variables, reformatting or adding comments
does not hide a copy:

1. the answer's cells are read by Python's own tokenizer; comments, blank lines and the
   layout inside a line are dropped, and every name that is not an attribute (``x`` in
   ``x.sum()``, not ``sum``) becomes ``V``: ``p = (c[0] + 1) / (c.sum() + 3)`` and
   ``prob = (counts[0] + 1) / (counts.sum() + 3)`` give the same tokens;
2. the tokens are cut into overlapping runs of ``SHINGLE`` tokens;
3. two answers are as similar as the share of the runs of the shorter one that the other
   one also has (1.0: every run of the shorter answer appears in the longer one).

An answer is flagged when it has at least ``MIN_RUNS`` runs (about 15 tokens: a line like
``p_offer_spam = 6 / 14`` is too short to tell a copy from the same idea) and its similarity
to the published solution or to a classmate's answer is at least ``SIMILAR`` (0.9). A flag is
a note in the gradebook ("similar to the published solution of 8.1", "similar to bob02's
8.2"; two answers that are both like the published solution are not also noted as like each
other); the score is kept, for the instructor to decide. Independent answers to a short,
tightly specified exercise can look alike: a flag is a reason to read both, not a verdict.

Code hidden in a string escapes the comparison (``exec(bytes.fromhex("7072..."))`` has none of
the solution's tokens), so an answer that names any way of running code it builds at run time
is noted too, "runs code from a string". The rules go by kind, not by a list of single calls:

* runners of code as text or as code objects: ``exec``, ``eval``, ``compile``,
  ``__import__``, ``builtins``, code and function objects, ``__main__`` and namespaces
  (``globals``, ``vars``, ``__dict__``, ``getattr``), the standard library's runners
  (``trace``, the debuggers, ``doctest``, ``runpy``, profilers and timers), IPython's shell
  object and its magics (``%run``; an alias ``run = exec`` names one of them too), shells;
* deserialisers that can run code: anything named like pickle (``allow_pickle``,
  ``read_pickle``), ``marshal``, ``shelve``, ``joblib``, ``dill``, and any call named
  ``load``/``loads`` other than json's (``np.load(f, None, True)`` unpickles too);
* importing such a module at all (``import trace``), and changing where Python looks for
  modules (``sys.path``, ``sys.modules``).

Code can also come from a file the answer writes and then imports: an answer that imports a
module that is not installed (neither the standard library's nor a package's), or that both
writes a file and imports, is noted "runs code from a file"; an answer that imports while
another answer writes a file is noted "may use code run from a file written in ...".
An answer longer than ``MAX_COMPARED`` characters is not compared (reading it would cost the
grader time and memory without bound); it is noted "too long to compare" instead.
"""

import functools
import importlib.metadata
import io
import keyword
import re
import sys
import tokenize

__all__ = [
    "SIMILAR",
    "SHINGLE",
    "MIN_RUNS",
    "tokens",
    "similarity",
    "runs_code_from_string",
    "runs_code_from_file",
    "imported_modules",
    "RUNNER_MODULES",
    "flag_similar",
    "MAX_COMPARED",
]

SIMILAR = 0.9
MAX_COMPARED = 200_000  # characters of one answer that are compared
SHINGLE = 4
MIN_RUNS = 12
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}


def tokens(sources):
    """The normalised tokens of a list of cell sources (unreadable code: its characters)."""
    found = []
    for source in sources:
        try:
            stream = list(tokenize.generate_tokens(io.StringIO(source).readline))
        except (tokenize.TokenError, IndentationError, SyntaxError, RecursionError):
            found += [c for c in source if not c.isspace()]
            continue
        previous = ""
        for token in stream:
            if token.type in _SKIP:
                continue
            text = token.string
            if token.type == tokenize.NAME and not keyword.iskeyword(text) and previous != ".":
                text = "V"
            elif token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                text = tokenize.tok_name[token.type]
            found.append(text)
            previous = token.string
    return found


_RUNNERS = re.compile(
    # Python's own ways (exec, eval, compile, imports by name, code objects, unpickling,
    # profilers and timers that take code as text)
    r"\b(exec|eval|compile|__import__|builtins|__builtins__|importlib|marshal|runpy|\w*pickle\w*|"
    r"\w*Pickle\w*|dill|shelve|joblib|copyreg|FunctionType|CodeType|ModuleType|__code__|"
    r"__globals__|__main__|__dict__|__getattribute__|__reduce\w*__|__setstate__|vars|"
    r"attrgetter|methodcaller|ctypes|cProfile|profile|runctx|timeit|InteractiveInterpreter|"
    r"InteractiveConsole|getattr|globals|"
    # the interpreter's frames and what they hold (a frame's builtins hold exec), and attribute
    # lookups that reach the builtins module without naming it (print.__self__)
    r"_getframe|currentframe|f_builtins|f_globals|f_locals|f_back|tb_frame|gi_frame|"
    r"getattr_static|__self__|"
    # deserialisers that can run code (np.load with allow_pickle, given in any way; pickle's
    # kin; YAML's full loader): any load that json's is not
    r"load|loads|unsafe_load|full_load|UnsafeLoader|FullLoader|Unpickler|"
    # runners of code objects and of code as text in the standard library: trace, the
    # debuggers, doctest, codeop, running a module or file by its name or path
    r"Trace|runfunc|runcall|runeval|Pdb|Bdb|pdb|bdb|doctest|DocTest\w*|testmod|testfile|codeop|"
    r"settrace|setprofile|run_module|run_path|exec_module|load_module|spec_from_\w+|zipimport|"
    r"pkgutil|addsitedir|PYTHONPATH|"
    # IPython's (any use of the shell object: .ex, .ev, .run_cell, .run_code, magics)
    r"get_ipython|run_cell|run_cell_magic|run_line_magic|subprocess|system|popen|spawn\w*)\b"
    # where Python looks for modules: a folder the answer wrote a module into
    r"|\bsys\s*\.\s*(path|meta_path|path_hooks|path_importer_cache|modules)\b"
)
# modules whose import is a way of running code (``from trace import Trace``); their names
# alone are too common to be flagged (``np.trace``)
RUNNER_MODULES = {
    "trace",
    "pdb",
    "bdb",
    "code",
    "codeop",
    "doctest",
    "runpy",
    "profile",
    "cProfile",
    "timeit",
    "importlib",
    "imp",
    "zipimport",
    "pkgutil",
    "pickle",
    "_pickle",
    "cPickle",
    "pickletools",
    "marshal",
    "shelve",
    "dill",
    "cloudpickle",
    "jsonpickle",
    "joblib",
    "copyreg",
    "types",
    "ctypes",
    "subprocess",
    "multiprocessing",
    "concurrent",
    "builtins",
    "site",
    "unittest",
    "pydoc",
    "__main__",
}
# magics and shell escapes written as such: %run, %load, %%script, !python (not "!=")
_MAGICS = re.compile(
    r"^\s*%+(run|load|script|python\d?|bash|sh|writefile|file|timeit|prun)\b|^\s*!(?!=)",
    re.MULTILINE,
)
_IMPORT = re.compile(r"(?:^|[;:\n])[ \t]*import[ \t]+([^;\n]+)")
_FROM = re.compile(r"(?:^|[;:\n])[ \t]*from[ \t]+(\S+)[ \t]+import\b")
# calls that write a file (with any name: a module to import later, in any folder)
_WRITES = re.compile(
    r"\b(open|fdopen|write|writelines|write_text|write_bytes|savetxt|tofile|to_csv|"
    r"copy\w*|move|rename|symlink|link|mkstemp|NamedTemporaryFile|TemporaryFile|"
    r"writefile)\b"
)


def _code_only(source):
    """The source with its comments left out, so that a word in a comment ("compile the
    list", "system") is not taken for a call (string literals stay: a runner's name can be
    spelled in one); the source as it is when it cannot be read as Python. Lines stay lines."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError, RecursionError):
        return source
    kept, previous = [], []
    for token in tokens:
        if token.type == tokenize.COMMENT:
            continue
        if token.string == "compile" and previous[-2:] == ["re", "."]:
            continue  # re.compile makes a pattern, not code
        if token.string in ("load", "loads") and previous[-2:] == ["json", "."]:
            continue  # json's loads makes data, never code
        kept.append(token.string)
        previous.append(token.string)
    return " ".join(kept)


def imported_modules(source):
    """The top-level names of the modules the source imports ("." for a relative import)."""
    code = _code_only(source)
    found = set()
    for match in _IMPORT.finditer(code):
        for item in match[1].split(","):
            words = item.split()
            if words and words[0] not in ("(", "*"):
                found.add(words[0].split(".")[0] or ".")
    for match in _FROM.finditer(code):
        found.add(match[1].split(".")[0] or ".")
    return found


@functools.cache
def _installed():
    """Top-level names of the modules that the grader's Python has (the sandbox has the same):
    the standard library's and those of the installed packages."""
    names = set(sys.stdlib_module_names) | set(sys.builtin_module_names)
    try:
        names |= set(importlib.metadata.packages_distributions())
    except Exception:  # a broken installation lists nothing more: more is flagged
        pass
    return frozenset(names)


def runs_code_from_string(sources):
    """Whether the cells name a way of running code built at run time (see the module)."""
    for source in sources:
        if _MAGICS.search(source) or _RUNNERS.search(_code_only(source)):
            return True
        if imported_modules(source) & RUNNER_MODULES:
            return True
    return False


def writes_file(sources):
    """Whether the cells call something that writes a file (see the module)."""
    return any(_WRITES.search(_code_only(source)) for source in sources)


def runs_code_from_file(sources):
    """Whether the cells import a module that no installed package has (one written at run
    time), or write a file and import a module (a written module may shadow an installed
    one that is not loaded yet)."""
    modules = set().union(*(imported_modules(source) for source in sources))
    if modules - _installed():
        return True
    return bool(modules) and writes_file(sources)


def _too_long(sources):
    return sum(len(source) for source in sources) > MAX_COMPARED


def _runs(sources):
    items = tokens(sources)
    return {tuple(items[i : i + SHINGLE]) for i in range(len(items) - SHINGLE + 1)}


def similarity(first, second):
    """The share of the shorter answer's token runs that the other has (0 to 1); ``first``
    and ``second`` are sets of runs; 0 when either is too short to tell."""
    if min(len(first), len(second)) < MIN_RUNS:
        return 0.0
    return len(first & second) / min(len(first), len(second))


def flag_similar(chapter, plans, threshold=SIMILAR):
    """Note, on each plan's result, the answers similar to the solution or to a classmate's.

    ``plans``: the graded submissions of one chapter. Returns {(plan number, exercise):
    [notes]}, and adds each note to the result's problems.
    """
    notes = {}
    for exercise in chapter.exercises:
        solution = _runs([chapter.nb.cells[i].source for i in exercise.solution_cells])
        long = {p.number for p in plans if _too_long(p.answers.get(exercise.id) or [])}
        answers = [
            (plan, _runs(plan.answers.get(exercise.id) or []))
            for plan in plans
            if plan.number not in long
        ]
        answers = [(plan, runs) for plan, runs in answers if len(runs) >= MIN_RUNS]
        copied = {plan.number for plan, runs in answers if similarity(runs, solution) >= threshold}
        hidden = {
            plan.number
            for plan in plans
            if runs_code_from_string(plan.answers.get(exercise.id) or [])
        }
        from_file = {
            plan.number
            for plan in plans
            if plan.number not in hidden
            and runs_code_from_file(plan.answers.get(exercise.id) or [])
        }
        # a runner bound in one answer can be used in any other: name those too
        elsewhere = {
            plan.number: sorted(
                other
                for other, sources in plan.answers.items()
                if other != exercise.id and runs_code_from_string(sources or [])
            )
            for plan in plans
            if plan.number not in hidden | from_file
        }
        # a module written by one answer can be imported by another
        written_in = {
            plan.number: sorted(
                other
                for other, sources in plan.answers.items()
                if other != exercise.id and writes_file(sources or [])
            )
            for plan in plans
            if plan.number not in hidden | from_file
            and any(imported_modules(s) for s in plan.answers.get(exercise.id) or [])
        }
        found_in = {}
        for plan, runs in answers:
            found = found_in.setdefault(plan.number, [])
            if plan.number in copied:
                found.append(f"similar to the published solution of {exercise.id}")
            for other, other_runs in answers:
                if other is plan or other.result.student == plan.result.student:
                    continue
                if plan.number in copied and other.number in copied:
                    continue  # both like the solution: that is their common source
                if similarity(runs, other_runs) >= threshold:
                    found.append(f"similar to {other.result.student}'s {exercise.id}")
        for plan in plans:
            found = found_in.get(plan.number, [])
            if plan.number in hidden:
                found.append(f"{exercise.id} runs code from a string")
            elif plan.number in from_file:
                found.append(f"{exercise.id} runs code from a file")
            elif elsewhere.get(plan.number):
                where = ", ".join(elsewhere[plan.number])
                found.append(f"{exercise.id} may use code run from a string in {where}")
            elif written_in.get(plan.number):
                where = ", ".join(written_in[plan.number])
                found.append(f"{exercise.id} may use code run from a file written in {where}")
            if plan.number in long:
                found.append(f"{exercise.id} is too long to compare")
            if found:
                notes[(plan.number, exercise.id)] = found
                plan.result.problems += found
                for result in plan.result.results:
                    if result.exercise == exercise.id:
                        result.note = "; ".join(found)
    return notes
