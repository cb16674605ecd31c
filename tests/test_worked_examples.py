"""The worked examples of the lecture notes, reproduced as literal arithmetic.

Every expected value is computed by hand right here, from the tables of the notes, never
copied from nbcore's output: the weather example (Shimodaira, nominal and numeric data), the
height/weight table (Murphy) and two small text examples (Bernoulli and multinomial).
"""

import math

import numpy as np
import pandas as pd
import pytest

from nbcore import BernoulliNB, CategoricalNB, GaussianNB, MixedNB, MultinomialNB
from nbcore.datasets import load_height_weight, load_weather, load_weather_numeric

FEATURES = ["outlook", "temperature", "humidity", "windy"]


def weather_row(outlook=None, temperature=None, humidity=None, windy=None):
    """One day as a DataFrame row; None means "not known"."""
    return pd.DataFrame([[outlook, temperature, humidity, windy]], columns=FEATURES)


@pytest.fixture(scope="module")
def weather_mle():
    weather = load_weather()
    return CategoricalNB(alpha=0).fit(weather[FEATURES], weather.play)


# ---------------------------------------------------------------------------------------------
# Weather, nominal (Shimodaira, section 6.2 and its exercises)


def test_weather_counts_and_relative_frequencies(weather_mle):
    model = weather_mle
    assert list(model.classes_) == ["no", "yes"]
    np.testing.assert_array_equal(model.class_count_, [5, 9])
    # Table 6.2, outlook: sunny 2 / 3, overcast 4 / 0, rainy 3 / 2 (yes / no)
    assert list(model.categories_[0]) == ["overcast", "rainy", "sunny"]
    np.testing.assert_array_equal(model.category_count_[0], [[0, 2, 3], [4, 3, 2]])
    # Table 6.3, P(T = hot | yes) = 2/9; categories cool, hot, mild
    np.testing.assert_allclose(
        np.exp(model.feature_log_prob_[1]), [[1 / 5, 2 / 5, 2 / 5], [3 / 9, 2 / 9, 4 / 9]]
    )
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [5 / 14, 9 / 14])


def test_weather_sunny_cool_high_windy(weather_mle):
    x = weather_row("sunny", "cool", "high", True)
    yes = 9 / 14 * 2 / 9 * 3 / 9 * 3 / 9 * 3 / 9  # about 0.0053
    no = 5 / 14 * 3 / 5 * 1 / 5 * 4 / 5 * 3 / 5  # about 0.0206
    np.testing.assert_allclose(np.exp(weather_mle.predict_joint_log_proba(x)), [[no, yes]])
    np.testing.assert_allclose(weather_mle.predict_proba(x), [[no / (no + yes), yes / (no + yes)]])
    # the ratio of the two posteriors, "about 0.26" in the notes
    ratio = np.exp(np.diff(weather_mle.predict_joint_log_proba(x))[0, 0])
    assert ratio == pytest.approx(yes / no, rel=1e-12)
    assert round(ratio, 2) == 0.26
    assert weather_mle.predict(x)[0] == "no"


def test_weather_exercise_a_nothing_known_gives_the_prior(weather_mle):
    np.testing.assert_allclose(weather_mle.predict_proba(weather_row()), [[5 / 14, 9 / 14]])


def test_weather_exercise_b_only_outlook_rainy(weather_mle):
    yes = 9 / 14 * 3 / 9
    no = 5 / 14 * 2 / 5
    p = weather_mle.predict_proba(weather_row(outlook="rainy"))
    np.testing.assert_allclose(p, [[no / (yes + no), yes / (yes + no)]])
    assert p[0, 1] == pytest.approx(3 / 5)


def test_weather_exercise_c_rainy_hot_normal_calm(weather_mle):
    yes = 9 / 14 * 3 / 9 * 2 / 9 * 6 / 9 * 6 / 9
    no = 5 / 14 * 2 / 5 * 2 / 5 * 1 / 5 * 2 / 5
    p = weather_mle.predict_proba(weather_row("rainy", "hot", "normal", False))
    np.testing.assert_allclose(p, [[no / (yes + no), yes / (yes + no)]])


def test_weather_missing_values_as_nan_and_none_are_the_same(weather_mle):
    with_none = weather_row("rainy", None, None, None)
    with_nan = weather_row("rainy", np.nan, np.nan, np.nan)
    np.testing.assert_array_equal(
        weather_mle.predict_proba(with_none), weather_mle.predict_proba(with_nan)
    )


def test_weather_overcast_rules_out_no_without_smoothing(weather_mle):
    x = weather_row("overcast", "hot", "high", False)
    assert weather_mle.predict_joint_log_proba(x)[0, 0] == -np.inf  # P(overcast | no) = 0/5
    np.testing.assert_array_equal(weather_mle.predict_proba(x), [[0.0, 1.0]])


def test_weather_laplace_smoothing():
    weather = load_weather()
    model = CategoricalNB(alpha=1).fit(weather[FEATURES], weather.play)
    x = weather_row("sunny", "cool", "high", True)
    # (count + 1) / (N_c + number of values)
    yes = 9 / 14 * (2 + 1) / (9 + 3) * (3 + 1) / (9 + 3) * (3 + 1) / (9 + 2) * (3 + 1) / (9 + 2)
    no = 5 / 14 * (3 + 1) / (5 + 3) * (1 + 1) / (5 + 3) * (4 + 1) / (5 + 2) * (3 + 1) / (5 + 2)
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(x)), [[no, yes]])
    overcast_no = (0 + 1) / (5 + 3)
    assert np.exp(model.feature_log_prob_[0][0, 0]) == pytest.approx(overcast_no)


# ---------------------------------------------------------------------------------------------
# Weather, numeric (Witten & Frank): Gaussian temperature and humidity, categorical outlook,
# Bernoulli windy


def _normal_pdf(x, values):
    """N(x; mean, variance) with the maximum likelihood (1/N) variance of values."""
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / len(values)
    return math.exp(-((x - mean) ** 2) / (2 * variance)) / math.sqrt(2 * math.pi * variance)


def test_numeric_weather_mixed_model_by_hand():
    weather = load_weather_numeric()
    model = MixedNB(var_smoothing=0.0).fit(weather[FEATURES], weather.play)
    assert model.kinds_ == {
        "outlook": "categorical",
        "temperature": "gaussian",
        "humidity": "gaussian",
        "windy": "bernoulli",
    }
    temperature_yes = [83, 70, 68, 64, 69, 75, 75, 72, 81]
    temperature_no = [85, 80, 65, 72, 71]
    humidity_yes = [86, 96, 80, 65, 70, 80, 70, 90, 75]
    humidity_no = [85, 90, 70, 95, 91]
    assert model.gaussian_.theta_[1, 0] == pytest.approx(sum(temperature_yes) / 9)  # 73
    assert model.gaussian_.theta_[0, 1] == pytest.approx(sum(humidity_no) / 5)  # 86.2

    x = weather_row("sunny", 66, 90, True)
    # alpha = 1: P(sunny | c) = (count + 1) / (N_c + 3), P(windy | c) = (count + 1) / (N_c + 2)
    sunny_yes, windy_yes = (2 + 1) / (9 + 3), (3 + 1) / (9 + 2)
    sunny_no, windy_no = (3 + 1) / (5 + 3), (3 + 1) / (5 + 2)
    temperature = _normal_pdf(66, temperature_yes), _normal_pdf(66, temperature_no)
    humidity = _normal_pdf(90, humidity_yes), _normal_pdf(90, humidity_no)
    yes = 9 / 14 * sunny_yes * temperature[0] * humidity[0] * windy_yes
    no = 5 / 14 * sunny_no * temperature[1] * humidity[1] * windy_no
    np.testing.assert_allclose(model.predict_joint_log_proba(x), np.log([[no, yes]]), rtol=1e-12)
    np.testing.assert_allclose(model.predict_proba(x), [[no / (yes + no), yes / (yes + no)]])


# ---------------------------------------------------------------------------------------------
# Height and weight (Murphy): Gaussian naive Bayes on six rows


@pytest.fixture(scope="module")
def people():
    return load_height_weight()


def test_height_weight_means_and_variances_by_hand(people):
    model = GaussianNB(var_smoothing=0.0).fit(people[["height", "weight"]], people.sex)
    assert list(model.classes_) == ["f", "m"]
    np.testing.assert_allclose(
        model.theta_,
        [[(68 + 67 + 60) / 3, (140 + 142 + 120) / 3], [(67 + 79 + 71) / 3, (125 + 210 + 150) / 3]],
    )
    assert model.theta_[1, 0] == pytest.approx(217 / 3)  # 72.33, not the notes' 71.66
    # maximum likelihood variances, 1/N_c times the squared deviations from the mean
    var_f_height = ((68 - 65) ** 2 + (67 - 65) ** 2 + (60 - 65) ** 2) / 3
    var_m_height = ((67 - 217 / 3) ** 2 + (79 - 217 / 3) ** 2 + (71 - 217 / 3) ** 2) / 3
    var_f_weight = ((140 - 134) ** 2 + (142 - 134) ** 2 + (120 - 134) ** 2) / 3
    var_m_weight = ((125 - 485 / 3) ** 2 + (210 - 485 / 3) ** 2 + (150 - 485 / 3) ** 2) / 3
    np.testing.assert_allclose(
        model.var_, [[var_f_height, var_f_weight], [var_m_height, var_m_weight]], rtol=1e-12
    )
    assert var_m_height == pytest.approx(224 / 9)
    np.testing.assert_allclose(model.class_prior_, [0.5, 0.5])


def test_height_weight_notes_printed_parameters_disagree_with_their_table(people):
    model = GaussianNB(var_smoothing=0.0).fit(people[["height", "weight"]], people.sex)
    # the notes print mu = 71.66 (male height) and 65.07 (female height) for these six rows
    assert abs(model.theta_[1, 0] - 71.66) > 0.5
    assert abs(model.theta_[0, 0] - 65.07) > 0.05


def test_height_weight_epsilon_is_var_smoothing_times_the_largest_variance(people):
    weights = [125, 210, 150, 140, 142, 120]
    mean = sum(weights) / 6
    largest = sum((w - mean) ** 2 for w in weights) / 6  # weight varies more than height
    model = GaussianNB().fit(people[["height", "weight"]], people.sex)
    assert model.epsilon_ == pytest.approx(1e-9 * largest, rel=1e-12)


@pytest.mark.parametrize(("height", "weight"), [(72, 180), (60, 100), (68, 155)])
def test_height_weight_posterior_with_equal_priors(people, height, weight):
    model = GaussianNB(priors=[0.5, 0.5], var_smoothing=0.0)
    model.fit(people[["height", "weight"]], people.sex)
    f = people[people.sex == "f"]
    m = people[people.sex == "m"]
    p_f = _normal_pdf(height, list(f.height)) * _normal_pdf(weight, list(f.weight))
    p_m = _normal_pdf(height, list(m.height)) * _normal_pdf(weight, list(m.weight))
    x = pd.DataFrame([[height, weight]], columns=["height", "weight"])
    np.testing.assert_allclose(model.predict_proba(x), [[p_f / (p_f + p_m), p_m / (p_f + p_m)]])


# ---------------------------------------------------------------------------------------------
# Text: four documents over the vocabulary (free, win, meeting, lunch)

DOCUMENTS = np.array(
    [
        [2, 1, 0, 0],  # spam: free win free
        [1, 1, 0, 1],  # spam: free win lunch
        [0, 0, 2, 1],  # ham: meeting meeting lunch
        [1, 0, 1, 1],  # ham: free meeting lunch
    ]
)
LABELS = ["spam", "spam", "ham", "ham"]
QUERY = np.array([[1, 1, 1, 0]])  # free win meeting


def test_multinomial_text_example_by_hand():
    model = MultinomialNB(alpha=1).fit(DOCUMENTS, LABELS)
    # word totals: ham (free 1, win 0, meeting 3, lunch 2) of 6, spam (3, 2, 0, 1) of 6;
    # Laplace: (count + 1) / (6 + 4)
    theta_ham = np.array([1 + 1, 0 + 1, 3 + 1, 2 + 1]) / (6 + 4)
    theta_spam = np.array([3 + 1, 2 + 1, 0 + 1, 1 + 1]) / (6 + 4)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), [theta_ham, theta_spam])
    ham = 1 / 2 * theta_ham[0] * theta_ham[1] * theta_ham[2]  # 2/10 * 1/10 * 4/10
    spam = 1 / 2 * theta_spam[0] * theta_spam[1] * theta_spam[2]  # 4/10 * 3/10 * 1/10
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(QUERY)), [[ham, spam]])
    np.testing.assert_allclose(model.predict_proba(QUERY), [[8 / 20, 12 / 20]])
    assert model.predict(QUERY)[0] == "spam"


def test_bernoulli_text_example_by_hand():
    model = BernoulliNB(alpha=1).fit(DOCUMENTS, LABELS)
    # documents containing each word: ham (1, 0, 2, 2) of 2, spam (2, 2, 0, 1) of 2;
    # Beta(1, 1) prior: (count + 1) / (2 + 2)
    theta_ham = np.array([2, 1, 3, 3]) / 4
    theta_spam = np.array([3, 3, 1, 2]) / 4
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), [theta_ham, theta_spam])
    # an absent word counts too: a factor 1 - theta for "lunch"
    ham = 1 / 2 * 2 / 4 * 1 / 4 * 3 / 4 * (1 - 3 / 4)
    spam = 1 / 2 * 3 / 4 * 3 / 4 * 1 / 4 * (1 - 2 / 4)
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(QUERY)), [[ham, spam]])
    np.testing.assert_allclose(model.predict_proba(QUERY), [[6 / 24, 18 / 24]])


def test_bernoulli_maximum_likelihood_text_example():
    model = BernoulliNB(alpha=0).fit(DOCUMENTS, LABELS)
    # N_cd / N_c, the relative frequencies
    np.testing.assert_allclose(
        np.exp(model.feature_log_prob_), [[1 / 2, 0 / 2, 2 / 2, 2 / 2], [2 / 2, 2 / 2, 0, 1 / 2]]
    )
    # free meeting lunch: "meeting" never occurs in spam, so only ham is possible
    x = np.array([[1, 0, 1, 1]])
    ham = 1 / 2 * 1 / 2 * (1 - 0) * 1 * 1
    np.testing.assert_allclose(np.exp(model.predict_joint_log_proba(x)), [[ham, 0.0]])
    np.testing.assert_array_equal(model.predict_proba(x), [[1.0, 0.0]])
    # free win meeting: "win" never occurs in ham either; no class is possible
    np.testing.assert_array_equal(model.predict_joint_log_proba(QUERY), [[-np.inf, -np.inf]])
    with pytest.raises(ValueError, match=r"posterior P\(y \| x\) is undefined .* row\(s\) \[0\]"):
        model.predict_proba(QUERY)
