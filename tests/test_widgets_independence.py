"""The conditional-independence explorer's pure functions, checked at many settings.

Expected values are computed here independently: by enumerating the eight days of the storm
model with exact fractions, by sampling, and with the law of total covariance in closed form.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB

from nbcore import BernoulliNB
from nbcore.widgets import independence as ind

SETTINGS = [
    (0.3, (0.2, 0.9), (0.05, 0.7)),  # the chapter's model
    (0.5, (0.1, 0.9), (0.1, 0.9)),
    (0.2, (0.1, 0.8), (0.02, 0.5)),  # the model of exercise 2.1
    (0.01, (0.7, 0.3), (0.4, 0.6)),  # rain less likely in a storm: negative covariance
    (0.9, (0.5, 0.5), (0.1, 0.95)),  # rain ignores the storm
    (0.0, (0.2, 0.9), (0.05, 0.7)),  # never a storm
    (1.0, (0.2, 0.9), (0.05, 0.7)),  # always a storm
    (0.37, (0.0, 1.0), (1.0, 0.0)),  # deterministic links
]


def enumerate_joint(p_storm, rain, lightning):
    """p(s, r, l) as a dict of exact fractions, written out from the product of the model."""
    pi = Fraction(p_storm)
    table = {}
    for s, r, lt in itertools.product((0, 1), repeat=3):
        p_s = pi if s else 1 - pi
        p_r = Fraction(rain[s]) if r else 1 - Fraction(rain[s])
        p_l = Fraction(lightning[s]) if lt else 1 - Fraction(lightning[s])
        table[s, r, lt] = p_s * p_r * p_l
    return table


def mutual_information(p):
    """I(X; Y) from a 2x2 array of floats, in nats."""
    p = np.asarray(p, dtype=float)
    outer = np.outer(p.sum(axis=1), p.sum(axis=0))
    seen = p > 0
    return float(np.sum(p[seen] * np.log(p[seen] / outer[seen])))


@pytest.mark.parametrize(("p_storm", "rain", "lightning"), SETTINGS)
def test_tables_match_enumeration(p_storm, rain, lightning):
    t = ind.storm_tables(p_storm, rain, lightning)
    table = enumerate_joint(p_storm, rain, lightning)
    assert sum(table.values()) == 1
    for (s, r, lt), p in table.items():
        assert t["joint"][s, r, lt] == pytest.approx(float(p), abs=1e-15)
    marginal = {(r, lt): table[0, r, lt] + table[1, r, lt] for r in (0, 1) for lt in (0, 1)}
    p_rain1 = marginal[1, 0] + marginal[1, 1]
    p_light1 = marginal[0, 1] + marginal[1, 1]
    for (r, lt), p in marginal.items():
        assert t["marginal"][r, lt] == pytest.approx(float(p), abs=1e-15)
        p_r = p_rain1 if r else 1 - p_rain1
        p_l = p_light1 if lt else 1 - p_light1
        assert t["product"][r, lt] == pytest.approx(float(p_r * p_l), abs=1e-15)
    assert t["covariance"] == pytest.approx(float(marginal[1, 1] - p_rain1 * p_light1), abs=1e-15)
    assert t["mutual_information"] == pytest.approx(mutual_information(t["marginal"]), abs=1e-12)
    assert t["marginal"].sum() == pytest.approx(1.0, abs=1e-15)
    assert t["conditional"].sum(axis=(1, 2)) == pytest.approx([1.0, 1.0], abs=1e-15)


@pytest.mark.parametrize(("p_storm", "rain", "lightning"), SETTINGS)
def test_covariance_is_the_law_of_total_covariance(p_storm, rain, lightning):
    t = ind.storm_tables(p_storm, rain, lightning)
    closed = p_storm * (1 - p_storm) * (rain[1] - rain[0]) * (lightning[1] - lightning[0])
    assert t["covariance"] == pytest.approx(closed, abs=1e-15)


@pytest.mark.parametrize(("p_storm", "rain", "lightning"), SETTINGS)
def test_conditional_measures_are_exactly_zero(p_storm, rain, lightning):
    t = ind.storm_tables(p_storm, rain, lightning)
    assert list(t["conditional_covariance"]) == [0.0, 0.0]
    assert list(t["conditional_mutual_information"]) == [0.0, 0.0]
    assert np.array_equal(t["conditional"], t["conditional_product"])
    for s in (0, 1):
        # p(r = 1, l = 1 | s) = p(r = 1 | s) p(l = 1 | s) read straight from the model
        assert t["conditional"][s, 1, 1] == pytest.approx(rain[s] * lightning[s], abs=1e-15)


def test_chapter_model_numbers():
    t = ind.storm_tables(**ind.STORM_MODEL)
    # p(r = 1, l = 1) = 0.3 * 0.9 * 0.7 + 0.7 * 0.2 * 0.05 = 0.196
    assert t["marginal"][1, 1] == pytest.approx(0.196, abs=1e-15)
    # p(r = 1) = 0.41, p(l = 1) = 0.245
    assert t["product"][1, 1] == pytest.approx(0.41 * 0.245, abs=1e-15)
    assert t["covariance"] == pytest.approx(0.196 - 0.41 * 0.245, abs=1e-15)
    assert t["mutual_information"] > 0.1
    # posterior of a storm on a day with rain and lightning: 0.189 / 0.196
    assert t["posterior"][1, 1] == pytest.approx(0.189 / 0.196, rel=1e-14)


@pytest.mark.parametrize(("p_storm", "rain", "lightning"), SETTINGS[:5])
def test_posterior_is_bayes_rule_and_the_naive_product(p_storm, rain, lightning):
    t = ind.storm_tables(p_storm, rain, lightning)
    table = enumerate_joint(p_storm, rain, lightning)
    for r, lt in itertools.product((0, 1), repeat=2):
        naive = [
            (p_storm if c else 1 - p_storm)
            * (rain[c] if r else 1 - rain[c])
            * (lightning[c] if lt else 1 - lightning[c])
            for c in (0, 1)
        ]
        expected = float(table[1, r, lt] / (table[0, r, lt] + table[1, r, lt]))
        assert t["posterior"][r, lt] == pytest.approx(expected, rel=1e-13)
        assert t["posterior"][r, lt] == pytest.approx(naive[1] / sum(naive), rel=1e-12)


def test_posterior_is_nan_for_an_impossible_day():
    t = ind.storm_tables(0.5, (0.0, 0.0), (0.3, 0.6))  # it never rains
    assert np.isnan(t["posterior"][1]).all()
    assert np.isfinite(t["posterior"][0]).all()


def test_samples_agree_with_the_exact_tables():
    rng = np.random.default_rng(12345)
    p_storm, rain, lightning = 0.4, (0.15, 0.85), (0.1, 0.6)
    n = 200_000
    s = (rng.random(n) < p_storm).astype(int)
    r = (rng.random(n) < np.array(rain)[s]).astype(int)
    lt = (rng.random(n) < np.array(lightning)[s]).astype(int)
    t = ind.storm_tables(p_storm, rain, lightning)
    sample_cov = np.mean(r * lt) - r.mean() * lt.mean()
    assert sample_cov == pytest.approx(t["covariance"], abs=4e-3)
    for value in (0, 1):
        m = s == value
        c = np.mean(r[m] * lt[m]) - r[m].mean() * lt[m].mean()
        assert abs(c) < 5e-3


def test_dependence_appears_only_with_both_links_and_uncertainty():
    assert ind.storm_tables(0.5, (0.3, 0.3), (0.1, 0.9))["mutual_information"] == 0.0
    assert ind.storm_tables(0.5, (0.1, 0.9), (0.4, 0.4))["covariance"] == 0.0
    assert ind.storm_tables(0.0, (0.1, 0.9), (0.1, 0.9))["mutual_information"] == 0.0
    assert ind.storm_tables(0.5, (0.1, 0.9), (0.1, 0.9))["mutual_information"] > 0.0


def test_symmetric_link():
    assert ind.symmetric_link(0.0) == (0.5, 0.5)
    assert ind.symmetric_link(1.0) == (0.0, 1.0)
    assert ind.symmetric_link(0.5) == (0.25, 0.75)
    with pytest.raises(ValueError, match="strength must be a probability"):
        ind.symmetric_link(1.5)


def test_sweep_is_the_closed_form_on_a_grid():
    p_storms, strengths = [0.0, 0.2, 0.5, 0.8, 1.0], [0.0, 0.3, 1.0]
    sweep = ind.dependence_sweep(p_storms, strengths)
    assert sweep.shape == (15, 6)
    assert list(sweep.index.names) == ["p_storm", "strength"]
    for p in p_storms:
        for s in strengths:
            row = sweep.loc[(p, s)]
            assert row["covariance"] == pytest.approx(p * (1 - p) * s**2, abs=1e-15)
            assert row["covariance | no storm"] == 0.0
            assert row["covariance | storm"] == 0.0
            assert row["mutual information | no storm"] == 0.0
            assert row["mutual information | storm"] == 0.0
    # a perfect link at p = 1/2 makes lightning a copy of rain: I = log 2
    assert sweep.loc[(0.5, 1.0), "mutual information"] == pytest.approx(math.log(2), rel=1e-14)


def test_sweep_rejects_bad_grid():
    with pytest.raises(ValueError, match="p_storm must be a probability"):
        ind.dependence_sweep([0.5, 1.2], [0.5])
    with pytest.raises(ValueError, match="at least one value"):
        ind.dependence_sweep([], [0.5])


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((1.5,), ValueError, r"p_storm must be a probability in \[0, 1\], got 1.5"),
        ((float("nan"),), ValueError, "p_storm must be a probability"),
        (("0.3",), TypeError, "p_storm must be a real number, got str"),
        ((True,), TypeError, "p_storm must be a real number, got bool"),
        ((0.3, (0.2,)), ValueError, "rain must hold 2 values"),
        ((0.3, 0.2), TypeError, "rain must be a pair"),
        ((0.3, (0.2, 0.9), (0.1, -0.1)), ValueError, r"lightning\[1\] must be a probability"),
    ],
)
def test_bad_input_is_named(args, error, match):
    with pytest.raises(error, match=match):
        ind.storm_tables(*args)


def panel_at(p_storm, rain, lightning):
    return ind.dependence_panel(p_storm, *rain, *lightning)


@pytest.mark.parametrize(("p_storm", "rain", "lightning"), SETTINGS[:5])
def test_panel_shows_the_numbers(p_storm, rain, lightning):
    text = panel_at(p_storm, rain, lightning)
    t = ind.storm_tables(p_storm, rain, lightning)
    assert f"{t['marginal'][1, 1]:.4f} vs {t['product'][1, 1]:.4f}" in text
    assert f"{t['covariance']:.4f}" in text and f"{t['mutual_information']:.4f}" in text
    assert f"{t['conditional'][1, 0, 1]:.4f}" in text
    assert "<script" not in text and "http" not in text
    assert "0.1960 vs 0.1004" in panel_at(**ind.STORM_MODEL)  # p(1, 1), p(rain) p(lightning)


def test_explorer_recomputes_when_a_slider_moves():
    box = ind.independence_explorer(**ind.STORM_MODEL)
    *sliders, panel = box.children
    assert [s.description for s in sliders] == [c.label for c in ind.CONTROLS]
    assert sliders[2].description == "p(rain | storm)"
    assert [s.value for s in sliders] == [0.3, 0.2, 0.9, 0.05, 0.7]
    assert panel.value == panel_at(**ind.STORM_MODEL)
    for values in [(0.5, 0.2, 0.9, 0.05, 0.7), (0.5, 0.3, 0.3, 0.05, 0.7), (0.1, 0.0, 1.0, 1, 0)]:
        for slider, v in zip(sliders, values, strict=True):
            slider.value = v
        p, a0, a1, b0, b1 = (s.value for s in sliders)
        assert panel.value == panel_at(p, (a0, a1), (b0, b1))
    with pytest.raises(ValueError, match="p_storm"):
        ind.independence_explorer(p_storm=2.0)
    with pytest.raises(TypeError, match="rain must be a pair"):
        ind.independence_explorer(rain=0.5)


def weighted_records(joint):
    """The eight (y, x1, x2) cells of a joint table as records, weighted by their probability."""
    cells = list(itertools.product((0, 1), repeat=3))
    X = np.array([[x1, x2] for _, x1, x2 in cells])
    return X, np.array([y for y, _, _ in cells]), np.array([joint[c] for c in cells])


GRID = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])


@pytest.mark.parametrize("setting", SETTINGS[:5])
def test_posterior_is_bernoulli_nb_fitted_to_the_model(setting):
    """The storm model is naive Bayes: BernoulliNB fitted to its own table gives its posterior."""
    tables = ind.storm_tables(*setting)
    X, y, w = weighted_records(tables["joint"])
    model = BernoulliNB(alpha=0.0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [1 - setting[0], setting[0]])
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), np.transpose(setting[1:]))
    expected = model.predict_proba(GRID)[:, 1].reshape(2, 2)
    np.testing.assert_allclose(tables["posterior"], expected, rtol=1e-12)
    measured = ind.joint_dependence(tables["joint"])["naive_posterior"]
    np.testing.assert_allclose(measured, expected, rtol=1e-12)


def test_naive_posterior_of_a_dependent_table_is_scikit_learns():
    rng = np.random.default_rng(4)
    for _ in range(5):
        joint = rng.random((2, 2, 2))
        joint /= joint.sum()
        X, y, w = weighted_records(joint)
        oracle = SkBernoulliNB(alpha=1e-10).fit(X, y, sample_weight=w)
        expected = oracle.predict_proba(GRID)[:, 1].reshape(2, 2)
        np.testing.assert_allclose(
            ind.joint_dependence(joint)["naive_posterior"], expected, rtol=1e-8
        )


def test_tables_are_plain_arrays():
    t = ind.storm_tables()
    assert t["joint"].shape == (2, 2, 2) and t["joint"].dtype == float
    assert t["marginal"].shape == (2, 2)
    assert isinstance(t["covariance"], float)
    assert isinstance(ind.dependence_sweep([0.5], [0.5]), pd.DataFrame)


# --------------------------------------------------------------------------- any joint table


@pytest.mark.parametrize("setting", SETTINGS[:5])
def test_joint_dependence_agrees_with_storm_tables(setting):
    tables = ind.storm_tables(*setting)
    measured = ind.joint_dependence(tables["joint"])
    assert measured["covariance"] == pytest.approx(tables["covariance"], abs=1e-15)
    assert measured["mutual_information"] == pytest.approx(tables["mutual_information"], abs=1e-12)
    np.testing.assert_allclose(
        measured["conditional_covariance"], tables["conditional_covariance"], atol=1e-15
    )
    # the storm model is conditionally independent: naive Bayes with its margins is exact
    np.testing.assert_allclose(measured["naive_posterior"], tables["posterior"], rtol=1e-12)


def test_joint_dependence_of_xor_is_independent_but_not_given_the_class():
    # x1, x2 fair coins, y = x1 xor x2: p(y, x1, x2) = 1/4 on the four consistent cells
    joint = np.zeros((2, 2, 2))
    for x1, x2 in itertools.product((0, 1), repeat=2):
        joint[x1 ^ x2, x1, x2] = 0.25
    measured = ind.joint_dependence(joint)
    assert measured["covariance"] == 0 and measured["mutual_information"] == 0
    # within a class x2 is fixed by x1: covariance -1/4 for y = 1, +1/4 for y = 0; MI log 2
    np.testing.assert_allclose(measured["conditional_covariance"], [0.25, -0.25])
    np.testing.assert_allclose(measured["conditional_mutual_information"], [math.log(2)] * 2)
    np.testing.assert_array_equal(measured["posterior"], [[0, 1], [1, 0]])
    # every margin p(x_d | y) is one half, so naive Bayes says one half everywhere
    np.testing.assert_allclose(measured["naive_posterior"], np.full((2, 2), 0.5))


def test_joint_dependence_rejects_a_table_that_is_not_a_distribution():
    with pytest.raises(ValueError, match="shape"):
        ind.joint_dependence(np.full((2, 2), 0.25))
    with pytest.raises(ValueError, match="sum to 1"):
        ind.joint_dependence(np.full((2, 2, 2), 0.2))
