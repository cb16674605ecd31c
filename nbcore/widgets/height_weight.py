"""The height/weight chapter's explorer: the class prior and shared or per-class variances.

Gaussian naive Bayes on height (in) and weight (lb), classes "m" and "f": curved boundary with
a variance per class, straight with one shared per feature. The scores are nbcore's
:func:`~nbcore.numerics.gaussian_log_density`, the one GaussianNB uses.
"""

import html
import math
from functools import partial

import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap

from nbcore._validation import check_bool, check_probability
from nbcore.numerics import gaussian_log_density, logsumexp
from nbcore.plotting import class_style, figure_html, new_figure
from nbcore.widgets._explorer import Slider, Toggle, explorer

__all__ = [
    "CLASSES",
    "FEATURES",
    "TEST_POINTS",
    "CONTROLS",
    "class_parameters",
    "log_joint",
    "posterior_m",
    "boundary_weights",
    "posterior_grid",
    "draw_boundary",
    "boundary_small_multiples",
    "height_weight_panel",
    "height_weight_explorer",
]

#: The classes in drawing order (colour and marker 0 for "m", 1 for "f"), and the features in
#: the order of every array's last axis.
CLASSES, FEATURES = ("m", "f"), ("height", "weight")

#: The three people of the lecture notes' test table, (height, weight).
TEST_POINTS = np.array([[72.0, 180.0], [60.0, 100.0], [68.0, 155.0]])

HEIGHTS = np.linspace(40.0, 85.0, 181)  # the plotted window (inches, pounds)
WEIGHTS = np.linspace(60.0, 240.0, 145)
_prior = partial(check_probability, "prior_m", open_low=True, open_high=True)


def _data(data):
    """The training records, checked: height, weight and sex, two records of each class."""
    if data is None:
        from nbcore.datasets import load_height_weight

        return load_height_weight()
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    missing = sorted({*FEATURES, "sex"} - set(data.columns))
    if missing:
        raise ValueError(f"data must have columns 'height', 'weight' and 'sex'; missing {missing}")
    few = [c for c in CLASSES if (data["sex"] == c).sum() < 2]
    if few:
        raise ValueError(f"data must hold at least two records of each class; too few of {few}")
    return data


def _grid(values, name):
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or values.size < 2 or not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be a 1-D array of at least two finite numbers")
    return values


def class_parameters(data=None, *, shared_variance=False):
    """Class counts (2,), means and maximum-likelihood (1/N_c) variances (2, 2), in a dict.

    Rows follow :data:`CLASSES`, columns :data:`FEATURES`.

    Parameters
    ----------
    data : DataFrame, optional
        Columns ``height``, ``weight``, ``sex`` ("m"/"f"); default ``load_height_weight()``.
    shared_variance : bool, default False
        One variance per feature for both classes: the pooled sum_c N_c sigma^2_cd / N.
    """
    data = _data(data)
    shared = check_bool("shared_variance", shared_variance)
    rows = [data.loc[data["sex"] == c, list(FEATURES)].to_numpy(dtype=float) for c in CLASSES]
    counts = np.array([len(r) for r in rows], dtype=float)
    means = np.array([r.mean(axis=0) for r in rows])
    variances = np.array([r.var(axis=0) for r in rows])  # ddof=0: the 1/N_c estimate
    if shared:
        pooled = (counts[:, None] * variances).sum(axis=0) / counts.sum()
        variances = np.tile(pooled, (len(CLASSES), 1))
    return {"counts": counts, "means": means, "variances": variances}


def log_joint(points, means, variances, priors):
    """Joint log scores b_c = log pi_c + sum_d log N(x_d; mu_cd, sigma^2_cd), from nbcore.

    ``points`` (n_samples, n_features), ``means`` and ``variances`` (n_classes, n_features),
    ``priors`` (n_classes,); returns an ndarray of shape (n_samples, n_classes).
    """
    x = np.atleast_2d(np.asarray(points, dtype=float))
    mu, var, pi = (np.asarray(a, dtype=float) for a in (means, variances, priors))
    if mu.shape != var.shape or mu.ndim != 2 or x.shape[1] != mu.shape[1] or np.any(var <= 0):
        raise ValueError(
            "points (n_samples, n_features), means and variances (n_classes, n_features), "
            f"variances > 0; got shapes {x.shape}, {mu.shape}, {var.shape}"
        )
    if pi.shape != (mu.shape[0],) or np.any(pi <= 0):
        raise ValueError(f"priors must be {mu.shape[0]} positive numbers, got {pi.tolist()}")
    return np.log(pi) + gaussian_log_density(x, mu, var)


def posterior_m(points, means, variances, priors):
    """P(y = m | x) for each point, shape (n_samples,), normalised in log space."""
    b = log_joint(points, means, variances, priors)
    return np.exp(b[:, 0] - logsumexp(b, axis=1))


def boundary_weights(heights, means, variances, priors):
    """The weights w at which P(m | h, w) = 1/2, for each height h: the decision boundary.

    The log-odds r(h, w) = b_m - b_f is a function of h plus a quadratic in w,
    a w^2 + b w + c with a = (1/sigma^2_fw - 1/sigma^2_mw) / 2 and b = mu_mw / sigma^2_mw -
    mu_fw / sigma^2_fw; c = r(h, 0) comes from :func:`log_joint`. Each height has at most two
    boundary weights; with equal weight variances a = 0 and the one root is -c / b.

    ``heights`` (n_heights,); ``means``, ``variances`` (2, 2) and ``priors`` (2,) as in
    :func:`log_joint`. Returns (n_heights, 2): the smaller and the larger root, NaN where
    there is none (and in the second column when the boundary is linear in w).
    """
    h = np.asarray(heights, dtype=float).ravel()
    mu, var = np.asarray(means, dtype=float), np.asarray(variances, dtype=float)
    r0 = log_joint(np.column_stack([h, np.zeros_like(h)]), mu, var, priors)
    c = r0[:, 0] - r0[:, 1]
    (mu_mw, mu_fw), (s_mw, s_fw) = mu[:, 1], var[:, 1]
    a = 0.5 * (1.0 / s_fw - 1.0 / s_mw)
    b = mu_mw / s_mw - mu_fw / s_fw
    roots = np.full((h.size, 2), np.nan)
    if math.isclose(a, 0.0, abs_tol=1e-15 * (1.0 / s_fw + 1.0 / s_mw)):
        if b != 0.0:
            roots[:, 0] = -c / b
        return roots
    disc = b * b - 4.0 * a * c
    ok = disc >= 0
    sq = np.sqrt(np.where(ok, disc, 0.0))
    r1, r2 = (-b - sq) / (2.0 * a), (-b + sq) / (2.0 * a)
    roots[ok] = np.sort(np.column_stack([r1, r2]), axis=1)[ok]
    return roots


def posterior_grid(prior_m=0.5, shared_variance=False, *, heights=None, weights=None, data=None):
    """P(m | x) on a grid of heights and weights, and the decision boundary.

    ``prior_m`` in (0, 1) is pi_m; ``shared_variance`` as in :func:`class_parameters`;
    ``heights`` and ``weights`` give the grid (default 40 to 85 in, 60 to 240 lb).

    Returns
    -------
    dict
        ``"heights"`` (n_h,), ``"weights"`` (n_w,), ``"posterior"`` (n_w, n_h), P(m | h, w);
        ``"boundary"`` (n_h, 2) from :func:`boundary_weights`; ``"linear"``; ``"parameters"``;
        ``"priors"`` (2,); ``"test_posterior"`` (3,), P(m | x) at :data:`TEST_POINTS`;
        ``"prior_m"`` and ``"shared_variance"``.
    """
    prior_m = _prior(prior_m)
    shared = check_bool("shared_variance", shared_variance)
    h = _grid(HEIGHTS if heights is None else heights, "heights")
    w = _grid(WEIGHTS if weights is None else weights, "weights")
    params = class_parameters(data, shared_variance=shared)
    mu, var = params["means"], params["variances"]
    priors = np.array([prior_m, 1.0 - prior_m])
    hh, ww = np.meshgrid(h, w)
    post = posterior_m(np.column_stack([hh.ravel(), ww.ravel()]), mu, var, priors)
    state = dict(heights=h, weights=w, posterior=post.reshape(hh.shape), parameters=params)
    state.update(prior_m=prior_m, shared_variance=shared, priors=priors)
    state["boundary"] = boundary_weights(h, mu, var, priors)
    state["linear"] = bool(np.allclose(var[0], var[1], rtol=1e-12))
    state["test_posterior"] = posterior_m(TEST_POINTS, mu, var, priors)
    return state


def draw_boundary(ax, state, data=None, *, points=True, test_points=True):
    """Draw one :func:`posterior_grid` result on an Axes: regions, boundary, records, tests."""
    cmap = ListedColormap([class_style(1)["color"], class_style(0)["color"]])
    h, w, post = state["heights"], state["weights"], state["posterior"]
    ax.contourf(h, w, post, levels=[0.0, 0.5, 1.0], cmap=cmap, alpha=0.18)
    ax.contour(h, w, post, levels=[0.5], colors="black")
    if points:
        data = _data(data)
        for j, c in enumerate(CLASSES):
            style, rows = class_style(j), data[data["sex"] == c]
            dots = dict(color=style["color"], marker=style["marker"], edgecolor="black", s=40)
            ax.scatter(rows["height"], rows["weight"], zorder=3, label=f"training, {c}", **dots)
    if test_points:
        x, y = TEST_POINTS.T
        ax.scatter(x, y, color="black", marker="X", s=45, zorder=3, label="test points")
    ax.set_xlim(h[0], h[-1])
    ax.set_ylim(w[0], w[-1])
    ax.grid(False)


def boundary_small_multiples(priors=(0.3, 0.5, 0.7), *, data=None):
    """The explorer's static twin, a Figure: per-class and shared variance by prior of m."""
    priors = [_prior(p) for p in np.atleast_1d(priors).tolist()]
    if not priors:
        raise ValueError("priors must hold at least one value")
    data = _data(data)
    fig, axes = new_figure(2, len(priors), figsize=(2.6 * len(priors) + 0.6, 5.6), sharey=True)
    for i, shared in enumerate((False, True)):
        for j, p in enumerate(priors):
            draw_boundary(axes[i, j], posterior_grid(p, shared, data=data), data)
            kind = "shared variance" if shared else "per-class variances"
            axes[i, j].set_title(f"{kind}\n$\\pi_m$ = {p:.2f}", fontsize=9)
            axes[i, j].set(xlabel="height (in)" if i else "", ylabel="" if j else "weight (lb)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    return fig


def height_weight_panel(prior_m, shared_variance, data=None):
    """The explorer's panel at one setting: the boundary figure and the test points, as HTML."""
    state = posterior_grid(prior_m, shared_variance, data=data)
    fig, axes = new_figure(1, 1, figsize=(5.0, 3.8))
    draw_boundary(axes[0, 0], state, data)
    axes[0, 0].set(xlabel="height (in)", ylabel="weight (lb)")
    axes[0, 0].legend(loc="upper left", fontsize=8)
    alt = (
        "The six training people as markers on height and weight, the three test points, "
        f"and the naive Bayes decision boundary for a prior of m of {state['prior_m']:.2f} "
        f"with {'a shared variance' if state['shared_variance'] else 'per-class variances'}."
    )
    kind = "one variance per feature, shared" if state["shared_variance"] else "per class"
    shape = "a straight line" if state["linear"] else "a curve (quadratic)"
    rows = "".join(
        f"<tr><td>({h:g}, {w:g})</td><td style='font-family:monospace'>{p:.4f}</td>"
        f"<td>{'m' if p > 0.5 else 'f'}</td></tr>"
        for (h, w), p in zip(TEST_POINTS, state["test_posterior"], strict=True)
    )
    return figure_html(fig, alt) + (
        f"<div><p>prior of m = {state['prior_m']:.2f}; variances: {html.escape(kind)}; "
        f"the boundary is {shape}.</p>"
        "<table><tr><th>(height, weight)</th><th>P(m | x)</th><th>prediction</th></tr>"
        f"{rows}</table></div>"
    )


#: The explorer's controls: the prior of "m" and the variance model.
CONTROLS = (
    Slider("prior_m", "prior of m", 0.01, 0.99, 0.01),
    Toggle("shared_variance", "variances", off="per-class variances", on="shared variance"),
)


def height_weight_explorer(prior_m=0.5, shared_variance=False, *, data=None):
    """A slider for pi_m (0.01 to 0.99) and a toggle for shared variances over
    :func:`height_weight_panel`; ``data`` as in :func:`class_parameters`. Returns a VBox."""
    show = partial(height_weight_panel, data=_data(data))
    return explorer(CONTROLS, show, prior_m=prior_m, shared_variance=shared_variance)
