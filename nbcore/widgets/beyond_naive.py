"""The chapter on relaxing the naive assumption: a tree of features learned from data.

Records are simulated from a tree-augmented model whose tree is known. Each of ``D = 5``
features takes one of ``K = 3`` values; the class y is 0 or 1 with equal probability. The root
x1 is drawn from a class-conditional distribution theta_y; every other feature x_d copies its
parent "shifted by the class", x_d = (x_pa(d) + y) mod K, with probability ``strength`` (the
dependence strength), and is otherwise drawn from theta_y like the root:

    p(x_d | x_pa(d), y) = strength [x_d = (x_pa(d) + y) mod K] + (1 - strength) theta_{y x_d}.

At strength 0 the features are independent given the class (naive Bayes is the right model).
At moderate strengths (up to about 0.6) every feature but the root shows the class less on
its own and more in how it differs from its parent, a three-valued cousin of chapter two's
XOR. The root's information about the class does not depend on the strength, and near
strength 1 the shifts add up along a path: at strength 1, x5 = (x1 + 3y) mod 3 = x1 is as
informative as the root. Tree-augmented naive Bayes with the true tree is the right model at
every strength.

:func:`simulate` draws records, :func:`exact_posterior` gives the true P(y = 1 | x),
:func:`fit_tree` fits :class:`nbcore.TreeAugmentedNB` and lists its tree's edges with their
conditional mutual information, :func:`model_scores` scores naive Bayes, TAN and AODE against
the exact posterior on a fixed test set, :func:`learning_curve` repeats that over training
sizes, :func:`draw_tree` draws a tree, :func:`tree_panel` is one setting of the explorer and
:func:`tree_explorer` puts the controls on it. :func:`threshold_exercise_weights` draws the
edge weights of one of the chapter's exercises.
"""

import html
import itertools
import math
from functools import cache

import numpy as np
import pandas as pd

from nbcore._validation import check_int, check_probability, check_real
from nbcore.aode import AveragedOneDependenceNB
from nbcore.categorical import CategoricalNB
from nbcore.plotting import FLAG_TEXT, class_style, figure_html, new_figure
from nbcore.tan import TreeAugmentedNB, maximum_spanning_tree
from nbcore.widgets._explorer import Slider, Steps, explorer

__all__ = [
    "FEATURES",
    "N_VALUES",
    "TRUE_PARENT",
    "THETA",
    "TRAINING_SIZES",
    "CONTROLS",
    "simulate",
    "exact_posterior",
    "fit_tree",
    "model_scores",
    "learning_curve",
    "draw_tree",
    "tree_panel",
    "tree_explorer",
    "threshold_exercise_weights",
]

FEATURES = ("x1", "x2", "x3", "x4", "x5")
N_VALUES = 3  # K: every feature takes the values 0, 1, 2
#: The true tree: the parent of each feature (-1 for the root x1): x1 - x2, x2 - x3, x2 - x4,
#: x4 - x5.
TRUE_PARENT = (-1, 0, 1, 1, 3)
#: theta_{y k}: the distribution of a feature that does not copy its parent, per class.
THETA = np.array([[0.45, 0.35, 0.20], [0.20, 0.35, 0.45]])
TRAINING_SIZES = (25, 50, 100, 200, 400, 800, 1600, 3200)
TEST_SIZE = 4000
TEST_SEED = 20_251_111  # the one test set every setting is scored on
MODELS = ("naive Bayes", "TAN", "AODE")


def _strength(strength):
    return check_probability("strength", strength)


def simulate(n, strength, seed):
    """``n`` records of the chapter's tree model.

    Parameters
    ----------
    n : int >= 1
    strength : float in [0, 1]
        Probability that a feature copies its parent shifted by the class.
    seed : int
        Seed of NumPy's default generator: the same seed gives the same records.

    Returns
    -------
    X : DataFrame of shape (n, 5)
        Columns x1..x5, values 0, 1, 2.
    y : ndarray of int of shape (n,)
        The classes, 0 or 1.
    """
    n = check_int("n", n, 1)
    strength = _strength(strength)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    y = (rng.random(n) < 0.5).astype(int)
    X = np.empty((n, len(FEATURES)), dtype=int)
    cumulative = THETA.cumsum(axis=1)[y]  # shape (n, K): each record's class distribution
    for d, parent in enumerate(TRUE_PARENT):  # parents come before their children
        own = (rng.random(n)[:, None] > cumulative).sum(axis=1)  # a draw from theta_y
        if parent < 0:
            X[:, d] = own
            continue
        copies = rng.random(n) < strength
        X[:, d] = np.where(copies, (X[:, parent] + y) % N_VALUES, own)
    return pd.DataFrame(X, columns=list(FEATURES)), y


def exact_posterior(X, strength):
    """The true P(y = 1 | x) of the simulated model, shape (n_samples,).

    A record the model cannot produce (at strength 1, a child that is not its parent shifted
    by either class) has no posterior: a ValueError names it.
    """
    strength = _strength(strength)
    X = np.asarray(X, dtype=int)
    if (
        X.ndim != 2
        or X.shape[1] != len(FEATURES)
        or X.min(initial=0) < 0
        or X.max(initial=0) >= N_VALUES
    ):
        raise ValueError(
            f"X must have shape (n_samples, 5) with values 0, 1, 2; got shape {X.shape}"
        )
    log_joint = np.full((X.shape[0], 2), math.log(0.5))  # log p(y) + sum_d log p(x_d | ...)
    for c in (0, 1):
        for d, parent in enumerate(TRUE_PARENT):
            p = THETA[c, X[:, d]]
            if parent >= 0:
                copied = X[:, d] == (X[:, parent] + c) % N_VALUES
                p = strength * copied + (1 - strength) * p
            with np.errstate(divide="ignore"):  # log 0 = -inf: impossible in that class
                log_joint[:, c] += np.log(p)
    impossible = np.isneginf(log_joint).all(axis=1)
    if impossible.any():
        row = int(np.argmax(impossible))
        raise ValueError(
            f"record {row} of X, {X[row].tolist()}, has probability 0 in both classes at "
            f"strength {strength}"
        )
    shifted = log_joint - log_joint.max(axis=1, keepdims=True)
    return np.exp(shifted[:, 1]) / np.exp(shifted).sum(axis=1)


def _models(alpha):
    alpha = check_real("alpha", alpha, 0)
    common = {"alpha": alpha, "min_categories": N_VALUES}
    return {
        "naive Bayes": CategoricalNB(**common),
        "TAN": TreeAugmentedNB(**common),
        "AODE": AveragedOneDependenceNB(**common),
    }


def fit_tree(n_train, alpha=1.0, strength=0.6, seed=0):
    """Fit TAN to ``n_train`` simulated records and describe its tree.

    Returns
    -------
    dict
        ``"model"``, the fitted :class:`nbcore.TreeAugmentedNB`; ``"cmi"``, its matrix
        I(X_i; X_j | Y) in nats, shape (5, 5); ``"parent"``, its parent array; ``"edges"``, a
        DataFrame with a row per edge of the tree (columns "child", "parent", "CMI (nats)",
        "in the true tree"); ``"n_true"``, how many of the four edges are the true ones.
    """
    X, y = simulate(n_train, strength, seed)
    model = _models(alpha)["TAN"].fit(X, y)
    parent = [int(p) for p in model.parent_]
    true_edges = {frozenset((d, p)) for d, p in enumerate(TRUE_PARENT) if p >= 0}
    rows = [
        {
            "child": FEATURES[d],
            "parent": FEATURES[p],
            "CMI (nats)": float(model.conditional_mutual_info_[d, p]),
            "in the true tree": frozenset((d, p)) in true_edges,
        }
        for d, p in enumerate(parent)
        if p >= 0
    ]
    edges = pd.DataFrame(rows, columns=["child", "parent", "CMI (nats)", "in the true tree"])
    return {
        "model": model,
        "cmi": model.conditional_mutual_info_.copy(),
        "parent": parent,
        "edges": edges,
        "n_true": int(edges["in the true tree"].sum()),
    }


@cache
def _test_set(strength):
    X, y = simulate(TEST_SIZE, strength, TEST_SEED)
    return X, y, exact_posterior(X, strength)


def _log_loss(p_one, y):
    """Mean of -log P(y_i | x_i), given P(y = 1 | x_i)."""
    p_true = np.where(y == 1, p_one, 1 - p_one)
    return float(-np.mean(np.log(np.clip(p_true, 1e-300, None))))


def model_scores(n_train, alpha=1.0, strength=0.6, seed=0):
    """Accuracy and log loss on the fixed test set of naive Bayes, TAN, AODE and the exact
    posterior (the best any model can do on average: on one finite test set a fitted model
    can score slightly better by chance), each fitted to the same ``n_train`` records.

    Returns
    -------
    DataFrame
        Index "naive Bayes", "TAN", "AODE", "exact posterior"; columns "accuracy",
        "log loss (nats)".
    """
    X, y = simulate(n_train, strength, seed)
    X_test, y_test, exact = _test_set(_strength(strength))
    p_one = {name: m.fit(X, y).predict_proba(X_test)[:, 1] for name, m in _models(alpha).items()}
    p_one["exact posterior"] = exact
    return pd.DataFrame(
        {
            "accuracy": {name: float(np.mean((p > 0.5) == y_test)) for name, p in p_one.items()},
            "log loss (nats)": {name: _log_loss(p, y_test) for name, p in p_one.items()},
        }
    )


def learning_curve(sizes, alpha=1.0, strength=0.6, repeats=5):
    """:func:`model_scores` and the number of true edges TAN finds, at each training size,
    averaged over ``repeats`` training sets (seeds 0, 1, ...).

    Returns
    -------
    DataFrame
        Index "records" (the sizes); columns (metric, model) for the metrics "accuracy" and
        "log loss (nats)", and ("true edges", "TAN"), the mean number of the four true edges
        in TAN's tree.
    """
    repeats = check_int("repeats", repeats, 1)
    if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__len__") or len(sizes) == 0:
        raise TypeError("sizes must be a non-empty sequence of ints")
    rows = {}
    for n in sizes:
        tables = [model_scores(n, alpha, strength, seed) for seed in range(repeats)]
        mean = sum(tables) / repeats
        row = {(metric, model): mean.loc[model, metric] for metric in mean for model in mean.index}
        row["true edges", "TAN"] = float(
            np.mean([fit_tree(n, alpha, strength, seed)["n_true"] for seed in range(repeats)])
        )
        rows[int(n)] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "records"
    return table


def _positions():
    """Five points on a circle, x1 at the top, going clockwise."""
    angles = np.pi / 2 - 2 * np.pi * np.arange(len(FEATURES)) / len(FEATURES)
    return np.column_stack([np.cos(angles), np.sin(angles)])


def draw_tree(ax, cmi, parent, title=None):
    """Draw a fitted tree on ``ax``: the features on a circle, the tree's edges as arrows from
    parent to child labelled with I(X_i; X_j | Y) (solid: a true edge; dotted: a false one),
    and the true edges the tree missed as thin dashed lines."""
    xy = _positions()
    chosen = {frozenset((d, p)) for d, p in enumerate(parent) if p >= 0}
    true_style, false_style = class_style(0), class_style(1)
    for d, p in enumerate(TRUE_PARENT):
        if p >= 0 and frozenset((d, p)) not in chosen:
            ax.plot(*zip(xy[p], xy[d], strict=True), color="grey", linestyle="--", linewidth=1)
    for d, p in enumerate(parent):
        if p < 0:
            continue
        true = TRUE_PARENT[d] == p or TRUE_PARENT[p] == d
        style = true_style if true else false_style
        ax.annotate(
            "",
            xy=xy[d] * 0.86 + xy[p] * 0.14,
            xytext=xy[p] * 0.86 + xy[d] * 0.14,
            arrowprops={
                "arrowstyle": "-|>",
                "color": style["color"],
                "linewidth": 2.5,
                "linestyle": "-" if true else ":",
            },
        )
        middle = (xy[d] + xy[p]) / 2
        ax.text(
            *middle,
            f"{cmi[d, p]:.3f}",
            ha="center",
            va="center",
            fontsize=8,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
        )
    for d, name in enumerate(FEATURES):
        ax.text(
            *xy[d],
            name,
            ha="center",
            va="center",
            fontsize=10,
            bbox={"boxstyle": "circle", "facecolor": "white", "edgecolor": "black"},
        )
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.3, 1.35)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)


def _tree_alt(fit):
    """The tree in words, for screen readers: each arrow with its weight."""
    found = "; ".join(
        f"{parent} to {child}, {weight:.3f} nats" + ("" if true else " (not a true edge)")
        for child, parent, weight, true in fit["edges"].itertuples(index=False, name=None)
    )
    return (
        f"The five features on a circle with the four arrows of the fitted tree: {found}. "
        f"{fit['n_true']} of the 4 true edges are found."
    )


def _table(frame, fmt):
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in ["", *frame.columns])
    body = "".join(
        f"<tr><th>{html.escape(str(name))}</th>"
        + "".join(f"<td>{fmt(v)}</td>" for v in row)
        + "</tr>"
        for name, row in frame.iterrows()
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def tree_panel(n_train, alpha, strength):
    """The explorer's panel as HTML: the fitted tree drawn with its edge weights, and the test
    scores of naive Bayes, TAN, AODE and the exact posterior at this setting."""
    fit = fit_tree(n_train, alpha, strength)
    fig, axes = new_figure(1, 1, figsize=(3.6, 3.4))
    draw_tree(axes[0, 0], fit["cmi"], fit["parent"])
    scores = model_scores(n_train, alpha, strength)
    note = ""
    if fit["n_true"] < 4:
        note = (
            f'<p style="color:{FLAG_TEXT};font-weight:bold">'
            f"{4 - fit['n_true']} of the 4 true edges missed</p>"
        )
    return (
        figure_html(fig, _tree_alt(fit))
        + note
        + _table(scores, lambda v: f"{v:.3f}")
        + _beaten_note(scores)
    )


def _beaten_note(scores):
    """A sentence when a fitted model scores better than the exact posterior on the test set:
    the exact posterior is the best only on average over test sets, not on every one."""
    exact = scores.loc["exact posterior"]
    fitted = scores.drop(index="exact posterior")
    better = [
        name
        for name in fitted.index
        if fitted.loc[name, "accuracy"] > exact["accuracy"]
        or fitted.loc[name, "log loss (nats)"] < exact["log loss (nats)"]
    ]
    if not better:
        return ""
    return (
        f"<p>{html.escape(', '.join(better))} scores better than the exact posterior on this "
        "test set: chance. The exact posterior is the best only on average over test sets.</p>"
    )


#: The explorer's controls: the training size, the smoothing and the dependence strength.
CONTROLS = (
    Steps("n_train", "training records", TRAINING_SIZES),
    Slider("alpha", "smoothing alpha", -2.0, 1.0, 0.25, fmt=".3g", log=True),
    Slider("strength", "dependence strength", 0.0, 1.0, 0.05),
)


def tree_explorer(n_train=100, alpha=1.0, strength=0.6):
    """Controls for the training size, alpha and the dependence strength over
    :func:`tree_panel`. Returns an ipywidgets.VBox."""
    return explorer(CONTROLS, tree_panel, n_train=n_train, alpha=alpha, strength=strength)


def _tree_path(parent, start, end):
    """The edges (child, parent) on the path of the tree ``parent`` from start to end."""

    def to_root(node):
        walk = [node]
        while parent[walk[-1]] >= 0:
            walk.append(int(parent[walk[-1]]))
        return walk

    up_start, up_end = to_root(start), to_root(end)
    while len(up_start) > 1 and len(up_end) > 1 and up_start[-2] == up_end[-2]:
        up_start.pop()  # drop the common part above the meeting point
        up_end.pop()
    nodes = up_start + up_end[::-1][1:]
    return [(a, b) for a, b in zip(nodes, nodes[1:], strict=False)]


def threshold_exercise_weights(rng=None):
    """Edge weights for the exercise "when does an unmeasured edge enter TAN's tree?".

    Returns a symmetric 5 x 5 matrix of ten distinct weights in nats, with one pair's weight
    unknown (NaN), and that pair. ``rng`` None gives the book's numbers; otherwise the weights
    are drawn with the NumPy Generator ``rng`` again and again until no shortcut gives the
    answer, which is the lightest edge on the tree's path between the pair (the tree of the
    known weights): the path has three edges, its lightest is the middle one, touching
    neither feature of the pair, and the tree's lightest edge is off the path. (These
    conditions are the exercise's solution, so they live here, not in the notebook.)
    """
    if rng is None:
        upper = {
            (0, 1): 0.02,
            (0, 2): 0.03,
            (0, 3): 0.08,
            (0, 4): 0.01,
            (1, 2): 0.015,
            (1, 3): 0.04,
            (1, 4): 0.025,
            (2, 3): 0.05,
            (2, 4): 0.06,
            (3, 4): 0.035,
        }
        pairs = [(0, 4)]
    elif not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator or None, got {type(rng).__name__}")
    while True:
        if rng is not None:
            values = rng.permutation(np.arange(1, 100))[:10] / 1000  # ten distinct weights
            upper = dict(zip(itertools.combinations(range(5), 2), values, strict=True))
            pairs = [tuple(int(f) for f in np.sort(rng.choice(5, size=2, replace=False)))]
        pair = pairs[0]
        known = np.zeros((5, 5))
        for (i, j), w in upper.items():
            known[i, j] = known[j, i] = w
        known[pair] = known[pair[::-1]] = 0.0  # the unknown edge never enters the tree
        parent = maximum_spanning_tree(known)
        path = [known[e] for e in _tree_path(parent, *pair)]
        lightest_in_tree = min(known[d, p] for d, p in enumerate(parent) if p >= 0)
        if len(path) == 3 and min(path) == path[1] and lightest_in_tree not in path:
            break
        if rng is None:
            raise AssertionError("the book's weights do not meet the exercise's conditions")
    weights = known.copy()
    weights[pair] = weights[pair[::-1]] = np.nan
    return weights, pair
