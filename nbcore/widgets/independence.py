"""The conditional-independence chapter's explorer: storm, rain and lightning.

A storm (the class, y = 1) makes both rain and lightning more likely. The model is

    p(storm, rain, lightning) = p(storm) p(rain | storm) p(lightning | storm),

so rain and lightning are independent *given* the storm, but not on their own: knowing that
it rains makes a storm, and with it lightning, more probable. :func:`storm_tables` multiplies
the model out in exact fractions (a quantity it makes zero is exactly 0.0) and measures the
dependence over all days and within each storm value; :func:`joint_dependence` measures any
joint table and scores it with :class:`nbcore.BernoulliNB`. :func:`dependence_panel` shows
one setting, :func:`independence_explorer` puts sliders on it, :func:`dependence_sweep` is
its static twin.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd

from nbcore._validation import check_pair, check_probability
from nbcore.bernoulli import BernoulliNB
from nbcore.numerics import logsumexp
from nbcore.widgets._explorer import Slider, explorer

__all__ = [
    "STORM_MODEL",
    "CONTROLS",
    "storm_tables",
    "joint_dependence",
    "symmetric_link",
    "dependence_sweep",
    "dependence_panel",
    "independence_explorer",
]

#: The chapter's storm model: p(storm), then p(rain = 1 | storm = s) and
#: p(lightning = 1 | storm = s) for s = 0 (no storm) and s = 1 (storm).
STORM_MODEL = {"p_storm": 0.3, "rain": (0.2, 0.9), "lightning": (0.05, 0.7)}


def _exact(name, value):
    """A probability in [0, 1] as an exact Fraction, so that the tables are exact."""
    return Fraction(check_probability(name, value))


def _pair(name, pair):
    """(p(x = 1 | no storm), p(x = 1 | storm)) as two exact Fractions."""
    pair = check_pair(name, pair, "(no storm, storm)")
    return [_exact(f"{name}[{s}]", p) for s, p in enumerate(pair)]


def _covariance(t):
    """Cov(R, L) = p(1, 1) - p(R = 1) p(L = 1) of two 0/1 variables from their table t[r][l]."""
    return t[1][1] - (t[1][0] + t[1][1]) * (t[0][1] + t[1][1])


def _mutual_information(t):
    """I(R; L) = sum_{r,l} p(r, l) log[p(r, l) / (p(r) p(l))] in nats (0 log 0 = 0)."""
    p_r = [t[r][0] + t[r][1] for r in (0, 1)]
    p_l = [t[0][lt] + t[1][lt] for lt in (0, 1)]
    # with exact fractions the ratio is exactly 1 (log 0) under independence
    cells = [(r, lt) for r, lt in itertools.product((0, 1), repeat=2) if t[r][lt] > 0]
    return sum((float(t[r][lt]) * math.log(t[r][lt] / (p_r[r] * p_l[lt])) for r, lt in cells), 0.0)


def _outer(a, b):
    """The 2x2 table a[r] * b[l]."""
    return [[a[r] * b[lt] for lt in (0, 1)] for r in (0, 1)]


def storm_tables(p_storm=0.3, rain=(0.2, 0.9), lightning=(0.05, 0.7)):
    """Exact tables and dependence measures of the storm model.

    By the law of total covariance Cov(R, L) = pi_1 (1 - pi_1) (a_1 - a_0) (b_1 - b_0), a_s
    and b_s the probabilities of rain and lightning given storm value s.

    Parameters
    ----------
    p_storm : float in [0, 1], default 0.3
        p(storm = 1), the class prior pi_1.
    rain, lightning : pair of float in [0, 1]
        (p(x = 1 | storm = 0), p(x = 1 | storm = 1)), that is (theta_0d, theta_1d).

    Returns
    -------
    dict
        ndarrays indexed ``[storm, rain, lightning]``: ``"joint"`` p(s, r, l),
        ``"conditional"`` p(r, l | s) and ``"conditional_product"`` p(r | s) p(l | s);
        indexed ``[rain, lightning]``: ``"marginal"`` p(r, l), ``"product"`` p(r) p(l) and
        ``"posterior"`` p(storm = 1 | r, l) (NaN where p(r, l) = 0); floats ``"covariance"``
        and ``"mutual_information"`` (nats) over all days; shape (2,) ``"conditional_covariance"``
        and ``"conditional_mutual_information"`` within each storm value.
    """
    pi = _exact("p_storm", p_storm)
    a, b = _pair("rain", rain), _pair("lightning", lightning)
    prior = (1 - pi, pi)
    # p(r, l | s) = p(r | s) p(l | s) and p(s, r, l) = p(s) p(r, l | s)
    conditional = [_outer((1 - a[s], a[s]), (1 - b[s], b[s])) for s in (0, 1)]
    joint = [[[prior[s] * p for p in row] for row in conditional[s]] for s in (0, 1)]
    marginal = [[joint[0][r][lt] + joint[1][r][lt] for lt in (0, 1)] for r in (0, 1)]

    def margins(t):
        return [t[r][0] + t[r][1] for r in (0, 1)], [t[0][lt] + t[1][lt] for lt in (0, 1)]

    posterior = [
        [float(joint[1][r][lt] / m) if m > 0 else math.nan for lt, m in enumerate(row)]
        for r, row in enumerate(marginal)
    ]
    return {
        "joint": np.array(joint, dtype=float),
        "marginal": np.array(marginal, dtype=float),
        "product": np.array(_outer(*margins(marginal)), dtype=float),
        "conditional": np.array(conditional, dtype=float),
        "conditional_product": np.array([_outer(*margins(c)) for c in conditional], dtype=float),
        "covariance": float(_covariance(marginal)),
        "mutual_information": _mutual_information(marginal),
        "conditional_covariance": np.array([_covariance(c) for c in conditional], dtype=float),
        "conditional_mutual_information": np.array([_mutual_information(c) for c in conditional]),
        "posterior": np.array(posterior),
    }


def symmetric_link(strength):
    """(p(x = 1 | no storm), p(x = 1 | storm)) = ((1 - strength) / 2, (1 + strength) / 2).

    Strength 0: the feature ignores the storm; strength 1: it is a copy of the storm."""
    s = check_probability("strength", strength)
    return ((1.0 - s) / 2.0, (1.0 + s) / 2.0)


def _naive_posterior(table):
    """p(y = 1 | x1, x2) of BernoulliNB(alpha=0) fitted to the table itself.

    Each of the eight (y, x1, x2) cells is one record weighted by its probability, so the
    fitted prior and margins theta_cd are the table's own p(y) and p(x_d = 1 | y).
    """
    cells = list(itertools.product((0, 1), repeat=3))
    X, y = np.array([cell[1:] for cell in cells]), np.array([cell[0] for cell in cells])
    weights = np.array([table[cell] for cell in cells])
    model = BernoulliNB(alpha=0.0).fit(X, y, sample_weight=weights)
    b = model.predict_joint_log_proba(np.array(list(itertools.product((0, 1), repeat=2))))
    with np.errstate(invalid="ignore"):  # both classes impossible: 0/0, NaN
        return np.exp(b[:, 1] - logsumexp(b, axis=1)).reshape(2, 2)


def joint_dependence(joint):
    """Dependence of two binary features, with and without the class, from any joint table.

    Unlike :func:`storm_tables` the table need not be conditionally independent: models that
    break the naive assumption (XOR, explaining away) are measured the same way. ``joint`` is
    p(y, x1, x2) indexed ``[y, x1, x2]``, shape (2, 2, 2), non-negative, summing to 1.

    Returns
    -------
    dict
        ``"covariance"``, ``"mutual_information"``: floats, of x1 and x2 over all records;
        ``"conditional_covariance"``, ``"conditional_mutual_information"``: shape (2,),
        within each class (NaN for a class of probability 0); ``"posterior"``: shape (2, 2),
        the exact p(y = 1 | x1, x2); ``"naive_posterior"``: shape (2, 2), that of naive
        Bayes with the table's own prior and margins p(x_d | y) (NaN where it is 0/0).
    """
    table = np.asarray(joint, dtype=float)
    if table.shape != (2, 2, 2):
        raise ValueError(f"joint must have shape (2, 2, 2), got {table.shape}")
    if np.any(~np.isfinite(table)) or np.any(table < 0) or not np.isclose(table.sum(), 1.0):
        raise ValueError("joint must hold non-negative probabilities that sum to 1")
    prior, marginal = table.sum(axis=(1, 2)), table.sum(axis=0)  # p(y), p(x1, x2)

    def within(measure):  # of p(x1, x2 | y = c), NaN for a class of probability 0
        return np.array([measure(table[c] / prior[c]) if prior[c] else math.nan for c in (0, 1)])

    with np.errstate(divide="ignore", invalid="ignore"):
        posterior = table[1] / marginal
    return {
        "covariance": float(_covariance(marginal)),
        "mutual_information": _mutual_information(marginal),
        "conditional_covariance": within(_covariance),
        "conditional_mutual_information": within(_mutual_information),
        "posterior": posterior,
        "naive_posterior": _naive_posterior(table),
    }


def dependence_sweep(p_storms, strengths):
    """Dependence measures over a grid of storm probabilities and link strengths.

    The static twin. Both features get the same :func:`symmetric_link`: the covariance is
    p_storm (1 - p_storm) strength ** 2, within each storm value 0. A DataFrame indexed
    (``p_storm``, ``strength``): ``covariance``, ``mutual information``, each ``| storm`` too.
    """
    p_storms = [check_probability("p_storm", p) for p in np.atleast_1d(p_storms)]
    strengths = [check_probability("strength", s) for s in np.atleast_1d(strengths)]
    if not p_storms or not strengths:
        raise ValueError("p_storms and strengths must each hold at least one value")
    index = list(itertools.product(p_storms, strengths))
    tables = [storm_tables(p, symmetric_link(s), symmetric_link(s)) for p, s in index]
    keys = ["covariance", "mutual_information"]
    rows = [[t[k] for k in keys] + [v for k in keys for v in t[f"conditional_{k}"]] for t in tables]
    measures = ["covariance", "mutual information"]
    return pd.DataFrame(
        rows,
        index=pd.MultiIndex.from_tuples(index, names=["p_storm", "strength"]),
        columns=[*measures, *(f"{m} | {s}" for m in measures for s in ("no storm", "storm"))],
    )


_CELL = "<td style='padding:0 0.6em;font-family:monospace'>"


def _table_html(title, rows, head):
    """A titled table; ``rows`` maps a row name to its cells' text."""
    body = "".join(
        f"<tr><td>{name}</td>{''.join(_CELL + c + '</td>' for c in cells)}</tr>"
        for name, cells in rows.items()
    )
    heading = "".join(f"<td style='padding:0 0.6em'>{h}</td>" for h in head)
    return f"<p><b>{title}</b></p><table><tr><td></td>{heading}</tr>{body}</table>"


def dependence_panel(p_storm, rain_0, rain_1, lightning_0, lightning_1):
    """The explorer's panel, HTML: :func:`storm_tables` at one setting of its five sliders."""
    t = storm_tables(p_storm, (rain_0, rain_1), (lightning_0, lightning_1))
    both = ["lightning = 0", "lightning = 1"]
    marginal = {
        f"rain = {r}": [f"{t['marginal'][r, lt]:.4f} vs {t['product'][r, lt]:.4f}" for lt in (0, 1)]
        for r in (0, 1)
    }
    storm = {f"rain = {r}": [f"{t['conditional'][1, r, lt]:.4f}" for lt in (0, 1)] for r in (0, 1)}
    measures = {"all days": [f"{t['covariance']:.4f}", f"{t['mutual_information']:.4f}"]}
    for s, name in ((0, "days without a storm"), (1, "days with a storm")):
        cov, mi = t["conditional_covariance"][s], t["conditional_mutual_information"][s]
        measures[name] = [f"{cov:.4f}", f"{mi:.4f}"]
    head = ["covariance", "mutual information (nats)"]
    return (
        f"<div>{_table_html('p(rain, lightning) vs p(rain) p(lightning)', marginal, both)}"
        f"{_table_html('p(rain, lightning | storm) on days with a storm', storm, both)}"
        f"{_table_html('Dependence between rain and lightning', measures, head)}</div>"
    )


#: The explorer's controls: the storm's probability and the four conditional probabilities.
CONTROLS = (Slider("p_storm", "p(storm)", 0.0, 1.0, 0.01),) + tuple(
    Slider(f"{x}_{s}", f"p({x} | {'storm' if s else 'no storm'})", 0.0, 1.0, 0.01)
    for x in ("rain", "lightning")
    for s in (0, 1)
)


def independence_explorer(p_storm=0.3, rain=(0.2, 0.9), lightning=(0.05, 0.7)):
    """Sliders for the five probabilities of :func:`storm_tables` over
    :func:`dependence_panel`; returns an ``ipywidgets.VBox``."""
    pairs = [*_pair("rain", rain), *_pair("lightning", lightning)]
    start = dict(zip([c.name for c in CONTROLS[1:]], map(float, pairs), strict=True))
    return explorer(CONTROLS, dependence_panel, p_storm=p_storm, **start)
