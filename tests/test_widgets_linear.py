"""Naive Bayes as a linear classifier: linear_form, the Gaussian forms and the explorer.

Expected values come from independent computations: the models' own predict_proba (and
scikit-learn's, a test-only oracle), scipy's normal log density, and the logistic function
written out by hand.
"""

import numpy as np
import pytest
from matplotlib.figure import Figure
from scipy.stats import norm
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB
from sklearn.naive_bayes import ComplementNB as SkComplementNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import nbcore
from nbcore.widgets import linear


def _counts(seed, n=40, d=7, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.poisson(rng.uniform(0.2, 3.0, d), size=(n, d)).astype(float)
    y = np.arange(n) % n_classes
    return X, y


def _sigmoid(u):
    return 1.0 / (1.0 + np.exp(-u))


def softmax_proba(X, W, b):
    scores = np.asarray(X, dtype=float) @ np.asarray(W, dtype=float).T + b
    return np.exp(scores - nbcore.logsumexp(scores, axis=1, keepdims=True))


# --------------------------------------------------------------------------- linear_form


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha", [0.1, 1.0, 3.5])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_multinomial_linear_form_reproduces_predict_proba(seed, alpha, n_classes):
    X, y = _counts(seed, n_classes=n_classes)
    model = nbcore.MultinomialNB(alpha=alpha).fit(X, y)
    W, b = linear.linear_form(model)
    np.testing.assert_array_equal(W, model.feature_log_prob_)
    np.testing.assert_array_equal(b, model.class_log_prior_)
    proba = softmax_proba(X, W, b)
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=1e-12)
    oracle = SkMultinomialNB(alpha=alpha).fit(X, y)
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("binarize", [0.0, 1.5])
@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_bernoulli_linear_form_folds_absent_words_into_b(seed, binarize, alpha):
    X, y = _counts(seed)
    model = nbcore.BernoulliNB(alpha=alpha, binarize=binarize).fit(X, y)
    W, b = linear.linear_form(model)
    theta = np.exp(model.feature_log_prob_)
    # independent formulas: log odds of presence, and log pi_c + sum_d log(1 - theta_cd)
    np.testing.assert_allclose(W, np.log(theta / (1 - theta)), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        b, model.class_log_prior_ + np.log(1 - theta).sum(axis=1), rtol=1e-12
    )
    Xb = (X > binarize).astype(float)
    proba = softmax_proba(Xb, W, b)
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=1e-12)
    oracle = SkBernoulliNB(alpha=alpha, binarize=binarize).fit(X, y)
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-12)
    # the unfolded form (W = log theta alone, b = log prior) is not the model
    wrong = softmax_proba(Xb, model.feature_log_prob_, model.class_log_prior_)
    assert np.abs(wrong - model.predict_proba(X)).max() > 1e-3


@pytest.mark.parametrize("norm_weights", [False, True])
@pytest.mark.parametrize("seed", [0, 4])
def test_complement_linear_form(norm_weights, seed):
    X, y = _counts(seed)
    model = nbcore.ComplementNB(norm=norm_weights).fit(X, y)
    W, b = linear.linear_form(model)
    np.testing.assert_array_equal(b, np.zeros(3))
    proba = softmax_proba(X, W, b)
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=1e-12)
    oracle = SkComplementNB(norm=norm_weights).fit(X, y)
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-12)


def test_binary_form_is_the_sigmoid_of_class_1_minus_class_0():
    X, y = _counts(5, n_classes=2)
    model = nbcore.MultinomialNB().fit(X, y)
    w, b0 = linear.binary_form(*linear.linear_form(model))
    p1 = model.predict_proba(X)[:, 1]
    np.testing.assert_allclose(_sigmoid(X @ w + b0), p1, rtol=0, atol=1e-12)
    # the sign slip: sigmoid(-u) is the probability of the other class
    np.testing.assert_allclose(_sigmoid(-(X @ w + b0)), 1 - p1, rtol=0, atol=1e-12)
    assert np.abs(_sigmoid(-(X @ w + b0)) - p1).max() > 0.05


def test_linear_form_rejects_bad_models():
    with pytest.raises(TypeError, match="model must be"):
        linear.linear_form(nbcore.GaussianNB().fit([[0.0], [1.0]], [0, 1]))
    with pytest.raises(TypeError, match="model must be"):
        linear.linear_form("MultinomialNB")
    with pytest.raises(ValueError, match="fitted"):
        linear.linear_form(nbcore.MultinomialNB())
    X = np.array([[2.0, 0.0], [0.0, 3.0]])
    with np.errstate(divide="ignore"):
        model = nbcore.MultinomialNB(alpha=0.0).fit(X, [0, 1])
    with pytest.raises(ValueError, match="alpha > 0"):
        linear.linear_form(model)


def test_binary_form_rejects_bad_shapes():
    with pytest.raises(ValueError, match=r"W must be \(2, n_features\)"):
        linear.binary_form(np.zeros((3, 2)), np.zeros(3))


# --------------------------------------------------------------------------- Gaussian forms


def _gaussian_params(seed, d=3, n_classes=2):
    rng = np.random.default_rng(seed)
    means = rng.normal(0, 2, (n_classes, d))
    variances = rng.uniform(0.3, 3.0, (n_classes, d))
    priors = rng.dirichlet(np.ones(n_classes) * 3)
    return means, variances, priors


def _scipy_log_joint(points, means, variances, priors):
    return np.log(priors) + np.stack(
        [
            norm.logpdf(points, m, np.sqrt(v)).sum(axis=1)
            for m, v in zip(means, variances, strict=True)
        ],
        axis=1,
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_log_odds_and_its_quadratic_form_match_scipy(seed):
    means, variances, priors = _gaussian_params(seed)
    points = np.random.default_rng(seed + 10).normal(0, 3, (25, 3))
    joint = _scipy_log_joint(points, means, variances, priors)
    expected = joint[:, 1] - joint[:, 0]
    got = linear.gaussian_log_odds(points, means, variances, priors)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)
    form = linear.gaussian_log_odds_form(means, variances, priors)
    quadratic = points**2 @ form["a"] + points @ form["w"] + form["b"]
    np.testing.assert_allclose(quadratic, expected, rtol=1e-10, atol=1e-10)
    assert np.all(form["a"] != 0)  # per-class variances: a squared term remains


@pytest.mark.parametrize("seed", [0, 5])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_shared_variance_form_is_the_gaussian_posterior(seed, n_classes):
    means, variances, priors = _gaussian_params(seed, n_classes=n_classes)
    shared = variances[0]
    points = np.random.default_rng(seed).normal(0, 3, (30, 3))
    joint = _scipy_log_joint(points, means, np.tile(shared, (n_classes, 1)), priors)
    expected = np.exp(joint - joint.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    W, b = linear.shared_variance_form(means, shared, priors)
    np.testing.assert_allclose(W, means / shared, rtol=1e-12)
    np.testing.assert_allclose(softmax_proba(points, W, b), expected, atol=1e-12)
    if n_classes == 2:
        # the chapter's two-class formulas for w and b
        w = (means[1] - means[0]) / shared
        b0 = np.log(priors[1] / priors[0]) - np.sum((means[1] ** 2 - means[0] ** 2) / (2 * shared))
        np.testing.assert_allclose(_sigmoid(points @ w + b0), expected[:, 1], atol=1e-12)
        form = linear.gaussian_log_odds_form(means, np.tile(shared, (2, 1)), priors)
        np.testing.assert_array_equal(form["a"], np.zeros(3))
        np.testing.assert_allclose(form["w"], w, rtol=1e-12)
        np.testing.assert_allclose(form["b"], b0, rtol=1e-12)


def test_gaussian_forms_reject_bad_parameters():
    means, variances, priors = _gaussian_params(0)
    with pytest.raises(ValueError, match="variances must be finite and > 0"):
        linear.gaussian_log_odds_form(means, -variances, priors)
    with pytest.raises(ValueError, match="priors must"):
        linear.gaussian_log_odds_form(means, variances, [0.5, 0.6])
    with pytest.raises(ValueError, match="one per feature"):
        linear.shared_variance_form(means, variances, priors)
    with pytest.raises(ValueError, match="shape"):
        linear.gaussian_log_odds_form(means[:, :2], variances, priors)
    with pytest.raises(ValueError, match="shape"):
        linear.gaussian_log_odds(np.zeros((2, 3)), np.zeros((3, 3)), np.ones((3, 3)), [0.5, 0.5])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_log_odds_is_nbcores_gaussian_nb_and_the_form_agrees(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(0, 2, (40, 3)) + np.repeat([[0, 0, 0], [2, -1, 1]], 20, axis=0)
    y = np.repeat([0, 1], 20)
    model = nbcore.GaussianNB(var_smoothing=0.0).fit(X, y)
    points = rng.normal(0, 4, (30, 3))
    joint = model.predict_joint_log_proba(points)
    args = (model.theta_, model.var_, model.class_prior_)
    np.testing.assert_allclose(
        linear.gaussian_log_odds(points, *args), joint[:, 1] - joint[:, 0], rtol=1e-12, atol=1e-12
    )
    form = linear.gaussian_log_odds_form(*args)
    quadratic = points**2 @ form["a"] + points @ form["w"] + form["b"]
    np.testing.assert_allclose(quadratic, joint[:, 1] - joint[:, 0], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize(
    ("mean_1", "sigma_1", "prior_1"),
    [((2.0, 1.0), (1.5, 0.7), 0.5), ((-1.5, 3.5), (0.4, 2.6), 0.15)],
)
def test_explorer_draws_nbcores_scores_and_the_form_agrees(shared, mean_1, sigma_1, prior_1):
    state = linear.explorer_state(mean_1, (1.0, 1.0), sigma_1, prior_1, shared)
    model = nbcore.GaussianNB(priors=state["priors"])  # set to the explorer's parameters
    model.fit([[0.0, 0.0], [1.0, 1.0]], [0, 1])
    model.theta_, model.var_ = state["means"], state["variances"]
    g = state["grid"]
    points = np.column_stack([np.tile(g, len(g)), np.repeat(g, len(g))])
    joint = model.predict_joint_log_proba(points)
    np.testing.assert_allclose(
        state["posterior"].ravel(), _sigmoid(joint[:, 1] - joint[:, 0]), rtol=1e-12, atol=1e-15
    )
    form = state["form"]
    quadratic = points**2 @ form["a"] + points @ form["w"] + form["b"]
    np.testing.assert_allclose(quadratic, joint[:, 1] - joint[:, 0], rtol=1e-9, atol=1e-9)


# --------------------------------------------------------------------------- the explorer


@pytest.mark.parametrize(
    ("mean_1", "sigma_1", "prior_1"),
    [((2.0, 1.0), (1.5, 0.7), 0.5), ((-1.0, 3.0), (0.4, 2.5), 0.2), ((3.0, -2.0), (1, 1), 0.9)],
)
def test_explorer_state_shared_is_linear_and_per_class_is_not(mean_1, sigma_1, prior_1):
    per_class = linear.explorer_state(mean_1, (1.0, 1.0), sigma_1, prior_1, False)
    shared = linear.explorer_state(mean_1, (1.0, 1.0), sigma_1, prior_1, True)
    assert shared["linear"]
    assert per_class["linear"] == bool(np.allclose(sigma_1, 1.0))
    np.testing.assert_allclose(shared["variances"][0], (1.0 + np.square(sigma_1)) / 2)
    # the profile along the line between the means is the logistic curve of an affine t
    form, means, t = shared["form"], shared["means"], shared["t"]
    slope = form["w"] @ (means[1] - means[0])
    np.testing.assert_allclose(
        shared["profile"], _sigmoid(slope * t + form["w"] @ means[0] + form["b"]), atol=1e-12
    )
    assert slope > 0  # moving towards class 1's mean raises P(class 1 | x)
    # the grid posterior is the sigmoid of the scipy log-odds
    g = shared["grid"]
    i, j = 40, 100
    point = np.array([[g[j], g[i]]])
    joint = _scipy_log_joint(point, means, shared["variances"], shared["priors"])
    np.testing.assert_allclose(
        shared["posterior"][i, j], _sigmoid(joint[0, 1] - joint[0, 0]), atol=1e-12
    )
    assert np.all((per_class["posterior"] >= 0) & (per_class["posterior"] <= 1))


def test_prior_shifts_only_b():
    low = linear.explorer_state(prior_1=0.2, shared=True)
    high = linear.explorer_state(prior_1=0.8, shared=True)
    np.testing.assert_allclose(low["form"]["w"], high["form"]["w"])
    assert high["form"]["b"] - low["form"]["b"] == pytest.approx(2 * np.log(4.0))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"mean_1": (9.0, 0.0)}, ValueError, "mean_1"),
        ({"sigma_1": (0.0, 1.0)}, ValueError, "sigma_1"),
        ({"sigma_0": (1.0,)}, ValueError, "sigma_0"),
        ({"prior_1": 1.0}, ValueError, "prior_1"),
        ({"prior_1": "0.5"}, TypeError, "prior_1"),
        ({"shared": "yes"}, TypeError, "shared"),
    ],
)
def test_explorer_state_rejects_bad_settings(kwargs, error, match):
    with pytest.raises(error, match=match):
        linear.explorer_state(**kwargs)


def test_figures_and_twin():
    fig = linear.draw_state(linear.explorer_state(shared=True))
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    twin = linear.explorer_small_multiples()
    assert isinstance(twin, Figure) and len(twin.axes) == 6
    with pytest.raises(ValueError, match="sigmas_1"):
        linear.explorer_small_multiples([])


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ((2.0, 1.0, 1.5, 0.7, 0.5, False), "per-class variances, prior of class 1 0.50"),
        ((2.0, 1.0, 1.5, 0.7, 0.5, True), "shared variances, prior of class 1 0.50"),
        ((-1.0, 3.0, 1.0, 1.0, 0.2, False), "per-class variances, prior of class 1 0.20"),
    ],
)
def test_panel_shows_the_setting_and_its_coefficients(setting, words):
    text = linear.linear_panel(*setting)
    assert text.startswith('<img alt="Two Gaussian classes') and words in text
    state = linear.explorer_state(setting[:2], (1.0, 1.0), setting[2:4], *setting[4:])
    shape = "straight line" if state["linear"] else "quadratic"
    assert shape in text and f"b = {state['form']['b']:+.3f}" in text
    assert "<script" not in text


def test_explorer_recomputes_when_the_controls_move():
    box = linear.linear_explorer()
    *controls, panel = box.children
    assert [c.description for c in controls] == [c.label for c in linear.CONTROLS]
    assert panel.value == linear.linear_panel(2.0, 1.0, 1.5, 0.7, 0.5, False)
    controls[5].value = True  # the shared-variance toggle redraws
    controls[4].value = 0.25
    assert panel.value == linear.linear_panel(2.0, 1.0, 1.5, 0.7, 0.25, True)
    assert "straight line" in panel.value
    with pytest.raises(ValueError, match="sigma_1"):
        linear.linear_explorer(sigma_1=(0.1, 1.0))
