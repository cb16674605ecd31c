"""Gaussian naive Bayes: each feature of each class is a normal distribution."""

import numpy as np

from nbcore import _validation as check
from nbcore.base import NaiveBayes
from nbcore.numerics import gaussian_log_density


class GaussianNB(NaiveBayes):
    """Naive Bayes for real-valued features: x_d | y=c ~ N(mu_cd, sigma^2_cd).

    The maximum likelihood estimates are the class's sample mean and its (biased, 1/N_c)
    sample variance of each feature; var_smoothing adds epsilon = var_smoothing times the
    largest variance of any feature to every variance, so that no variance is 0.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Fixed class prior; None estimates it as N_c / N.
    var_smoothing : float, default=1e-9
        Fraction of the largest feature variance added to every variance.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        N_c, the weighted number of samples of each class.
    class_prior_ : ndarray of shape (n_classes,)
        pi_c.
    theta_ : ndarray of shape (n_classes, n_features)
        mu_cd, the mean of feature d in class c (scikit-learn's name).
    var_ : ndarray of shape (n_classes, n_features)
        sigma^2_cd + epsilon_.
    epsilon_ : float
        var_smoothing times the largest variance of a feature in the (last) batch of X.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when fitted on a DataFrame with string column names.

    Notes
    -----
    .. math:: \\log p(x, y=c) = \\log \\pi_c - \\frac12 \\sum_d \\left[
              \\log (2\\pi\\sigma^2_{cd}) + \\frac{(x_d - \\mu_{cd})^2}{\\sigma^2_{cd}} \\right]

    Maximum likelihood estimates are derived in chapter 3; chapter 8 explains the centred
    matrix-product form of the score (:func:`gaussian_log_density`). ``partial_fit`` pools
    batches with the update of Chan, Golub and LeVeque (1979), :func:`pool_moments`, the same
    function with which ``nbcore.scale.merge`` pools fitted models. A zero variance (possible only
    with ``var_smoothing=0`` or data in which every feature is constant) has no density and
    is refused with a ValueError by ``fit`` and by ``predict*`` (``partial_fit`` accepts
    it, since later batches may bring spread).

    Examples
    --------
    >>> X = [[67, 125], [79, 210], [71, 150], [68, 140], [67, 142], [60, 120]]
    >>> GaussianNB().fit(X, list("mmmfff")).theta_[:, 0]  # mean heights of f, m
    array([65.        , 72.33333333])
    """

    def __init__(self, *, priors=None, var_smoothing=1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    def _check_params(self, classes, n_features):
        """Check the parameters before anything is learned; returns the fixed priors or None."""
        check.check_non_negative_number("var_smoothing", self.var_smoothing)
        return None if self.priors is None else check.check_priors("priors", self.priors, classes)

    def _init_statistics(self, X, n_classes):
        # no samples yet; var_ is 0 and carries no epsilon, as in scikit-learn
        self.class_count_ = np.zeros(n_classes)
        self.theta_ = np.zeros((n_classes, X.shape[1]))
        self.var_ = np.zeros((n_classes, X.shape[1]))
        self.epsilon_ = 0.0

    def _update(self, X, Y, priors):
        # scikit-learn's smoothing, kept so that both agree: epsilon is var_smoothing times the
        # largest variance of a feature in this batch; this batch's epsilon is taken off the
        # stored variances before pooling and added back after. The stored variances carry the
        # previous batch's epsilon, so with var_smoothing > 0 chunked partial_fit differs from
        # fit by about var_smoothing times a variance; with var_smoothing=0 it is exact.
        # One scratch array of X's shape serves both passes over the deviations (a fresh array
        # costs about as much as the arithmetic: its memory must be supplied and zeroed).
        scratch = np.empty_like(X)
        epsilon = self.var_smoothing * np.max(_variance(X, scratch))
        n_new, mu_new, var_new = _class_moments(X, Y, scratch)
        first_batch = not self.class_count_.any()  # nothing stored yet: no epsilon to take off
        var_past = self.var_ if first_batch else self.var_ - epsilon
        count, theta, var = pool_moments(
            self.class_count_, self.theta_, var_past, n_new, mu_new, var_new
        )
        var = var + epsilon

        self.class_count_, self.theta_, self.var_, self.epsilon_ = count, theta, var, epsilon
        # pi_c = N_c / N unless priors are given
        self.class_prior_ = count / count.sum() if priors is None else priors

    def _check_fitted_model(self):
        check.check_positive_variance(self)

    def _check_X_fit(self, X, reset):
        return check.check_X(self, X, reset)

    def _check_X(self, X, reset=False):
        check.check_positive_variance(self)
        return check.check_X(self, X, reset)

    def _log_likelihood(self, X):
        # centred on the training mean m, so that a large offset common to x and mu (x, mu ~
        # 1e6) is taken off before the matrix products instead of cancelling inside them; a
        # class far from m compared with its spread is handled inside gaussian_log_density
        m = np.average(self.theta_, axis=0, weights=self.class_count_)
        return gaussian_log_density(X, self.theta_, self.var_, center=m)

    def _joint_log_likelihood(self, X):
        with np.errstate(divide="ignore"):  # a prior of 0 gives log 0 = -inf
            return np.log(self.class_prior_) + self._log_likelihood(X)


def _variance(X, scratch):
    """np.var(X, axis=0), by the same operations in the same order, in ``scratch``.

    Two passes: the mean of every feature, then the mean of the squared deviations from it, so
    a large common offset cancels before anything is squared, and a constant feature has
    variance 0 exactly when NumPy's (and so scikit-learn's) has.
    """
    mean = np.add.reduce(X, axis=0, keepdims=True) / X.shape[0]
    np.subtract(X, mean, out=scratch)
    np.multiply(scratch, scratch, out=scratch)
    return np.add.reduce(scratch, axis=0) / X.shape[0]


def _class_moments(X, Y, scratch):
    """Weighted count, mean and (1/N) variance of every feature in every class.

    ``Y`` is the weighted one-hot label matrix, shape (n_samples, n_classes): sums per class
    are matrix products with it. ``scratch``, an array of X's shape, is overwritten. Returns
    arrays of shapes (n_classes,), (n_classes, n_features), (n_classes, n_features); a class
    without samples in X gets NaN moments.
    """
    n = Y.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = (Y.T @ X) / n[:, np.newaxis]
        # two passes (mean first, then squared deviations from it) do not cancel. mu of each
        # sample's class, then x_i - mu_{y_i} in place; a sample of weight 0 may sit in a class
        # without moments (NaN), so it takes mu = 0 instead: its square is weighted by 0
        np.take(np.nan_to_num(mu), Y.argmax(axis=1), axis=0, out=scratch, mode="clip")
        np.subtract(X, scratch, out=scratch)
        np.square(scratch, out=scratch)
        var = (Y.T @ scratch) / n[:, np.newaxis]
    return n, mu, var


def pool_moments(n_a, mean_a, var_a, n_b, mean_b, var_b):
    """Count, mean and variance of two sets pooled (Chan, Golub and LeVeque, 1979).

    Parameters
    ----------
    n_a, n_b : float or ndarray of shape (n_classes,)
        (Weighted) number of values in each set; 0 is allowed.
    mean_a, mean_b, var_a, var_b : float or ndarray of shape (n_classes, n_features)
        Means and (1/n) variances of each set. Values of a set with n = 0 are ignored.

    Returns
    -------
    n, mean, var
        Of the union, with the shapes of the inputs.

    Notes
    -----
    With delta = mean_b - mean_a and n = n_a + n_b,

    .. math:: \\mu = \\mu_a + \\delta \\frac{n_b}{n}, \\qquad
              n \\sigma^2 = n_a \\sigma^2_a + n_b \\sigma^2_b + \\delta^2 \\frac{n_a n_b}{n}

    Only deviations from means are squared, never the values themselves, so a large common
    offset cancels in delta before anything is squared (chapter 10).
    """
    n_a, n_b = np.asarray(n_a, dtype=float), np.asarray(n_b, dtype=float)
    if np.any(n_a < 0) or np.any(n_b < 0):
        raise ValueError(
            f"n_a and n_b must be counts >= 0; got n_a={n_a.tolist()}, n_b={n_b.tolist()}."
        )
    mean_a, mean_b = np.asarray(mean_a, dtype=float), np.asarray(mean_b, dtype=float)
    var_a, var_b = np.asarray(var_a, dtype=float), np.asarray(var_b, dtype=float)
    n = n_a + n_b
    # counts of shape (n_classes,) broadcast against (n_classes, n_features)
    a, b, n_ = (c[..., np.newaxis] if mean_a.ndim > c.ndim else c for c in (n_a, n_b, n))
    delta = mean_b - mean_a
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = mean_a + delta * (b / n_)
        # the sums of squared deviations add, plus the spread between the two means
        var = (a * var_a + b * var_b + delta**2 * (a * b / n_)) / n_
    # a set with no values contributes nothing (and its mean and variance are meaningless)
    mean = np.where(b == 0, mean_a, np.where(a == 0, mean_b, mean))
    var = np.where(b == 0, var_a, np.where(a == 0, var_b, var))
    return n, mean, var
