"""The exercises of the chapter on one-dependence models (11): every hint fires.

Each exercise's data cell, solution and check cell are read from the chapter's notebook and run
here, in the book (no variant) and for many per-student variants: the solution and an answer
computed independently below are "correct", and the answer each usual mistake gives gets that
mistake's hint, never "correct". The independent answers take other routes than the
solutions: the unknown count by searching for the one that makes class one's mutual
information (from entropies) vanish, the threshold by enumerating every spanning tree, the AODE
parameters from a fitted model's tables, AODE's probability by
fitting nbcore to records rebuilt from the counts.
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


def _weight(counts):
    """I(X1; X2 | Y) from entropies: sum over the classes of N_c / N times the within-class
    mutual information."""
    return sum(c.sum() / counts.sum() * _mutual_information(c) for c in counts)


def _nearest_minimum(f, start, step=1e-3):
    """The first local minimum of f to the right of start, by walking downhill and then
    narrowing the bracket (golden sections), another route than scipy's Brent."""
    a, b = start, start + step
    while f(b + step) < f(b):
        step *= 1.5
        a, b = b, b + step
    lo, hi = a, b + step
    ratio = (np.sqrt(5) - 1) / 2
    while hi - lo > 1e-10 * max(1.0, hi):
        left, right = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if f(left) < f(right):
            hi = right
        else:
            lo = left
    return (lo + hi) / 2


def _ex111(ns):
    counts = ns["counts_111"].astype(float)
    zero = counts[0]
    a, b, c = counts[1][0, 0], counts[1][0, 1], counts[1][1, 0]

    def class_one_information(n):
        table = counts[1].copy()
        table[1, 1] = n
        return _mutual_information(table)

    # the count that makes class one's mutual information vanish, by search over counts
    candidates = np.arange(0, 1001)
    information = np.array([class_one_information(n) for n in candidates])
    right = float(candidates[np.argmin(information)])
    assert information.min() < 1e-12
    odds_zero = zero[0, 0] * zero[1, 1] / (zero[0, 1] * zero[1, 0])
    pooled = counts[0] + counts[1]

    def weight_at(n):
        table = counts.copy()
        table[1, 1, 1] = n
        return _weight(table)

    minimiser = _nearest_minimum(weight_at, right)
    return (
        "n_111",
        right,
        [
            ("wrong side", a * b / c),
            ("multiplies N_100", a * c / b),
            ("not the differences", b + c - a),
            ("classes pooled", (pooled[0, 1]) * (pooled[1, 0]) / pooled[0, 0] - zero[1, 1]),
            ("odds ratio of one", odds_zero * b * c / a),
            ("drops only its own term", 0.0),
            ("minimises the whole weight", minimiser),
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


def _connected(edges, i, j, n=5):
    root = list(range(n))

    def find(k):
        while root[k] != k:
            k = root[k]
        return k

    for a, b in edges:
        root[find(a)] = find(b)
    return find(i) == find(j)


def _ex112(ns):
    w, pair = ns["weights_112"], tuple(ns["pair_112"])
    trees = list(_spanning_trees(5))
    assert len(trees) == 125  # Cayley: 5 ** 3

    def weight(tree):
        return sum(w[e] for e in tree if e != pair)

    # the edge enters when w + (best tree through it, without it) > best tree without it
    best_without = max((t for t in trees if pair not in t), key=weight)
    best_with = max(weight(t) for t in trees if pair in t)
    right = weight(best_without) - best_with
    # the path between the pair in that tree: the edges whose removal separates the pair
    path = [e for e in best_without if not _connected(set(best_without) - {e}, *pair)]
    touching = [w[e] for e in best_without if set(e) & set(pair)]
    others = np.nan_to_num(w, nan=-1.0)
    return (
        "threshold_112",
        right,
        [
            ("not the heaviest", max(w[e] for e in path)),
            ("may lie elsewhere", min(w[e] for e in best_without)),
            ("need not touch either", min(touching)),
            ("enough, not necessary", min(others[f].max() for f in pair)),
        ],
    )


def _ex113(ns):
    K, C = ns["K_113"], ns["C_113"]
    # fit AODE to a few records with these numbers of values and count its tables' entries
    X = np.zeros((C, 5), dtype=int)
    model = nbcore.AveragedOneDependenceNB(alpha=1.0, min_categories=K).fit(X, np.arange(C))
    joint = [table.size - 1 for table in model.parent_log_prob_]
    child_free = {key: table[..., :-1].size for key, table in model.child_log_prob_.items()}
    child_all = {key: table.size for key, table in model.child_log_prob_.items()}
    assert [t.shape for t in model.parent_log_prob_] == [(C, k) for k in K]
    per_model = [joint[i] + sum(v for (j, _), v in child_free.items() if j == i) for i in range(5)]
    right = sum(per_model)
    return (
        "n_params_113",
        right,
        [
            ("C K_i - 1 free numbers", right + 5),
            ("K_d - 1 free numbers", sum(joint) + sum(child_all.values())),
            ("add the counts", right / 5),
            ("one model per feature", per_model[0]),
            ("not one per class", 5 * ((C - 1) + sum(C * (k - 1) for k in K))),
        ],
    )


def _records_from_counts(ns):
    """Records that have the data cell's counts: 0 where a record matches the new record's
    value, 1 where it does not; the new record is (0, 0, 0)."""
    features = ["a", "b", "c"]
    rows, labels = [], []
    for c in ["yes", "no"]:
        n_c = int(ns["class_counts_114"][c])
        single = [int(ns["parent_counts_114"].loc[c, f]) for f in features]
        pair = {
            (i, d): int(ns["pair_counts_114"].loc[c, (features[i], features[d])])
            for i in range(3)
            for d in range(3)
            if i != d
        }
        for i, d in pair:
            assert pair[i, d] == pair[d, i]
        for t in range(n_c + 1):  # the records that match on all three
            cells = {}
            for pattern in itertools.product([0, 1], repeat=3):
                # inclusion-exclusion: records that match exactly on the features in pattern
                on = [k for k in range(3) if pattern[k]]
                total = 0
                for extra in range(0, 4):
                    for more in itertools.combinations([k for k in range(3) if k not in on], extra):
                        group = tuple(sorted(on + list(more)))
                        size = {0: n_c, 1: None, 2: None, 3: t}[len(group)]
                        if len(group) == 1:
                            size = single[group[0]]
                        elif len(group) == 2:
                            size = pair[group]
                        total += (-1) ** extra * size
                cells[pattern] = total
            if min(cells.values()) >= 0:
                break
        else:
            raise AssertionError("no records have these counts")
        for pattern, k in cells.items():
            rows += [[1 - hit for hit in pattern]] * k
            labels += [c] * k
    X = pd.DataFrame(rows, columns=features)
    return X, np.array(labels), {"a": 0, "b": 0, "c": 0}


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
    X, y, record = _records_from_counts(ns)
    assert len(y) == ns["n_114"]
    model = nbcore.AveragedOneDependenceNB(alpha=1.0, min_categories=[2, 3, 2]).fit(X, y)
    right = float(model.predict_proba(pd.DataFrame([record]))[0, list(model.classes_).index("yes")])
    assert right == pytest.approx(_aode_from_records(X, y, record), rel=1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        unsmoothed = _aode_from_records(X, y, record, alpha=0.0)
    naive = nbcore.CategoricalNB(alpha=1.0, min_categories=[2, 3, 2]).fit(X, y)
    naive_yes = float(
        naive.predict_proba(pd.DataFrame([record]))[0, list(naive.classes_).index("yes")]
    )
    return (
        "p_yes_114",
        right,
        [
            ("geometric mean", _aode_from_records(X, y, record, average="geometric")),
            ("N + C K_i", _aode_from_records(X, y, record, prior_cells=lambda k: k)),
            ("not yet divided", _aode_from_records(X, y, record, norm=False)),
            ("smoothing is missing", unsmoothed),
            ("that is naive Bayes", naive_yes),
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


def _distinct(right, mistakes, rtol=1e-6):
    """The numbers the check cell gives a hint for, each with the fragments of every mistake
    that gives it (mistakes that give the same number share one hint); none is the answer."""
    kept = []
    for fragment, value in mistakes:
        if not np.isfinite(value) or abs(value - right) <= rtol * max(1.0, abs(right)):
            continue
        for fragments, other in kept:
            if abs(value - other) <= rtol * max(1.0, abs(other)):
                fragments.append(fragment)
                break
        else:
            kept.append(([fragment], value))
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
        for fragments, value in _distinct(right, mistakes):
            verdict = _run(exercise, seed, (name, value))
            for fragment in fragments:
                assert "not yet" in verdict and fragment in verdict, (seed, fragment, verdict)
                fired.add(fragment)
    # every hint is met by some student
    assert fired == {fragment for fragment, _ in _answers(exercise, None)[2]}, fired


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_variants_differ_from_the_book_and_between_students(exercise):
    answers = {round(float(_answers(exercise, seed)[1]), 9) for seed in SEEDS[:20]}
    assert len(answers) > 10, answers


@pytest.mark.parametrize("exercise", ["11.1", "11.2"])
def test_no_usual_mistake_gives_the_answer(exercise):
    """In 11.1 and 11.2 every slip is wrong in every variant (none is dropped as "right"),
    except that minimising the whole weight in 11.1 can land within the check's tolerance
    of the answer when class one's records outnumber class zero's by far (then it is right)."""
    near = 0
    for seed in [None, *range(100)]:
        _, right, mistakes = _answers(exercise, seed)
        for fragment, value in mistakes:
            if abs(value - right) <= 1e-6 * max(1.0, abs(right)):
                assert fragment == "minimises the whole weight", (seed, fragment)
                near += 1
    assert near <= 2


def test_the_book_and_variants_of_11_1_have_a_dependence_in_class_zero():
    """Class zero's odds ratio is not one, so the weight stays above zero, and a slightly
    larger count than the answer makes the weight smaller (class zero's share shrinks)."""
    for seed in [None, *range(100)]:
        counts = _data("11.1", seed)["counts_111"].astype(float)
        zero = counts[0]
        assert zero[0, 0] * zero[1, 1] != zero[0, 1] * zero[1, 0], seed
        right = _answers("11.1", seed)[1]
        table = counts.copy()
        table[1, 1, 1] = right
        assert _mutual_information(table[1]) < 1e-12 and _weight(table) > 0
        larger = table.copy()
        larger[1, 1, 1] = right + 1e-6 * max(1.0, right)  # the nearest minimum can be close
        assert _weight(larger) < _weight(table), seed


def test_the_threshold_of_11_2_lies_between_the_pair_and_off_the_tree_s_lightest_edge():
    """The deciding edge touches neither feature of the pair, and the four slips give at
    least three different wrong numbers, in the book and every variant."""
    for seed in [None, *range(100)]:
        ns = _data("11.2", seed)
        w, pair = ns["weights_112"], tuple(ns["pair_112"])
        right, mistakes = _answers("11.2", seed)[1:]
        deciding = [
            (i, j) for i, j in itertools.combinations(range(5), 2) if abs(w[i, j] - right) < 1e-12
        ]
        assert len(deciding) == 1 and not set(deciding[0]) & set(pair), (seed, deciding)
        assert len(_distinct(right, mistakes)) >= 3, seed


def test_the_threshold_weights_refuse_a_seed_instead_of_a_generator():
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        beyond_naive.threshold_exercise_weights(7)


def test_the_identity_in_the_solution_of_11_3():
    """AODE's count is D times naive Bayes' plus 2 C sum_{i<j} (K_i - 1)(K_j - 1)."""
    for seed in [None, *range(30)]:
        ns = _data("11.3", seed)
        K, C = ns["K_113"], ns["C_113"]
        naive = (C - 1) + sum(C * (k - 1) for k in K)
        pairs = sum((a - 1) * (b - 1) for a, b in itertools.combinations(K, 2))
        assert _answers("11.3", seed)[1] == 5 * naive + 2 * C * pairs, seed


def test_the_book_answers():
    # 11.1: class one's known counts 12, 4, 9 factorise with N_111 = 4 * 9 / 12
    assert _answers("11.1", None)[1] == 3
    # 11.2: without x1-x5, the tree is x1-x4 (0.08), x3-x5 (0.06), x4-x3 (0.05), x4-x2 (0.04);
    # the path x1-x4-x3-x5 has 0.08, 0.05, 0.06, so the edge must weigh more than 0.05, the
    # weight of an edge touching neither x1 nor x5 (the tree's lightest, 0.04, is off the path)
    assert _answers("11.2", None)[1] == pytest.approx(0.05)
    # 11.3: per super-parent i, 3 K_i - 1 + 3 K_i sum_{d != i} (K_d - 1), with K = 3, 2, 4, 3, 2
    # and sum_d (K_d - 1) = 9: 8 + 9 * 7, 5 + 6 * 8, 11 + 12 * 6, 8 + 9 * 7, 5 + 6 * 8
    assert _answers("11.3", None)[1] == 71 + 53 + 83 + 71 + 53


def test_the_records_are_not_in_the_data_cell_of_11_4():
    """The data cell hands out counts only: neither its names nor what its functions return
    hold training records (one row per record), from which a fitted AODE would answer."""
    namespace = _data("11.4", None)
    own = {k: v for k, v in namespace.items() if k not in _namespace() and k != "__builtins__"}
    values = [v for v in own.values() if not callable(v)]
    for function in (v for v in own.values() if callable(v)):
        for rng in (None, np.random.default_rng(0)):
            result = function(rng)
            values += list(result) if isinstance(result, tuple) else [result]
    tables = [v for v in values if isinstance(v, (pd.DataFrame, pd.Series, np.ndarray))]
    assert tables and all(len(v) <= 2 for v in tables)  # one row per class, at most
