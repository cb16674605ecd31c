"""Every check of user input, in one place.

The estimators call these only at their public entry points (``fit``, ``partial_fit``,
``predict*``, ``score``). Each error names the parameter, what was expected and what came.
"""

import math
import numbers
import warnings

import numpy as np
import pandas as pd


class NotFittedError(ValueError, AttributeError):
    """Raised when an estimator is used before ``fit``.

    It subclasses ValueError and AttributeError, like scikit-learn's error of the same name,
    so that code written for scikit-learn catches it.
    """


# ---------------------------------------------------------------------------------------------
# Short descriptions used inside messages


def _show(value, limit=60):
    if isinstance(value, np.ndarray | list | tuple):
        value = np.asarray(value, dtype=object).tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _kind_of(value):
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    return f"{_show(value)} ({type(value).__name__})"


def _feature(estimator, d):
    """How messages name feature d: "feature 'outlook' (column 0)", or "feature 0"."""
    names = getattr(estimator, "feature_names_in_", None)
    return f"feature {names[d]!r} (column {d})" if names is not None else f"feature {d}"


# ---------------------------------------------------------------------------------------------
# Fitted state


def check_is_fitted(estimator):
    if not hasattr(estimator, "classes_"):
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )


# ---------------------------------------------------------------------------------------------
# Parameters


def _float_array(name, value, expected):
    """``value`` as a float64 array, or a TypeError that says what ``name`` must be."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be {expected}; got {_kind_of(value)}.") from None


def check_bool(name, value):
    """True or False (a Python or NumPy bool; 0 and 1 are refused). Returns a bool."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {_kind_of(value)}.")
    return bool(value)


def _interval(low, high, open_low, open_high):
    """How a message writes the allowed range: "in [0, 1)", ">= 0", "< 1", or ""."""
    if low is not None and high is not None:
        left, right = "(" if open_low else "[", ")" if open_high else "]"
        return f" in {left}{low:g}, {high:g}{right}"
    if low is not None:
        return f" {'>' if open_low else '>='} {low:g}"
    if high is not None:
        return f" {'<' if open_high else '<='} {high:g}"
    return ""


def _real(name, value, expected, low, high, open_low, open_high):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    number = float(value)
    too_low = low is not None and (number <= low if open_low else number < low)
    too_high = high is not None and (number >= high if open_high else number > high)
    if not math.isfinite(number) or too_low or too_high:
        interval = _interval(low, high, open_low, open_high)
        raise ValueError(f"{name} must be {expected}{interval}, got {value}")
    return number


def check_real(name, value, low=None, high=None, *, open_low=False, open_high=False):
    """A finite real number, optionally within [low, high] (open_low/open_high exclude a bound).

    A TypeError when ``value`` is not a real number (a str, None, a bool: Python counts True as
    1, the book does not), a ValueError when it is NaN, infinite or out of range. Returns float.
    """
    return _real(name, value, "a finite number", low, high, open_low, open_high)


def check_probability(name, value, *, open_low=False, open_high=False):
    """:func:`check_real` on [0, 1], with messages that say "a probability".

    ``open_low`` and ``open_high`` exclude 0 and 1, for a prior or a parameter whose logarithm
    is taken.
    """
    return _real(name, value, "a probability", 0.0, 1.0, open_low, open_high)


def check_pair(name, values, meaning):
    """Two values, as a list: ``meaning`` says what they are, e.g. "(no storm, storm)"."""
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a pair {meaning}, got {type(values).__name__}")
    if len(values) != 2:
        raise ValueError(f"{name} must hold 2 values {meaning}, got {len(values)}")
    return list(values)


def check_int(name, value, low=None, high=None):
    """An integer (a Python or NumPy int, not a bool, not 2.0), optionally low <= value <= high."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            expected = f"between {low} and {high}"
        else:
            expected = f">= {low}" if low is not None else f"<= {high}"
        raise ValueError(f"{name} must be an int {expected}, got {value}")
    return int(value)


def check_choice(name, value, options):
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {options}; got {_show(value)}.")


def check_non_negative_number(name, value, allow_none=False):
    """A finite real number >= 0 (var_smoothing, binarize)."""
    if allow_none and value is None:
        return
    if (
        isinstance(value, bool | np.bool_)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(value)
    ):
        expected = "a finite number >= 0" + (" or None" if allow_none else "")
        raise TypeError(f"{name} must be {expected}; got {_kind_of(value)}.")
    if value < 0:
        raise ValueError(f"{name} must be >= 0; got {value!r}.")


def check_alpha(alpha, n_features, force_alpha, scalar_only=False):
    """The smoothing alpha: a number >= 0, or one per feature.

    With ``force_alpha=False`` values below 1e-10 are raised to 1e-10 with a warning, as in
    scikit-learn. Returns a float or an ndarray of shape (n_features,).
    """
    check_bool("force_alpha", force_alpha)
    expected = "a number >= 0" + ("" if scalar_only else f" or an array of {n_features} of them")
    if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool | np.bool_):
        values = np.float64(alpha)
    elif scalar_only or isinstance(alpha, str | bool | np.bool_ | dict) or alpha is None:
        raise TypeError(f"alpha must be {expected}; got {_kind_of(alpha)}.")
    else:
        values = _float_array("alpha", alpha, expected)
        if values.shape != (n_features,):
            raise ValueError(
                f"When alpha is an array, it must have one value per feature, shape "
                f"({n_features},); got shape {values.shape}."
            )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"alpha must be finite; got {_show(alpha)}.")
    if np.any(values < 0):
        raise ValueError(f"alpha must be >= 0 (all values in alpha); got {_show(alpha)}.")
    if np.min(values) < 1e-10 and not force_alpha:
        warnings.warn(
            "alpha too small will result in numeric errors, setting alpha = 1.0e-10. "
            "Use `force_alpha=True` to keep alpha unchanged.",
            stacklevel=4,
        )
        values = np.maximum(values, 1e-10)
    return float(values) if values.ndim == 0 else values


def check_priors(name, priors, classes):
    """Class priors: one per class, non-negative, summing to 1. Returns an ndarray."""
    p = _float_array(name, priors, f"an array of {len(classes)} probabilities")
    if p.ndim != 1 or len(p) != len(classes):
        raise ValueError(
            f"Number of priors must match number of classes: {name} has "
            f"{p.size if p.ndim else 'a scalar'} value(s), but there are {len(classes)} "
            f"classes {_show(classes)}."
        )
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"Priors must be non-negative: {name} is {_show(p)}.")
    if not np.isclose(p.sum(), 1.0):
        raise ValueError(f"The sum of the priors should be 1: {name} sums to {_show(p.sum())}.")
    return p


def check_min_categories(min_categories, n_features):
    """None, an integer >= 1, or one integer per feature. Returns None or int64 (n_features,)."""
    if min_categories is None:
        return None
    values = np.asarray(min_categories)
    if not (np.issubdtype(values.dtype, np.integer) and values.dtype != bool):
        raise TypeError(
            f"'min_categories' should have integral type: an integer or an array of "
            f"integers; got {_kind_of(min_categories)}."
        )
    if values.ndim == 0:
        values = np.full(n_features, values)
    if values.shape != (n_features,):
        raise ValueError(
            f"'min_categories' should have shape ({n_features},) when an array-like is "
            f"provided; got shape {values.shape}."
        )
    if np.any(values < 1):
        raise ValueError(f"'min_categories' must be >= 1; got {values.tolist()}.")
    return values.astype(np.int64)


KINDS = ("gaussian", "categorical", "bernoulli")


def check_kinds(kinds, columns):
    """MixedNB's ``kinds``: None, a dict {column: kind} or a list of one kind per column.

    Returns a dict {column: kind or None}; None means "choose from the data".
    """
    if len(set(columns)) != len(columns):
        raise ValueError(
            f"X must not have duplicate column names: MixedNB names its columns; got "
            f"{_show(list(columns))}."
        )
    chosen = dict.fromkeys(columns)
    if kinds is None:
        return chosen
    if isinstance(kinds, dict):
        unknown = [c for c in kinds if c not in chosen]
        if unknown:
            raise ValueError(
                f"kinds names column(s) {unknown} that X does not have; X has columns "
                f"{list(columns)}."
            )
        chosen.update(kinds)
    elif isinstance(kinds, list | tuple | np.ndarray):
        if len(kinds) != len(columns):
            raise ValueError(
                f"kinds must have one entry per column of X ({len(columns)}); got {len(kinds)}."
            )
        chosen = dict(zip(columns, kinds, strict=True))
    else:
        raise TypeError(
            f"kinds must be None, a dict {{column: kind}} or a list of one kind per column; "
            f"got {_kind_of(kinds)}."
        )
    for column, kind in chosen.items():
        if kind is not None and kind not in KINDS:
            raise ValueError(f"kinds[{column!r}] must be one of {KINDS}; got {_show(kind)}.")
    return chosen


# ---------------------------------------------------------------------------------------------
# X


def is_sparse(X):
    """True for a scipy.sparse matrix or array, found without importing SciPy."""
    return type(X).__module__.startswith("scipy.sparse") and hasattr(X, "tocsr")


def check_dense(estimator, X):
    """Refuse sparse input where a model needs dense columns (Gaussian, categorical, mixed)."""
    if is_sparse(X):
        raise TypeError(
            f"X must be dense for {type(estimator).__name__} (an array-like or DataFrame of "
            f"shape (n_samples, n_features)); got a sparse {type(X).__name__} of shape "
            f"{X.shape}. Only MultinomialNB, BernoulliNB and ComplementNB take sparse counts; "
            "use X.toarray() if the dense matrix fits in memory."
        )


def _check_shape(estimator, shape):
    name = type(estimator).__name__
    if len(shape) != 2:
        what = "a scalar" if len(shape) == 0 else f"a {len(shape)}-D array of shape {shape}"
        raise ValueError(
            f"X must be a 2-D array of shape (n_samples, n_features); got {what}. "
            "Reshape your data either using array.reshape(-1, 1) if your data has a single "
            "feature or array.reshape(1, -1) if it contains a single sample."
        )
    if shape[0] == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is required "
            f"by {name}."
        )
    if shape[1] == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={shape}) while a minimum of 1 is required "
            f"by {name}."
        )


def _check_features(estimator, X, n_features, reset):
    """Record (at fit) or compare (later) the number and the names of the features."""
    names = None
    if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
        names = np.asarray(X.columns, dtype=object)
    if reset:
        estimator.n_features_in_ = n_features
        if names is not None:
            estimator.feature_names_in_ = names
        elif hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return
    expected = estimator.n_features_in_
    if n_features != expected:
        raise ValueError(
            f"X has {n_features} features, but {type(estimator).__name__} is expecting "
            f"{expected} features as input."
        )
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is not None and names is not None and list(fitted) != list(names):
        raise ValueError(
            "The feature names should match those that were passed during fit: expected "
            f"{list(fitted)}, got {list(names)}."
        )


def _range(X):
    """(min, max) of X in one sweep over memory, a block of rows at a time; NaN propagates."""
    rows = max(1, 2**16 // X.shape[1])
    smallest, largest = np.inf, -np.inf
    for start in range(0, X.shape[0], rows):
        block = X[start : start + rows]
        smallest, largest = np.minimum(smallest, block.min()), np.maximum(largest, block.max())
    return smallest, largest


# The bits of +inf read as an unsigned integer. The floats in [0, inf), sign bit clear and
# exponent not all ones, are exactly those whose bits read as a smaller integer.
_INF_BITS = np.float64(np.inf).view(np.uint64)


def _surely_valid(values, counts):
    """One pass over a float64 array: True only if every entry is finite (and >= 0 for counts).

    False does not mean invalid: it sends X to the exact checks, which find the first bad
    entry for the message, or pass (-0.0 as a count; finite numbers whose sum overflows).
    """
    if counts:
        # NaN, +-inf and negative numbers all have bits >= those of +inf: one max finds them
        return bool(values.view(np.uint64).max() < _INF_BITS)
    with np.errstate(over="ignore", invalid="ignore"):
        # NaN and inf propagate through a sum; an overflow only costs the exact check
        return bool(np.isfinite(values.sum()))


def _first_bad(mask):
    row, col = np.argwhere(mask)[0]
    return f"row {row}, column {col}"


def _first_bad_stored(X, mask):
    """Where the first flagged stored value of a CSR matrix is: "row i, column j"."""
    k = np.flatnonzero(mask)[0]
    row = np.searchsorted(X.indptr, k, side="right") - 1
    return f"row {row}, column {X.indices[k]}"


def _check_values(name, smallest, largest, counts, where_nan, where_inf, where_negative):
    """Finite everywhere, and >= 0 for counts; the where_* give "row i, column j" lazily."""
    if not (np.isfinite(smallest) and np.isfinite(largest)):
        nan = np.isnan(smallest) or np.isnan(largest)  # NaN propagates through min and max
        what, where = ("NaN", where_nan) if nan else ("infinity", where_inf)
        raise ValueError(
            f"Input X contains {what} (first at {where()}); {name} needs finite "
            "numbers. Missing values are left out only by CategoricalNB and MixedNB "
            "(categorical columns)."
        )
    if counts and smallest < 0:
        raise ValueError(
            f"Negative values in data passed to {name} (input X): X must hold counts >= 0; "
            f"got {_show(smallest)} (first negative at {where_negative()})."
        )


def check_sparse_X(estimator, X, reset, counts):
    """A scipy.sparse X of the count models, as CSR with float64 stored values.

    Only the stored values (``X.data``) are read: the matrix is never made dense. COO and CSC
    are converted to CSR (a copy of the stored entries, duplicates summed); CSR float64 input
    is used as it is.
    """
    _check_shape(estimator, X.shape)
    X = X.tocsr()
    if X.dtype.kind not in "biuf":
        raise TypeError(
            f"X must be numeric for {type(estimator).__name__}; got a sparse matrix of dtype "
            f"{X.dtype}."
        )
    X = X.astype(np.float64, copy=False)
    data = X.data
    if data.size and not _surely_valid(data, counts):
        smallest, largest = _range(data.reshape(-1, 1))
        _check_values(
            type(estimator).__name__,
            smallest,
            largest,
            counts,
            lambda: _first_bad_stored(X, np.isnan(data)),
            lambda: _first_bad_stored(X, np.isinf(data)),
            lambda: _first_bad_stored(X, data < 0),
        )
    _check_features(estimator, X, X.shape[1], reset)
    return X


def check_X(estimator, X, reset, counts=False, sparse=False):
    """X for the numeric models: a finite, non-empty (n_samples, n_features) float array.

    With ``counts=True`` (MultinomialNB, ComplementNB) every entry must also be >= 0. With
    ``sparse=True`` a scipy.sparse X is accepted and returned as CSR (see
    :func:`check_sparse_X`); otherwise it is refused.
    """
    name = type(estimator).__name__
    if X is None or isinstance(X, str | dict):
        raise TypeError(
            f"X must be an array-like of shape (n_samples, n_features); got {_kind_of(X)}."
        )
    if is_sparse(X) and sparse:
        return check_sparse_X(estimator, X, reset, counts)
    check_dense(estimator, X)
    X0 = X
    if isinstance(X0, pd.DataFrame):
        for column in X0.columns:
            if not (
                pd.api.types.is_numeric_dtype(X0[column]) or pd.api.types.is_bool_dtype(X0[column])
            ):
                example = X0[column].dropna().iloc[0] if X0[column].notna().any() else None
                raise TypeError(
                    f"X must be numeric for {name}; column {column!r} holds "
                    f"{X0[column].dtype} values such as {example!r}. Use CategoricalNB or "
                    "MixedNB for categories."
                )
        array = X0.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        try:
            array = np.asarray(X0)
        except ValueError:
            raise ValueError(
                "X must be a rectangular array of shape (n_samples, n_features); its rows "
                "have different lengths."
            ) from None
        if array.dtype.kind not in "biuf":
            try:
                if array.dtype.kind != "O":  # strings, complex numbers, dates
                    raise TypeError
                array = array.astype(np.float64)  # numbers held as Python objects
            except (TypeError, ValueError):
                flat = array.ravel()
                example = next((v for v in flat if not isinstance(v, numbers.Real)), flat[0])
                raise TypeError(
                    f"X must be numeric for {name}; got dtype {array.dtype} with values such "
                    f"as {_show(example)}. Use CategoricalNB or MixedNB for categories."
                ) from None
        array = array.astype(np.float64, copy=False)
    _check_shape(estimator, array.shape)
    if not _surely_valid(array, counts):
        smallest, largest = _range(array)
        _check_values(
            name,
            smallest,
            largest,
            counts,
            lambda: _first_bad(np.isnan(array)),
            lambda: _first_bad(np.isinf(array)),
            lambda: _first_bad(array < 0),
        )
    _check_features(estimator, X0, array.shape[1], reset)
    return array


def check_frame(estimator, X, reset):
    """X for the categorical and mixed models: a DataFrame, one column per feature."""
    if X is None or isinstance(X, str | dict):
        raise TypeError(
            f"X must be an array-like or DataFrame of shape (n_samples, n_features); got "
            f"{_kind_of(X)}."
        )
    check_dense(estimator, X)
    if isinstance(X, pd.DataFrame):
        frame = X
    else:
        try:
            array = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
        except ValueError:
            raise ValueError(
                "X must be a rectangular array of shape (n_samples, n_features); its rows "
                "have different lengths."
            ) from None
        if array.ndim == 1 and any(isinstance(row, list | tuple | np.ndarray) for row in array):
            raise ValueError(
                "X must be a rectangular array of shape (n_samples, n_features); its rows "
                "have different lengths."
            )
        _check_shape(estimator, array.shape)
        frame = pd.DataFrame(array)
        if array.dtype == object:
            frame = frame.infer_objects()
    _check_shape(estimator, frame.shape)
    _check_features(estimator, X, frame.shape[1], reset)
    return frame


def check_numeric_column(estimator, column, series, kind):
    """A Gaussian or Bernoulli column of MixedNB: numbers (or booleans), none missing.

    Returns the column as a float ndarray of shape (n_samples,).
    """
    where = f"X column {column!r} ({kind})"
    if pd.api.types.is_complex_dtype(series):  # as floats they would lose their imaginary part
        raise TypeError(f"{where} must hold real numbers; got {series.dtype} values.")
    numeric = pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)
    # "empty": every value is missing, reported below
    if not numeric and pd.api.types.infer_dtype(series, skipna=True) not in ("boolean", "empty"):
        example = series.dropna().iloc[0] if series.notna().any() else None
        raise TypeError(
            f"{where} must hold numbers; got {series.dtype} values such as {example!r}. "
            f"Declare it kinds={{{column!r}: 'categorical'}} to treat it as categories."
        )
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.all(np.isfinite(values)):
        remedy = (
            f"declare it kinds={{{column!r}: 'categorical'}} to leave them out"
            if kind == "bernoulli"
            # leaving the feature out is exact under the model (its density integrates to
            # one); the other columns' means and variances do not depend on this one, but
            # the variance floor var_smoothing * (largest variance) may
            else "to leave this feature out, fit and predict without its column (the same "
            "model for the other columns with var_smoothing=0; otherwise the variance floor, "
            "a fraction of the largest Gaussian variance, may move slightly); or drop the "
            "rows, or impute the values"
        )
        raise ValueError(
            f"{where} has missing or infinite values (first at row "
            f"{np.flatnonzero(~np.isfinite(values))[0]}); {type(estimator).__name__} leaves "
            f"missing values out only in categorical columns: {remedy}."
        )
    if kind == "bernoulli" and not np.all((values == 0) | (values == 1)):
        bad = values[(values != 0) & (values != 1)][0]
        raise ValueError(f"{where} must hold booleans or 0/1; got {_show(bad)}.")
    return values


def unknown_category_error(estimator, d, value, categories):
    """The error for a category never seen in training (the caller raises it)."""
    remedy = (
        "Pass handle_unknown='ignore' to leave unknown values out of the product."
        if "handle_unknown" in estimator.get_params()
        else "Declare every category (min_categories, or a pandas categorical column)."
    )
    return ValueError(
        f"Found unknown category {_show(value)} in {_feature(estimator, d)} during predict; "
        f"the categories seen in training are {_show(categories)}. {remedy}"
    )


# ---------------------------------------------------------------------------------------------
# y, classes, sample_weight


def check_y(y, n_samples):
    """Class labels: 1-D, one per sample, no missing values. Returns an ndarray."""
    if y is None:
        raise ValueError(
            "y must be an array-like of shape (n_samples,) of class labels; got None (a "
            "classifier requires y to be passed, but the target y is None)."
        )
    array = np.asarray(y)
    if array.ndim == 2 and array.shape[1] == 1:
        array = array.ravel()
    if array.ndim != 1:
        raise ValueError(
            f"y must be a 1-D array-like of shape (n_samples,) of class labels; got shape "
            f"{array.shape}."
        )
    if n_samples is not None and len(array) != n_samples:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: X has {n_samples} "
            f"rows but y has {len(array)} labels."
        )
    missing = pd.isna(array)
    if missing.any():
        raise ValueError(
            f"y must not contain missing values; got {_show(array[missing][0])} at row "
            f"{np.flatnonzero(missing)[0]}."
        )
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):  # NaN was caught above
        row = np.flatnonzero(~np.isfinite(array))[0]
        raise ValueError(
            f"Input y contains infinity: y must hold class labels; got {array[row]} at row {row}."
        )
    if array.dtype.kind == "f" and not np.all(array == np.round(array)):
        raise ValueError(
            "Unknown label type: continuous. y must hold class labels (integers, strings, "
            f"booleans); got floats such as {_show(array[array != np.round(array)][0])}."
        )
    return array


def unique_labels(y, name="y"):
    """The sorted distinct labels. Mixed strings and numbers cannot be ordered."""
    try:
        return np.unique(y)
    except TypeError:
        raise TypeError(
            f"Mix of label input types (string and number) in {name}: {name} must hold labels "
            f"of one type; got {_show(list(pd.unique(np.asarray(y, dtype=object))))}."
        ) from None


def check_classes(estimator, classes):
    """partial_fit's ``classes``: required on the first call, unchanged afterwards.

    Returns the classes, sorted.
    """
    fitted = getattr(estimator, "classes_", None)
    if fitted is None and classes is None:
        raise ValueError("classes must be passed on the first call to partial_fit.")
    if classes is None:
        return fitted
    classes = np.asarray(classes)
    if classes.ndim != 1 or len(classes) == 0:
        raise ValueError(
            f"classes must be a non-empty 1-D array of all class labels; got {_show(classes)}."
        )
    sorted_classes = unique_labels(classes, "classes")
    if fitted is not None and not np.array_equal(fitted, sorted_classes):
        raise ValueError(
            f"`classes={_show(classes)}` is not the same as on last call to partial_fit, "
            f"was: {_show(fitted)}."
        )
    return sorted_classes


def check_fit_input(estimator, X, y, classes, sample_weight, refit, check_X_fit):
    """The inputs of fit (``refit=True``, after forgetting) and partial_fit, in order.

    Returns (first_call, X, y, classes, sample weights); ``check_X_fit(X, reset)`` checks X.
    """
    first_call = refit or not hasattr(estimator, "classes_")
    X = check_X_fit(X, reset=first_call)
    y = check_y(y, X.shape[0])
    classes = unique_labels(y) if refit else check_classes(estimator, classes)
    check_labels(y, classes)
    return first_call, X, y, classes, check_sample_weight(sample_weight, X.shape[0])


def check_labels(y, classes):
    """Index of each label in ``classes``; a label outside ``classes`` is an error."""
    index = np.searchsorted(classes, y)
    index[index == len(classes)] = 0
    outside = classes[index] != y
    if np.any(outside):
        raise ValueError(
            f"The target label(s) {_show(pd.unique(y[outside]))} in y do not exist in the "
            f"initial classes {_show(classes)}."
        )
    return index


def check_sample_weight(sample_weight, n_samples):
    """One finite weight >= 0 per sample (a number applies to all). Returns float (n_samples,)."""
    if sample_weight is None:
        return np.ones(n_samples)
    w = _float_array("sample_weight", sample_weight, "numbers, one per sample")
    if w.ndim == 0:
        w = np.full(n_samples, w)
    if w.shape != (n_samples,):
        raise ValueError(
            f"sample_weight.shape == {w.shape}, expected ({n_samples},): one weight per sample."
        )
    bad = ~(np.isfinite(w) & (w >= 0))
    if bad.any():
        raise ValueError(f"sample_weight must be finite and >= 0; got {_show(w[bad][0])}.")
    if w.sum() == 0:
        raise ValueError("sample_weight sums to 0 (every weight is zero): no sample would count.")
    return w


# ---------------------------------------------------------------------------------------------
# Fitted values that make the model unusable


def check_positive_variance(estimator):
    """GaussianNB needs sigma^2 > 0: a Gaussian with variance 0 has no density."""
    zero = estimator.var_ <= 0
    if zero.any():
        c, d = np.argwhere(zero)[0]
        label = _show(estimator.classes_[c])
        unseen = " (a class without samples yet)" if estimator.class_count_[c] == 0 else ""
        raise ValueError(
            f"var_smoothing={_show(estimator.var_smoothing)} leaves class {label}{unseen} with "
            f"variance 0 in {_feature(estimator, d)}: epsilon_ = {_show(estimator.epsilon_)} "
            "(var_smoothing times the largest variance of a feature in X), and a Gaussian "
            "with variance 0 has no density. Use var_smoothing > 0, on data in which some "
            "feature varies."
        )


def check_complement_norm(estimator, log_theta):
    """ComplementNB(norm=True) divides by sum_d log theta~_cd: it must be finite and not 0."""
    total = log_theta.sum(axis=1)
    bad = np.flatnonzero(~np.isfinite(total) | (total == 0))
    if len(bad) == 0:
        return
    c = bad[0]
    label = _show(estimator.classes_[c])
    if np.isfinite(total[c]):
        why = f"the complement of class {label} puts all its probability on one feature"
    else:
        d = np.flatnonzero(~np.isfinite(log_theta[c]))[0]
        why = f"{_feature(estimator, d)} never occurs outside class {label} and alpha=0"
    raise ValueError(
        f"ComplementNB(norm=True) cannot normalise the weights: {why}, so sum_d log theta~ "
        "is 0 or -inf. Use norm=False, or alpha > 0 and more than one feature."
    )


def check_scores(best):
    """Rows whose joint scores cannot be normalised: every class impossible, or infinite.

    ``best`` holds each sample's largest joint score max_c b_c, shape (n_samples, 1).
    """
    best = best.ravel()
    bad = ~np.isfinite(best)
    if bad.any():
        rows = np.flatnonzero(bad)
        where = (
            f"The posterior P(y | x) is undefined for sample(s) at row(s) {rows[:10].tolist()}"
            f"{' ...' if len(rows) > 10 else ''}: "
        )
        if best[rows[0]] == -np.inf:  # every b_c = -inf: the posterior is 0 / 0
            raise ValueError(
                where + "every class has joint probability p(x, y) = 0.0 (log p = -inf). With "
                "alpha=0 this happens when each class has some feature value never seen with it "
                "in training; use alpha > 0. In a count model with alpha > 0 it happens when the "
                "counts are so large that x_d * log(theta_cd), or their sum over d, overflows to "
                "-inf; in a Gaussian "
                "model, when a value lies so far from every class mean that (x - mu)^2 / sigma^2 "
                "overflows to inf."
            )
        raise ValueError(  # some b_c = +inf or NaN: exp(b - B) is NaN
            where + f"the largest joint log score log p(x, y) is {_show(best[rows[0]])}, which "
            "cannot be normalised. With alpha=0 an infinite weight (a feature count of 0 in "
            "training) gives an infinite score; use alpha > 0."
        )
