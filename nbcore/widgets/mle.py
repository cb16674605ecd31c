"""The maximum-likelihood chapter's explorers: a log-likelihood curve and where it peaks.

For a Bernoulli feature of one class, N_cd records "on" out of N_c, the log-likelihood of
theta is l(theta) = N_cd log theta + (N_c - N_cd) log(1 - theta) (:func:`nbcore.numerics.xlogp`
of the counts), largest at theta = N_cd / N_c. For a Gaussian feature of one class it is
l(mu, var) = sum_i log N(x_i; mu, var) (:func:`nbcore.numerics.gaussian_log_density`, the
density GaussianNB scores with), largest at the sample mean and the 1/n variance.
:func:`bernoulli_panel` and :func:`gaussian_panel` show one setting of the explorers;
:func:`bernoulli_curves` and :func:`likelihood_small_multiples` are their static twins.
"""

import math
from functools import partial

import numpy as np
import pandas as pd

from nbcore import plotting
from nbcore._validation import check_int, check_probability
from nbcore.numerics import gaussian_log_density, xlogp
from nbcore.widgets._explorer import Slider, explorer

__all__ = [
    "BERNOULLI_CONTROLS",
    "bernoulli_log_likelihood",
    "bernoulli_mle",
    "bernoulli_curves",
    "bernoulli_panel",
    "bernoulli_explorer",
    "gaussian_log_likelihood",
    "gaussian_mle",
    "gaussian_controls",
    "gaussian_panel",
    "gaussian_explorer",
    "likelihood_small_multiples",
]

#: Grid of theta values on which the Bernoulli curves are drawn (open interval: log 0 = -inf).
THETA_GRID = np.linspace(0.001, 0.999, 999)

#: Height of the window the curves are drawn in: this many log units below the maximum.
WINDOW = 8.0


def _counts(n_on, n_total):
    """N_cd and N_c: whole numbers with 0 <= N_cd <= N_c and N_c >= 1."""
    n_total = check_int("n_total", n_total, 1)
    return check_int("n_on", n_on, 0, n_total), n_total


def _thetas(theta):
    """theta as a float array of the same shape, every entry a probability."""
    values = [check_probability("theta", t) for t in np.ravel(theta).tolist()]
    return np.array(values, dtype=float).reshape(np.shape(theta))


def _sample(x):
    """x as a 1-d float array of at least one finite value."""
    array = np.asarray(x, dtype=float)
    if array.ndim != 1 or array.size < 1:
        raise ValueError(f"x must be a 1-d array of at least one value, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("x must hold finite numbers only")
    return array


def bernoulli_log_likelihood(theta, n_on, n_total):
    """l(theta) = N_cd log theta + (N_c - N_cd) log(1 - theta), with 0 log 0 = 0.

    ``theta`` is a probability or an array of them (any shape); ``n_on`` is N_cd, the records
    of the class with the feature on, ``n_total`` N_c. Returns a float or an array of the
    shape of ``theta``, -inf where theta rules out an observed outcome.
    """
    n_on, n_total = _counts(n_on, n_total)
    theta = _thetas(theta)
    with np.errstate(divide="ignore"):  # log 0 = -inf, which xlogp counts only where seen
        log_p = np.stack([np.log(theta.ravel()), np.log1p(-theta.ravel())], axis=1)
    values = xlogp(np.array([[n_on, n_total - n_on]], dtype=float), log_p)[0]
    return float(values[0]) if theta.ndim == 0 else values.reshape(theta.shape)


def bernoulli_mle(n_on, n_total):
    """The maximum-likelihood estimate theta = N_cd / N_c."""
    n_on, n_total = _counts(n_on, n_total)
    return n_on / n_total


def bernoulli_curves(datasets, grid=None):
    """l(theta) of several data sets (pairs (N_cd, N_c)) on a grid: the static twin.

    Returns a DataFrame indexed by ``theta`` (default :data:`THETA_GRID`), one column per
    data set named "N_cd/N_c".
    """
    if len(datasets) == 0:
        raise ValueError("datasets must hold at least one pair (n_on, n_total)")
    grid = THETA_GRID if grid is None else _thetas(grid).reshape(-1)
    columns = {f"{k}/{n}": bernoulli_log_likelihood(grid, k, n) for k, n in datasets}
    return pd.DataFrame(columns, index=pd.Index(grid, name="theta"))


def gaussian_log_likelihood(x, mu, var):
    """l(mu, var) = sum_i log N(x_i; mu, var), at every (mu, var) of their broadcast shape.

    ``x`` holds the values of one feature in one class; ``var`` must be > 0. Each (mu, var)
    is scored as a class of :func:`nbcore.numerics.gaussian_log_density`.
    """
    x = _sample(x)
    mu, var = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(var, dtype=float))
    if np.any(~np.isfinite(var)) or np.any(var <= 0):
        raise ValueError(f"var must be finite and > 0, got {var!r}")
    if np.any(~np.isfinite(mu)):
        raise ValueError(f"mu must be finite, got {mu!r}")
    center = np.array([x.mean()])  # the sample's own mean: no cancellation for large x
    density = gaussian_log_density(x[:, None], mu.reshape(-1, 1), var.reshape(-1, 1), center)
    values = density.sum(axis=0)
    return float(values[0]) if mu.ndim == 0 else values.reshape(mu.shape)


def gaussian_mle(x):
    """The maximum-likelihood mean and variance of a sample: (mean, 1/n variance)."""
    x = _sample(x)
    mean = float(x.mean())
    return mean, float(np.mean((x - mean) ** 2))


def _window(values):
    """y limits showing the top WINDOW log units of a curve: the same scale in every panel."""
    top = float(np.max(values[np.isfinite(values)]))
    return top - WINDOW, top + 0.1 * WINDOW


def _mark(ax, x, y, index, label, **style):
    """One point in the colour and marker of class ``index``."""
    look = plotting.class_style(index)
    kw = dict(linestyle="none", marker=look["marker"], color=look["color"], markersize=8)
    ax.plot([x], [y], label=label, **kw, **style)


def _curve(ax, grid, values, index, label, best, best_value):
    """A curve with its maximum: a dashed line and a point."""
    ax.plot(grid, values, color=plotting.class_style(index)["color"], marker="", label=label)
    ax.axvline(best, color="black", linestyle="--", linewidth=1)
    _mark(ax, best, best_value, index, "maximum", markeredgecolor="black")
    ax.set_ylim(*_window(values))


def _bernoulli_row(ax, n_on, n_total):
    """l(theta) of N_cd of N_c on one axes, with its maximum."""
    mle = bernoulli_mle(n_on, n_total)
    values = bernoulli_log_likelihood(THETA_GRID, n_on, n_total)
    _curve(ax, THETA_GRID, values, 0, "l(theta)", mle, bernoulli_log_likelihood(mle, n_on, n_total))
    ax.set(title=f"$N_{{cd}} = {n_on}$, $N_c = {n_total}$", xlabel=r"$\theta$")


def _gaussian_row(ax, name, x, grid):
    """l(mu_hat, var) of a named sample against var on one axes, with its maximum."""
    mean, var = gaussian_mle(x)
    grid = np.geomspace(var / 4, 4 * var, 200) if grid is None else np.asarray(grid, dtype=float)
    values = gaussian_log_likelihood(x, mean, grid)
    _curve(ax, grid, values, 1, "l(var)", var, gaussian_log_likelihood(x, mean, var))
    ax.set(title=f"{name} ($n = {len(np.atleast_1d(x))}$)", xlabel=r"$\sigma^2$")


def likelihood_small_multiples(bernoulli_sets, gaussian_samples, *, var_grid=None):
    """Small multiples: Bernoulli curves (top row) and Gaussian variance curves (bottom row).

    ``bernoulli_sets`` holds pairs (N_cd, N_c), one panel each; ``gaussian_samples`` maps
    names to samples, each panel l(mu_hat, var) against var at the sample mean, over
    ``var_grid`` (default 200 values from the MLE variance / 4 to 4 times it). Returns the
    Figure.
    """
    ncols = max(len(bernoulli_sets), len(gaussian_samples))
    if ncols == 0:
        raise ValueError("give at least one Bernoulli data set or one Gaussian sample")
    fig, axes = plotting.new_figure(2, ncols, figsize=(2.6 * ncols, 5.0))
    rows = [
        [partial(_bernoulli_row, n_on=k, n_total=n) for k, n in bernoulli_sets],
        [partial(_gaussian_row, name=s, x=x, grid=var_grid) for s, x in gaussian_samples.items()],
    ]
    for row, draws in zip(axes, rows, strict=True):
        for j, ax in enumerate(row):
            if j < len(draws):
                draws[j](ax)
                ax.title.set_fontsize(9)
            else:
                ax.set_visible(False)
    axes[0, 0].set_ylabel(r"log-likelihood $\ell(\theta)$")
    axes[1, 0].set_ylabel(r"$\ell(\hat\mu, \sigma^2)$")
    return fig


def _summary(text):
    return f"<p style='font-family:monospace'>{text}</p>"


def bernoulli_panel(theta, n_total, n_on):
    """The Bernoulli explorer's panel, HTML: l(theta), its maximum and the curve.

    N_cd is capped at N_c (its slider reaches 100 whatever N_c is).
    """
    capped, n_on = n_on > n_total, min(n_on, n_total)
    value, mle = bernoulli_log_likelihood(theta, n_on, n_total), bernoulli_mle(n_on, n_total)
    best = bernoulli_log_likelihood(mle, n_on, n_total)
    fig, axes = plotting.new_figure(1, 1, figsize=(5.6, 3.2))
    _bernoulli_row(axes[0, 0], n_on, n_total)
    if np.isfinite(value):
        _mark(axes[0, 0], theta, value, 1, "slider")
    axes[0, 0].set(ylabel="log-likelihood")
    axes[0, 0].legend(loc="lower center")
    alt = (
        f"The Bernoulli log-likelihood of theta for N_cd = {n_on} of N_c = {n_total}, with the "
        f"slider's theta = {theta:.2f} marked and the maximum at theta = {mle:.3f}."
    )
    text = (
        f"l({theta:.2f}) = {value:.3f}; maximum l({mle:.3f}) = {best:.3f} at N_cd/N_c; "
        f"gap {best - value:.3f}" + ("; N_cd capped at N_c" if capped else "")
    )
    return _summary(text) + plotting.figure_html(fig, alt)


#: The Bernoulli explorer's controls.
BERNOULLI_CONTROLS = (
    Slider("theta", "theta", 0.01, 0.99, 0.01),
    Slider("n_total", "N_c", 1, 100, 1, integer=True),
    Slider("n_on", "N_cd (at most N_c)", 0, 100, 1, integer=True),
)


def bernoulli_explorer(n_on=3, n_total=10, theta=0.5):
    """Sliders for theta, N_c and N_cd over :func:`bernoulli_panel`; an ``ipywidgets.VBox``."""
    n_on, n_total = _counts(n_on, n_total)
    return explorer(BERNOULLI_CONTROLS, bernoulli_panel, theta=theta, n_total=n_total, n_on=n_on)


def gaussian_controls(x):
    """Sliders for the mean (MLE +- 3 standard deviations) and the variance (MLE / 10 to x 10)."""
    mean, var = gaussian_mle(x)
    if var == 0:
        raise ValueError("x must not be constant: its maximum-likelihood variance is 0")
    spread, low = 3 * math.sqrt(var), math.log10(var)
    return (
        Slider("mu", "mean mu", mean - spread, mean + spread, spread / 100, fmt=".3f"),
        Slider("var", "variance", low - 1, low + 1, 0.01, fmt=".4f", log=True),
    )


def gaussian_panel(mu, var, *, x):
    """The Gaussian explorer's panel, HTML: l against mu (at var) and against var (at mu)."""
    x = _sample(x)
    mean, best_var = gaussian_mle(x)
    value, best = gaussian_log_likelihood(x, mu, var), gaussian_log_likelihood(x, mean, best_var)
    var_at_mu = float(np.mean((x - mu) ** 2))  # the variance that maximises l at this mu
    spread = 4 * math.sqrt(max(best_var, var))
    mus = np.linspace(mean - spread, mean + spread, 201)
    variances = np.geomspace(best_var / 5, 5 * max(best_var, var), 201)
    fig, axes = plotting.new_figure(1, 2, figsize=(7.6, 3.2))
    by_mu, by_var = gaussian_log_likelihood(x, mus, var), gaussian_log_likelihood(x, mu, variances)
    for ax, grid, values, top, at, label in (
        (axes[0, 0], mus, by_mu, mean, mu, r"$\mu$"),
        (axes[0, 1], variances, by_var, var_at_mu, var, r"$\sigma^2$"),
    ):
        ax.plot(grid, values, color=plotting.class_style(0)["color"], marker="")
        ax.axvline(top, color="black", linestyle="--", linewidth=1, label="best here")
        _mark(ax, at, value, 1, "slider")
        ax.set(xlabel=label, ylim=_window(np.append(values, value)))
    axes[0, 0].set_ylabel("log-likelihood")
    axes[0, 1].legend(loc="upper right")
    text = (
        f"l = {value:.3f}; maximum {best:.3f} at mean {mean:.3f}, variance {best_var:.4f} "
        f"(1/n); best variance for this mu {var_at_mu:.4f}"
    )
    alt = (
        "The Gaussian log-likelihood against the mean (left, at the slider's variance) and "
        "against the variance (right, at the slider's mean), each with its maximum marked: "
        f"mean {mean:.3f}, variance {best_var:.4f}."
    )
    return _summary(text) + plotting.figure_html(fig, alt)


def gaussian_explorer(x, mu=None, var=None):
    """Sliders for the mean and variance of one Gaussian feature over :func:`gaussian_panel`.

    ``x`` holds the values of one feature in one class; ``mu`` and ``var`` start at the
    maximum-likelihood estimates by default. Returns an ``ipywidgets.VBox``.
    """
    x = _sample(x)
    mean, best_var = gaussian_mle(x)
    start = dict(mu=mean if mu is None else mu, var=best_var if var is None else var)
    return explorer(gaussian_controls(x), partial(gaussian_panel, x=x), **start)
