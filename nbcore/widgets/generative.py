"""The generative-modelling chapter's explorer: how fast identical records run out.

A classifier that estimates P(y | x) by counting the training records identical to x can only
answer when such records exist. With D features of M values each there are M**D possible
records, so as D grows a new record almost never has a twin among the N training records.
The functions here measure that, by simulation and exactly, and count the parameters of a
full table p(x | y) against those of naive Bayes.

As in every explorer, the computing is done by pure functions (tested directly) and
:func:`generative_explorer` only wires sliders to them; :func:`match_rate_sweep` is its
static twin for the HTML book, where no kernel runs.
"""

import html
import math
from numbers import Real

import numpy as np
import pandas as pd

from nbcore._validation import check_int

__all__ = [
    "TRAIN_SIZES",
    "parameter_counts",
    "parameter_count_table",
    "draw_records",
    "match_rate",
    "expected_match_rate",
    "match_rate_sweep",
    "match_state",
    "match_html",
    "generative_explorer",
]

#: Training sizes the explorer's slider offers (roughly evenly spaced on a log scale).
TRAIN_SIZES = (10, 30, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000)

# Ranges of the explorer's sliders.
MAX_FEATURES, MAX_VALUES = 30, 6


def _check_probs(probs, n_values):
    """The probabilities of the M values of every feature: uniform by default."""
    if probs is None:
        return np.full(n_values, 1.0 / n_values)
    if isinstance(probs, (str, bytes)) or not hasattr(probs, "__len__"):
        raise TypeError(f"probs must be a sequence of {n_values} probabilities, got {probs!r}")
    if not all(isinstance(p, Real) and not isinstance(p, bool) for p in probs):
        raise TypeError(f"probs must hold real numbers, got {list(probs)!r}")
    q = np.asarray(probs, dtype=float)
    if q.shape != (n_values,):
        raise ValueError(f"probs must have one entry per value ({n_values}), got {q.shape[0]}")
    if not np.all(np.isfinite(q)) or np.any(q < 0) or not math.isclose(q.sum(), 1.0):
        raise ValueError(f"probs must be non-negative and sum to 1, got {q.tolist()}")
    return q


def parameter_counts(n_features, n_values=2):
    """Sizes of a full table p(x | y = c) and of naive Bayes' tables, for one class.

    Parameters
    ----------
    n_features : int
        D (also called K), the number of features.
    n_values : int, default 2
        M, the number of values each feature takes (2 for binary features).

    Returns
    -------
    dict of str to int
        ``"cells"``: M**D, the cells of one D-dimensional histogram;
        ``"full joint"``: M**D - 1, its free parameters (the cells sum to one);
        ``"one-dimensional cells"``: D * M, the cells of D one-dimensional histograms;
        ``"naive Bayes"``: D * (M - 1), their free parameters (each sums to one).
        Python integers, exact however large.
    """
    d = check_int("n_features", n_features, 1)
    m = check_int("n_values", n_values, 2)
    return {
        "cells": m**d,
        "full joint": m**d - 1,
        "one-dimensional cells": d * m,
        "naive Bayes": d * (m - 1),
    }


def parameter_count_table(features, n_values=2):
    """:func:`parameter_counts` for several numbers of features, one row each.

    Parameters
    ----------
    features : sequence of int, shape (n_settings,)
    n_values : int, default 2

    Returns
    -------
    DataFrame of shape (n_settings, 4)
        Index ``D``; the columns of :func:`parameter_counts`, as exact integers (object dtype
        once a count no longer fits in 64 bits).
    """
    features = [check_int("features", d, 1) for d in np.atleast_1d(features).tolist()]
    if not features:
        raise ValueError("features must hold at least one number of features")
    rows = [parameter_counts(d, n_values) for d in features]
    table = pd.DataFrame(rows, index=pd.Index(features, name="D"))
    return table


def draw_records(n_records, n_features, n_values=2, *, probs=None, rng=None):
    """Records whose D features are drawn independently, each value m with probability q_m.

    Parameters
    ----------
    n_records, n_features, n_values : int
    probs : sequence of float, shape (n_values,), optional
        q, the same for every feature; uniform (1/M each) by default.
    rng : numpy.random.Generator, optional
        Source of randomness; ``np.random.default_rng(0)`` by default.

    Returns
    -------
    ndarray of shape (n_records, n_features), dtype uint8
    """
    n = check_int("n_records", n_records, 1)
    d = check_int("n_features", n_features, 1)
    m = check_int("n_values", n_values, 2, 255)
    q = _check_probs(probs, m)
    rng = np.random.default_rng(0) if rng is None else rng
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    # inverse-CDF sampling: the value is the number of cumulative probabilities at or below
    # a uniform number (the same draws as rng.choice(m, size=(n, d), p=q), done faster)
    cumulative = np.cumsum(q)
    cumulative /= cumulative[-1]
    u = rng.random((n, d))
    return (u[..., None] >= cumulative[:-1]).sum(axis=-1, dtype=np.uint8)


def _has_twin(train, test, n_values):
    """For each test record, whether an identical record occurs in the training set."""
    n_features = train.shape[1]
    if n_features * math.log2(n_values) <= 62:
        # each record is a number written in base M: identical records, identical numbers
        place = n_values ** np.arange(n_features, dtype=np.int64)
        return np.isin(test.astype(np.int64) @ place, train.astype(np.int64) @ place)
    seen = {row.tobytes() for row in train}
    return np.array([row.tobytes() in seen for row in test])


def match_rate(n_features, n_train, n_values=2, *, probs=None, n_test=1000, seed=0):
    """Simulated fraction of new records that have an identical twin in the training data.

    N training records and ``n_test`` test records are drawn from the same distribution
    (:func:`draw_records`, seeded); the result is the fraction of test records equal, in all
    D features, to at least one training record. Only for those can P(y | x) be estimated by
    counting identical records.

    Parameters
    ----------
    n_features : int
        D.
    n_train : int
        N, the number of training records.
    n_values : int, default 2
        M.
    probs : sequence of float, shape (n_values,), optional
        Probability of each value (the same for every feature); uniform by default.
    n_test : int, default 1000
        Number of test records.
    seed : int, default 0
        Seed of ``np.random.default_rng``; the same seed gives the same records.

    Returns
    -------
    float in [0, 1]
    """
    seed = check_int("seed", seed, 0)
    n_test = check_int("n_test", n_test, 1)
    rng = np.random.default_rng(seed)
    train = draw_records(n_train, n_features, n_values, probs=probs, rng=rng)
    test = draw_records(n_test, n_features, n_values, probs=probs, rng=rng)
    return float(_has_twin(train, test, n_values).mean())


def _compositions(total, parts):
    """Every tuple of ``parts`` non-negative integers that sum to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _at_least_one(p, n):
    """1 - (1 - p)**n without losing digits when p is tiny."""
    return -np.expm1(n * np.log1p(-p)) if p < 1 else 1.0


def expected_match_rate(n_features, n_train, n_values=2, *, probs=None):
    """Exact probability that a new record has an identical twin among N training records.

    A record x has probability p(x) = prod_d q_{x_d}; it is missed by all N independent
    training records with probability (1 - p(x))**N. Averaging over the new record,

        E[match] = sum_x p(x) * (1 - (1 - p(x))**N),

    which for uniform values (p(x) = M**-D for every x) is 1 - (1 - M**-D)**N. Records with
    the same count of each value have the same p(x), so the sum runs over those counts
    (weighted by the multinomial coefficient) instead of over all M**D records.

    Parameters
    ----------
    n_features, n_train, n_values, probs
        As in :func:`match_rate`.

    Returns
    -------
    float in [0, 1]
    """
    d = check_int("n_features", n_features, 1)
    n = check_int("n_train", n_train, 1)
    m = check_int("n_values", n_values, 2)
    if probs is None:
        return float(_at_least_one(float(m) ** -d, n))
    q = _check_probs(probs, m)
    total = 0.0
    for counts in _compositions(d, m):
        if any(k > 0 and q[v] == 0 for v, k in enumerate(counts)):
            continue  # records with an impossible value
        log_p = sum(k * math.log(q[v]) for v, k in enumerate(counts) if k > 0)
        log_ways = math.lgamma(d + 1) - sum(math.lgamma(k + 1) for k in counts)
        p = math.exp(log_p)
        total += math.exp(log_ways + log_p) * _at_least_one(p, n)
    return float(min(total, 1.0))


def match_rate_sweep(
    features, train_sizes, n_values=2, *, probs=None, n_test=1000, seed=0, exact=False
):
    """Match rates over a grid of D and N: the explorer's static twin.

    Parameters
    ----------
    features : sequence of int, shape (n_features_settings,)
    train_sizes : sequence of int, shape (n_train_settings,)
    n_values, probs, n_test, seed
        As in :func:`match_rate` (every cell uses the same seed).
    exact : bool, default False
        Use :func:`expected_match_rate` instead of the simulation.

    Returns
    -------
    DataFrame of shape (n_features_settings, n_train_settings)
        Index ``D``, columns ``N``, values the fraction of new records with a twin.
    """
    features = [check_int("features", d, 1) for d in np.atleast_1d(features).tolist()]
    sizes = [check_int("train_sizes", n, 1) for n in np.atleast_1d(train_sizes).tolist()]
    if not features or not sizes:
        raise ValueError("features and train_sizes must each hold at least one value")
    if exact:

        def rate(d, n):
            return expected_match_rate(d, n, n_values, probs=probs)
    else:

        def rate(d, n):
            return match_rate(d, n, n_values, probs=probs, n_test=n_test, seed=seed)

    return pd.DataFrame(
        [[rate(d, n) for n in sizes] for d in features],
        index=pd.Index(features, name="D"),
        columns=pd.Index(sizes, name="N"),
    )


def match_state(n_features, n_train, n_values=2, *, n_test=1000, seed=0):
    """Everything the explorer shows for one setting of its sliders.

    Returns
    -------
    dict
        ``"simulated"`` (:func:`match_rate`), ``"exact"`` (:func:`expected_match_rate`),
        ``"counts"`` (:func:`parameter_counts`) and the setting itself (``"n_features"``,
        ``"n_train"``, ``"n_values"``).
    """
    return {
        "n_features": n_features,
        "n_train": n_train,
        "n_values": n_values,
        "simulated": match_rate(n_features, n_train, n_values, n_test=n_test, seed=seed),
        "exact": expected_match_rate(n_features, n_train, n_values),
        "counts": parameter_counts(n_features, n_values),
    }


def _big(n):
    """An exact integer, with thousands separators; in powers of ten once it is huge."""
    return f"{n:,}" if n < 10**12 else f"{n:.3e}"


def match_html(state):
    """HTML summary of one explorer setting: the match rate as a bar, and the two counts.

    Parameters
    ----------
    state : dict
        The result of :func:`match_state`.

    Returns
    -------
    str
        An HTML fragment (no scripts, no external resources).
    """
    counts = state["counts"]
    rate = float(state["simulated"])
    bar = (
        "<div style='width:14em;border:1px solid #000'>"
        f"<div style='background:#0072B2;height:0.9em;width:{100 * rate:.1f}%'></div></div>"
    )
    setting = html.escape(
        f"D = {state['n_features']} features, M = {state['n_values']} values each, "
        f"N = {state['n_train']:,} training records"
    )
    return (
        f"<div><p>{setting}</p>"
        "<table>"
        f"<tr><td>new records with an identical training record</td><td>{bar}</td>"
        f"<td style='font-family:monospace'>{rate:.3f}</td></tr>"
        "<tr><td>exact probability</td><td></td>"
        f"<td style='font-family:monospace'>{float(state['exact']):.3f}</td></tr>"
        "<tr><td>possible records, M<sup>D</sup></td><td></td>"
        f"<td style='font-family:monospace'>{_big(counts['cells'])}</td></tr>"
        "<tr><td>parameters of p(x | y = c), full table</td><td></td>"
        f"<td style='font-family:monospace'>{_big(counts['full joint'])}</td></tr>"
        "<tr><td>parameters of p(x | y = c), naive Bayes</td><td></td>"
        f"<td style='font-family:monospace'>{_big(counts['naive Bayes'])}</td></tr>"
        "</table></div>"
    )


def generative_explorer(n_features=10, n_train=1_000, n_values=2, *, n_test=1000, seed=0):
    """Sliders for D, N and M, showing how often a new record has a twin in the training data.

    Parameters
    ----------
    n_features : int, default 10
        Starting D (1 to 30).
    n_train : int, default 1000
        Starting N; one of :data:`TRAIN_SIZES`.
    n_values : int, default 2
        Starting M (2 to 6).
    n_test, seed
        As in :func:`match_rate`.

    Returns
    -------
    ipywidgets.VBox
        Three sliders and an HTML panel that each slider move recomputes.
    """
    import ipywidgets as w

    n_features = check_int("n_features", n_features, 1, MAX_FEATURES)
    n_values = check_int("n_values", n_values, 2, MAX_VALUES)
    n_train = check_int("n_train", n_train, 1)
    if n_train not in TRAIN_SIZES:
        raise ValueError(f"n_train must be one of {TRAIN_SIZES}, got {n_train}")
    style = {"description_width": "12em"}
    layout = w.Layout(width="34em")
    d_slider = w.IntSlider(
        value=n_features,
        min=1,
        max=MAX_FEATURES,
        description="features D",
        style=style,
        layout=layout,
    )
    n_slider = w.SelectionSlider(
        options=list(TRAIN_SIZES),
        value=n_train,
        description="training records N",
        style=style,
        layout=layout,
    )
    m_slider = w.IntSlider(
        value=n_values,
        min=2,
        max=MAX_VALUES,
        description="values per feature M",
        style=style,
        layout=layout,
    )
    panel = w.HTML()

    def update(_change=None):
        state = match_state(
            d_slider.value, n_slider.value, m_slider.value, n_test=n_test, seed=seed
        )
        panel.value = match_html(state)

    for slider in (d_slider, n_slider, m_slider):
        slider.observe(update, names="value")
    update()
    return w.VBox([d_slider, n_slider, m_slider, panel])
