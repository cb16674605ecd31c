"""The scale chapter's explorer: a variance streamed in chunks, two ways, against the exact one.

The values are offset + noise, with standard normal noise: their variance is about one,
whatever the offset. Read in chunks, the variance can be accumulated with running sums
n, S1 = sum x, S2 = sum x^2 and finished as (S2 - S1^2 / n) / n, or with the pairwise update
of Chan, Golub and LeVeque (:func:`nbcore.scale.pool_moments`), which keeps (count, mean,
variance) per chunk. :func:`streamed_variances` computes both and the exact variance
(rational arithmetic, no rounding), :func:`variance_table` their correct digits,
:func:`variance_panel` shows one setting, :func:`variance_explorer` puts sliders on it and
:func:`variance_sweep` is its static twin.
"""

import html
import math
from fractions import Fraction
from functools import partial

import numpy as np
import pandas as pd

from nbcore._validation import check_int, check_real
from nbcore.plotting import FLAG_TEXT
from nbcore.scale import pool_moments
from nbcore.widgets._explorer import Slider, explorer

__all__ = [
    "CONTROLS",
    "correct_digits",
    "streamed_variances",
    "variance_table",
    "variance_sweep",
    "variance_panel",
    "variance_explorer",
]

#: float64 carries a little under 16 significant decimal digits.
MAX_DIGITS = 16.0

#: The rows of :func:`variance_table`: its name for each of :func:`streamed_variances`' keys.
ROWS = {"exact": "exact", "running sums": "running sums", "pairwise": "pairwise (Chan et al.)"}


def correct_digits(estimate, exact):
    """Correct significant digits of an estimate, -log10 of its relative error, in [0, 16].

    16 when the estimate equals ``exact`` (which must not be 0), 0 when it is off by 100 %
    or more, or is NaN.
    """
    estimate = float(estimate)
    exact = check_real("exact", exact)
    if exact == 0:
        raise ValueError("exact must not be 0: the relative error is undefined")
    if math.isnan(estimate):
        return 0.0
    error = abs(estimate - exact) / abs(exact)
    if error == 0:
        return MAX_DIGITS
    # + 0.0 turns the -0.0 of -log10(1) into 0.0
    return float(min(max(-math.log10(error), 0.0), MAX_DIGITS)) + 0.0


def streamed_variances(log10_offset, n_chunks=10, n_values=2000, seed=0):
    """The variance of 10 ** log10_offset + noise, streamed in chunks by running sums and pairwise.

    Parameters
    ----------
    log10_offset : float in [0, 12]
    n_chunks : int, 1 to n_values, default 10
        Number of (nearly) equal chunks the values are read in.
    n_values : int >= 2, default 2000
    seed : int, default 0
        Seed of the standard normal noise.

    Returns
    -------
    dict
        ``"exact"``: the variance of the stored values in rational arithmetic; ``"running
        sums"`` and ``"pairwise"``: the two streamed estimates (floats).
    """
    log10_offset = check_real("log10_offset", log10_offset, 0.0, 12.0)
    n_values = check_int("n_values", n_values, 2)
    n_chunks = check_int("n_chunks", n_chunks, 1, n_values)
    noise = np.random.default_rng(check_int("seed", seed, 0)).normal(0.0, 1.0, size=n_values)
    x = 10.0**log10_offset + noise
    chunks = np.array_split(x, n_chunks)
    # running sums: n, S1 = sum x, S2 = sum x^2, then (S2 - S1^2 / n) / n
    s1 = s2 = 0.0
    for chunk in chunks:
        s1 += float(chunk.sum())
        s2 += float((chunk**2).sum())
    # pairwise: (count, mean, variance) of each chunk, pooled one after the other
    pooled = (0.0, 0.0, 0.0)
    for chunk in chunks:
        pooled = pool_moments(*pooled, len(chunk), chunk.mean(), chunk.var())
    # exact: the running-sum formula in rational numbers, where it has no rounding error
    values = [Fraction(v) for v in x.tolist()]
    t1, t2 = sum(values), sum(v * v for v in values)
    return {
        "exact": float((t2 - t1 * t1 / n_values) / n_values),
        "running sums": float((s2 - s1 * s1 / n_values) / n_values),
        "pairwise": float(pooled[2]),
    }


def variance_table(log10_offset, n_chunks=10, n_values=2000, seed=0):
    """:func:`streamed_variances` with the relative error and correct digits of each.

    A DataFrame with rows "exact", "running sums", "pairwise (Chan et al.)" and columns
    "variance", "relative error", "correct digits".
    """
    result = streamed_variances(log10_offset, n_chunks, n_values, seed)
    exact = result["exact"]
    rows = {
        ROWS[key]: [v, abs(v - exact) / exact, correct_digits(v, exact)]
        for key, v in result.items()
    }
    columns = ["variance", "relative error", "correct digits"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=columns)


def variance_sweep(log10_offsets, n_chunks=10, n_values=2000, seed=0):
    """Correct digits of both streamed variances over many offsets: the static twin.

    A DataFrame indexed by "log10 offset", columns "running sums" and "pairwise (Chan et
    al.)".
    """
    if np.ndim(log10_offsets) != 1 or len(log10_offsets) == 0:
        raise TypeError("log10_offsets must be a non-empty sequence of numbers")
    tables = [variance_table(e, n_chunks, n_values, seed) for e in log10_offsets]
    streamed = list(ROWS.values())[1:]
    return pd.DataFrame(
        [t.loc[streamed, "correct digits"].tolist() for t in tables],
        index=pd.Index([float(e) for e in log10_offsets], name="log10 offset"),
        columns=streamed,
    )


def variance_panel(log10_offset, n_chunks, *, n_values=2000):
    """The explorer's panel, HTML: :func:`variance_table` at one setting, few digits in red."""
    table = variance_table(log10_offset, n_chunks, n_values)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ["", *table.columns])
    body = []
    for name, (value, error, digits) in table.iterrows():
        style = f' style="color:{FLAG_TEXT};font-weight:bold"' if digits < 6 else ""
        cells = f"<td>{value:.10g}</td><td>{error:.2g}</td><td>{digits:.1f}</td>"
        body.append(f"<tr{style}><th>{html.escape(str(name))}</th>{cells}</tr>")
    return (
        f"<p>values: 10^{log10_offset:g} + standard normal noise, read in {n_chunks} "
        f"chunk{'s' if n_chunks != 1 else ''}</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


#: The explorer's controls: the offset as a power of ten, and the number of chunks.
CONTROLS = (
    Slider("log10_offset", "log10 of the offset", 0.0, 10.0, 0.5, fmt=".1f"),
    Slider("n_chunks", "number of chunks", 1, 50, 1, integer=True),
)


def variance_explorer(log10_offset=4.0, n_chunks=10, n_values=2000):
    """Sliders for the offset and the number of chunks over :func:`variance_panel`.

    ``n_values`` (at least 50, the most chunks) stays fixed. Returns an ``ipywidgets.VBox``.
    """
    show = partial(variance_panel, n_values=check_int("n_values", n_values, 50))
    return explorer(CONTROLS, show, log10_offset=log10_offset, n_chunks=n_chunks)
