"""The smoothing chapter's explorer: under- and over-smoothing of Bernoulli naive Bayes.

Binary images (the chapter's binarised digits) are split once, with a seeded permutation, into
a :class:`SmoothingSplit`. Every setting is nbcore's :class:`~nbcore.BernoulliNB` fitted on it
(:func:`bernoulli_model`) with two pseudo-counts: ``alpha`` on both outcomes of every pixel (a
Beta(alpha, alpha) prior) and ``prior_pseudo`` on every class count (a symmetric Dirichlet prior
on pi, passed as ``class_prior``). The estimates, posteriors and held-out scores below all read
that model; :func:`alpha_sweep` is the static twin. :func:`beta_pdf` and
:func:`beta_point_estimates` draw and tabulate the Beta prior and posterior of one parameter.
"""

import html
import math
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from nbcore._validation import check_int, check_real
from nbcore.bernoulli import BernoulliNB
from nbcore.widgets._explorer import Slider, explorer

__all__ = [
    "SmoothingSplit",
    "make_split",
    "bernoulli_model",
    "smoothed_estimates",
    "point_posterior",
    "held_out_scores",
    "alpha_sweep",
    "best_alpha",
    "beta_pdf",
    "beta_point_estimates",
    "smoothing_panel",
    "smoothing_controls",
    "smoothing_explorer",
]


def _check_split(split):
    if not isinstance(split, SmoothingSplit):
        raise TypeError(
            f"split must be a SmoothingSplit (from make_split), got {type(split).__name__}"
        )
    return split


@dataclass(frozen=True, eq=False)
class SmoothingSplit:
    """A fixed train/test split of 0/1 features, with the training counts.

    ``classes`` are the sorted labels of the whole data (a class may have no training
    record); ``class_count`` (C,) and ``feature_count`` (C, D) are N_c and N_cd as
    :class:`~nbcore.BernoulliNB` counts them; ``test_codes`` the position of each test label in
    ``classes``; ``train_index`` and ``test_index`` the sorted rows of the original X.
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
    y : array-like of shape (n_samples,)
    n_train, seed : int
        Training records, drawn by ``np.random.default_rng(seed)``; the rest are the test set.
    threshold : float, default 0.0

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
    order = np.random.default_rng(check_int("seed", seed)).permutation(X.shape[0])
    train, test = np.sort(order[:n_train]), np.sort(order[n_train:])
    binary = (X > check_real("threshold", threshold)).astype(np.float64)
    classes = np.unique(y)
    counts = BernoulliNB(binarize=None).partial_fit(binary[train], y[train], classes=classes)
    return SmoothingSplit(
        X_train=binary[train],
        y_train=y[train],
        X_test=binary[test],
        y_test=y[test],
        classes=classes,
        class_count=counts.class_count_,
        feature_count=counts.feature_count_,
        test_codes=np.searchsorted(classes, y[test]),
        train_index=train,
        test_index=test,
    )


def bernoulli_model(split, alpha, prior_pseudo=0.0):
    """nbcore's BernoulliNB fitted on the split's training records, smoothed as asked.

    Parameters
    ----------
    split : SmoothingSplit
    alpha : float > 0
    prior_pseudo : float >= 0, default 0.0
        Pseudo-count beta added to every class count; 0 keeps the maximum likelihood N_c / N.

    Returns
    -------
    BernoulliNB
    """
    split = _check_split(split)
    alpha = check_real("alpha", alpha, 0.0, open_low=True)
    beta = check_real("prior_pseudo", prior_pseudo, 0.0)
    prior = None
    if beta > 0:  # the Dirichlet posterior mean (N_c + beta) / (N + C beta)
        prior = (split.class_count + beta) / (split.class_count.sum() + len(split.classes) * beta)
    model = BernoulliNB(alpha=alpha, binarize=None, class_prior=prior)
    return model.partial_fit(split.X_train, split.y_train, classes=split.classes)


def smoothed_estimates(split, alpha, prior_pseudo=0.0):
    """The estimates of :func:`bernoulli_model` as a dict: ``"class_prior"`` (C,),
    (N_c + beta) / (N + C beta), and ``"theta"`` (C, D), (N_cd + alpha) / (N_c + 2 alpha)."""
    model = bernoulli_model(split, alpha, prior_pseudo)
    return {"class_prior": np.exp(model.class_log_prior_), "theta": np.exp(model.feature_log_prob_)}


def point_posterior(split, alpha, prior_pseudo=0.0, index=0):
    """Posterior P(y = c | x) of test record ``index``, a Series indexed by ``split.classes``."""
    split = _check_split(split)
    index = check_int("index", index, 0, len(split.y_test) - 1)
    model = bernoulli_model(split, alpha, prior_pseudo)
    proba = model.predict_proba(split.X_test[index : index + 1])[0]
    return pd.Series(proba, index=split.classes, name="posterior")


def _scores(model, split):
    """Held-out log-loss and accuracy of a fitted model."""
    log_post = model.predict_log_proba(split.X_test)
    true = log_post[np.arange(len(split.y_test)), split.test_codes]
    accuracy = np.mean(np.argmax(log_post, axis=1) == split.test_codes)
    return {"log_loss": float(-true.mean()), "accuracy": float(accuracy)}


def held_out_scores(split, alpha, prior_pseudo=0.0):
    """Held-out ``"log_loss"`` (mean -log P(true class | x), natural log) and ``"accuracy"``
    (share of test records whose most probable class is the true one), as a dict."""
    return _scores(bernoulli_model(split, alpha, prior_pseudo), split)


def alpha_sweep(split, alphas, prior_pseudo=0.0):
    """:func:`held_out_scores` over a grid of alphas (the static twin): a DataFrame indexed
    by ``alpha`` with columns ``log_loss`` and ``accuracy``."""
    alphas = [check_real("alpha", a, 0.0, open_low=True) for a in np.atleast_1d(alphas).tolist()]
    if not alphas:
        raise ValueError("alphas must hold at least one value, got an empty grid")
    rows = [held_out_scores(split, a, prior_pseudo) for a in alphas]
    return pd.DataFrame(rows, index=pd.Index(alphas, name="alpha"))[["log_loss", "accuracy"]]


def best_alpha(sweep, column="log_loss"):
    """The first alpha of an :func:`alpha_sweep` with the lowest log-loss or highest accuracy."""
    if column not in ("log_loss", "accuracy"):
        raise ValueError(f"column must be 'log_loss' or 'accuracy', got {column!r}")
    if not isinstance(sweep, pd.DataFrame) or column not in sweep.columns or sweep.empty:
        raise TypeError(f"sweep must be a non-empty DataFrame with a {column!r} column")
    values = sweep[column].to_numpy(dtype=float)
    position = int(np.argmin(values) if column == "log_loss" else np.argmax(values))
    return float(sweep.index[position])


def beta_pdf(theta, a, b):
    """Density of Beta(a, b) at theta in [0, 1]: theta^(a-1) (1-theta)^(b-1) / B(a, b)."""
    a = check_real("a", a, 0.0, open_low=True)
    b = check_real("b", b, 0.0, open_low=True)
    theta = np.asarray(theta, dtype=np.float64)
    if np.any((theta < 0) | (theta > 1)) or not np.all(np.isfinite(theta)):
        raise ValueError("theta must hold numbers in [0, 1]")
    log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)  # -log B(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        # a power of 0 is 1, also at theta = 0 (where 0 * log 0 would give NaN)
        on = np.where(a == 1, 0.0, (a - 1) * np.log(theta))
        off = np.where(b == 1, 0.0, (b - 1) * np.log1p(-theta))
    return np.exp(log_norm + on + off)


def beta_point_estimates(n_on, n_records, a, b):
    """MLE, posterior mean and MAP of a Bernoulli theta under a Beta(a, b) prior.

    After n_on successes (N_cd) in n_records trials (N_c) the posterior is
    Beta(n_on + a, n_records - n_on + b).

    Returns
    -------
    dict
        ``"mle"`` N_cd / N_c; ``"mean"`` (N_cd + a) / (N_c + a + b); ``"map"`` the mode
        (N_cd + a - 1) / (N_c + a + b - 2), NaN where that formula does not give it (a parameter
        below 1: the density is unbounded and largest at that end; both equal to 1: flat);
        ``"posterior"`` the pair (N_cd + a, N_c - N_cd + b).
    """
    n_on = check_int("n_on", n_on, 0)
    n_records = check_int("n_records", n_records, 0)
    if n_on > n_records:
        raise ValueError(f"n_on must be <= n_records, got {n_on} > {n_records}")
    a = check_real("a", a, 0.0, open_low=True)
    b = check_real("b", b, 0.0, open_low=True)
    post_a, post_b = n_on + a, n_records - n_on + b
    has_mode = post_a >= 1 and post_b >= 1 and post_a + post_b > 2
    return {
        "mle": n_on / n_records if n_records else math.nan,
        "mean": post_a / (post_a + post_b),
        "map": (post_a - 1) / (post_a + post_b - 2) if has_mode else math.nan,
        "posterior": (post_a, post_b),
    }


def _image_html(values, size=9):
    """A square grid of grey cells (one row if not square), black for 1 and white for 0."""
    side = int(round(math.sqrt(values.size)))
    side = side if side * side == values.size else values.size
    greys = (255 - np.round(255 * values)).astype(int).reshape(-1, side)
    cell = "<td style='width:{0}px;height:{0}px;padding:0;background:rgb({1},{1},{1})'></td>"
    rows = "".join("<tr>" + "".join(cell.format(size, v) for v in row) + "</tr>" for row in greys)
    return f"<table style='border-collapse:collapse;border:1px solid #888'>{rows}</table>"


def smoothing_panel(split, alpha, prior_pseudo=0.0, index=0):
    """The explorer's panel as HTML: the test image and the theta of its true and predicted
    classes as grey images, the class prior and posterior, and the held-out scores."""
    split = _check_split(split)
    index = check_int("index", index, 0, len(split.y_test) - 1)
    model = bernoulli_model(split, alpha, prior_pseudo)
    posterior = model.predict_proba(split.X_test[index : index + 1])[0]
    theta, scores = np.exp(model.feature_log_prob_), _scores(model, split)
    classes = [html.escape(str(c)) for c in split.classes]
    c_true, c_pred = int(split.test_codes[index]), int(np.argmax(posterior))

    rows = [
        ("class", classes, "s"),
        ("N_c", split.class_count, ".0f"),
        ("N_c / N", split.class_count / split.class_count.sum(), ".3f"),
        ("pi_c", np.exp(model.class_log_prior_), ".3f"),
        ("P(c | x)", posterior, ".3f"),
    ]
    cell = "<td style='padding:0 0.4em;font-family:monospace'>{:{}}</td>"
    prior_table = "".join(
        f"<tr><td>{name}</td>{''.join(cell.format(v, fmt) for v in values)}</tr>"
        for name, values, fmt in rows
    )
    images = "".join(
        f"<td style='padding-right:1em;vertical-align:top'>{title}<br>{_image_html(values)}</td>"
        for title, values in (
            ("test image x", split.X_test[index]),
            (f"theta of class {classes[c_true]} (true)", theta[c_true]),
            (f"theta of class {classes[c_pred]} (predicted)", theta[c_pred]),
        )
    )
    verdict = "right" if c_true == c_pred else "wrong"
    return (
        f"<div><p>alpha = {alpha:.3g}, class-prior pseudo-count = {prior_pseudo:.1f}, "
        f"test image {index}</p><table><tr>{images}</tr></table><table>{prior_table}</table>"
        f"<p>Prediction: <b>{classes[c_pred]}</b> (true class {classes[c_true]}: {verdict}). "
        f"Held-out log-loss <b>{scores['log_loss']:.3f}</b>, "
        f"accuracy <b>{scores['accuracy']:.3f}</b> on {len(split.y_test)} test images, "
        f"trained on {len(split.y_train)}.</p></div>"
    )


def smoothing_controls(split):
    """The explorer's controls: alpha on a log scale (10^-3 to 10^3), the class-prior
    pseudo-count (0 to 30) and the test image (one of the split's)."""
    return (
        Slider("alpha", "smoothing alpha", -3.0, 3.0, 0.1, fmt=".3g", log=True),
        Slider("prior_pseudo", "class-prior pseudo-count", 0.0, 30.0, 0.5, fmt=".1f"),
        Slider("index", "test image", 0, len(_check_split(split).y_test) - 1, 1, integer=True),
    )


def smoothing_explorer(split, alpha=1.0, prior_pseudo=0.0, index=0):
    """Sliders for alpha, the class-prior pseudo-count and the test image over
    :func:`smoothing_panel` of ``split``; starting values are snapped to the sliders' grids.
    Returns an ``ipywidgets.VBox``."""
    show = partial(smoothing_panel, split)
    start = dict(alpha=alpha, prior_pseudo=prior_pseudo, index=index)
    return explorer(smoothing_controls(split), show, **start)
