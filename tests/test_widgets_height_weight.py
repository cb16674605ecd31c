"""The height/weight explorer's pure functions, checked at many settings.

Expected values are computed here independently: the means and variances by hand from the
six rows, the densities with the Gaussian formula written out, and the posteriors against
scikit-learn's GaussianNB (a test-only oracle) with var_smoothing=0.
"""

import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB

import nbcore
from nbcore.datasets import load_height_weight
from nbcore.widgets import height_weight as hw

# The six rows of the training table, by class.
MALE = np.array([[67, 125], [79, 210], [71, 150]], dtype=float)
FEMALE = np.array([[68, 140], [67, 142], [60, 120]], dtype=float)


def density(x, mu, var):
    return math.exp(-((x - mu) ** 2) / (2 * var)) / math.sqrt(2 * math.pi * var)


def test_parameters_are_the_hand_computed_mle():
    p = hw.class_parameters()
    assert p["counts"].tolist() == [3, 3]
    np.testing.assert_allclose(p["means"], [[217 / 3, 485 / 3], [65, 134]], rtol=1e-14)
    # squared deviations: m height 224/9 * 3 = 74.67 over 3; f weight 36 + 64 + 196 = 296
    np.testing.assert_allclose(
        p["variances"],
        [[224 / 9, 11450 / 9], [38 / 3, 296 / 3]],
        rtol=1e-13,
    )


def test_shared_variance_is_the_pooled_within_class_variance():
    per_class = hw.class_parameters()["variances"]
    shared = hw.class_parameters(shared_variance=True)["variances"]
    np.testing.assert_allclose(shared[0], shared[1], rtol=0)
    deviations = np.vstack([MALE - MALE.mean(0), FEMALE - FEMALE.mean(0)])
    np.testing.assert_allclose(shared[0], (deviations**2).mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(shared[0], per_class.mean(axis=0), rtol=1e-13)  # N_m = N_f


@pytest.mark.parametrize("prior_m", [0.05, 0.3, 0.5, 0.7, 0.95])
def test_posterior_of_test_points_is_bayes_rule_by_hand(prior_m):
    p = hw.class_parameters()
    state = hw.posterior_grid(prior_m, False)
    for (h, w), got in zip(hw.TEST_POINTS, state["test_posterior"], strict=True):
        joint = [
            pi * density(h, mu[0], var[0]) * density(w, mu[1], var[1])
            for pi, mu, var in zip([prior_m, 1 - prior_m], p["means"], p["variances"], strict=True)
        ]
        assert got == pytest.approx(joint[0] / sum(joint), rel=1e-12)


@pytest.mark.parametrize("prior_m", [0.2, 0.5, 0.8])
def test_posterior_grid_matches_sklearn(prior_m):
    data = load_height_weight()
    X, y = data[["height", "weight"]].to_numpy(float), data["sex"].to_numpy()
    sk = SklearnGaussianNB(priors=[1 - prior_m, prior_m], var_smoothing=0.0).fit(X, y)
    assert list(sk.classes_) == ["f", "m"]
    h, w = np.linspace(50, 85, 8), np.linspace(80, 230, 7)
    state = hw.posterior_grid(prior_m, False, heights=h, weights=w)
    hh, ww = np.meshgrid(h, w)
    expected = sk.predict_proba(np.column_stack([hh.ravel(), ww.ravel()]))[:, 1]
    np.testing.assert_allclose(state["posterior"].ravel(), expected, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("prior_m", [0.1, 0.5, 0.9])
def test_boundary_points_have_posterior_one_half(shared, prior_m):
    state = hw.posterior_grid(prior_m, shared)
    p = state["parameters"]
    h = state["heights"]
    for k in range(2):
        ok = ~np.isnan(state["boundary"][:, k])
        if not ok.any():
            continue
        pts = np.column_stack([h[ok], state["boundary"][ok, k]])
        post = hw.posterior_m(pts, p["means"], p["variances"], state["priors"])
        np.testing.assert_allclose(post, 0.5, atol=1e-9)
    assert state["linear"] is shared


def test_shared_boundary_is_a_straight_line_and_per_class_is_not():
    h = np.linspace(50, 80, 7)
    for shared, linear in ((True, True), (False, False)):
        state = hw.posterior_grid(0.5, shared, heights=h)
        w = state["boundary"][:, 0]
        if linear:
            assert np.all(np.isnan(state["boundary"][:, 1]))
            np.testing.assert_allclose(np.diff(w, 2), 0, atol=1e-9)  # equal steps
        else:
            ok = ~np.isnan(w)
            assert np.abs(np.diff(w[ok], 2)).max() > 1e-3


def test_posterior_is_monotone_in_the_prior_and_the_shift_is_log_odds():
    a = hw.posterior_grid(0.3, False)["posterior"]
    b = hw.posterior_grid(0.7, False)["posterior"]
    assert np.all(b >= a)
    inner = (a > 1e-6) & (a < 1 - 1e-6) & (b > 1e-6) & (b < 1 - 1e-6)
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    np.testing.assert_allclose(logit(b[inner]) - logit(a[inner]), 2 * np.log(0.7 / 0.3), rtol=1e-6)


def test_posterior_stays_finite_far_away():
    p = hw.class_parameters()
    post = hw.posterior_m([[0, 0], [300, 2000], [-50, 1e4]], p["means"], p["variances"], [0.5, 0.5])
    assert np.all(np.isfinite(post)) and np.all((post >= 0) & (post <= 1))


def test_other_data_are_used():
    data = pd.DataFrame(
        {
            "height": [60, 62, 70, 74],
            "weight": [100, 110, 170, 190],
            "sex": ["f", "f", "m", "m"],
        }
    )
    p = hw.class_parameters(data)
    np.testing.assert_allclose(p["means"], [[72, 180], [61, 105]])
    np.testing.assert_allclose(p["variances"], [[4, 100], [1, 25]])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"prior_m": 0.0}, ValueError, "prior_m"),
        ({"prior_m": 1.0}, ValueError, "prior_m"),
        ({"prior_m": "0.5"}, TypeError, "prior_m"),
        ({"prior_m": True}, TypeError, "prior_m"),
        ({"shared_variance": "yes"}, TypeError, "shared_variance"),
        ({"heights": [60]}, ValueError, "heights"),
        ({"weights": [[1, 2]]}, ValueError, "weights"),
        ({"data": [[1, 2, "m"]]}, TypeError, "data"),
        ({"data": pd.DataFrame({"height": [1], "sex": ["m"]})}, ValueError, "weight"),
        (
            {"data": pd.DataFrame({"height": [1, 2], "weight": [3, 4], "sex": ["m", "m"]})},
            ValueError,
            "two records",
        ),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        hw.posterior_grid(**kwargs)


def test_log_joint_rejects_bad_shapes():
    with pytest.raises(ValueError, match="variances > 0"):
        hw.log_joint([[1, 2]], [[0, 0]], [[1, 0]], [1.0])
    with pytest.raises(ValueError, match="priors"):
        hw.log_joint([[1, 2]], [[0, 0]], [[1, 1]], [0.5, 0.5])


@pytest.mark.parametrize("prior_m", [0.1, 0.5, 0.8])
def test_log_joint_is_nbcores_gaussian_nb(prior_m):
    data = load_height_weight()
    X, y = data[["height", "weight"]].to_numpy(float), data["sex"].to_numpy()
    model = nbcore.GaussianNB(priors=[1 - prior_m, prior_m], var_smoothing=0.0).fit(X, y)
    p = hw.class_parameters()
    points = np.array([[72.0, 180.0], [40.0, 60.0], [85.0, 240.0], [66.0, 150.0]])
    got = hw.log_joint(points, p["means"], p["variances"], [prior_m, 1 - prior_m])
    # nbcore orders the classes f, m; the widget m, f
    np.testing.assert_allclose(got[:, ::-1], model.predict_joint_log_proba(points), rtol=1e-12)


def test_small_multiples_has_a_panel_per_setting():
    fig = hw.boundary_small_multiples([0.3, 0.6])
    assert isinstance(fig, Figure)
    titles = [ax.get_title() for ax in fig.axes]
    assert len(titles) == 4
    assert sum("shared" in t for t in titles) == 2
    assert any("0.60" in t for t in titles)
    with pytest.raises(ValueError, match="prior_m"):
        hw.boundary_small_multiples([0.5, 1.5])


@pytest.mark.parametrize(("prior_m", "shared"), [(0.5, True), (0.2, False), (0.9, True)])
def test_panel_names_the_setting_and_predictions(prior_m, shared):
    text = hw.height_weight_panel(prior_m, shared)
    assert text.startswith('<img alt="The six training people')
    assert "data:image/png;base64," in text
    assert f"prior of m of {prior_m:.2f} with {'a shared' if shared else 'per-class'}" in text
    assert ("straight line" in text) is shared and ("shared" in text) is shared
    assert text.count("<tr>") == 4
    state = hw.posterior_grid(prior_m, shared)
    for p in state["test_posterior"]:
        assert f"{p:.4f}" in text
    assert "<script" not in text


def test_explorer_recomputes_when_the_controls_move():
    box = hw.height_weight_explorer(prior_m=0.5)
    slider, toggle, panel = box.children
    assert (slider.description, toggle.description) == ("prior of m", "variances")
    assert panel.value == hw.height_weight_panel(0.5, False)
    toggle.value = True
    slider.value = 0.2
    assert panel.value == hw.height_weight_panel(0.2, True)
    assert "prior of m = 0.20" in panel.value
    assert "prior of m of 0.20 with a shared variance" in panel.value
    with pytest.raises(ValueError, match="prior_m"):
        hw.height_weight_explorer(prior_m=1.0)
