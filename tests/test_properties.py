"""Properties every naive Bayes estimator has, checked on data that hypothesis generates.

Each test states one property that holds in exact arithmetic and checks it far above rounding
error: the probabilities form a distribution, predict is their argmax, learning in batches is
learning at once, neither the order of the training rows nor the names of the classes matter,
a row repeated k times is a row of weight k, and so on.

Tolerances. Fitted attributes are compared to 1e-9. Outputs of two equivalent fits are
compared to 1e-9 times the size of the joint log scores: a Gaussian score is a squared distance
divided by a variance, and the rounding of the variance is multiplied by the score's size.

GaussianNB and the Gaussian columns of MixedNB are fitted with ``var_smoothing=1e-2`` wherever
two fits are compared, which keeps the scores of modest size. Where batches or repeated rows
are compared, ``var_smoothing=0`` instead: the floor ``epsilon_`` is computed from the spread of
one batch of X (scikit-learn's definition, which nbcore keeps), so it differs between the two
fits even though the moments agree; the data then have a spread in every class and column.
"""

import numpy as np
import pandas as pd
import pytest
from conftest import DATA_KIND
from conftest import ESTIMATORS as ALL_ESTIMATORS
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import nbcore

SETTINGS = settings(max_examples=30, deadline=None)
RTOL = 1e-9
ATOL = 1e-9

LABEL_SETS = {
    "str": np.array(["ham", "spam", "eggs", "tofu"]),
    "int": np.array([42, -3, 7, 100]),
}
COLOURS = np.array(["red", "green", "blue"])

# parameters used when two fits are compared
COMPARE_PARAMS = {"GaussianNB": {"var_smoothing": 1e-2}, "MixedNB": {"var_smoothing": 1e-2}}
# name -> (kind of data, parameters used when two fits are compared)
ESTIMATORS = {
    Model.__name__: (DATA_KIND[Model.__name__], COMPARE_PARAMS.get(Model.__name__, {}))
    for Model in ALL_ESTIMATORS
}
DISCRETE = ["MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]
ALL = list(ESTIMATORS)
ARRAY_INPUT = [name for name in ALL if name != "MixedNB"]
# TAN roots its tree at feature 0 and breaks ties between equally heavy edges by feature
# number, and with alpha > 0 the smoothed tables depend on which way each edge points: the
# order of the features is part of the model (tests/test_one_dependence.py checks the tree)
FEATURE_ORDER_FREE = [name for name in ARRAY_INPUT if name != "TreeAugmentedNB"]
HAS_GAUSSIAN = ("GaussianNB", "MixedNB")
EXACT_POOLING = {"var_smoothing": 0.0}


# ---------------------------------------------------------------------------------------------
# Data


@st.composite
def datasets(draw, kind, spread=False, max_rows=14):
    """(X, y, codes, classes), every class present, classes sorted as classes_ will be.

    With ``spread=True`` every class has at least two rows and the numeric columns have no
    repeated value (a variance above 0 in every class), so ``var_smoothing=0`` can be used.
    """
    k = draw(st.integers(2, 4))
    per_class = 2 if spread else 1
    n = draw(st.integers(per_class * k + 1, max_rows))
    d = draw(st.integers(1, 4))
    classes = np.sort(LABEL_SETS[draw(st.sampled_from(sorted(LABEL_SETS)))][:k])
    codes = draw(arrays(np.int64, n, elements=st.integers(0, k - 1)))
    codes[: per_class * k] = np.tile(np.arange(k), per_class)

    def numbers(shape):
        values = draw(arrays(np.int64, shape, elements=st.integers(-20, 20))).astype(float)
        if spread:  # i / 16 with i < 16 makes every value of a column distinct
            values = values + (np.arange(1, n + 1) / 16.0).reshape((n,) + (1,) * (len(shape) - 1))
        return values

    if kind == "counts":
        X = draw(arrays(np.int64, (n, d), elements=st.integers(0, 6))).astype(np.float64)
    elif kind == "binary":
        X = draw(arrays(np.int64, (n, d), elements=st.integers(0, 1))).astype(np.float64)
    elif kind == "categorical":
        X = draw(arrays(np.int64, (n, d), elements=st.integers(0, 3)))
        if draw(st.booleans()):
            X = np.array(["a", "b", "c", "d"])[X]  # category values as strings
    elif kind == "gaussian":
        X = numbers((n, d))
        assume(X.var(axis=0).max() > 0)
    elif kind == "mixed":
        X = pd.DataFrame(
            {
                "size": numbers((n,)),
                "colour": COLOURS[draw(arrays(np.int64, n, elements=st.integers(0, 2)))],
                "windy": draw(arrays(np.bool_, n, elements=st.booleans())),
            }
        )
        assume(X["size"].var() > 0)
    else:
        raise AssertionError(kind)
    return X, classes[codes], codes, classes


def rows(X, index):
    """Rows of an array or a DataFrame, renumbered."""
    if isinstance(X, pd.DataFrame):
        return X.iloc[index].reset_index(drop=True)
    return X[index]


def make(name, **params):
    return getattr(nbcore, name)(**{**ESTIMATORS[name][1], **params})


# ---------------------------------------------------------------------------------------------
# Comparison helpers


def assert_same_outputs(a, b, X, X_b=None):
    """Two fitted models give the same classes, probabilities and scores (b on X_b)."""
    X_b = X if X_b is None else X_b
    np.testing.assert_array_equal(a.classes_, b.classes_)
    joint_a, joint_b = a.predict_joint_log_proba(X), b.predict_joint_log_proba(X_b)
    tol = ATOL * max(1.0, float(np.max(np.abs(joint_a))))
    pairs = [
        ("predict_joint_log_proba", joint_a, joint_b),
        ("predict_log_proba", a.predict_log_proba(X), b.predict_log_proba(X_b)),
        ("predict_proba", a.predict_proba(X), b.predict_proba(X_b)),
    ]
    for method, x, y in pairs:
        np.testing.assert_allclose(x, y, rtol=RTOL, atol=tol, err_msg=method)


def _assert_close(x, y, name):
    if isinstance(y, list):
        assert len(x) == len(y), name
        for i, (xi, yi) in enumerate(zip(x, y, strict=True)):
            _assert_close(xi, yi, f"{name}[{i}]")
    elif np.asarray(y).dtype.kind in "iufb":
        np.testing.assert_allclose(
            np.asarray(x, dtype=float),
            np.asarray(y, dtype=float),
            rtol=RTOL,
            atol=ATOL,
            err_msg=name,
        )
    else:
        np.testing.assert_array_equal(x, y, err_msg=name)


# What a refit on equivalent data must reproduce, per estimator: attribute paths
# ("gaussian_.theta_" is an attribute of MixedNB's Gaussian part).
FITTED = {
    "MultinomialNB": ["class_count_", "feature_count_", "feature_log_prob_", "class_log_prior_"],
    "ComplementNB": ["class_count_", "feature_count_", "feature_all_", "feature_log_prob_"],
    "BernoulliNB": ["class_count_", "feature_count_", "feature_log_prob_", "class_log_prior_"],
    "CategoricalNB": [
        "class_count_",
        "class_log_prior_",
        "categories_",
        "category_count_",
        "feature_log_prob_",
    ],
    "GaussianNB": ["class_count_", "class_prior_", "theta_", "var_", "epsilon_"],
    "TreeAugmentedNB": [
        "class_count_",
        "class_log_prior_",
        "categories_",
        "category_count_",
        "conditional_mutual_info_",
    ],
    "AveragedOneDependenceNB": [
        "class_count_",
        "categories_",
        "category_count_",
        "parent_log_prob_",
    ],
    "MixedNB": [
        "class_count_",
        "class_log_prior_",
        "gaussian_.theta_",
        "gaussian_.var_",
        "categorical_.categories_",
        "categorical_.category_count_",
        "bernoulli_.feature_count_",
    ],
}
# Attributes that are counts: they scale with the weights
COUNTS = {
    "class_count_",
    "feature_count_",
    "feature_all_",
    "category_count_",
    "categorical_.category_count_",
    "bernoulli_.feature_count_",
}


def attribute(model, path):
    for part in path.split("."):
        model = getattr(model, part)
    return model


def assert_same_fit(a, b, name, skip=()):
    for path in FITTED[name]:
        if path not in skip:
            _assert_close(attribute(a, path), attribute(b, path), path)


# ---------------------------------------------------------------------------------------------
# One fitted model


@pytest.mark.parametrize("name", ALL)
@SETTINGS
@given(data=st.data())
def test_probabilities_are_a_distribution_and_predict_is_their_argmax(name, data):
    kind = ESTIMATORS[name][0]
    X, y, _, classes = data.draw(datasets(kind), label="training set")
    params = {}
    if name in HAS_GAUSSIAN:
        params["var_smoothing"] = data.draw(st.sampled_from([1e-9, 1e-2]), label="var_smoothing")
    if name != "GaussianNB":
        params["alpha"] = data.draw(st.sampled_from([1.0, 0.3, 1e-3]), label="alpha")
    model = make(name, **params).fit(X, y)
    np.testing.assert_array_equal(model.classes_, classes)

    proba = model.predict_proba(X)
    log_proba = model.predict_log_proba(X)
    joint = model.predict_joint_log_proba(X)
    predicted = model.predict(X)
    n = len(y)
    assert proba.shape == log_proba.shape == joint.shape == (n, len(classes))
    assert np.all(np.isfinite(proba)) and np.all(np.isfinite(log_proba))
    assert np.all(np.isfinite(joint))
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)

    # log_proba is log(proba) (exactly where proba does not underflow)
    np.testing.assert_allclose(np.exp(log_proba), proba, rtol=1e-12, atol=1e-300)
    shown = proba > 1e-300
    np.testing.assert_allclose(log_proba[shown], np.log(proba[shown]), rtol=1e-12, atol=1e-12)
    # the joint scores, normalised: they differ from log_proba by one number per row
    # (to the rounding of scores that can be as large as 1e12)
    shift = joint - log_proba
    np.testing.assert_allclose(
        shift,
        np.repeat(shift[:, :1], shift.shape[1], axis=1),
        rtol=0,
        atol=1e-9 + 1e-14 * np.abs(joint).max(),
    )

    # predict is the class of largest probability (any of them when two tie)
    assert predicted.shape == (n,)
    chosen = np.searchsorted(classes, predicted)
    assert np.all(classes[np.minimum(chosen, len(classes) - 1)] == predicted), (
        "predict returned a label outside classes_"
    )
    best = proba.max(axis=1)
    assert np.all(proba[np.arange(n), chosen] >= best - 1e-12)
    second = np.sort(proba, axis=1)[:, -2]
    clear = best - second > 1e-9
    np.testing.assert_array_equal(predicted[clear], classes[np.argmax(proba, axis=1)][clear])
    assert model.score(X, y) == pytest.approx(np.mean(predicted == y))


# ---------------------------------------------------------------------------------------------
# Equivalent ways of learning the same model


def _batches(data, n, label):
    cuts = data.draw(
        st.lists(st.integers(1, n - 1), max_size=4, unique=True).map(sorted), label=label
    )
    return np.split(np.arange(n), cuts)


@pytest.mark.parametrize("name", ALL)
@SETTINGS
@given(data=st.data())
def test_partial_fit_in_batches_equals_fit(name, data):
    spread = name in HAS_GAUSSIAN
    params = EXACT_POOLING if spread else {}
    X, y, _, classes = data.draw(datasets(ESTIMATORS[name][0], spread), label="training set")
    whole = make(name, **params).fit(X, y)
    batched = make(name, **params)
    for i, index in enumerate(_batches(data, len(y), "batch boundaries")):
        kwargs = {"classes": classes} if i == 0 else {}
        assert batched.partial_fit(rows(X, index), y[index], **kwargs) is batched
    assert_same_fit(batched, whole, name)
    assert_same_outputs(batched, whole, X)


@pytest.mark.parametrize("name", ALL)
@SETTINGS
@given(data=st.data())
def test_order_of_training_rows_changes_nothing(name, data):
    X, y, _, _ = data.draw(datasets(ESTIMATORS[name][0]), label="training set")
    order = np.array(data.draw(st.permutations(range(len(y))), label="row order"))
    a = make(name).fit(X, y)
    b = make(name).fit(rows(X, order), y[order])
    assert_same_fit(a, b, name)
    assert_same_outputs(a, b, X)


@pytest.mark.parametrize("name", ALL)
@SETTINGS
@given(data=st.data())
def test_renaming_classes_permutes_the_columns(name, data):
    X, _, codes, classes = data.draw(datasets(ESTIMATORS[name][0]), label="training set")
    k = len(classes)
    perm = np.array(data.draw(st.permutations(range(k)), label="renaming"))
    # class classes[c] is renamed classes[perm[c]]; classes_ is the same sorted set, so the
    # column of class c moves from position c to position perm[c]
    params, renamed_params = {}, {}
    # AODE has no class prior of its own: it estimates p(c, x_i) together
    has_prior = name != "AveragedOneDependenceNB"
    if has_prior and data.draw(st.booleans(), label="prior given"):
        key = "priors" if name == "GaussianNB" else "class_prior"
        prior = np.array(data.draw(st.lists(st.integers(1, 5), min_size=k, max_size=k)), float)
        prior /= prior.sum()
        renamed_prior = np.empty(k)
        renamed_prior[perm] = prior
        params, renamed_params = {key: prior}, {key: renamed_prior}
    a = make(name, **params).fit(X, classes[codes])
    b = make(name, **renamed_params).fit(X, classes[perm[codes]])
    np.testing.assert_array_equal(a.classes_, b.classes_)
    joint = a.predict_joint_log_proba(X)
    tol = ATOL * max(1.0, float(np.max(np.abs(joint))))
    for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        np.testing.assert_allclose(
            getattr(b, method)(X)[:, perm],
            getattr(a, method)(X),
            rtol=RTOL,
            atol=tol,
            err_msg=method,
        )
    proba = a.predict_proba(X)
    top2 = np.sort(proba, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-6
    renamed = dict(zip(classes, classes[perm], strict=True))
    expected = np.array([renamed[c] for c in a.predict(X)])
    np.testing.assert_array_equal(b.predict(X)[clear], expected[clear])


@pytest.mark.parametrize("name", FEATURE_ORDER_FREE)
@SETTINGS
@given(data=st.data())
def test_order_of_features_changes_nothing(name, data):
    X, y, _, _ = data.draw(datasets(ESTIMATORS[name][0]), label="training set")
    order = np.array(data.draw(st.permutations(range(X.shape[1])), label="column order"))
    a = make(name).fit(X, y)
    b = make(name).fit(X[:, order], y)
    assert_same_outputs(a, b, X, X[:, order])


# ---------------------------------------------------------------------------------------------
# Sample weights


def _integer_weights(data, codes, k, per_class, smallest=0):
    n = len(codes)
    w = np.array(
        data.draw(st.lists(st.integers(smallest, 3), min_size=n, max_size=n), label="weights"),
        dtype=np.int64,
    )
    # the first per_class * k rows hold every class per_class times: each keeps that many rows
    w[: per_class * k] = np.maximum(w[: per_class * k], 1)
    return w


@pytest.mark.parametrize("name", ALL)
@SETTINGS
@given(data=st.data())
def test_repeated_rows_equal_integer_sample_weights(name, data):
    spread = name in HAS_GAUSSIAN
    params = EXACT_POOLING if spread else {}
    X, y, codes, classes = data.draw(datasets(ESTIMATORS[name][0], spread), label="training set")
    # categories are read from the rows given, so no row may vanish (weight 0) where they are
    smallest = 1 if DATA_KIND[name] in ("categorical", "mixed") else 0
    w = _integer_weights(data, codes, len(classes), 2 if spread else 1, smallest)
    repeated = np.repeat(np.arange(len(y)), w)
    weighted = make(name, **params).fit(X, y, sample_weight=w.astype(np.float64))
    copied = make(name, **params).fit(rows(X, repeated), y[repeated])
    assert_same_fit(weighted, copied, name)
    assert_same_outputs(weighted, copied, X)


@pytest.mark.parametrize("name", [*DISCRETE, "MixedNB"])
@SETTINGS
@given(data=st.data())
def test_scaling_weights_and_alpha_together_changes_no_probability(name, data):
    """Counts and alpha enter every smoothed estimate as (count + alpha) / (total + m alpha);
    Gaussian moments are weighted averages, unchanged by a common factor."""
    X, y, codes, classes = data.draw(datasets(ESTIMATORS[name][0]), label="training set")
    w = _integer_weights(data, codes, len(classes), 1) + 0.5
    alpha = data.draw(st.sampled_from([1.0, 0.25, 2.0]), label="alpha")
    c = data.draw(st.sampled_from([0.5, 3.0, 10.0, 1e3]), label="scale")
    a = make(name, alpha=alpha).fit(X, y, sample_weight=w)
    b = make(name, alpha=c * alpha).fit(X, y, sample_weight=c * w)
    assert_same_fit(a, b, name, skip=COUNTS)
    for path in COUNTS & set(FITTED[name]):
        _assert_close(attribute(b, path), _scaled(attribute(a, path), c), path)
    assert_same_outputs(a, b, X)


def _scaled(value, c):
    return [c * v for v in value] if isinstance(value, list) else c * np.asarray(value)


@SETTINGS
@given(data=st.data())
def test_gaussian_scaling_all_weights_changes_nothing_but_the_counts(data):
    X, y, codes, classes = data.draw(datasets("gaussian"), label="training set")
    w = _integer_weights(data, codes, len(classes), 1) + 0.5
    c = data.draw(st.sampled_from([0.5, 3.0, 1e3]), label="scale")
    a = make("GaussianNB").fit(X, y, sample_weight=w)
    b = make("GaussianNB").fit(X, y, sample_weight=c * w)
    assert_same_fit(a, b, "GaussianNB", skip={"class_count_"})
    _assert_close(b.class_count_, c * a.class_count_, "class_count_")
    assert_same_outputs(a, b, X)


# ---------------------------------------------------------------------------------------------
# MultinomialNB: a class is described by its total counts


@SETTINGS
@given(data=st.data())
def test_multinomial_scaling_counts_and_alpha_together_changes_nothing(data):
    """theta_cd = (N_cd + alpha) / (N_c + D alpha) is unchanged when N and alpha scale alike."""
    X, y, _, _ = data.draw(datasets("counts"), label="training set")
    alpha = data.draw(st.sampled_from([1.0, 0.25]), label="alpha")
    c = data.draw(st.sampled_from([0.5, 2.0, 7.0, 1e3]), label="scale")
    a = make("MultinomialNB", alpha=alpha).fit(X, y)
    b = make("MultinomialNB", alpha=c * alpha).fit(c * X, y)
    assert_same_fit(a, b, "MultinomialNB", skip={"feature_count_"})
    _assert_close(b.feature_count_, c * a.feature_count_, "feature_count_")
    assert_same_outputs(a, b, X)


@SETTINGS
@given(data=st.data())
def test_multinomial_summing_the_rows_of_a_class_keeps_its_word_probabilities(data):
    """Only the per-class totals N_cd enter theta; with a uniform prior nothing else is used."""
    X, y, codes, classes = data.draw(datasets("counts"), label="training set")
    merged = np.stack([X[codes == c].sum(axis=0) for c in range(len(classes))])
    a = make("MultinomialNB", fit_prior=False).fit(X, y)
    b = make("MultinomialNB", fit_prior=False).fit(merged, classes)
    assert_same_fit(a, b, "MultinomialNB", skip={"class_count_"})
    assert_same_outputs(a, b, X)


@SETTINGS
@given(data=st.data())
def test_multinomial_joint_log_score_is_affine_in_the_counts(data):
    """log p(x, c) = log pi_c + sum_d x_d log theta_cd, so the scores of x1 + x2 add up."""
    X, y, _, _ = data.draw(datasets("counts"), label="training set")
    model = make("MultinomialNB").fit(X, y)
    other = X[::-1]
    joint = model.predict_joint_log_proba
    np.testing.assert_allclose(
        joint(X + other),
        joint(X) + joint(other) - model.class_log_prior_,
        rtol=RTOL,
        atol=ATOL,
    )
