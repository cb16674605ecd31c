"""What the estimator tests share: the one list of nbcore's estimators.

Test modules parametrise over it, ``from conftest import ESTIMATORS`` (pytest puts this
folder on the import path), so that a new estimator is tested everywhere once it is added
here; a test in test_estimator_contract.py fails if nbcore exports one that is not.
"""

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

ESTIMATORS = [
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    TreeAugmentedNB,
    AveragedOneDependenceNB,
]

# the kind of data each estimator models, for the tests that generate data for it
DATA_KIND = {
    "BernoulliNB": "binary",
    "CategoricalNB": "categorical",
    "ComplementNB": "counts",
    "GaussianNB": "gaussian",
    "MixedNB": "mixed",
    "MultinomialNB": "counts",
    "TreeAugmentedNB": "categorical",
    "AveragedOneDependenceNB": "categorical",
}

# scikit-learn's generic checks that do not apply to nbcore, left out of the parametrisation
# rather than skipped at run time: nbcore computes with NumPy arrays only
NOT_APPLICABLE_CHECKS = {
    "check_array_api_input": (
        "array API input (PyTorch, CuPy, array-api-strict): nbcore computes with NumPy only, and "
        "scikit-learn runs this check only with SCIPY_ARRAY_API=1 and such a library installed"
    ),
}


def scikit_learn_checks(estimators, expected_failed_checks):
    """``parametrize_with_checks`` without the checks of NOT_APPLICABLE_CHECKS.

    Each check that ``expected_failed_checks(estimator)`` names (with its reason) is a strict
    expected failure, as in scikit-learn's own decorator.
    """
    import pytest
    from sklearn.utils.estimator_checks import estimator_checks_generator

    params, ids = [], []
    for estimator in estimators:
        generated = estimator_checks_generator(
            estimator,
            legacy=True,
            expected_failed_checks=expected_failed_checks(estimator),
            mark="xfail",
            xfail_strict=True,
        )
        for item in generated:
            check = (item.values if hasattr(item, "values") else item)[1]
            name = getattr(check, "func", check).__name__
            if name in NOT_APPLICABLE_CHECKS:
                continue
            keywords = getattr(check, "keywords", {})
            ids.append(f"{estimator!r}-{name}" + (f"({keywords})" if keywords else ""))
            params.append(item)
    return pytest.mark.parametrize("estimator, check", params, ids=ids)
