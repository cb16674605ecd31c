"""nbcore: small, readable naive Bayes classifiers in NumPy, the library of the course book.

The estimators follow scikit-learn's interface (parameters, fitted attributes, methods), so
they can be checked against it and used inside its pipelines, without depending on it.
"""

from nbcore._validation import NotFittedError
from nbcore.aode import AveragedOneDependenceNB
from nbcore.bernoulli import BernoulliNB
from nbcore.categorical import CategoricalNB
from nbcore.complement import ComplementNB
from nbcore.gaussian import GaussianNB
from nbcore.mixed import MixedNB
from nbcore.multinomial import MultinomialNB
from nbcore.numerics import logsumexp
from nbcore.scale import merge
from nbcore.semi import SemiSupervisedNB
from nbcore.tan import TreeAugmentedNB

__all__ = [
    "AveragedOneDependenceNB",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "MixedNB",
    "MultinomialNB",
    "NotFittedError",
    "SemiSupervisedNB",
    "TreeAugmentedNB",
    "logsumexp",
    "merge",
]
