"""The numerics chapter's explorer: a naive product of probabilities against log-sum-exp.

An n-word document is scored by classes A and B; every word has probability p under A and
p * exp(-gap) under B, so b_A = log pi_A + n log p and b_B = log pi_B + n (log p - gap). The
posterior P(A | x), the logistic function of b_A - b_B, does not depend on p, but the naive
computation (multiply, then divide by the sum) gives 0/0 = NaN once p ** n falls below the
smallest subnormal number. :func:`naive_posterior` computes it naively in float64 or float32,
:func:`stable_posterior` with log-sum-exp; :func:`numerics_table` and :func:`numerics_sweep`
put them side by side; :func:`first_zero_length` finds the n at which p ** n rounds to 0.0.
"""

import html
import math
from functools import partial

import numpy as np
import pandas as pd

from nbcore._validation import check_int, check_probability, check_real
from nbcore.numerics import logsumexp
from nbcore.plotting import FLAG_TEXT
from nbcore.widgets._explorer import Slider, explorer

__all__ = [
    "CLASSES",
    "class_scores",
    "naive_posterior",
    "stable_posterior",
    "numerics_table",
    "numerics_sweep",
    "first_zero_length",
    "numerics_panel",
    "numerics_explorer",
]

CLASSES = ("A", "B")
DTYPES = {"float64": np.float64, "float32": np.float32}  # the types the naive way is tried in


def _check_dtype(dtype):
    for name, kind in DTYPES.items():
        if dtype in (name, kind) or (isinstance(dtype, np.dtype) and dtype == np.dtype(kind)):
            return kind
    raise ValueError(f"dtype must be one of {list(DTYPES)}, got {dtype!r}")


def _setting(n_words, gap, word_prob, prior_a):
    """The four parameters of a document, checked."""
    return (
        check_int("n_words", n_words, 0),
        check_real("gap", gap, 0.0),
        check_probability("word_prob", word_prob, open_low=True, open_high=True),
        check_probability("prior_a", prior_a, open_low=True, open_high=True),
    )


def class_scores(n_words, gap, word_prob=0.01, prior_a=0.5):
    """The joint log scores [b_A, b_B] of an n-word document, in float64.

    Parameters
    ----------
    n_words : int >= 0
    gap : float >= 0
        How much smaller each word's log probability is under B than under A.
    word_prob : float in (0, 1), default 0.01
        Probability p of each word under A.
    prior_a : float in (0, 1), default 0.5
        Prior of A; B has ``1 - prior_a``.

    Returns
    -------
    ndarray of shape (2,)
    """
    n, gap, p, prior = _setting(n_words, gap, word_prob, prior_a)
    log_p = math.log(p)
    return np.array([math.log(prior) + n * log_p, math.log1p(-prior) + n * (log_p - gap)])


def naive_posterior(n_words, gap, word_prob=0.01, prior_a=0.5, dtype="float64"):
    """The posterior the naive way, every step in ``dtype`` ("float64" or "float32").

    Arguments as in :func:`class_scores`. Returns a dict: ``"joint"``, p(x, A) and p(x, B) as
    products (0.0 once they underflow); ``"posterior"``, joint / joint.sum() (NaN when both are
    0); ``"underflow"``, some joint is 0.0; ``"nan"``, the posterior is NaN.
    """
    n, gap, p, prior = _setting(n_words, gap, word_prob, prior_a)
    kind = _check_dtype(dtype)
    word = np.array([p, p * math.exp(-gap)], dtype=kind)  # each word's probability per class
    priors = np.array([prior, 1.0 - prior], dtype=kind)
    with np.errstate(under="ignore", invalid="ignore", divide="ignore"):
        joint = priors * word**n  # the product of n equal factors, rounded once per class
        posterior = joint / joint.sum()
    return {
        "joint": joint,
        "posterior": posterior,
        "underflow": bool(np.any(joint == 0)),
        "nan": bool(np.any(np.isnan(posterior))),
    }


def stable_posterior(scores):
    """Posterior probabilities exp(b_c - logsumexp(b)) from joint log scores b of shape
    (n_classes,) or (n_samples, n_classes) (finite, or -inf for an impossible class)."""
    b = np.asarray(scores, dtype=np.float64)
    if b.ndim not in (1, 2) or b.shape[-1] == 0:
        raise ValueError(
            f"scores must have shape (n_classes,) or (n_samples, n_classes), got {b.shape}"
        )
    if np.isnan(b).any() or np.isposinf(b).any():
        raise ValueError("scores must not contain NaN or +inf")
    if np.isneginf(b).all(axis=-1).any():
        raise ValueError("scores must have at least one finite entry per row")
    # shift by the largest score first (as nbcore's predict_log_proba does): b - B is exact,
    # while b - logsumexp(b) would lose about |B| * 1e-16 when |B| is large
    shifted = b - b.max(axis=-1, keepdims=True)
    return np.exp(shifted - logsumexp(shifted, axis=-1, keepdims=True))


def numerics_table(n_words, gap, word_prob=0.01, prior_a=0.5):
    """One setting: rows "naive float64", "naive float32", "log-sum-exp"; columns "p(x, A)",
    "p(x, B)" (NaN for log-sum-exp, which never forms them), "P(A | x)", "P(B | x)", "note"."""
    b = class_scores(n_words, gap, word_prob, prior_a)
    rows = {}
    for name in DTYPES:
        state = naive_posterior(n_words, gap, word_prob, prior_a, dtype=name)
        note = (
            "underflow: 0/0 = NaN" if state["nan"] else ("underflow" if state["underflow"] else "")
        )
        rows[f"naive {name}"] = [*map(float, state["joint"]), *map(float, state["posterior"]), note]
    # log-sum-exp never forms the products: their columns stay empty (NaN)
    rows["log-sum-exp"] = [math.nan, math.nan, *map(float, stable_posterior(b)), "uses b_c only"]
    columns = ["p(x, A)", "p(x, B)", "P(A | x)", "P(B | x)", "note"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=columns)


def numerics_sweep(lengths, gap, word_prob=0.01, prior_a=0.5):
    """P(A | x) over document lengths (the static twin): a DataFrame indexed by "words",
    columns "b_A", "naive float64", "naive float32" (NaN where both products underflow),
    "log-sum-exp" and "exact" (the logistic function of b_A - b_B, without log-sum-exp)."""
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__len__") or len(lengths) == 0:
        raise TypeError("lengths must be a non-empty sequence of ints")
    rows = []
    for n in lengths:
        b = class_scores(n, gap, word_prob, prior_a)
        # the logistic function of b_A - b_B, written so that exp never overflows
        d = b[0] - b[1]
        exact = 1.0 / (1.0 + math.exp(-d)) if d >= 0 else math.exp(d) / (1.0 + math.exp(d))
        row = {"words": int(n), "b_A": float(b[0])}
        for name in DTYPES:
            naive = naive_posterior(n, gap, word_prob, prior_a, dtype=name)
            row[f"naive {name}"] = float(naive["posterior"][0])
        rows.append({**row, "log-sum-exp": float(stable_posterior(b)[0]), "exact": exact})
    return pd.DataFrame(rows).set_index("words")


def first_zero_length(word_prob, dtype="float64"):
    """The smallest n for which word_prob ** n, computed in ``dtype``, is exactly 0.0.

    The power is rounded once (as NumPy's ``**`` does): the first n with p ** n below half the
    smallest subnormal number, 2 ** -1075 in float64 and 2 ** -150 in float32.
    """
    p = check_probability("word_prob", word_prob, open_low=True, open_high=True)
    kind = _check_dtype(dtype)
    base = kind(p)
    if base == 0:
        return 1

    def is_zero(n):
        with np.errstate(under="ignore"):
            return base**n == 0

    # p ** n falls as n grows: double until it is 0, then bisect between the last two
    low, high = 0, 1
    while not is_zero(high):
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        if is_zero(mid):
            high = mid
        else:
            low = mid
    return high


def _fmt(value):
    if isinstance(value, str):
        return html.escape(value)
    return "NaN" if math.isnan(value) else ("0.0" if value == 0 else f"{value:.4g}")


def numerics_panel(n_words, gap, word_prob=0.01):
    """The explorer's panel as HTML: the scores and the three computations of one setting."""
    n = int(round(n_words))
    table, b = numerics_table(n, gap, word_prob), class_scores(n, gap, word_prob)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ["", *table.columns])
    body = []
    for name, row in table.iterrows():
        flagged = row["note"].startswith("underflow")
        style = f' style="color:{FLAG_TEXT};font-weight:bold"' if flagged else ""
        values = ["not formed" if name == "log-sum-exp" and j < 2 else v for j, v in enumerate(row)]
        cells = "".join(f"<td>{_fmt(v)}</td>" for v in values)
        body.append(f"<tr{style}><th>{html.escape(str(name))}</th>{cells}</tr>")
    return (
        f"<p>b_A = {b[0]:.2f}, b_B = {b[1]:.2f}, b_A - b_B = {b[0] - b[1]:.2f}</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


#: The explorer's controls: the document length on a log scale (10 to 100 000 words) and the
#: per-word gap in log probability between the classes (in nats).
CONTROLS = (
    Slider("n_words", "document length (words)", 1.0, 5.0, 0.25, fmt=".0f", log=True),
    Slider("gap", "per-word gap (nats)", 0.0, 0.05, 0.001, fmt=".3f"),
)


def numerics_explorer(n_words=100, gap=0.01, word_prob=0.01):
    """Sliders for the document length and the per-word gap over :func:`numerics_panel`;
    ``word_prob`` (each word's probability under A) stays fixed. Returns an ipywidgets.VBox."""
    word_prob = check_probability("word_prob", word_prob, open_low=True, open_high=True)
    show = partial(numerics_panel, word_prob=word_prob)
    return explorer(CONTROLS, show, n_words=n_words, gap=gap)
