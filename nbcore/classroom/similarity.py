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
the solution's tokens), so an answer that passes ``exec``, ``eval`` or ``compile`` a value built
from a string or bytes literal is noted too: "runs code from a string".
"""

import ast
import io
import keyword
import tokenize

__all__ = [
    "SIMILAR",
    "SHINGLE",
    "MIN_RUNS",
    "tokens",
    "similarity",
    "runs_code_from_string",
    "flag_similar",
]

SIMILAR = 0.9
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


_RUNNERS = {"exec", "eval", "compile"}


def _called_name(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def runs_code_from_string(sources):
    """Whether the cells call exec, eval or compile on a value built from a str/bytes literal."""
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # not Python (a magic): the tokens are still compared
        try:
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or _called_name(node.func) not in _RUNNERS:
                    continue
                for argument in node.args[:1] + [k.value for k in node.keywords]:
                    for inner in ast.walk(argument):
                        if isinstance(inner, ast.Constant) and isinstance(
                            inner.value, (str, bytes)
                        ):
                            return True
        except RecursionError:
            return True  # nested too deeply to read: worth a look
    return False


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
        answers = [(plan, _runs(plan.answers.get(exercise.id) or [])) for plan in plans]
        answers = [(plan, runs) for plan, runs in answers if len(runs) >= MIN_RUNS]
        copied = {plan.number for plan, runs in answers if similarity(runs, solution) >= threshold}
        hidden = {
            plan.number
            for plan in plans
            if runs_code_from_string(plan.answers.get(exercise.id) or [])
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
            if found:
                notes[(plan.number, exercise.id)] = found
                plan.result.problems += found
                for result in plan.result.results:
                    if result.exercise == exercise.id:
                        result.note = "; ".join(found)
    return notes
