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
from matplotlib.colors import ListedColormap

from nbcore._validation import check_bool, check_real
from nbcore.numerics import gaussian_log_density, logsumexp
from nbcore.plotting import class_style, figure_html, new_figure
from nbcore.widgets._explorer import Slider, Toggle, explorer

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
    "CONTROLS",
    "linear_panel",
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

    With sigma^2_d the same in every class, x_d^2 / (2 sigma^2_d) is the same for every class
    and cancels in the softmax, which leaves W[c, d] = mu_cd / sigma^2_d and
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
    return means / variances, np.log(priors) - (means**2 / (2 * variances)).sum(axis=1)


def gaussian_log_odds_form(means, variances, priors):
    """Coefficients of the two-class Gaussian log-odds log P(1 | x) / P(0 | x).

    log-odds(x) = sum_d a_d x_d^2 + sum_d w_d x_d + b0, with
    a_d = 1 / (2 sigma^2_0d) - 1 / (2 sigma^2_1d), w_d = mu_1d / sigma^2_1d - mu_0d / sigma^2_0d
    and b0 = log(pi_1 / pi_0) + sum_d [mu_0d^2 / (2 sigma^2_0d) - mu_1d^2 / (2 sigma^2_1d)
    - log(sigma_1d / sigma_0d)]. All a_d are zero exactly when every feature's variance is
    the same in both classes: then the boundary is linear. It agrees with
    :func:`gaussian_log_odds`, which nbcore computes.

    Parameters
    ----------
    means, variances : array-like of shape (2, n_features)
    priors : array-like of shape (2,)

    Returns
    -------
    dict
        ``"a"``, ``"w"`` (ndarrays of shape (n_features,)) and ``"b"`` (float).
    """
    means, variances, priors = _gaussian_parameters(means, variances, priors)
    (m0, m1), (v0, v1) = means, variances
    a = 1 / (2 * v0) - 1 / (2 * v1)
    w = m1 / v1 - m0 / v0
    b = math.log(priors[1] / priors[0]) + float(
        np.sum(m0**2 / (2 * v0) - m1**2 / (2 * v1) - 0.5 * np.log(v1 / v0))
    )
    return {"a": a, "w": w, "b": b}


def _gaussian_parameters(means, variances, priors):
    means, variances = np.asarray(means, dtype=float), _as_positive(variances, "variances")
    if means.ndim != 2 or means.shape[0] != 2 or variances.shape != means.shape:
        raise ValueError(
            "means and variances must both have shape (2, n_features), "
            f"got {means.shape} and {variances.shape}"
        )
    return means, variances, _as_priors(priors, 2)


def gaussian_log_odds(points, means, variances, priors):
    """log P(1 | x) - log P(0 | x) of two-class Gaussian naive Bayes, shape (n_points,).

    The joint log scores are log pi_c plus nbcore's
    :func:`~nbcore.numerics.gaussian_log_density`, the likelihood GaussianNB fits.
    ``points`` has shape (n_points, n_features), the rest as in :func:`gaussian_log_odds_form`.
    """
    means, variances, priors = _gaussian_parameters(means, variances, priors)
    points = np.atleast_2d(np.asarray(points, dtype=float))
    b = np.log(priors) + gaussian_log_density(points, means, variances)
    return b[:, 1] - b[:, 0]


def _pair(name, values, low, high):
    if np.shape(values) != (2,):
        raise ValueError(f"{name} must be two numbers, got {values}")
    return np.array([check_real(name, float(v), low, high) for v in values])


def _sigmoid(u):
    return 1 / (1 + np.exp(-u))


def explorer_state(
    mean_1=(2.0, 1.0), sigma_0=(1.0, 1.0), sigma_1=(1.5, 0.7), prior_1=0.5, shared=False
):
    """Everything the explorer shows for one setting.

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
        The posteriors are the logistic function of :func:`gaussian_log_odds`.
    """
    mean_1 = _pair("mean_1", mean_1, *MEAN_RANGE)
    sigma_0 = _pair("sigma_0", sigma_0, *SIGMA_RANGE)
    sigma_1 = _pair("sigma_1", sigma_1, *SIGMA_RANGE)
    prior_1 = check_real("prior_1", prior_1, *PRIOR_RANGE)
    shared = check_bool("shared", shared)
    means = np.stack([MEAN_0, mean_1])
    variances = np.stack([sigma_0**2, sigma_1**2])
    if shared:
        variances = np.repeat(variances.mean(axis=0, keepdims=True), 2, axis=0)
    priors = np.array([1.0 - prior_1, prior_1])
    form = gaussian_log_odds_form(means, variances, priors)
    gx, gy = np.meshgrid(_GRID, _GRID)
    log_odds = gaussian_log_odds(
        np.column_stack([gx.ravel(), gy.ravel()]), means, variances, priors
    )
    line = MEAN_0 + _T[:, None] * (mean_1 - MEAN_0)
    state = dict(grid=_GRID, t=_T, form=form, linear=bool(np.all(form["a"] == 0)))
    state.update(means=means, variances=variances, priors=priors, shared=shared)
    state["posterior"] = _sigmoid(log_odds).reshape(gx.shape)
    state["profile"] = _sigmoid(gaussian_log_odds(line, means, variances, priors))
    return state


def _draw_plane(ax, state):
    c0, c1 = class_style(0), class_style(1)
    grid, post, means = state["grid"], state["posterior"], state["means"]
    cmap = ListedColormap([c0["color"], c1["color"]])
    ax.contourf(grid, grid, post, levels=[0.0, 0.5, 1.0], cmap=cmap, alpha=0.2)
    ax.contour(grid, grid, post, levels=[0.5], colors="black")
    ax.plot(means[:, 0], means[:, 1], color="grey", linestyle="--", marker="", zorder=2)
    for c, style in enumerate((c0, c1)):
        dots = dict(color=style["color"], marker=style["marker"], edgecolor="black", s=60)
        ax.scatter(*means[c], zorder=3, label=f"mean of class {c}", **dots)
    ax.set(xlim=(grid[0], grid[-1]), ylim=(grid[0], grid[-1]), aspect="equal")
    ax.grid(False)


def _draw_profile(ax, state):
    t, profile = state["t"], state["profile"]
    ax.plot(t, profile, color="black", marker="", label="P(class 1 | x)")
    if state["linear"]:
        # the affine log-odds restricted to the line is slope * t + intercept: a logistic curve
        form, means = state["form"], state["means"]
        slope = float(form["w"] @ (means[1] - means[0]))
        intercept = float(form["w"] @ means[0] + form["b"])
        style, every = class_style(2), slice(None, None, 10)
        marks = _sigmoid(slope * t[every] + intercept)
        ax.plot(t[every], marks, linestyle="", **style, label="sigmoid(w.x + b)")
    ax.axhline(0.5, color="grey", linestyle=":", marker="")
    ax.set(ylim=(-0.03, 1.03), ylabel="P(class 1 | x)")
    ax.set_xlabel("t  (x = mean 0 + t (mean 1 - mean 0))")


def draw_state(state):
    """The explorer's picture of one :func:`explorer_state`, a Figure.

    Left: the regions where each class wins, the boundary P(1 | x) = 1/2 (black) and the
    two means joined by a dashed line. Right: P(1 | x) along that line; with shared
    variances the values of sigmoid(w . x + b) are marked on it.
    """
    fig, axes = new_figure(1, 2, figsize=(8.4, 3.6))
    _draw_plane(axes[0, 0], state)
    axes[0, 0].set(xlabel="$x_1$", ylabel="$x_2$")
    _draw_profile(axes[0, 1], state)
    for ax in axes[0]:
        ax.legend(loc="upper left", fontsize=8)
    return fig


def explorer_small_multiples(sigmas_1=((1.0, 1.0), (1.5, 0.7), (2.5, 0.5)), *, mean_1=(2.0, 1.0)):
    """The explorer's static twin, a Figure: per-class (top) and shared variances (bottom).

    ``sigmas_1`` holds class 1's standard deviations, one pair a column (class 0 keeps
    (1, 1)); ``mean_1`` is class 1's mean.
    """
    sigmas_1 = [tuple(s) for s in sigmas_1]
    if not sigmas_1:
        raise ValueError("sigmas_1 must hold at least one pair of standard deviations")
    n = len(sigmas_1)
    fig, axes = new_figure(2, n, figsize=(2.7 * n + 0.4, 5.9), sharey=True)
    for i, shared in enumerate((False, True)):
        for j, s1 in enumerate(sigmas_1):
            ax = axes[i, j]
            _draw_plane(ax, explorer_state(mean_1=mean_1, sigma_1=s1, shared=shared))
            kind = "shared variances" if shared else "per-class variances"
            ax.set_title(f"{kind}\n$\\sigma_1$ = ({s1[0]:g}, {s1[1]:g})", fontsize=9)
            ax.set(xlabel="$x_1$" if i else "", ylabel="" if j else "$x_2$")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    return fig


def explorer_html(state):
    """HTML of one :func:`explorer_state`: the log-odds coefficients and the boundary's shape."""
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


def linear_panel(mean_1_x1, mean_1_x2, sigma_1_x1, sigma_1_x2, prior_1, shared):
    """The explorer's panel at one setting: :func:`draw_state` and :func:`explorer_html`."""
    state = explorer_state(
        (mean_1_x1, mean_1_x2), (1.0, 1.0), (sigma_1_x1, sigma_1_x2), prior_1, shared
    )
    alt = (
        "Two Gaussian classes in the plane with the naive Bayes decision boundary "
        f"({'shared' if shared else 'per-class'} variances, prior of class 1 "
        f"{prior_1:.2f}) and the posterior of class 1 along the line between the means."
    )
    return figure_html(draw_state(state), alt, dpi=72) + explorer_html(state)


#: The explorer's controls: class 1's mean, standard deviations and prior, and the variances.
CONTROLS = (
    Slider("mean_1_x1", "mean 1, x1", *MEAN_RANGE, 0.1),
    Slider("mean_1_x2", "mean 1, x2", *MEAN_RANGE, 0.1),
    Slider("sigma_1_x1", "sd of class 1, x1", *SIGMA_RANGE, 0.1),
    Slider("sigma_1_x2", "sd of class 1, x2", *SIGMA_RANGE, 0.1),
    Slider("prior_1", "prior of class 1", *PRIOR_RANGE, 0.05),
    Toggle("shared", "variances", off="per-class variances", on="shared variances"),
)


def linear_explorer(mean_1=(2.0, 1.0), sigma_1=(1.5, 0.7), prior_1=0.5, shared=False):
    """Sliders for class 1's mean, spreads and prior and a toggle for shared variances.

    The starting values are as in :func:`explorer_state` (class 0 keeps mean (0, 0) and
    standard deviations (1, 1)); each move redraws :func:`linear_panel`. Returns a VBox.
    """
    (m1, m2), (s1, s2) = (
        _pair("mean_1", mean_1, *MEAN_RANGE),
        _pair("sigma_1", sigma_1, *SIGMA_RANGE),
    )
    start = dict(mean_1_x1=m1, mean_1_x2=m2, sigma_1_x1=s1, sigma_1_x2=s2)
    return explorer(CONTROLS, linear_panel, **start, prior_1=prior_1, shared=shared)
