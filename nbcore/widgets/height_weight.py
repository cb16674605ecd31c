"""The height/weight chapter's explorer: the class prior and shared or per-class variances.

Gaussian naive Bayes on two features (height in inches, weight in pounds) and two classes
("m" and "f"). With a variance per class and feature the log-odds is quadratic in each
feature, so the decision boundary is curved; with one variance per feature shared by both
classes the squared terms cancel and the boundary is a straight line. The prior only shifts
the log-odds by log(pi_m / pi_f).

As in every explorer, the pure functions (:func:`class_parameters`, :func:`posterior_grid`,
:func:`boundary_weights`, ...) compute what is shown and are tested directly; the thin
:func:`height_weight_explorer` wires a slider and a toggle to them, and
:func:`boundary_small_multiples` is its static twin for the HTML book.
"""

import html
import math

import numpy as np
import pandas as pd

from nbcore._validation import check_bool, check_probability
from nbcore.numerics import logsumexp
from nbcore.plotting import class_style, figure_html, new_figure

__all__ = [
    "CLASSES",
    "FEATURES",
    "TEST_POINTS",
    "class_parameters",
    "log_joint",
    "posterior_m",
    "boundary_weights",
    "posterior_grid",
    "draw_boundary",
    "boundary_small_multiples",
    "explorer_html",
    "height_weight_explorer",
]

#: The classes in drawing order (colour and marker 0 for "m", 1 for "f").
CLASSES = ("m", "f")

#: The two features, in the order of every array's last axis.
FEATURES = ("height", "weight")

#: The three people of the lecture notes' test table, (height, weight).
TEST_POINTS = np.array([[72.0, 180.0], [60.0, 100.0], [68.0, 155.0]])

# The plotted window (inches, pounds) and the explorer's prior slider.
HEIGHTS = np.linspace(40.0, 85.0, 181)
WEIGHTS = np.linspace(60.0, 240.0, 145)
PRIOR_MIN, PRIOR_MAX, PRIOR_STEP = 0.01, 0.99, 0.01


def _data(data):
    if data is None:
        from nbcore.datasets import load_height_weight

        return load_height_weight()
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    missing = [c for c in (*FEATURES, "sex") if c not in data.columns]
    if missing:
        raise ValueError(
            f"data must have columns 'height', 'weight' and 'sex'; missing {missing}, "
            f"got {list(data.columns)}"
        )
    counts = data["sex"].value_counts()
    few = [c for c in CLASSES if counts.get(c, 0) < 2]
    if few:
        raise ValueError(f"data must hold at least two records of each class; too few of {few}")
    return data


def _grid(values, name):
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or values.size < 2 or not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be a 1-D array of at least two finite numbers")
    return values


def class_parameters(data=None, *, shared_variance=False):
    """Class counts, means and maximum-likelihood variances of height and weight.

    mu_cd is the mean of feature d over the N_c records of class c and sigma^2_cd the mean
    squared deviation from it (the 1/N_c estimate). With ``shared_variance=True`` each
    feature gets one variance for both classes, the pooled within-class estimate
    sigma^2_d = sum_c N_c sigma^2_cd / N (each record's squared deviation from its own
    class mean, averaged over all N records).

    Parameters
    ----------
    data : DataFrame, optional
        Columns ``height``, ``weight`` and ``sex`` ("m"/"f"); default
        ``nbcore.datasets.load_height_weight()``.
    shared_variance : bool, default False

    Returns
    -------
    dict
        ``"counts"`` (2,), ``"means"`` (2, 2) and ``"variances"`` (2, 2): rows in the
        order of :data:`CLASSES`, columns in the order of :data:`FEATURES`.
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
    """Joint log scores b_c = log pi_c + sum_d log N(x_d; mu_cd, sigma^2_cd).

    Parameters
    ----------
    points : array-like of shape (n_samples, 2)
    means, variances : array-like of shape (n_classes, 2)
    priors : array-like of shape (n_classes,)

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    x = np.atleast_2d(np.asarray(points, dtype=float))
    mu = np.asarray(means, dtype=float)
    var = np.asarray(variances, dtype=float)
    pi = np.asarray(priors, dtype=float)
    if mu.shape != var.shape or mu.ndim != 2 or x.shape[1] != mu.shape[1]:
        raise ValueError(
            f"points must be (n_samples, {mu.shape[-1]}) and means, variances of one shape "
            f"(n_classes, n_features); got {x.shape}, {mu.shape}, {var.shape}"
        )
    if np.any(var <= 0):
        raise ValueError("variances must all be > 0")
    if pi.shape != (mu.shape[0],) or np.any(pi <= 0):
        raise ValueError(f"priors must be {mu.shape[0]} positive numbers, got {pi.tolist()}")
    z2 = (x[:, None, :] - mu[None, :, :]) ** 2 / var[None, :, :]
    return np.log(pi) - 0.5 * np.sum(np.log(2.0 * np.pi * var)[None] + z2, axis=2)


def posterior_m(points, means, variances, priors):
    """P(y = m | x) for each point, normalised in log space (class "m" is row 0).

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    b = log_joint(points, means, variances, priors)
    return np.exp(b[:, 0] - logsumexp(b, axis=1))


def boundary_weights(heights, means, variances, priors):
    """The weights w at which P(m | h, w) = 1/2, for each height h: the decision boundary.

    The log-odds r(h, w) = b_m - b_f is a sum of a function of h and a quadratic in w,
    a w^2 + b w + c with a = (1/sigma^2_fw - 1/sigma^2_mw) / 2, so each height has at most
    two boundary weights. With equal weight variances a = 0 and the one root is -c / b.

    Parameters
    ----------
    heights : array-like of shape (n_heights,)
    means, variances : array-like of shape (2, 2)
        Rows "m", "f"; columns height, weight.
    priors : array-like of shape (2,)
        pi_m, pi_f.

    Returns
    -------
    ndarray of shape (n_heights, 2)
        The smaller and the larger root, NaN where there is none (and in the second column
        when the boundary is linear in w).
    """
    h = np.asarray(heights, dtype=float).ravel()
    mu = np.asarray(means, dtype=float)
    var = np.asarray(variances, dtype=float)
    pi = np.asarray(priors, dtype=float)
    # the height part and the constants of r, evaluated at w = 0
    r0 = log_joint(np.column_stack([h, np.zeros_like(h)]), mu, var, pi)
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
    roots[ok, 0] = np.minimum(r1, r2)[ok]
    roots[ok, 1] = np.maximum(r1, r2)[ok]
    return roots


def posterior_grid(prior_m=0.5, shared_variance=False, *, heights=None, weights=None, data=None):
    """P(m | x) on a grid of heights and weights, and the decision boundary.

    The pure function behind the explorer: the slider and the toggle call it.

    Parameters
    ----------
    prior_m : float in (0, 1), default 0.5
        pi_m; pi_f = 1 - pi_m.
    shared_variance : bool, default False
        One variance per feature for both classes (linear boundary) instead of one per
        class and feature (quadratic boundary).
    heights, weights : array-like, optional
        The grid (default 40 to 85 inches, 60 to 240 pounds).
    data : DataFrame, optional
        As in :func:`class_parameters`.

    Returns
    -------
    dict
        ``"heights"`` (n_h,), ``"weights"`` (n_w,), ``"posterior"`` (n_w, n_h) with
        P(m | h, w); ``"boundary"`` (n_h, 2) from :func:`boundary_weights`; ``"linear"``
        (whether the boundary is a straight line); ``"parameters"`` (from
        :func:`class_parameters`); ``"priors"`` (2,); ``"test_posterior"`` (3,), P(m | x)
        at :data:`TEST_POINTS`; ``"prior_m"`` and ``"shared_variance"``.
    """
    prior_m = check_probability("prior_m", prior_m, open_low=True, open_high=True)
    shared = check_bool("shared_variance", shared_variance)
    h = _grid(HEIGHTS if heights is None else heights, "heights")
    w = _grid(WEIGHTS if weights is None else weights, "weights")
    params = class_parameters(data, shared_variance=shared)
    priors = np.array([prior_m, 1.0 - prior_m])
    hh, ww = np.meshgrid(h, w)
    points = np.column_stack([hh.ravel(), ww.ravel()])
    post = posterior_m(points, params["means"], params["variances"], priors).reshape(hh.shape)
    boundary = boundary_weights(h, params["means"], params["variances"], priors)
    return {
        "heights": h,
        "weights": w,
        "posterior": post,
        "boundary": boundary,
        "linear": bool(np.allclose(params["variances"][0], params["variances"][1], rtol=1e-12)),
        "parameters": params,
        "priors": priors,
        "test_posterior": posterior_m(TEST_POINTS, params["means"], params["variances"], priors),
        "prior_m": prior_m,
        "shared_variance": shared,
    }


def draw_boundary(ax, state, data=None, *, points=True, test_points=True):
    """Draw one :func:`posterior_grid` result on a matplotlib Axes.

    The region where "m" wins is shaded in the colour of "m", the rest in that of "f"; the
    boundary (the contour P(m | x) = 1/2 of the grid) is a black line; the six training
    records are drawn with their class marker and the test points as black crosses.
    """
    import matplotlib.colors as mcolors

    m_colour, f_colour = class_style(0)["color"], class_style(1)["color"]
    cmap = mcolors.ListedColormap([f_colour, m_colour])
    ax.contourf(
        state["heights"],
        state["weights"],
        state["posterior"],
        levels=[0.0, 0.5, 1.0],
        cmap=cmap,
        alpha=0.18,
    )
    # the boundary as the 1/2 contour of the grid: closed where the region of "f" is an oval
    # (the exact roots are in state["boundary"])
    h = state["heights"]
    ax.contour(h, state["weights"], state["posterior"], levels=[0.5], colors="black")
    if points:
        data = _data(data)
        for j, c in enumerate(CLASSES):
            style = class_style(j)
            rows = data[data["sex"] == c]
            ax.scatter(
                rows["height"],
                rows["weight"],
                color=style["color"],
                marker=style["marker"],
                edgecolor="black",
                s=40,
                zorder=3,
                label=f"training, {c}",
            )
    if test_points:
        ax.scatter(
            TEST_POINTS[:, 0],
            TEST_POINTS[:, 1],
            color="black",
            marker="X",
            s=45,
            zorder=3,
            label="test points",
        )
    ax.set_xlim(h[0], h[-1])
    ax.set_ylim(state["weights"][0], state["weights"][-1])
    ax.grid(False)


def boundary_small_multiples(priors=(0.3, 0.5, 0.7), *, data=None):
    """The explorer's static twin: the boundary for a few priors, per-class and shared.

    Parameters
    ----------
    priors : sequence of float in (0, 1)
        pi_m of each column.
    data : DataFrame, optional

    Returns
    -------
    Figure
        Two rows (per-class variances, shared variance) by ``len(priors)`` columns.
    """
    priors = [
        check_probability("prior_m", p, open_low=True, open_high=True)
        for p in np.atleast_1d(priors).tolist()
    ]
    if not priors:
        raise ValueError("priors must hold at least one value")
    data = _data(data)
    fig, axes = new_figure(2, len(priors), figsize=(2.6 * len(priors) + 0.6, 5.6), sharey=True)
    for i, shared in enumerate((False, True)):
        for j, p in enumerate(priors):
            ax = axes[i, j]
            draw_boundary(ax, posterior_grid(p, shared, data=data), data)
            kind = "shared variance" if shared else "per-class variances"
            ax.set_title(f"{kind}\n$\\pi_m$ = {p:.2f}", fontsize=9)
            if i == 1:
                ax.set_xlabel("height (in)")
            if j == 0:
                ax.set_ylabel("weight (lb)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    return fig


def explorer_html(state):
    """HTML summary of one explorer setting: the posteriors of the three test points.

    Parameters
    ----------
    state : dict
        The result of :func:`posterior_grid`.

    Returns
    -------
    str
        An HTML fragment (no scripts, no external resources).
    """
    kind = "one variance per feature, shared" if state["shared_variance"] else "per class"
    shape = "a straight line" if state["linear"] else "a curve (quadratic)"
    rows = "".join(
        f"<tr><td>({h:g}, {w:g})</td><td style='font-family:monospace'>{p:.4f}</td>"
        f"<td>{'m' if p > 0.5 else 'f'}</td></tr>"
        for (h, w), p in zip(TEST_POINTS, state["test_posterior"], strict=True)
    )
    return (
        f"<div><p>prior of m = {state['prior_m']:.2f}; variances: {html.escape(kind)}; "
        f"the boundary is {shape}.</p>"
        "<table><tr><th>(height, weight)</th><th>P(m | x)</th><th>prediction</th></tr>"
        f"{rows}</table></div>"
    )


def _figure(state, data):
    fig, axes = new_figure(1, 1, figsize=(5.0, 3.8))
    ax = axes[0, 0]
    draw_boundary(ax, state, data)
    ax.set_xlabel("height (in)")
    ax.set_ylabel("weight (lb)")
    ax.legend(loc="upper left", fontsize=8)
    return fig


def height_weight_explorer(prior_m=0.5, shared_variance=False, *, data=None):
    """A slider for pi_m and a toggle for shared variances, showing the decision boundary.

    Parameters
    ----------
    prior_m : float, default 0.5
        Starting value of the prior slider (0.01 to 0.99, rounded to a step of 0.01).
    shared_variance : bool, default False
        Starting position of the toggle.
    data : DataFrame, optional
        As in :func:`class_parameters`.

    Returns
    -------
    ipywidgets.VBox
        The slider, the toggle, the picture and a table of the test points' posteriors.
    """
    import ipywidgets as w

    prior_m = check_probability("prior_m", prior_m, open_low=True, open_high=True)
    prior_m = min(max(round(prior_m, 2), PRIOR_MIN), PRIOR_MAX)
    shared = check_bool("shared_variance", shared_variance)
    data = _data(data)
    style = {"description_width": "9em"}
    prior_slider = w.FloatSlider(
        value=prior_m,
        min=PRIOR_MIN,
        max=PRIOR_MAX,
        step=PRIOR_STEP,
        description="prior of m",
        readout_format=".2f",
        continuous_update=False,
        style=style,
        layout=w.Layout(width="30em"),
    )
    toggle = w.ToggleButtons(
        options=[("per-class variances", False), ("shared variance", True)],
        value=shared,
        description="variances",
        style=style,
    )
    picture = w.HTML()
    panel = w.HTML()

    def update(_change=None):
        state = posterior_grid(prior_slider.value, toggle.value, data=data)
        picture.value = figure_html(
            _figure(state, data),
            "The six training people as markers on height and weight, the three test points, "
            f"and the naive Bayes decision boundary for a prior of m of {prior_slider.value:.2f} "
            f"with {'a shared variance' if toggle.value else 'per-class variances'}.",
        )
        panel.value = explorer_html(state)

    prior_slider.observe(update, names="value")
    toggle.observe(update, names="value")
    update()
    return w.VBox([prior_slider, toggle, picture, panel])
