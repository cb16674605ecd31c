"""Figures of the book: one palette, one marker per class, opaque backgrounds.

Every figure is a :class:`matplotlib.figure.Figure` built without ``pyplot``, so a notebook
cell shows exactly the figure it returns (no stray copies from pyplot's global state) and the
functions can be tested without a display.

Colours come from the Okabe-Ito palette, which stays distinguishable under the common forms
of colour blindness. Colour is never the only cue: each class also has its own marker (for
points and lines) and its own hatch pattern (for bars). Backgrounds are opaque white, on
screen and when saved, so figures stay readable on a dark page.

Alt text and captions: the book takes them from the metadata of the code cell that shows the
figure (myst-nb's ``mystnb: {figure: {caption, name}, image: {alt}}``);
:func:`figure_cell_metadata` builds that block and checks that it is complete.
"""

import base64
import html
import io
from collections.abc import Mapping, Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

__all__ = [
    "OKABE_ITO",
    "PALETTE",
    "MARKERS",
    "HATCHES",
    "BACKGROUND",
    "class_style",
    "use_book_style",
    "new_figure",
    "figure_cell_metadata",
    "figure_html",
    "relative_frequency_bars",
    "posterior_sweep_lines",
]

#: The eight Okabe-Ito colours (Okabe & Ito, "Color Universal Design", 2008), by name.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "black": "#000000",
}

#: Class colours in the order classes are drawn. Yellow comes last: it is hard to see on white.
PALETTE = (
    OKABE_ITO["blue"],
    OKABE_ITO["orange"],
    OKABE_ITO["bluish green"],
    OKABE_ITO["vermillion"],
    OKABE_ITO["reddish purple"],
    OKABE_ITO["sky blue"],
    OKABE_ITO["black"],
    OKABE_ITO["yellow"],
)

#: One marker per class, in the same order as PALETTE.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

#: One hatch pattern per class for bars, in the same order as PALETTE.
HATCHES = ("", "//", "..", "xx", "\\\\", "oo", "--", "++")

#: Figure and axes background: opaque white, also in saved files and on dark pages.
BACKGROUND = "white"

_RC = {
    "figure.facecolor": BACKGROUND,
    "figure.edgecolor": BACKGROUND,
    "axes.facecolor": BACKGROUND,
    "savefig.facecolor": BACKGROUND,
    "savefig.edgecolor": BACKGROUND,
    "savefig.transparent": False,
    "axes.prop_cycle": mpl.cycler(color=list(PALETTE)) + mpl.cycler(marker=list(MARKERS)),
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "font.size": 10,
    "figure.dpi": 100,
}


def class_style(index):
    """Colour, marker and hatch of the class drawn in position ``index``.

    Parameters
    ----------
    index : int
        Position of the class (0 for the first class drawn). Positions beyond the palette's
        length wrap around.

    Returns
    -------
    dict
        ``{"color": str, "marker": str, "hatch": str}``.
    """
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"index must be an int, got {type(index).__name__}")
    if index < 0:
        raise ValueError(f"index must be >= 0, got {index}")
    i = int(index) % len(PALETTE)
    return {"color": PALETTE[i], "marker": MARKERS[i], "hatch": HATCHES[i]}


def use_book_style():
    """Set matplotlib's defaults to the book's palette, markers and opaque backgrounds.

    Called once by each chapter's set-up cell; figures made with :func:`new_figure` get the
    same look without it.
    """
    mpl.rcParams.update(_RC)


def new_figure(nrows=1, ncols=1, *, figsize=(6.4, 3.6), sharey=False):
    """A figure with an opaque white background and a grid of axes.

    Parameters
    ----------
    nrows, ncols : int
        Shape of the grid of axes.
    figsize : tuple of float
        Width and height in inches.
    sharey : bool
        Share the y axis between panels.

    Returns
    -------
    fig : Figure
    axes : ndarray of Axes, shape (nrows, ncols)
    """
    with mpl.rc_context(_RC):
        fig = Figure(figsize=figsize, facecolor=BACKGROUND, layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False, sharey=sharey)
    fig.patch.set_alpha(1.0)
    for ax in axes.flat:
        ax.set_facecolor(BACKGROUND)
        ax.patch.set_alpha(1.0)
    return fig, axes


def figure_cell_metadata(name, caption, alt):
    """The cell metadata from which the book gives a figure its caption, label and alt text.

    myst-nb reads ``mystnb.figure`` (caption and name, so the figure is numbered and can be
    referenced with ``{numref}``) and ``mystnb.image.alt`` from the code cell that displays the
    figure. In a MyST chapter the same block is the YAML header of the ``code-cell``.

    Parameters
    ----------
    name : str
        Label of the figure, e.g. ``"fig-weather-frequencies"`` (letters, digits, ``-``).
    caption : str
        Caption shown under the figure (MyST markup allowed).
    alt : str
        Text alternative read by screen readers: what the figure shows, in words.

    Returns
    -------
    dict
        ``{"mystnb": {"figure": {"name": ..., "caption": ...}, "image": {"alt": ...}}}``.
    """
    for param, value in (("name", name), ("caption", caption), ("alt", alt)):
        if not isinstance(value, str):
            raise TypeError(f"{param} must be a str, got {type(value).__name__}")
        if not value.strip():
            raise ValueError(f"{param} must be a non-empty text, got {value!r}")
    if not all(ch.isalnum() or ch == "-" for ch in name):
        raise ValueError(f"name must contain only letters, digits and '-', got {name!r}")
    if alt.strip() == caption.strip():
        raise ValueError("alt must describe the figure, not repeat its caption")
    return {"mystnb": {"figure": {"name": name, "caption": caption}, "image": {"alt": alt}}}


def figure_html(fig, alt, *, dpi=80):
    """A figure as an HTML ``<img>`` with alt text, for explorers that redraw in a widget.

    An explorer that shows a figure inside an ``ipywidgets.HTML`` panel keeps its alt text in
    the saved widget state, so the figure stays described in the HTML book (an
    ``ipywidgets.Image`` or an ``Output`` capture has no alt text).

    Parameters
    ----------
    fig : Figure
    alt : str
        What the figure shows, in words.
    dpi : int, default 80

    Returns
    -------
    str
        ``<img alt="..." src="data:image/png;base64,...">``.
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if not isinstance(alt, str) or not alt.strip():
        raise ValueError(f"alt must be a non-empty text, got {alt!r}")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, facecolor=BACKGROUND)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _check_class_labels(class_labels):
    if isinstance(class_labels, str) or not isinstance(class_labels, Sequence):
        raise TypeError(
            f"class_labels must be a sequence of labels, got {type(class_labels).__name__}"
        )
    if len(class_labels) == 0:
        raise ValueError("class_labels must name at least one class, got an empty sequence")


def relative_frequency_bars(frequencies, class_labels, *, ncols=2, title=None):
    """Grouped bars of each feature's within-class relative frequencies, one panel a feature.

    Parameters
    ----------
    frequencies : mapping of str to DataFrame
        For each feature, a DataFrame of shape (n_categories, n_classes): rows are the
        feature's categories, columns the classes, values the relative frequency of the
        category among the records of the class (each column sums to 1).
    class_labels : sequence of str
        The classes to draw, in drawing order (they pick the colours and hatches).
    ncols : int
        Panels per row.
    title : str, optional
        Title of the whole figure.

    Returns
    -------
    Figure
    """
    if not isinstance(frequencies, Mapping) or len(frequencies) == 0:
        raise TypeError("frequencies must be a non-empty mapping of feature name to DataFrame")
    _check_class_labels(class_labels)
    for feature, table in frequencies.items():
        missing = [c for c in class_labels if c not in getattr(table, "columns", ())]
        if missing:
            raise ValueError(
                f"frequencies[{feature!r}] must have a column for each class label; "
                f"missing {missing}"
            )
    n = len(frequencies)
    nrows = -(-n // ncols)
    fig, axes = new_figure(nrows, ncols, figsize=(3.4 * ncols, 2.6 * nrows), sharey=True)
    width = 0.8 / len(class_labels)
    for ax, (feature, table) in zip(axes.flat, frequencies.items(), strict=False):
        x = np.arange(len(table.index))
        for j, label in enumerate(class_labels):
            style = class_style(j)
            offset = (j - (len(class_labels) - 1) / 2) * width
            ax.bar(
                x + offset,
                table[label].to_numpy(dtype=float),
                width,
                color=style["color"],
                hatch=style["hatch"],
                edgecolor="black",
                linewidth=0.6,
                label=str(label),
            )
        ax.set_xticks(x, [str(v) for v in table.index])
        ax.set_title(str(feature))
        ax.set_ylim(0, 1)
        ax.grid(axis="x", visible=False)
    for ax in axes.flat[::ncols]:
        ax.set_ylabel("relative frequency")
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=len(class_labels))
    if title:
        fig.suptitle(title)
    return fig


def posterior_sweep_lines(sweep, *, xlabel, ylabel, legend_title, threshold=0.5):
    """One line per column of a precomputed sweep, each with its own colour and marker.

    Parameters
    ----------
    sweep : DataFrame of shape (n_settings, n_lines)
        The index holds the x values (e.g. the smoothing alpha), each column one line
        (e.g. one prior), the values the plotted quantity (e.g. a posterior probability).
    xlabel, ylabel, legend_title : str
        Axis labels and the title of the legend.
    threshold : float or None
        Draw a dashed horizontal line at this height (the decision threshold), or nothing.

    Returns
    -------
    Figure
    """
    if not hasattr(sweep, "columns") or len(sweep.columns) == 0 or len(sweep.index) == 0:
        raise TypeError("sweep must be a non-empty DataFrame (x values in the index)")
    fig, axes = new_figure(1, 1, figsize=(6.4, 3.6))
    ax = axes[0, 0]
    x = sweep.index.to_numpy(dtype=float)
    for j, column in enumerate(sweep.columns):
        style = class_style(j)
        ax.plot(
            x,
            sweep[column].to_numpy(dtype=float),
            color=style["color"],
            marker=style["marker"],
            markevery=max(1, len(x) // 8),
            label=str(column),
        )
    if threshold is not None:
        ax.axhline(threshold, color="black", linestyle="--", linewidth=1, label="decision line")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1)
    ax.legend(title=legend_title, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig
