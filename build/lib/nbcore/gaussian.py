"""Gaussian naive Bayes: each feature of each class is a normal distribution."""

import numpy as np

from nbcore import _validation as check
from nbcore.base import NaiveBayes


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

    Maximum likelihood estimates are derived in chapter 3, the height/weight example is
    chapter 5, the centred matrix-product form of the score chapter 8. ``partial_fit`` pools
    batches with the update of Chan, Golub and LeVeque (1979). A zero variance (possible only
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

    def fit(self, X, y, sample_weight=None):
        """Fit from scratch: per-class means and variances.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._fit(X, y, None, sample_weight, refit=True)
        check.check_positive_variance(self)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Pool a batch of samples into the means and variances.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every label that may ever appear; required on the first call only.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._fit(X, y, classes, sample_weight, refit=False)

    def _fit(self, X, y, classes, sample_weight, refit):
        if refit:
            self._forget()
        first_call, X, y, classes, weights = check.check_fit_input(
            self, X, y, classes, sample_weight, refit, self._check_X_fit
        )
        check.check_non_negative_number("var_smoothing", self.var_smoothing)
        priors = None if self.priors is None else check.check_priors("priors", self.priors, classes)

        # scikit-learn's smoothing, kept so that both agree: epsilon is var_smoothing times the
        # largest variance of a feature in this batch; this batch's epsilon is taken off the
        # stored variances before pooling and added back after. The stored variances carry the
        # previous batch's epsilon, so with var_smoothing > 0 chunked partial_fit differs from
        # fit by about var_smoothing times a variance; with var_smoothing=0 it is exact.
        epsilon = self.var_smoothing * np.max(np.var(X, axis=0))
        if first_call:
            n_past = np.zeros(len(classes))
            mu_past = var_past = np.zeros((len(classes), X.shape[1]))
        else:
            n_past, mu_past, var_past = self.class_count_, self.theta_, self.var_ - epsilon
        y_index = np.searchsorted(classes, y)
        n_new, mu_new, var_new = _class_moments(X, y_index, weights, len(classes))
        count, theta, var = _pool(n_past, mu_past, var_past, n_new, mu_new, var_new)
        var = var + epsilon

        self.classes_ = classes
        self.class_count_, self.theta_, self.var_, self.epsilon_ = count, theta, var, epsilon
        # pi_c = N_c / N unless priors are given
        self.class_prior_ = count / count.sum() if priors is None else priors
        return self

    def _check_X_fit(self, X, reset):
        return check.check_X(self, X, reset)

    def _check_X(self, X, reset=False):
        check.check_positive_variance(self)
        return check.check_X(self, X, reset)

    def _log_likelihood(self, X):
        # sum_d (x_d - mu_cd)^2 / s_cd = x^2 . (1/s) - 2 x . (mu/s) + mu^2 . (1/s): matrix
        # products for all classes at once. Centred first on the training mean m: with a large
        # common offset (x, mu ~ 1e6) the uncentred terms would cancel catastrophically.
        m = np.average(self.theta_, axis=0, weights=self.class_count_)
        Xc, mu = X - m, self.theta_ - m
        precision = 1.0 / self.var_
        cross = Xc @ (mu * precision).T
        np.square(Xc, out=Xc)
        quad = Xc @ precision.T - 2.0 * cross + np.sum(mu**2 * precision, axis=1)
        return -0.5 * (np.sum(np.log(2.0 * np.pi * self.var_), axis=1) + quad)

    def _joint_log_likelihood(self, X):
        with np.errstate(divide="ignore"):  # a prior of 0 gives log 0 = -inf
            return np.log(self.class_prior_) + self._log_likelihood(X)


def _class_moments(X, y_index, weights, n_classes):
    """Weighted count, mean and (1/N) variance of every feature in every class.

    Returns arrays of shapes (n_classes,), (n_classes, n_features), (n_classes, n_features);
    a class without samples in X gets NaN moments.
    """
    # W[i, c] = weight of sample i if it is of class c: sums per class are matrix products
    W = np.zeros((X.shape[0], n_classes))
    W[np.arange(X.shape[0]), y_index] = weights
    n = W.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = (W.T @ X) / n[:, np.newaxis]
        # two passes (mean first, then squared deviations from it) do not cancel
        deviation = mu[y_index]  # mu of each sample's class, then x_i - mu_{y_i} in place
        np.subtract(X, deviation, out=deviation)
        np.square(deviation, out=deviation)
        var = (W.T @ deviation) / n[:, np.newaxis]
    return n, mu, var


def _pool(n_a, mu_a, var_a, n_b, mu_b, var_b):
    """Count, mean and variance of two sets pooled (Chan, Golub & LeVeque), per class."""
    n = n_a + n_b
    a, b, n_ = n_a[:, np.newaxis], n_b[:, np.newaxis], n[:, np.newaxis]
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = (b * mu_b + a * mu_a) / n_
        # sums of squared deviations add, plus the spread between the two means
        ssd = a * var_a + b * var_b + (b * a / n_) * (mu_a - mu_b) ** 2
        var = ssd / n_
    # a class without new samples keeps its moments; one without past samples takes the new
    mu = np.where(b == 0, mu_a, np.where(a == 0, mu_b, mu))
    var = np.where(b == 0, var_a, np.where(a == 0, var_b, var))
    return n, mu, var
