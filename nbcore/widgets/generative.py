"""The generative-modelling chapter's explorer: how fast identical records run out.

A classifier that estimates P(y | x) by counting the training records identical to x can only
answer when such records exist. With D features of M values each there are M**D possible
records, so as D grows a new record almost never has a twin among the N training records.
The functions here measure that, by simulation (:func:`match_rate`) and exactly
(:func:`expected_match_rate`), and count the parameters of a full table p(x | y) against
those of naive Bayes (:func:`parameter_counts`). :func:`match_panel` shows one setting,
:func:`generative_explorer` puts sliders on it and :func:`match_rate_sweep` is its static twin.
"""

import math
from functools import partial

import numpy as np
import pandas as pd

from nbcore._validation import check_int, check_probability
from nbcore.widgets._explorer import Slider, Steps, explorer

__all__ = [
    "TRAIN_SIZES",
    "CONTROLS",
    "parameter_counts",
    "parameter_count_table",
    "draw_records",
    "match_rate",
    "expected_match_rate",
    "match_rate_sweep",
    "match_panel",
    "generative_explorer",
]

#: Training sizes the explorer's slider offers (roughly evenly spaced on a log scale).
TRAIN_SIZES = (10, 30, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000)

MAX_FEATURES, MAX_VALUES = 30, 6


def _distribution(probs, n_values):
    """The probabilities q of the M values of every feature: uniform by default."""
    if probs is None:
        return np.full(n_values, 1.0 / n_values)
    if isinstance(probs, (str, bytes)) or not hasattr(probs, "__len__"):
        raise TypeError(f"probs must be a sequence of {n_values} probabilities, got {probs!r}")
    q = np.array([check_probability(f"probs[{m}]", p) for m, p in enumerate(probs)])
    if q.shape != (n_values,):
        raise ValueError(f"probs must have one entry per value ({n_values}), got {q.shape[0]}")
    if not math.isclose(q.sum(), 1.0):
        raise ValueError(f"probs must sum to 1, got {q.tolist()}")
    return q


def _ints(name, values):
    """A non-empty list of ints >= 1."""
    values = [check_int(name, v, 1) for v in np.atleast_1d(values).tolist()]
    if not values:
        raise ValueError(f"{name} must hold at least one value")
    return values


def parameter_counts(n_features, n_values=2):
    """Sizes of a full table p(x | y = c) and of naive Bayes' tables, for one class.

    ``n_features`` is D (also called K), ``n_values`` M, the values each feature takes.
    Returns exact Python integers: ``"cells"`` M**D of one D-dimensional histogram, ``"full
    table per class"`` its M**D - 1 free parameters (of p(x | y = c), not of the joint
    p(x, y)), ``"one-dimensional cells"`` D * M of D
    one-dimensional histograms, ``"naive Bayes"`` their D * (M - 1) free parameters.
    """
    d = check_int("n_features", n_features, 1)
    m = check_int("n_values", n_values, 2)
    return {
        "cells": m**d,
        "full table per class": m**d - 1,
        "one-dimensional cells": d * m,
        "naive Bayes": d * (m - 1),
    }


def parameter_count_table(features, n_values=2):
    """:func:`parameter_counts` for several D: a DataFrame indexed by ``D``, exact integers."""
    features = _ints("features", features)
    rows = [parameter_counts(d, n_values) for d in features]
    return pd.DataFrame(rows, index=pd.Index(features, name="D"))


def draw_records(n_records, n_features, n_values=2, *, probs=None, rng=None):
    """A uint8 array (n_records, n_features) of independent values, m with probability q_m.

    ``probs`` is q, the same for every feature (uniform by default); ``rng`` a NumPy
    Generator (default ``np.random.default_rng(0)``).
    """
    n = check_int("n_records", n_records, 1)
    d = check_int("n_features", n_features, 1)
    m = check_int("n_values", n_values, 2, 255)
    q = _distribution(probs, m)
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
    """Simulated fraction of new records with an identical twin among N training records.

    Only for those can P(y | x) be estimated by counting identical records.

    Parameters
    ----------
    n_features, n_train, n_values : int
        D, N and M.
    probs : sequence of float, shape (n_values,), optional
        As in :func:`draw_records`.
    n_test : int, default 1000
        Number of new records.
    seed : int, default 0
        Seed of ``np.random.default_rng``, which draws the training records, then the new ones.

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

    A record x has probability p(x) = prod_d q_{x_d} and is missed by all N training records
    with probability (1 - p(x))**N, so E[match] = sum_x p(x) (1 - (1 - p(x))**N): for uniform
    values 1 - (1 - M**-D)**N. Records with the same count of each value have the same p(x),
    so the sum runs over those counts (times the multinomial coefficient), not over M**D
    records. Arguments as in :func:`match_rate`; returns a float in [0, 1].
    """
    d = check_int("n_features", n_features, 1)
    n = check_int("n_train", n_train, 1)
    m = check_int("n_values", n_values, 2)
    if probs is None:
        return float(_at_least_one(float(m) ** -d, n))
    q = _distribution(probs, m)
    total = 0.0
    for counts in _compositions(d, m):
        if any(k > 0 and q[v] == 0 for v, k in enumerate(counts)):
            continue  # records with an impossible value
        log_p = sum(k * math.log(q[v]) for v, k in enumerate(counts) if k > 0)
        log_ways = math.lgamma(d + 1) - sum(math.lgamma(k + 1) for k in counts)
        total += math.exp(log_ways + log_p) * _at_least_one(math.exp(log_p), n)
    return float(min(total, 1.0))


def match_rate_sweep(
    features, train_sizes, n_values=2, *, probs=None, n_test=1000, seed=0, exact=False
):
    """Match rates over a grid of D and N: the explorer's static twin.

    Arguments as in :func:`match_rate` (every cell uses the same seed); ``exact=True`` uses
    :func:`expected_match_rate` instead. Returns a DataFrame, index ``D``, columns ``N``.
    """
    features = _ints("features", features)
    sizes = _ints("train_sizes", train_sizes)

    def rate(d, n):
        if exact:
            return expected_match_rate(d, n, n_values, probs=probs)
        return match_rate(d, n, n_values, probs=probs, n_test=n_test, seed=seed)

    return pd.DataFrame(
        [[rate(d, n) for n in sizes] for d in features],
        index=pd.Index(features, name="D"),
        columns=pd.Index(sizes, name="N"),
    )


def _big(n):
    """An exact integer with thousands separators; in powers of ten once it is huge."""
    return f"{n:,}" if n < 10**12 else f"{n:.3e}"


def match_panel(n_features, n_train, n_values=2, *, n_test=1000, seed=0):
    """The explorer's panel, HTML: :func:`match_rate` as a bar, :func:`expected_match_rate`
    and :func:`parameter_counts` at one setting (arguments as in :func:`match_rate`)."""
    rate = match_rate(n_features, n_train, n_values, n_test=n_test, seed=seed)
    exact = expected_match_rate(n_features, n_train, n_values)
    counts = parameter_counts(n_features, n_values)
    bar = (
        "<div style='width:14em;border:1px solid #000'>"
        f"<div style='background:#0072B2;height:0.9em;width:{100 * rate:.1f}%'></div></div>"
    )
    rows = [
        ("new records with an identical training record", bar, f"{rate:.3f}"),
        ("exact probability", "", f"{exact:.3f}"),
        ("possible records, M<sup>D</sup>", "", _big(counts["cells"])),
        ("parameters of p(x | y = c), full table", "", _big(counts["full table per class"])),
        ("parameters of p(x | y = c), naive Bayes", "", _big(counts["naive Bayes"])),
    ]
    cells = "".join(
        f"<tr><td>{name}</td><td>{extra}</td><td style='font-family:monospace'>{value}</td></tr>"
        for name, extra, value in rows
    )
    setting = f"D = {n_features}, M = {n_values} values a feature, N = {n_train:,} records"
    return f"<div><p>{setting}</p><table>{cells}</table></div>"


#: The explorer's controls: D, N (one of :data:`TRAIN_SIZES`) and M.
CONTROLS = (
    Slider("n_features", "features D", 1, MAX_FEATURES, 1, integer=True),
    Steps("n_train", "training records N", TRAIN_SIZES),
    Slider("n_values", "values per feature M", 2, MAX_VALUES, 1, integer=True),
)


def generative_explorer(n_features=10, n_train=1_000, n_values=2, *, n_test=1000, seed=0):
    """Sliders for D, N and M over :func:`match_panel` (``n_test``, ``seed`` fixed): a VBox."""
    show = partial(
        match_panel, n_test=check_int("n_test", n_test, 1), seed=check_int("seed", seed, 0)
    )
    return explorer(CONTROLS, show, n_features=n_features, n_train=n_train, n_values=n_values)
