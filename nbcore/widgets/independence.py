"""The conditional-independence chapter's explorer: storm, rain and lightning.

A storm (the class, y = 1) makes both rain and lightning more likely. The model is

    p(storm, rain, lightning) = p(storm) p(rain | storm) p(lightning | storm),

so rain and lightning are independent *given* the storm, but not on their own: knowing that
it rains makes a storm, and with it lightning, more probable. :func:`storm_tables` computes
the exact tables of the model and the dependence measures (covariance and mutual
information), both marginal and within each storm value. It works with exact fractions, so
a quantity that the model makes zero comes out as exactly 0.0, not as a rounding residue.

Every explorer is split in two: pure functions that compute what it shows (tested directly
at many settings) and a thin ``*_explorer`` function that wires ipywidgets sliders to them.
In the HTML book no kernel runs, so the explorer also has a static twin computed by the
same pure functions (:func:`dependence_sweep`).
"""

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from nbcore._validation import check_probability

__all__ = [
    "STORM_MODEL",
    "storm_tables",
    "joint_dependence",
    "symmetric_link",
    "dependence_sweep",
    "dependence_html",
    "independence_explorer",
]

#: The chapter's storm model: p(storm), then p(rain = 1 | storm = s) and
#: p(lightning = 1 | storm = s) for s = 0 (no storm) and s = 1 (storm).
STORM_MODEL = {"p_storm": 0.3, "rain": (0.2, 0.9), "lightning": (0.05, 0.7)}

# Step of the explorer's sliders.
STEP = 0.01


def _check_probability(name, value):
    """A probability in [0, 1] as an exact Fraction, so that the tables are exact."""
    check_probability(name, value)
    return Fraction(value)


def _check_pair(name, pair):
    if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__"):
        raise TypeError(
            f"{name} must be a pair (p({name} | no storm), p({name} | storm)), "
            f"got {type(pair).__name__}"
        )
    if len(pair) != 2:
        raise ValueError(
            f"{name} must hold 2 probabilities (no storm, storm), got {len(pair)} values"
        )
    return [_check_probability(f"{name}[{s}]", p) for s, p in enumerate(pair)]


def _bernoulli(theta, value):
    """p(x = value) for a 0/1 variable that is 1 with probability theta."""
    return theta if value == 1 else 1 - theta


def _covariance(table):
    """Covariance of two 0/1 variables from their 2x2 joint table t[r][lt] (exact).

    For 0/1 variables E[RL] = p(1, 1), so Cov(R, L) = p(1, 1) - p(R = 1) p(L = 1).
    """
    p_r1 = table[1][0] + table[1][1]
    p_l1 = table[0][1] + table[1][1]
    return table[1][1] - p_r1 * p_l1


def _mutual_information(table):
    """I(R; L) = sum_{r,l} p(r, l) log[p(r, l) / (p(r) p(l))] in nats (0 log 0 = 0)."""
    p_r = [table[r][0] + table[r][1] for r in (0, 1)]
    p_l = [table[0][lt] + table[1][lt] for lt in (0, 1)]
    total = 0.0
    for r in (0, 1):
        for lt in (0, 1):
            if table[r][lt] > 0:
                # The ratio is an exact fraction: exactly 1 (log 0) under independence.
                total += float(table[r][lt]) * math.log(table[r][lt] / (p_r[r] * p_l[lt]))
    return total


def _as_array(nested):
    return np.array(nested, dtype=float)


def storm_tables(p_storm=0.3, rain=(0.2, 0.9), lightning=(0.05, 0.7)):
    """Exact tables and dependence measures of the storm model.

    The pure function behind the chapter's explorer: the sliders call it with their values.

    Parameters
    ----------
    p_storm : float in [0, 1], default 0.3
        p(storm = 1), the class prior pi_1.
    rain : pair of float in [0, 1], default (0.2, 0.9)
        (p(rain = 1 | storm = 0), p(rain = 1 | storm = 1)), that is theta_{0,rain} and
        theta_{1,rain}.
    lightning : pair of float in [0, 1], default (0.05, 0.7)
        (p(lightning = 1 | storm = 0), p(lightning = 1 | storm = 1)).

    Returns
    -------
    dict
        ``"joint"``: ndarray of shape (2, 2, 2), p(storm, rain, lightning) indexed
        ``[storm, rain, lightning]``.
        ``"marginal"``: ndarray of shape (2, 2), p(rain, lightning) = sum over the storm.
        ``"product"``: ndarray of shape (2, 2), p(rain) p(lightning).
        ``"conditional"``: ndarray of shape (2, 2, 2), p(rain, lightning | storm) indexed
        ``[storm, rain, lightning]``.
        ``"conditional_product"``: ndarray of shape (2, 2, 2),
        p(rain | storm) p(lightning | storm), from the margins of ``"conditional"``.
        ``"covariance"``: float, Cov(rain, lightning) = p(1, 1) - p(rain = 1) p(lightning = 1).
        ``"mutual_information"``: float, I(rain; lightning) in nats.
        ``"conditional_covariance"``: ndarray of shape (2,), the covariance within each storm
        value.
        ``"conditional_mutual_information"``: ndarray of shape (2,), the mutual information
        within each storm value.
        ``"posterior"``: ndarray of shape (2, 2), p(storm = 1 | rain, lightning) indexed
        ``[rain, lightning]`` (NaN where p(rain, lightning) = 0).

    Notes
    -----
    The marginal covariance has a closed form, the law of total covariance with a zero
    within-storm term: Cov(R, L) = pi_1 (1 - pi_1) (a_1 - a_0) (b_1 - b_0), where a_s and b_s
    are the probabilities of rain and lightning given storm value s.
    """
    pi = _check_probability("p_storm", p_storm)
    a = _check_pair("rain", rain)
    b = _check_pair("lightning", lightning)
    prior = (1 - pi, pi)
    # The model: p(r, l | s) = p(r | s) p(l | s), and p(s, r, l) = p(s) p(r, l | s).
    conditional = [
        [[_bernoulli(a[s], r) * _bernoulli(b[s], lt) for lt in (0, 1)] for r in (0, 1)]
        for s in (0, 1)
    ]
    joint = [[[prior[s] * conditional[s][r][lt] for lt in (0, 1)] for r in (0, 1)] for s in (0, 1)]
    marginal = [[joint[0][r][lt] + joint[1][r][lt] for lt in (0, 1)] for r in (0, 1)]
    p_rain = [marginal[r][0] + marginal[r][1] for r in (0, 1)]
    p_lightning = [marginal[0][lt] + marginal[1][lt] for lt in (0, 1)]
    product = [[p_rain[r] * p_lightning[lt] for lt in (0, 1)] for r in (0, 1)]

    conditional_product = []
    for s in (0, 1):
        c = conditional[s]
        c_rain = [c[r][0] + c[r][1] for r in (0, 1)]
        c_lightning = [c[0][lt] + c[1][lt] for lt in (0, 1)]
        conditional_product.append([[c_rain[r] * c_lightning[lt] for lt in (0, 1)] for r in (0, 1)])

    posterior = [
        [
            float(joint[1][r][lt] / marginal[r][lt]) if marginal[r][lt] > 0 else math.nan
            for lt in (0, 1)
        ]
        for r in (0, 1)
    ]
    return {
        "joint": _as_array(joint),
        "marginal": _as_array(marginal),
        "product": _as_array(product),
        "conditional": _as_array(conditional),
        "conditional_product": _as_array(conditional_product),
        "covariance": float(_covariance(marginal)),
        "mutual_information": _mutual_information(marginal),
        "conditional_covariance": _as_array([_covariance(conditional[s]) for s in (0, 1)]),
        "conditional_mutual_information": _as_array(
            [_mutual_information(conditional[s]) for s in (0, 1)]
        ),
        "posterior": np.array(posterior),
    }


def symmetric_link(strength):
    """(p(x = 1 | no storm), p(x = 1 | storm)) = ((1 - strength) / 2, (1 + strength) / 2).

    A feature linked to the storm with the given strength in [0, 1]: the difference between
    its probability in a storm and out of one. Strength 0 makes the feature ignore the storm,
    strength 1 makes it a copy of the storm.
    """
    s = check_probability("strength", strength)
    return ((1.0 - s) / 2.0, (1.0 + s) / 2.0)


def joint_dependence(joint):
    """Dependence of two binary features, with and without the class, from any joint table.

    Where :func:`storm_tables` builds a conditionally independent model, this takes any
    joint distribution of a binary class and two binary features, so that models which break
    the naive assumption (XOR, explaining away) can be measured the same way.

    Parameters
    ----------
    joint : array-like of shape (2, 2, 2)
        p(y, x1, x2) indexed ``[y, x1, x2]``: non-negative, summing to 1.

    Returns
    -------
    dict
        ``"covariance"`` and ``"mutual_information"``: float, of x1 and x2 over all records.
        ``"conditional_covariance"`` and ``"conditional_mutual_information"``: ndarray of
        shape (2,), within each class (NaN for a class of probability 0).
        ``"posterior"``: ndarray of shape (2, 2), the exact p(y = 1 | x1, x2).
        ``"naive_posterior"``: ndarray of shape (2, 2), the posterior of naive Bayes with the
        model's own class prior and class-conditional margins p(x_d | y), indexed
        ``[x1, x2]`` (NaN where it is 0/0).
    """
    table = np.asarray(joint, dtype=float)
    if table.shape != (2, 2, 2):
        raise ValueError(f"joint must have shape (2, 2, 2), got {table.shape}")
    if np.any(~np.isfinite(table)) or np.any(table < 0) or not np.isclose(table.sum(), 1.0):
        raise ValueError("joint must hold non-negative probabilities that sum to 1")
    prior = table.sum(axis=(1, 2))  # p(y)
    marginal = table.sum(axis=0)  # p(x1, x2)
    conditional_cov, conditional_mi = [], []
    margins = []  # p(x1 | y) and p(x2 | y)
    for c in (0, 1):
        if prior[c] > 0:
            within = table[c] / prior[c]  # p(x1, x2 | y = c)
            conditional_cov.append(_covariance(within))
            conditional_mi.append(_mutual_information(within))
            margins.append((within.sum(axis=1), within.sum(axis=0)))
        else:
            conditional_cov.append(math.nan)
            conditional_mi.append(math.nan)
            margins.append((np.full(2, math.nan), np.full(2, math.nan)))
    with np.errstate(divide="ignore", invalid="ignore"):
        posterior = table[1] / marginal
        # naive Bayes: p(y) p(x1 | y) p(x2 | y), normalised over y
        naive = np.array(
            [
                prior[c] * np.outer(margins[c][0], margins[c][1])
                if prior[c] > 0
                else np.zeros((2, 2))
                for c in (0, 1)
            ]
        )
        naive_posterior = naive[1] / naive.sum(axis=0)
    return {
        "covariance": float(_covariance(marginal)),
        "mutual_information": _mutual_information(marginal),
        "conditional_covariance": np.array(conditional_cov, dtype=float),
        "conditional_mutual_information": np.array(conditional_mi, dtype=float),
        "posterior": posterior,
        "naive_posterior": naive_posterior,
    }


def dependence_sweep(p_storms, strengths):
    """Dependence measures over a grid of storm probabilities and link strengths.

    The explorer's static twin. Rain and lightning are both linked to the storm by
    :func:`symmetric_link` with the same strength, so the marginal covariance is
    p_storm (1 - p_storm) strength ** 2, while both within-storm covariances stay 0.

    Parameters
    ----------
    p_storms : sequence of float in [0, 1], shape (n_p,)
    strengths : sequence of float in [0, 1], shape (n_s,)

    Returns
    -------
    DataFrame of shape (n_p * n_s, 6)
        Index (``p_storm``, ``strength``); columns ``covariance``, ``mutual information``,
        ``covariance | no storm``, ``covariance | storm``, ``mutual information | no storm``,
        ``mutual information | storm``.
    """
    p_storms = [check_probability("p_storm", p) for p in np.atleast_1d(p_storms)]
    strengths = [check_probability("strength", s) for s in np.atleast_1d(strengths)]
    if not p_storms or not strengths:
        raise ValueError("p_storms and strengths must each hold at least one value")
    rows, index = [], []
    for p in p_storms:
        for s in strengths:
            link = symmetric_link(s)
            t = storm_tables(p, link, link)
            rows.append(
                [
                    t["covariance"],
                    t["mutual_information"],
                    *t["conditional_covariance"],
                    *t["conditional_mutual_information"],
                ]
            )
            index.append((p, s))
    return pd.DataFrame(
        rows,
        index=pd.MultiIndex.from_tuples(index, names=["p_storm", "strength"]),
        columns=[
            "covariance",
            "mutual information",
            "covariance | no storm",
            "covariance | storm",
            "mutual information | no storm",
            "mutual information | storm",
        ],
    )


def _table_html(title, table, other=None):
    """A 2x2 table of p(rain, lightning) (and, when given, a second table beside it)."""
    cells = []
    for r in (0, 1):
        row = f"<td style='padding-right:0.6em'>rain = {r}</td>"
        for lt in (0, 1):
            text = f"{table[r][lt]:.4f}"
            if other is not None:
                text += f" vs {other[r][lt]:.4f}"
            row += f"<td style='padding:0 0.6em;font-family:monospace'>{text}</td>"
        cells.append(f"<tr>{row}</tr>")
    head = "<tr><td></td><td>lightning = 0</td><td>lightning = 1</td></tr>"
    return f"<p><b>{title}</b></p><table>{head}{''.join(cells)}</table>"


def dependence_html(state):
    """HTML summary of one explorer setting: the tables and the dependence measures.

    Parameters
    ----------
    state : dict
        The result of :func:`storm_tables`.

    Returns
    -------
    str
        An HTML fragment (no scripts, no external resources).
    """
    cov_c = state["conditional_covariance"]
    mi_c = state["conditional_mutual_information"]
    measures = (
        "<table>"
        "<tr><td></td><td style='padding:0 0.6em'>covariance</td>"
        "<td style='padding:0 0.6em'>mutual information (nats)</td></tr>"
        f"<tr><td>all days</td><td style='padding:0 0.6em;font-family:monospace'>"
        f"{state['covariance']:.4f}</td><td style='padding:0 0.6em;font-family:monospace'>"
        f"{state['mutual_information']:.4f}</td></tr>"
    )
    for s, name in ((0, "days without a storm"), (1, "days with a storm")):
        measures += (
            f"<tr><td>{name}</td><td style='padding:0 0.6em;font-family:monospace'>"
            f"{cov_c[s]:.4f}</td><td style='padding:0 0.6em;font-family:monospace'>"
            f"{mi_c[s]:.4f}</td></tr>"
        )
    measures += "</table>"
    return (
        "<div>"
        + _table_html(
            "p(rain, lightning) vs p(rain) p(lightning)", state["marginal"], state["product"]
        )
        + _table_html("p(rain, lightning | storm) on days with a storm", state["conditional"][1])
        + "<p><b>Dependence between rain and lightning</b></p>"
        + measures
        + "</div>"
    )


def independence_explorer(p_storm=0.3, rain=(0.2, 0.9), lightning=(0.05, 0.7)):
    """Sliders for the storm model's five probabilities, showing the dependence measures.

    Parameters
    ----------
    p_storm, rain, lightning
        Starting values, as in :func:`storm_tables` (rounded to the sliders' step of 0.01).

    Returns
    -------
    ipywidgets.VBox
        Five sliders and an HTML panel that each slider move recomputes.
    """
    import ipywidgets as w

    start = [_check_probability("p_storm", p_storm)]
    start += _check_pair("rain", rain) + _check_pair("lightning", lightning)
    labels = [
        "p(storm)",
        "p(rain | no storm)",
        "p(rain | storm)",
        "p(lightning | no storm)",
        "p(lightning | storm)",
    ]
    style = {"description_width": "12em"}
    layout = w.Layout(width="32em")
    sliders = [
        w.FloatSlider(
            # Start on the slider's grid, so the first panel shows what the sliders show.
            value=round(float(v), 2),
            min=0.0,
            max=1.0,
            step=STEP,
            description=label,
            readout_format=".2f",
            continuous_update=True,
            style=style,
            layout=layout,
        )
        for v, label in zip(start, labels, strict=True)
    ]
    panel = w.HTML()

    def update(_change=None):
        p, a0, a1, b0, b1 = (s.value for s in sliders)
        panel.value = dependence_html(storm_tables(p, (a0, a1), (b0, b1)))

    for slider in sliders:
        slider.observe(update, names="value")
    update()
    return w.VBox([*sliders, panel])
