"""What every naive Bayes classifier shares: parameters, fitting, prediction, scoring.

fit and partial_fit are written once, here: check the input, build the one-hot label matrix,
and hand each batch to the model, which adds it to its sufficient statistics (counts, sums).
A classifier then only supplies its joint log likelihood, b_c = log pi_c + log p(x | y=c) for
every sample and class; predict, predict_proba, predict_log_proba and score are written once,
here too. The discrete models (:class:`DiscreteNB`) further only say how to count and how to
turn counts into smoothed log probabilities.
"""

import inspect

import numpy as np

from nbcore import _validation as check
from nbcore.numerics import logsumexp


class NaiveBayes:
    """Base class: fit batch by batch, predict from the joint log likelihood of each class.

    Subclasses define ``__init__`` (keyword parameters stored unchanged, as in scikit-learn)
    and these hooks:

    * ``_check_X(X, reset=False)``: validate X and convert it for ``_joint_log_likelihood``
      (``_check_X_fit`` if fit takes X in another form);
    * ``_check_params(classes, n_features)``: check the parameters before anything is
      learned; what it returns is passed on to ``_update``;
    * ``_init_statistics(X, n_classes)``: empty statistics, before the first batch;
    * ``_update(X, Y, params)``: add a batch to the statistics and recompute the model's
      parameters; ``Y`` is the weighted one-hot label matrix of :func:`one_hot`;
    * ``_check_fitted_model()``: what ``fit`` (not ``partial_fit``) refuses to end with;
    * ``_joint_log_likelihood(X)``: b of shape (n_samples, n_classes).

    Notes
    -----
    Bayes' rule, P(y=c | x) = exp(b_c) / sum_c' exp(b_c'), computed as
    exp(b_c - logsumexp(b)); chapters 1 and 8. Every statistic is a sum over samples, so
    fitting batch by batch (partial_fit) gives what fit gives on all of them (chapter 10).
    """

    _estimator_type = "classifier"
    _input_tags = {}
    _poor_score = False  # scikit-learn's tag: its generic checks expect a good training score

    # -- parameters: scikit-learn's conventions, so that clone, Pipeline and GridSearchCV work

    @classmethod
    def _param_defaults(cls):
        """{name: default} of the constructor's keyword parameters, in signature order."""
        parameters = inspect.signature(cls.__init__).parameters.values()
        return {p.name: p.default for p in parameters if p.name != "self"}

    def get_params(self, deep=True):
        """Parameters of this estimator, {name: value} (``deep`` is accepted and ignored)."""
        return {name: getattr(self, name) for name in self._param_defaults()}

    def set_params(self, **params):
        """Set parameters by name; returns the estimator."""
        valid = list(self._param_defaults())
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {self!r}. Valid parameters "
                    f"are: {valid}."
                )
            setattr(self, name, value)
        return self

    def __repr__(self):
        changed = [
            f"{name}={getattr(self, name)!r}"
            for name, default in self._param_defaults().items()
            if repr(getattr(self, name)) != repr(default)
        ]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        """Describe the estimator to scikit-learn >= 1.6, which asks every estimator for it."""
        return _sklearn_tags(self._input_tags, self._poor_score)

    # -- fitting: the same steps for every model, each model's statistics in its hooks

    def fit(self, X, y, sample_weight=None):
        """Fit from scratch on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Each sample counts sample_weight[i] times.

        Returns
        -------
        self
        """
        self._forget()
        self._fit(X, y, None, sample_weight, refit=True)
        self._check_fitted_model()
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of samples to what was learned so far (out-of-core or online learning).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every label that may ever appear; required on the first call only.
        sample_weight : array-like of shape (n_samples,), default=None
            Each sample counts sample_weight[i] times.

        Returns
        -------
        self
        """
        return self._fit(X, y, classes, sample_weight, refit=False)

    def _fit(self, X, y, classes, sample_weight, refit):
        first_call, X, y, classes, weights = check.check_fit_input(
            self, X, y, classes, sample_weight, refit, self._check_X_fit
        )
        params = self._check_params(classes, X.shape[1])
        if first_call:
            self.classes_ = classes
            self._init_statistics(X, len(classes))
        try:
            self._update(X, one_hot(y, classes, weights), params)
        except Exception:
            if first_call:  # a first batch that fails leaves nothing half learned
                self._forget()
            raise
        return self

    def _check_X_fit(self, X, reset):
        """X at fit; the same checks as at predict unless a model says otherwise."""
        return self._check_X(X, reset=reset)

    def _check_fitted_model(self):
        """Refuse a model fit cannot end with (none by default; see GaussianNB)."""

    def _forget(self):
        """Drop everything learned (fit starts over)."""
        parameters = self._param_defaults()  # a parameter may end in "_" too (lambda_)
        for name in [a for a in vars(self) if a.endswith("_") and not a.startswith("__")]:
            if name not in parameters:
                delattr(self, name)

    # -- prediction

    def predict_joint_log_proba(self, X):
        """Joint log probabilities b_c = log P(y=c) + log P(x | y=c).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``. Entries may be -inf (a class that is
            impossible for a sample, with zero smoothing).
        """
        check.check_is_fitted(self)
        return self._joint_log_likelihood(self._check_X(X))

    def _shifted_scores(self, X):
        """b_c - B for every sample, B = max_c b_c its largest joint score, and the argmax."""
        # stored class by class (column-major): the max and sum over the classes that follow
        # then run along memory, many times faster than along short rows of a few classes
        jll = np.asfortranarray(self.predict_joint_log_proba(X))
        best = jll.max(axis=1, keepdims=True)
        check.check_scores(best)
        # b - B is exact for the classes that matter, however large |B| is; the largest shifted
        # score is 0, so exp of the shifted scores neither overflows nor underflows for it
        return jll - best

    def predict_log_proba(self, X):
        """Log posterior probabilities log P(y=c | x) = b_c - logsumexp(b).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        shifted = self._shifted_scores(X)
        # log P(c | x) = (b_c - B) - log sum_c' exp(b_c' - B): exact for the stored scores, and
        # the probabilities sum to 1 to rounding (the scores' own rounding error is not undone;
        # chapter 8)
        return shifted - logsumexp(shifted, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Posterior probabilities P(y=c | x); each row sums to 1.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        # P(c | x) = exp(b_c - B) / sum_c' exp(b_c' - B), the softmax of the shifted scores: the
        # exp of predict_log_proba, with one exp and one log fewer
        proba = np.exp(self._shifted_scores(X))
        proba /= proba.sum(axis=1, keepdims=True)
        return proba

    def predict(self, X):
        """The most probable class of each sample, argmax_c b_c.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        shifted = self._shifted_scores(X)  # argmax_c b_c = argmax_c (b_c - B)
        return self.classes_[np.argmax(shifted, axis=1)]

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of ``predict(X)`` against ``y``, optionally weighted.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        float
        """
        y_pred = self.predict(X)
        y = check.check_y(y, len(y_pred))
        weights = check.check_sample_weight(sample_weight, len(y))
        return float(np.average(y_pred == y, weights=weights))


def _sklearn_tags(input_tags, poor_score):
    """scikit-learn's ``Tags`` of a classifier with these input tags.

    Only scikit-learn asks for tags, so it is imported here, when it is already loaded: nbcore
    itself never needs it. ``estimator_type="classifier"`` makes its ``is_classifier`` true, so
    that ``cross_val_score`` uses stratified folds.
    """
    from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

    return Tags(
        estimator_type="classifier",
        target_tags=TargetTags(required=True),
        classifier_tags=ClassifierTags(poor_score=poor_score),
        input_tags=InputTags(**input_tags),
    )


def one_hot(y, classes, weights):
    """The weighted one-hot label matrix Y, Y[i, c] = weight of sample i if y_i = c, else 0.

    Every statistic of naive Bayes is a sum over the samples of each class, so it is a matrix
    product with Y: N_c = sum_i Y_ic, and sum_i Y_ic x_i is row c of Y.T @ X.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Labels, each one of ``classes``.
    classes : ndarray of shape (n_classes,)
        Sorted.
    weights : ndarray of shape (n_samples,)

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    Y = np.zeros((len(y), len(classes)))
    Y[np.arange(len(y)), np.searchsorted(classes, y)] = weights
    return Y


def class_log_prior(class_count, fit_prior, class_prior, classes):
    """log pi_c: given (class_prior), estimated (N_c / N) or uniform (1 / C).

    Parameters
    ----------
    class_count : ndarray of shape (n_classes,)
    fit_prior : bool
    class_prior : array-like of shape (n_classes,) or None
    classes : ndarray of shape (n_classes,)

    Returns
    -------
    ndarray of shape (n_classes,)

    Notes
    -----
    N_c / N is the maximum likelihood estimate of pi_c (chapter 3).
    """
    with np.errstate(divide="ignore"):  # a prior or a count of 0 gives log 0 = -inf
        if class_prior is not None:
            return np.log(check.check_priors("class_prior", class_prior, classes))
        if fit_prior:
            return np.log(class_count) - np.log(class_count.sum())
    return np.full(len(classes), -np.log(len(classes)))


class DiscreteNB(NaiveBayes):
    """Base class of the counting models: Bernoulli, multinomial, complement, categorical.

    Subclasses supply ``_count(X, Y)`` (add this batch's counts; ``Y`` is the weighted one-hot
    label matrix), ``_update_feature_log_prob(alpha)`` (smoothed log probabilities from all
    counts so far) and, if they count other things than ``feature_count_``,
    ``_init_counters``; plus ``_check_X`` and ``_log_likelihood``.

    Notes
    -----
    Counting is maximum likelihood (chapter 3); adding alpha to every count is the
    posterior mean under a symmetric Dirichlet (Beta) prior (chapter 4).
    """

    # as in scikit-learn: counting models are not meant to score well on the continuous data
    # of its generic checks
    _poor_score = True

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _check_params(self, classes, n_features):
        """Check the parameters before anything is learned; returns alpha."""
        check.check_bool("fit_prior", self.fit_prior)
        if self.class_prior is not None:
            check.check_priors("class_prior", self.class_prior, classes)
        return check.check_alpha(self.alpha, n_features, self.force_alpha)

    def _init_statistics(self, X, n_classes):
        self._init_counters(n_classes, X.shape[1])

    def _update(self, X, Y, alpha):
        # count, then smooth: the counts hold every batch so far
        self._count(X, Y)
        self._update_feature_log_prob(alpha)
        self.class_log_prior_ = class_log_prior(
            self.class_count_, self.fit_prior, self.class_prior, self.classes_
        )

    def _init_counters(self, n_classes, n_features):
        self.class_count_ = np.zeros(n_classes)
        self.feature_count_ = np.zeros((n_classes, n_features))

    def _count(self, X, Y):
        # N_c = sum_i Y_ic and N_cd = sum_i Y_ic x_id, for every class at once
        self.class_count_ += Y.sum(axis=0)
        self.feature_count_ += Y.T @ X

    def _joint_log_likelihood(self, X):
        return self.class_log_prior_ + self._log_likelihood(X)
