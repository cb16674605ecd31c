"""The exercises of the chapter on one-dependence models (11): every hint fires.

Each exercise's data cell, solution and check cell are read from the chapter's notebook and run
here, in the book (no variant) and for many per-student variants: the solution and an answer
computed independently below are "correct", and the answer each usual mistake gives gets that
mistake's hint, never "correct". The independent answers take other routes than the
solutions: the conditional mutual information from entropies, the best tree by enumerating
every spanning tree, the parameters by building the tables, AODE by counting in the records.
"""

import contextlib
import functools
import io
import itertools
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

import nbcore
from nbcore import exercises
from nbcore.tan import maximum_spanning_tree
from nbcore.widgets import beyond_naive

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTER = "11_beyond_naive"
SEEDS = [None, *range(30)]  # None: the book's own numbers


@functools.cache
def _cells(exercise):
    nb = nbformat.read(BOOK / f"{CHAPTER}.ipynb", as_version=4)
    by_role = {}
    for cell in nb.cells:
        if cell.metadata.get("exercise") == exercise:
            by_role.setdefault(cell.metadata.get("role"), []).append(cell.source)
    return by_role


def _namespace():
    return {
        "np": np,
        "pd": pd,
        "itertools": itertools,
        "nbcore": nbcore,
        "exercises": exercises,
        "beyond_naive": beyond_naive,
        "maximum_spanning_tree": maximum_spanning_tree,
        "display": lambda *args: None,
    }


def _data(exercise, seed):
    namespace = _namespace()
    exercises.use_variant(seed)
    try:
        for source in _cells(exercise).get("data", []):
            exec(source, namespace)  # noqa: S102 - the chapter's own cell
    finally:
        exercises.use_variant(None)
    return namespace


def _run(exercise, seed, answer):
    """The verdict of the check on ``answer`` (a (name, value) pair), or on the solution."""
    cells = _cells(exercise)
    namespace = _namespace()
    exercises.use_variant(seed)
    try:
        for source in cells.get("data", []):
            exec(source, namespace)  # noqa: S102
        if answer is None:
            for source in cells["solution"]:
                exec(source, namespace)  # noqa: S102
        else:
            name, value = answer
            namespace[name] = value
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(cells["check"][0], namespace)  # noqa: S102
        return out.getvalue()
    finally:
        exercises.use_variant(None)


# --------------------------------------------------------------------------- the answers
# Each: the answer's name, the right answer, and [(hint fragment, the mistake's answer)] in
# the order the check cell lists them, computed from the data cell's names as a student would.


def _entropy(p):
    p = np.asarray(p, dtype=float).ravel()
    p = p[p > 0] / p.sum()
    return float(-np.sum(p * np.log(p)))


def _mutual_information(table):
    return _entropy(table.sum(axis=1)) + _entropy(table.sum(axis=0)) - _entropy(table)


def _ex111(ns):
    counts = ns["counts_111"].astype(float)
    share = counts.sum(axis=(1, 2)) / counts.sum()
    per_class = [_mutual_information(counts[c]) for c in range(2)]
    # I(X1; X2 | Y) = sum_c P(c) I(X1; X2 | Y = c)
    right = float(np.dot(share, per_class))
    p = counts / counts.sum()
    ignore_p_c = float(
        np.sum(p * np.log(p / (p.sum(axis=2, keepdims=True) * p.sum(axis=1, keepdims=True))))
    )
    return (
        "cmi_111",
        right,
        [
            ("over all records", _mutual_information(counts.sum(axis=0))),
            ("in bits", right / np.log(2)),
            ("not one half each", float(np.mean(per_class))),
            ("not added", float(np.sum(per_class))),
            ("needs P(c)", ignore_p_c),
        ],
    )


def _spanning_trees(n):
    for edges in itertools.combinations(itertools.combinations(range(n), 2), n - 1):
        root = list(range(n))

        def find(i, root=root):
            while root[i] != i:
                i = root[i]
            return i

        ok = True
        for i, j in edges:
            a, b = find(i), find(j)
            ok &= a != b
            root[a] = b
        if ok:
            yield edges


def _ex112(ns):
    w, n = ns["weights_112"], ns["n_112"]
    weights = [sum(w[i, j] for i, j in tree) for tree in _spanning_trees(5)]
    assert len(weights) == 125  # Cayley: 5 ** 3
    right = n * max(weights)
    return (
        "gain_112",
        right,
        [
            ("sum over the N records", max(weights)),
            ("lightest spanning tree", n * min(weights)),
            ("adds every pair", n * sum(w[i, j] for i, j in itertools.combinations(range(5), 2))),
            ("heaviest edge", n * sum(max(w[i]) for i in range(5))),
            ("in bits", right / np.log(2)),
        ],
    )


def _ex113(ns):
    K, parent, C = ns["K_113"], ns["parent_113"], ns["C_113"]
    tables = [np.zeros((C, K[p] if p >= 0 else 1, K[d])) for d, p in enumerate(parent)]
    # each row of a table sums to one: its last entry is not free
    right = (C - 1) + sum(t[..., :-1].size for t in tables)
    return (
        "n_params_113",
        right,
        [
            ("K_d - 1 free numbers", C + sum(t.size for t in tables)),
            ("C - 1 free parameters too", right - (C - 1)),
            (
                "not the other way round",
                (C - 1)
                + C * (K[0] - 1)
                + sum(C * K[d] * (K[p] - 1) for d, p in enumerate(parent) if p >= 0),
            ),
            ("naive Bayes' count", (C - 1) + sum(C * (k - 1) for k in K)),
            ("not one per value", right + C * (K[0] - 1) ** 2),
        ],
    )


def _aode_from_records(X, y, record, alpha=1.0, average="arithmetic", prior_cells=None, norm=True):
    """AODE's P(yes | record) by counting in the records (or a slip of it)."""
    n_values = {f: 3 if f == "b" else 2 for f in X.columns}
    scores = {}
    for c in ["yes", "no"]:
        terms = []
        for i in X.columns:
            match_i = (y == c) & (X[i] == record[i]).to_numpy()
            cells = 2 * n_values[i] if prior_cells is None else prior_cells(n_values[i])
            p = (match_i.sum() + alpha) / (len(y) + cells * alpha)
            for d in X.columns.drop(i):
                both = match_i & (X[d] == record[d]).to_numpy()
                p *= (both.sum() + alpha) / (match_i.sum() + n_values[d] * alpha)
            terms.append(p)
        if average == "geometric":
            scores[c] = float(np.exp(np.mean(np.log(terms))))
        else:
            scores[c] = float(np.mean(terms))
    return scores["yes"] / (scores["yes"] + scores["no"]) if norm else scores["yes"]


def _ex114(ns):
    X, y, record = ns["exercise_aode"](exercises.variant_rng("11.4"))
    right = _aode_from_records(X, y, record)
    with np.errstate(divide="ignore", invalid="ignore"):
        unsmoothed = _aode_from_records(X, y, record, alpha=0.0)
    n_values = {f: 3 if f == "b" else 2 for f in X.columns}
    naive = {}
    for c in ["yes", "no"]:
        p = np.mean(y == c)
        for d in X.columns:
            in_c = X[y == c]
            p *= ((in_c[d] == record[d]).sum() + 1) / (len(in_c) + n_values[d])
        naive[c] = p
    return (
        "p_yes_114",
        right,
        [
            ("geometric mean", _aode_from_records(X, y, record, average="geometric")),
            ("N + C K_i", _aode_from_records(X, y, record, prior_cells=lambda k: k)),
            ("not yet divided", _aode_from_records(X, y, record, norm=False)),
            ("smoothing is missing", unsmoothed),
            ("that is naive Bayes", naive["yes"] / (naive["yes"] + naive["no"])),
        ],
    )


EXERCISES = {"11.1": _ex111, "11.2": _ex112, "11.3": _ex113, "11.4": _ex114}


def _answers(exercise, seed):
    exercises.use_variant(seed)
    try:
        namespace = _data(exercise, seed)
        exercises.use_variant(seed)  # _ex114 draws the records again from the variant
        return EXERCISES[exercise](namespace)
    finally:
        exercises.use_variant(None)


def _distinct(right, mistakes):
    """The mistakes the check cell keeps: those that give a number of their own."""
    kept = []
    for fragment, value in mistakes:
        if not np.isfinite(value):
            continue
        others = [right, *(v for _, v in kept)]
        if all(abs(value - other) > 1e-6 * max(1.0, abs(other)) for other in others):
            kept.append((fragment, value))
    return kept


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_solution_and_independent_answer_are_correct_in_every_variant(exercise):
    for seed in SEEDS:
        assert f"Exercise {exercise}: correct" in _run(exercise, seed, None), seed
        name, right, _ = _answers(exercise, seed)
        verdict = _run(exercise, seed, (name, right))
        assert f"Exercise {exercise}: correct" in verdict, (seed, verdict)


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_every_mistake_gets_its_hint_in_the_book_and_the_variants(exercise):
    fired = set()
    for seed in SEEDS:
        name, right, mistakes = _answers(exercise, seed)
        for fragment, value in _distinct(right, mistakes):
            verdict = _run(exercise, seed, (name, value))
            assert "not yet" in verdict and fragment in verdict, (seed, fragment, verdict)
            fired.add(fragment)
    # every hint is met by some student
    assert fired == {fragment for fragment, _ in _answers(exercise, None)[2]}, fired


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_variants_differ_from_the_book_and_between_students(exercise):
    answers = {round(float(_answers(exercise, seed)[1]), 9) for seed in SEEDS[:20]}
    assert len(answers) > 10, answers


def test_the_book_answers():
    # 11.2: Prim on the book's matrix takes 0.09 (x1-x2), 0.08 (x1-x4), 0.05 (x3-x4) and
    # 0.06 (x3-x5): weight 0.28, times 500 records
    assert _answers("11.2", None)[1] == pytest.approx(500 * 0.28)
    # 11.3: 2 + 3 * 2 + (3*3*1 + 3*3*3 + 3*4*2 + 3*3*1) = 8 + 69
    assert _answers("11.3", None)[1] == 2 + 3 * 2 + 9 + 27 + 24 + 9
