"""Numerics: log-sum-exp, and finite, normalised posteriors where naive arithmetic fails
(huge vocabularies, very long documents, far-away points, zero variance, one sample per
class, zero smoothing)."""

import math

import numpy as np
import pytest
from conftest import ESTIMATORS

import nbcore
from nbcore import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    logsumexp,
)
from nbcore.numerics import (
    categorical_log_score,
    gaussian_log_density,
    log_ratio,
    xlogp,
    xlogp_absent,
)

ALL = ESTIMATORS


def assert_distribution(P):
    """Finite probabilities in [0, 1], every row summing to 1."""
    assert np.all(np.isfinite(P))
    assert np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# logsumexp


def test_logsumexp_matches_the_direct_sum_where_that_is_safe():
    a = np.array([[0.5, -1.0, 2.0], [3.0, 3.0, -4.0]])
    np.testing.assert_allclose(logsumexp(a, axis=1), np.log(np.exp(a).sum(axis=1)), rtol=1e-15)
    np.testing.assert_allclose(logsumexp(a, axis=0), np.log(np.exp(a).sum(axis=0)), rtol=1e-15)
    assert logsumexp(a, axis=None) == pytest.approx(np.log(np.exp(a).sum()), rel=1e-15)


def test_logsumexp_where_exp_underflows_and_overflows():
    # the notes' example: log(e^-120 + e^-121) = -120 + log(1 + e^-1)
    assert logsumexp([-120.0, -121.0]) == pytest.approx(-120 + math.log(1 + math.exp(-1)))
    with np.errstate(divide="ignore"):
        assert np.log(np.sum(np.exp([-1000.0, -1000.0]))) == -np.inf  # the naive way
    assert logsumexp([-1000.0, -1000.0]) == pytest.approx(-1000 + math.log(2))
    with np.errstate(over="ignore"):
        assert np.log(np.sum(np.exp([1000.0, 1000.0]))) == np.inf
    assert logsumexp([1000.0, 1000.0]) == pytest.approx(1000 + math.log(2))


def test_logsumexp_of_impossible_terms():
    assert logsumexp([-np.inf, -np.inf]) == -np.inf
    assert logsumexp([-np.inf, 0.0]) == 0.0
    assert logsumexp([np.inf, 0.0]) == np.inf
    np.testing.assert_array_equal(logsumexp([[-np.inf, -np.inf], [0.0, -np.inf]]), [-np.inf, 0])


def test_logsumexp_shapes():
    a = np.zeros((4, 3))
    assert logsumexp(a).shape == (4,)
    assert logsumexp(a, keepdims=True).shape == (4, 1)
    assert logsumexp(a, axis=0, keepdims=True).shape == (1, 3)
    np.testing.assert_allclose(logsumexp(a), np.log(3))


def test_every_estimator_normalises_with_the_one_logsumexp():
    assert nbcore.base.logsumexp is nbcore.numerics.logsumexp is nbcore.logsumexp
    X = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 4.0]])
    for Model in ALL:
        model = Model().fit(X, ["a", "b", "b"])
        jll = model.predict_joint_log_proba(X)
        np.testing.assert_allclose(
            model.predict_log_proba(X),
            jll - logsumexp(jll, axis=1, keepdims=True),
            rtol=1e-12,
            atol=1e-14,
        )


# ---------------------------------------------------------------------------------------------
# helpers: x log p with 0 log 0 = 0, smoothed log ratios


def test_xlogp_is_the_matrix_product_when_every_probability_is_positive():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, (5, 6)).astype(float)
    log_p = np.log(rng.dirichlet(np.ones(6), size=3))
    np.testing.assert_allclose(xlogp(X, log_p), X @ log_p.T, rtol=1e-15)


def test_xlogp_counts_0_log_0_as_0():
    with np.errstate(divide="ignore"):
        log_p = np.log([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    X = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]])
    with np.errstate(invalid="ignore"):
        assert np.isnan((X @ log_p.T)[0, 0])  # the plain product: 0 * -inf = NaN
    expected = [
        [math.log(0.5) + 2 * math.log(0.5), math.log(0.2) + 2 * math.log(0.3)],
        [-np.inf, math.log(0.3) + 3 * math.log(0.5)],
    ]
    np.testing.assert_allclose(xlogp(X, log_p), expected, rtol=1e-15)


def test_log_ratio_of_an_empty_class_is_the_uniform_limit():
    counts = np.array([[2.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    out = log_ratio(counts, counts.sum(axis=1, keepdims=True), 3)
    np.testing.assert_allclose(np.exp(out), [[2 / 3, 0, 1 / 3], [1 / 3, 1 / 3, 1 / 3]])


# ---------------------------------------------------------------------------------------------
# Text at scale: 10^5-word vocabularies, documents of 10^6 words


@pytest.fixture(scope="module")
def big_vocabulary():
    rng = np.random.default_rng(1)
    n_docs, vocabulary = 30, 100_000
    X = np.zeros((n_docs, vocabulary))
    for i in range(n_docs):  # about 300 distinct words per document
        words = rng.integers(0, vocabulary, 300)
        np.add.at(X[i], words, 1.0)
    y = np.arange(n_docs) % 3
    return X, y


@pytest.mark.parametrize("Model", [MultinomialNB, BernoulliNB, ComplementNB])
def test_vocabulary_of_100000_words(big_vocabulary, Model):
    X, y = big_vocabulary
    model = Model().fit(X, y)
    assert model.feature_log_prob_.shape == (3, 100_000)
    assert_distribution(model.predict_proba(X))
    assert np.all(np.isfinite(model.predict_log_proba(X)))


def test_bernoulli_joint_score_over_100000_words_is_far_below_the_smallest_float(big_vocabulary):
    X, y = big_vocabulary
    jll = BernoulliNB().fit(X, y).predict_joint_log_proba(X)
    # a product of 10^5 probabilities: its log is far below log(smallest float), about -745
    assert np.all(jll < -5000)
    assert np.all(np.exp(jll) == 0.0)


def test_documents_of_a_million_words():
    rng = np.random.default_rng(2)
    theta = rng.dirichlet(np.ones(50), size=2)
    X = np.vstack([rng.multinomial(1_000_000, theta[c]) for c in (0, 1, 0, 1)]).astype(float)
    y = [0, 1, 0, 1]
    model = MultinomialNB().fit(X, y)
    jll = model.predict_joint_log_proba(X)
    assert np.all(jll < -1e6)  # each score is the log of a product of 10^6 probabilities
    P = model.predict_proba(X)
    assert_distribution(P)
    np.testing.assert_array_equal(model.predict(X), y)
    # the posterior depends only on the difference of the two scores, computed in full here
    x = X[0]
    b = [math.fsum([model.class_log_prior_[c], *(x * model.feature_log_prob_[c])]) for c in (0, 1)]
    assert P[0, 1] == pytest.approx(1 / (1 + math.exp(min(b[0] - b[1], 700))), abs=1e-300)


@pytest.mark.parametrize("Model", [BernoulliNB, ComplementNB, MultinomialNB])
def test_long_documents_with_close_classes_keep_an_exact_posterior(Model):
    # two classes whose word probabilities differ slightly: the posterior is not 0 or 1
    X = np.array([[500_000.0, 500_000.0], [500_100.0, 499_900.0], [499_900.0, 500_100.0]])
    model = Model(alpha=1.0).fit(X[1:], [0, 1])
    P = model.predict_proba(X[:1])
    assert_distribution(P)
    jll = model.predict_joint_log_proba(X[:1])[0]
    assert P[0, 1] == pytest.approx(1 / (1 + math.exp(jll[0] - jll[1])), rel=1e-9)


# ---------------------------------------------------------------------------------------------
# Gaussian: far-away points, large offsets, zero variance, one sample per class


def _direct_gaussian_log_likelihood(model, X):
    """log N(x | mu, var) summed over features, class by class, without any expansion."""
    return np.array(
        [
            [
                math.fsum(
                    -0.5 * math.log(2 * math.pi * v) - (xd - m) ** 2 / (2 * v)
                    for xd, m, v in zip(x, model.theta_[c], model.var_[c], strict=True)
                )
                for c in range(len(model.classes_))
            ]
            for x in X
        ]
    )


def test_far_away_points():
    X = np.array([[-1.0], [1.0], [0.5], [9.0], [11.0], [10.5]])
    y = [0, 0, 0, 1, 1, 1]
    model = GaussianNB().fit(X, y)
    far = np.array([[1e6], [-1e6], [5.0]])
    jll = model.predict_joint_log_proba(far)
    assert np.all(jll[:2] < -1e10)  # exp of this is 0: the naive posterior would be 0 / 0
    P = model.predict_proba(far)
    assert_distribution(P)
    np.testing.assert_array_equal(model.predict(far)[:2], [1, 0])
    with np.errstate(divide="ignore"):
        log_prior = np.log(model.class_prior_)
    np.testing.assert_allclose(
        jll, log_prior + _direct_gaussian_log_likelihood(model, far), rtol=1e-12
    )


def test_unit_variance_gaussian_at_a_million():
    model = GaussianNB(var_smoothing=0.0).fit([[-1.0], [1.0], [2.0], [4.0]], [0, 0, 1, 1])
    np.testing.assert_allclose(model.var_, [[1.0], [1.0]])
    jll = model.predict_joint_log_proba([[1e6]])
    expected = [math.log(0.5) - 0.5 * math.log(2 * math.pi) - (1e6 - m) ** 2 / 2 for m in (0, 3)]
    np.testing.assert_allclose(jll[0], expected, rtol=1e-14)
    np.testing.assert_allclose(model.predict_proba([[1e6]]), [[0.0, 1.0]])


@pytest.fixture(scope="module")
def offset_data():
    rng = np.random.default_rng(3)
    n = 400
    y = np.arange(n) % 4
    spread = rng.uniform(0.5, 2.0, (4, 5))
    centre = 1e6 + rng.normal(0, 2.0, (4, 5))
    X = rng.normal(centre[y], spread[y])
    X_test = rng.normal(centre[y[:50]], spread[y[:50]])
    return X, y, X_test


def test_large_common_offset_keeps_the_log_likelihood_accurate(offset_data):
    X, y, X_test = offset_data
    model = GaussianNB().fit(X, y)
    direct = _direct_gaussian_log_likelihood(model, X_test)
    ours = model._log_likelihood(X_test)
    relative = np.abs(ours - direct) / np.abs(direct)
    assert relative.max() < 1e-9

    # the same expansion without centring loses every digit: this test can fail
    precision = 1 / model.var_
    naive = -0.5 * (
        np.sum(np.log(2 * np.pi * model.var_), axis=1)
        + (X_test**2) @ precision.T
        - 2 * X_test @ (model.theta_ * precision).T
        + np.sum(model.theta_**2 * precision, axis=1)
    )
    assert (np.abs(naive - direct) / np.abs(direct)).max() > 1e-6


def test_large_common_offset_predictions_match_the_direct_computation(offset_data):
    X, y, X_test = offset_data
    model = GaussianNB().fit(X, y)
    direct = np.log(model.class_prior_) + _direct_gaussian_log_likelihood(model, X_test)
    expected = np.exp(direct - logsumexp(direct, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(X_test), expected, rtol=1e-8, atol=1e-12)


def test_feature_constant_within_every_class_is_smoothed_by_the_others():
    # feature 0 is constant in each class; feature 1 varies, so epsilon_ > 0
    X = np.array([[1.0, 0.3], [1.0, 2.0], [5.0, 1.1], [5.0, 3.4]])
    model = GaussianNB().fit(X, ["a", "a", "b", "b"])
    assert model.epsilon_ > 0
    np.testing.assert_allclose(model.var_[:, 0], model.epsilon_)
    P = model.predict_proba([[1.0, 1.0], [3.0, 2.0], [5.0 + 1e-6, 0.0]])
    assert_distribution(P)


def test_feature_constant_over_all_the_data():
    X = np.array([[7.0, 0.3], [7.0, 2.0], [7.0, 1.1], [7.0, 3.4]])
    model = GaussianNB().fit(X, ["a", "a", "b", "b"])
    assert_distribution(model.predict_proba([[7.0, 1.0], [8.0, 1.0]]))


def test_var_smoothing_zero_with_spread_everywhere_is_fine():
    X = np.array([[1.0, 0.3], [1.5, 2.0], [5.0, 1.1], [5.2, 3.4]])
    model = GaussianNB(var_smoothing=0.0).fit(X, ["a", "a", "b", "b"])
    assert model.epsilon_ == 0.0
    assert_distribution(model.predict_proba(X))


@pytest.mark.parametrize("Model", ALL, ids=lambda m: m.__name__)
def test_one_sample_per_class(Model):
    X = np.array([[1.0, 0.0, 3.0], [0.0, 2.0, 1.0], [4.0, 1.0, 0.0]])
    y = ["a", "b", "c"]
    model = Model().fit(X, y)
    P = model.predict_proba(X)
    assert_distribution(P)
    if Model is not ComplementNB:  # the complement of a single document is the other two
        np.testing.assert_array_equal(model.predict(X), y)


def test_gaussian_one_sample_per_class_has_variance_epsilon():
    X = np.array([[1.0, 10.0], [3.0, 20.0]])
    model = GaussianNB().fit(X, [0, 1])
    np.testing.assert_allclose(model.var_, model.epsilon_)
    assert model.epsilon_ == pytest.approx(1e-9 * 25.0)  # largest variance: (10 - 20)^2 / 4
    assert_distribution(model.predict_proba([[2.0, 15.0], [100.0, -100.0]]))


# ---------------------------------------------------------------------------------------------
# Zero smoothing: log 0 = -inf, never NaN


def test_multinomial_alpha_zero_with_a_word_never_seen_in_training():
    X = np.array([[2.0, 1.0, 0.0], [0.0, 3.0, 0.0]])
    model = MultinomialNB(alpha=0).fit(X, ["a", "b"])
    assert np.all(model.feature_log_prob_[:, 2] == -np.inf)
    # a document without that word: 0 log 0 counts as 0 (scikit-learn gives NaN here)
    P = model.predict_proba([[1.0, 1.0, 0.0]])
    assert_distribution(P)
    a = 1 / 2 * (2 / 3) * (1 / 3)
    b = 1 / 2 * 0 * 1
    np.testing.assert_allclose(P, [[a / (a + b), b / (a + b)]])
    # a document with it: no class can have produced it
    with pytest.raises(ValueError, match="undefined"):
        model.predict_proba([[1.0, 1.0, 1.0]])


def test_bernoulli_alpha_zero_theta_zero_and_one():
    X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 1.0]])
    model = BernoulliNB(alpha=0).fit(X, ["a", "a", "b", "b"])
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), [[1.0, 0.5], [0.0, 1.0]])
    P = model.predict_proba([[1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    assert_distribution(P)
    np.testing.assert_allclose(P, [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])


def test_alpha_zero_class_without_samples_has_no_nan():
    model = MultinomialNB(alpha=0, class_prior=[0.5, 0.5])
    model.partial_fit([[1.0, 2.0]], ["a"], classes=["a", "b"])
    # class "b" has no counts yet: its probabilities are the limit alpha -> 0, uniform
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[1]), [0.5, 0.5])
    assert_distribution(model.predict_proba([[1.0, 1.0]]))
    bernoulli = BernoulliNB(alpha=0).partial_fit([[1.0, 0.0]], ["a"], classes=["a", "b"])
    np.testing.assert_allclose(np.exp(bernoulli.feature_log_prob_[1]), [0.5, 0.5])
    categorical = CategoricalNB(alpha=0).partial_fit([["x"]], ["a"], classes=["a", "b"])
    np.testing.assert_allclose(np.exp(categorical.feature_log_prob_[0][1]), [1.0])


def test_categorical_alpha_zero_rules_classes_out_but_stays_normalised():
    X = [["x", "u"], ["x", "v"], ["y", "v"]]
    model = CategoricalNB(alpha=0).fit(X, ["a", "a", "b"])
    P = model.predict_proba([["x", "v"], ["y", "v"], ["x", None]])
    assert_distribution(P)
    np.testing.assert_allclose(P[:2], [[1.0, 0.0], [0.0, 1.0]])


def test_underflowing_product_versus_log_space():
    # 2000 features each of probability 0.1: the product underflows to exactly 0
    assert np.prod(np.full(2000, 0.1)) == 0.0
    X = np.ones((2, 2000))
    X[1, :1000] = 0.0
    model = BernoulliNB().fit(X, [0, 1])
    P = model.predict_proba(np.ones((1, 2000)))
    assert_distribution(P)
    assert P[0, 0] == pytest.approx(1.0)


# ---------------------------------------------------------------------------------------------
# The shared log likelihoods of nbcore.numerics


def test_gaussian_log_density_is_the_sum_of_scipys_normal_log_densities():
    from scipy.stats import norm

    rng = np.random.default_rng(3)
    X, mean, var = rng.normal(size=(7, 4)), rng.normal(size=(3, 4)), rng.uniform(0.1, 3, (3, 4))
    expected = np.array(
        [[norm.logpdf(x, m, np.sqrt(v)).sum() for m, v in zip(mean, var, strict=True)] for x in X]
    )
    np.testing.assert_allclose(gaussian_log_density(X, mean, var), expected, rtol=1e-12)
    # the centre only guards the digits: any centre gives the same numbers
    np.testing.assert_allclose(
        gaussian_log_density(X, mean, var, center=np.full(4, 5.0)), expected, rtol=1e-12
    )


def test_gaussian_log_density_keeps_its_digits_with_a_large_common_offset():
    x, mu, var = np.array([[1e6 + 0.01]]), np.array([[1e6]]), np.array([[1e-4]])
    exact = -0.5 * (np.log(2 * np.pi * 1e-4) + 0.01**2 / 1e-4)
    assert gaussian_log_density(x, mu, var)[0, 0] == pytest.approx(exact, rel=1e-9)


def test_gaussian_log_density_keeps_its_digits_for_a_tight_class_far_from_the_centre():
    # centring on the mean of the class means leaves class 0 half a million of its standard
    # deviations (1e-3) from the centre: the expanded terms are ~1e17 and cancel to about 16
    x = np.array([[1e6 + 0.002], [1e6 + 0.004]])
    mean, var = np.array([[1e6], [0.0]]), np.array([[1e-6], [1.0]])
    exact = -0.5 * (np.log(2 * np.pi * var.T) + (x - mean.T) ** 2 / var.T)
    np.testing.assert_allclose(gaussian_log_density(x, mean, var), exact, rtol=1e-12)
    np.testing.assert_allclose(
        gaussian_log_density(x, mean, var, center=np.zeros(1)), exact, rtol=1e-12
    )


def test_gaussian_nb_scores_with_the_shared_density():
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 3, 40)
    model = GaussianNB().fit(X, y)
    expected = np.log(model.class_prior_) + gaussian_log_density(X, model.theta_, model.var_)
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-12)


def test_categorical_log_score_sums_the_log_probabilities_of_the_observed_values():
    log_theta = [np.log([[0.2, 0.8], [0.6, 0.4]]), np.log([[0.1, 0.3, 0.6], [0.5, 0.25, 0.25]])]
    codes = np.array([[1, 2], [0, -1], [-1, -1]])
    expected = np.log(
        [[0.8 * 0.6, 0.4 * 0.25], [0.2, 0.6], [1.0, 1.0]]  # -1: the feature is left out
    )
    np.testing.assert_allclose(categorical_log_score(codes, log_theta), expected, rtol=1e-14)


def test_categorical_nb_scores_with_the_shared_scorer():
    X = [["sunny", "hot"], ["rainy", "mild"], ["sunny", "mild"], ["overcast", "hot"]]
    model = CategoricalNB().fit(X, ["no", "yes", "yes", "no"])
    codes = np.array([[2, 0], [1, 1]])  # categories are sorted: overcast, rainy, sunny
    expected = model.class_log_prior_ + categorical_log_score(codes, model.feature_log_prob_)
    test = [["sunny", "hot"], ["rainy", "mild"]]
    np.testing.assert_allclose(model.predict_joint_log_proba(test), expected, rtol=1e-14)


def test_xlogp_absent_is_xlogp_of_one_minus_x():
    rng = np.random.default_rng(5)
    X = (rng.random((6, 5)) < 0.5).astype(float)
    log_q = np.log(rng.uniform(0.1, 0.9, (2, 5)))
    log_q[0, 1] = -np.inf  # P(absent) = 0 for class 0, feature 1
    np.testing.assert_allclose(xlogp_absent(X, log_q), xlogp(1 - X, log_q), rtol=1e-14)
    assert np.array_equal(np.isneginf(xlogp_absent(X, log_q))[:, 0], X[:, 1] == 0)


def test_gaussian_sample_of_weight_zero_in_an_empty_class_leaves_the_moments_finite():
    # the only sample of class "b" has weight 0: "b" has no moments, and "a" must keep its own
    import sklearn.naive_bayes as sk

    X = np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0], [10.0, 1.0]])
    y, weights = ["a", "a", "a", "b"], [1.0, 2.0, 1.0, 0.0]
    ours = GaussianNB().partial_fit(X, y, classes=["a", "b", "c"], sample_weight=weights)
    theirs = sk.GaussianNB().partial_fit(X, y, classes=["a", "b", "c"], sample_weight=weights)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-10)
