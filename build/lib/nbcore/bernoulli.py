"""Bernoulli naive Bayes: each feature is present (1) or absent (0)."""

import numpy as np

from nbcore import _validation as check
from nbcore.base import DiscreteNB
from nbcore.numerics import log_ratio, xlogp


class BernoulliNB(DiscreteNB):
    """Naive Bayes for binary features, such as whether each word occurs in a document.

    Feature d of class c is on with probability theta_cd, so
    p(x | c) = prod_d theta_cd ** x_d * (1 - theta_cd) ** (1 - x_d). Estimated by counting,
    theta_cd = (N_cd + alpha) / (N_c + 2 alpha), where N_cd is the number of class-c samples
    with feature d on. Unlike the multinomial model, an absent feature counts as evidence.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing (a Beta(alpha, alpha) prior); 0 gives the maximum likelihood
        estimate N_cd / N_c.
    force_alpha : bool, default=True
        If False, alpha below 1e-10 is raised to 1e-10 (with a warning).
    binarize : float or None, default=0.0
        Threshold: x > binarize counts as on. None takes X as already 0/1.
    fit_prior : bool, default=True
        Estimate the class prior from the data (else uniform).
    class_prior : array-like of shape (n_classes,), default=None
        Fixed class prior; overrides ``fit_prior``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        N_c, the weighted number of samples of each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        log pi_c.
    feature_count_ : ndarray of shape (n_classes, n_features)
        N_cd, the weighted number of class-c samples with feature d on.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log theta_cd = log P(x_d = 1 | y = c).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when fitted on a DataFrame with string column names.

    Notes
    -----
    .. math:: \\log p(x, y=c) = \\log \\pi_c + \\sum_d x_d \\log \\theta_{cd}
              + (1 - x_d) \\log (1 - \\theta_{cd})

    Maximum likelihood is chapter 3, the Beta prior behind alpha chapter 4, Bernoulli versus
    multinomial text models chapter 7, the linear form used below chapter 9.

    Examples
    --------
    >>> X = [[1, 1, 0], [1, 0, 0], [0, 1, 1]]
    >>> BernoulliNB().fit(X, [1, 1, 0]).predict([[1, 0, 1]])
    array([1])
    """

    def __init__(
        self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True, class_prior=None
    ):
        super().__init__(
            alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior, class_prior=class_prior
        )
        self.binarize = binarize

    def _check_X(self, X, reset=False):
        X = check.check_X(self, X, reset)
        check.check_non_negative_number("binarize", self.binarize, allow_none=True)
        return X if self.binarize is None else (X > self.binarize).astype(np.float64)

    def _update_feature_log_prob(self, alpha):
        # theta_cd = (N_cd + alpha) / (N_c + 2 alpha): alpha added to both outcomes, on and off
        total = self.class_count_[:, np.newaxis] + 2 * alpha
        self.feature_log_prob_ = log_ratio(self.feature_count_ + alpha, total, 2)

    def _log_likelihood(self, X):
        log_p = self.feature_log_prob_  # log theta_cd
        with np.errstate(divide="ignore"):
            log_q = np.log1p(-np.exp(log_p))  # log(1 - theta_cd)
        if np.all(np.isfinite(log_p)) and np.all(np.isfinite(log_q)):
            # sum_d x_d log theta + (1 - x_d) log(1 - theta)
            #   = x . (log theta - log(1 - theta)) + sum_d log(1 - theta): one matrix product
            return X @ (log_p - log_q).T + log_q.sum(axis=1)
        # theta = 0 or 1 (alpha = 0): each term apart, so that 0 * log 0 counts as 0
        return xlogp(X, log_p) + xlogp(1 - X, log_q)
