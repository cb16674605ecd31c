"""The smoothing chapter's explorer: under- and over-smoothing of Bernoulli naive Bayes.

A small training set of binary images (the chapter passes scikit-learn's digits, binarised)
is split once, with a seeded permutation, and its counts are kept in a :class:`SmoothingSplit`
so that every slider move only re-smooths the counts. Two pseudo-counts are explored:

* ``alpha``, added to both outcomes of every pixel: the posterior mean under a
  Beta(alpha, alpha) prior, theta_cd = (N_cd + alpha) / (N_c + 2 alpha);
* ``prior_pseudo``, added to every class count: the posterior mean under a symmetric
  Dirichlet prior on the class prior, pi_c = (N_c + beta) / (N + C beta).

The pure functions compute what the explorer shows: the smoothed estimates
(:func:`smoothed_estimates`), the posterior of one test image (:func:`point_posterior`) and the
held-out log-loss and accuracy (:func:`held_out_scores`); :func:`alpha_sweep` is the static
twin for the HTML book. The Beta-Bernoulli helpers (:func:`beta_pdf`,
:func:`beta_point_estimates`) draw and tabulate the prior and posterior of one parameter.
"""

import html
import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import pandas as pd

from nbcore._validation import check_int, check_real
from nbcore.numerics import logsumexp

__all__ = [
    "SmoothingSplit",
    "make_split",
    "smoothed_estimates",
    "point_posterior",
    "held_out_scores",
    "explorer_state",
    "alpha_sweep",
    "best_alpha",
    "beta_pdf",
    "beta_point_estimates",
    "state_html",
    "smoothing_explorer",
]

# The alpha slider moves on a log scale: 10 ** ALPHA_LOG_MIN ... 10 ** ALPHA_LOG_MAX.
ALPHA_LOG_MIN, ALPHA_LOG_MAX, ALPHA_LOG_STEP = -3.0, 3.0, 0.1
PRIOR_PSEUDO_MAX, PRIOR_PSEUDO_STEP = 30.0, 0.5


# --------------------------------------------------------------------------- input checks


def _check_alpha(alpha):
    if isinstance(alpha, Real) and not isinstance(alpha, bool) and alpha == 0:
        raise ValueError(
            "alpha must be > 0 here: with alpha = 0 a pixel never seen on (or off) in a class "
            "has probability 0, and a test image can rule out every class; got 0.0"
        )
    return check_real("alpha", alpha, 0.0, open_low=True)


def _check_split(split):
    if not isinstance(split, SmoothingSplit):
        raise TypeError(
            f"split must be a SmoothingSplit (from make_split), got {type(split).__name__}"
        )
    return split


# --------------------------------------------------------------------------- the data


@dataclass(frozen=True, eq=False)
class SmoothingSplit:
    """A fixed train/test split of binary features with the training counts precomputed.

    Attributes
    ----------
    X_train : ndarray of shape (n_train, n_features)
        0/1 features of the training records.
    y_train : ndarray of shape (n_train,)
    X_test : ndarray of shape (n_test, n_features)
    y_test : ndarray of shape (n_test,)
    classes : ndarray of shape (n_classes,)
        Sorted labels (those of the whole data, so a class may have no training record).
    class_count : ndarray of shape (n_classes,)
        N_c, training records of each class.
    feature_count : ndarray of shape (n_classes, n_features)
        N_cd, training records of class c with feature d on.
    test_codes : ndarray of shape (n_test,)
        Position of each test label in ``classes``.
    train_index, test_index : ndarray of shape (n_train,) and (n_test,)
        Rows of the original X that went into each set (sorted), to find the raw records.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray
    class_count: np.ndarray
    feature_count: np.ndarray
    test_codes: np.ndarray
    train_index: np.ndarray
    test_index: np.ndarray

    def __repr__(self):
        return (
            f"SmoothingSplit(n_train={len(self.y_train)}, n_test={len(self.y_test)}, "
            f"n_features={self.X_train.shape[1]}, n_classes={len(self.classes)})"
        )


def make_split(X, y, *, n_train, seed, threshold=0.0):
    """Binarise X (x > threshold), split it once at random, and count the training records.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Numeric features, for example pixel intensities.
    y : array-like of shape (n_samples,)
        Class labels.
    n_train : int
        Training records, drawn without replacement by ``np.random.default_rng(seed)``; all
        other records are the test set.
    seed : int
        Seed of the permutation, so that the split is the same on every run.
    threshold : float, default 0.0
        A feature is on (1) where x > threshold.

    Returns
    -------
    SmoothingSplit
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"X must be a 2-d array with at least 2 rows, got shape {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},) to match X, got {y.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must hold finite numbers, got NaN or infinity")
    n_train = check_int("n_train", n_train, 1, X.shape[0] - 1)
    seed = check_int("seed", seed)
    threshold = check_real("threshold", threshold)
    binary = (X > threshold).astype(np.float64)
    order = np.random.default_rng(seed).permutation(X.shape[0])
    train, test = np.sort(order[:n_train]), np.sort(order[n_train:])
    classes = np.unique(y)
    onehot = (y[train][:, None] == classes[None, :]).astype(np.float64)  # (n_train, C)
    return SmoothingSplit(
        X_train=binary[train],
        y_train=y[train],
        X_test=binary[test],
        y_test=y[test],
        classes=classes,
        class_count=onehot.sum(axis=0),
        feature_count=onehot.T @ binary[train],  # N_cd = sum over class-c records of x_d
        test_codes=np.searchsorted(classes, y[test]),
        train_index=train,
        test_index=test,
    )


# --------------------------------------------------------------------------- the three panels


def smoothed_estimates(split, alpha, prior_pseudo=0.0):
    """The smoothed class prior and pixel probabilities of a split.

    Parameters
    ----------
    split : SmoothingSplit
    alpha : float > 0
        Pseudo-count added to both outcomes of every feature (a Beta(alpha, alpha) prior).
    prior_pseudo : float >= 0, default 0.0
        Pseudo-count beta added to every class count (a symmetric Dirichlet prior); 0 gives
        the maximum likelihood prior N_c / N that nbcore and scikit-learn use.

    Returns
    -------
    dict
        ``"class_prior"``: ndarray of shape (n_classes,), (N_c + beta) / (N + C beta);
        ``"theta"``: ndarray of shape (n_classes, n_features), (N_cd + alpha) / (N_c + 2 alpha).
    """
    split = _check_split(split)
    alpha = _check_alpha(alpha)
    beta = check_real("prior_pseudo", prior_pseudo, 0.0)
    n_classes = len(split.classes)
    total = split.class_count.sum() + n_classes * beta
    class_prior = (split.class_count + beta) / total
    # two outcomes per pixel (on, off), each gets alpha: the denominator grows by 2 alpha
    theta = (split.feature_count + alpha) / (split.class_count[:, None] + 2 * alpha)
    return {"class_prior": class_prior, "theta": theta}


def _log_posterior(estimates, X):
    """log P(y = c | x) of Bernoulli naive Bayes, shape (n_samples, n_classes)."""
    theta = estimates["theta"]
    with np.errstate(divide="ignore"):  # a class with prior 0 gets log 0 = -inf
        log_prior = np.log(estimates["class_prior"])
    # b_c = log pi_c + sum_d x_d log theta_cd + (1 - x_d) log(1 - theta_cd); 0 < theta < 1
    # because alpha > 0, so every logarithm is finite
    log_on, log_off = np.log(theta), np.log1p(-theta)
    scores = X @ (log_on - log_off).T + log_off.sum(axis=1) + log_prior
    return scores - logsumexp(scores, axis=1, keepdims=True)


def point_posterior(split, alpha, prior_pseudo=0.0, index=0):
    """Posterior P(y = c | x) of one test record.

    Parameters
    ----------
    split, alpha, prior_pseudo
        As in :func:`smoothed_estimates`.
    index : int, default 0
        Position of the record in the test set.

    Returns
    -------
    Series of shape (n_classes,)
        Index ``split.classes``, the posterior probabilities (they sum to 1).
    """
    split = _check_split(split)
    index = check_int("index", index, 0, len(split.y_test) - 1)
    estimates = smoothed_estimates(split, alpha, prior_pseudo)
    log_post = _log_posterior(estimates, split.X_test[index : index + 1])[0]
    return pd.Series(np.exp(log_post), index=split.classes, name="posterior")


def held_out_scores(split, alpha, prior_pseudo=0.0):
    """Held-out log-loss and accuracy of the smoothed model on the test set.

    Parameters
    ----------
    split, alpha, prior_pseudo
        As in :func:`smoothed_estimates`.

    Returns
    -------
    dict
        ``"log_loss"``: mean of -log P(y = true class | x) over the test records (natural
        log; infinite if a test record's true class has probability 0);
        ``"accuracy"``: fraction of test records whose most probable class is the true one.
    """
    split = _check_split(split)
    log_post = _log_posterior(smoothed_estimates(split, alpha, prior_pseudo), split.X_test)
    rows = np.arange(len(split.y_test))
    log_loss = float(-log_post[rows, split.test_codes].mean())
    accuracy = float(np.mean(np.argmax(log_post, axis=1) == split.test_codes))
    return {"log_loss": log_loss, "accuracy": accuracy}


def explorer_state(split, alpha, prior_pseudo=0.0, index=0):
    """Everything the explorer shows for one setting of its sliders.

    Parameters
    ----------
    split, alpha, prior_pseudo, index
        As in :func:`point_posterior`.

    Returns
    -------
    dict
        ``"estimates"`` (:func:`smoothed_estimates`), ``"posterior"``
        (:func:`point_posterior`), ``"scores"`` (:func:`held_out_scores`), ``"true_class"``
        and ``"prediction"`` of the test record.
    """
    split = _check_split(split)
    index = check_int("index", index, 0, len(split.y_test) - 1)
    posterior = point_posterior(split, alpha, prior_pseudo, index)
    return {
        "estimates": smoothed_estimates(split, alpha, prior_pseudo),
        "posterior": posterior,
        "scores": held_out_scores(split, alpha, prior_pseudo),
        "true_class": split.y_test[index],
        "prediction": posterior.index[int(np.argmax(posterior.to_numpy()))],
    }


def alpha_sweep(split, alphas, prior_pseudo=0.0):
    """Held-out log-loss and accuracy over a grid of alphas: the explorer's static twin.

    Parameters
    ----------
    split : SmoothingSplit
    alphas : sequence of float > 0, shape (n_alphas,)
    prior_pseudo : float >= 0, default 0.0

    Returns
    -------
    DataFrame of shape (n_alphas, 2)
        Index ``alpha``, columns ``log_loss`` and ``accuracy``.
    """
    alphas = [_check_alpha(a) for a in np.atleast_1d(alphas).tolist()]
    if not alphas:
        raise ValueError("alphas must hold at least one value, got an empty grid")
    rows = [held_out_scores(split, a, prior_pseudo) for a in alphas]
    return pd.DataFrame(rows, index=pd.Index(alphas, name="alpha"))[["log_loss", "accuracy"]]


def best_alpha(sweep, column="log_loss"):
    """The alpha of a sweep with the lowest log-loss (or the highest accuracy).

    Parameters
    ----------
    sweep : DataFrame
        The result of :func:`alpha_sweep`.
    column : {"log_loss", "accuracy"}, default "log_loss"

    Returns
    -------
    float
        The first alpha of the grid that attains the best value.
    """
    if column not in ("log_loss", "accuracy"):
        raise ValueError(f"column must be 'log_loss' or 'accuracy', got {column!r}")
    if not isinstance(sweep, pd.DataFrame) or column not in sweep.columns or sweep.empty:
        raise TypeError(f"sweep must be a non-empty DataFrame with a {column!r} column")
    values = sweep[column].to_numpy(dtype=float)
    position = int(np.argmin(values) if column == "log_loss" else np.argmax(values))
    return float(sweep.index[position])


# --------------------------------------------------------------------------- Beta prior


def beta_pdf(theta, a, b):
    """Density of Beta(a, b) at theta: theta^(a-1) (1-theta)^(b-1) / B(a, b).

    Parameters
    ----------
    theta : array-like of float in [0, 1]
    a, b : float > 0

    Returns
    -------
    ndarray of the shape of ``theta``
    """
    a = check_real("a", a, 0.0, open_low=True)
    b = check_real("b", b, 0.0, open_low=True)
    theta = np.asarray(theta, dtype=np.float64)
    if np.any((theta < 0) | (theta > 1)) or not np.all(np.isfinite(theta)):
        raise ValueError("theta must hold numbers in [0, 1]")
    log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)  # -log B(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        # (a - 1) log theta, taking a power of 0 as 1 (theta^0 = 1 also at theta = 0, where
        # 0 * log 0 would give NaN); a density that is infinite at an end gives inf there
        on = np.where(a == 1, 0.0, (a - 1) * np.log(theta))
        off = np.where(b == 1, 0.0, (b - 1) * np.log1p(-theta))
    log_density = log_norm + on + off
    return np.exp(log_density)


def beta_point_estimates(n_on, n_records, a, b):
    """MLE, posterior mean and MAP of a Bernoulli theta under a Beta(a, b) prior.

    After n_on successes in n_records trials the posterior is
    Beta(n_on + a, n_records - n_on + b).

    Parameters
    ----------
    n_on : int
        N_cd, the records (of class c) with the feature on.
    n_records : int
        N_c, all records of class c.
    a, b : float > 0
        The prior's pseudo-counts.

    Returns
    -------
    dict
        ``"mle"`` N_cd / N_c; ``"mean"`` (N_cd + a) / (N_c + a + b); ``"map"``
        (N_cd + a - 1) / (N_c + a + b - 2), the mode, which holds when both posterior
        parameters are at least 1 and not both equal to 1 (a parameter equal to 1 puts the
        mode on the boundary, 0 or 1, and the formula gives it); NaN when the posterior has
        no mode (a parameter below 1: the density is unbounded at 0 or 1; or both equal to
        1: a flat density); ``"posterior"``
        the pair (N_cd + a, N_c - N_cd + b).
    """
    for name, value in (("n_on", n_on), ("n_records", n_records)):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
            raise ValueError(f"{name} must be a count (an int >= 0), got {value!r}")
    if n_on > n_records:
        raise ValueError(f"n_on must be <= n_records, got {n_on} > {n_records}")
    a = check_real("a", a, 0.0, open_low=True)
    b = check_real("b", b, 0.0, open_low=True)
    post_a, post_b = n_on + a, n_records - n_on + b
    if post_a >= 1 and post_b >= 1 and post_a + post_b > 2:
        mode = (post_a - 1) / (post_a + post_b - 2)
    else:
        mode = math.nan
    return {
        "mle": n_on / n_records if n_records else math.nan,
        "mean": post_a / (post_a + post_b),
        "map": mode,
        "posterior": (post_a, post_b),
    }


# --------------------------------------------------------------------------- the explorer


def _image_html(values, size):
    """An 8 x 8 (or side x side) grid of grey cells, black for 1 and white for 0."""
    side = int(round(math.sqrt(values.size)))
    if side * side != values.size:
        side = values.size  # not square: one row
    cells = []
    for r in range(values.size // side):
        row = "".join(
            f"<td style='width:{size}px;height:{size}px;padding:0;"
            f"background:rgb({v},{v},{v})'></td>"
            for v in (255 - np.round(255 * values[r * side : (r + 1) * side])).astype(int)
        )
        cells.append(f"<tr>{row}</tr>")
    return f"<table style='border-collapse:collapse;border:1px solid #888'>{''.join(cells)}</table>"


def state_html(state, split, *, alpha, prior_pseudo, index):
    """HTML of one explorer setting: estimates, the test record's posterior, held-out scores.

    Parameters
    ----------
    state : dict
        The result of :func:`explorer_state`.
    split : SmoothingSplit
    alpha, prior_pseudo : float
    index : int
        The slider values, repeated in the panel.

    Returns
    -------
    str
        An HTML fragment (no scripts, no external resources).
    """
    classes = [html.escape(str(c)) for c in split.classes]
    est, posterior = state["estimates"], state["posterior"].to_numpy()
    c_true = int(np.searchsorted(split.classes, state["true_class"]))
    c_pred = int(np.searchsorted(split.classes, state["prediction"]))
    header = "".join(f"<th style='padding:0 0.4em'>{c}</th>" for c in classes)

    def row(label, values, fmt):
        tds = "".join(
            f"<td style='padding:0 0.4em;font-family:monospace'>{fmt(v)}</td>" for v in values
        )
        return f"<tr><td>{label}</td>{tds}</tr>"

    mle_prior = split.class_count / split.class_count.sum()
    prior_table = (
        f"<table><tr><th>class</th>{header}</tr>"
        + row("N_c", split.class_count, lambda v: f"{v:.0f}")
        + row("N_c / N", mle_prior, lambda v: f"{v:.3f}")
        + row("pi_c", est["class_prior"], lambda v: f"{v:.3f}")
        + row("P(c | x)", posterior, lambda v: f"{v:.3f}")
        + "</table>"
    )
    images = "".join(
        f"<td style='padding-right:1em;vertical-align:top'>{title}<br>{_image_html(values, 9)}</td>"
        for title, values in (
            ("test image x", split.X_test[index]),
            (f"theta of class {classes[c_true]} (true)", est["theta"][c_true]),
            (f"theta of class {classes[c_pred]} (predicted)", est["theta"][c_pred]),
        )
    )
    scores = state["scores"]
    verdict = "right" if c_true == c_pred else "wrong"
    return (
        f"<div><p>alpha = {alpha:.3g}, class-prior pseudo-count = {prior_pseudo:.1f}, "
        f"test image {index}</p>"
        f"<table><tr>{images}</tr></table>"
        f"{prior_table}"
        f"<p>Prediction: <b>{classes[c_pred]}</b> (true class {classes[c_true]}: {verdict}). "
        f"Held-out log-loss <b>{scores['log_loss']:.3f}</b>, "
        f"accuracy <b>{scores['accuracy']:.3f}</b> on {len(split.y_test)} test images, "
        f"trained on {len(split.y_train)}.</p></div>"
    )


def _on_alpha_grid(alpha):
    """The nearest value of the log-scale slider's grid."""
    exponent = round(math.log10(_check_alpha(alpha)) / ALPHA_LOG_STEP) * ALPHA_LOG_STEP
    exponent = min(max(exponent, ALPHA_LOG_MIN), ALPHA_LOG_MAX)
    return round(exponent, 10)


def smoothing_explorer(split, alpha=1.0, prior_pseudo=0.0, index=0):
    """Sliders for alpha, the class-prior pseudo-count and the test record, with all panels.

    Parameters
    ----------
    split : SmoothingSplit
        The data, counted once (:func:`make_split`); slider moves only re-smooth the counts.
    alpha : float, default 1.0
        Starting value of the log-scale alpha slider (10^-3 to 10^3; rounded to its grid).
    prior_pseudo : float, default 0.0
        Starting value of the class-prior pseudo-count slider (0 to 30 in steps of 0.5).
    index : int, default 0
        Starting test record.

    Returns
    -------
    ipywidgets.VBox
        Three sliders and an HTML panel that each slider move recomputes.
    """
    import ipywidgets as w

    split = _check_split(split)
    exponent = _on_alpha_grid(alpha)
    beta = check_real("prior_pseudo", prior_pseudo, 0.0)
    beta = min(round(beta / PRIOR_PSEUDO_STEP) * PRIOR_PSEUDO_STEP, PRIOR_PSEUDO_MAX)
    index = check_int("index", index, 0, len(split.y_test) - 1)
    style = {"description_width": "14em"}
    layout = w.Layout(width="36em")
    alpha_slider = w.FloatLogSlider(
        value=10**exponent,
        base=10,
        min=ALPHA_LOG_MIN,
        max=ALPHA_LOG_MAX,
        step=ALPHA_LOG_STEP,
        description="smoothing alpha",
        readout_format=".3g",
        style=style,
        layout=layout,
    )
    prior_slider = w.FloatSlider(
        value=beta,
        min=0.0,
        max=PRIOR_PSEUDO_MAX,
        step=PRIOR_PSEUDO_STEP,
        description="class-prior pseudo-count",
        readout_format=".1f",
        style=style,
        layout=layout,
    )
    index_slider = w.IntSlider(
        value=index,
        min=0,
        max=len(split.y_test) - 1,
        description="test image",
        style=style,
        layout=layout,
    )
    panel = w.HTML()

    def update(_change=None):
        a, b, i = alpha_slider.value, prior_slider.value, index_slider.value
        state = explorer_state(split, a, b, i)
        panel.value = state_html(state, split, alpha=a, prior_pseudo=b, index=i)

    for slider in (alpha_slider, prior_slider, index_slider):
        slider.observe(update, names="value")
    update()
    return w.VBox([alpha_slider, prior_slider, index_slider, panel])
