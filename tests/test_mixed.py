"""MixedNB: one likelihood family per column, and the sum of their log likelihoods."""

import numpy as np
import pandas as pd
import pytest

from nbcore import BernoulliNB, CategoricalNB, GaussianNB, MixedNB, NotFittedError
from nbcore.datasets import load_weather_numeric

FEATURES = ["outlook", "temperature", "humidity", "windy"]
TIGHT = {"rtol": 1e-12, "atol": 1e-12}


@pytest.fixture(scope="module")
def weather():
    data = load_weather_numeric()
    return data[FEATURES], data.play


# ---------------------------------------------------------------------------------------------
# Choosing the family of each column


def test_kinds_chosen_from_the_column_types(weather):
    X, y = weather
    model = MixedNB().fit(X, y)
    assert model.kinds_ == {
        "outlook": "categorical",
        "temperature": "gaussian",
        "humidity": "gaussian",
        "windy": "bernoulli",
    }
    np.testing.assert_array_equal(model.gaussian_.feature_names_in_, ["temperature", "humidity"])
    np.testing.assert_array_equal(model.categorical_.feature_names_in_, ["outlook"])
    np.testing.assert_array_equal(model.bernoulli_.feature_names_in_, ["windy"])
    assert isinstance(model.gaussian_, GaussianNB)
    assert isinstance(model.categorical_, CategoricalNB)
    assert isinstance(model.bernoulli_, BernoulliNB)


def test_more_column_types():
    frame = pd.DataFrame(
        {
            "count": [1, 2, 3, 4],  # integers are numbers: Gaussian
            "level": pd.Categorical(["lo", "hi", "lo", "hi"]),
            "flag": np.array([True, None, False, True], dtype=object),  # booleans with a gap
            "name": ["x", "y", None, "x"],
        }
    )
    model = MixedNB(kinds={"flag": "categorical"}).fit(frame, ["a", "b", "a", "b"])
    assert model.kinds_ == {
        "count": "gaussian",
        "level": "categorical",
        "flag": "categorical",
        "name": "categorical",
    }
    assert model.bernoulli_ is None
    assert list(model.categorical_.categories_[1]) == [False, True]


def test_kinds_as_a_list_and_on_an_array(weather):
    X, y = weather
    kinds = ["categorical", "gaussian", "categorical", "categorical"]
    model = MixedNB(kinds=kinds).fit(X.to_numpy(), y)
    assert model.kinds_ == dict(enumerate(kinds))
    # integers are codes 0..max, as in CategoricalNB: 97 humidity categories, most unseen
    np.testing.assert_array_equal(model.categorical_.categories_[1], np.arange(97))
    assert not hasattr(model, "feature_names_in_")


def test_integers_as_labels_through_a_pandas_categorical(weather):
    X, y = weather
    X = X.assign(humidity=X.humidity.astype("category"))
    model = MixedNB().fit(X, y)
    assert model.kinds_["humidity"] == "categorical"
    np.testing.assert_array_equal(model.categorical_.categories_[1], sorted(set(X.humidity)))


def test_a_0_1_integer_column_declared_bernoulli():
    frame = pd.DataFrame({"clicked": [1, 0, 1, 1], "t": [1.0, 2.0, 0.5, 3.0]})
    model = MixedNB(kinds={"clicked": "bernoulli"}).fit(frame, ["a", "a", "b", "b"])
    # (count + 1) / (N_c + 2)
    np.testing.assert_allclose(np.exp(model.bernoulli_.feature_log_prob_), [[2 / 4], [3 / 4]])


# ---------------------------------------------------------------------------------------------
# The joint log likelihood is the log prior plus the per-column log likelihoods


def test_joint_log_likelihood_is_the_prior_plus_the_parts(weather):
    X, y = weather
    model = MixedNB(alpha=0.5).fit(X, y)
    gaussian = GaussianNB().fit(X[["temperature", "humidity"]], y)
    categorical = CategoricalNB(alpha=0.5).fit(X[["outlook"]], y)
    bernoulli = BernoulliNB(alpha=0.5, binarize=None).fit(X[["windy"]].astype(float), y)
    log_prior = np.log(np.array([5, 9]) / 14)
    expected = (
        log_prior
        + (gaussian.predict_joint_log_proba(X[["temperature", "humidity"]]) - log_prior)
        + (categorical.predict_joint_log_proba(X[["outlook"]]) - log_prior)
        + (bernoulli.predict_joint_log_proba(X[["windy"]].astype(float)) - log_prior)
    )
    np.testing.assert_allclose(model.class_log_prior_, log_prior, **TIGHT)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, **TIGHT)


def test_fit_prior_and_class_prior(weather):
    X, y = weather
    uniform = MixedNB(fit_prior=False).fit(X, y)
    np.testing.assert_allclose(np.exp(uniform.class_log_prior_), [0.5, 0.5])
    given = MixedNB(class_prior=[0.2, 0.8]).fit(X, y)
    np.testing.assert_allclose(np.exp(given.class_log_prior_), [0.2, 0.8])
    shift = given.predict_joint_log_proba(X) - uniform.predict_joint_log_proba(X)
    np.testing.assert_allclose(shift, np.log([[0.4, 1.6]]).repeat(len(y), axis=0), **TIGHT)


# ---------------------------------------------------------------------------------------------
# Restricted to one family, MixedNB is that family's estimator


@pytest.fixture(scope="module")
def gaussian_data():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 200)
    X = rng.normal(y[:, None] * 0.7, 1.0 + y[:, None] * 0.2, (200, 4)) * [1, 10, 100, 0.1]
    return X, y, rng.uniform(0.2, 2.0, 200)


@pytest.mark.parametrize("var_smoothing", [1e-9, 0.0, 1e-2])
def test_all_gaussian_columns_equal_gaussian_nb(gaussian_data, var_smoothing):
    X, y, weights = gaussian_data
    mixed = MixedNB(var_smoothing=var_smoothing).fit(X, y, sample_weight=weights)
    plain = GaussianNB(var_smoothing=var_smoothing).fit(X, y, sample_weight=weights)
    assert set(mixed.kinds_.values()) == {"gaussian"}
    for name in ("theta_", "var_", "class_count_"):
        np.testing.assert_allclose(getattr(mixed.gaussian_, name), getattr(plain, name), **TIGHT)
    assert mixed.gaussian_.epsilon_ == pytest.approx(plain.epsilon_, rel=1e-12)
    for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba"):
        np.testing.assert_allclose(getattr(mixed, method)(X), getattr(plain, method)(X), **TIGHT)


def test_all_gaussian_with_class_prior_equals_gaussian_priors(gaussian_data):
    X, y, _ = gaussian_data
    mixed = MixedNB(class_prior=[0.5, 0.3, 0.2]).fit(X, y)
    plain = GaussianNB(priors=[0.5, 0.3, 0.2]).fit(X, y)
    np.testing.assert_allclose(mixed.predict_proba(X), plain.predict_proba(X), **TIGHT)


@pytest.fixture(scope="module")
def categorical_data():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 150)
    X = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], 150),
            "size": rng.choice(["S", "M", "L", "XL"], 150),
            "shape": rng.choice(["round", "square"], 150),
        },
        dtype=object,
    )
    X.loc[rng.random(150) < 0.1, "size"] = None  # missing values, left out
    return X, y, rng.uniform(0.2, 2.0, 150)


@pytest.mark.parametrize(
    "params",
    [{}, {"alpha": 0.3}, {"alpha": 0.0}, {"fit_prior": False}, {"class_prior": [0.2, 0.3, 0.5]}],
    ids=["default", "alpha=0.3", "alpha=0", "fit_prior=False", "class_prior"],
)
def test_all_categorical_columns_equal_categorical_nb(categorical_data, params):
    X, y, weights = categorical_data
    mixed = MixedNB(**params).fit(X, y, sample_weight=weights)
    plain = CategoricalNB(**params).fit(X, y, sample_weight=weights)
    assert set(mixed.kinds_.values()) == {"categorical"}
    np.testing.assert_allclose(mixed.class_log_prior_, plain.class_log_prior_, **TIGHT)
    for a, b in zip(mixed.categorical_.categories_, plain.categories_, strict=True):
        np.testing.assert_array_equal(a, b)
    test = X.copy()
    test.loc[::7, "colour"] = None
    for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba"):
        np.testing.assert_allclose(
            getattr(mixed, method)(test), getattr(plain, method)(test), **TIGHT
        )


def test_unknown_categories_ignored_as_in_categorical_nb(categorical_data):
    X, y, _ = categorical_data
    mixed = MixedNB(handle_unknown="ignore").fit(X, y)
    plain = CategoricalNB(handle_unknown="ignore").fit(X, y)
    new = pd.DataFrame({"colour": ["purple"], "size": ["S"], "shape": ["oval"]})
    np.testing.assert_allclose(mixed.predict_proba(new), plain.predict_proba(new), **TIGHT)


def test_all_boolean_columns_equal_bernoulli_nb():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 80)
    X = pd.DataFrame(rng.random((80, 3)) < [0.2, 0.5, 0.8], columns=["p", "q", "r"])
    mixed = MixedNB(alpha=0.7).fit(X, y)
    plain = BernoulliNB(alpha=0.7).fit(X.astype(float), y)
    assert set(mixed.kinds_.values()) == {"bernoulli"}
    np.testing.assert_allclose(mixed.bernoulli_.feature_log_prob_, plain.feature_log_prob_, **TIGHT)
    np.testing.assert_allclose(
        mixed.predict_joint_log_proba(X), plain.predict_joint_log_proba(X.astype(float)), **TIGHT
    )


# ---------------------------------------------------------------------------------------------
# Missing values, partial_fit


def test_missing_outlook_is_marginalised(weather):
    X, y = weather
    model = MixedNB().fit(X, y)
    without = MixedNB().fit(X.drop(columns="outlook"), y)
    x = pd.DataFrame([[None, 70, 80, False]], columns=FEATURES)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(x),
        without.predict_joint_log_proba(x.drop(columns="outlook")),
        **TIGHT,
    )


def test_missing_gaussian_value_names_the_exact_remedy(weather):
    """A missing temperature at predict is refused with a message that says to leave the
    column out; that remedy is the marginal of the full model, the integral of its joint
    density over the temperature (done here numerically on a fine grid)."""
    X, y = weather
    model = MixedNB(alpha=0, var_smoothing=0).fit(X, y)
    day = pd.DataFrame([["sunny", np.nan, 90, True]], columns=FEATURES)
    with pytest.raises(ValueError, match=r"'temperature'.*without its column"):
        model.predict_proba(day)
    without = MixedNB(alpha=0, var_smoothing=0).fit(X.drop(columns="temperature"), y)
    grid = np.linspace(-100, 250, 35001)
    days = pd.DataFrame({"outlook": "sunny", "temperature": grid, "humidity": 90.0, "windy": True})
    joint = np.exp(model.predict_joint_log_proba(days))  # p(x, y = c) at each temperature
    marginal = np.trapezoid(joint, grid, axis=0)
    np.testing.assert_allclose(
        np.log(marginal),
        without.predict_joint_log_proba(day.drop(columns="temperature"))[0],
        rtol=1e-9,
    )


def test_dropping_a_gaussian_column_moves_the_variance_floor(weather):
    """The remedy in the message is exact only with var_smoothing=0: the default floor is a
    fraction of the largest Gaussian variance (here the humidity's), so dropping that column
    changes the temperature variances slightly; the message says so."""
    X, y = weather
    day = pd.DataFrame([["sunny", 66, np.nan, True]], columns=FEATURES)
    with pytest.raises(ValueError, match=r"'humidity'.*var_smoothing=0"):
        MixedNB(alpha=0).fit(X, y).predict_proba(day)
    for smoothing, same in ((0.0, True), (1e-9, False)):
        full = MixedNB(alpha=0, var_smoothing=smoothing).fit(X, y)
        without = MixedNB(alpha=0, var_smoothing=smoothing).fit(X.drop(columns="humidity"), y)
        assert np.array_equal(full.gaussian_.var_[:, 0], without.gaussian_.var_[:, 0]) == same


def test_partial_fit_in_batches_equals_fit(weather):
    X, y = weather
    whole = MixedNB(var_smoothing=0.0).fit(X, y)
    batches = MixedNB(var_smoothing=0.0)
    for rows in (slice(0, 5), slice(5, 10), slice(10, 14)):
        batches.partial_fit(X[rows], y[rows], classes=["no", "yes"])
    assert batches.kinds_ == whole.kinds_
    np.testing.assert_allclose(batches.class_count_, whole.class_count_)
    np.testing.assert_allclose(batches.gaussian_.theta_, whole.gaussian_.theta_, rtol=1e-12)
    np.testing.assert_allclose(batches.gaussian_.var_, whole.gaussian_.var_, rtol=1e-10)
    np.testing.assert_allclose(
        batches.predict_log_proba(X), whole.predict_log_proba(X), rtol=1e-9, atol=1e-12
    )


def test_predictions_on_the_weather(weather):
    X, y = weather
    model = MixedNB().fit(X, y)
    P = model.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert model.score(X, y) > 0.7
    new = pd.DataFrame([["overcast", 70, 70, False], ["sunny", 85, 95, True]], columns=FEATURES)
    np.testing.assert_array_equal(model.predict(new), ["yes", "no"])


def test_a_failed_first_batch_leaves_nothing_learned():
    X = pd.DataFrame({"t": [1.0, 2.0, np.nan, 4.0], "o": ["a", "b", "a", "b"]})
    y = ["x", "y", "x", "y"]
    model = MixedNB()
    with pytest.raises(ValueError, match="X column 't'"):
        model.partial_fit(X, y, classes=["x", "y"])
    with pytest.raises(NotFittedError):
        model.predict(X.fillna(3.0))
    # the next call is a first call again: it needs the classes, and then it learns
    with pytest.raises(ValueError, match="classes must be passed"):
        model.partial_fit(X.fillna(3.0), y)
    model.partial_fit(X.fillna(3.0), y, classes=["x", "y"])
    np.testing.assert_array_equal(model.class_count_, [2, 2])


def test_mixed_nb_uses_only_the_public_methods_of_its_parts():
    import ast
    import inspect

    import nbcore.mixed

    # every attribute read on a part (self._part(kind).name or self.gaussian_.name) is public
    tree = ast.parse(inspect.getsource(nbcore.mixed))
    on_parts = [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and (
            (isinstance(node.value, ast.Call) and getattr(node.value.func, "attr", "") == "_part")
            or (isinstance(node.value, ast.Attribute) and node.value.attr.endswith("_"))
        )
    ]
    assert on_parts, "the test no longer finds the calls on the parts"
    assert [name for name in on_parts if name.startswith("_")] == []
