"""CategoricalNB takes categories as they come: strings, booleans, integer codes, floats,
pandas categoricals, data frames, missing values and values never seen in training."""

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.naive_bayes as sk

from nbcore import CategoricalNB
from nbcore.datasets import load_weather

FEATURES = ["outlook", "temperature", "humidity", "windy"]


def assert_same_model(a, b):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.class_count_, b.class_count_)
    assert len(a.feature_log_prob_) == len(b.feature_log_prob_)
    for pa, pb in zip(a.feature_log_prob_, b.feature_log_prob_, strict=True):
        np.testing.assert_allclose(pa, pb, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Kinds of values


def test_string_categories_are_sorted():
    model = CategoricalNB().fit([["b"], ["c"], ["a"], ["b"]], [0, 1, 0, 1])
    assert list(model.categories_[0]) == ["a", "b", "c"]
    np.testing.assert_array_equal(model.category_count_[0], [[1, 1, 0], [0, 1, 1]])
    np.testing.assert_array_equal(model.n_categories_, [3])


def test_booleans_have_both_categories_even_if_one_is_never_seen():
    model = CategoricalNB().fit(np.array([[True], [True], [True]]), ["a", "b", "a"])
    assert list(model.categories_[0]) == [False, True]
    # Laplace over two values: P(False | a) = (0 + 1) / (2 + 2)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[0][0]), [1 / 4, 3 / 4])
    assert model.predict_proba(np.array([[False]])).shape == (1, 2)


def test_integer_codes_are_read_as_scikit_learn_reads_them():
    X = np.array([[0, 3], [2, 1], [0, 0], [2, 3], [1, 3]])
    y = ["a", "b", "a", "b", "b"]
    ours = CategoricalNB().fit(X, y)
    theirs = sk.CategoricalNB().fit(X, y)
    # categories 0..max: feature 1 gets category 2 although no row has it
    assert [list(c) for c in ours.categories_] == [[0, 1, 2], [0, 1, 2, 3]]
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)
    for a, b in zip(ours.category_count_, theirs.category_count_, strict=True):
        np.testing.assert_array_equal(a, b)
    assert_same_model(ours, theirs)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("min_categories", [5, [4, 6]])
def test_min_categories_extends_integer_codes(min_categories):
    X = np.array([[0, 3], [2, 1], [0, 0], [2, 3]])
    y = [0, 1, 0, 1]
    ours = CategoricalNB(min_categories=min_categories).fit(X, y)
    theirs = sk.CategoricalNB(min_categories=min_categories).fit(X, y)
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)
    assert_same_model(ours, theirs)
    np.testing.assert_allclose(ours.predict_proba([[3, 4]]), theirs.predict_proba([[3, 4]]))


def test_min_categories_leaves_labels_alone_and_says_so():
    with pytest.warns(UserWarning, match=r"min_categories=5 is ignored for feature 0: .*2 cat"):
        model = CategoricalNB(min_categories=5).fit([["x", 1], ["y", 0]], ["a", "b"])
    assert list(model.categories_[0]) == ["x", "y"]
    assert list(model.categories_[1]) == [0, 1, 2, 3, 4]


def test_min_categories_warns_for_strings_and_booleans_not_for_enough_or_codes():
    X = pd.DataFrame({"outlook": ["sunny", "rainy", "sunny"], "windy": [True, False, True]})
    with pytest.warns(UserWarning, match="feature 'outlook' .*pandas categorical") as caught:
        CategoricalNB(min_categories=[3, 2]).fit(X, ["a", "b", "a"])
    assert len(caught) == 1  # windy declares its two values: enough
    declared = X.astype({"outlook": pd.CategoricalDtype(["sunny", "rainy", "overcast"])})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = CategoricalNB(min_categories=3).fit(declared[["outlook"]], ["a", "b", "a"])
        codes = CategoricalNB(min_categories=7).fit([[0], [2]], ["a", "b"])
    assert model.n_categories_.tolist() == [3]
    assert codes.n_categories_.tolist() == [7]


def test_integer_valued_floats_are_codes():
    X = np.array([[0, 2], [1, 0], [2, 2]])
    as_int = CategoricalNB().fit(X, [0, 1, 1])
    as_float = CategoricalNB().fit(X.astype(float), [0, 1, 1])
    assert [list(c) for c in as_float.categories_] == [[0, 1, 2], [0, 1, 2]]
    assert_same_model(as_int, as_float)
    np.testing.assert_array_equal(
        as_float.predict_proba([[1.0, 2.0]]), as_int.predict_proba([[1, 2]])
    )


def test_negative_integers_and_fractions_are_labels():
    model = CategoricalNB().fit([[-2, 0.5], [3, 1.5], [-2, 0.5]], ["a", "b", "a"])
    assert list(model.categories_[0]) == [-2, 3]  # no filling from -2 to 3
    assert list(model.categories_[1]) == [0.5, 1.5]


def test_pandas_categorical_keeps_every_declared_category_in_order():
    sizes = pd.Categorical(["small", "large", "small"], categories=["small", "medium", "large"])
    frame = pd.DataFrame({"size": sizes})
    model = CategoricalNB().fit(frame, ["a", "b", "a"])
    assert list(model.categories_[0]) == ["small", "medium", "large"]
    np.testing.assert_array_equal(model.category_count_[0], [[2, 0, 0], [0, 0, 1]])
    medium = pd.DataFrame({"size": pd.Categorical(["medium"], categories=sizes.categories)})
    # a declared category never seen: probability alpha / (N_c + 3 alpha), no error
    p_a, p_b = 2 / 3 * 1 / (2 + 3), 1 / 3 * 1 / (1 + 3)
    np.testing.assert_allclose(
        model.predict_proba(medium), [[p_a / (p_a + p_b), p_b / (p_a + p_b)]]
    )


def test_pandas_categorical_of_integers_keeps_its_categories():
    frame = pd.DataFrame({"humidity": pd.Categorical([70, 90, 70], categories=[70, 80, 90])})
    model = CategoricalNB().fit(frame, ["a", "b", "a"])
    assert list(model.categories_[0]) == [70, 80, 90]  # not the codes 0..90


def test_a_column_mixing_strings_and_numbers():
    X = np.array([["a"], [1], ["b"], [1]], dtype=object)
    model = CategoricalNB().fit(X, [0, 0, 1, 1])
    assert len(model.categories_[0]) == 3
    assert set(model.categories_[0]) == {"a", "b", 1}
    assert model.predict([[1]]).shape == (1,)


def test_a_list_of_rows_keeps_each_column_s_type():
    model = CategoricalNB().fit([["sunny", 1, True], ["rainy", 0, False]], ["no", "yes"])
    assert list(model.categories_[0]) == ["rainy", "sunny"]
    assert list(model.categories_[1]) == [0, 1]
    assert list(model.categories_[2]) == [False, True]


def test_data_frame_with_named_columns_is_the_weather_example():
    weather = load_weather()
    model = CategoricalNB(alpha=0).fit(weather[FEATURES], weather.play)
    np.testing.assert_array_equal(model.feature_names_in_, FEATURES)
    # the same data as a plain object array gives the same model, without names
    array = CategoricalNB(alpha=0).fit(weather[FEATURES].to_numpy(), weather.play.to_numpy())
    assert_same_model(model, array)
    assert not hasattr(array, "feature_names_in_")


def test_one_alpha_per_feature():
    weather = load_weather()
    X, y = weather[FEATURES], weather.play
    model = CategoricalNB(alpha=[0.5, 2.0, 0.0, 1.0]).fit(X, y)
    for d, alpha in enumerate([0.5, 2.0, 0.0, 1.0]):
        alone = CategoricalNB(alpha=alpha).fit(X[[FEATURES[d]]], y)
        np.testing.assert_allclose(model.feature_log_prob_[d], alone.feature_log_prob_[0])


# ---------------------------------------------------------------------------------------------
# Missing values


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA], ids=["None", "nan", "NA"])
def test_missing_values_are_not_counted(missing):
    X = pd.DataFrame({"f": ["x", "y", missing, "x"], "g": ["u", "u", "v", "v"]}, dtype=object)
    model = CategoricalNB(alpha=1).fit(X, ["a", "a", "a", "b"])
    np.testing.assert_array_equal(model.class_count_, [3, 1])  # the row itself still counts
    np.testing.assert_array_equal(model.category_count_[0], [[1, 1], [1, 0]])
    # class a has two observed values of f: (1 + 1) / (2 + 2 alpha)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[0][0]), [2 / 4, 2 / 4])


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA], ids=["None", "nan", "NA"])
def test_a_missing_value_at_predict_is_marginalised(missing):
    weather = load_weather()
    full = CategoricalNB().fit(weather[FEATURES], weather.play)
    without = CategoricalNB().fit(weather[["outlook", "humidity", "windy"]], weather.play)
    x = pd.DataFrame([["sunny", missing, "high", True]], columns=FEATURES, dtype=object)
    np.testing.assert_allclose(
        full.predict_joint_log_proba(x),
        without.predict_joint_log_proba(x[["outlook", "humidity", "windy"]]),
        rtol=1e-14,
    )


def test_nullable_boolean_column():
    frame = pd.DataFrame({"windy": pd.array([True, pd.NA, False, True], dtype="boolean")})
    model = CategoricalNB().fit(frame, ["a", "a", "b", "b"])
    assert list(model.categories_[0]) == [False, True]
    np.testing.assert_array_equal(model.category_count_[0], [[0, 1], [1, 1]])
    new = pd.DataFrame({"windy": pd.array([pd.NA], dtype="boolean")})
    np.testing.assert_allclose(model.predict_proba(new), [[0.5, 0.5]])


def test_a_column_that_is_all_missing():
    frame = pd.DataFrame({"f": [None, None], "g": ["u", "v"]})
    model = CategoricalNB().fit(frame, ["a", "b"])
    assert len(model.categories_[0]) == 0
    assert model.predict_proba(pd.DataFrame({"f": [None], "g": ["u"]})).shape == (1, 2)
    with pytest.raises(ValueError, match="unknown category 'w' in feature 'f'"):
        model.predict(pd.DataFrame({"f": ["w"], "g": ["u"]}))


# ---------------------------------------------------------------------------------------------
# Categories never seen in training


def test_handle_unknown_ignore_treats_an_unknown_value_as_missing():
    weather = load_weather()
    model = CategoricalNB(handle_unknown="ignore").fit(weather[FEATURES], weather.play)
    foggy = pd.DataFrame([["foggy", "hot", "high", False]], columns=FEATURES)
    missing = pd.DataFrame([[None, "hot", "high", False]], columns=FEATURES)
    np.testing.assert_array_equal(model.predict_proba(foggy), model.predict_proba(missing))


def test_unknown_integer_code_beyond_the_range():
    model = CategoricalNB(handle_unknown="ignore").fit([[0], [1]], ["a", "b"])
    np.testing.assert_allclose(model.predict_proba([[7]]), [[0.5, 0.5]])
    with pytest.raises(ValueError, match="unknown category 7 in feature 0"):
        CategoricalNB().fit([[0], [1]], ["a", "b"]).predict([[7]])


def test_a_type_never_seen_is_unknown():
    model = CategoricalNB().fit([["1"], ["2"]], ["a", "b"])
    with pytest.raises(ValueError, match="unknown category 1 in feature 0"):
        model.predict([[1]])  # the number 1, not the string "1"


# ---------------------------------------------------------------------------------------------
# partial_fit: new categories in later batches


def test_partial_fit_adds_new_string_categories_in_sorted_order():
    weather = load_weather()
    X, y = weather[FEATURES], weather.play
    whole = CategoricalNB().fit(X, y)
    batches = CategoricalNB()
    for rows in (slice(0, 2), slice(2, 9), slice(9, 14)):  # "overcast" first in the second
        batches.partial_fit(X[rows], y[rows], classes=["no", "yes"])
    for a, b in zip(batches.categories_, whole.categories_, strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(batches.category_count_, whole.category_count_, strict=True):
        np.testing.assert_array_equal(a, b)
    assert_same_model(batches, whole)


def test_partial_fit_extends_integer_codes():
    model = CategoricalNB().partial_fit([[0], [1]], ["a", "b"], classes=["a", "b"])
    model.partial_fit([[4], [1]], ["a", "a"])
    assert list(model.categories_[0]) == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(model.n_categories_, [5])
    np.testing.assert_array_equal(model.category_count_[0], [[1, 1, 0, 0, 1], [0, 1, 0, 0, 0]])


def test_partial_fit_keeps_the_order_of_a_pandas_categorical():
    levels = ["low", "mid", "high"]
    first = pd.DataFrame({"level": pd.Categorical(["high"], categories=levels)})
    model = CategoricalNB().partial_fit(first, ["a"], classes=["a", "b"])
    second = pd.DataFrame({"level": pd.Categorical(["low"], categories=["low", "mid", "high"])})
    model.partial_fit(second, ["b"])
    assert list(model.categories_[0]) == levels
    np.testing.assert_array_equal(model.category_count_[0], [[0, 0, 1], [1, 0, 0]])
