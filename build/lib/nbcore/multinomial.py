"""Multinomial naive Bayes: word counts drawn from a class's distribution over the vocabulary."""

from nbcore import _validation as check
from nbcore.base import DiscreteNB
from nbcore.numerics import log_ratio, xlogp


class MultinomialNB(DiscreteNB):
    """Naive Bayes for counts, such as how often each word occurs in a document.

    Class c has a distribution theta_c over the features (words); a document's counts x are
    draws from it, p(x | c) proportional to prod_d theta_cd ** x_d. Estimated by counting,
    theta_cd = (N_cd + alpha) / (N_c,total + n_features * alpha), where N_cd is the total count of
    feature d in class c and N_c,total = sum_d N_cd (words, not documents, of class c).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing; 0 gives the maximum likelihood estimate.
    force_alpha : bool, default=True
        If False, alpha below 1e-10 is raised to 1e-10 (with a warning).
    fit_prior : bool, default=True
        Estimate the class prior from the data (else uniform).
    class_prior : array-like of shape (n_classes,), default=None
        Fixed class prior; overrides ``fit_prior``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of samples of each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        log pi_c.
    feature_count_ : ndarray of shape (n_classes, n_features)
        N_cd, the weighted count of feature d in class c.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log theta_cd.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when fitted on a DataFrame with string column names.

    Notes
    -----
    .. math:: \\log p(x, y=c) = \\log \\pi_c + \\sum_d x_d \\log \\theta_{cd} + \\text{const}

    The maximum likelihood estimate (Lagrange multipliers) is chapter 3, smoothing chapter 4,
    the text model chapter 7; the score is linear in x (chapter 9).

    Examples
    --------
    >>> X = [[2, 1, 0], [3, 0, 1], [0, 2, 3]]
    >>> MultinomialNB().fit(X, ["spam", "spam", "ham"]).predict([[1, 0, 0]])
    array(['spam'], dtype='<U4')
    """

    _input_tags = {"positive_only": True}

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None):
        super().__init__(
            alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior, class_prior=class_prior
        )

    def _check_X(self, X, reset=False):
        return check.check_X(self, X, reset, counts=True)

    def _update_feature_log_prob(self, alpha):
        # theta_cd = (N_cd + alpha) / sum_d' (N_cd' + alpha)
        smoothed = self.feature_count_ + alpha
        total = smoothed.sum(axis=1, keepdims=True)
        self.feature_log_prob_ = log_ratio(smoothed, total, smoothed.shape[1])

    def _log_likelihood(self, X):
        # log prod_d theta_cd ** x_d = sum_d x_d log theta_cd: one matrix product. The
        # multinomial coefficient does not depend on the class and cancels in the posterior.
        return xlogp(X, self.feature_log_prob_)
