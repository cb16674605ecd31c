"""Categorical naive Bayes: each feature takes one of a few values (labels, codes, booleans)."""

import warnings

import numpy as np
import pandas as pd

from nbcore import _validation as check
from nbcore.base import DiscreteNB
from nbcore.numerics import categorical_log_score, log_ratio


class CategoricalNB(DiscreteNB):
    """Naive Bayes for categorical features, such as outlook in {sunny, overcast, rainy}.

    Feature d of class c takes value k with probability theta_cdk, estimated by counting,
    theta_cdk = (N_cdk + alpha) / (N_cd + K_d alpha), with N_cdk the number of class-c samples
    whose feature d is k, N_cd = sum_k N_cdk (N_c unless values are missing) and K_d the
    number of categories of feature d.

    Categories are taken as they come: strings, booleans, pandas categoricals (all their
    declared categories, in their order), numbers; a DataFrame keeps its column names.
    Non-negative whole numbers are read as scikit-learn reads them, as codes with categories
    0, 1, ..., max (at least ``min_categories``), so its results are reproduced exactly; to
    take integers as labels instead, give them as strings or as a pandas categorical.

    A missing value (None, NaN) is left out: at fit it is not counted, at predict its feature
    drops out of the product, which is exactly marginalising it, sum_k theta_cdk = 1.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing (a symmetric Dirichlet prior); 0 gives the relative frequencies.
    force_alpha : bool, default=True
        If False, alpha below 1e-10 is raised to 1e-10 (with a warning).
    fit_prior : bool, default=True
        Estimate the class prior from the data (else uniform).
    class_prior : array-like of shape (n_classes,), default=None
        Fixed class prior; overrides ``fit_prior``.
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories of integer-coded features (codes 0..n-1); features of
        other values keep the categories they show or declare (with a warning when that is
        fewer than ``min_categories``: declare labels with a pandas categorical instead).
    handle_unknown : {"error", "ignore"}, default="error"
        A category at predict time that was never seen in training: "error" raises a
        ValueError naming the feature and the value; "ignore" leaves that feature out of the
        product for that sample, like a missing value.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    categories_ : list of n_features ndarrays
        The category values of each feature; column k of the arrays below is category k.
    n_categories_ : ndarray of shape (n_features,)
        K_d, the number of categories of each feature (after ``partial_fit``, of all batches;
        scikit-learn counts those of the last batch only).
    category_count_ : list of n_features ndarrays of shape (n_classes, K_d)
        N_cdk, weighted counts.
    feature_log_prob_ : list of n_features ndarrays of shape (n_classes, K_d)
        log theta_cdk = log P(x_d = k | y = c).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when fitted on a DataFrame with string column names.

    Notes
    -----
    .. math:: \\log p(x, y=c) = \\log \\pi_c + \\sum_{d:\\, x_d \\text{ observed}}
              \\log \\theta_{c d x_d}

    Maximum likelihood is chapter 3, smoothing chapter 4, the weather example and the
    marginalisation of missing values chapter 6. With alpha=0 a value never seen with class c
    has probability 0 (log = -inf); when that rules out every class for a sample, predict and
    predict_proba raise a ValueError, as the posterior is 0/0.

    Examples
    --------
    >>> X = [["sunny", True], ["rainy", False], ["sunny", False]]
    >>> model = CategoricalNB(alpha=0).fit(X, ["no", "yes", "yes"])
    >>> model.categories_[0], model.predict_proba([["sunny", None]])[0].round(3)
    (array(['rainy', 'sunny'], dtype=object), array([0.5, 0.5]))
    """

    _input_tags = {"categorical": True, "string": True, "allow_nan": True}

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        min_categories=None,
        handle_unknown="error",
    ):
        super().__init__(
            alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior, class_prior=class_prior
        )
        self.min_categories = min_categories
        self.handle_unknown = handle_unknown

    def _check_params(self, classes, n_features):
        check.check_choice("handle_unknown", self.handle_unknown, ("error", "ignore"))
        check.check_min_categories(self.min_categories, n_features)
        return super()._check_params(classes, n_features)

    def _check_X_fit(self, X, reset):
        return check.check_frame(self, X, reset)

    def _check_X(self, X, reset=False):
        check.check_choice("handle_unknown", self.handle_unknown, ("error", "ignore"))
        return self._encode(check.check_frame(self, X, reset))

    def _init_counters(self, n_classes, n_features):
        self.class_count_ = np.zeros(n_classes)
        self.categories_ = [np.array([]) for _ in range(n_features)]
        self.category_count_ = [np.zeros((n_classes, 0)) for _ in range(n_features)]

    def _count(self, X, Y):
        min_categories = check.check_min_categories(self.min_categories, X.shape[1])
        self.class_count_ += Y.sum(axis=0)
        n_classes = Y.shape[1]
        # each row of Y has one entry, the sample's weight in the column of its class
        y_index, weight = Y.argmax(axis=1), Y.max(axis=1)
        for d in range(X.shape[1]):
            column = X.iloc[:, d]
            at_least = 0 if min_categories is None else min_categories[d]
            self._add_categories(d, *_categories_in(column), at_least)
            K = len(self.categories_[d])
            codes = _codes(column, self.categories_[d])
            seen = codes >= 0  # a missing value is not counted
            # N_cdk = sum_i w_i [y_i = c][x_id = k]: one weighted count of the pairs (c, k)
            pairs = y_index[seen] * K + codes[seen]
            counts = np.bincount(pairs, weight[seen], minlength=n_classes * K)
            self.category_count_[d] += counts.reshape(n_classes, K)
        self.n_categories_ = np.array([len(k) for k in self.categories_], dtype=np.int64)

    def _add_categories(self, d, new, declared, at_least):
        """Extend the categories of feature d (and their counts, with zeros) by ``new``."""
        old = self.categories_[d]
        merged = np.concatenate([old, new[pd.Index(old).get_indexer(new) < 0]]) if len(old) else new
        # a declared type (pandas categorical, boolean) keeps its categories in their order;
        # integer codes are read as scikit-learn reads them, every category 0, 1, ..., max
        if not declared and _are_codes(merged):
            merged = np.arange(max(int(merged.max()) + 1, at_least))
        elif not declared:
            merged = _sorted(merged)
        if at_least > len(merged):  # only codes can be extended: there are no names to add
            warnings.warn(
                f"min_categories={at_least} is ignored for {check._feature(self, d)}: its "
                f"values are not integer codes, so it keeps the {len(merged)} categories it "
                "shows or declares. Declare the categories of labels with a pandas "
                "categorical column (pd.CategoricalDtype([...]) listing every value).",
                UserWarning,
                stacklevel=4,
            )
        counts = np.zeros((len(self.classes_), len(merged)))
        counts[:, pd.Index(merged).get_indexer(old)] = self.category_count_[d]
        self.categories_[d], self.category_count_[d] = np.asarray(merged), counts

    def _update_feature_log_prob(self, alpha):
        alpha = np.broadcast_to(alpha, len(self.category_count_))
        self.feature_log_prob_ = []
        for count, a in zip(self.category_count_, alpha, strict=True):
            # theta_cdk = (N_cdk + alpha) / (N_cd + K_d alpha), N_cd counting observed values
            smoothed = count + a
            total = smoothed.sum(axis=1, keepdims=True)
            self.feature_log_prob_.append(log_ratio(smoothed, total, count.shape[1]))

    def _encode(self, X):
        """Category index of every value, shape (n_samples, n_features); -1 means left out."""
        codes = np.empty(X.shape, dtype=np.intp)
        for d in range(X.shape[1]):
            column = X.iloc[:, d]
            codes[:, d] = _codes(column, self.categories_[d])
            unknown = (codes[:, d] < 0) & column.notna().to_numpy()
            if unknown.any() and self.handle_unknown == "error":
                value = column.to_numpy()[unknown][0]
                raise check.unknown_category_error(self, d, value, self.categories_[d])
        return codes

    def _log_likelihood(self, X):
        # sum_d log theta_{c, d, x_d} over the observed features; code -1 (missing, or an
        # unknown category ignored) leaves its feature out of the product
        return categorical_log_score(X, self.feature_log_prob_)


def _categories_in(column):
    """The categories a column shows, and whether its data type declares them (in order).

    Declared: all categories of a pandas categorical, False and True for booleans. Otherwise
    the distinct non-missing values present.
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        return np.asarray(column.cat.categories), True
    if pd.api.types.infer_dtype(column, skipna=True) == "boolean":
        return np.array([False, True]), True
    return pd.unique(column.dropna().to_numpy()), False


def _are_codes(categories):
    """Non-negative whole numbers (not booleans): scikit-learn's integer codes."""
    if categories.dtype.kind not in "iuf" or len(categories) == 0:
        return False
    return bool(np.all(categories >= 0) and np.all(categories == np.floor(categories)))


def _sorted(values):
    try:
        return np.sort(values)
    except TypeError:  # values of several types, e.g. strings and numbers
        return np.array(sorted(values, key=lambda v: (type(v).__name__, v)), dtype=object)


def _codes(column, categories):
    """Index of each value in ``categories``; -1 for a missing or unknown value."""
    return pd.Index(categories).get_indexer(column.to_numpy())
