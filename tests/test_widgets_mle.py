"""The maximum-likelihood explorer's pure functions, checked at many settings.

Expected values come from independent computations: log-likelihoods summed term by term over
the records (with Python's math module), maxima found by brute force on fine grids, and the
closed forms N_cd / N_c and the 1/n variance.
"""

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from nbcore import BernoulliNB, GaussianNB
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
def test_bernoulli_panel_shows_the_value_the_maximum_and_the_gap(theta):
    text = mle.bernoulli_panel(theta, 10, 3)
    value, best = bernoulli_by_records(theta, 3, 10), bernoulli_by_records(0.3, 3, 10)
    assert f"l({theta:.2f}) = {value:.3f}; maximum l(0.300) = {best:.3f}" in text
    assert f"gap {best - value:.3f}" in text and float(f"{best - value:.3f}") >= 0
    assert '<img alt="The Bernoulli log-likelihood of theta for N_cd = 3 of N_c = 10' in text
    assert "capped" not in text
    capped = mle.bernoulli_panel(theta, 4, 9)  # N_cd beyond N_c is read as N_c
    assert "maximum l(1.000) = 0.000" in capped and "N_cd capped at N_c" in capped


def test_log_likelihoods_are_nbcores_fitted_models():
    """Summed over the records, GaussianNB's and BernoulliNB's joint scores of one class."""
    x = np.array([67.0, 79.0, 71.0, 75.5, 70.25])
    gaussian = GaussianNB(var_smoothing=0).fit(x[:, None], np.zeros(5, dtype=int))
    scores = gaussian.predict_joint_log_proba(x[:, None]).sum()
    assert mle.gaussian_log_likelihood(x, *mle.gaussian_mle(x)) == pytest.approx(scores, rel=1e-13)
    records = np.array([[1]] * 3 + [[0]] * 7)
    bernoulli = BernoulliNB(alpha=0).fit(records, np.zeros(10, dtype=int))
    scores = bernoulli.predict_joint_log_proba(records).sum()
    assert mle.bernoulli_log_likelihood(0.3, 3, 10) == pytest.approx(scores, rel=1e-13)
    assert mle.bernoulli_mle(3, 10) == pytest.approx(np.exp(bernoulli.feature_log_prob_[0, 0]))


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
def test_gaussian_panel_best_variance_given_mu(mu):
    x = [1.0, 2.0, 4.0]
    best = np.mean((np.array(x) - mu) ** 2)
    variances = np.linspace(best / 2, 2 * best, 2001)
    values = mle.gaussian_log_likelihood(x, mu, variances)
    assert variances[np.argmax(values)] == pytest.approx(best, rel=1e-3)
    text = mle.gaussian_panel(mu, 1.0, x=x)
    assert f"best variance for this mu {best:.4f}" in text
    assert f"l = {gaussian_by_records(x, mu, 1.0):.3f}" in text
    assert f"at mean 2.333, variance {np.var(x):.4f}" in text
    assert '<img alt="The Gaussian log-likelihood' in text


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
        (lambda: mle.bernoulli_log_likelihood("0.5", 1, 3), TypeError, "theta"),
        (lambda: mle.gaussian_explorer([2.0, 2.0]), ValueError, "constant"),
        (lambda: mle.bernoulli_explorer(3, 10, theta=1.0), ValueError, "theta"),
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


def test_explorers_build_their_widgets():
    box = mle.bernoulli_explorer(3, 10, 0.5)
    theta, total, on, panel = box.children
    assert [c.description for c in box.children[:3]] == ["theta", "N_c", "N_cd (at most N_c)"]
    assert panel.value == mle.bernoulli_panel(0.5, 10, 3)
    on.value = 8
    assert panel.value == mle.bernoulli_panel(0.5, 10, 8)
    assert "maximum at theta = 0.800" in panel.value  # the picture's alt text
    total.value, theta.value = 5, 0.25
    assert panel.value == mle.bernoulli_panel(0.25, 5, 8) and "capped" in panel.value
    x = [1.0, 2.0, 4.0]
    box = mle.gaussian_explorer(x)
    mu, var, panel = box.children
    assert (mu.value, var.value) == pytest.approx(mle.gaussian_mle(x), rel=1e-9)
    assert "l = " in panel.value and "mean 2.333" in panel.value
    mu.value, var.value = 1.5, 2.0
    assert panel.value == mle.gaussian_panel(mu.value, var.value, x=np.array(x))
    assert mle.gaussian_explorer(x, mu=2.0).children[0].value == pytest.approx(2.0, abs=0.02)
