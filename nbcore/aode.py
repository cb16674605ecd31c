"""Averaged one-dependence estimators: average over the features of "this one is a parent".

Webb, Boughton and Wang (2005). A super-parent one-dependence model with parent i says
p(x, c) = p(c, x_i) prod_{d != i} p(x_d | c, x_i): every feature depends on the class and on
feature i. AODE averages these models over the parents, with no structure to search:

    p(x, c) ~ (1 / |S|) sum_{i in S} p(c, x_i) prod_{d != i} p(x_d | c, x_i),

where S holds the features whose value x_i was seen at least ``min_parent_count`` times in
training (a rarer value gives a poor estimate of p(x_d | c, x_i)). When no feature qualifies,
the model falls back on naive Bayes. Chapter 11 compares it with naive Bayes and TAN.
"""

import numpy as np

from nbcore import _validation as check
from nbcore.numerics import categorical_log_score, log_ratio, logsumexp
from nbcore.pairwise import PairwiseNB


class AveragedOneDependenceNB(PairwiseNB):
    """Averaged one-dependence estimators (AODE) for categorical features.

    P(y = c, x_i = a) = (N_ca + alpha) / (N + C K_i alpha) and
    P(x_d = b | y = c, x_i = a) = (N_cab + alpha) / (N_ca + K_d alpha), with N_ca the number of
    class-c samples with x_i = a and N_cab those that also have x_d = b.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing; the value of feature d smooths the tables of feature d.
    force_alpha : bool, default=True
        If False, alpha below 1e-10 is raised to 1e-10 (with a warning).
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories of integer-coded features (codes 0..n-1), as in
        CategoricalNB: declares values a training set may lack, which predict then accepts.
    min_parent_count : float, default=1
        m: feature i is a parent for a sample only if its value x_i was seen at least m times
        (weighted) in training, over all classes.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, categories_, n_categories_, category_count_,
    feature_log_prob_
        As in CategoricalNB; naive Bayes is the fallback when no feature can be a parent.
    pair_count_ : dict {(i, j): ndarray of shape (n_classes, K_i, K_j)}, for i < j
        N_cab, weighted counts.
    parent_log_prob_ : list of n_features ndarrays of shape (n_classes, K_i)
        log P(y = c, x_i = a).
    child_log_prob_ : dict {(i, d): ndarray of shape (n_classes, K_i, K_d)}, for i != d
        log P(x_d = b | y = c, x_i = a).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when fitted on a DataFrame with string column names.

    Notes
    -----
    .. math:: \\log p(x, y=c) \\approx \\log \\frac{1}{|S|} \\sum_{i \\in S}
              \\exp\\Big(\\log p(c, x_i) + \\sum_{d \\ne i} \\log p(x_d \\mid c, x_i)\\Big)

    computed with logsumexp. The average is of probabilities, not of log probabilities, so
    AODE is not a log-linear model like naive Bayes. Missing values and unknown categories
    are refused.

    Examples
    --------
    >>> X = [["a", "a"], ["b", "b"], ["a", "b"], ["b", "a"]]
    >>> model = AveragedOneDependenceNB(alpha=0).fit(X, [0, 0, 1, 1])
    >>> model.predict_proba([["a", "a"], ["a", "b"]]).round(3)
    array([[1., 0.],
           [0., 1.]])
    """

    def __init__(self, *, alpha=1.0, force_alpha=True, min_categories=None, min_parent_count=1):
        super().__init__(alpha=alpha, force_alpha=force_alpha, min_categories=min_categories)
        self.min_parent_count = min_parent_count

    def _check_params(self, classes, n_features):
        check.check_real("min_parent_count", self.min_parent_count, low=0)
        return super()._check_params(classes, n_features)

    def _update_feature_log_prob(self, alpha):
        super()._update_feature_log_prob(alpha)  # naive Bayes' theta_cdk, the fallback
        n_features = len(self.categories_)
        alpha = np.broadcast_to(alpha, n_features)
        C, N = len(self.classes_), self.class_count_.sum()
        self.parent_log_prob_ = []
        for i, count in enumerate(self.category_count_):
            # P(c, x_i = a) = (N_ca + alpha) / (N + C K_i alpha): one distribution over the
            # C K_i pairs (class, value)
            cells = C * count.shape[1]
            self.parent_log_prob_.append(log_ratio(count + alpha[i], N + cells * alpha[i], cells))
        self.child_log_prob_ = {}
        for i in range(n_features):
            for d in range(n_features):
                if d != i:
                    # P(x_d = b | c, x_i = a) = (N_cab + alpha) / (N_ca + K_d alpha)
                    smoothed = self.joint_count(i, d) + alpha[d]
                    total = smoothed.sum(axis=2, keepdims=True)
                    self.child_log_prob_[i, d] = log_ratio(smoothed, total, smoothed.shape[2])

    def _joint_log_likelihood(self, X):
        n_samples, n_features = X.shape
        # one row of scores per parent i: log p(c, x_i) + sum_{d != i} log p(x_d | c, x_i)
        per_parent = np.empty((n_features, n_samples, len(self.classes_)))
        for i in range(n_features):
            a = X[:, i]
            per_parent[i] = self.parent_log_prob_[i][:, a].T
            for d in range(n_features):
                if d != i:
                    per_parent[i] += self.child_log_prob_[i, d][:, a, X[:, d]].T
        # S: the features whose value is frequent enough to be a parent for this sample
        frequent = (
            np.stack([self.category_count_[i].sum(axis=0)[X[:, i]] for i in range(n_features)])
            >= self.min_parent_count
        )  # shape (n_features, n_samples)
        n_parents = frequent.sum(axis=0)
        per_parent[~frequent] = -np.inf
        score = np.empty((n_samples, len(self.classes_)))
        some = n_parents > 0  # the mean over S of p(c, x_i) prod_d p(x_d | c, x_i), in logs
        score[some] = logsumexp(per_parent[:, some], axis=0) - np.log(n_parents[some])[:, None]
        # a sample with no frequent value: naive Bayes
        score[~some] = self.class_log_prior_ + categorical_log_score(
            X[~some], self.feature_log_prob_
        )
        return score
