"""The chapter on relaxing the naive assumption: the simulated tree model and the tree explorer.

Expected values come from independent computations: the model's probabilities multiplied out
record by record in plain Python, the fitted estimators called directly, and counting.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from nbcore import AveragedOneDependenceNB, CategoricalNB, TreeAugmentedNB
from nbcore.plotting import FLAG_TEXT, new_figure
from nbcore.widgets import beyond_naive as bn


def _joint(record, c, strength):
    """p(x, y = c) of the simulated model, one factor at a time."""
    p = 0.5
    for d, parent in enumerate(bn.TRUE_PARENT):
        own = bn.THETA[c, record[d]]
        if parent < 0:
            p *= own
        else:
            copied = record[d] == (record[parent] + c) % bn.N_VALUES
            p *= strength * copied + (1 - strength) * own
    return p


@pytest.mark.parametrize("strength", [0.0, 0.3, 0.85, 1.0])
def test_exact_posterior_multiplies_the_model_out(strength):
    records = np.array(list(itertools.product(range(3), repeat=5)))
    possible = [r for r in records if sum(_joint(r, c, strength) for c in (0, 1)) > 0][::5]
    got = bn.exact_posterior(possible, strength)
    for record, p in zip(possible, got, strict=True):
        joint = [_joint(record, c, strength) for c in (0, 1)]
        assert p == pytest.approx(joint[1] / sum(joint), rel=1e-12, abs=1e-300)
    assert np.all((got >= 0) & (got <= 1))


def test_a_record_the_model_cannot_produce_has_no_posterior():
    # at strength 1, x2 must be x1 + y (mod 3): x1 = 0, x2 = 0 needs y = 0 and x3 = 0, x4 = 0
    # then; x3 = 2 rules out both classes
    with pytest.raises(ValueError, match=r"record 0 of X, \[0, 0, 2, 0, 0\], has probability 0"):
        bn.exact_posterior([[0, 0, 2, 0, 0]], 1.0)
    with pytest.raises(ValueError, match="shape"):
        bn.exact_posterior([[0, 0, 3, 0, 0]], 0.5)


def test_simulated_records_follow_the_model():
    X, y = bn.simulate(40_000, 0.4, seed=5)
    assert list(X.columns) == list(bn.FEATURES) and X.shape == (40_000, 5)
    assert set(np.unique(X.to_numpy())) == {0, 1, 2} and set(np.unique(y)) == {0, 1}
    # the root is drawn from theta_y
    for c in (0, 1):
        freq = np.bincount(X["x1"][y == c], minlength=3) / np.sum(y == c)
        assert freq == pytest.approx(bn.THETA[c], abs=0.015)
    # a child copies its parent shifted by the class with probability strength, else theta_y
    for d, parent in enumerate(bn.TRUE_PARENT[1:], start=1):
        for c in (0, 1):
            rows = (y == c) & (X.iloc[:, parent] == 0).to_numpy()
            freq = np.bincount(X.iloc[:, d][rows], minlength=3) / rows.sum()
            expected = 0.6 * bn.THETA[c] + 0.4 * (np.arange(3) == c % 3)
            assert freq == pytest.approx(expected, abs=0.03)


def test_simulate_is_deterministic_and_extreme_strengths_are_exact():
    a, b = bn.simulate(300, 0.3, seed=9), bn.simulate(300, 0.3, seed=9)
    pd.testing.assert_frame_equal(a[0], b[0])
    assert np.array_equal(a[1], b[1])
    assert not bn.simulate(300, 0.3, seed=10)[0].equals(a[0])
    X, y = bn.simulate(500, 1.0, seed=2)
    for d, parent in enumerate(bn.TRUE_PARENT):
        if parent >= 0:
            assert np.array_equal(X.iloc[:, d], (X.iloc[:, parent] + y) % 3)
    # at strength 1 the posterior is 0 or 1 (up to the root's ambiguity it is certain)
    p = bn.exact_posterior(X, 1.0)
    assert np.array_equal(p > 0.5, y == 1)


@pytest.mark.parametrize(
    ("n", "strength", "alpha"), [(50, 0.3, 1.0), (400, 0.0, 0.1), (2000, 0.6, 5)]
)
def test_fit_tree_reports_the_fitted_model(n, strength, alpha):
    fit = bn.fit_tree(n, alpha=alpha, strength=strength, seed=3)
    X, y = bn.simulate(n, strength, seed=3)
    model = TreeAugmentedNB(alpha=alpha, min_categories=3).fit(X, y)
    assert fit["parent"] == list(model.parent_)
    assert np.allclose(fit["cmi"], model.conditional_mutual_info_, rtol=0, atol=1e-15)
    assert len(fit["edges"]) == 4
    for row in fit["edges"].itertuples(index=False):
        d, p = bn.FEATURES.index(row[0]), bn.FEATURES.index(row[1])
        assert model.parent_[d] == p and row[2] == pytest.approx(
            model.conditional_mutual_info_[d, p]
        )
        true = bn.TRUE_PARENT[d] == p or bn.TRUE_PARENT[p] == d
        assert row[3] == true
    assert fit["n_true"] == int(fit["edges"]["in the true tree"].sum())


def test_smoothing_never_changes_the_tree():
    # the weights are of raw relative frequencies: alpha only changes the tables
    trees = {tuple(bn.fit_tree(80, alpha=a, strength=0.2, seed=4)["parent"]) for a in (0.01, 1, 10)}
    assert len(trees) == 1


def test_a_strong_dependence_and_many_records_find_the_true_tree():
    assert bn.fit_tree(3200, alpha=1.0, strength=0.6, seed=0)["n_true"] == 4


@pytest.mark.parametrize(
    ("n", "alpha", "strength"), [(25, 1.0, 0.3), (400, 0.1, 0.0), (800, 3.0, 0.9)]
)
def test_model_scores_are_the_fitted_models_on_the_test_set(n, alpha, strength):
    scores = bn.model_scores(n, alpha, strength, seed=1)
    assert list(scores.index) == ["naive Bayes", "TAN", "AODE", "exact posterior"]
    X, y = bn.simulate(n, strength, seed=1)
    X_test, y_test = bn.simulate(bn.TEST_SIZE, strength, bn.TEST_SEED)
    for name, cls in [
        ("naive Bayes", CategoricalNB),
        ("TAN", TreeAugmentedNB),
        ("AODE", AveragedOneDependenceNB),
    ]:
        p = cls(alpha=alpha, min_categories=3).fit(X, y).predict_proba(X_test)[:, 1]
        loss = -np.mean(np.log(np.where(y_test == 1, p, 1 - p)))
        assert scores.loc[name, "log loss (nats)"] == pytest.approx(loss, rel=1e-12)
        assert scores.loc[name, "accuracy"] == pytest.approx(np.mean((p > 0.5) == y_test))
    exact = bn.exact_posterior(X_test, strength)
    assert scores.loc["exact posterior", "accuracy"] == pytest.approx(
        np.mean((exact > 0.5) == y_test)
    )


def test_naive_bayes_is_right_at_strength_zero_and_wrong_at_high_strength():
    # with many records naive Bayes reaches the exact posterior's loss when it is the right
    # model, and stays far from it when the class lives in the pairs
    right = bn.model_scores(3200, 1.0, 0.0)["log loss (nats)"]
    assert right["naive Bayes"] - right["exact posterior"] < 0.01
    wrong = bn.model_scores(3200, 1.0, 0.8)["log loss (nats)"]
    assert wrong["naive Bayes"] - wrong["exact posterior"] > 0.3
    assert wrong["TAN"] - wrong["exact posterior"] < 0.02


def test_learning_curve_averages_the_scores():
    curve = bn.learning_curve([30, 120], alpha=1.0, strength=0.3, repeats=3)
    assert list(curve.index) == [30, 120] and curve.index.name == "records"
    runs = [bn.model_scores(120, 1.0, 0.3, seed) for seed in range(3)]
    for model in ["naive Bayes", "TAN", "AODE"]:
        mean = np.mean([r.loc[model, "log loss (nats)"] for r in runs])
        assert curve.loc[120, ("log loss (nats)", model)] == pytest.approx(mean, rel=1e-12)
    edges = np.mean([bn.fit_tree(120, 1.0, 0.3, seed)["n_true"] for seed in range(3)])
    assert curve.loc[120, ("true edges", "TAN")] == pytest.approx(edges)
    with pytest.raises(TypeError, match="sizes"):
        bn.learning_curve([], repeats=1)


@pytest.mark.parametrize(
    ("n", "alpha", "strength"),
    [(25, 0.01, 0.0), (100, 1.0, 0.3), (3200, 10.0, 0.6), (800, 1.0, 1.0)],
)
def test_panel_draws_the_tree_and_scores_the_setting(n, alpha, strength):
    page = bn.tree_panel(n, alpha, strength)
    fit = bn.fit_tree(n, alpha, strength)
    assert page.startswith("<img alt=") and "<table>" in page
    assert f"{fit['n_true']} of the 4 true edges are found" in page
    for row in fit["edges"].itertuples(index=False):
        assert f"{row[1]} to {row[0]}, {row[2]:.3f} nats" in page
    scores = bn.model_scores(n, alpha, strength)
    assert f"<td>{scores.loc['TAN', 'accuracy']:.3f}</td>" in page
    assert (FLAG_TEXT in page) == (fit["n_true"] < 4)


def test_panel_says_when_a_fitted_model_beats_the_exact_posterior_by_chance():
    # at strength zero with 800 records naive Bayes classifies more test records correctly
    # than the exact posterior does; at strength 0.3 with 100 records no model comes close
    beaten = bn.model_scores(800, 1.0, 0.0)
    assert beaten.loc["naive Bayes", "accuracy"] > beaten.loc["exact posterior", "accuracy"]
    assert "naive Bayes" in bn.tree_panel(800, 1.0, 0.0).split("</table>")[-1]
    assert "best only on average" in bn.tree_panel(800, 1.0, 0.0)
    assert "best only on average" not in bn.tree_panel(100, 1.0, 0.3)


def test_the_explorer_and_its_controls():
    box = bn.tree_explorer(n_train=100, alpha=1.0, strength=0.3)
    n_train, alpha, strength, panel = box.children
    assert [c.description for c in box.children[:3]] == [c.label for c in bn.CONTROLS]
    assert panel.value == bn.tree_panel(100, 1.0, 0.3)
    n_train.value = 800
    assert panel.value == bn.tree_panel(800, 1.0, 0.3)
    with pytest.raises(ValueError, match="n_train"):
        bn.tree_explorer(n_train=123)


def test_draw_tree_draws_the_features_and_edges():
    fig, axes = new_figure(1, 1)
    fit = bn.fit_tree(60, 1.0, 0.3)
    bn.draw_tree(axes[0, 0], fit["cmi"], fit["parent"], title="t")
    texts = [t.get_text() for t in axes[0, 0].texts]
    assert all(name in texts for name in bn.FEATURES)
    assert sum(1 for t in texts if t.startswith("0.")) == 4


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: bn.simulate(0, 0.3, 1), ValueError, "n"),
        (lambda: bn.simulate(10, 1.5, 1), ValueError, "strength"),
        (lambda: bn.simulate(10, 0.3, -1), ValueError, "seed"),
        (lambda: bn.simulate(10.0, 0.3, 1), TypeError, "n must be an int"),
        (lambda: bn.model_scores(10, -1.0, 0.3), ValueError, "alpha"),
        (lambda: bn.exact_posterior([[0] * 5], "strong"), TypeError, "strength"),
        (lambda: bn.learning_curve([10], repeats=0), ValueError, "repeats"),
    ],
)
def test_bad_arguments_get_clear_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_the_chapter_default_is_a_probability():
    assert math.isclose(sum(bn.THETA[0]), 1) and math.isclose(sum(bn.THETA[1]), 1)
