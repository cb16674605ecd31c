"""The weather chapter's numeric and label-encoding helpers, checked at many settings.

Expected values come from independent computations: the standard library's ``statistics``
(population and sample standard deviations), scipy's normal density, scikit-learn's
GaussianNB and cross_val_predict (test-only oracles), nbcore's MixedNB, and the printed
numbers of Witten & Frank's worked example.
"""

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.model_selection import LeaveOneOut, cross_val_predict
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB

import nbcore
from nbcore.datasets import load_weather, load_weather_numeric
from nbcore.widgets import weather

# The numeric columns of the 14 days, by class, copied from Witten & Frank's numeric weather
# table (the source of nbcore.datasets.load_weather_numeric), not read from the package's CSV.
TEMPERATURE = {
    "yes": [83, 70, 68, 64, 69, 75, 75, 72, 81],
    "no": [85, 80, 65, 72, 71],
}
HUMIDITY = {
    "yes": [86, 96, 80, 65, 70, 80, 70, 90, 75],
    "no": [85, 90, 70, 95, 91],
}
TABLE_ORDER = {
    "outlook": ["sunny", "overcast", "rainy"],
    "temperature": ["hot", "mild", "cool"],
    "humidity": ["high", "normal"],
    "windy": [False, True],
}


def nominal():
    data = load_weather()
    return data.drop(columns="play"), data["play"]


@pytest.mark.parametrize(
    ("ddof", "stdev"), [(0, statistics.pstdev), (1, statistics.stdev)], ids=["mle", "sample"]
)
def test_class_parameters_are_the_means_and_standard_deviations(ddof, stdev):
    table = weather.numeric_class_parameters(ddof)
    for c in ("yes", "no"):
        assert table.loc[c, ("N_c", "")] == len(TEMPERATURE[c])
        for feature, values in (("temperature", TEMPERATURE), ("humidity", HUMIDITY)):
            assert table.loc[c, (feature, "mean")] == pytest.approx(
                statistics.fmean(values[c]), rel=1e-14
            )
            assert table.loc[c, (feature, "std")] == pytest.approx(stdev(values[c]), rel=1e-13)


def test_sample_standard_deviations_are_the_published_ones():
    # Witten & Frank print 6.2 / 10.2 (yes) and 7.9 / 9.7 (no), with N_c - 1 in the divisor.
    sample = weather.numeric_class_parameters(1)
    mle = weather.numeric_class_parameters(0)
    published = {("yes", "temperature"): 6.2, ("yes", "humidity"): 10.2}
    published |= {("no", "temperature"): 7.9, ("no", "humidity"): 9.7}
    for (c, feature), value in published.items():
        assert round(sample.loc[c, (feature, "std")], 1) == value
        assert round(mle.loc[c, (feature, "std")], 1) != value
        # the two conventions differ by sqrt(N_c / (N_c - 1))
        n = len(TEMPERATURE[c])
        ratio = sample.loc[c, (feature, "std")] / mle.loc[c, (feature, "std")]
        assert ratio == pytest.approx(math.sqrt(n / (n - 1)), rel=1e-13)


def test_mle_parameters_match_scikit_learn():
    data = load_weather_numeric()
    sk = SklearnGaussianNB(var_smoothing=0).fit(data[["temperature", "humidity"]], data["play"])
    table = weather.numeric_class_parameters(0)
    for row, c in enumerate(sk.classes_):
        for col, feature in enumerate(["temperature", "humidity"]):
            assert table.loc[c, (feature, "mean")] == pytest.approx(sk.theta_[row, col], rel=1e-13)
            assert table.loc[c, (feature, "std")] ** 2 == pytest.approx(
                sk.var_[row, col], rel=1e-12
            )


@pytest.mark.parametrize(
    ("x", "mu", "sigma"), [(0.0, 0.0, 1.0), (66, 73, 6.2), (90, 79.1, 10.2), (-3, 2, 0.5)]
)
def test_gaussian_density_is_scipys_normal_pdf(x, mu, sigma):
    assert weather.gaussian_density(x, mu, sigma) == pytest.approx(
        stats.norm.pdf(x, mu, sigma), rel=1e-13
    )


def test_gaussian_density_broadcasts_and_integrates_to_one():
    grid = np.linspace(-10, 10, 20001)
    density = weather.gaussian_density(grid, 0.5, 1.5)
    assert density.shape == grid.shape
    assert np.trapezoid(density, grid) == pytest.approx(1.0, abs=1e-9)
    assert isinstance(weather.gaussian_density(1, 0, 1), float)


@pytest.mark.parametrize("sigma", [0, -1.0, np.inf, [1.0, 0.0]])
def test_gaussian_density_rejects_bad_sigma(sigma):
    with pytest.raises(ValueError, match="sigma"):
        weather.gaussian_density(0.0, 0.0, sigma)


def test_published_test_day_numbers_follow_the_sample_convention():
    factors = weather.numeric_day_factors(ddof=1)
    # the densities, 4 decimals: those of yes as printed in the 2nd edition; temperature given
    # no is not printed there (see the next test) and is 0.0279; humidity given no is printed
    # 0.0381 from the rounded parameters (86.2, 9.7) and is 0.0380 from the data
    assert round(factors.loc["yes", "temperature"], 4) == 0.0340
    assert round(factors.loc["yes", "humidity"], 4) == 0.0221
    assert round(factors.loc["no", "temperature"], 4) == 0.0279
    assert round(factors.loc["no", "humidity"], 4) == 0.0380
    assert round(stats.norm.pdf(90, 86.2, 9.7), 4) == 0.0381
    assert round(factors.loc["yes", "score"], 6) == 0.000036
    assert round(weather.numeric_day_posterior(ddof=1)["yes"], 3) == 0.208
    # with the maximum-likelihood standard deviations the densities are not the printed ones
    mle = weather.numeric_day_factors(ddof=0)
    assert round(mle.loc["yes", "temperature"], 4) != 0.0340


def test_the_second_edition_reuses_the_humidity_density_of_yes():
    # Witten & Frank, 2nd edition, section 4.2: likelihood of no = 3/5 x 0.0221 x 0.0381 x 3/5
    # x 5/14 = 0.000108 and P(yes) = 25.0 %; its 0.0221 is f(humidity = 90 | yes), printed
    # just above, where f(temperature = 66 | no) belongs
    assert round(3 / 5 * 0.0221 * 0.0381 * 3 / 5 * 5 / 14, 6) == 0.000108
    assert round(0.000036 / (0.000036 + 0.000108), 3) == 0.250
    right = round(stats.norm.pdf(66, 74.6, 7.9), 4)  # from the printed mean and sd of no
    assert right == 0.0279 != 0.0221
    assert round(3 / 5 * right * 0.0381 * 3 / 5 * 5 / 14, 6) == 0.000137
    assert round(0.000036 / (0.000036 + 0.000137), 3) == 0.208


def test_day_factors_are_the_literal_product():
    f = weather.numeric_day_factors(ddof=0)
    t_yes = stats.norm.pdf(
        66, statistics.fmean(TEMPERATURE["yes"]), statistics.pstdev(TEMPERATURE["yes"])
    )
    h_yes = stats.norm.pdf(
        90, statistics.fmean(HUMIDITY["yes"]), statistics.pstdev(HUMIDITY["yes"])
    )
    # sunny on 2 of 9 "yes" days, windy on 3 of 9
    assert f.loc["yes", "score"] == pytest.approx(9 / 14 * 2 / 9 * t_yes * h_yes * 3 / 9, rel=1e-12)
    t_no = stats.norm.pdf(
        66, statistics.fmean(TEMPERATURE["no"]), statistics.pstdev(TEMPERATURE["no"])
    )
    h_no = stats.norm.pdf(90, statistics.fmean(HUMIDITY["no"]), statistics.pstdev(HUMIDITY["no"]))
    assert f.loc["no", "score"] == pytest.approx(5 / 14 * 3 / 5 * t_no * h_no * 3 / 5, rel=1e-12)
    product = f.drop(columns="score").prod(axis=1)
    np.testing.assert_allclose(f["score"], product, rtol=1e-14)


@pytest.mark.parametrize("outlook", ["sunny", "overcast", "rainy"])
@pytest.mark.parametrize("windy", [False, True])
@pytest.mark.parametrize(("temperature", "humidity"), [(66, 90), (85, 60), (70, 99), (58, 75)])
def test_day_posterior_matches_mixed_nb(outlook, windy, temperature, humidity):
    data = load_weather_numeric()
    model = nbcore.MixedNB(alpha=0, var_smoothing=0).fit(data.drop(columns="play"), data["play"])
    day = {"outlook": outlook, "temperature": temperature, "humidity": humidity, "windy": windy}
    expected = pd.Series(model.predict_proba(pd.DataFrame([day]))[0], index=model.classes_)
    posterior = weather.numeric_day_posterior(day, 0)
    assert posterior.sum() == pytest.approx(1.0, abs=1e-15)
    for c in ("yes", "no"):
        assert posterior[c] == pytest.approx(expected[c], abs=1e-10)


def test_overcast_day_is_yes_for_certain_without_smoothing():
    day = {"outlook": "overcast", "temperature": 85, "humidity": 99, "windy": True}
    assert weather.numeric_day_posterior(day, 0)["yes"] == 1.0


def test_posterior_grid_entries_are_day_posteriors():
    temps, hums = [60, 66.5, 80], [65, 90]
    for ddof in (0, 1):
        grid = weather.numeric_posterior_grid(temps, hums, outlook="rainy", windy=False, ddof=ddof)
        assert grid.shape == (2, 3)
        assert list(grid.index) == hums and list(grid.columns) == temps
        for h in hums:
            for t in temps:
                day = {"outlook": "rainy", "temperature": t, "humidity": h, "windy": False}
                expected = weather.numeric_day_posterior(day, ddof)["yes"]
                assert grid.loc[h, t] == pytest.approx(expected, rel=1e-14)
    # drier air favours a game at every temperature
    assert (grid.loc[65] > grid.loc[90]).all()


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: weather.numeric_class_parameters(2), ValueError, "ddof"),
        (lambda: weather.numeric_class_parameters(True), TypeError, "ddof"),
        (
            lambda: weather.numeric_day_posterior(
                {**weather.WEATHER_NUMERIC_TEST_DAY, "outlook": "foggy"}
            ),
            ValueError,
            "outlook",
        ),
        (lambda: weather.numeric_day_factors({"outlook": "sunny"}), ValueError, "day"),
        (lambda: weather.numeric_class_parameters(data=[1, 2]), TypeError, "data"),
        (lambda: weather.numeric_posterior_grid([], [70]), ValueError, "temperatures"),
        (
            lambda: weather.label_encode(load_weather(), {"outlook": ["sunny"]}),
            ValueError,
            "orders",
        ),
        (lambda: weather.label_encode(load_weather(), {"nope": [1]}), ValueError, "nope"),
        (lambda: weather.leave_one_out_predictions(3, *nominal()), TypeError, "make_model"),
    ],
)
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_label_encode_uses_the_given_order():
    X, _ = nominal()
    codes = weather.label_encode(X, TABLE_ORDER)
    for feature, order in TABLE_ORDER.items():
        expected = [order.index(v) for v in X[feature]]
        assert codes[feature].tolist() == expected
    assert X["outlook"].iloc[0] == "sunny"  # the input is not modified
    partial = weather.label_encode(X, {"outlook": ["rainy", "sunny", "overcast"]})
    assert partial["temperature"].equals(X["temperature"])
    assert partial["outlook"].iloc[0] == 1


def test_leave_one_out_matches_scikit_learn():
    X, y = nominal()
    codes = weather.label_encode(X, TABLE_ORDER)
    ours = weather.leave_one_out_predictions(
        lambda: nbcore.GaussianNB(var_smoothing=1e-9), codes, y
    )
    theirs = cross_val_predict(SklearnGaussianNB(var_smoothing=1e-9), codes, y, cv=LeaveOneOut())
    assert ours.tolist() == theirs.tolist()


def test_leave_one_out_refits_without_the_held_out_day():
    X, y = nominal()
    predictions = weather.leave_one_out_predictions(lambda: nbcore.CategoricalNB(alpha=1.0), X, y)
    for i in [0, 6, 13]:
        keep = np.arange(len(X)) != i
        model = nbcore.CategoricalNB(alpha=1.0).fit(X[keep], y[keep])
        assert predictions[i] == model.predict(X.iloc[[i]])[0]


def test_code_order_matters_but_reversal_does_not():
    X, y = nominal()
    day = pd.DataFrame([weather.WEATHER_TEST_DAY])

    def posterior_yes(orders):
        model = nbcore.GaussianNB().fit(weather.label_encode(X, orders), y)
        return model.predict_proba(weather.label_encode(day, orders))[0, 1]

    reversed_order = dict(TABLE_ORDER, outlook=TABLE_ORDER["outlook"][::-1])
    shuffled = dict(TABLE_ORDER, outlook=["sunny", "rainy", "overcast"])
    assert posterior_yes(reversed_order) == pytest.approx(posterior_yes(TABLE_ORDER), rel=1e-9)
    assert abs(posterior_yes(shuffled) - posterior_yes(TABLE_ORDER)) > 0.05


@pytest.mark.parametrize(
    ("x", "mu", "sigma"), [(66, 73.0, 6.2), ([60, 90, 66], 79.1, [10.2, 3.0, 3.0])]
)
def test_gaussian_density_is_nbcores_gaussian_nb(x, mu, sigma):
    x, mu, sigma = np.broadcast_arrays(np.asarray(x, float), mu, sigma)
    for xi, m, s in zip(x.ravel(), mu.ravel(), sigma.ravel(), strict=True):
        model = nbcore.GaussianNB(var_smoothing=0.0).fit([[m - s], [m + s]], [0, 0])
        assert model.var_[0, 0] == pytest.approx(s * s, rel=1e-14)
        expected = math.exp(model.predict_joint_log_proba([[xi]])[0, 0])
        assert weather.gaussian_density(xi, m, s) == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(
        weather.gaussian_density(x, mu, sigma), stats.norm.pdf(x, mu, sigma), rtol=1e-13
    )
    nan_mean = weather.gaussian_density([1.0, 2.0], [np.nan, 0.0], 1.0)
    assert np.isnan(nan_mean[0]) and nan_mean[1] == pytest.approx(stats.norm.pdf(2.0), rel=1e-13)


@pytest.mark.parametrize(
    "setting",
    [
        (66, 90, "sunny", True, False),
        (85, 60, "overcast", False, True),
        (70, 99, "rainy", True, True),
    ],
)
def test_numeric_panel_shows_the_posterior_of_the_setting(setting):
    temperature, humidity, outlook, windy, sample_std = setting
    text = weather.numeric_weather_panel(*setting)
    day = {"outlook": outlook, "temperature": temperature, "humidity": humidity, "windy": windy}
    posterior = weather.numeric_day_posterior(day, int(sample_std))
    assert f"{posterior['yes']:.4f}" in text and f"{posterior['no']:.4f}" in text
    assert ("N_c - 1" in text) is sample_std
    assert f"outlook = {outlook}, temperature = {temperature}" in text


def test_numeric_explorer_panel_follows_the_controls():
    box = weather.numeric_weather_explorer()
    temperature, humidity, outlook, windy, convention, panel = box.children
    assert [c.description for c in box.children[:5]] == [c.label for c in weather.NUMERIC_CONTROLS]
    start = weather.numeric_day_posterior(weather.WEATHER_NUMERIC_TEST_DAY, 0)["yes"]
    assert f"{start:.4f}" in panel.value
    humidity.value = 65
    convention.value = True
    day = dict(weather.WEATHER_NUMERIC_TEST_DAY, humidity=65)
    moved = weather.numeric_day_posterior(day, 1)["yes"]
    assert f"{moved:.4f}" in panel.value and "N_c - 1" in panel.value
    assert panel.value == weather.numeric_weather_panel(66, 65, "sunny", True, True)
    outlook.value = "overcast"
    windy.value = False
    assert "play = yes" in panel.value
    with pytest.raises(ValueError, match="ddof"):
        weather.numeric_weather_explorer(ddof=2)
