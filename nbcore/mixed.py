"""Mixed naive Bayes: one likelihood family per column (Gaussian, categorical, Bernoulli)."""

import numpy as np
import pandas as pd

from nbcore import _validation as check
from nbcore.base import NaiveBayes, class_log_prior
from nbcore.bernoulli import BernoulliNB
from nbcore.categorical import CategoricalNB
from nbcore.gaussian import GaussianNB


class MixedNB(NaiveBayes):
    """Naive Bayes over columns of different kinds, such as the numeric weather data.

    Naive Bayes multiplies one likelihood per feature, so each column can have its own family:
    Gaussian for numbers, categorical for labels, Bernoulli for booleans. The joint log
    likelihood is the class log prior plus the sum of the per-column log likelihoods,
    b_c = log pi_c + sum_d log p(x_d | c). The columns of each family are fitted by the
    matching estimator, exposed as ``gaussian_``, ``categorical_`` and ``bernoulli_``.

    Parameters
    ----------
    kinds : dict or list, default=None
        The family of each column, "gaussian", "categorical" or "bernoulli": a dict
        {column name (or index): kind} for some columns, or a list with one kind per column.
        Columns not named are chosen from their data type: booleans -> "bernoulli", numbers
        -> "gaussian", anything else (strings, pandas categoricals) -> "categorical".
        Integers declared "categorical" are codes 0..max, as in :class:`CategoricalNB`.
    alpha : float, default=1.0
        Additive smoothing of the categorical and Bernoulli columns.
    force_alpha : bool, default=True
        If False, alpha below 1e-10 is raised to 1e-10 (with a warning).
    var_smoothing : float, default=1e-9
        Fraction of the largest variance of the Gaussian columns added to their variances.
    fit_prior : bool, default=True
        Estimate the class prior from the data (else uniform).
    class_prior : array-like of shape (n_classes,), default=None
        Fixed class prior; overrides ``fit_prior``.
    handle_unknown : {"error", "ignore"}, default="error"
        What to do with a category never seen in training, as in :class:`CategoricalNB`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    kinds_ : dict
        {column: kind} for every column, in column order.
    gaussian_ : GaussianNB or None
        Fitted on the Gaussian columns (``theta_``, ``var_``), None if there are none.
    categorical_ : CategoricalNB or None
        Fitted on the categorical columns (``categories_``, ``feature_log_prob_``).
    bernoulli_ : BernoulliNB or None
        Fitted on the Boolean columns (``feature_log_prob_`` = log P(x_d = True | c)).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when fitted on a DataFrame with string column names.

    Notes
    -----
    .. math:: \\log p(x, y=c) = \\log \\pi_c + \\sum_{d \\in G} \\log \\mathcal N(x_d;
              \\mu_{cd}, \\sigma^2_{cd}) + \\sum_{d \\in K} \\log \\theta_{c d x_d}
              + \\sum_{d \\in B} \\log \\theta_{cd}^{x_d} (1 - \\theta_{cd})^{1 - x_d}

    Chapter 6 fits it to the numeric weather data; the families are derived in chapter 3.
    Missing values are left out (marginalised) in categorical columns only; Gaussian and
    Bernoulli columns must be complete. To leave out such a feature for a prediction, fit and
    predict without its column: the other columns' means, variances and frequencies do not
    depend on it, and the result is the model's marginal (the left-out density integrates to
    one). This is exact with ``var_smoothing=0``; otherwise the variance floor
    ``var_smoothing`` times the largest variance among the Gaussian columns may change
    slightly when the dropped column is the widest.

    Examples
    --------
    >>> from nbcore.datasets import load_weather_numeric
    >>> weather = load_weather_numeric()
    >>> model = MixedNB().fit(weather.drop(columns="play"), weather.play)
    >>> model.kinds_["outlook"], model.kinds_["temperature"], model.kinds_["windy"]
    ('categorical', 'gaussian', 'bernoulli')
    """

    # missing values are left out in categorical columns only, so not in X in general
    _input_tags = {"categorical": True, "string": True}

    def __init__(
        self,
        *,
        kinds=None,
        alpha=1.0,
        force_alpha=True,
        var_smoothing=1e-9,
        fit_prior=True,
        class_prior=None,
        handle_unknown="error",
    ):
        self.kinds = kinds
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.var_smoothing = var_smoothing
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.handle_unknown = handle_unknown

    def _check_params(self, classes, n_features):
        """Check the parameters before anything is learned (the parts check them again)."""
        check.check_alpha(self.alpha, n_features, self.force_alpha, scalar_only=True)
        check.check_bool("fit_prior", self.fit_prior)
        check.check_non_negative_number("var_smoothing", self.var_smoothing)
        check.check_choice("handle_unknown", self.handle_unknown, ("error", "ignore"))
        if self.class_prior is not None:
            check.check_priors("class_prior", self.class_prior, classes)

    def _init_statistics(self, X, n_classes):
        # one estimator per column family present, each fitted on its columns only
        self.kinds_ = self._choose_kinds(X)
        self.class_count_ = np.zeros(n_classes)
        self.gaussian_ = self.categorical_ = self.bernoulli_ = None
        for kind in set(self.kinds_.values()):
            setattr(self, f"{kind}_", self._make(kind, n_classes))

    def _update(self, X, Y, params):
        # Y[i, c] is the weight of sample i in the column of its class: labels and weights back
        y, weights = self.classes_[Y.argmax(axis=1)], Y.sum(axis=1)
        for kind, X_part in self._split(X, self.kinds_).items():
            self._part(kind).partial_fit(X_part, y, self.classes_, sample_weight=weights)
        self.class_count_ += Y.sum(axis=0)
        self.class_log_prior_ = class_log_prior(
            self.class_count_, self.fit_prior, self.class_prior, self.classes_
        )

    def _check_fitted_model(self):
        if self.gaussian_ is not None:
            check.check_positive_variance(self.gaussian_)

    def _part(self, kind):
        """The fitted estimator of one column family."""
        return getattr(self, f"{kind}_")

    def _make(self, kind, n_classes):
        """An unfitted estimator for one column family, with a uniform class prior 1/C.

        MixedNB applies its own prior once; each part's joint score is then its log
        likelihood minus the same constant log C in every class.
        """
        if kind == "gaussian":
            uniform = np.full(n_classes, 1 / n_classes)
            return GaussianNB(var_smoothing=self.var_smoothing, priors=uniform)
        if kind == "categorical":
            return CategoricalNB(
                alpha=self.alpha,
                force_alpha=self.force_alpha,
                fit_prior=False,
                handle_unknown=self.handle_unknown,
            )
        return BernoulliNB(
            alpha=self.alpha, force_alpha=self.force_alpha, fit_prior=False, binarize=None
        )

    def _choose_kinds(self, X):
        kinds = check.check_kinds(self.kinds, list(X.columns))
        return {column: kind or _kind_of(X[column]) for column, kind in kinds.items()}

    def _split(self, X, kinds):
        """{kind: the columns of X of that kind}, numbers as floats for Gaussian and Bernoulli."""
        parts = {}
        for kind in check.KINDS:
            positions = [i for i, k in enumerate(kinds.values()) if k == kind]
            if not positions:
                continue
            part = X.iloc[:, positions]
            if kind != "categorical":  # numbers (booleans as 0/1), none missing
                part = pd.DataFrame(
                    {c: check.check_numeric_column(self, c, v, kind) for c, v in part.items()},
                    index=part.index,
                )
            parts[kind] = part
        return parts

    def _check_X_fit(self, X, reset):
        return check.check_frame(self, X, reset)

    def _check_X(self, X, reset=False):
        # the frame here; the values of each family are checked by its own estimator
        return self._split(check.check_frame(self, X, reset), self.kinds_)

    def _joint_log_likelihood(self, X):
        # b_c = log pi_c + sum over the column families of log p(x_family | c); each family's
        # estimator has the uniform prior 1/C, so its joint score is log p(x_family | c) - log C
        log_C = np.log(len(self.classes_))
        log_likelihood = sum(
            self._part(kind).predict_joint_log_proba(part) + log_C for kind, part in X.items()
        )
        return self.class_log_prior_ + log_likelihood


def _kind_of(column):
    """The likelihood family a column's data type suggests."""
    if pd.api.types.infer_dtype(column, skipna=True) == "boolean":
        return "bernoulli"
    if pd.api.types.is_numeric_dtype(column) and not isinstance(column.dtype, pd.CategoricalDtype):
        return "gaussian"
    return "categorical"
