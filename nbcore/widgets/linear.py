"""The linear-classifier chapter: naive Bayes written as W x + b, and its Gaussian explorer.

For multinomial, Bernoulli and complement naive Bayes the joint log score of every class is
an affine function of the features, b_c = W[c] . x + b[c], so the posterior is a softmax of
affine scores and, with two classes, the logistic sigmoid of one affine score.
:func:`linear_form` reads W and b off a fitted model.

Gaussian naive Bayes on two features is the explorer: with one variance per feature shared by
both classes the log-odds is affine and the boundary a straight line; with a variance per
class a squared term stays and the boundary curves. As in every explorer, pure functions
(:func:`gaussian_log_odds_form`, :func:`explorer_state`) compute what is shown and are tested
directly; :func:`linear_explorer` wires sliders to them and :func:`explorer_small_multiples`
is the static twin for the HTML book.
"""

import html
import math

import numpy as np

from nbcore._validation import check_bool, check_real
from nbcore.numerics import logsumexp
from nbcore.plotting import class_style, figure_html, new_figure

__all__ = [
    "MEAN_0",
    "linear_form",
    "binary_form",
    "softmax_proba",
    "shared_variance_form",
    "gaussian_log_odds_form",
    "gaussian_log_odds",
    "explorer_state",
    "draw_state",
    "explorer_small_multiples",
    "explorer_html",
    "linear_explorer",
]

#: Mean of class 0 in the explorer (fixed); the sliders move class 1.
MEAN_0 = np.array([0.0, 0.0])

# The explorer's plotted window and grid, and its slider ranges.
_LIMITS = (-4.0, 6.0)
_GRID = np.linspace(*_LIMITS, 161)
_T = np.linspace(-1.0, 2.0, 121)  # position along the line from mu_0 (t = 0) to mu_1 (t = 1)
MEAN_RANGE = (-2.0, 4.0)
SIGMA_RANGE = (0.3, 3.0)
PRIOR_RANGE = (0.05, 0.95)


# --------------------------------------------------------------------------- linear form


def linear_form(model):
    """The weights W and biases b with which a fitted discrete naive Bayes model is linear.

    For every class c the joint log score is b_c(x) = W[c] . x + b[c], so
    ``predict_proba(X)`` equals the softmax of ``X @ W.T + b`` along the classes.

    * MultinomialNB: W[c, d] = log theta_cd and b[c] = log pi_c (the multinomial
      coefficient is the same for every class and cancels in the softmax).
    * BernoulliNB: the absent-word factors (1 - theta_cd) ** (1 - x_d) fold into the bias,
      W[c, d] = log theta_cd - log(1 - theta_cd) and
      b[c] = log pi_c + sum_d log(1 - theta_cd). W acts on the binarised x (x_d > binarize).
    * ComplementNB: W = feature_log_prob_ (the complement weights) and b = 0, because
      ComplementNB leaves the prior out of its scores (except when it saw one class only).

    Parameters
    ----------
    model : fitted nbcore.MultinomialNB, nbcore.BernoulliNB or nbcore.ComplementNB

    Returns
    -------
    W : ndarray of shape (n_classes, n_features)
    b : ndarray of shape (n_classes,)

    Notes
    -----
    Derived in chapter 9. A smoothing of alpha = 0 can leave theta_cd = 0 or 1, whose
    logarithms are infinite: such a model has no finite linear form and is refused.
    """
    from nbcore import BernoulliNB, ComplementNB, MultinomialNB

    if not isinstance(model, (MultinomialNB, BernoulliNB, ComplementNB)):
        raise TypeError(
            "model must be a fitted nbcore MultinomialNB, BernoulliNB or ComplementNB, "
            f"got {type(model).__name__}"
        )
    if not hasattr(model, "feature_log_prob_"):
        raise ValueError(f"model must be fitted first: call {type(model).__name__}.fit(X, y)")
    log_theta = np.asarray(model.feature_log_prob_, dtype=float)
    log_prior = np.asarray(model.class_log_prior_, dtype=float)
    if isinstance(model, ComplementNB):
        W = log_theta.copy()
        b = log_prior.copy() if len(model.classes_) == 1 else np.zeros(len(model.classes_))
    elif isinstance(model, BernoulliNB):
        with np.errstate(divide="ignore"):
            log_not_theta = np.log1p(-np.exp(log_theta))  # log(1 - theta_cd)
        W = log_theta - log_not_theta  # log odds of the word being present
        b = log_prior + log_not_theta.sum(axis=1)  # every word absent: prod_d (1 - theta_cd)
    else:
        W, b = log_theta.copy(), log_prior.copy()
    if not (np.all(np.isfinite(W)) and np.all(np.isfinite(b))):
        raise ValueError(
            "model has probabilities of exactly 0 or 1 (alpha = 0 with a zero count), so its "
            "weights are infinite and it has no linear form; fit it with alpha > 0"
        )
    return W, b


def binary_form(W, b):
    """The two-class form: P(y = classes_[1] | x) = sigmoid(w . x + b0).

    Parameters
    ----------
    W : array-like of shape (2, n_features)
    b : array-like of shape (2,)

    Returns
    -------
    w : ndarray of shape (n_features,)
        ``W[1] - W[0]``: class 1's weights minus class 0's (this order; the other order
        gives sigmoid(-u), the probability of class 0).
    b0 : float
        ``b[1] - b[0]``.
    """
    W, b = np.asarray(W, dtype=float), np.asarray(b, dtype=float)
    if W.ndim != 2 or W.shape[0] != 2 or b.shape != (2,):
        raise ValueError(
            f"W must have shape (2, n_features) and b shape (2,), got {W.shape} and {b.shape}"
        )
    return W[1] - W[0], float(b[1] - b[0])


def softmax_proba(X, W, b):
    """Softmax of the affine scores X @ W.T + b, normalised in log space.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    W : array-like of shape (n_classes, n_features)
    b : array-like of shape (n_classes,)

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        Rows sum to 1.
    """
    X, W, b = (np.asarray(a, dtype=float) for a in (X, W, b))
    if X.ndim != 2 or W.ndim != 2 or X.shape[1] != W.shape[1] or b.shape != (W.shape[0],):
        raise ValueError(
            "X, W and b must have shapes (n_samples, n_features), (n_classes, n_features) and "
            f"(n_classes,), got {X.shape}, {W.shape} and {b.shape}"
        )
    scores = X @ W.T + b
    return np.exp(scores - logsumexp(scores, axis=1, keepdims=True))


# --------------------------------------------------------------------------- Gaussian case


def _as_positive(values, name):
    values = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"{name} must be finite and > 0, got {values}")
    return values


def _as_priors(priors, n_classes):
    priors = np.asarray(priors, dtype=float)
    if priors.shape != (n_classes,):
        raise ValueError(f"priors must have shape ({n_classes},), got {priors.shape}")
    if np.any(priors <= 0) or not math.isclose(priors.sum(), 1.0, rel_tol=1e-9):
        raise ValueError(f"priors must be > 0 and sum to 1, got {priors}")
    return priors


def shared_variance_form(means, variances, priors):
    """W and b of Gaussian naive Bayes whose variances are shared by all classes.

    With sigma^2_d the same in every class, log p(x, y = c) is
    log pi_c - sum_d (x_d - mu_cd)^2 / (2 sigma^2_d) + (terms without c); expanding the
    square, x_d^2 / (2 sigma^2_d) is also the same for every class and cancels in the
    softmax, which leaves W[c, d] = mu_cd / sigma^2_d and
    b[c] = log pi_c - sum_d mu_cd^2 / (2 sigma^2_d).

    Parameters
    ----------
    means : array-like of shape (n_classes, n_features)
        mu_cd (``GaussianNB.theta_``).
    variances : array-like of shape (n_features,)
        sigma^2_d, one per feature.
    priors : array-like of shape (n_classes,)

    Returns
    -------
    W : ndarray of shape (n_classes, n_features)
    b : ndarray of shape (n_classes,)
    """
    means = np.asarray(means, dtype=float)
    if means.ndim != 2:
        raise ValueError(f"means must have shape (n_classes, n_features), got {means.shape}")
    variances = _as_positive(variances, "variances")
    if variances.shape != (means.shape[1],):
        raise ValueError(
            f"variances must have shape ({means.shape[1]},), one per feature, got {variances.shape}"
        )
    priors = _as_priors(priors, means.shape[0])
    W = means / variances
    b = np.log(priors) - (means**2 / (2 * variances)).sum(axis=1)
    return W, b


def gaussian_log_odds_form(means, variances, priors):
    """Coefficients of the two-class Gaussian log-odds log P(1 | x) / P(0 | x).

    log-odds(x) = sum_d a_d x_d^2 + sum_d w_d x_d + b0, with
    a_d = 1 / (2 sigma^2_0d) - 1 / (2 sigma^2_1d), w_d = mu_1d / sigma^2_1d - mu_0d / sigma^2_0d
    and b0 = log(pi_1 / pi_0) + sum_d [mu_0d^2 / (2 sigma^2_0d) - mu_1d^2 / (2 sigma^2_1d)
    - log(sigma_1d / sigma_0d)]. The quadratic coefficients a are all zero exactly when
    every feature's variance is the same in both classes: then the boundary is linear.

    Parameters
    ----------
    means, variances : array-like of shape (2, n_features)
    priors : array-like of shape (2,)

    Returns
    -------
    dict
        ``"a"``, ``"w"`` (ndarrays of shape (n_features,)) and ``"b"`` (float).
    """
    means = np.asarray(means, dtype=float)
    variances = _as_positive(variances, "variances")
    if means.ndim != 2 or means.shape[0] != 2 or variances.shape != means.shape:
        raise ValueError(
            "means and variances must both have shape (2, n_features), "
            f"got {means.shape} and {variances.shape}"
        )
    priors = _as_priors(priors, 2)
    (m0, m1), (v0, v1) = means, variances
    a = 1 / (2 * v0) - 1 / (2 * v1)
    w = m1 / v1 - m0 / v0
    b = math.log(priors[1] / priors[0]) + float(
        np.sum(m0**2 / (2 * v0) - m1**2 / (2 * v1) - 0.5 * np.log(v1 / v0))
    )
    return {"a": a, "w": w, "b": b}


def gaussian_log_odds(points, means, variances, priors):
    """log P(1 | x) - log P(0 | x) of two-class Gaussian naive Bayes, from the log densities.

    Parameters
    ----------
    points : array-like of shape (n_points, n_features)
    means, variances : array-like of shape (2, n_features)
    priors : array-like of shape (2,)

    Returns
    -------
    ndarray of shape (n_points,)
    """
    points = np.asarray(points, dtype=float)
    means = np.asarray(means, dtype=float)
    variances = _as_positive(variances, "variances")
    priors = _as_priors(priors, 2)
    # log pi_c + sum_d log N(x_d; mu_cd, sigma^2_cd), for c = 0, 1
    log_joint = np.log(priors) + np.stack(
        [
            -0.5 * np.sum(np.log(2 * np.pi * v) + (points - m) ** 2 / v, axis=1)
            for m, v in zip(means, variances, strict=True)
        ],
        axis=1,
    )
    return log_joint[:, 1] - log_joint[:, 0]


def _check_pair(values, name, low, high):
    values = np.asarray(values, dtype=float)
    if values.shape != (2,) or not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be two finite numbers, got {values}")
    if np.any(values < low) or np.any(values > high):
        raise ValueError(f"{name} must lie in [{low}, {high}], got {values}")
    return values


def explorer_state(
    mean_1=(2.0, 1.0), sigma_0=(1.0, 1.0), sigma_1=(1.5, 0.7), prior_1=0.5, shared=False
):
    """Everything the explorer shows for one setting of its sliders.

    Class 0 has mean :data:`MEAN_0` = (0, 0) and standard deviations ``sigma_0``; class 1
    has mean ``mean_1`` and standard deviations ``sigma_1``. With ``shared=True`` both
    classes use the pooled variance (sigma^2_0d + sigma^2_1d) / 2 of each feature.

    Parameters
    ----------
    mean_1 : pair of float in [-2, 4]
    sigma_0, sigma_1 : pair of float in [0.3, 3]
    prior_1 : float in [0.05, 0.95]
        pi_1; pi_0 = 1 - pi_1.
    shared : bool

    Returns
    -------
    dict
        ``grid`` (the axis values), ``posterior`` (P(1 | x) on the grid, shape (n, n), rows
        along the second feature), ``form`` (:func:`gaussian_log_odds_form`), ``linear``
        (True when every quadratic coefficient is 0), ``t`` and ``profile`` (P(1 | x) at
        x = mu_0 + t (mu_1 - mu_0)), ``means``, ``variances``, ``priors``, ``shared``.
    """
    mean_1 = _check_pair(mean_1, "mean_1", *MEAN_RANGE)
    sigma_0 = _check_pair(sigma_0, "sigma_0", *SIGMA_RANGE)
    sigma_1 = _check_pair(sigma_1, "sigma_1", *SIGMA_RANGE)
    prior_1 = check_real("prior_1", prior_1, *PRIOR_RANGE)
    shared = check_bool("shared", shared)
    means = np.stack([MEAN_0, mean_1])
    variances = np.stack([sigma_0**2, sigma_1**2])
    if shared:
        variances = np.repeat(variances.mean(axis=0, keepdims=True), 2, axis=0)
    priors = np.array([1.0 - prior_1, prior_1])
    form = gaussian_log_odds_form(means, variances, priors)
    gx, gy = np.meshgrid(_GRID, _GRID)
    grid_points = np.column_stack([gx.ravel(), gy.ravel()])
    log_odds = gaussian_log_odds(grid_points, means, variances, priors)
    posterior = (1 / (1 + np.exp(-log_odds))).reshape(gx.shape)
    line = MEAN_0 + _T[:, None] * (mean_1 - MEAN_0)
    profile = 1 / (1 + np.exp(-gaussian_log_odds(line, means, variances, priors)))
    return {
        "grid": _GRID,
        "posterior": posterior,
        "form": form,
        "linear": bool(np.all(form["a"] == 0)),
        "t": _T,
        "profile": profile,
        "means": means,
        "variances": variances,
        "priors": priors,
        "shared": shared,
    }


def _draw_plane(ax, state):
    import matplotlib.colors as mcolors

    c0, c1 = class_style(0), class_style(1)
    grid = state["grid"]
    ax.contourf(
        grid,
        grid,
        state["posterior"],
        levels=[0.0, 0.5, 1.0],
        cmap=mcolors.ListedColormap([c0["color"], c1["color"]]),
        alpha=0.2,
    )
    ax.contour(grid, grid, state["posterior"], levels=[0.5], colors="black")
    means = state["means"]
    ax.plot(means[:, 0], means[:, 1], color="grey", linestyle="--", marker="", zorder=2)
    for c, style in enumerate((c0, c1)):
        ax.scatter(
            *means[c],
            color=style["color"],
            marker=style["marker"],
            edgecolor="black",
            s=60,
            zorder=3,
            label=f"mean of class {c}",
        )
    ax.set_xlim(grid[0], grid[-1])
    ax.set_ylim(grid[0], grid[-1])
    ax.set_aspect("equal")
    ax.grid(False)


def _draw_profile(ax, state):
    t, profile = state["t"], state["profile"]
    ax.plot(t, profile, color="black", marker="", label="P(class 1 | x)")
    if state["linear"]:
        # the affine log-odds restricted to the line is slope * t + intercept: a logistic curve
        form, means = state["form"], state["means"]
        slope = float(form["w"] @ (means[1] - means[0]))
        intercept = float(form["w"] @ means[0] + form["b"])
        every = slice(None, None, 10)
        ax.plot(
            t[every],
            1 / (1 + np.exp(-(slope * t[every] + intercept))),
            linestyle="",
            marker=class_style(2)["marker"],
            color=class_style(2)["color"],
            label="sigmoid(w.x + b)",
        )
    ax.axhline(0.5, color="grey", linestyle=":", marker="")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("t  (x = mean 0 + t (mean 1 - mean 0))")
    ax.set_ylabel("P(class 1 | x)")


def draw_state(state):
    """The explorer's picture of one setting: the plane with the boundary, and the profile.

    Returns
    -------
    Figure
        Left: the regions where each class wins, the boundary P(1 | x) = 1/2 (black) and the
        two means joined by a dashed line. Right: P(1 | x) along that line; with shared
        variances the values of sigmoid(w . x + b) are marked on it.
    """
    fig, axes = new_figure(1, 2, figsize=(8.4, 3.6))
    _draw_plane(axes[0, 0], state)
    axes[0, 0].set_xlabel("$x_1$")
    axes[0, 0].set_ylabel("$x_2$")
    axes[0, 0].legend(loc="upper left", fontsize=8)
    _draw_profile(axes[0, 1], state)
    axes[0, 1].legend(loc="upper left", fontsize=8)
    return fig


def explorer_small_multiples(sigmas_1=((1.0, 1.0), (1.5, 0.7), (2.5, 0.5)), *, mean_1=(2.0, 1.0)):
    """The explorer's static twin: boundaries with per-class and with shared variances.

    Parameters
    ----------
    sigmas_1 : sequence of pairs of float
        Standard deviations of class 1, one column each (class 0 keeps (1, 1)).
    mean_1 : pair of float
        Mean of class 1.

    Returns
    -------
    Figure
        Top row per-class variances, bottom row shared (pooled) variances.
    """
    sigmas_1 = [tuple(s) for s in sigmas_1]
    if not sigmas_1:
        raise ValueError("sigmas_1 must hold at least one pair of standard deviations")
    n = len(sigmas_1)
    fig, axes = new_figure(2, n, figsize=(2.7 * n + 0.4, 5.9), sharey=True)
    for i, shared in enumerate((False, True)):
        for j, s1 in enumerate(sigmas_1):
            state = explorer_state(mean_1=mean_1, sigma_1=s1, shared=shared)
            ax = axes[i, j]
            _draw_plane(ax, state)
            kind = "shared variances" if shared else "per-class variances"
            ax.set_title(f"{kind}\n$\\sigma_1$ = ({s1[0]:g}, {s1[1]:g})", fontsize=9)
            if i == 1:
                ax.set_xlabel("$x_1$")
            if j == 0:
                ax.set_ylabel("$x_2$")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    return fig


def explorer_html(state):
    """HTML summary of one setting: the coefficients of the log-odds and the boundary's shape.

    Returns
    -------
    str
        An HTML fragment (no scripts, no external resources).
    """
    form = state["form"]

    def vec(v):
        return "(" + ", ".join(f"{x:+.3f}" for x in v) + ")"

    shape = "a straight line" if state["linear"] else "a curve (quadratic)"
    kind = "shared (pooled) variances" if state["shared"] else "per-class variances"
    return (
        f"<div><p>{html.escape(kind)}: the boundary is <b>{shape}</b>.</p>"
        "<p style='font-family:monospace'>log-odds = a . x^2 + w . x + b with<br>"
        f"a = {vec(form['a'])}<br>w = {vec(form['w'])}<br>b = {form['b']:+.3f}</p></div>"
    )


def linear_explorer(mean_1=(2.0, 1.0), sigma_1=(1.5, 0.7), prior_1=0.5, shared=False):
    """Sliders for class 1's mean, spreads and prior and a toggle for shared variances.

    Parameters
    ----------
    mean_1, sigma_1, prior_1, shared
        Starting values, as in :func:`explorer_state` (class 0 keeps mean (0, 0) and
        standard deviations (1, 1)).

    Returns
    -------
    ipywidgets.VBox
        The controls, the picture (:func:`draw_state`) and the coefficients
        (:func:`explorer_html`).
    """
    import ipywidgets as w

    explorer_state(mean_1, (1.0, 1.0), sigma_1, prior_1, shared)  # validate the start
    style = {"description_width": "9em"}
    layout = w.Layout(width="28em")

    def slider(value, bounds, description):
        return w.FloatSlider(
            value=round(float(value), 1),
            min=bounds[0],
            max=bounds[1],
            step=0.05 if bounds == PRIOR_RANGE else 0.1,
            description=description,
            readout_format=".2f",
            continuous_update=False,
            style=style,
            layout=layout,
        )

    sliders = [
        slider(mean_1[0], MEAN_RANGE, "mean 1, x1"),
        slider(mean_1[1], MEAN_RANGE, "mean 1, x2"),
        slider(sigma_1[0], SIGMA_RANGE, "sd of class 1, x1"),
        slider(sigma_1[1], SIGMA_RANGE, "sd of class 1, x2"),
        slider(prior_1, PRIOR_RANGE, "prior of class 1"),
    ]
    toggle = w.ToggleButtons(
        options=[("per-class variances", False), ("shared variances", True)],
        value=bool(shared),
        description="variances",
        style=style,
    )
    picture, panel = w.HTML(), w.HTML()

    def update(_change=None):
        m1, m2, s1, s2, p = (s.value for s in sliders)
        state = explorer_state((m1, m2), (1.0, 1.0), (s1, s2), p, toggle.value)
        picture.value = figure_html(
            draw_state(state),
            "Two Gaussian classes in the plane with the naive Bayes decision boundary "
            f"({'shared' if toggle.value else 'per-class'} variances, prior of class 1 "
            f"{p:.2f}) and the posterior of class 1 along the line between the means.",
            dpi=72,
        )
        panel.value = explorer_html(state)

    for s in sliders:
        s.observe(update, names="value")
    toggle.observe(update, names="value")
    update()
    return w.VBox([*sliders, toggle, picture, panel])
