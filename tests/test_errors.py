"""Every error nbcore raises on bad input: its type, and a message that names the parameter,
what was expected and what came."""

import numpy as np
import pandas as pd
import pytest
from conftest import ESTIMATORS

import nbcore
from nbcore import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    NotFittedError,
)

ALL = ESTIMATORS
DISCRETE = [BernoulliNB, CategoricalNB, ComplementNB, MultinomialNB]
WITH_CLASS_PRIOR = [*DISCRETE, MixedNB]
COUNTS = [MultinomialNB, ComplementNB]

# counts that every estimator accepts (MixedNB reads them as Gaussian columns)
X = np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 1.0], [0.0, 1.0, 2.0], [2.0, 2.0, 1.0]])
Y = np.array(["a", "b", "b", "a"])

ids = pytest.mark.parametrize("Model", ALL, ids=lambda m: m.__name__)


def fitted(Model, **params):
    return Model(**params).fit(X, Y)


# ---------------------------------------------------------------------------------------------
# Not fitted


@ids
@pytest.mark.parametrize(
    "method", ["predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"]
)
def test_predict_before_fit_is_not_fitted_error(Model, method):
    with pytest.raises(NotFittedError, match=rf"This {Model.__name__} instance is not fitted"):
        getattr(Model(), method)(X)


@ids
def test_not_fitted_error_is_a_value_and_attribute_error(Model):
    assert issubclass(NotFittedError, ValueError)
    assert issubclass(NotFittedError, AttributeError)
    with pytest.raises(AttributeError, match="Call 'fit'"):
        Model().score(X, Y)
    assert nbcore.NotFittedError is NotFittedError


# ---------------------------------------------------------------------------------------------
# X: shape, type, values


@ids
@pytest.mark.parametrize("bad", [None, "abc", {"a": 1}], ids=["None", "str", "dict"])
def test_X_of_the_wrong_type(Model, bad):
    with pytest.raises(
        TypeError, match=r"X must be an array-like .*shape \(n_samples, n_features\)"
    ):
        Model().fit(bad, Y)


@ids
@pytest.mark.parametrize(
    ("bad", "what"),
    [
        (np.array([1.0, 2.0, 3.0, 4.0]), r"a 1-D array of shape \(4,\)"),
        (np.ones((4, 3, 2)), r"a 3-D array of shape \(4, 3, 2\)"),
        (np.float64(3.0), "a scalar"),
    ],
    ids=["1-D", "3-D", "scalar"],
)
def test_X_that_is_not_2d(Model, bad, what):
    with pytest.raises(ValueError, match=rf"X must be a 2-D array .*got {what}.*reshape\(-1, 1\)"):
        Model().fit(bad, Y)


@ids
def test_X_with_no_samples(Model):
    with pytest.raises(ValueError, match=rf"0 sample\(s\) \(shape=\(0, 3\)\).*by {Model.__name__}"):
        Model().fit(np.empty((0, 3)), [])


@ids
def test_X_with_no_features(Model):
    with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(4, 0\)\)"):
        Model().fit(np.empty((4, 0)), Y)


@ids
def test_X_with_ragged_rows(Model):
    with pytest.raises(ValueError, match="X must be a rectangular array .* different lengths"):
        Model().fit([[1.0, 2.0], [3.0]], ["a", "b"])


@ids
def test_X_of_the_wrong_width_at_predict(Model):
    with pytest.raises(ValueError, match=rf"X has 2 features, but {Model.__name__} is expecting 3"):
        fitted(Model).predict(X[:, :2])


@ids
def test_X_of_the_wrong_width_in_partial_fit(Model):
    model = Model().partial_fit(X, Y, classes=["a", "b"])
    with pytest.raises(ValueError, match="X has 4 features, .* expecting 3 features"):
        model.partial_fit(np.hstack([X, X[:, :1]]), Y)


@ids
def test_feature_names_that_differ_from_fit(Model):
    model = Model().fit(pd.DataFrame(X, columns=["u", "v", "w"]), Y)
    other = pd.DataFrame(X, columns=["u", "v", "z"])
    with pytest.raises(ValueError, match=r"feature names should match .*\['u', 'v', 'w'\].*'z'"):
        model.predict(other)


NUMERIC = [BernoulliNB, ComplementNB, GaussianNB, MultinomialNB]
numeric_ids = pytest.mark.parametrize("Model", NUMERIC, ids=lambda m: m.__name__)


@numeric_ids
def test_strings_for_a_numeric_model(Model):
    with pytest.raises(TypeError, match=rf"X must be numeric for {Model.__name__}; .*'sunny'"):
        Model().fit([["sunny", 1.0], ["rainy", 2.0]], ["a", "b"])


@numeric_ids
def test_string_column_of_a_data_frame_for_a_numeric_model(Model):
    frame = pd.DataFrame({"outlook": ["sunny", "rainy"], "windy": [1.0, 0.0]})
    with pytest.raises(TypeError, match="column 'outlook' holds .* such as 'sunny'.*MixedNB"):
        Model().fit(frame, ["a", "b"])


@numeric_ids
def test_complex_numbers_for_a_numeric_model(Model):
    with pytest.raises(TypeError, match="X must be numeric .*complex128"):
        Model().fit(X + 1j, Y)


def test_complex_column_for_mixed_nb_is_not_cut_to_its_real_part():
    frame = pd.DataFrame({"z": X[:, 0] + 1j, "t": X[:, 1]})
    with pytest.raises(TypeError, match=r"X column 'z' \(gaussian\) must hold real numbers"):
        MixedNB().fit(frame, Y)


@numeric_ids
@pytest.mark.parametrize(("value", "name"), [(np.nan, "NaN"), (np.inf, "infinity")])
@pytest.mark.parametrize("when", ["fit", "predict"])
def test_nan_and_infinity_in_a_numeric_model(Model, value, name, when):
    bad = X.copy()
    bad[2, 1] = value
    message = rf"Input X contains {name} \(first at row 2, column 1\); {Model.__name__} needs"
    with pytest.raises(ValueError, match=message):
        if when == "fit":
            Model().fit(bad, Y)
        else:
            fitted(Model).predict(bad)


@pytest.mark.parametrize("Model", COUNTS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("when", ["fit", "partial_fit", "predict"])
def test_negative_counts(Model, when):
    bad = X.copy()
    bad[1, 2] = -1.0
    message = rf"Negative values .* {Model.__name__} .*counts >= 0; got -1.0 .*row 1, column 2"
    with pytest.raises(ValueError, match=message):
        if when == "fit":
            Model().fit(bad, Y)
        elif when == "partial_fit":
            fitted(Model).partial_fit(bad, Y)
        else:
            fitted(Model).predict_proba(bad)


@numeric_ids
def test_minus_infinity_and_infinity_together_are_called_infinity(Model):
    bad = X.copy()
    bad[0, 0], bad[3, 2] = -np.inf, np.inf
    with pytest.raises(ValueError, match=r"Input X contains infinity \(first at row 0, column 0"):
        Model().fit(bad, Y)


@pytest.mark.parametrize("Model", COUNTS, ids=lambda m: m.__name__)
def test_minus_zero_is_a_count(Model):
    # -0.0 has its sign bit set: the one-pass check sends it to the exact check, which accepts it
    signed = X.copy()
    signed[signed == 0] = -0.0
    np.testing.assert_array_equal(
        Model().fit(signed, Y).predict_proba(signed), Model().fit(X, Y).predict_proba(X)
    )


def test_finite_values_whose_sum_overflows_are_accepted():
    # the sum of X overflows to inf; the exact check finds every value finite
    huge = np.array([[1e308, 1.0], [1e308, 2.0], [-1e308, 3.0], [1e308, 5.0]])
    model = BernoulliNB().fit(huge, Y)
    np.testing.assert_array_equal(model.predict(huge), BernoulliNB().fit(huge > 0, Y).predict(huge))


# ---------------------------------------------------------------------------------------------
# y, classes, sample_weight


@ids
def test_y_missing(Model):
    with pytest.raises(ValueError, match=r"y must be an array-like of shape \(n_samples,\).*None"):
        Model().fit(X, None)


@ids
def test_y_two_dimensional(Model):
    with pytest.raises(ValueError, match=r"y must be a 1-D .*got shape \(4, 2\)"):
        Model().fit(X, np.ones((4, 2)))


@ids
def test_X_and_y_of_different_lengths(Model):
    with pytest.raises(
        ValueError, match="inconsistent numbers of samples: X has 4 rows but y has 3"
    ):
        Model().fit(X, Y[:3])


@ids
def test_y_with_missing_labels(Model):
    with pytest.raises(ValueError, match="y must not contain missing values; got None at row 2"):
        Model().fit(X, ["a", "b", None, "a"])


@ids
def test_y_continuous(Model):
    with pytest.raises(ValueError, match="Unknown label type: continuous.*such as 0.5"):
        Model().fit(X, [0.5, 1.0, 2.0, 1.0])


@ids
def test_y_with_infinity(Model):
    with pytest.raises(ValueError, match="Input y contains infinity: .*got inf at row 2"):
        Model().fit(X, [0.0, 1.0, np.inf, 1.0])


@ids
def test_y_mixing_strings_and_numbers(Model):
    with pytest.raises(TypeError, match=r"Mix of label input types \(string and number\) in y"):
        Model().fit(X, np.array(["a", 1, "b", 2], dtype=object))


@ids
def test_partial_fit_without_classes_on_the_first_call(Model):
    with pytest.raises(ValueError, match="classes must be passed on the first call to partial_fit"):
        Model().partial_fit(X, Y)


@ids
def test_partial_fit_with_empty_classes(Model):
    with pytest.raises(ValueError, match="classes must be a non-empty 1-D array"):
        Model().partial_fit(X, Y, classes=[])


@ids
def test_partial_fit_with_other_classes_later(Model):
    model = Model().partial_fit(X, Y, classes=["a", "b"])
    with pytest.raises(
        ValueError, match=r"`classes=\['a', 'b', 'c'\]` is not the same .* \['a', 'b'\]"
    ):
        model.partial_fit(X, Y, classes=["a", "b", "c"])


@ids
@pytest.mark.parametrize("call", ["first", "later"])
def test_partial_fit_with_labels_outside_classes(Model, call):
    model = Model()
    if call == "later":
        model.partial_fit(X, Y, classes=["a", "b"])
    message = r"The target label\(s\) \['c'\] in y do not exist in the initial classes \['a', 'b'\]"
    with pytest.raises(ValueError, match=message):
        model.partial_fit(X, ["a", "c", "b", "c"], classes=["a", "b"])


@ids
def test_sample_weight_of_the_wrong_length(Model):
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(2,\), expected \(4,\)"):
        Model().fit(X, Y, sample_weight=[1.0, 2.0])


@ids
@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
def test_sample_weight_negative_or_not_finite(Model, bad):
    with pytest.raises(ValueError, match="sample_weight must be finite and >= 0; got"):
        Model().fit(X, Y, sample_weight=[1.0, bad, 1.0, 1.0])


@ids
def test_sample_weight_not_numbers(Model):
    with pytest.raises(TypeError, match="sample_weight must be numbers, one per sample; got"):
        Model().fit(X, Y, sample_weight=["x", "y", "z", "w"])


@ids
def test_sample_weight_all_zero(Model):
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        Model().fit(X, Y, sample_weight=np.zeros(4))


@ids
def test_score_with_labels_of_the_wrong_length(Model):
    with pytest.raises(ValueError, match="X has 4 rows but y has 2 labels"):
        fitted(Model).score(X, Y[:2])


# ---------------------------------------------------------------------------------------------
# Parameters


@ids
def test_set_params_with_an_unknown_name(Model):
    with pytest.raises(
        ValueError, match=rf"Invalid parameter 'alhpa' for estimator {Model.__name__}"
    ):
        Model().set_params(alhpa=1.0)


@pytest.mark.parametrize("Model", WITH_CLASS_PRIOR, ids=lambda m: m.__name__)
@pytest.mark.parametrize(
    ("prior", "message"),
    [
        (
            [1.0],
            r"Number of priors must match number of classes: class_prior has 1 value\(s\), "
            r"but there are 2 classes \['a', 'b'\]",
        ),
        ([0.2, 0.3, 0.5], "class_prior has 3 value"),
        ([1.5, -0.5], r"Priors must be non-negative: class_prior is \[1.5, -0.5\]"),
        ([0.3, 0.3], "The sum of the priors should be 1: class_prior sums to 0.6"),
    ],
    ids=["too-few", "too-many", "negative", "sum"],
)
def test_class_prior(Model, prior, message):
    with pytest.raises(ValueError, match=message):
        Model(class_prior=prior).fit(X, Y)


@pytest.mark.parametrize(
    ("prior", "message"),
    [
        ([1.0], r"priors has 1 value\(s\), but there are 2 classes"),
        ([1.5, -0.5], "Priors must be non-negative: priors is"),
        ([0.5, 0.6], "The sum of the priors should be 1: priors sums to 1.1"),
    ],
)
def test_gaussian_priors(prior, message):
    with pytest.raises(ValueError, match=message):
        GaussianNB(priors=prior).fit(X, Y)


@pytest.mark.parametrize("Model", [*WITH_CLASS_PRIOR, GaussianNB], ids=lambda m: m.__name__)
def test_priors_that_are_not_numbers(Model):
    name = "priors" if Model is GaussianNB else "class_prior"
    with pytest.raises(TypeError, match=f"{name} must be an array of 2 probabilities; got 'ab'"):
        Model(**{name: "ab"}).fit(X, Y)


@pytest.mark.parametrize("Model", [*DISCRETE, MixedNB], ids=lambda m: m.__name__)
@pytest.mark.parametrize("alpha", [-1.0, -1e-12])
def test_negative_alpha(Model, alpha):
    with pytest.raises(ValueError, match=r"alpha must be >= 0 \(all values in alpha\); got -1"):
        Model(alpha=alpha).fit(X, Y)


@pytest.mark.parametrize("Model", [*DISCRETE, MixedNB], ids=lambda m: m.__name__)
@pytest.mark.parametrize("alpha", [np.nan, np.inf])
def test_alpha_not_finite(Model, alpha):
    with pytest.raises(ValueError, match="alpha must be finite; got"):
        Model(alpha=alpha).fit(X, Y)


@pytest.mark.parametrize("Model", [*DISCRETE, MixedNB], ids=lambda m: m.__name__)
@pytest.mark.parametrize("alpha", ["one", None, True], ids=["str", "None", "bool"])
def test_alpha_not_a_number(Model, alpha):
    with pytest.raises(TypeError, match="alpha must be a number >= 0"):
        Model(alpha=alpha).fit(X, Y)


@pytest.mark.parametrize("Model", DISCRETE, ids=lambda m: m.__name__)
def test_alpha_array_of_the_wrong_length(Model):
    message = (
        r"When alpha is an array, it must have one value per feature, shape \(3,\); got .*\(2,\)"
    )
    with pytest.raises(ValueError, match=message):
        Model(alpha=[1.0, 2.0]).fit(X, Y)


@pytest.mark.parametrize("Model", DISCRETE, ids=lambda m: m.__name__)
def test_alpha_array_with_a_negative_value(Model):
    with pytest.raises(ValueError, match=r"alpha must be >= 0 \(all values in alpha\)"):
        Model(alpha=[1.0, -2.0, 1.0]).fit(X, Y)


def test_mixed_alpha_must_be_a_number():
    with pytest.raises(TypeError, match=r"alpha must be a number >= 0; got \[1, 2, 3\]"):
        MixedNB(alpha=[1, 2, 3]).fit(X, Y)


@pytest.mark.parametrize("Model", [*DISCRETE, MixedNB], ids=lambda m: m.__name__)
def test_tiny_alpha_without_force_warns_and_is_raised(Model):
    with pytest.warns(UserWarning, match="alpha too small will result in numeric errors"):
        model = Model(alpha=0.0, force_alpha=False).fit(X, Y)
    assert np.all(np.isfinite(model.predict_log_proba(X)))


@pytest.mark.parametrize("Model", [*DISCRETE, MixedNB], ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", ["fit_prior", "force_alpha"])
def test_boolean_parameters(Model, name):
    with pytest.raises(TypeError, match=f"{name} must be True or False; got 'yes'"):
        Model(**{name: "yes"}).fit(X, Y)


def test_complement_norm_must_be_boolean():
    with pytest.raises(TypeError, match="norm must be True or False; got 1 "):
        ComplementNB(norm=1).fit(X, Y)


@pytest.mark.parametrize("Model", [GaussianNB, MixedNB], ids=lambda m: m.__name__)
def test_negative_var_smoothing(Model):
    with pytest.raises(ValueError, match="var_smoothing must be >= 0; got -1e-09"):
        Model(var_smoothing=-1e-9).fit(X, Y)


@pytest.mark.parametrize("Model", [GaussianNB, MixedNB], ids=lambda m: m.__name__)
@pytest.mark.parametrize("bad", ["small", np.nan, np.inf, None, True])
def test_var_smoothing_not_a_finite_number(Model, bad):
    with pytest.raises(TypeError, match="var_smoothing must be a finite number >= 0; got"):
        Model(var_smoothing=bad).fit(X, Y)


def test_negative_binarize():
    with pytest.raises(ValueError, match="binarize must be >= 0; got -0.5"):
        BernoulliNB(binarize=-0.5).fit(X, Y)


def test_binarize_not_a_number():
    with pytest.raises(TypeError, match="binarize must be a finite number >= 0 or None; got 'x'"):
        BernoulliNB(binarize="x").fit(X, Y)


@pytest.mark.parametrize("Model", [CategoricalNB, MixedNB], ids=lambda m: m.__name__)
def test_handle_unknown_choice(Model):
    message = r"handle_unknown must be one of \('error', 'ignore'\); got 'skip'"
    with pytest.raises(ValueError, match=message):
        Model(handle_unknown="skip").fit(X, Y)


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (1.5, TypeError, "'min_categories' should have integral type.*got 1.5"),
        ([2, 3], ValueError, r"'min_categories' should have shape \(3,\) .*got shape \(2,\)"),
        (0, ValueError, r"'min_categories' must be >= 1; got \[0, 0, 0\]"),
    ],
)
def test_min_categories(bad, error, message):
    with pytest.raises(error, match=message):
        CategoricalNB(min_categories=bad).fit(X.astype(int), Y)


# ---------------------------------------------------------------------------------------------
# Categorical values


def test_unknown_category_names_the_feature_and_the_value():
    frame = pd.DataFrame({"outlook": ["sunny", "rainy"], "windy": [True, False]})
    model = CategoricalNB().fit(frame, ["no", "yes"])
    new = pd.DataFrame({"outlook": ["sunny", "foggy"], "windy": [True, False]})
    message = (
        r"Found unknown category 'foggy' in feature 'outlook' \(column 0\) during predict; "
        r"the categories seen in training are \['rainy', 'sunny'\].*handle_unknown='ignore'"
    )
    with pytest.raises(ValueError, match=message):
        model.predict(new)


def test_unknown_integer_code_names_the_column_index():
    model = CategoricalNB().fit([[0, 1], [1, 0], [2, 1]], ["a", "b", "a"])
    with pytest.raises(ValueError, match=r"unknown category 5 in feature 1 during predict"):
        model.predict_proba([[0, 5]])


def test_unknown_category_in_a_mixed_model():
    frame = pd.DataFrame({"outlook": ["sunny", "rainy"], "t": [70.0, 80.0]})
    model = MixedNB().fit(frame, ["no", "yes"])
    new = pd.DataFrame({"outlook": ["snow"], "t": [75.0]})
    with pytest.raises(ValueError, match="unknown category 'snow' in feature 'outlook'"):
        model.predict(new)


# ---------------------------------------------------------------------------------------------
# MixedNB kinds and columns


@pytest.mark.parametrize(
    ("kinds", "error", "message"),
    [
        ({"z": "gaussian"}, ValueError, r"kinds names column\(s\) \['z'\] that X does not have"),
        (["gaussian"], ValueError, r"kinds must have one entry per column of X \(3\); got 1"),
        (
            ["gaussian", "poisson", "gaussian"],
            ValueError,
            r"kinds\[1\] must be one of \('gaussian', 'categorical', 'bernoulli'\); got 'poisson'",
        ),
        ("gaussian", TypeError, "kinds must be None, a dict .* or a list .*; got 'gaussian'"),
    ],
)
def test_mixed_kinds(kinds, error, message):
    with pytest.raises(error, match=message):
        MixedNB(kinds=kinds).fit(X, Y)


def test_mixed_duplicate_column_names():
    frame = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], columns=["t", "t"])
    with pytest.raises(ValueError, match=r"duplicate column names.*\['t', 't'\]"):
        MixedNB().fit(frame, ["a", "b"])


def test_mixed_gaussian_column_of_strings():
    frame = pd.DataFrame({"outlook": ["sunny", "rainy"], "t": [1.0, 2.0]})
    message = r"X column 'outlook' \(gaussian\) must hold numbers; .*'sunny'.*'categorical'"
    with pytest.raises(TypeError, match=message):
        MixedNB(kinds={"outlook": "gaussian"}).fit(frame, ["a", "b"])


def test_mixed_gaussian_column_with_missing_values():
    frame = pd.DataFrame({"t": [1.0, np.nan, 2.0]})
    message = r"X column 't' \(gaussian\) has missing or infinite values \(first at row 1\).*impute"
    with pytest.raises(ValueError, match=message):
        MixedNB().fit(frame, ["a", "b", "a"])


def test_mixed_boolean_column_with_missing_values():
    frame = pd.DataFrame({"windy": [True, None, False]})
    message = r"X column 'windy' \(bernoulli\) has missing .*kinds=\{'windy': 'categorical'\}"
    with pytest.raises(ValueError, match=message):
        MixedNB().fit(frame, ["a", "b", "a"])


def test_mixed_bernoulli_column_that_is_not_binary():
    message = r"X column 0 \(bernoulli\) must hold booleans or 0/1; got 3.0"
    with pytest.raises(ValueError, match=message):
        MixedNB(kinds=["bernoulli", "gaussian", "gaussian"]).fit(X, Y)


def test_mixed_missing_gaussian_value_at_predict():
    frame = pd.DataFrame({"t": [1.0, 3.0, 2.0]})
    model = MixedNB().fit(frame, ["a", "b", "a"])
    with pytest.raises(ValueError, match=r"X column 't' \(gaussian\) has missing"):
        model.predict(pd.DataFrame({"t": [None, 1.0]}))
    with pytest.raises(ValueError, match=r"X column 't' \(gaussian\) has missing"):
        model.predict(pd.DataFrame({"t": [None]}, dtype=object))


# ---------------------------------------------------------------------------------------------
# Fitted models that cannot give an answer


def test_zero_variance_with_var_smoothing_zero_is_refused_at_fit():
    X_const = np.array([[1.0, 0.0], [1.0, 1.0], [2.0, 2.0], [2.0, 3.0]])
    message = (
        r"var_smoothing=0.0 leaves class 'a' with variance 0 in feature 0: epsilon_ = 0.0 .*"
        "Use var_smoothing > 0"
    )
    with pytest.raises(ValueError, match=message):
        GaussianNB(var_smoothing=0.0).fit(X_const, ["a", "a", "b", "b"])


def test_all_constant_data_is_refused_at_fit_whatever_var_smoothing():
    with pytest.raises(ValueError, match="var_smoothing=1e-09 leaves class 'a' with variance 0"):
        GaussianNB().fit(np.ones((4, 2)), Y)


def test_zero_variance_from_partial_fit_is_refused_at_predict():
    model = GaussianNB().partial_fit([[1.0, 2.0]], ["a"], classes=["a", "b"])
    with pytest.raises(ValueError, match=r"class 'a' with variance 0"):
        model.predict([[1.0, 2.0]])
    model.partial_fit([[3.0, 1.0], [2.0, 5.0]], ["a", "b"])
    assert model.predict([[1.0, 2.0]])[0] == "a"  # a later batch brought spread


def test_zero_variance_of_a_class_without_samples_says_so():
    model = GaussianNB(var_smoothing=0.0).partial_fit(
        [[1.0], [2.0]], ["a", "a"], classes=["a", "b"]
    )
    with pytest.raises(ValueError, match=r"class 'b' \(a class without samples yet\)"):
        model.predict([[1.5]])


def test_mixed_zero_variance_is_refused_at_fit():
    frame = pd.DataFrame({"t": [1.0, 1.0, 2.0, 2.0]})
    with pytest.raises(ValueError, match="var_smoothing=0.0 leaves class 'a' with variance 0"):
        MixedNB(var_smoothing=0.0).fit(frame, ["a", "a", "b", "b"])


def test_every_class_impossible_is_an_error():
    model = CategoricalNB(alpha=0).fit([["x", "u"], ["y", "v"]], ["a", "b"])
    message = r"posterior P\(y \| x\) is undefined for sample\(s\) at row\(s\) \[1\]:.*alpha > 0"
    for method in ("predict", "predict_proba", "predict_log_proba"):
        with pytest.raises(ValueError, match=message):
            getattr(model, method)([["x", "u"], ["x", "v"]])
    # the joint log probabilities themselves are well defined: -inf for both classes
    np.testing.assert_array_equal(model.predict_joint_log_proba([["x", "v"]]), [[-np.inf, -np.inf]])


def test_complement_with_an_infinite_weight_is_an_error():
    model = ComplementNB(alpha=0).fit([[1.0, 0.0], [1.0, 2.0]], ["a", "b"])
    with pytest.raises(ValueError, match=r"posterior P\(y \| x\) is undefined .*\[0\]") as info:
        model.predict_proba([[0.0, 1.0]])
    # the largest score is +inf: the message must not say every class has probability inf
    assert "largest joint log score log p(x, y) is inf" in str(info.value)
    assert "every class" not in str(info.value)


def test_gaussian_value_beyond_every_class_names_the_overflow_not_alpha_only():
    model = GaussianNB().fit([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1])
    np.testing.assert_array_equal(model.predict_joint_log_proba([[1e200]]), [[-np.inf, -np.inf]])
    for method in ("predict", "predict_proba", "predict_log_proba"):
        with pytest.raises(ValueError, match=r"p\(x, y\) = 0\.0 .*Gaussian model.*overflows"):
            getattr(model, method)([[1e200]])


def test_count_model_with_smoothing_names_the_overflow_of_a_huge_count():
    model = MultinomialNB(alpha=1.0).fit([[1, 2, 30], [2, 1, 30]], [0, 1])
    with np.errstate(over="ignore"):  # 1e308 * log(theta) overflows to -inf
        np.testing.assert_array_equal(
            model.predict_joint_log_proba([[1e308, 0, 0]]), [[-np.inf, -np.inf]]
        )
        for method in ("predict", "predict_proba", "predict_log_proba"):
            with pytest.raises(ValueError, match=r"p\(x, y\) = 0\.0 .*count model.*overflows"):
                getattr(model, method)([[1e308, 0, 0]])
        # no single term overflows here, only their sum over the features
        row = [[6e307, 6e307, 6e307]]
        terms = np.array(row) * model.feature_log_prob_
        assert np.all(np.isfinite(terms))
        with pytest.raises(ValueError, match=r"count model.*or their sum over d, overflows"):
            model.predict_proba(row)


def test_complement_norm_with_a_zero_complement_count():
    message = (
        r"ComplementNB\(norm=True\) cannot normalise the weights: feature 1 never occurs "
        r"outside class 'b' and alpha=0"
    )
    with pytest.raises(ValueError, match=message):
        ComplementNB(alpha=0, norm=True).fit([[1.0, 0.0], [1.0, 2.0]], ["a", "b"])


def test_complement_norm_with_a_single_feature():
    message = r"the complement of class 'a' puts all its probability on one feature"
    with pytest.raises(ValueError, match=message):
        ComplementNB(norm=True).fit([[1.0], [2.0]], ["a", "b"])
