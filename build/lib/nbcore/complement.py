"""Complement naive Bayes: score each class by how badly its complement explains a document."""

import numpy as np

from nbcore import _validation as check
from nbcore.base import DiscreteNB
from nbcore.numerics import xlogp


class ComplementNB(DiscreteNB):
    """Complement naive Bayes (Rennie et al., 2003) for counts, suited to unbalanced classes.

    For each class c it estimates the word distribution of all the *other* classes,
    theta~_cd = (N~_cd + alpha) / (N~_c + n_features * alpha), where N~_cd is the count of
    feature d outside class c, and weighs each word by w_cd = -log theta~_cd. A document goes
    to the class whose complement explains it worst: argmax_c sum_d x_d w_cd. Using every
    other class's data gives each estimate more counts than the class alone would have.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing of the complement counts.
    force_alpha : bool, default=True
        If False, alpha below 1e-10 is raised to 1e-10 (with a warning).
    fit_prior : bool, default=True
        Only used when there is a single class (as in scikit-learn).
    class_prior : array-like of shape (n_classes,), default=None
        Only used when there is a single class.
    norm : bool, default=False
        Divide each class's log weights by their sum (the second normalisation of Rennie et
        al.), so that classes with long complements do not dominate.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
        N_cd, the weighted count of feature d in class c.
    feature_all_ : ndarray of shape (n_features,)
        sum_c N_cd, the count of each feature over all classes.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The weights w_cd = -log theta~_cd (normalised when ``norm=True``).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when fitted on a DataFrame with string column names.

    Notes
    -----
    .. math:: \\hat y = \\arg\\max_c \\sum_d x_d \\, w_{cd}, \\quad
              w_{cd} = -\\log \\tilde\\theta_{cd}

    The predicted "probabilities" are a softmax of these scores, not a generative model's
    posterior. Derived in chapter 7 (text), smoothing in chapter 4.
    """

    _input_tags = {"positive_only": True}

    def __init__(
        self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, norm=False
    ):
        super().__init__(
            alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior, class_prior=class_prior
        )
        self.norm = norm

    def _check_X(self, X, reset=False):
        return check.check_X(self, X, reset, counts=True)

    def _check_params(self, classes, n_features):
        check.check_bool("norm", self.norm)
        return super()._check_params(classes, n_features)

    def _count(self, X, Y):
        super()._count(X, Y)
        self.feature_all_ = self.feature_count_.sum(axis=0)

    def _update_feature_log_prob(self, alpha):
        # N~_cd + alpha: the smoothed count of feature d in every class but c
        complement = self.feature_all_ + alpha - self.feature_count_
        with np.errstate(divide="ignore", invalid="ignore"):  # log 0 = -inf when alpha = 0
            log_theta = np.log(complement / complement.sum(axis=1, keepdims=True))
        if self.norm:
            check.check_complement_norm(self, log_theta)
            self.feature_log_prob_ = log_theta / log_theta.sum(axis=1, keepdims=True)
        else:
            self.feature_log_prob_ = -log_theta

    def _joint_log_likelihood(self, X):
        # sum_d x_d w_cd = -sum_d x_d log theta~_cd, with 0 * log 0 = 0 (alpha = 0)
        jll = -xlogp(X, -self.feature_log_prob_)
        if len(self.classes_) == 1:
            jll += self.class_log_prior_
        return jll
