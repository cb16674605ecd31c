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
is noted too, "runs code from a string": ``exec``, ``eval``, ``compile``, ``__import__``,
``builtins``, ``importlib``, ``marshal``, IPython's ``run_cell`` and ``run_line_magic``, the
``%run`` magic (an alias ``run = exec`` or ``getattr(builtins, ...)`` names one of them too).
An answer longer than ``MAX_COMPARED`` characters is not compared (reading it would cost the
grader time and memory without bound); it is noted "too long to compare" instead.
"""

import io
import keyword
import re
import tokenize

__all__ = [
    "SIMILAR",
    "SHINGLE",
    "MIN_RUNS",
    "tokens",
    "similarity",
    "runs_code_from_string",
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
    r"\b(exec|eval|compile|__import__|builtins|__builtins__|importlib|marshal|runpy|pickle|"
    r"cPickle|dill|cloudpickle|shelve|jsonpickle|FunctionType|CodeType|__code__|__globals__|"
    r"ctypes|cProfile|profile|runctx|timeit|InteractiveInterpreter|InteractiveConsole|getattr|"
    r"globals|"
    # IPython's (any use of the shell object: .ex, .ev, .run_cell, .run_code, magics)
    r"get_ipython|run_cell|run_cell_magic|run_line_magic|subprocess|system|popen|spawn\w*)\b"
)
# magics and shell escapes written as such: %run, %load, %%script, !python (not "!=")
_MAGICS = re.compile(
    r"^\s*%+(run|load|script|python\d?|bash|sh|writefile|file|timeit|prun)\b|^\s*!(?!=)",
    re.MULTILINE,
)


def _code_only(source):
    """The source with its comments left out, so that a word in a comment ("compile the
    list", "system") is not taken for a call (string literals stay: a runner's name can be
    spelled in one); the source as it is when it cannot be read as Python."""
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
        kept.append(token.string)
        previous.append(token.string)
    return " ".join(kept)


def runs_code_from_string(sources):
    """Whether the cells name a way of running code built at run time (see the module)."""
    return any(_MAGICS.search(source) or _RUNNERS.search(_code_only(source)) for source in sources)


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
        # a runner bound in one answer can be used in any other: name those too
        elsewhere = {
            plan.number: sorted(
                other
                for other, sources in plan.answers.items()
                if other != exercise.id and runs_code_from_string(sources or [])
            )
            for plan in plans
            if plan.number not in hidden
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
            elif elsewhere.get(plan.number):
                where = ", ".join(elsewhere[plan.number])
                found.append(f"{exercise.id} may use code run from a string in {where}")
            if plan.number in long:
                found.append(f"{exercise.id} is too long to compare")
            if found:
                notes[(plan.number, exercise.id)] = found
                plan.result.problems += found
                for result in plan.result.results:
                    if result.exercise == exercise.id:
                        result.note = "; ".join(found)
    return notes
