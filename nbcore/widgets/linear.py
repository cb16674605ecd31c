"""The linear-classifier chapter: naive Bayes written as W x + b, and its Gaussian explorer.

Multinomial, Bernoulli and complement naive Bayes score each class affinely, b_c = W[c] . x +
b[c] (:func:`linear_form`). The explorer is Gaussian naive Bayes on two features: a straight
boundary with shared variances, a curved one with a variance per class; its scores come from
nbcore's :func:`~nbcore.numerics.gaussian_log_density`.
"""

import html
import math

import numpy as np
from matplotlib.colors import ListedColormap

from nbcore import BernoulliNB, ComplementNB, MultinomialNB
from nbcore._validation import check_bool, check_pair, check_real
from nbcore.numerics import gaussian_log_density, logsumexp
from nbcore.plotting import class_style, figure_html, new_figure
from nbcore.widgets._explorer import Slider, Toggle, explorer

__all__ = [
    "MEAN_0",
    "linear_form",
    "binary_form",
    "shared_variance_form",
    "gaussian_log_odds_form",
    "gaussian_log_odds",
    "explorer_state",
    "draw_state",
    "explorer_small_multiples",
    "CONTROLS",
    "linear_panel",
    "linear_explorer",
]

#: Mean of class 0 in the explorer (fixed); the sliders move class 1.
MEAN_0 = np.array([0.0, 0.0])

# The explorer's plotted grid (and its points), the positions t along the line from mu_0
# (t = 0) to mu_1 (t = 1), and the slider ranges.
_GRID, _T = np.linspace(-4.0, 6.0, 161), np.linspace(-1.0, 2.0, 121)
_PLANE = np.column_stack([g.ravel() for g in np.meshgrid(_GRID, _GRID)])
MEAN_RANGE, SIGMA_RANGE, PRIOR_RANGE = (-2.0, 4.0), (0.3, 3.0), (0.05, 0.95)


def linear_form(model):
    """The weights W and biases b with which a fitted discrete naive Bayes model is linear.

    ``model`` is a fitted nbcore MultinomialNB, BernoulliNB or ComplementNB; W has shape
    (n_classes, n_features), b (n_classes,) and ``predict_proba(X)`` is softmax(X @ W.T + b).

    * MultinomialNB: W[c, d] = log theta_cd and b[c] = log pi_c (the multinomial
      coefficient is the same for every class and cancels in the softmax).
    * BernoulliNB: the absent-word factors (1 - theta_cd) ** (1 - x_d) fold into the bias,
      W[c, d] = log theta_cd - log(1 - theta_cd) and
      b[c] = log pi_c + sum_d log(1 - theta_cd). W acts on the binarised x (x_d > binarize).
    * ComplementNB: W = feature_log_prob_ (the complement weights) and b = 0, because
      ComplementNB leaves the prior out of its scores (except when it saw one class only).
    """
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
        raise ValueError("theta of 0 or 1 (alpha = 0) gives infinite weights; fit with alpha > 0")
    return W, b


def binary_form(W, b):
    """The two-class form P(y = classes_[1] | x) = sigmoid(w . x + b0) of W (2, n_features), b (2,).

    Returns w = W[1] - W[0] (class 1 minus class 0: the other order gives sigmoid(-u), the
    probability of class 0) and b0 = b[1] - b[0].
    """
    W, b = np.asarray(W, dtype=float), np.asarray(b, dtype=float)
    if W.ndim != 2 or W.shape[0] != 2 or b.shape != (2,):
        raise ValueError(f"W must be (2, n_features) and b (2,), got {W.shape} and {b.shape}")
    return W[1] - W[0], float(b[1] - b[0])


def _parameters(means, variances, priors, shared=False):
    """Means (n_classes, d), variances ((d,) if shared, else (2, d)) and priors, checked."""
    mu, var, pi = (np.asarray(a, dtype=float) for a in (means, variances, priors))
    expected = mu.shape[1:] if shared else (2, *mu.shape[1:])
    if mu.ndim != 2 or var.shape != expected or not (shared or mu.shape == expected):
        raise ValueError(
            f"means must have shape ({'n_classes' if shared else 2}, n_features) and variances "
            f"{'one per feature' if shared else 'the same shape'}, got {mu.shape} and {var.shape}"
        )
    if not np.all(np.isfinite(var)) or np.any(var <= 0):
        raise ValueError(f"variances must be finite and > 0, got {var}")
    if pi.shape != mu.shape[:1] or np.any(pi <= 0) or not math.isclose(pi.sum(), 1, rel_tol=1e-9):
        raise ValueError(f"priors must be {len(mu)} numbers > 0 that sum to 1, got {pi}")
    return mu, var, pi


def shared_variance_form(means, variances, priors):
    """W and b of Gaussian naive Bayes whose variances are shared by all classes.

    With sigma^2_d the same in every class, x_d^2 / (2 sigma^2_d) is the same for every class
    and cancels in the softmax, which leaves W[c, d] = mu_cd / sigma^2_d and
    b[c] = log pi_c - sum_d mu_cd^2 / (2 sigma^2_d).

    ``means`` (n_classes, n_features) are mu_cd, ``variances`` (n_features,) sigma^2_d,
    ``priors`` (n_classes,). Returns W (n_classes, n_features) and b (n_classes,).
    """
    means, variances, priors = _parameters(means, variances, priors, shared=True)
    return means / variances, np.log(priors) - (means**2 / (2 * variances)).sum(axis=1)


def gaussian_log_odds_form(means, variances, priors):
    """Coefficients of the two-class Gaussian log-odds log P(1 | x) / P(0 | x).

    log-odds(x) = sum_d a_d x_d^2 + sum_d w_d x_d + b0, with
    a_d = 1 / (2 sigma^2_0d) - 1 / (2 sigma^2_1d), w_d = mu_1d / sigma^2_1d - mu_0d / sigma^2_0d
    and b0 = log(pi_1 / pi_0) + sum_d [mu_0d^2 / (2 sigma^2_0d) - mu_1d^2 / (2 sigma^2_1d)
    - log(sigma_1d / sigma_0d)]. All a_d are 0 (a linear boundary) exactly when each feature's
    variance is the same in both classes. ``means``, ``variances`` (2, n_features), ``priors``
    (2,); returns {"a", "w", "b"}. Its values agree with :func:`gaussian_log_odds` (nbcore's).
    """
    means, variances, priors = _parameters(means, variances, priors)
    (m0, m1), (v0, v1) = means, variances
    a = 1 / (2 * v0) - 1 / (2 * v1)
    w = m1 / v1 - m0 / v0
    b = math.log(priors[1] / priors[0]) + float(
        np.sum(m0**2 / (2 * v0) - m1**2 / (2 * v1) - 0.5 * np.log(v1 / v0))
    )
    return {"a": a, "w": w, "b": b}


def gaussian_log_odds(points, means, variances, priors):
    """log P(1 | x) - log P(0 | x) of two-class Gaussian naive Bayes, shape (n_points,).

    The joint log scores are log pi_c plus nbcore's :func:`~nbcore.numerics.gaussian_log_density`
    (GaussianNB's likelihood). ``points`` is (n_points, n_features), the rest as in the form.
    """
    means, variances, priors = _parameters(means, variances, priors)
    points = np.atleast_2d(np.asarray(points, dtype=float))
    b = np.log(priors) + gaussian_log_density(points, means, variances)
    return b[:, 1] - b[:, 0]


def _pair(name, values, low, high):
    values = check_pair(name, values, "of numbers")
    return np.array([check_real(name, v, low, high) for v in values])


def _sigmoid(u):  # P(1 | x) = exp(b_1 - logsumexp(b_0, b_1)) from u = b_1 - b_0, by nbcore
    return np.exp(-logsumexp(np.stack([np.zeros_like(u), -np.asarray(u)]), axis=0))


def explorer_state(
    mean_1=(2.0, 1.0), sigma_0=(1.0, 1.0), sigma_1=(1.5, 0.7), prior_1=0.5, shared=False
):
    """Everything the explorer shows for one setting, as a dict.

    Class 0 has mean :data:`MEAN_0` = (0, 0) and standard deviations ``sigma_0``, class 1
    ``mean_1`` (in [-2, 4]) and ``sigma_1`` (in [0.3, 3]); ``prior_1`` in [0.05, 0.95] is pi_1.
    ``shared=True`` pools the variances, (sigma^2_0d + sigma^2_1d) / 2. Returns ``grid``,
    ``posterior`` (P(1 | x) on the grid, rows along x2: the logistic of :func:`gaussian_log_odds`),
    ``form`` (:func:`gaussian_log_odds_form`), ``linear`` (every a_d is 0), ``t`` and ``profile``
    (P(1 | x) at mu_0 + t (mu_1 - mu_0)), ``means``, ``variances``, ``priors`` and ``shared``.
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
    log_odds = gaussian_log_odds(_PLANE, means, variances, priors)
    line = MEAN_0 + _T[:, None] * (mean_1 - MEAN_0)
    state = dict(grid=_GRID, t=_T, form=form, linear=bool(np.all(form["a"] == 0)))
    state.update(means=means, variances=variances, priors=priors, shared=shared)
    state["posterior"] = _sigmoid(log_odds).reshape(len(_GRID), len(_GRID))
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
        dots = dict(color=style["color"], marker=style["marker"], linestyle="")
        ax.plot(t[every], marks, label="sigmoid(w.x + b)", **dots)
    ax.axhline(0.5, color="grey", linestyle=":", marker="")
    ax.set(
        ylim=(-0.03, 1.03), ylabel="P(class 1 | x)", xlabel="t  (x = mean 0 + t (mean 1 - mean 0))"
    )


def draw_state(state):
    """A Figure of one :func:`explorer_state`: left the regions, the boundary and the means;
    right P(1 | x) along the line through the means (with sigmoid(w . x + b) when linear)."""
    fig, axes = new_figure(1, 2, figsize=(8.4, 3.6))
    _draw_plane(axes[0, 0], state)
    axes[0, 0].set(xlabel="$x_1$", ylabel="$x_2$")
    _draw_profile(axes[0, 1], state)
    for ax in axes[0]:
        ax.legend(loc="upper left", fontsize=8)
    return fig


def explorer_small_multiples(sigmas_1=((1.0, 1.0), (1.5, 0.7), (2.5, 0.5)), *, mean_1=(2.0, 1.0)):
    """The explorer's static twin, a Figure: per-class (top) and shared variances (bottom), one
    column for each pair of class 1's standard deviations in ``sigmas_1``."""
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


def linear_panel(mean_1_x1, mean_1_x2, sigma_1_x1, sigma_1_x2, prior_1, shared):
    """The explorer's panel at one setting: :func:`draw_state` and the log-odds coefficients."""
    mean_1, sigma_1 = (mean_1_x1, mean_1_x2), (sigma_1_x1, sigma_1_x2)
    state = explorer_state(mean_1, (1.0, 1.0), sigma_1, prior_1, shared)
    alt = (
        "Two Gaussian classes in the plane with the naive Bayes decision boundary "
        f"({'shared' if shared else 'per-class'} variances, prior of class 1 "
        f"{prior_1:.2f}) and the posterior of class 1 along the line between the means."
    )
    form = state["form"]
    a, w = ("(" + ", ".join(f"{x:+.3f}" for x in form[k]) + ")" for k in "aw")
    shape = "a straight line" if state["linear"] else "a curve (quadratic)"
    kind = "shared (pooled) variances" if state["shared"] else "per-class variances"
    return figure_html(draw_state(state), alt, dpi=72) + (
        f"<div><p>{html.escape(kind)}: the boundary is <b>{shape}</b>.</p>"
        "<p style='font-family:monospace'>log-odds = a . x^2 + w . x + b with<br>"
        f"a = {a}<br>w = {w}<br>b = {form['b']:+.3f}</p></div>"
    )


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
    """Sliders for class 1's mean, spreads and prior, a toggle for shared variances, over
    :func:`linear_panel`; starting values as in :func:`explorer_state`. Returns a VBox."""
    m, s = _pair("mean_1", mean_1, *MEAN_RANGE), _pair("sigma_1", sigma_1, *SIGMA_RANGE)
    start = dict(mean_1_x1=m[0], mean_1_x2=m[1], sigma_1_x1=s[0], sigma_1_x2=s[1])
    return explorer(CONTROLS, linear_panel, **start, prior_1=prior_1, shared=shared)
