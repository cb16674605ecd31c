"""nbcore against scikit-learn, the reference, on every model and parameter both implement.

scikit-learn is imported here and only here (and in the property tests): it is the oracle the
estimators are checked against, never a run-time dependency of nbcore.

Every case fits the nbcore estimator and its scikit-learn twin with the same parameters on the
same seeded data, then asserts that the fitted attributes and every prediction method agree to
about 1e-10 (labels exactly). Cases are parametrised so that a failure names the estimator, the
parameters and the data set.

Left out on purpose, because scikit-learn itself gives no usable answer there (nbcore's own
error tests cover them): categories at predict time that were never seen in training
(scikit-learn raises IndexError), features that are constant within a class with
``var_smoothing=0`` (scikit-learn returns NaN), labels outside ``classes`` in ``partial_fit``
(scikit-learn drops them silently), zero smoothing on counts that are zero (NaN from 0 * -inf),
per-feature ``alpha`` for ``BernoulliNB`` (scikit-learn fails to broadcast it) and for
``CategoricalNB`` (scikit-learn rejects it), and ``n_categories_`` after ``partial_fit``
(scikit-learn recomputes it from the last batch only).

``GaussianNB.partial_fit`` is compared as scikit-learn computes it, including a flaw nbcore
keeps on purpose so that both agree: each call takes the *new* batch's ``epsilon_`` off ``var_``
before pooling, though ``var_`` carries the previous batch's, so the difference of the two
floors (of order ``var_smoothing`` times a variance) stays in the pooled variances. With
``var_smoothing=0`` the pooling is exact; the property tests check that.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
import sklearn.naive_bayes as sk

import nbcore

RTOL = 1e-10
ATOL = 1e-10

# Label sets: contiguous integers, scattered integers (negative, gaps), strings.
LABELS = {
    "int": np.array([0, 1, 2, 3, 4]),
    "scattered-int": np.array([-3, 7, 42, 100, 1001]),
    "str": np.array(["ham", "spam", "eggs", "tofu", "bean"]),
}


@dataclass(frozen=True)
class Spec:
    """Shape, class count and label kind of one random data set."""

    seed: int
    n_samples: int
    n_features: int
    n_classes: int
    labels: str

    @property
    def id(self):
        return f"n{self.n_samples}-d{self.n_features}-c{self.n_classes}-{self.labels}"


SPECS = [
    Spec(0, 40, 3, 2, "int"),
    Spec(1, 120, 10, 3, "str"),
    Spec(2, 300, 25, 5, "scattered-int"),
    Spec(3, 23, 7, 4, "str"),
]
SPEC_IDS = [s.id for s in SPECS]


@dataclass
class Data:
    """Training and test sets drawn from one generative model."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray
    rng: np.random.Generator


def _labels(spec, rng, n):
    """n labels, every class present at least n // n_classes times, in random order."""
    classes = np.sort(LABELS[spec.labels][: spec.n_classes])
    codes = np.arange(n) % spec.n_classes
    rng.shuffle(codes)
    return classes, codes


def make_data(spec, kind, dense=False, offset=0.0, gaps=False):
    """Seeded data set of one kind.

    kind: "counts" (Poisson), "binary" (Bernoulli), "categorical" (codes 0..n_j - 1 with every
    code seen in training), "gaussian" (per-feature scales from 1e-3 to 1e3). ``dense=True`` makes
    every count, code or binary value occur in every class, so that zero smoothing stays finite.
    ``gaps=True`` (categorical) leaves code 1 out of the training set; it is still a category,
    as scikit-learn reads codes 0..max, and it occurs in the test set.
    """
    rng = np.random.default_rng(1000 + spec.seed)
    n, d, k = spec.n_samples, spec.n_features, spec.n_classes
    n_test = 50
    classes, codes = _labels(spec, rng, n)
    codes_test = rng.integers(0, k, n_test)

    if kind == "counts":
        lam = rng.gamma(2.0, 1.5, size=(k, d))
        X = rng.poisson(lam[codes]).astype(np.float64)
        X_test = rng.poisson(lam[codes_test]).astype(np.float64)
        if dense:
            X += 1.0
    elif kind == "binary":
        p = rng.uniform(0.1, 0.9, size=(k, d))
        X = (rng.random((n, d)) < p[codes]).astype(np.float64)
        X_test = (rng.random((n_test, d)) < p[codes_test]).astype(np.float64)
        if dense:
            for c in range(k):
                rows = np.flatnonzero(codes == c)
                X[rows[0]] = 0.0
                X[rows[1]] = 1.0
    elif kind == "categorical":
        n_cat = rng.integers(2, 5, size=d)
        X = np.empty((n, d), dtype=np.int64)
        X_test = np.empty((n_test, d), dtype=np.int64)
        for j in range(d):
            p = rng.dirichlet(np.ones(n_cat[j]), size=k)
            X[:, j] = [rng.choice(n_cat[j], p=p[c]) for c in codes]
            X_test[:, j] = rng.integers(0, n_cat[j], n_test)
            X[: n_cat[j], j] = np.arange(n_cat[j])  # every code is seen in training
            if gaps and n_cat[j] >= 3:  # code 1 below the largest code, never seen
                X[X[:, j] == 1, j] = 0
            if dense:
                for c in range(k):
                    rows = np.flatnonzero(codes == c)[: n_cat[j]]
                    X[rows, j] = np.arange(n_cat[j])
    elif kind == "gaussian":
        scale = 10.0 ** rng.uniform(-3, 3, size=d)
        centre = rng.normal(0.0, 3.0, size=(k, d)) * scale + offset
        spread = rng.uniform(0.5, 2.0, size=(k, d)) * scale
        X = rng.normal(centre[codes], spread[codes])
        X_test = rng.normal(centre[codes_test], spread[codes_test])
    else:
        raise AssertionError(kind)
    return Data(X, classes[codes], X_test, classes[codes_test], classes, rng)


# ---------------------------------------------------------------------------------------------
# Comparison helpers


def _close(actual, expected, name):
    np.testing.assert_allclose(
        np.asarray(actual, dtype=np.float64),
        np.asarray(expected, dtype=np.float64),
        rtol=RTOL,
        atol=ATOL,
        err_msg=f"attribute {name}",
    )


def assert_same_fit(ours, theirs, names):
    """Fitted attributes agree: labels exactly, integers exactly, floats to about 1e-10."""
    for name in names:
        assert hasattr(ours, name), f"nbcore estimator has no fitted attribute {name}"
        a, b = getattr(ours, name), getattr(theirs, name)
        if name == "classes_":
            np.testing.assert_array_equal(np.asarray(a), b, err_msg=name)
            assert np.asarray(a).shape == b.shape, name
        elif name in ("n_features_in_", "n_categories_"):
            np.testing.assert_array_equal(np.asarray(a), b, err_msg=name)
        elif isinstance(b, list):  # CategoricalNB: one array per feature
            assert len(a) == len(b), name
            for i, (ai, bi) in enumerate(zip(a, b, strict=True)):
                assert np.shape(ai) == bi.shape, f"{name}[{i}] shape"
                _close(ai, bi, f"{name}[{i}]")
        else:
            assert np.shape(a) == np.shape(b), f"{name} shape {np.shape(a)} != {np.shape(b)}"
            _close(a, b, name)


# Unit roundoff of float64, and how many roundings two correct computations of one Gaussian log
# score may differ by: the class mean (a sum), the centring x - theta, the square, the sum over
# the features, each a few roundings. Measured: at most 12 on the cases below.
UNIT_ROUNDOFF = np.finfo(np.float64).eps / 2
ROUNDINGS = 16


def gaussian_score_slack(model, X):
    """How far two correct float64 computations of GaussianNB's joint log scores can differ.

    Returns an array of shape (n_samples, n_classes). The score of class c sums, over the
    features, -(x_d - theta_cd)^2 / (2 var_cd) - log(2 pi var_cd) / 2. The mean theta_cd is a
    rounded sum, known to about u |theta_cd| (u the unit roundoff), and so is x_d - theta_cd,
    to about u (|x_d| + |theta_cd|) (once theta_cd is rounded, the subtraction cannot restore
    the digits). The derivative of the score in theta_cd is (x_d - theta_cd) / var_cd, so
    the score is only defined to about u (|x_d| + |theta_cd|) |x_d - theta_cd| / var_cd,
    whatever the code: with an offset of 1e3 and a standard deviation of 1e-3 that is
    1e6 u |z| ~ 1e-10 |z|, the size of RTOL itself. The other terms are each rounded once
    relative to their size. Without a large offset the slack is far below ATOL (tested).
    """
    X = np.asarray(X, dtype=np.float64)[:, np.newaxis, :]
    theta, var = model.theta_[np.newaxis], model.var_[np.newaxis]
    deviation = np.abs(X - theta)
    per_feature = (
        (np.abs(X) + np.abs(theta)) * deviation / var  # conditioning of x - theta
        + deviation**2 / (2 * var)  # the square
        + np.abs(np.log(2 * np.pi * var)) / 2  # the normaliser
    )
    return ROUNDINGS * UNIT_ROUNDOFF * per_feature.sum(axis=2)


def _close_with_slack(actual, expected, slack, name):
    """|actual - expected| <= RTOL |expected| + ATOL + slack, entry by entry."""
    gap = np.abs(actual - expected)
    allowed = RTOL * np.abs(expected) + ATOL + slack
    worst = np.unravel_index(np.argmax(gap - allowed), gap.shape)
    slack = np.broadcast_to(slack, gap.shape)
    assert np.all(gap <= allowed), (
        f"{name}: at {worst} |difference| {gap[worst]:.3g} exceeds the allowed "
        f"{allowed[worst]:.3g} (of which rounding slack {slack[worst]:.3g})"
    )


def assert_same_predictions(ours, theirs, X, y):
    """predict exactly; the probabilities, their logs, joint log scores and score to 1e-10.

    GaussianNB's scores get the rounding slack that their conditioning implies
    (:func:`gaussian_score_slack`); a posterior moves by at most twice the largest change of
    a score (first order: d log p_c = d b_c - sum_k p_k d b_k), so its log gets twice the
    row's largest slack and the probability p_c times that.
    """
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X), err_msg="predict")
    if isinstance(theirs, sk.GaussianNB):
        score_slack = gaussian_score_slack(theirs, X)
        row_slack = 2 * score_slack.max(axis=1, keepdims=True)
        slack = {
            "predict_joint_log_proba": score_slack,
            "predict_log_proba": row_slack,
            "predict_proba": row_slack * theirs.predict_proba(X),
        }
        for method, method_slack in slack.items():
            a, b = getattr(ours, method)(X), getattr(theirs, method)(X)
            assert np.shape(a) == b.shape, method
            _close_with_slack(a, b, method_slack, method)
    else:
        for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
            a, b = getattr(ours, method)(X), getattr(theirs, method)(X)
            assert np.shape(a) == b.shape, method
            _close(a, b, method)
    _close(ours.score(X, y), theirs.score(X, y), "score")
    weights = np.linspace(0.5, 2.0, len(y))
    _close(
        ours.score(X, y, sample_weight=weights),
        theirs.score(X, y, sample_weight=weights),
        "score with sample_weight",
    )


def _quietly(call, *args, **kwargs):
    """Run call with warnings silenced (e.g. scikit-learn's "alpha too small")."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


DISCRETE_ATTRS = [
    "classes_",
    "class_count_",
    "class_log_prior_",
    "feature_count_",
    "feature_log_prob_",
    "n_features_in_",
]
ATTRS = {
    "MultinomialNB": DISCRETE_ATTRS,
    "BernoulliNB": DISCRETE_ATTRS,
    "ComplementNB": [*DISCRETE_ATTRS, "feature_all_"],
    "CategoricalNB": [
        "classes_",
        "class_count_",
        "class_log_prior_",
        "category_count_",
        "feature_log_prob_",
        "n_categories_",
        "n_features_in_",
    ],
    "GaussianNB": [
        "classes_",
        "class_count_",
        "class_prior_",
        "theta_",
        "var_",
        "epsilon_",
        "n_features_in_",
    ],
}
DATA_KIND = {
    "MultinomialNB": "counts",
    "ComplementNB": "counts",
    "BernoulliNB": "binary",
    "CategoricalNB": "categorical",
    "GaussianNB": "gaussian",
}


def pair(name, params):
    return getattr(nbcore, name)(**params), getattr(sk, name)(**params)


# ---------------------------------------------------------------------------------------------
# Parameter cases. Each is (id, params from the data set, options for make_data).


def _class_prior(data):
    return data.rng.dirichlet(np.full(len(data.classes), 2.0))


def _per_feature_alpha(data, with_zeros=False):
    alpha = data.rng.uniform(0.05, 3.0, size=data.X.shape[1])
    if with_zeros:
        alpha[::2] = 0.0
    return alpha


# Tiny smoothing: BernoulliNB's log(1 - theta) loses all precision in scikit-learn when a feature
# is on in every record of a class (1 - exp(log(1 - 1e-12))), so its data has both values per class.
TINY = {"dense_for": ("BernoulliNB",)}

COMMON_DISCRETE = [
    ("default", lambda d: {}, {}),
    ("alpha=0.5", lambda d: {"alpha": 0.5}, {}),
    ("alpha=2.5", lambda d: {"alpha": 2.5}, {}),
    ("alpha=0-force", lambda d: {"alpha": 0.0, "force_alpha": True}, {"dense": True}),
    ("alpha=0-noforce", lambda d: {"alpha": 0.0, "force_alpha": False}, TINY),
    ("alpha=1e-12-force", lambda d: {"alpha": 1e-12, "force_alpha": True}, TINY),
    ("alpha=1e-12-noforce", lambda d: {"alpha": 1e-12, "force_alpha": False}, TINY),
    ("alpha=1e-3-noforce", lambda d: {"alpha": 1e-3, "force_alpha": False}, {}),
    ("fit_prior=False", lambda d: {"fit_prior": False}, {}),
    ("class_prior", lambda d: {"class_prior": _class_prior(d)}, {}),
    (
        "class_prior-fit_prior=False",
        lambda d: {"class_prior": _class_prior(d), "fit_prior": False},
        {},
    ),
    ("class_prior-list", lambda d: {"class_prior": list(_class_prior(d))}, {}),
]
PER_FEATURE_ALPHA = [
    ("alpha=array-force", lambda d: {"alpha": _per_feature_alpha(d)}, {}),
    (
        "alpha=array-noforce",
        lambda d: {"alpha": _per_feature_alpha(d), "force_alpha": False},
        {},
    ),
    (
        "alpha=array-with-zeros-noforce",
        lambda d: {"alpha": _per_feature_alpha(d, True), "force_alpha": False},
        {},
    ),
    (
        "alpha=array-with-zeros-force",
        lambda d: {"alpha": _per_feature_alpha(d, True), "force_alpha": True},
        {"dense": True},
    ),
]
PARAMS = {
    "MultinomialNB": COMMON_DISCRETE + PER_FEATURE_ALPHA,
    "ComplementNB": COMMON_DISCRETE
    + PER_FEATURE_ALPHA
    + [
        ("norm=True", lambda d: {"norm": True}, {}),
        ("norm=True-alpha=0.3", lambda d: {"norm": True, "alpha": 0.3}, {}),
        ("norm=True-alpha=0-force", lambda d: {"norm": True, "alpha": 0.0}, {"dense": True}),
        ("norm=True-fit_prior=False", lambda d: {"norm": True, "fit_prior": False}, {}),
    ],
    "BernoulliNB": COMMON_DISCRETE
    + [
        ("binarize=None", lambda d: {"binarize": None}, {}),
        ("binarize=None-alpha=0.2", lambda d: {"binarize": None, "alpha": 0.2}, {}),
        ("binarize=0.5", lambda d: {"binarize": 0.5}, {}),
        ("binarize=1-all-off", lambda d: {"binarize": 1.0}, {}),
        # thresholds applied to Poisson counts
        ("counts-binarize=0", lambda d: {"binarize": 0.0}, {"kind": "counts"}),
        ("counts-binarize=1.5", lambda d: {"binarize": 1.5}, {"kind": "counts"}),
        (
            "counts-binarize=2-alpha=0.7",
            lambda d: {"binarize": 2, "alpha": 0.7},
            {"kind": "counts"},
        ),
    ],
    "CategoricalNB": COMMON_DISCRETE
    + [
        ("codes-with-gaps", lambda d: {}, {"gaps": True}),
        ("codes-with-gaps-alpha=0.1", lambda d: {"alpha": 0.1}, {"gaps": True}),
        ("min_categories=6", lambda d: {"min_categories": 6}, {}),
        ("min_categories=1", lambda d: {"min_categories": 1}, {}),
        (
            "min_categories=array",
            lambda d: {"min_categories": np.arange(d.X.shape[1]) % 3 + 3},
            {},
        ),
        (
            "min_categories=6-alpha=0.4-fit_prior=False",
            lambda d: {"min_categories": 6, "alpha": 0.4, "fit_prior": False},
            {},
        ),
    ],
    "GaussianNB": [
        ("default", lambda d: {}, {}),
        ("var_smoothing=0", lambda d: {"var_smoothing": 0.0}, {}),
        ("var_smoothing=1e-12", lambda d: {"var_smoothing": 1e-12}, {}),
        ("var_smoothing=1e-3", lambda d: {"var_smoothing": 1e-3}, {}),
        ("var_smoothing=1", lambda d: {"var_smoothing": 1.0}, {}),
        ("priors", lambda d: {"priors": _class_prior(d)}, {}),
        ("priors-list", lambda d: {"priors": list(_class_prior(d))}, {}),
        (
            "priors-var_smoothing=1e-2",
            lambda d: {"priors": _class_prior(d), "var_smoothing": 1e-2},
            {},
        ),
        ("offset=1e3", lambda d: {}, {"offset": 1e3}),
        ("offset=1e3-var_smoothing=0", lambda d: {"var_smoothing": 0.0}, {"offset": 1e3}),
    ],
}


def _cases():
    for name, cases in PARAMS.items():
        for case_id, make_params, options in cases:
            for spec in SPECS:
                yield pytest.param(
                    name, make_params, options, spec, id=f"{name}-{case_id}-{spec.id}"
                )


def _data_for(name, spec, options):
    options = dict(options)
    kind = options.pop("kind", DATA_KIND[name])
    if name in options.pop("dense_for", ()):
        options["dense"] = True
    return make_data(spec, kind, **options)


# ---------------------------------------------------------------------------------------------
# fit


@pytest.mark.parametrize(("name", "make_params", "options", "spec"), list(_cases()))
def test_fit_matches_sklearn(name, make_params, options, spec):
    data = _data_for(name, spec, options)
    params = make_params(data)
    ours, theirs = pair(name, params)
    assert _quietly(ours.fit, data.X, data.y) is ours
    _quietly(theirs.fit, data.X, data.y)
    assert_same_fit(ours, theirs, ATTRS[name])
    assert_same_predictions(ours, theirs, data.X_test, data.y_test)
    assert_same_predictions(ours, theirs, data.X, data.y)


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_gaussian_slack_grows_only_with_the_conditioning(spec):
    """The rounding slack is far below ATOL without an offset, and of the size of the
    differences it must cover with one: the tolerance follows the data, it is not loosened."""
    for offset, largest in ((0.0, ATOL / 10), (1e3, None)):
        data = make_data(spec, "gaussian", offset=offset)
        ours, theirs = pair("GaussianNB", {"var_smoothing": 0.0})
        ours.fit(data.X, data.y)
        theirs.fit(data.X, data.y)
        slack = gaussian_score_slack(theirs, data.X_test)
        gap = np.abs(
            ours.predict_joint_log_proba(data.X_test) - theirs.predict_joint_log_proba(data.X_test)
        )
        assert np.all(gap <= slack + ATOL)
        if largest is not None:
            assert slack.max() < largest
    # the slack of one feature: u (|x| + |theta|) |x - theta| / var is 1e6 u |z| at an offset of
    # 1e3 and a standard deviation of 1e-3 (z = 1), plus z^2 / 2 and |log(2 pi var)| / 2
    model = sk.GaussianNB(var_smoothing=0.0).fit([[1e3 - 1e-3], [1e3 + 1e-3]], [0, 0])
    expected = (
        ROUNDINGS
        * UNIT_ROUNDOFF
        * ((2e3 + 1e-3) * 1e-3 / 1e-6 + 0.5 + abs(np.log(2 * np.pi * 1e-6)) / 2)
    )
    np.testing.assert_allclose(gaussian_score_slack(model, [[1e3 + 1e-3]]), [[expected]], rtol=1e-6)


def _tight_class_far_from_the_mean(n_wide_classes):
    """Class 0 at 1e6 with sd 1e-3; with 2 wide classes one at 0 with sd 1e6, with 3 a second
    tight class 2 sd above class 0 and a tight class at 0. Test points lie 0 to 7 sd above
    class 0's mean: there x is close to mu_0 but both are 1e9 sd from the training mean."""
    rng = np.random.default_rng(3)
    tight = 1e6 + rng.normal(0.0, 1e-3, (50, 1))
    if n_wide_classes == 2:
        others = [rng.normal(0.0, 1e6, (50, 1))]
    else:
        others = [1e6 + 2e-3 + rng.normal(0.0, 1e-3, (50, 1)), rng.normal(0.0, 1e-3, (100, 1))]
    X = np.vstack([tight, *others])
    y = np.repeat(np.arange(1 + len(others)), [len(part) for part in (tight, *others)])
    X_test = 1e6 + 1e-3 * np.arange(0.0, 7.5, 0.5)[:, np.newaxis]
    return X, y, X_test


@pytest.mark.parametrize("n_classes", [2, 3])
def test_gaussian_tight_class_far_from_the_training_mean(n_classes):
    """Centring on the training mean does not remove the distance from a class to it: the
    expanded square x^2 - 2 x mu + mu^2 lost whole nats here (steps of 16) and, with three
    classes, the predicted class. The scores must agree with the direct formula on the
    model's own parameters to 1e-10, and with scikit-learn as everywhere else."""
    X, y, X_test = _tight_class_far_from_the_mean(n_classes)
    ours, theirs = pair("GaussianNB", {"var_smoothing": 0.0})
    ours.fit(X, y)
    theirs.fit(X, y)
    direct = np.log(ours.class_prior_) - 0.5 * np.sum(
        np.log(2 * np.pi * ours.var_) + (X_test[:, np.newaxis] - ours.theta_) ** 2 / ours.var_,
        axis=2,
    )
    np.testing.assert_allclose(ours.predict_joint_log_proba(X_test), direct, rtol=RTOL, atol=ATOL)
    assert_same_predictions(ours, theirs, X_test, theirs.predict(X_test))


# ---------------------------------------------------------------------------------------------
# sample_weight

WEIGHTS = {
    "uniform(0.1,3)": lambda rng, n: rng.uniform(0.1, 3.0, n),
    "integers-with-zeros": lambda rng, n: rng.integers(0, 4, n).astype(np.float64),
    "all-ones": lambda rng, n: np.ones(n),
}
SW_PARAMS = {
    "MultinomialNB": [("default", {}), ("alpha=0.3-fit_prior=False", {"alpha": 0.3})],
    "ComplementNB": [("default", {}), ("norm=True", {"norm": True})],
    "BernoulliNB": [("default", {}), ("binarize=None-alpha=0.5", {"binarize": None, "alpha": 0.5})],
    "CategoricalNB": [("default", {}), ("min_categories=5", {"min_categories": 5})],
    "GaussianNB": [("default", {}), ("var_smoothing=1e-3", {"var_smoothing": 1e-3})],
}


def _sw_cases():
    for name, cases in SW_PARAMS.items():
        for case_id, params in cases:
            for weight_id in WEIGHTS:
                for spec in SPECS[:3]:
                    yield pytest.param(
                        name,
                        params,
                        weight_id,
                        spec,
                        id=f"{name}-{case_id}-{weight_id}-{spec.id}",
                    )


def _weights(weight_id, data):
    weights = WEIGHTS[weight_id](data.rng, len(data.y))
    # every class keeps some weight, so that priors and Gaussian moments stay defined
    for c in data.classes:
        weights[np.flatnonzero(data.y == c)[0]] = 1.0
    return weights


@pytest.mark.parametrize(("name", "params", "weight_id", "spec"), list(_sw_cases()))
def test_fit_with_sample_weight_matches_sklearn(name, params, weight_id, spec):
    data = _data_for(name, spec, {})
    weights = _weights(weight_id, data)
    ours, theirs = pair(name, params)
    ours.fit(data.X, data.y, sample_weight=weights)
    theirs.fit(data.X, data.y, sample_weight=weights)
    assert_same_fit(ours, theirs, ATTRS[name])
    assert_same_predictions(ours, theirs, data.X_test, data.y_test)


# ---------------------------------------------------------------------------------------------
# partial_fit


def _chunks(data, how):
    """Index arrays of the batches; "by-label" batches leave classes out of most batches."""
    n = len(data.y)
    if how == "by-label":
        order = np.argsort(np.searchsorted(data.classes, data.y), kind="stable")
        return np.array_split(order, max(2, n // 10))
    size = {"1": 1, "7": 7, "third": -(-n // 3)}[how]
    return [np.arange(start, min(start + size, n)) for start in range(0, n, size)]


def feed_batches(name, params, data, batches, classes, weights=None):
    """Both estimators after partial_fit over the batches."""
    ours, theirs = pair(name, params)
    for i, rows in enumerate(batches):
        kwargs = {"classes": classes} if i == 0 else {}
        if weights is not None:
            kwargs["sample_weight"] = weights[rows]
        assert _quietly(ours.partial_fit, data.X[rows], data.y[rows], **kwargs) is ours
        _quietly(theirs.partial_fit, data.X[rows], data.y[rows], **kwargs)
    return ours, theirs


PF_PARAMS = {
    "MultinomialNB": [("default", {}), ("alpha=0.2-class_prior", {"alpha": 0.2})],
    "ComplementNB": [("default", {}), ("norm=True-alpha=0.4", {"norm": True, "alpha": 0.4})],
    "BernoulliNB": [("default", {}), ("binarize=None-fit_prior=False", {"binarize": None})],
    "CategoricalNB": [("default", {}), ("min_categories=5", {"min_categories": 5})],
    "GaussianNB": [
        ("default", {}),
        ("var_smoothing=1e-2", {"var_smoothing": 1e-2}),
        ("var_smoothing=0", {"var_smoothing": 0.0}),
    ],
}
PF_EXTRA = {
    "alpha=0.2-class_prior": lambda d: {"class_prior": _class_prior(d)},
    "binarize=None-fit_prior=False": lambda d: {"fit_prior": False},
}
CHUNKINGS = ["1", "7", "third", "by-label"]


def _pf_cases():
    for name, cases in PF_PARAMS.items():
        for case_id, params in cases:
            for how in CHUNKINGS:
                for weighted in (False, True):
                    for spec in SPECS[:3]:
                        if how == "1" and (name == "GaussianNB" or spec.n_samples > 150):
                            continue  # one-row batches: the smaller sets cover them
                        yield pytest.param(
                            name,
                            case_id,
                            params,
                            how,
                            weighted,
                            spec,
                            id=(
                                f"{name}-{case_id}-chunks={how}"
                                f"-{'weighted' if weighted else 'unweighted'}-{spec.id}"
                            ),
                        )


def _pf_attrs(name):
    # scikit-learn recomputes n_categories_ from the last batch alone; see the module docstring
    return [a for a in ATTRS[name] if a != "n_categories_"]


@pytest.mark.parametrize(
    ("name", "case_id", "params", "how", "weighted", "spec"), list(_pf_cases())
)
def test_partial_fit_matches_sklearn(name, case_id, params, how, weighted, spec):
    data = _data_for(name, spec, {})
    params = {**params, **PF_EXTRA.get(case_id, lambda d: {})(data)}
    weights = _weights("uniform(0.1,3)", data) if weighted else None
    ours, theirs = feed_batches(name, params, data, _chunks(data, how), data.classes, weights)
    assert_same_fit(ours, theirs, _pf_attrs(name))
    assert_same_predictions(ours, theirs, data.X_test, data.y_test)


@pytest.mark.parametrize("how", CHUNKINGS)
@pytest.mark.parametrize("spec", SPECS[:2], ids=SPEC_IDS[:2])
def test_partial_fit_n_categories_counts_every_category_seen(how, spec):
    """After batches, n_categories_ is the width of category_count_ (scikit-learn's is not)."""
    data = _data_for("CategoricalNB", spec, {})
    ours, theirs = pair("CategoricalNB", {})
    for i, rows in enumerate(_chunks(data, how)):
        kwargs = {"classes": data.classes} if i == 0 else {}
        ours.partial_fit(data.X[rows], data.y[rows], **kwargs)
        theirs.partial_fit(data.X[rows], data.y[rows], **kwargs)
    np.testing.assert_array_equal(ours.n_categories_, [c.shape[1] for c in theirs.category_count_])
    np.testing.assert_array_equal(ours.n_categories_, data.X.max(axis=0) + 1)


@pytest.mark.parametrize("name", list(PARAMS))
@pytest.mark.parametrize("spec", SPECS[:3], ids=SPEC_IDS[:3])
def test_partial_fit_with_unsorted_classes_matches_sklearn(name, spec):
    """classes given in any order on the first call end up sorted, as scikit-learn sorts them."""
    data = _data_for(name, spec, {})
    shuffled = data.rng.permutation(data.classes)
    ours, theirs = feed_batches(name, {}, data, _chunks(data, "third"), shuffled)
    assert_same_fit(ours, theirs, _pf_attrs(name))
    assert_same_predictions(ours, theirs, data.X_test, data.y_test)


@pytest.mark.parametrize("name", list(PARAMS))
@pytest.mark.parametrize("spec", SPECS[:2], ids=SPEC_IDS[:2])
def test_fit_after_partial_fit_starts_over(name, spec):
    """fit discards what earlier partial_fit calls learned, in both libraries."""
    data = _data_for(name, spec, {})
    ours, theirs = pair(name, {})
    half = len(data.y) // 2
    for model in (ours, theirs):
        model.partial_fit(data.X[half:], data.y[half:], classes=data.classes)
        model.fit(data.X, data.y)
    assert_same_fit(ours, theirs, ATTRS[name])
    assert_same_predictions(ours, theirs, data.X_test, data.y_test)


@pytest.mark.parametrize("name", list(PARAMS))
def test_dataframe_and_list_input_match_sklearn(name):
    """A DataFrame with named columns and labels as a list: feature_names_in_ and results agree."""
    data = _data_for(name, SPECS[1], {})
    columns = [f"f{j}" for j in range(data.X.shape[1])]
    frame, frame_test = (
        pd.DataFrame(data.X, columns=columns),
        pd.DataFrame(data.X_test, columns=columns),
    )
    ours, theirs = pair(name, {})
    ours.fit(frame, list(data.y))
    theirs.fit(frame, list(data.y))
    assert_same_fit(ours, theirs, ATTRS[name])
    np.testing.assert_array_equal(ours.feature_names_in_, theirs.feature_names_in_)
    assert_same_predictions(ours, theirs, frame_test, data.y_test)


@pytest.mark.parametrize("name", [n for n in PARAMS if n != "GaussianNB"])
def test_tiny_alpha_without_force_warns_like_sklearn(name):
    """force_alpha=False raises alpha below 1e-10 to 1e-10, and both libraries say so."""
    data = _data_for(name, SPECS[0], {})
    for model in pair(name, {"alpha": 1e-12, "force_alpha": False}):
        with pytest.warns(UserWarning, match="alpha too small"):
            model.fit(data.X, data.y)
    for model in pair(name, {"alpha": 1e-12, "force_alpha": True}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model.fit(data.X, data.y)


@pytest.mark.parametrize(
    "kind", ["normal", "constant", "offset", "fortran", "weighted", "one record per class"]
)
def test_gaussian_epsilon_is_scikit_learns_bit_for_bit(kind):
    # epsilon_ is var_smoothing times the largest np.var(X, axis=0): nbcore computes that
    # variance in a scratch array it reuses, by NumPy's own operations, so it is the same number
    # to the last bit, also where it decides whether fit can go on (a constant feature, whose
    # variance rounds to 0 or not) and on a large offset
    rng = np.random.default_rng(11)
    for trial in range(200):
        n, d = int(rng.integers(2, 30)), int(rng.integers(1, 4))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        weight = None
        if kind == "constant":
            X = np.full((n, d), float(rng.choice([0.1, 0.3, 1 / 3, 7.7, 1e8 + 0.1])))
            X[:, 0] += rng.normal(size=n)  # one varying feature keeps every class fit
        elif kind == "offset":
            X = 1e8 + rng.normal(scale=1e-2, size=(n, d))
        elif kind == "fortran":
            X = np.asfortranarray(rng.normal(size=(n, d)) * rng.uniform(1e-3, 1e3))
        else:
            X = rng.normal(size=(n, d))
        if kind == "weighted":
            weight = rng.uniform(0.5, 2.0, n)
        if kind == "one record per class":
            X, y = X[:2], y[:2]
            X[:, 0] = [0.0, 1.0]
        ours = nbcore.GaussianNB().fit(X, y, sample_weight=weight)
        theirs = sk.GaussianNB().fit(X, y, sample_weight=weight)
        assert ours.epsilon_ == theirs.epsilon_, (kind, trial)
        assert ours.epsilon_ == 1e-9 * np.var(X, axis=0).max(), (kind, trial)
