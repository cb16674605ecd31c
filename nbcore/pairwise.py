"""Counts of pairs of features within each class: what one-dependence models learn from.

Naive Bayes needs, for each class, how often each feature takes each value. A model in which a
feature may depend on one other feature as well as on the class (tree-augmented naive Bayes,
averaged one-dependence estimators; chapter 11) needs how often each *pair* of features takes
each pair of values: N_cab^(ij), the number of class-c samples with x_i = a and x_j = b. These
are sums over the samples too, so they are learned batch by batch like every other count.
"""

import numpy as np
import pandas as pd

from nbcore import _validation as check
from nbcore.categorical import CategoricalNB


class PairwiseNB(CategoricalNB):
    """Base class of the one-dependence models: categorical features, counts of value pairs.

    On top of :class:`CategoricalNB`'s counts N_cdk it keeps ``pair_count_[i, j]`` for every
    pair of features i < j, an ndarray of shape (n_classes, K_i, K_j). Missing values are
    refused: a missing parent would have to be summed out of every child that depends on it,
    which these models do not do.
    """

    # fixed, not parameters: an unknown value is refused (it cannot be left out of the
    # product when other features depend on it) and the class prior is estimated, N_c / N
    _input_tags = {"categorical": True, "string": True, "allow_nan": False}
    handle_unknown = "error"
    fit_prior = True
    class_prior = None

    def __init__(self, *, alpha=1.0, force_alpha=True, min_categories=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.min_categories = min_categories

    def _check_X_fit(self, X, reset):
        return _no_missing(self, check.check_frame(self, X, reset))

    def _check_X(self, X, reset=False):
        return self._encode(_no_missing(self, check.check_frame(self, X, reset)))

    def _init_counters(self, n_classes, n_features):
        super()._init_counters(n_classes, n_features)
        self.pair_count_ = {
            (i, j): np.zeros((n_classes, 0, 0))
            for i in range(n_features)
            for j in range(i + 1, n_features)
        }

    def _count(self, X, Y):
        old = list(self.categories_)
        super()._count(X, Y)  # N_c and N_cdk; may add categories, in sorted places
        codes = self._encode(X)
        y_index, weight = Y.argmax(axis=1), Y.max(axis=1)
        n_classes = Y.shape[1]
        K = [len(c) for c in self.categories_]
        for (i, j), count in self.pair_count_.items():
            # the counts so far, moved to where their categories are now
            grown = np.zeros((n_classes, K[i], K[j]))
            rows = pd.Index(self.categories_[i]).get_indexer(old[i])
            cols = pd.Index(self.categories_[j]).get_indexer(old[j])
            grown[:, rows[:, None], cols[None, :]] = count
            # N_cab += sum_s w_s [y_s = c][x_si = a][x_sj = b]: one weighted bincount
            cells = (y_index * K[i] + codes[:, i]) * K[j] + codes[:, j]
            grown += np.bincount(cells, weight, minlength=n_classes * K[i] * K[j]).reshape(
                n_classes, K[i], K[j]
            )
            self.pair_count_[i, j] = grown

    def joint_count(self, i, j):
        """N_cab of features i and j, shape (n_classes, K_i, K_j), for i != j in any order."""
        if i < j:
            return self.pair_count_[i, j]
        return self.pair_count_[j, i].transpose(0, 2, 1)


def _no_missing(estimator, frame):
    """Refuse a missing value, naming the feature and the sample."""
    missing = frame.isna().to_numpy()
    if missing.any():
        row, column = np.argwhere(missing)[0]
        raise ValueError(
            f"X must have no missing values (None, NaN) for {type(estimator).__name__}: a "
            "feature's parent cannot be left out of the product; got a missing value in feature "
            f"{frame.columns[column]!r} of sample {row}. Use CategoricalNB, which leaves a "
            "missing value out, or fill it in."
        )
    return frame
