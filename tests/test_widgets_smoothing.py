"""The smoothing explorer's pure functions, checked at many settings.

Expected values come from independent computations: scikit-learn's BernoulliNB (a test-only
oracle) fitted on the same split with the smoothed prior passed as class_prior, exact
fractions on a tiny hand-made data set, and scipy's Beta distribution.
"""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.datasets import load_digits
from sklearn.metrics import accuracy_score, log_loss
from sklearn.naive_bayes import BernoulliNB as SklearnBernoulliNB

from nbcore.widgets import smoothing


@pytest.fixture(scope="module")
def digits_split():
    digits = load_digits()
    return smoothing.make_split(digits.data, digits.target, n_train=50, seed=5, threshold=7)


# A tiny data set, small enough to count by hand: 5 records, 3 binary features, 2 classes.
TINY_X = np.array([[1, 0, 3], [2, 0, 0], [0, 5, 1], [0, 0, 0], [4, 1, 1]], dtype=float)
TINY_Y = np.array(["a", "a", "b", "b", "b"])


def tiny_split():
    # n_train = 4 of 5 records; which record is held out depends on the seed
    return smoothing.make_split(TINY_X, TINY_Y, n_train=4, seed=0, threshold=0.5)


def test_split_is_seeded_disjoint_and_counted(digits_split):
    split = digits_split
    again = smoothing.make_split(
        load_digits().data, load_digits().target, n_train=50, seed=5, threshold=7
    )
    assert np.array_equal(split.train_index, again.train_index)
    other = smoothing.make_split(
        load_digits().data, load_digits().target, n_train=50, seed=6, threshold=7
    )
    assert not np.array_equal(split.train_index, other.train_index)
    assert len(np.intersect1d(split.train_index, split.test_index)) == 0
    assert len(split.train_index) + len(split.test_index) == 1797
    raw = load_digits()
    assert np.array_equal(split.X_train, (raw.data[split.train_index] > 7).astype(float))
    assert np.array_equal(split.y_test, raw.target[split.test_index])
    assert set(np.unique(split.X_train)) <= {0.0, 1.0}
    # counts against a plain loop
    for c_pos, c in enumerate(split.classes):
        rows = split.y_train == c
        assert split.class_count[c_pos] == rows.sum()
        assert np.array_equal(split.feature_count[c_pos], split.X_train[rows].sum(axis=0))
    assert split.class_count.sum() == 50
    assert "n_train=50" in repr(split) and "n_test=1747" in repr(split)


def test_tiny_split_counts_by_hand():
    split = tiny_split()
    held_out = int(split.test_index[0])
    kept = [i for i in range(5) if i != held_out]
    binary = (TINY_X > 0.5).astype(float)
    for c_pos, c in enumerate(["a", "b"]):
        rows = [i for i in kept if TINY_Y[i] == c]
        assert split.class_count[c_pos] == len(rows)
        assert list(split.feature_count[c_pos]) == list(binary[rows].sum(axis=0))


@pytest.mark.parametrize("alpha", [1e-3, 0.25, 1.0, 2.5, 40.0])
@pytest.mark.parametrize("beta", [0.0, 1.0, 7.5])
def test_estimates_are_the_beta_and_dirichlet_posterior_means(alpha, beta):
    split = tiny_split()
    est = smoothing.smoothed_estimates(split, alpha, beta)
    n, k = split.class_count.sum(), len(split.classes)
    for c_pos in range(k):
        n_c = Fraction(int(split.class_count[c_pos]))
        expected_prior = (n_c + Fraction(beta)) / (Fraction(int(n)) + k * Fraction(beta))
        assert est["class_prior"][c_pos] == pytest.approx(float(expected_prior), rel=1e-14)
        for d in range(3):
            n_cd = Fraction(int(split.feature_count[c_pos, d]))
            expected = (n_cd + Fraction(alpha)) / (n_c + 2 * Fraction(alpha))
            assert est["theta"][c_pos, d] == pytest.approx(float(expected), rel=1e-14)
    assert est["class_prior"].sum() == pytest.approx(1.0, rel=1e-14)
    assert np.all((est["theta"] > 0) & (est["theta"] < 1))


def _sklearn_model(split, alpha, beta):
    prior = smoothing.smoothed_estimates(split, alpha, beta)["class_prior"]
    return SklearnBernoulliNB(alpha=alpha, binarize=None, class_prior=prior).fit(
        split.X_train, split.y_train
    )


@pytest.mark.parametrize("alpha", [1e-3, 0.1, 1.0, 1.7782794100389228, 30.0, 1000.0])
@pytest.mark.parametrize("beta", [0.0, 2.0])
def test_held_out_scores_match_sklearn(digits_split, alpha, beta):
    model = _sklearn_model(digits_split, alpha, beta)
    scores = smoothing.held_out_scores(digits_split, alpha, beta)
    # scikit-learn's log_loss clips probabilities at machine epsilon, which changes the value
    # when alpha is tiny; the exact mean of -log P(true class | x) comes from its log proba
    log_proba = model.predict_log_proba(digits_split.X_test)
    rows = np.arange(len(digits_split.y_test))
    exact = -np.mean(log_proba[rows, np.searchsorted(model.classes_, digits_split.y_test)])
    assert scores["log_loss"] == pytest.approx(exact, rel=1e-9)
    if alpha >= 1:  # no probability near epsilon: the clipped value is the same
        proba = model.predict_proba(digits_split.X_test)
        expected_loss = log_loss(digits_split.y_test, proba, labels=model.classes_)
        assert scores["log_loss"] == pytest.approx(expected_loss, rel=1e-9)
    expected_acc = accuracy_score(digits_split.y_test, model.predict(digits_split.X_test))
    assert scores["accuracy"] == pytest.approx(expected_acc, abs=1e-12)


@pytest.mark.parametrize("index", [0, 3, 11, 1746])
@pytest.mark.parametrize("alpha", [0.01, 1.0, 100.0])
def test_point_posterior_matches_sklearn(digits_split, index, alpha):
    model = _sklearn_model(digits_split, alpha, 1.0)
    expected = model.predict_proba(digits_split.X_test[index : index + 1])[0]
    posterior = smoothing.point_posterior(digits_split, alpha, 1.0, index)
    assert list(posterior.index) == list(model.classes_)
    np.testing.assert_allclose(posterior.to_numpy(), expected, rtol=1e-9, atol=1e-15)
    assert posterior.sum() == pytest.approx(1.0, rel=1e-12)


def test_under_and_over_smoothing_show_in_the_sweep(digits_split):
    alphas = np.logspace(-3, 3, 25)
    sweep = smoothing.alpha_sweep(digits_split, alphas)
    assert list(sweep.columns) == ["log_loss", "accuracy"]
    assert sweep.index.name == "alpha" and len(sweep) == 25
    best = smoothing.best_alpha(sweep)
    assert best == sweep["log_loss"].idxmin()
    # the minimum lies inside the grid: both ends are worse
    assert sweep["log_loss"].iloc[0] > 2 * sweep.loc[best, "log_loss"]
    assert sweep["log_loss"].iloc[-1] > 2 * sweep.loc[best, "log_loss"]
    # huge alpha: every theta near 1/2, the log-loss tends to the cross-entropy of the prior
    # alone, and only the most frequent training class is predicted
    huge = smoothing.held_out_scores(digits_split, 1e9)
    prior = digits_split.class_count / digits_split.class_count.sum()
    assert huge["log_loss"] == pytest.approx(
        -np.mean(np.log(prior[digits_split.test_codes])), rel=1e-6
    )
    top = digits_split.classes[np.argmax(digits_split.class_count)]
    assert huge["accuracy"] == pytest.approx(np.mean(digits_split.y_test == top))
    assert smoothing.best_alpha(sweep, "accuracy") == sweep["accuracy"].idxmax()


def test_sweep_rows_are_the_held_out_scores(digits_split):
    sweep = smoothing.alpha_sweep(digits_split, [0.5, 2.0], prior_pseudo=3.0)
    for a in (0.5, 2.0):
        scores = smoothing.held_out_scores(digits_split, a, 3.0)
        assert sweep.loc[a, "log_loss"] == scores["log_loss"]
        assert sweep.loc[a, "accuracy"] == scores["accuracy"]


def test_every_number_is_nbcores_bernoulli_nb(digits_split):
    import nbcore

    split = digits_split
    for alpha, beta in [(0.3, 0.0), (0.3, 2.0), (10.0, 30.0)]:
        model = smoothing.bernoulli_model(split, alpha, beta)
        prior = None
        if beta:
            prior = (split.class_count + beta) / (split.class_count.sum() + 10 * beta)
        direct = nbcore.BernoulliNB(alpha=alpha, binarize=7, class_prior=prior).fit(
            load_digits().data[split.train_index], split.y_train
        )
        est = smoothing.smoothed_estimates(split, alpha, beta)
        np.testing.assert_allclose(np.log(est["theta"]), direct.feature_log_prob_, rtol=1e-12)
        np.testing.assert_allclose(np.log(est["class_prior"]), direct.class_log_prior_, rtol=1e-12)
        raw_test = load_digits().data[split.test_index]
        np.testing.assert_allclose(
            model.predict_joint_log_proba(split.X_test),
            direct.predict_joint_log_proba(raw_test),
            rtol=1e-12,
        )
        np.testing.assert_array_equal(
            smoothing.point_posterior(split, alpha, beta, 7).to_numpy(),
            direct.predict_proba(raw_test[7:8])[0],
        )


def test_a_class_missing_from_training_keeps_prior_zero_until_smoothed():
    split = smoothing.make_split(TINY_X, TINY_Y, n_train=2, seed=0, threshold=0.5)
    if len(np.unique(split.y_train)) == 2:  # this seed must leave out one class
        pytest.fail("the split should miss a class")
    empty = int(np.flatnonzero(split.class_count == 0)[0])
    assert smoothing.smoothed_estimates(split, 1.0)["class_prior"][empty] == 0.0
    assert smoothing.point_posterior(split, 1.0, 0.0, 0).iloc[empty] == 0.0
    smoothed = smoothing.smoothed_estimates(split, 1.0, 1.0)["class_prior"]
    assert smoothed[empty] == pytest.approx(1 / 4)


@pytest.mark.parametrize(("n_on", "n", "a", "b"), [(0, 5, 1, 1), (3, 5, 2, 2), (7, 7, 0.5, 3)])
def test_beta_point_estimates(n_on, n, a, b):
    est = smoothing.beta_point_estimates(n_on, n, a, b)
    post = stats.beta(n_on + a, n - n_on + b)
    assert est["posterior"] == (n_on + a, n - n_on + b)
    assert est["mean"] == pytest.approx(post.mean(), rel=1e-12)
    assert est["mle"] == pytest.approx(n_on / n)
    if n_on + a > 1 and n - n_on + b > 1:
        grid = np.linspace(0, 1, 200001)
        assert est["map"] == pytest.approx(grid[np.argmax(post.pdf(grid))], abs=1e-5)


def test_beta_identities_of_the_chapter():
    # Beta(1, 1): MAP = MLE, mean = Laplace; Beta(2, 2): MAP = Laplace
    flat = smoothing.beta_point_estimates(2, 9, 1, 1)
    assert flat["map"] == pytest.approx(2 / 9) and flat["mean"] == pytest.approx(3 / 11)
    assert smoothing.beta_point_estimates(2, 9, 2, 2)["map"] == pytest.approx(3 / 11)
    assert math.isnan(smoothing.beta_point_estimates(0, 5, 0.5, 0.5)["map"])


@pytest.mark.parametrize(("a", "b"), [(1, 1), (1, 6), (2, 7), (0.5, 0.5), (3.5, 1)])
def test_beta_pdf_matches_scipy(a, b):
    grid = np.linspace(0.001, 0.999, 57)
    np.testing.assert_allclose(
        smoothing.beta_pdf(grid, a, b), stats.beta(a, b).pdf(grid), rtol=1e-10
    )
    ends = smoothing.beta_pdf([0.0, 1.0], a, b)
    assert ends[0] == pytest.approx(b if a == 1 else (0.0 if a > 1 else math.inf), rel=1e-12)
    assert ends[1] == pytest.approx(a if b == 1 else (0.0 if b > 1 else math.inf), rel=1e-12)


@pytest.mark.parametrize(("alpha", "beta", "index"), [(1.0, 0.0, 3), (0.001, 5.0, 11)])
def test_panel_shows_the_setting_and_the_scores(digits_split, alpha, beta, index):
    text = smoothing.smoothing_panel(digits_split, alpha, beta, index)
    scores = smoothing.held_out_scores(digits_split, alpha, beta)
    posterior = smoothing.point_posterior(digits_split, alpha, beta, index)
    assert f"{scores['log_loss']:.3f}" in text and f"{scores['accuracy']:.3f}" in text
    assert f"Prediction: <b>{posterior.idxmax()}</b>" in text
    assert f"alpha = {alpha:.3g}, class-prior pseudo-count = {beta:.1f}, test image {index}" in text
    assert text.count("<table") == 5  # layout, 3 images, the prior table
    assert text.count("<td style='width:9px") == 3 * 64
    assert "<script" not in text and "http" not in text


def test_explorer_recomputes_when_a_slider_moves(digits_split):
    box = smoothing.smoothing_explorer(digits_split, alpha=1.0, prior_pseudo=0.0, index=3)
    alpha_slider, prior_slider, index_slider, panel = box.children
    assert (alpha_slider.min, alpha_slider.max) == (-3.0, 3.0)
    assert index_slider.max == len(digits_split.y_test) - 1
    assert [c.description for c in box.children[:3]] == [
        c.label for c in smoothing.smoothing_controls(digits_split)
    ]
    for a, b, i in [(0.001, 0.0, 3), (1000.0, 5.0, 3), (10.0, 2.5, 100)]:
        alpha_slider.value, prior_slider.value, index_slider.value = a, b, i
        assert panel.value == smoothing.smoothing_panel(digits_split, a, b, i)
    start = smoothing.smoothing_explorer(digits_split, alpha=0.7, prior_pseudo=2.7)
    assert start.children[0].value == pytest.approx(10 ** round(math.log10(0.7), 1))
    assert start.children[1].value == 2.5
    with pytest.raises(ValueError, match="prior_pseudo"):
        smoothing.smoothing_explorer(digits_split, prior_pseudo=99.0)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda s: smoothing.smoothed_estimates(s, 0.0),
            ValueError,
            "alpha must be a finite number > 0",
        ),
        (lambda s: smoothing.smoothed_estimates(s, -1.0), ValueError, "alpha must be a finite"),
        (lambda s: smoothing.smoothed_estimates(s, "1"), TypeError, "alpha must be a real"),
        (lambda s: smoothing.smoothed_estimates(s, 1.0, -2), ValueError, "prior_pseudo must"),
        (lambda s: smoothing.smoothed_estimates("x", 1.0), TypeError, "split must be"),
        (lambda s: smoothing.point_posterior(s, 1.0, 0.0, 1), ValueError, "index must be"),
        (lambda s: smoothing.point_posterior(s, 1.0, 0.0, 0.5), TypeError, "index must be an int"),
        (lambda s: smoothing.alpha_sweep(s, []), ValueError, "alphas must hold"),
        (lambda s: smoothing.alpha_sweep(s, [1.0, 0.0]), ValueError, "alpha must be a finite"),
        (lambda s: smoothing.best_alpha(pd.DataFrame(), "log_loss"), TypeError, "sweep must"),
        (lambda s: smoothing.best_alpha(None, "loss"), ValueError, "column must be"),
        (lambda s: smoothing.beta_pdf([1.5], 1, 1), ValueError, "theta must"),
        (lambda s: smoothing.beta_pdf([0.5], 0, 1), ValueError, "a must be"),
        (lambda s: smoothing.beta_point_estimates(6, 5, 1, 1), ValueError, "n_on must be <="),
        (lambda s: smoothing.beta_point_estimates(-1, 5, 1, 1), ValueError, "n_on must be"),
    ],
)
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call(tiny_split())


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"X": np.zeros(5), "y": TINY_Y}, ValueError, "X must be a 2-d array"),
        ({"y": TINY_Y[:3]}, ValueError, "y must have shape"),
        ({"n_train": 5}, ValueError, "n_train must be an int between 1 and 4, got 5"),
        ({"n_train": 2.0}, TypeError, "n_train must be an int"),
        ({"seed": None}, TypeError, "seed must be an int"),
        ({"X": np.full((5, 3), np.nan)}, ValueError, "finite"),
    ],
)
def test_make_split_rejects_bad_input(kwargs, error, match):
    args = {"X": TINY_X, "y": TINY_Y, "n_train": 4, "seed": 0, **kwargs}
    with pytest.raises(error, match=match):
        smoothing.make_split(args.pop("X"), args.pop("y"), **args)
