"""Tree-augmented naive Bayes: each feature may depend on the class and on one other feature.

Friedman, Geiger and Goldszmidt (1997). Naive Bayes says p(x | c) = prod_d p(x_d | c). A tree
over the features, rooted at feature r, says p(x | c) = p(x_r | c) prod_{d != r}
p(x_d | x_parent(d), c): one more arrow into each feature but the root. The tree is the one of
Chow and Liu: the maximum spanning tree of the conditional mutual information
I(X_i; X_j | Y), because the maximised log-likelihood of a tree is a constant plus
N sum_{edges (i, j)} I(X_i; X_j | Y) (chapter 11 derives it).
"""

import numpy as np

from nbcore.numerics import log_ratio
from nbcore.pairwise import PairwiseNB


class TreeAugmentedNB(PairwiseNB):
    """Tree-augmented naive Bayes (TAN) for categorical features.

    theta_cdjk = P(x_d = k | x_parent(d) = j, y = c), estimated by counting,
    (N_cjk + alpha) / (N_cj + K_d alpha), with N_cjk the number of class-c samples whose parent
    feature takes value j and feature d value k. The root (feature 0) depends on the class
    only, like a feature of CategoricalNB.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing of each feature's table (a symmetric Dirichlet prior on each row).
    force_alpha : bool, default=True
        If False, alpha below 1e-10 is raised to 1e-10 (with a warning).
    fit_prior : bool, default=True
        Estimate the class prior from the data, N_c / N (else uniform).
    class_prior : array-like of shape (n_classes,), default=None
        Fixed class prior; overrides ``fit_prior``.
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories of integer-coded features (codes 0..n-1), as in
        CategoricalNB: declares values a training set may lack, which predict then accepts.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, categories_, n_categories_, category_count_
        As in CategoricalNB.
    pair_count_ : dict {(i, j): ndarray of shape (n_classes, K_i, K_j)}, for i < j
        N_cab, weighted counts of the class-c samples with x_i = a and x_j = b.
    conditional_mutual_info_ : ndarray of shape (n_features, n_features)
        I(X_i; X_j | Y) in nats, of the relative frequencies (no smoothing); 0 on the
        diagonal.
    parent_ : ndarray of shape (n_features,)
        The parent feature of each feature in the tree; -1 for the root, feature 0.
    feature_log_prob_ : list of n_features ndarrays of shape (n_classes, K_parent, K_d)
        log theta_cdjk; K_parent is 1 for the root.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when fitted on a DataFrame with string column names.

    Notes
    -----
    .. math:: \\log p(x, y=c) = \\log \\pi_c + \\sum_d \\log \\theta_{c d x_{\\mathrm{pa}(d)} x_d}

    The tree is found by Prim's algorithm from feature 0; among equal weights the feature of
    lower index is taken first. With one feature, or features independent given the class in
    the data, every tree has the same likelihood. Missing values and unknown categories are
    refused.

    Examples
    --------
    >>> X = [["a", "a"], ["b", "b"], ["a", "a"], ["b", "b"]]
    >>> model = TreeAugmentedNB(alpha=0.5).fit(X, [0, 0, 1, 1])
    >>> model.parent_
    array([-1,  0])
    """

    def __init__(
        self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, min_categories=None
    ):
        super().__init__(alpha=alpha, force_alpha=force_alpha, min_categories=min_categories)
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _update_feature_log_prob(self, alpha):
        super()._update_feature_log_prob(alpha)  # theta_cdk of every feature: the root's
        alpha = np.broadcast_to(alpha, len(self.categories_))
        self.conditional_mutual_info_ = self._conditional_mutual_info()
        self.parent_ = maximum_spanning_tree(self.conditional_mutual_info_)
        tables = []
        for d, parent in enumerate(self.parent_):
            if parent < 0:
                tables.append(self.feature_log_prob_[d][:, None, :])
                continue
            # theta_cdjk = (N_cjk + alpha) / (N_cj + K_d alpha), a row per parent value j
            smoothed = self.joint_count(parent, d) + alpha[d]
            total = smoothed.sum(axis=2, keepdims=True)
            tables.append(log_ratio(smoothed, total, smoothed.shape[2]))
        self.feature_log_prob_ = tables

    def _conditional_mutual_info(self):
        """I(X_i; X_j | Y) = sum_cab P(c, a, b) log [P(c, a, b) P(c) / (P(c, a) P(c, b))]."""
        n_features = len(self.categories_)
        info = np.zeros((n_features, n_features))
        N = self.class_count_.sum()
        for (i, j), count in self.pair_count_.items():
            N_c = count.sum(axis=(1, 2), keepdims=True)
            N_ca = count.sum(axis=2, keepdims=True)
            N_cb = count.sum(axis=1, keepdims=True)
            seen = count > 0  # 0 log 0 = 0
            ratio = (count * N_c)[seen] / (N_ca * N_cb)[seen]
            # summed in sorted order: the same terms met in another order (the classes renamed
            # or reordered) give the same bits, so that edges of equal weight stay equal and the
            # tree's tie-break (the lowest-numbered feature) does not depend on the class names
            info[i, j] = info[j, i] = np.sum(np.sort(count[seen] * np.log(ratio))) / N
        return info

    def _log_likelihood(self, X):
        # sum_d log theta_{c, d, x_parent(d), x_d}; the root's single row is row 0
        score = np.zeros((X.shape[0], len(self.classes_)))
        for d, (table, parent) in enumerate(zip(self.feature_log_prob_, self.parent_, strict=True)):
            rows = X[:, parent] if parent >= 0 else np.zeros(X.shape[0], dtype=np.intp)
            score += table[:, rows, X[:, d]].T
        return score


def maximum_spanning_tree(weight):
    """Parent of each node in a maximum spanning tree of a complete graph, rooted at node 0.

    Prim's algorithm: grow the tree from node 0, each time adding the node outside it joined
    to it by the heaviest edge (the lowest-numbered node among equals).

    Parameters
    ----------
    weight : ndarray of shape (n, n)
        Symmetric edge weights.

    Returns
    -------
    ndarray of int of shape (n,)
        parent[0] = -1; parent[d] is the node d hangs from.
    """
    n = weight.shape[0]
    parent = np.full(n, -1)
    in_tree = np.zeros(n, dtype=bool)
    in_tree[0] = True
    best = weight[0].astype(float).copy()  # heaviest edge from each node to the tree
    best_from = np.zeros(n, dtype=int)
    for _ in range(n - 1):
        candidates = np.where(in_tree, -np.inf, best)
        d = int(np.argmax(candidates))
        in_tree[d] = True
        parent[d] = best_from[d]
        closer = ~in_tree & (weight[d] > best)
        best[closer], best_from[closer] = weight[d][closer], d
    return parent
