"""The scale chapter's explorer: a variance streamed in chunks, two ways, against the exact one.

The values are offset + noise, with standard normal noise: their variance is about one,
whatever the offset. Read in chunks, the variance can be accumulated with running sums
n, S1 = sum x, S2 = sum x^2 and finished as (S2 - S1^2 / n) / n, or with the pairwise update
of Chan, Golub and LeVeque, which keeps (count, mean, variance) per chunk and combines them
(:func:`nbcore.scale.pool_moments`). :func:`streamed_variances` computes both and the exact
variance (rational arithmetic, no rounding at all) for one setting, :func:`variance_table`
shows them with their correct digits, :func:`variance_sweep` goes over many offsets (the
explorer's static twin), and :func:`variance_explorer` puts sliders on the offset and the
number of chunks.
"""

import html
import math
from fractions import Fraction

import numpy as np
import pandas as pd

from nbcore._validation import check_int, check_real
from nbcore.plotting import FLAG_TEXT
from nbcore.scale import pool_moments

__all__ = [
    "correct_digits",
    "streamed_variances",
    "variance_table",
    "variance_sweep",
    "variance_html",
    "variance_explorer",
]

#: Ranges of the explorer's sliders: log10 of the offset, and the number of chunks.
LOG10_OFFSET_MIN, LOG10_OFFSET_MAX, LOG10_OFFSET_STEP = 0.0, 10.0, 0.5
CHUNKS_MIN, CHUNKS_MAX = 1, 50

#: float64 carries a little under 16 significant decimal digits.
MAX_DIGITS = 16.0


def correct_digits(estimate, exact):
    """Correct significant digits of an estimate: -log10 of its relative error, in [0, 16].

    Parameters
    ----------
    estimate : float
    exact : float, not 0

    Returns
    -------
    float
        16 when the estimate equals the exact value, 0 when it is off by 100 % or more (or is
        NaN).
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


def _values(log10_offset, n_values, seed):
    noise = np.random.default_rng(seed).normal(0.0, 1.0, size=n_values)
    return 10.0**log10_offset + noise


def streamed_variances(log10_offset, n_chunks=10, n_values=2000, seed=0):
    """The variance of offset + noise, streamed in chunks by running sums and pairwise.

    Parameters
    ----------
    log10_offset : float in [0, 12]
        The offset is 10 ** log10_offset (1 at the left end of the slider).
    n_chunks : int, 1 to n_values, default 10
        Number of (nearly) equal chunks the values are read in.
    n_values : int >= 2, default 2000
        How many values.
    seed : int, default 0
        Seed of the standard normal noise.

    Returns
    -------
    dict
        ``"exact"``: the variance of the stored values in exact rational arithmetic;
        ``"running sums"`` and ``"pairwise"``: the two streamed estimates (floats).
    """
    log10_offset = check_real("log10_offset", log10_offset, 0.0, 12.0)
    n_values = check_int("n_values", n_values, 2)
    n_chunks = check_int("n_chunks", n_chunks, 1, n_values)
    seed = check_int("seed", seed, 0)
    x = _values(log10_offset, n_values, seed)
    chunks = np.array_split(x, n_chunks)
    # running sums: n, S1 = sum x, S2 = sum x^2, then (S2 - S1^2 / n) / n
    s1 = s2 = 0.0
    for chunk in chunks:
        s1 += float(chunk.sum())
        s2 += float((chunk**2).sum())
    naive = (s2 - s1 * s1 / n_values) / n_values
    # pairwise: (count, mean, variance) of each chunk, pooled one after the other
    pooled = (0.0, 0.0, 0.0)
    for chunk in chunks:
        pooled = pool_moments(*pooled, len(chunk), chunk.mean(), chunk.var())
    # exact: the same formula in rational numbers, where it has no rounding error
    values = [Fraction(v) for v in x.tolist()]
    t1, t2 = sum(values), sum(v * v for v in values)
    exact = float((t2 - t1 * t1 / n_values) / n_values)
    return {"exact": exact, "running sums": float(naive), "pairwise": float(pooled[2])}


def variance_table(log10_offset, n_chunks=10, n_values=2000, seed=0):
    """One setting of the explorer: both streamed variances, their errors and digits.

    Parameters
    ----------
    log10_offset, n_chunks, n_values, seed
        As in :func:`streamed_variances`.

    Returns
    -------
    DataFrame of shape (3, 3)
        Rows "exact", "running sums", "pairwise (Chan et al.)"; columns "variance",
        "relative error", "correct digits".
    """
    result = streamed_variances(log10_offset, n_chunks, n_values, seed)
    exact = result["exact"]
    rows = {}
    for name, key in [
        ("exact", "exact"),
        ("running sums", "running sums"),
        ("pairwise (Chan et al.)", "pairwise"),
    ]:
        value = result[key]
        rows[name] = [value, abs(value - exact) / exact, correct_digits(value, exact)]
    return pd.DataFrame.from_dict(
        rows, orient="index", columns=["variance", "relative error", "correct digits"]
    )


def variance_sweep(log10_offsets, n_chunks=10, n_values=2000, seed=0):
    """Correct digits of both streamed variances over many offsets: the static twin.

    Parameters
    ----------
    log10_offsets : sequence of float, shape (n_offsets,)
    n_chunks, n_values, seed
        As in :func:`streamed_variances`.

    Returns
    -------
    DataFrame of shape (n_offsets, 2)
        Index "log10 offset"; columns "running sums" and "pairwise (Chan et al.)", the
        correct digits of each.
    """
    if (
        isinstance(log10_offsets, (str, bytes))
        or not hasattr(log10_offsets, "__len__")
        or len(log10_offsets) == 0
    ):
        raise TypeError("log10_offsets must be a non-empty sequence of numbers")
    rows = []
    for e in log10_offsets:
        table = variance_table(e, n_chunks, n_values, seed)["correct digits"]
        rows.append(
            {
                "log10 offset": float(e),
                "running sums": table["running sums"],
                "pairwise (Chan et al.)": table["pairwise (Chan et al.)"],
            }
        )
    return pd.DataFrame(rows).set_index("log10 offset")


def variance_html(table, log10_offset, n_chunks):
    """HTML of one explorer setting: the offset, the chunks and the table.

    Parameters
    ----------
    table : DataFrame
        From :func:`variance_table`.
    log10_offset : float
    n_chunks : int

    Returns
    -------
    str
    """
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ["", *table.columns])
    body = []
    for name, row in table.iterrows():
        few = name != "exact" and row["correct digits"] < 6
        style = f' style="color:{FLAG_TEXT};font-weight:bold"' if few else ""
        cells = (
            f"<td>{row['variance']:.10g}</td><td>{row['relative error']:.2g}</td>"
            f"<td>{row['correct digits']:.1f}</td>"
        )
        body.append(f"<tr{style}><th>{html.escape(str(name))}</th>{cells}</tr>")
    return (
        f"<p>values: 10^{log10_offset:g} + standard normal noise, read in {n_chunks} "
        f"chunk{'s' if n_chunks != 1 else ''}</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def variance_explorer(log10_offset=4.0, n_chunks=10, n_values=2000):
    """Sliders for the offset and the number of chunks, showing both streamed variances.

    Parameters
    ----------
    log10_offset : float, default 4.0
        Starting exponent of the offset (0 to 10, rounded to a slider step of 0.5).
    n_chunks : int, default 10
        Starting number of chunks (1 to 50).
    n_values : int, default 2000
        Number of values (fixed).

    Returns
    -------
    ipywidgets.VBox
    """
    import ipywidgets as w

    log10_offset = check_real("log10_offset", log10_offset, LOG10_OFFSET_MIN, LOG10_OFFSET_MAX)
    n_chunks = check_int("n_chunks", n_chunks, CHUNKS_MIN, CHUNKS_MAX)
    n_values = check_int("n_values", n_values, CHUNKS_MAX)
    style = {"description_width": "12em"}
    layout = w.Layout(width="36em")
    offset_slider = w.FloatSlider(
        value=round(log10_offset / LOG10_OFFSET_STEP) * LOG10_OFFSET_STEP,
        min=LOG10_OFFSET_MIN,
        max=LOG10_OFFSET_MAX,
        step=LOG10_OFFSET_STEP,
        description="log10 of the offset",
        readout_format=".1f",
        style=style,
        layout=layout,
    )
    chunk_slider = w.IntSlider(
        value=n_chunks,
        min=CHUNKS_MIN,
        max=CHUNKS_MAX,
        description="number of chunks",
        style=style,
        layout=layout,
    )
    panel = w.HTML()

    def update(_change=None):
        table = variance_table(offset_slider.value, chunk_slider.value, n_values)
        panel.value = variance_html(table, offset_slider.value, chunk_slider.value)

    offset_slider.observe(update, names="value")
    chunk_slider.observe(update, names="value")
    update()
    return w.VBox([offset_slider, chunk_slider, panel])
