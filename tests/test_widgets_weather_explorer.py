"""Chapter 6's weather explorer (nbcore.widgets.weather_explorer), checked at many settings.

Expected values are computed here from the counts of the weather table with exact fractions,
and against scikit-learn's CategoricalNB (a test-only oracle) on ordinal-encoded data.
"""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB as SklearnCategoricalNB
from sklearn.preprocessing import OrdinalEncoder

import nbcore
from nbcore import widgets
from nbcore.datasets import load_weather

# Counts of the test day's values (sunny, cool, high, windy) in each class, read off the
# 14-day table: yes has 9 days, no has 5.
N = {"yes": 9, "no": 5}
DAY_COUNTS = {"yes": [2, 3, 3, 3], "no": [3, 1, 4, 3]}
K = [3, 3, 2, 2]  # values of outlook, temperature, humidity, windy


def exact_score(c, alpha, prior):
    alpha = Fraction(alpha)
    score = Fraction(prior)
    for count, k in zip(DAY_COUNTS[c], K, strict=True):
        score *= (count + alpha) / (N[c] + alpha * k)
    return score


def exact_posterior_yes(alpha, prior_yes):
    yes = exact_score("yes", alpha, prior_yes)
    no = exact_score("no", alpha, 1 - Fraction(prior_yes))
    return yes / (yes + no)


def test_scores_without_smoothing_are_the_worked_example():
    scores = widgets.weather_posterior(alpha=0.0)["scores"]
    assert scores["yes"] == pytest.approx(1 / 189, rel=1e-14)
    assert scores["no"] == pytest.approx(18 / 875, rel=1e-14)
    # the literal arithmetic of the lecture notes
    assert scores["yes"] == pytest.approx(9 / 14 * 2 / 9 * 3 / 9 * 3 / 9 * 3 / 9, rel=1e-14)
    assert scores["no"] == pytest.approx(5 / 14 * 3 / 5 * 1 / 5 * 4 / 5 * 3 / 5, rel=1e-14)


def test_default_prior_is_the_class_frequency():
    a = widgets.weather_posterior(alpha=0.7)
    b = widgets.weather_posterior(alpha=0.7, prior_yes=9 / 14)
    assert a["posterior"]["yes"] == pytest.approx(b["posterior"]["yes"], rel=1e-14)


@pytest.mark.parametrize("alpha", [0, 0.25, 1, 2.5, 7, 20])
@pytest.mark.parametrize("prior_yes", [0.01, 0.3, 0.5, Fraction(9, 14), 0.875, 0.99])
def test_posterior_matches_exact_fractions(alpha, prior_yes):
    state = widgets.weather_posterior(float(alpha), float(prior_yes))
    expected = float(exact_posterior_yes(alpha, prior_yes))
    assert state["posterior"]["yes"] == pytest.approx(expected, rel=1e-12)
    assert state["posterior"].sum() == pytest.approx(1.0, rel=1e-14)
    assert state["prediction"] == ("yes" if expected > 0.5 else "no")
    ratio = exact_score("yes", alpha, prior_yes) / exact_score("no", alpha, 1 - Fraction(prior_yes))
    assert state["ratio"] == pytest.approx(float(ratio), rel=1e-12)


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("prior_yes", [0.2, 9 / 14, 0.9])
def test_posterior_matches_sklearn(alpha, prior_yes):
    data = load_weather()
    X, y = data.drop(columns="play"), data["play"]
    encoder = OrdinalEncoder().fit(X)
    with np.errstate(divide="ignore"):  # log(0) of unseen pairs when alpha = 0
        model = SklearnCategoricalNB(
            alpha=alpha, force_alpha=True, class_prior=[1 - prior_yes, prior_yes]
        ).fit(encoder.transform(X), y)
    day = encoder.transform(pd.DataFrame([widgets.WEATHER_TEST_DAY]))
    expected = dict(zip(model.classes_, model.predict_proba(day)[0], strict=True))
    state = widgets.weather_posterior(alpha, prior_yes)
    assert state["posterior"]["yes"] == pytest.approx(expected["yes"], rel=1e-10)
    assert state["posterior"]["no"] == pytest.approx(expected["no"], rel=1e-10)


@pytest.mark.parametrize("alpha", [0.0, 0.5, 2.0])
@pytest.mark.parametrize("prior_yes", [None, 0.2, 0.9])
def test_scores_are_nbcores_categorical_nb(alpha, prior_yes):
    data = load_weather()
    X, y = data.drop(columns="play"), data["play"]
    prior = None if prior_yes is None else [1 - prior_yes, prior_yes]
    model = nbcore.CategoricalNB(alpha=alpha, class_prior=prior).fit(X, y)
    day = pd.DataFrame([widgets.WEATHER_TEST_DAY])
    joint = dict(zip(model.classes_, model.predict_joint_log_proba(day)[0], strict=True))
    proba = dict(zip(model.classes_, model.predict_proba(day)[0], strict=True))
    state = widgets.weather_posterior(alpha, prior_yes)
    for c in ("yes", "no"):
        assert math.log(state["scores"][c]) == pytest.approx(joint[c], rel=1e-14)
        assert state["posterior"][c] == pytest.approx(proba[c], rel=1e-14)


def test_zero_count_rules_a_class_out_without_smoothing():
    overcast_day = dict(widgets.WEATHER_TEST_DAY, outlook="overcast")
    state = widgets.weather_posterior(0.0, day=overcast_day)
    assert state["posterior"]["no"] == 0.0
    assert state["ratio"] == math.inf
    assert state["prediction"] == "yes"
    smoothed = widgets.weather_posterior(1.0, day=overcast_day)
    assert 0.0 < smoothed["posterior"]["no"] < 1.0


def test_large_alpha_tends_to_the_prior():
    state = widgets.weather_posterior(1e7, 0.3)
    assert state["posterior"]["yes"] == pytest.approx(0.3, abs=1e-5)


def test_posterior_rises_with_alpha_for_the_test_day():
    sweep = widgets.weather_posterior_sweep(np.linspace(0, 20, 41), [9 / 14])
    values = sweep.iloc[:, 0].to_numpy()
    assert np.all(np.diff(values) > 0)


def test_sweep_is_the_posterior_on_a_grid():
    alphas, priors = [0, 1, 5], [0.3, 0.5, 0.9]
    sweep = widgets.weather_posterior_sweep(alphas, priors)
    assert sweep.shape == (3, 3)
    assert list(sweep.index) == [0.0, 1.0, 5.0]
    assert list(sweep.columns) == priors
    for a in alphas:
        for p in priors:
            assert sweep.loc[float(a), p] == pytest.approx(float(exact_posterior_yes(a, p)))


def test_both_scores_zero_is_a_clear_error():
    # overcast is never "no" and cool never "yes": with alpha = 0 both products are 0
    data = pd.DataFrame(
        {
            "outlook": ["sunny", "overcast", "sunny", "overcast"],
            "temperature": ["cool", "hot", "cool", "hot"],
            "play": ["no", "yes", "no", "yes"],
        }
    )
    day = {"outlook": "overcast", "temperature": "cool"}
    with pytest.raises(ValueError, match="alpha > 0"):
        widgets.weather_posterior(0.0, day=day, data=data)
    yes = widgets.weather_posterior(1.0, day=day, data=data)["posterior"]["yes"]
    assert yes == pytest.approx(0.5, rel=1e-14)


def test_a_value_never_seen_is_named():
    data = pd.DataFrame({"outlook": ["sunny", "rainy", "rainy"], "play": ["yes", "no", "yes"]})
    with pytest.raises(ValueError, match="unknown category 'overcast' in feature 'outlook'"):
        widgets.weather_posterior(1.0, day={"outlook": "overcast"}, data=data)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"alpha": -1.0}, ValueError, "alpha must be a finite number >= 0, got -1.0"),
        ({"alpha": float("nan")}, ValueError, "alpha must be a finite number"),
        ({"alpha": "1"}, TypeError, "alpha must be a real number, got str"),
        ({"alpha": True}, TypeError, "alpha must be a real number, got bool"),
        ({"prior_yes": 1.5}, ValueError, r"prior_yes must be a probability in \[0, 1\], got 1.5"),
        ({"prior_yes": "x"}, TypeError, "prior_yes must be a real number, got str"),
        ({"day": {"outlook": "sunny"}}, ValueError, "day must give a value for each feature"),
        ({"data": [[1, 2]]}, TypeError, "data must be a pandas DataFrame, got list"),
        ({"data": pd.DataFrame({"a": [1]})}, ValueError, "'play' column"),
        ({"data": pd.DataFrame({"a": [1, 2], "play": ["yes", "yes"]})}, ValueError, "both"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        widgets.weather_posterior(**kwargs)


def test_sweep_rejects_bad_grid():
    with pytest.raises(ValueError, match="alpha must be"):
        widgets.weather_posterior_sweep([0, -2], [0.5])
    with pytest.raises(ValueError, match="prior_yes must be"):
        widgets.weather_posterior_sweep([0], [0.5, 2.0])


def test_panel_shows_the_numbers_and_the_decision():
    text = widgets.weather_panel(0.0, 9 / 14)
    assert "0.2046" in text and "0.7954" in text
    assert "play = no" in text
    assert "alpha = 0.00, prior of yes = 0.643" in text
    assert "<script" not in text and "http" not in text
    assert "play = yes" in widgets.weather_panel(0.0, 0.95)
    state = widgets.weather_posterior(2.5, 0.3)
    assert f"{state['posterior']['yes']:.4f}" in widgets.weather_panel(2.5, 0.3)


def test_explorer_recomputes_when_a_slider_moves():
    box = widgets.weather_explorer(alpha=0.0, prior_yes=9 / 14)
    alpha_slider, prior_slider, panel = box.children
    assert alpha_slider.min == 0.0 and alpha_slider.max >= 10.0
    assert 0.0 < prior_slider.min and prior_slider.max < 1.0
    # starts exactly at the data's prior, which is on the slider's grid of 28ths: the panel
    # shows the setting the sliders show, and the numbers of the chapter's table and text
    assert (alpha_slider.value, prior_slider.value) == (0.0, 9 / 14)
    assert prior_slider.step == 1 / 28
    assert panel.value == widgets.weather_panel(0.0, 9 / 14)
    assert "0.2046" in panel.value
    for alpha, prior in [(1.0, 9 / 14), (1.0, 0.3), (12.5, 0.6), (0.0, 0.9)]:
        alpha_slider.value = alpha
        prior_slider.value = prior
        a, p = alpha_slider.value, prior_slider.value
        assert panel.value == widgets.weather_panel(a, p)
    assert "play = yes" in panel.value  # prior 0.9 > 0.875 tips the decision


def test_explorer_rejects_a_start_outside_the_sliders():
    with pytest.raises(ValueError, match="prior_yes"):
        widgets.weather_explorer(prior_yes=1.2)
    with pytest.raises(ValueError, match="prior_yes"):
        widgets.weather_explorer(prior_yes=0.0)
    with pytest.raises(ValueError, match="alpha"):
        widgets.weather_explorer(alpha=-0.5)
    with pytest.raises(ValueError, match="alpha"):
        widgets.weather_explorer(alpha=55.0)
    alpha_slider, prior_slider, _ = widgets.weather_explorer(alpha=3.04, prior_yes=0.3).children
    assert alpha_slider.value == pytest.approx(3.0) and prior_slider.value == pytest.approx(8 / 28)
