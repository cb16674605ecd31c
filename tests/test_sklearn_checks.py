"""scikit-learn's own estimator checks, run over every nbcore estimator.

``parametrize_with_checks`` runs scikit-learn's generic test suite (fitting, cloning,
pickling, input validation, sample weights, ...). A check that nbcore cannot pass by design
is marked as an expected failure, by its name and per estimator, with the reason; with
``xfail_strict=True`` a marked check that starts to pass fails the run, so the list stays
exact. Everything else must pass.
"""

import warnings

import pytest
from conftest import ESTIMATORS, scikit_learn_checks

# Where nbcore differs from scikit-learn on purpose, for every estimator.
EVERY_ESTIMATOR = {
    "check_estimators_unfitted": (
        "nbcore raises its own NotFittedError (a ValueError and an AttributeError, like "
        "scikit-learn's) because it does not import scikit-learn; the check wants "
        "scikit-learn's class"
    ),
    "check_supervised_y_2d": (
        "nbcore takes a column vector y of shape (n, 1) as the labels it plainly is, without "
        "scikit-learn's DataConversionWarning (a scikit-learn class nbcore does not import)"
    ),
}
NUMERIC_X = {
    "check_complex_data": (
        "complex X is the wrong type of data: nbcore raises a TypeError naming X and the "
        "dtype, where the check wants a ValueError"
    ),
    "check_dtype_object": (
        "nbcore's TypeError names X, the dtype and a value, and points to CategoricalNB and "
        "MixedNB; the check wants the message of float() on a dict"
    ),
}
GAUSSIAN = {
    "check_fit2d_1sample": (
        "a single sample has variance 0, which has no Gaussian density: fit refuses it with "
        "a message about the variance, not about the number of samples"
    ),
}
CATEGORIES = {
    "check_complex_data": (
        "CategoricalNB takes values as they come, as categories: complex numbers are "
        "categories like any other"
    ),
    "check_sample_weight_equivalence_on_dense_data": (
        "the check predicts on continuous values that were not in the training set: for "
        "CategoricalNB they are unknown categories, refused with handle_unknown='error'"
    ),
    "check_classifiers_one_label_sample_weights": (
        "the check predicts on continuous values that were not in the training set: for "
        "CategoricalNB they are unknown categories, refused with handle_unknown='error'"
    ),
}
ONE_DEPENDENCE = {
    **CATEGORIES,
    "check_estimators_nan_inf": (
        "the one-dependence models refuse NaN (a missing value) with a message naming the "
        "feature and the sample, but read inf as a category like any other, as CategoricalNB "
        "does; the check wants inf refused too"
    ),
}
MIXED = {
    "check_complex_data": (
        "a complex column is numeric but not real: MixedNB raises a TypeError naming the "
        "column, where the check wants a ValueError"
    ),
}
EXPECTED_FAILURES = {
    "BernoulliNB": {**EVERY_ESTIMATOR, **NUMERIC_X},
    "CategoricalNB": {**EVERY_ESTIMATOR, **CATEGORIES},
    "ComplementNB": {**EVERY_ESTIMATOR, **NUMERIC_X},
    "GaussianNB": {**EVERY_ESTIMATOR, **NUMERIC_X, **GAUSSIAN},
    "MixedNB": {**EVERY_ESTIMATOR, **GAUSSIAN, **MIXED},
    "MultinomialNB": {**EVERY_ESTIMATOR, **NUMERIC_X},
    "TreeAugmentedNB": {**EVERY_ESTIMATOR, **ONE_DEPENDENCE},
    "AveragedOneDependenceNB": {**EVERY_ESTIMATOR, **ONE_DEPENDENCE},
}


def expected_failures(estimator):
    return EXPECTED_FAILURES[type(estimator).__name__]


def test_every_estimator_has_its_list_of_expected_failures():
    assert set(EXPECTED_FAILURES) == {Model.__name__ for Model in ESTIMATORS}


# nbcore follows scikit-learn's conventions without subclassing its BaseEstimator, on purpose;
# scikit-learn warns about it when it builds the checks, and again when it runs them
NOT_A_BASE_ESTIMATOR = "Estimator .* does not inherit from `sklearn.base.BaseEstimator`"
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=NOT_A_BASE_ESTIMATOR)
    every_check = scikit_learn_checks([Model() for Model in ESTIMATORS], expected_failures)


@every_check
@pytest.mark.filterwarnings(f"ignore:{NOT_A_BASE_ESTIMATOR}")
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("Model", ESTIMATORS, ids=lambda m: m.__name__)
def test_tags_are_scikit_learns_own(Model):
    from sklearn.utils import Tags, get_tags

    tags = get_tags(Model())
    assert isinstance(tags, Tags)
    assert tags.input_tags.sparse == (
        Model.__name__ in {"BernoulliNB", "ComplementNB", "MultinomialNB"}
    )
