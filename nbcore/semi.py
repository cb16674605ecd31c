"""Naive Bayes from labelled and unlabelled data: EM (Nigam, McCallum, Thrun and Mitchell, 2000)."""

import numbers

import numpy as np
import pandas as pd

from nbcore import _validation as check
from nbcore.base import NaiveBayes
from nbcore.bernoulli import BernoulliNB
from nbcore.categorical import CategoricalNB
from nbcore.multinomial import MultinomialNB
from nbcore.numerics import logsumexp

UNLABELLED = -1  # scikit-learn's mark of an unlabelled sample
WRAPPABLE = (MultinomialNB, BernoulliNB, CategoricalNB)


class SemiSupervisedNB(NaiveBayes):
    """A counting naive Bayes model fitted by EM to labelled and unlabelled samples.

    Labels equal to -1 mark unlabelled samples (scikit-learn's convention). The model starts
    from the labelled samples alone, then alternates:

    * E-step: r_ic = P(y=c | x_i) under the current model, for every unlabelled sample i;
    * M-step: the wrapped model's smoothed estimates from weighted counts, in which a labelled
      sample counts once for its class and an unlabelled sample counts lambda_ * r_ic for
      every class c (as if split into one weighted copy per class).

    Parameters
    ----------
    estimator : MultinomialNB, BernoulliNB or CategoricalNB, default=None
        The model whose counts are weighted (unfitted; its parameters are used, alpha
        included). None means ``MultinomialNB()``.
    lambda_ : float, default=1.0
        Weight of each unlabelled sample relative to a labelled one, >= 0. 0 ignores them.
    max_iter : int, default=100
        Most EM iterations (each an E-step and an M-step).
    tol : float, default=1e-6
        Stop when an iteration raises the objective by no more than ``tol`` times its size
        (``tol=0``: stop as soon as an iteration does not raise it at all, a fixed point or a
        fall by rounding).

    Attributes
    ----------
    estimator_ : the fitted wrapped model (its parameters after the last M-step)
    classes_ : ndarray of shape (n_classes,)
        The labels of the labelled samples, sorted.
    n_iter_ : int
        EM iterations run; 0 when no sample is unlabelled or lambda_ is 0.
    log_likelihood_ : ndarray of shape (n_iter_ + 1,)
        The objective after the labelled fit and after every iteration (see Notes); it never
        decreases, up to rounding.
    converged_ : bool
        Whether the last iteration gained no more than ``tol`` times the objective's size
        (False when max_iter stopped it).
    n_features_in_ : int

    Notes
    -----
    EM maximises the weighted log posterior of the parameters theta,

    .. math:: \\sum_{i \\in L} \\log p(x_i, y_i \\mid \\theta)
              + \\lambda \\sum_{i \\in U} \\log \\sum_c p(x_i, c \\mid \\theta)
              + \\log p(\\theta)

    where p(theta) is the Dirichlet prior whose posterior mode is the smoothed estimate: the
    M-step's (N + alpha) / (total + K alpha) is that mode, so every iteration raises this
    objective, or leaves it unchanged (the EM inequality, Dempster, Laird and Rubin 1977).
    ``log_likelihood_`` holds it with log p(theta) up to its normalising constant:
    alpha * sum log theta over every smoothed probability (alpha * sum [log theta +
    log(1 - theta)] for BernoulliNB), and the multinomial coefficients left out, as in the
    models' own scores. The class prior is estimated (fit_prior) without a prior of its own;
    a wrapped model given ``class_prior`` (or ``fit_prior=False``) keeps that prior in every
    M-step, and only theta is re-estimated.
    Chapter 12 derives the steps and shows when EM helps and when it hurts.

    Examples
    --------
    >>> X = [[3, 0], [0, 3], [2, 1], [1, 2], [4, 0], [0, 4]]
    >>> model = SemiSupervisedNB().fit(X, [0, 1, -1, -1, -1, -1])
    >>> model.predict(X).tolist(), bool(np.all(np.diff(model.log_likelihood_) >= -1e-9))
    ([0, 1, 0, 1, 0, 1], True)
    """

    # the default wrapped model's (MultinomialNB): counts >= 0, dense or sparse
    _input_tags = {"positive_only": True, "sparse": True}
    _poor_score = True

    def __init__(self, estimator=None, *, lambda_=1.0, max_iter=100, tol=1e-6):
        self.estimator = estimator
        self.lambda_ = lambda_
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y):
        """Fit by EM on labelled (y != -1) and unlabelled (y == -1) samples.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            What the wrapped model takes (counts, 0/1 values, or categories).
        y : array-like of shape (n_samples,)
            Labels; -1 marks an unlabelled sample.

        Returns
        -------
        self
        """
        self._forget()
        template = self._check_parameters()
        X = _as_table(X, template)
        y = check.check_y(y, X.shape[0])
        unlabelled = np.array([label is not None and _is_unlabelled(label) for label in y])
        if unlabelled.all():
            raise ValueError(
                "y has no labelled sample (every label is -1): EM needs at least one labelled "
                "sample of each class to start from."
            )
        labelled_rows, unlabelled_rows = np.flatnonzero(~unlabelled), np.flatnonzero(unlabelled)
        # the labelled fit, on every row so that the model sees every feature value (a
        # category met only in unlabelled rows), the unlabelled ones with weight 0
        start = y.copy()
        start[unlabelled_rows] = y[labelled_rows[0]]
        weights = (~unlabelled).astype(float)
        model = _fresh(template).fit(X, start, sample_weight=weights)
        self.classes_ = model.classes_
        labelled_index = np.searchsorted(self.classes_, y[labelled_rows])

        with np.errstate(invalid="ignore", divide="ignore"):
            objective, responsibility = self._objective(
                model, X, labelled_rows, labelled_index, unlabelled_rows
            )
        if not np.isfinite(objective):
            raise ValueError(
                "the objective is -inf at the labelled fit: some unlabelled sample has "
                "probability zero under every class, as when alpha = 0 and it holds a feature "
                "value that no labelled sample has. Use alpha > 0."
            )
        trace = [objective]
        self.converged_ = True
        if len(unlabelled_rows) and self.lambda_ > 0:
            self.converged_ = False
            rows, labels = _expanded(labelled_rows, unlabelled_rows, y, self.classes_)
            for _ in range(self.max_iter):
                # M-step: every unlabelled row once per class c, weighted lambda * r_ic (the
                # E-step's responsibilities, computed with the objective)
                weights = np.concatenate(
                    [np.ones(len(labelled_rows)), self.lambda_ * responsibility.T.ravel()]
                )
                model = _fresh(template).fit(_rows(X, rows), labels, sample_weight=weights)
                objective, responsibility = self._objective(
                    model, X, labelled_rows, labelled_index, unlabelled_rows
                )
                trace.append(objective)
                if trace[-1] - trace[-2] <= self.tol * abs(trace[-2]):
                    self.converged_ = True
                    break
        self.estimator_ = model
        self.log_likelihood_ = np.array(trace)
        self.n_iter_ = len(trace) - 1
        self.n_features_in_ = model.n_features_in_
        if hasattr(model, "feature_names_in_"):
            self.feature_names_in_ = model.feature_names_in_
        return self

    @property
    def partial_fit(self):
        """Not available: EM revisits every sample at every iteration (use fit).

        A property that raises AttributeError, so that ``hasattr(model, "partial_fit")`` is
        False, as scikit-learn's tools expect of an estimator that cannot learn in batches.
        """
        raise AttributeError(
            "SemiSupervisedNB has no partial_fit: EM revisits every sample at every "
            "iteration, so it fits the whole data at once; use fit."
        )

    def _objective(self, model, X, labelled_rows, labelled_index, unlabelled_rows):
        """The EM objective of ``model`` (see Notes) and the unlabelled rows' r_ic."""
        b = model.predict_joint_log_proba(X)  # b_ic = log p(x_i, y=c)
        labelled = b[labelled_rows, labelled_index].sum()
        b_unlabelled = b[unlabelled_rows]
        evidence = logsumexp(b_unlabelled, axis=1, keepdims=True)  # log p(x_i)
        responsibility = np.exp(b_unlabelled - evidence)  # r_ic = p(x_i, c) / p(x_i)
        objective = labelled + self.lambda_ * evidence.sum() + _log_prior(model)
        return float(objective), responsibility

    def _check_parameters(self):
        """The wrapped model to copy (after checking every parameter)."""
        template = MultinomialNB() if self.estimator is None else self.estimator
        if not isinstance(template, WRAPPABLE):
            raise TypeError(
                "estimator must be an nbcore MultinomialNB, BernoulliNB or CategoricalNB (a "
                f"model fitted from counts that can be weighted); got {template!r}."
            )
        check.check_non_negative_number("lambda_", self.lambda_)
        check.check_int("max_iter", self.max_iter, low=1)
        check.check_non_negative_number("tol", self.tol)
        return template

    def _check_X(self, X, reset=False):
        check.check_is_fitted(self)
        return self.estimator_._check_X(X)

    def _joint_log_likelihood(self, X):
        return self.estimator_._joint_log_likelihood(X)


def _is_unlabelled(label):
    return isinstance(label, numbers.Number) and not isinstance(label, bool) and label == -1


def _fresh(template):
    """An unfitted copy of the wrapped model, with its parameters."""
    return type(template)(**template.get_params())


def _as_table(X, template):
    """X in a form whose rows can be taken and repeated: a DataFrame for CategoricalNB, a
    scipy.sparse matrix as it is, otherwise an ndarray."""
    if isinstance(template, CategoricalNB):
        return X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X, dtype=object))
    if hasattr(X, "tocsr"):  # scipy.sparse: rows are taken from CSR without densifying
        return X.tocsr()
    return X if isinstance(X, np.ndarray) else np.asarray(X)


def _rows(X, rows):
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]


def _expanded(labelled_rows, unlabelled_rows, y, classes):
    """Rows and labels of the M-step's data: the labelled rows, then the unlabelled rows once
    per class (all of them labelled c, for each class c in turn)."""
    rows = np.concatenate([labelled_rows, np.tile(unlabelled_rows, len(classes))])
    labels = np.concatenate([y[labelled_rows], np.repeat(classes, len(unlabelled_rows))])
    return rows, labels


def _log_prior(model):
    """log p(theta) up to a constant: alpha * sum log theta over the smoothed probabilities."""
    alpha = check.check_alpha(model.alpha, model.n_features_in_, model.force_alpha)
    if isinstance(model, CategoricalNB):
        tables = model.feature_log_prob_  # one (n_classes, K_d) table per feature
        alpha = np.broadcast_to(alpha, len(tables))
        return sum(_alpha_log(a, table) for a, table in zip(alpha, tables, strict=True))
    log_theta = model.feature_log_prob_  # (n_classes, n_features)
    total = _alpha_log(alpha, log_theta)
    if isinstance(model, BernoulliNB):  # the Beta prior puts alpha on "off" too
        with np.errstate(divide="ignore"):
            total += _alpha_log(alpha, np.log1p(-np.exp(log_theta)))
    return total


def _alpha_log(alpha, log_theta):
    """sum alpha * log theta, with 0 * log 0 = 0 (alpha = 0 puts no prior on theta)."""
    terms = np.broadcast_to(alpha, log_theta.shape[-1:]) * log_theta
    return float(np.sum(np.where(np.broadcast_to(alpha, log_theta.shape[-1:]) > 0, terms, 0.0)))
