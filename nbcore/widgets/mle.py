"""The maximum-likelihood chapter's explorers: a log-likelihood curve and where it peaks.

Every explorer is split in two: pure functions that compute what it shows (tested directly
at many settings) and a thin ``*_explorer`` function that wires ipywidgets sliders to them.
In the HTML book no kernel runs, so each explorer also has a static twin computed by the
same pure functions (:func:`bernoulli_curves`, :func:`likelihood_small_multiples`).

Two curves are drawn. For a Bernoulli feature of one class, with N_cd records "on" out of
N_c, the log-likelihood of the probability theta is

    l(theta) = N_cd log theta + (N_c - N_cd) log(1 - theta),

largest at theta = N_cd / N_c. For a Gaussian feature of one class, with values x_1..x_n,

    l(mu, var) = -1/2 sum_i [log(2 pi var) + (x_i - mu)^2 / var],

largest at the sample mean and the 1/n sample variance.
"""

import math

import numpy as np
import pandas as pd

from nbcore import plotting
from nbcore._validation import check_int, check_probability, check_real

__all__ = [
    "bernoulli_log_likelihood",
    "bernoulli_mle",
    "bernoulli_state",
    "bernoulli_curves",
    "gaussian_log_likelihood",
    "gaussian_mle",
    "gaussian_state",
    "likelihood_small_multiples",
    "bernoulli_figure",
    "gaussian_figure",
    "bernoulli_explorer",
    "gaussian_explorer",
]

#: Grid of theta values on which the Bernoulli curves are drawn (open interval: log 0 = -inf).
THETA_GRID = np.linspace(0.001, 0.999, 999)


def _check_counts(n_on, n_total):
    """N_cd and N_c: whole numbers with 0 <= N_cd <= N_c and N_c >= 1."""
    n_total = check_int("n_total", n_total, 1)
    return check_int("n_on", n_on, 0, n_total), n_total


def _check_theta(theta):
    array = np.asarray(theta, dtype=float)
    if array.dtype.kind != "f" or np.any(~np.isfinite(array)):
        raise ValueError(f"theta must hold finite numbers, got {theta!r}")
    if np.any((array < 0) | (array > 1)):
        raise ValueError(f"theta must lie in [0, 1], got {theta!r}")
    return array


def _check_sample(x):
    array = np.asarray(x, dtype=float)
    if array.ndim != 1 or array.size < 1:
        raise ValueError(f"x must be a 1-d array of at least one value, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("x must hold finite numbers only")
    return array


def _xlog(count, p):
    """count * log p, with 0 * log 0 = 0 (an outcome never seen costs nothing)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count == 0, 0.0, count * np.log(p))


def bernoulli_log_likelihood(theta, n_on, n_total):
    """Log-likelihood l(theta) = N_cd log theta + (N_c - N_cd) log(1 - theta).

    Parameters
    ----------
    theta : float or array-like
        Probability that the feature is on, in [0, 1]; any shape.
    n_on : int
        N_cd, the records of the class with the feature on.
    n_total : int
        N_c, the records of the class.

    Returns
    -------
    float or ndarray
        Same shape as ``theta``; -inf where theta rules out an observed outcome.
    """
    n_on, n_total = _check_counts(n_on, n_total)
    theta = _check_theta(theta)
    values = _xlog(n_on, theta) + _xlog(n_total - n_on, 1.0 - theta)
    return float(values) if values.ndim == 0 else values


def bernoulli_mle(n_on, n_total):
    """The maximum-likelihood estimate theta = N_cd / N_c."""
    n_on, n_total = _check_counts(n_on, n_total)
    return n_on / n_total


def bernoulli_state(theta, n_on, n_total):
    """What the Bernoulli explorer shows for one slider setting.

    Returns
    -------
    dict
        ``theta``, ``log_likelihood`` (at theta), ``mle`` (N_cd / N_c), ``max_log_likelihood``
        (at the MLE) and ``gap`` (how far below the maximum theta is, >= 0).
    """
    n_on, n_total = _check_counts(n_on, n_total)
    theta = float(_check_theta(theta))
    mle = bernoulli_mle(n_on, n_total)
    value = bernoulli_log_likelihood(theta, n_on, n_total)
    best = bernoulli_log_likelihood(mle, n_on, n_total)
    return {
        "theta": theta,
        "log_likelihood": value,
        "mle": mle,
        "max_log_likelihood": best,
        "gap": best - value,
    }


def bernoulli_curves(datasets, grid=None):
    """Log-likelihood curves of several Bernoulli data sets: the explorer's static twin.

    Parameters
    ----------
    datasets : sequence of (int, int)
        Pairs (N_cd, N_c).
    grid : array-like of shape (n_points,), optional
        Values of theta; default :data:`THETA_GRID`.

    Returns
    -------
    DataFrame of shape (n_points, n_datasets)
        Index ``theta``; one column per data set, named "N_cd/N_c", values l(theta).
    """
    if len(datasets) == 0:
        raise ValueError("datasets must hold at least one pair (n_on, n_total)")
    grid = THETA_GRID if grid is None else _check_theta(grid).reshape(-1)
    columns = {}
    for n_on, n_total in datasets:
        columns[f"{n_on}/{n_total}"] = bernoulli_log_likelihood(grid, n_on, n_total)
    return pd.DataFrame(columns, index=pd.Index(grid, name="theta"))


def gaussian_log_likelihood(x, mu, var):
    """Log-likelihood l(mu, var) = -1/2 sum_i [log(2 pi var) + (x_i - mu)^2 / var].

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        The values of one feature in one class.
    mu : float or array-like
        Mean(s); broadcast against ``var``.
    var : float or array-like
        Variance(s), > 0.

    Returns
    -------
    float or ndarray
        The log-likelihood at each (mu, var), of the broadcast shape of mu and var.
    """
    x = _check_sample(x)
    mu = np.asarray(mu, dtype=float)
    var = np.asarray(var, dtype=float)
    if np.any(~np.isfinite(var)) or np.any(var <= 0):
        raise ValueError(f"var must be finite and > 0, got {var!r}")
    if np.any(~np.isfinite(mu)):
        raise ValueError(f"mu must be finite, got {mu!r}")
    mu, var = np.broadcast_arrays(mu, var)
    # sum_i (x_i - mu)^2 = n (mean - mu)^2 + sum_i (x_i - mean)^2: no loop over samples
    n, mean = x.size, x.mean()
    ssd = np.sum((x - mean) ** 2) + n * (mean - mu) ** 2
    values = -0.5 * (n * np.log(2 * np.pi * var) + ssd / var)
    return float(values) if values.ndim == 0 else values


def gaussian_mle(x):
    """The maximum-likelihood mean and variance of a sample: (mean, 1/n variance)."""
    x = _check_sample(x)
    mean = float(x.mean())
    return mean, float(np.mean((x - mean) ** 2))


def gaussian_state(x, mu, var):
    """What the Gaussian explorer shows for one setting of the mean and variance sliders.

    Returns
    -------
    dict
        ``mu``, ``var``, ``log_likelihood`` at (mu, var), ``mle`` (mean, variance),
        ``max_log_likelihood``, ``best_var_given_mu`` (the variance that maximises l at
        this mu: the mean squared deviation from mu) and ``gap`` (>= 0).
    """
    x = _check_sample(x)
    mle = gaussian_mle(x)
    value = gaussian_log_likelihood(x, mu, var)
    best = gaussian_log_likelihood(x, *mle)
    return {
        "mu": float(mu),
        "var": float(var),
        "log_likelihood": value,
        "mle": mle,
        "max_log_likelihood": best,
        "best_var_given_mu": float(np.mean((x - float(mu)) ** 2)),
        "gap": best - value,
    }


# --------------------------------------------------------------------------- figures


#: Height of the window the curves are drawn in: this many log units below the maximum.
WINDOW = 8.0


def _window(values):
    """y limits showing the top WINDOW log units of a curve: the same scale in every panel."""
    top = float(np.max(values[np.isfinite(values)]))
    return top - WINDOW, top + 0.1 * WINDOW


def _curve(ax, grid, values, style, label, mle, mle_value):
    ax.plot(grid, values, color=style["color"], marker="", label=label)
    ax.axvline(mle, color="black", linestyle="--", linewidth=1)
    ax.plot(
        [mle],
        [mle_value],
        linestyle="none",
        marker=style["marker"],
        color=style["color"],
        markeredgecolor="black",
        markersize=8,
        label="maximum",
    )


def likelihood_small_multiples(bernoulli_sets, gaussian_samples, *, var_grid=None):
    """Small multiples: Bernoulli curves (top row) and Gaussian variance curves (bottom row).

    Parameters
    ----------
    bernoulli_sets : sequence of (int, int)
        Pairs (N_cd, N_c), one panel each.
    gaussian_samples : mapping of str to array-like
        Named samples; each panel shows l(mu_hat, var) against var, mu at the sample mean.
    var_grid : array-like, optional
        Variances for the bottom row; default 200 values spanning each sample's MLE
        variance / 4 to 4 times it.

    Returns
    -------
    Figure
    """
    ncols = max(len(bernoulli_sets), len(gaussian_samples))
    if ncols == 0:
        raise ValueError("give at least one Bernoulli data set or one Gaussian sample")
    fig, axes = plotting.new_figure(2, ncols, figsize=(2.6 * ncols, 5.0))
    curves = bernoulli_curves(bernoulli_sets) if bernoulli_sets else None
    for j, ax in enumerate(axes[0]):
        if j >= len(bernoulli_sets):
            ax.set_visible(False)
            continue
        n_on, n_total = bernoulli_sets[j]
        mle = bernoulli_mle(n_on, n_total)
        values = curves.iloc[:, j].to_numpy()
        _curve(
            ax,
            curves.index,
            values,
            plotting.class_style(0),
            "l(theta)",
            mle,
            bernoulli_log_likelihood(mle, n_on, n_total),
        )
        ax.set_ylim(*_window(values))
        ax.set_title(f"$N_{{cd}} = {n_on}$, $N_c = {n_total}$", fontsize=9)
        ax.set_xlabel(r"$\theta$")
    axes[0, 0].set_ylabel(r"log-likelihood $\ell(\theta)$")
    for j, ax in enumerate(axes[1]):
        if j >= len(gaussian_samples):
            ax.set_visible(False)
            continue
        name, x = list(gaussian_samples.items())[j]
        mean, var = gaussian_mle(x)
        grid = (
            np.geomspace(var / 4, 4 * var, 200)
            if var_grid is None
            else np.asarray(var_grid, dtype=float)
        )
        values = gaussian_log_likelihood(x, mean, grid)
        _curve(
            ax,
            grid,
            values,
            plotting.class_style(1),
            "l(var)",
            var,
            gaussian_log_likelihood(x, mean, var),
        )
        ax.set_ylim(*_window(values))
        ax.set_title(f"{name} ($n = {len(np.atleast_1d(x))}$)", fontsize=9)
        ax.set_xlabel(r"$\sigma^2$")
    axes[1, 0].set_ylabel(r"$\ell(\hat\mu, \sigma^2)$")
    return fig


def bernoulli_figure(state, n_on, n_total):
    """One panel: the curve l(theta), the slider's theta (a point) and the maximum (a line)."""
    fig, axes = plotting.new_figure(1, 1, figsize=(5.6, 3.2))
    ax = axes[0, 0]
    values = bernoulli_log_likelihood(THETA_GRID, n_on, n_total)
    _curve(
        ax,
        THETA_GRID,
        values,
        plotting.class_style(0),
        r"$\ell(\theta)$",
        state["mle"],
        state["max_log_likelihood"],
    )
    if np.isfinite(state["log_likelihood"]):
        style = plotting.class_style(1)
        ax.plot(
            [state["theta"]],
            [state["log_likelihood"]],
            linestyle="none",
            marker=style["marker"],
            color=style["color"],
            markersize=8,
            label="slider",
        )
    ax.set_ylim(*_window(values))
    ax.set_xlabel(r"$\theta$")
    ax.set_ylabel("log-likelihood")
    ax.legend(loc="lower center")
    return fig


def gaussian_figure(state, x):
    """Two panels: l against mu (at the slider's variance) and against var (at its mu)."""
    x = _check_sample(x)
    fig, axes = plotting.new_figure(1, 2, figsize=(7.6, 3.2))
    mean, var = state["mle"]
    spread = 4 * math.sqrt(max(var, state["var"]))
    mus = np.linspace(mean - spread, mean + spread, 201)
    variances = np.geomspace(var / 5, 5 * max(var, state["var"]), 201)
    panels = (
        (axes[0, 0], mus, gaussian_log_likelihood(x, mus, state["var"]), mean, r"$\mu$"),
        (
            axes[0, 1],
            variances,
            gaussian_log_likelihood(x, state["mu"], variances),
            state["best_var_given_mu"],
            r"$\sigma^2$",
        ),
    )
    for ax, grid, values, best, label in panels:
        style = plotting.class_style(0)
        ax.plot(grid, values, color=style["color"], marker="")
        ax.axvline(best, color="black", linestyle="--", linewidth=1, label="best here")
        ax.set_xlabel(label)
    slider = plotting.class_style(1)
    for ax, at in ((axes[0, 0], state["mu"]), (axes[0, 1], state["var"])):
        ax.plot(
            [at],
            [state["log_likelihood"]],
            linestyle="none",
            marker=slider["marker"],
            color=slider["color"],
            markersize=8,
            label="slider",
        )
    for ax, (_, _, values, _, _) in zip(axes[0], panels, strict=True):
        ax.set_ylim(*_window(np.append(values, state["log_likelihood"])))
    axes[0, 0].set_ylabel("log-likelihood")
    axes[0, 1].legend(loc="upper right")
    return fig


# --------------------------------------------------------------------------- explorers


def _summary(text):
    import ipywidgets as w

    return w.HTML(f"<p style='font-family:monospace'>{text}</p>")


def bernoulli_explorer(n_on=3, n_total=10, theta=0.5):
    """Sliders for theta, N_c and N_cd; the curve l(theta) with the slider's point on it.

    Returns
    -------
    ipywidgets.VBox
    """
    import ipywidgets as w

    n_on, n_total = _check_counts(n_on, n_total)
    theta = check_probability("theta", theta)
    style, layout = {"description_width": "8em"}, w.Layout(width="28em")
    theta_slider = w.FloatSlider(
        value=min(max(round(theta, 2), 0.01), 0.99),
        min=0.01,
        max=0.99,
        step=0.01,
        description="theta",
        style=style,
        layout=layout,
    )
    total_slider = w.IntSlider(
        value=n_total,
        min=1,
        max=max(100, n_total),
        description="N_c",
        style=style,
        layout=layout,
    )
    on_slider = w.IntSlider(
        value=n_on, min=0, max=n_total, description="N_cd", style=style, layout=layout
    )
    text, picture = w.HTML(), w.HTML()

    def update(_change=None):
        on_slider.max = total_slider.value
        k, n, t = on_slider.value, total_slider.value, theta_slider.value
        state = bernoulli_state(t, k, n)
        text.value = _summary(
            f"l({t:.2f}) = {state['log_likelihood']:.3f}; maximum "
            f"l({state['mle']:.3f}) = {state['max_log_likelihood']:.3f} at N_cd/N_c; "
            f"gap {state['gap']:.3f}"
        ).value
        picture.value = plotting.figure_html(
            bernoulli_figure(state, k, n),
            f"The Bernoulli log-likelihood of theta for N_cd = {k} of N_c = {n}, with the "
            f"slider's theta = {t:.2f} marked and the maximum at theta = {state['mle']:.3f}.",
        )

    for slider in (theta_slider, total_slider, on_slider):
        slider.observe(update, names="value")
    update()
    return w.VBox([theta_slider, total_slider, on_slider, text, picture])


def gaussian_explorer(x, mu=None, var=None):
    """Sliders for the mean and the variance of one Gaussian feature, with its curves.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        The values of one feature in one class.
    mu, var : float, optional
        Starting values; default the maximum-likelihood estimates.

    Returns
    -------
    ipywidgets.VBox
    """
    import ipywidgets as w

    x = _check_sample(x)
    mean, variance = gaussian_mle(x)
    mu = mean if mu is None else check_real("mu", mu)
    var = variance if var is None else check_real("var", var)
    spread = 3 * math.sqrt(variance) if variance > 0 else 1.0
    style, layout = {"description_width": "8em"}, w.Layout(width="28em")
    mu_slider = w.FloatSlider(
        value=mu,
        min=mean - spread,
        max=mean + spread,
        step=spread / 100,
        description="mean mu",
        readout_format=".3f",
        style=style,
        layout=layout,
    )
    var_slider = w.FloatLogSlider(
        value=var,
        base=10,
        min=math.log10(variance / 10),
        max=math.log10(variance * 10),
        step=0.01,
        description="variance",
        readout_format=".4f",
        style=style,
        layout=layout,
    )
    text, picture = w.HTML(), w.HTML()

    def update(_change=None):
        state = gaussian_state(x, mu_slider.value, var_slider.value)
        text.value = _summary(
            f"l = {state['log_likelihood']:.3f}; maximum {state['max_log_likelihood']:.3f} "
            f"at mean {state['mle'][0]:.3f}, variance {state['mle'][1]:.4f} (1/n); "
            f"best variance for this mu {state['best_var_given_mu']:.4f}"
        ).value
        picture.value = plotting.figure_html(
            gaussian_figure(state, x),
            "The Gaussian log-likelihood against the mean (left, at the slider's variance) "
            "and against the variance (right, at the slider's mean), each with its maximum "
            f"marked: mean {state['mle'][0]:.3f}, variance {state['mle'][1]:.4f}.",
        )

    mu_slider.observe(update, names="value")
    var_slider.observe(update, names="value")
    update()
    return w.VBox([mu_slider, var_slider, text, picture])
