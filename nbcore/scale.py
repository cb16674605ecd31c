"""Naive Bayes at scale: the sufficient statistics are sums, so they add up (chapter 10).

Fitting a naive Bayes model computes a few sums per class: the class counts N_c, the feature
counts N_cd of the counting models, the category counts N_cdk of the categorical model, and
the count, mean and variance of each feature for the Gaussian model. Sums computed on pieces
of the data add up to the sums of the whole, so a model can be fitted chunk by chunk
(``partial_fit``), shard by shard on several machines, and the pieces combined exactly:

* :func:`statistics` reads the sufficient statistics of a fitted model, small objects that
  add with ``+`` (and ``sum``), and :func:`from_statistics` turns statistics back into a
  fitted model;
* :func:`merge` adds the statistics of fitted models of one kind and settings: the result
  equals the model fitted on the union of their data;
* :func:`pool_moments` combines (count, mean, variance) of two sets with the pairwise update
  of Chan, Golub and LeVeque, which does not lose digits the way the running sum of squares
  does (it lives in :mod:`nbcore.gaussian`, whose ``partial_fit`` pools with it too);
* :func:`write_shard`, :func:`read_shards`, :func:`stream_fit` and :func:`shard_statistics`
  stream a corpus from disk in chunks, at constant memory, and compute one shard's statistics
  (the function a Dask worker runs).

Only NumPy and pandas: the chapter runs the same functions on a Dask cluster.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nbcore import NotFittedError
from nbcore._validation import is_sparse
from nbcore.bernoulli import BernoulliNB
from nbcore.categorical import CategoricalNB
from nbcore.complement import ComplementNB
from nbcore.gaussian import GaussianNB, pool_moments
from nbcore.multinomial import MultinomialNB

__all__ = [
    "CategoryStatistics",
    "CountStatistics",
    "MomentStatistics",
    "from_statistics",
    "merge",
    "pool_moments",
    "read_shard",
    "read_shards",
    "shard_statistics",
    "statistics",
    "stream_fit",
    "write_shard",
]

COUNT_MODELS = (BernoulliNB, ComplementNB, MultinomialNB)
MERGEABLE = (*COUNT_MODELS, CategoricalNB, GaussianNB)


# --------------------------------------------------------------------------- the statistics


class _Addable:
    """``sum(statistics)`` starts from 0: 0 + s is s."""

    def __radd__(self, other):
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    @property
    def nbytes(self):
        """Bytes of the numbers held: what a worker sends (plus a little framing)."""
        total = 0
        for value in vars(self).values():
            arrays = value if isinstance(value, list) else [value]
            total += sum(np.asarray(array).nbytes for array in arrays)
        return total


@dataclass(frozen=True, eq=False)
class CountStatistics(_Addable):
    """N_c and N_cd of a counting model (Bernoulli, multinomial, complement).

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
    feature_count : ndarray of shape (n_classes, n_features)
    """

    class_count: np.ndarray
    feature_count: np.ndarray

    def __add__(self, other):
        if not isinstance(other, CountStatistics):
            return NotImplemented
        _same_shape("feature_count", self.feature_count, other.feature_count)
        return CountStatistics(
            self.class_count + other.class_count, self.feature_count + other.feature_count
        )


@dataclass(frozen=True, eq=False)
class MomentStatistics(_Addable):
    """N_c, mu_cd and sigma^2_cd (the 1/N_c variance, no smoothing) of a Gaussian model.

    Attributes
    ----------
    count : ndarray of shape (n_classes,)
    mean : ndarray of shape (n_classes, n_features)
    var : ndarray of shape (n_classes, n_features)
    """

    count: np.ndarray
    mean: np.ndarray
    var: np.ndarray

    def __add__(self, other):
        if not isinstance(other, MomentStatistics):
            return NotImplemented
        _same_shape("mean", self.mean, other.mean)
        return MomentStatistics(
            *pool_moments(self.count, self.mean, self.var, other.count, other.mean, other.var)
        )


@dataclass(frozen=True, eq=False)
class CategoryStatistics(_Addable):
    """N_c and N_cdk of a categorical model, with the categories of each feature.

    Attributes
    ----------
    class_count : ndarray of shape (n_classes,)
    categories : list of n_features ndarrays
        Column k of ``category_count[d]`` counts category ``categories[d][k]``.
    category_count : list of n_features ndarrays of shape (n_classes, K_d)
    """

    class_count: np.ndarray
    categories: list
    category_count: list

    def __add__(self, other):
        if not isinstance(other, CategoryStatistics):
            return NotImplemented
        if len(self.categories) != len(other.categories):
            raise ValueError(
                f"cannot add category counts of {len(self.categories)} and "
                f"{len(other.categories)} features"
            )
        categories, counts = [], []
        for cats_a, count_a, cats_b, count_b in zip(
            self.categories,
            self.category_count,
            other.categories,
            other.category_count,
            strict=True,
        ):
            union = _union_categories(cats_a, cats_b)
            # each set's counts go to the columns of its categories in the union
            count = np.zeros((len(self.class_count), len(union)))
            count[:, pd.Index(union).get_indexer(cats_a)] += count_a
            count[:, pd.Index(union).get_indexer(cats_b)] += count_b
            categories.append(union)
            counts.append(count)
        return CategoryStatistics(self.class_count + other.class_count, categories, counts)


def _same_shape(name, a, b):
    if np.shape(a) != np.shape(b):
        raise ValueError(
            f"cannot add statistics of different shapes: {name} has shape {np.shape(a)} "
            f"and {np.shape(b)}"
        )


def _union_categories(a, b):
    """The categories of two sets, in the order that fit on their union gives them.

    The same categories in the same order (always the case for pandas categoricals and
    booleans) stay as they are; otherwise, as CategoricalNB orders the values it sees,
    non-negative whole numbers become the codes 0, 1, ..., max and anything else is sorted.
    """
    if len(a) == len(b) and pd.Index(a).equals(pd.Index(b)):
        return a
    if len(a) == 0 or len(b) == 0:  # the statistics of an empty shard know no category
        return b if len(a) == 0 else a
    union = np.concatenate([a, b[pd.Index(a).get_indexer(b) < 0]])
    if union.dtype.kind in "iuf" and np.all(union >= 0) and np.all(union == np.floor(union)):
        return np.arange(int(union.max()) + 1)
    try:
        return np.sort(union)
    except TypeError:  # values of several types, e.g. strings and numbers
        return np.array(sorted(union, key=lambda v: (type(v).__name__, v)), dtype=object)


def statistics(model):
    """The sufficient statistics of a fitted model.

    Parameters
    ----------
    model : fitted BernoulliNB, MultinomialNB, ComplementNB, CategoricalNB or GaussianNB

    Returns
    -------
    CountStatistics, CategoryStatistics or MomentStatistics
        Copies of the model's sums; statistics of models of one kind add with ``+``.
    """
    _check_mergeable(model, "model")
    if isinstance(model, GaussianNB):
        # var_ holds sigma^2 + epsilon; the statistic is the variance itself
        return MomentStatistics(
            model.class_count_.copy(), model.theta_.copy(), model.var_ - model.epsilon_
        )
    if isinstance(model, CategoricalNB):
        return CategoryStatistics(
            model.class_count_.copy(),
            [np.asarray(c).copy() for c in model.categories_],
            [c.copy() for c in model.category_count_],
        )
    return CountStatistics(model.class_count_.copy(), model.feature_count_.copy())


def from_statistics(model, stats, classes=None, feature_names=None):
    """A new fitted model with the parameters of ``model``, from sufficient statistics.

    Parameters
    ----------
    model : estimator
        Gives the kind and the parameters; it is not changed. When it is fitted, it also
        gives ``classes_`` and the features (``n_features_in_``, ``feature_names_in_``).
    stats : CountStatistics, CategoryStatistics or MomentStatistics
        Statistics of the model's kind, for example a sum of :func:`statistics` of shards.
    classes : array-like of shape (n_classes,), default=None
        The labels, required when ``model`` is not fitted: the ``classes`` the shards were
        fitted with (their statistics' rows are in sorted order of these labels).
    feature_names : array-like of str, default=None
        Names of the features, for a model that should accept DataFrames by name.

    Returns
    -------
    estimator
        A new fitted model of the kind of ``model``.

    Notes
    -----
    The counting models rebuild their smoothed log probabilities with their own code: the
    counts are stored on a fresh estimator and one ``partial_fit`` call adds a sample of
    all-zero features (all-missing for the categorical model) whose weight was first taken
    off its class count, so that every count comes out exactly as given. The Gaussian model
    stores mu and sigma^2 + epsilon, with epsilon = var_smoothing times the largest variance
    of a feature over all classes, as ``fit`` computes it; the pooled variance of each
    feature is obtained from the per-class statistics (chapter 10).
    """
    if not isinstance(model, MERGEABLE) or type(model) not in MERGEABLE:
        _check_mergeable(model, "model")
    expected = {
        GaussianNB: MomentStatistics,
        CategoricalNB: CategoryStatistics,
    }.get(type(model), CountStatistics)
    if not isinstance(stats, expected):
        raise TypeError(
            f"stats must be {expected.__name__} for a {type(model).__name__}; got "
            f"{type(stats).__name__}."
        )
    if classes is None:
        _check_mergeable(model, "model (or give classes=)")
        classes = model.classes_
        if feature_names is None:
            feature_names = getattr(model, "feature_names_in_", None)
    classes = np.unique(np.asarray(classes))
    count = stats.count if expected is MomentStatistics else stats.class_count
    if np.shape(count) != (len(classes),):
        raise ValueError(
            f"stats has counts of {np.shape(count)[0]} classes, but classes has "
            f"{len(classes)}: {classes.tolist()}."
        )
    if expected is CategoryStatistics:
        n_features = len(stats.categories)
    else:
        n_features = np.shape(stats.mean if expected is MomentStatistics else stats.feature_count)[
            1
        ]
    if feature_names is not None and len(feature_names) != n_features:
        raise ValueError(f"feature_names has {len(feature_names)} names for {n_features} features.")
    columns = list(feature_names) if feature_names is not None else list(range(n_features))
    fresh = type(model)(**model.get_params())
    if expected is MomentStatistics:
        return _gaussian_from(fresh, classes, columns, stats)
    return _counts_from(fresh, classes, columns, stats)


def _zero_sample(columns, categories=None):
    """One sample that adds nothing to any feature count, with the given columns."""
    if categories is None:
        return pd.DataFrame(np.zeros((1, len(columns))), columns=columns)
    # a missing value is not counted; declaring the categories keeps them, in their order
    return pd.DataFrame(
        {
            column: pd.Categorical([np.nan], categories=pd.Index(cats))
            for column, cats in zip(columns, categories, strict=True)
        }
    )


def _counts_from(model, classes, columns, stats):
    class_count = np.asarray(stats.class_count, dtype=float)
    c0 = int(np.argmax(class_count))
    weight = class_count[c0]
    if not weight > 0:
        raise ValueError("stats has no samples: every class count is 0.")
    categorical = isinstance(stats, CategoryStatistics)
    sample = _zero_sample(columns, stats.categories if categorical else None)
    label = classes[c0 : c0 + 1]
    # the first call sets up classes_, the features and (categorical) the categories
    model.partial_fit(sample, label, classes=classes, sample_weight=[weight])
    # store the counts, less the weight of the zero sample on its class; partial_fit adds it
    # back exactly (0 + w = w) and recomputes the smoothed log probabilities
    start = class_count.copy()
    start[c0] = 0.0
    model.class_count_ = start
    if categorical:
        model.category_count_ = [np.array(c, dtype=float) for c in stats.category_count]
    else:
        model.feature_count_ = np.array(stats.feature_count, dtype=float)
    model.partial_fit(sample, label, sample_weight=[weight])
    return model


def _gaussian_from(model, classes, columns, stats):
    if not np.asarray(stats.count, dtype=float).sum() > 0:
        raise ValueError("stats has no samples: every class count is 0.")
    model.partial_fit(_zero_sample(columns), classes[:1], classes=classes)
    count, mean, var = (np.array(a, dtype=float) for a in (stats.count, stats.mean, stats.var))
    # the variance of each feature over all classes: pool the classes' moments one by one
    pooled = (count[0], mean[0], var[0])
    for c in range(1, len(count)):
        pooled = pool_moments(*pooled, count[c], mean[c], var[c])
    # GaussianNB.fit: epsilon = var_smoothing * max_d Var(x_d) over the whole (unweighted) X
    epsilon = float(model.var_smoothing * np.max(pooled[2]))
    model.class_count_, model.theta_, model.epsilon_ = count, mean, epsilon
    model.var_ = var + epsilon
    # pi_c = N_c / N unless the priors are given
    priors = model.priors
    model.class_prior_ = count / count.sum() if priors is None else np.asarray(priors, float)
    return model


# --------------------------------------------------------------------------- merge


def _check_mergeable(model, name):
    if not isinstance(model, MERGEABLE) or type(model) not in MERGEABLE:
        kinds = ", ".join(k.__name__ for k in MERGEABLE)
        raise TypeError(f"{name} must be a fitted nbcore {kinds}; got {type(model).__name__}.")
    if not hasattr(model, "classes_"):
        raise NotFittedError(
            f"{name} ({model!r}) is not fitted yet: call fit or partial_fit first."
        )


def _same_value(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except (TypeError, ValueError):
        return a == b


def merge(*models):
    """The model fitted on the union of the data of several fitted models.

    Parameters
    ----------
    *models : fitted estimators of one kind
        BernoulliNB, MultinomialNB, ComplementNB, CategoricalNB or GaussianNB, all with the
        same parameters, ``classes_`` and features (fit shards with
        ``partial_fit(X, y, classes=...)`` so that every shard knows every class).

    Returns
    -------
    estimator
        A new fitted model; the inputs are not changed.

    Raises
    ------
    TypeError
        If no model is given, or the models are not of one supported kind.
    NotFittedError
        If a model is not fitted.
    ValueError
        If a parameter, ``classes_``, ``n_features_in_`` or ``feature_names_in_`` differs.

    Notes
    -----
    Counts add, so the merged counting models equal ``fit`` on the union exactly (counts of
    whole numbers below 2**53). Gaussian means and variances are pooled with
    :func:`pool_moments`, equal to ``fit`` on the union to rounding; ``epsilon_`` is
    recomputed from the pooled variances, which is ``fit``'s value when the models were
    fitted without ``sample_weight`` (``fit`` takes the unweighted variance of X) and with
    ``fit`` (after several ``partial_fit`` calls ``var_`` already mixes the epsilons of
    the batches, a property of the incremental update shared with scikit-learn). Chapter 10.

    Examples
    --------
    >>> from nbcore import MultinomialNB
    >>> a = MultinomialNB().fit([[2, 1], [0, 3]], ["spam", "ham"])
    >>> b = MultinomialNB().fit([[1, 1], [1, 0]], ["ham", "spam"])
    >>> merge(a, b).feature_count_
    array([[1., 4.],
           [3., 1.]])
    """
    if not models:
        raise TypeError("merge needs at least one fitted model; got none.")
    for i, model in enumerate(models):
        _check_mergeable(model, f"model {i}")
    first = models[0]
    for i, model in enumerate(models[1:], start=1):
        if type(model) is not type(first):
            raise TypeError(
                f"merge needs models of one kind: model 0 is a {type(first).__name__}, "
                f"model {i} a {type(model).__name__}."
            )
        for parameter, value in first.get_params().items():
            other = model.get_params()[parameter]
            if not _same_value(value, other):
                raise ValueError(
                    f"merge needs models with the same parameters: {parameter} is {value!r} "
                    f"in model 0 but {other!r} in model {i}."
                )
        for attribute in ("classes_", "n_features_in_", "feature_names_in_"):
            mine, theirs = getattr(first, attribute, None), getattr(model, attribute, None)
            if not _same_value(mine, theirs):
                hint = (
                    "; fit each shard with partial_fit(X, y, classes=...) so that every "
                    "shard knows every class"
                    if attribute == "classes_"
                    else ""
                )
                raise ValueError(
                    f"merge needs models with the same {attribute}: model 0 has {mine!r}, "
                    f"model {i} has {theirs!r}{hint}."
                )
    return from_statistics(first, sum(statistics(model) for model in models))


# --------------------------------------------------------------------------- streaming


def write_shard(directory, index, X, y):
    """Save one shard (X, y) as ``directory/part-00000.npz``; returns its path.

    Parameters
    ----------
    directory : str or Path
        Created if needed.
    index : int
        The shard's number, part of the file name (shards are read in this order).
    X : array-like of shape (n_samples, n_features)
        Dense: a SciPy sparse matrix is refused (TypeError).
    y : array-like of shape (n_samples,)
    """
    if is_sparse(X):
        raise TypeError(
            "write_shard stores dense arrays only; save a sparse shard's X with "
            "scipy.sparse.save_npz and its y in a file of its own (read_shards cannot "
            "read them), or pass X.toarray()."
        )
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"part-{int(index):05d}.npz"
    X, y = np.asarray(X), np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(
            f"X must be 2-d and y have one label per row; got X of shape {X.shape} and y of "
            f"shape {y.shape}."
        )
    if y.dtype == object:
        # np.savez would pickle an object array, which read_shard refuses to load: labels
        # taken from pandas are stored as text (or refused if they are not all strings)
        if not all(isinstance(label, str) for label in y):
            raise TypeError(
                "y must hold numbers or strings to be saved in a shard; got labels of types "
                f"{sorted({type(label).__name__ for label in y})}."
            )
        y = y.astype(str)
    np.savez(path, X=X, y=y)
    return path


def read_shard(path):
    """(X, y) of one shard written by :func:`write_shard` (no pickled objects are loaded)."""
    with np.load(path, allow_pickle=False) as data:
        return data["X"], data["y"]


def read_shards(paths):
    """Yield (X, y) of each shard in turn: one shard in memory at a time."""
    for path in paths:
        yield read_shard(path)


def stream_fit(model, chunks, classes):
    """Fit ``model`` with one ``partial_fit`` call per chunk; returns the model.

    Parameters
    ----------
    model : estimator
        Fitted from its current state (a fresh estimator starts from nothing).
    chunks : iterable of (X, y)
        For example ``read_shards(paths)``; only one chunk is held at a time. A chunk
        without rows (X of shape (0, n_features)) is skipped: it adds nothing.
    classes : array-like of shape (n_classes,)
        Every label that may appear in any chunk.
    """
    widths = []  # the number of columns of each empty chunk, checked once the model is fitted
    for i, (X, y) in enumerate(chunks):
        if _is_empty(X, y, f"chunk {i}"):
            # an empty shard adds nothing to any sum; partial_fit (like scikit-learn's)
            # refuses a batch without samples, so it is skipped here
            widths.append((i, np.shape(X)[1]))
            continue
        model.partial_fit(X, y, classes=classes)
    if not hasattr(model, "classes_"):
        raise ValueError(
            "chunks is empty: there is nothing to fit (no chunk, or only chunks without rows)."
        )
    for i, width in widths:
        if width != model.n_features_in_:
            raise ValueError(
                f"chunk {i} is empty but has {width} columns; the model has "
                f"{model.n_features_in_} features."
            )
    return model


def _is_empty(X, y, name):
    """True for a chunk without rows: X of shape (0, n_features) and no label."""
    shape = np.shape(X)
    if len(shape) != 2 or shape[0] != 0:
        return False
    if len(y) != 0:
        raise ValueError(f"{name} has no rows in X but {len(y)} labels in y.")
    return True


def _empty_statistics(model, classes, n_features):
    """The statistics of a shard without samples: zeros, which add as nothing."""
    n_classes = len(np.unique(np.asarray(classes)))
    zeros = np.zeros((n_classes, n_features))
    if isinstance(model, GaussianNB):
        return MomentStatistics(np.zeros(n_classes), zeros, zeros.copy())
    if isinstance(model, CategoricalNB):
        return CategoryStatistics(
            np.zeros(n_classes),
            [np.array([]) for _ in range(n_features)],
            [np.zeros((n_classes, 0)) for _ in range(n_features)],
        )
    return CountStatistics(np.zeros(n_classes), zeros)


def shard_statistics(path, model, classes):
    """The sufficient statistics of one shard: what a worker computes and sends back.

    Parameters
    ----------
    path : str or Path
        A shard written by :func:`write_shard`.
    model : estimator
        Unfitted template; a fresh copy with its parameters is fitted on the shard.
    classes : array-like of shape (n_classes,)
        Every label of the whole data set, so that all shards' statistics line up.

    Returns
    -------
    CountStatistics, CategoryStatistics or MomentStatistics
        Of the shard; a shard without rows gives zero counts, which add as nothing.
    """
    X, y = read_shard(path)
    if _is_empty(X, y, f"shard {path}"):
        if not isinstance(model, MERGEABLE) or type(model) not in MERGEABLE:
            _check_mergeable(model, "model")
        return _empty_statistics(model, classes, X.shape[1])
    fitted = type(model)(**model.get_params()).partial_fit(X, y, classes=classes)
    return statistics(fitted)
