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
