"""nbcore's estimators honour scikit-learn's estimator contract without importing it.

scikit-learn is used here only as the host: clone, Pipeline, cross_val_score, GridSearchCV
and its tag and fitted-state machinery must all accept nbcore's classes.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn.naive_bayes as sk
from conftest import ESTIMATORS
from sklearn.base import clone, is_classifier
from sklearn.datasets import load_digits, load_iris
from sklearn.model_selection import GridSearchCV, StratifiedKFold, check_cv, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

import nbcore
from nbcore import (
    AveragedOneDependenceNB,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    TreeAugmentedNB,
)

ALL = ESTIMATORS
SHARED = [BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB]
ids = pytest.mark.parametrize("Model", ALL, ids=lambda m: m.__name__)
shared_ids = pytest.mark.parametrize("Model", SHARED, ids=lambda m: m.__name__)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:600], y[:600]


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def data_for(Model, digits):
    """Digits pixel intensities 0..16 suit every model (integer codes for CategoricalNB).

    The one-dependence models get the pixels as ink or no ink (64 features of 17 values
    would make 2016 pair tables of 17 x 17 cells per class).
    """
    X, y = digits
    if Model in (TreeAugmentedNB, AveragedOneDependenceNB):
        return (X > 8).astype(int), y
    return X.astype(int) if Model is CategoricalNB else X, y


def for_folds(Model):
    """An estimator for cross-validation: a fold may lack a pixel value another fold has."""
    if Model in (TreeAugmentedNB, AveragedOneDependenceNB):
        return Model(min_categories=2)  # they refuse an unknown value: declare both
    return Model(handle_unknown="ignore") if Model is CategoricalNB else Model()


def test_the_estimator_list_is_every_estimator_nbcore_exports():
    # SemiSupervisedNB wraps one of them (fit only, labels -1 unlabelled): its own tests and
    # scikit-learn's checks are in test_semi_supervised.py
    exported = {name for name in nbcore.__all__ if name.endswith("NB")} - {"SemiSupervisedNB"}
    assert {Model.__name__ for Model in ESTIMATORS} == exported


# ---------------------------------------------------------------------------------------------
# Parameters


@shared_ids
def test_same_parameters_and_defaults_as_scikit_learn(Model):
    ours = Model().get_params()
    theirs = getattr(sk, Model.__name__)().get_params()
    assert {k: ours[k] for k in theirs} == theirs
    extra = set(ours) - set(theirs)
    assert extra == ({"handle_unknown"} if Model is CategoricalNB else set())


def test_mixed_parameters():
    assert MixedNB().get_params() == {
        "kinds": None,
        "alpha": 1.0,
        "force_alpha": True,
        "var_smoothing": 1e-9,
        "fit_prior": True,
        "class_prior": None,
        "handle_unknown": "error",
    }


@ids
def test_parameters_are_keyword_only(Model):
    with pytest.raises(TypeError):
        Model(1.0)


@ids
def test_set_params_sets_and_returns_the_estimator(Model):
    model = Model()
    name = "var_smoothing" if Model is GaussianNB else "alpha"
    assert model.set_params(**{name: 0.25}) is model
    assert model.get_params()[name] == 0.25
    assert getattr(model, name) == 0.25


def test_repr_shows_only_changed_parameters():
    assert repr(MultinomialNB()) == "MultinomialNB()"
    assert repr(MultinomialNB(alpha=0.5)) == "MultinomialNB(alpha=0.5)"
    assert repr(ComplementNB(norm=True, alpha=0.3)) == "ComplementNB(alpha=0.3, norm=True)"
    assert repr(GaussianNB(var_smoothing=1e-3)) == "GaussianNB(var_smoothing=0.001)"
    assert repr(CategoricalNB(handle_unknown="ignore")) == "CategoricalNB(handle_unknown='ignore')"
    assert repr(MixedNB(kinds={"windy": "categorical"})) == (
        "MixedNB(kinds={'windy': 'categorical'})"
    )
    assert repr(BernoulliNB(binarize=None)) == "BernoulliNB(binarize=None)"


# ---------------------------------------------------------------------------------------------
# What scikit-learn asks of a classifier


@ids
def test_recognised_as_a_classifier(Model):
    model = Model()
    assert model._estimator_type == "classifier"
    assert is_classifier(model)
    tags = get_tags(model)
    assert tags.estimator_type == "classifier"
    assert tags.target_tags.required
    assert tags.requires_fit


def test_cross_validation_is_stratified_for_nbcore_classifiers(iris):
    X, y = iris
    assert isinstance(check_cv(5, y, classifier=is_classifier(GaussianNB())), StratifiedKFold)
    # the same folds as scikit-learn's own GaussianNB, hence the same scores
    ours = cross_val_score(GaussianNB(), X, y, cv=5)
    theirs = cross_val_score(sk.GaussianNB(), X, y, cv=5)
    np.testing.assert_allclose(ours, theirs)


@ids
def test_clone_gives_an_unfitted_copy_with_the_same_parameters(Model, digits):
    X, y = data_for(Model, digits)
    params = {"var_smoothing": 1e-3} if Model is GaussianNB else {"alpha": 0.5}
    model = Model(**params).fit(X, y)
    copy = clone(model)
    assert copy is not model
    assert copy.get_params() == model.get_params()
    assert not hasattr(copy, "classes_")
    with pytest.raises(nbcore.NotFittedError):
        copy.predict(X)


@ids
def test_scikit_learn_sees_fitted_state(Model, digits):
    X, y = data_for(Model, digits)
    model = Model()
    with pytest.raises(ValueError):  # scikit-learn's NotFittedError
        check_is_fitted(model)
    check_is_fitted(model.fit(X, y))


@ids
def test_cross_val_score(Model, digits):
    X, y = data_for(Model, digits)
    scores = cross_val_score(for_folds(Model), X, y, cv=3, error_score="raise")
    assert scores.shape == (3,)
    assert np.all((scores > 0.5) & (scores <= 1.0))


@pytest.mark.parametrize(
    ("Model", "grid"),
    [
        (MultinomialNB, {"alpha": [0.01, 0.1, 1.0]}),
        (BernoulliNB, {"alpha": [0.1, 1.0], "binarize": [0.0, 8.0]}),
        (ComplementNB, {"alpha": [0.1, 1.0], "norm": [False, True]}),
        (CategoricalNB, {"alpha": [0.5, 1.0]}),
        (GaussianNB, {"var_smoothing": [1e-9, 1e-3, 1e-1]}),
        (MixedNB, {"var_smoothing": [1e-9, 1e-2], "alpha": [1.0]}),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else "",
)
def test_grid_search(Model, grid, digits):
    X, y = data_for(Model, digits)
    search = GridSearchCV(for_folds(Model), grid, cv=3, error_score="raise").fit(X, y)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert set(search.best_params_) == set(grid)
    assert isinstance(search.best_estimator_, Model)
    assert search.best_estimator_.get_params()[next(iter(grid))] in grid[next(iter(grid))]
    np.testing.assert_array_equal(search.classes_, np.arange(10))
    assert search.predict_proba(X[:5]).shape == (5, 10)


def test_grid_search_in_parallel_processes(iris):
    X, y = iris
    search = GridSearchCV(GaussianNB(), {"var_smoothing": [1e-9, 1e-1]}, cv=3, n_jobs=2)
    search.fit(X, y)
    reference = GridSearchCV(sk.GaussianNB(), {"var_smoothing": [1e-9, 1e-1]}, cv=3).fit(X, y)
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"]
    )


def test_pipelines(digits, iris):
    X, y = iris
    pipe = make_pipeline(StandardScaler(), GaussianNB()).fit(X, y)
    assert pipe.score(X, y) > 0.9
    np.testing.assert_array_equal(pipe.classes_, [0, 1, 2])
    X, y = digits
    pipe = Pipeline([("scale", MinMaxScaler()), ("nb", MultinomialNB(alpha=0.1))]).fit(X, y)
    assert pipe.predict_proba(X).shape == (600, 10)
    pipe.set_params(nb__alpha=1.0)
    assert pipe.named_steps["nb"].alpha == 1.0
    assert "MultinomialNB" in pipe._repr_html_()


# ---------------------------------------------------------------------------------------------
# Methods and fitted attributes


@ids
def test_fit_and_partial_fit_return_the_estimator(Model, digits):
    X, y = data_for(Model, digits)
    model = Model()
    assert model.fit(X, y) is model
    assert model.partial_fit(X[:50], y[:50]) is model
    other = Model()
    assert other.partial_fit(X[:50], y[:50], classes=np.arange(10)) is other


@ids
def test_outputs_shapes_and_types(Model, digits):
    X, y = data_for(Model, digits)
    model = Model().fit(X, y)
    assert model.n_features_in_ == 64
    np.testing.assert_array_equal(model.classes_, np.arange(10))
    assert model.predict(X[:7]).shape == (7,)
    for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        assert getattr(model, method)(X[:7]).shape == (7, 10)
    score = model.score(X, y)
    assert isinstance(score, float)
    assert score == pytest.approx(np.mean(model.predict(X) == y))
    weights = np.linspace(0.1, 1.0, len(y))
    expected = np.average(model.predict(X) == y, weights=weights)
    assert model.score(X, y, sample_weight=weights) == pytest.approx(expected)


@pytest.mark.parametrize("Model", [BernoulliNB, ComplementNB, MultinomialNB])
def test_sparse_input_gives_the_dense_results(Model, digits):
    from scipy import sparse

    X, y = digits
    dense = Model().fit(X, y)
    from_sparse = Model().fit(sparse.csr_matrix(X), y)
    np.testing.assert_allclose(
        from_sparse.predict_proba(sparse.csr_matrix(X)), dense.predict_proba(X), atol=1e-12
    )


@ids
def test_string_labels(Model, digits):
    X, y = data_for(Model, digits)
    names = np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "8", "9"])
    model = Model().fit(X, names[y])
    np.testing.assert_array_equal(model.classes_, np.sort(names))
    assert set(model.predict(X)) <= set(names)


@ids
def test_feature_names_from_a_data_frame(Model, digits):
    X, y = data_for(Model, digits)
    columns = [f"pixel{i}" for i in range(64)]
    model = Model().fit(pd.DataFrame(X, columns=columns), y)
    np.testing.assert_array_equal(model.feature_names_in_, columns)
    np.testing.assert_array_equal(
        model.predict(pd.DataFrame(X[:5], columns=columns)), model.predict(X[:5])
    )
    model.fit(X, y)  # refitted on an array: the names are forgotten
    assert not hasattr(model, "feature_names_in_")
    assert model.n_features_in_ == 64


@ids
def test_no_feature_names_without_string_column_names(Model, digits):
    X, y = data_for(Model, digits)
    model = Model().fit(pd.DataFrame(X), y)
    assert not hasattr(model, "feature_names_in_")


@ids
def test_fit_starts_over(Model, digits):
    X, y = data_for(Model, digits)
    once = Model().fit(X, y)
    twice = Model().fit(X[:100], y[:100]).fit(X, y)
    np.testing.assert_allclose(twice.predict_log_proba(X), once.predict_log_proba(X))
    np.testing.assert_array_equal(twice.class_count_, once.class_count_)


@ids
def test_pickle_round_trip(Model, digits):
    X, y = data_for(Model, digits)
    model = Model().fit(X, y)
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.predict_proba(X), model.predict_proba(X))


@ids
def test_unfitted_estimator_has_no_fitted_attributes(Model):
    assert not [a for a in vars(Model()) if a.endswith("_")]


@pytest.mark.parametrize("Model", [BernoulliNB, CategoricalNB, ComplementNB, MultinomialNB])
def test_partial_fit_in_chunks_equals_fit(Model, digits):
    X, y = data_for(Model, digits)
    whole = Model().fit(X, y)
    chunks = Model()
    for start in range(0, len(y), 97):
        chunks.partial_fit(X[start : start + 97], y[start : start + 97], classes=np.arange(10))
    np.testing.assert_allclose(chunks.class_count_, whole.class_count_)
    np.testing.assert_allclose(
        chunks.predict_log_proba(X), whole.predict_log_proba(X), rtol=1e-10, atol=1e-10
    )


def test_gaussian_partial_fit_in_chunks_equals_fit_even_with_a_large_offset():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 3000)
    X = 1e6 + rng.normal(0, 1, (3000, 4)) + y[:, None]
    weights = rng.uniform(0.5, 2.0, 3000)
    whole = GaussianNB(var_smoothing=0.0).fit(X, y, sample_weight=weights)
    chunks = GaussianNB(var_smoothing=0.0)
    for start in range(0, 3000, 250):
        rows = slice(start, start + 250)
        chunks.partial_fit(X[rows], y[rows], classes=[0, 1, 2], sample_weight=weights[rows])
    np.testing.assert_allclose(chunks.theta_, whole.theta_, rtol=1e-14)
    np.testing.assert_allclose(chunks.var_, whole.var_, rtol=1e-10)
    np.testing.assert_allclose(chunks.class_count_, whole.class_count_, rtol=1e-14)
