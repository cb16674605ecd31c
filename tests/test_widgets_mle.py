"""The maximum-likelihood explorer's pure functions, checked at many settings.

Expected values come from independent computations: log-likelihoods summed term by term over
the records (with Python's math module), maxima found by brute force on fine grids, and the
closed forms N_cd / N_c and the 1/n variance.
"""

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from nbcore.widgets import mle


def bernoulli_by_records(theta, n_on, n_total):
    """sum_i log p(x_i | theta) over N_c records, N_cd of them on, one term at a time."""
    records = [1] * n_on + [0] * (n_total - n_on)
    return sum(math.log(theta) if x == 1 else math.log(1 - theta) for x in records)


def gaussian_by_records(x, mu, var):
    return sum(-0.5 * math.log(2 * math.pi * var) - (xi - mu) ** 2 / (2 * var) for xi in x)


@pytest.mark.parametrize(("n_on", "n_total"), [(0, 1), (1, 1), (3, 10), (7, 10), (30, 100)])
@pytest.mark.parametrize("theta", [0.01, 0.2, 0.5, 0.77, 0.99])
def test_bernoulli_log_likelihood_is_the_sum_over_records(theta, n_on, n_total):
    got = mle.bernoulli_log_likelihood(theta, n_on, n_total)
    assert got == pytest.approx(bernoulli_by_records(theta, n_on, n_total), rel=1e-12)


def test_bernoulli_log_likelihood_at_the_boundary():
    # 0 log 0 = 0: with no record on, theta = 0 costs nothing; an observed outcome ruled out
    # gives -inf
    assert mle.bernoulli_log_likelihood(0.0, 0, 5) == 0.0
    assert mle.bernoulli_log_likelihood(1.0, 5, 5) == 0.0
    assert mle.bernoulli_log_likelihood(0.0, 2, 5) == -math.inf
    assert mle.bernoulli_log_likelihood(1.0, 2, 5) == -math.inf


@pytest.mark.parametrize(("n_on", "n_total"), [(0, 4), (1, 3), (3, 10), (9, 10), (13, 40)])
def test_the_grid_maximum_is_the_closed_form(n_on, n_total):
    grid = np.linspace(0, 1, 100_001)
    values = mle.bernoulli_log_likelihood(grid, n_on, n_total)
    assert values.shape == grid.shape
    assert grid[np.argmax(values)] == pytest.approx(n_on / n_total, abs=1e-5)
    assert mle.bernoulli_mle(n_on, n_total) == n_on / n_total


@pytest.mark.parametrize("theta", [0.1, 0.3, 0.5, 0.9])
def test_bernoulli_state_gap_is_non_negative_and_zero_at_the_mle(theta):
    state = mle.bernoulli_state(theta, 3, 10)
    assert state["mle"] == 0.3
    assert state["gap"] >= 0
    assert state["log_likelihood"] == pytest.approx(bernoulli_by_records(theta, 3, 10))
    assert mle.bernoulli_state(0.3, 3, 10)["gap"] == pytest.approx(0, abs=1e-12)


def test_bernoulli_curves_one_column_per_data_set():
    curves = mle.bernoulli_curves([(3, 10), (30, 100)], grid=[0.2, 0.3, 0.4])
    assert list(curves.columns) == ["3/10", "30/100"]
    assert list(curves.index) == [0.2, 0.3, 0.4]
    # ten times the data: ten times the log-likelihood, same maximum
    np.testing.assert_allclose(curves["30/100"], 10 * curves["3/10"], rtol=1e-12)
    assert curves["3/10"].idxmax() == 0.3


@pytest.mark.parametrize(
    "x", [[1.0], [1.0, 2.0, 4.0], [67.0, 79.0, 71.0], list(np.linspace(-3, 5, 17))]
)
@pytest.mark.parametrize(("mu", "var"), [(0.0, 1.0), (2.5, 0.3), (70.0, 25.0)])
def test_gaussian_log_likelihood_is_the_sum_over_records(x, mu, var):
    got = mle.gaussian_log_likelihood(x, mu, var)
    assert got == pytest.approx(gaussian_by_records(x, mu, var), rel=1e-12)


def test_gaussian_log_likelihood_broadcasts():
    x = [1.0, 2.0, 4.0]
    mus, variances = np.array([0.0, 1.0, 2.0]), np.array([[0.5], [1.0]])
    values = mle.gaussian_log_likelihood(x, mus, variances)
    assert values.shape == (2, 3)
    assert values[1, 2] == pytest.approx(gaussian_by_records(x, 2.0, 1.0))


def test_gaussian_mle_is_the_mean_and_the_biased_variance():
    rng = np.random.default_rng(3)
    x = rng.normal(5.0, 2.0, size=7)
    mean, var = mle.gaussian_mle(x)
    assert mean == pytest.approx(x.mean())
    assert var == pytest.approx(np.var(x, ddof=0))
    assert var < np.var(x, ddof=1)  # 1/n, not 1/(n - 1)
    # no grid point beats it
    mus = np.linspace(mean - 1, mean + 1, 401)
    variances = np.linspace(var / 3, 3 * var, 401)[:, None]
    grid = mle.gaussian_log_likelihood(x, mus, variances)
    assert grid.max() <= mle.gaussian_log_likelihood(x, mean, var) + 1e-12


@pytest.mark.parametrize("mu", [-1.0, 0.0, 2.0])
def test_gaussian_state_best_variance_given_mu(mu):
    x = [1.0, 2.0, 4.0]
    state = mle.gaussian_state(x, mu, 1.0)
    best = np.mean((np.array(x) - mu) ** 2)
    assert state["best_var_given_mu"] == pytest.approx(best)
    variances = np.linspace(best / 2, 2 * best, 2001)
    values = mle.gaussian_log_likelihood(x, mu, variances)
    assert variances[np.argmax(values)] == pytest.approx(best, rel=1e-3)
    assert state["gap"] >= 0
    assert state["mle"] == pytest.approx((7 / 3, np.var(x)))


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: mle.bernoulli_log_likelihood(0.5, 4, 3), ValueError, "n_on"),
        (lambda: mle.bernoulli_log_likelihood(0.5, 1, 0), ValueError, "n_total"),
        (lambda: mle.bernoulli_log_likelihood(0.5, 1.5, 3), TypeError, "n_on"),
        (lambda: mle.bernoulli_log_likelihood(1.5, 1, 3), ValueError, "theta"),
        (lambda: mle.bernoulli_log_likelihood(np.nan, 1, 3), ValueError, "theta"),
        (lambda: mle.gaussian_log_likelihood([1.0, 2.0], 0.0, 0.0), ValueError, "var"),
        (lambda: mle.gaussian_log_likelihood([], 0.0, 1.0), ValueError, "x"),
        (lambda: mle.gaussian_mle([[1.0, 2.0]]), ValueError, "x"),
        (lambda: mle.bernoulli_curves([]), ValueError, "datasets"),
    ],
)
def test_bad_input_is_refused_with_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_small_multiples_draw_curves_with_their_maxima():
    fig = mle.likelihood_small_multiples([(3, 10), (30, 100)], {"a": [1.0, 2.0, 4.0]})
    assert isinstance(fig, Figure)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 3
    # the marked maximum of each top panel sits at N_cd / N_c
    for ax, (n_on, n_total) in zip(visible[:2], [(3, 10), (30, 100)], strict=True):
        marker = [line for line in ax.get_lines() if line.get_label() == "maximum"][0]
        assert marker.get_xdata()[0] == pytest.approx(n_on / n_total)
        assert marker.get_marker() not in ("", "None", None)
    marker = [line for line in visible[2].get_lines() if line.get_label() == "maximum"][0]
    assert marker.get_xdata()[0] == pytest.approx(np.var([1.0, 2.0, 4.0]))


def test_explorer_figures_mark_the_slider_and_the_maximum():
    state = mle.bernoulli_state(0.6, 3, 10)
    ax = mle.bernoulli_figure(state, 3, 10).axes[0]
    slider = [line for line in ax.get_lines() if line.get_label() == "slider"][0]
    assert slider.get_xdata()[0] == 0.6
    assert slider.get_ydata()[0] == pytest.approx(state["log_likelihood"])
    x = [1.0, 2.0, 4.0]
    fig = mle.gaussian_figure(mle.gaussian_state(x, 1.0, 2.0), x)
    assert len(fig.axes) == 2


def test_explorers_build_their_widgets():
    box = mle.bernoulli_explorer(3, 10, 0.5)
    theta_slider, total_slider, on_slider = box.children[:3]
    on_slider.value = 8
    assert "0.800" in box.children[3].value  # the maximum moved to N_cd / N_c
    assert "maximum at theta = 0.800" in box.children[4].value  # the picture's alt text
    total_slider.value = 5
    assert on_slider.max == 5
    box = mle.gaussian_explorer([1.0, 2.0, 4.0])
    assert "2.333" in box.children[2].value
    assert box.children[3].value.startswith("<img alt=")
    assert "mean 2.333" in box.children[3].value
