"""The numerics chapter's explorer: naive products against log-sum-exp, at many settings.

Expected values come from independent computations: exact rational arithmetic (fractions)
for the posteriors and for the underflow thresholds of float64 and float32, and the logistic
function of the score difference.
"""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from nbcore.plotting import FLAG_TEXT
from nbcore.widgets import numerics

# Half of the smallest subnormal number: anything below it rounds to 0.0 (round to nearest).
HALF_SUBNORMAL = {"float64": Fraction(1, 2**1075), "float32": Fraction(1, 2**150)}


def exact_posterior_a(n, gap, prior_a=0.5):
    """P(A | x) = 1 / (1 + (pi_B / pi_A) exp(-n gap)), with Fraction where it is exact."""
    odds_b = Fraction(1 - prior_a) / Fraction(prior_a)
    return 1 / (1 + float(odds_b) * math.exp(-n * gap))


@pytest.mark.parametrize("n", [0, 1, 10, 1000, 123456])
@pytest.mark.parametrize("gap", [0.0, 0.003, 0.05])
def test_class_scores_are_sums_of_logs(n, gap):
    b = numerics.class_scores(n, gap, word_prob=0.02, prior_a=0.3)
    assert b.shape == (2,)
    assert b[0] == pytest.approx(math.log(0.3) + n * math.log(0.02), rel=1e-13, abs=1e-13)
    assert b[1] == pytest.approx(math.log(0.7) + n * (math.log(0.02) - gap), rel=1e-13, abs=1e-13)


@pytest.mark.parametrize("n", [1, 5, 50, 150])
@pytest.mark.parametrize("prior_a", [0.2, 0.5, 0.9])
def test_naive_float64_is_right_while_the_products_are_normal(n, prior_a):
    # word probabilities 1/8 and 1/16 are exact in binary: the products are exact fractions
    p, gap = 0.125, math.log(2)
    state = numerics.naive_posterior(n, gap, word_prob=p, prior_a=prior_a)
    joint_a = Fraction(prior_a) * Fraction(1, 8) ** n
    joint_b = (1 - Fraction(prior_a)) * Fraction(1, 16) ** n
    if joint_b > Fraction(2) ** -1022:  # both in the normal range: one rounding each
        assert state["joint"][0] == pytest.approx(float(joint_a), rel=1e-15)
        assert state["posterior"][0] == pytest.approx(
            float(joint_a / (joint_a + joint_b)), rel=1e-14
        )
        assert not state["underflow"] and not state["nan"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("p", [0.5, 0.01, 0.001, 0.3])
def test_first_zero_length_matches_exact_threshold(dtype, p):
    n = numerics.first_zero_length(p, dtype)
    # the value the type stores for p, exactly, raised to n and n - 1
    stored = Fraction(float(getattr(np, dtype)(p)))
    assert stored**n < HALF_SUBNORMAL[dtype] or stored**n == HALF_SUBNORMAL[dtype]
    assert stored ** (n - 1) > HALF_SUBNORMAL[dtype]
    with np.errstate(under="ignore"):
        assert getattr(np, dtype)(p) ** n == 0
        assert getattr(np, dtype)(p) ** (n - 1) > 0


def test_first_zero_length_known_values():
    # 0.5 ** n is exact: 2 ** -1074 is the smallest float64 subnormal, 2 ** -1075 rounds to 0
    assert numerics.first_zero_length(0.5) == 1075
    assert numerics.first_zero_length(0.5, "float32") == 150
    assert numerics.first_zero_length(0.01, np.float32) < numerics.first_zero_length(0.01)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("p", [0.01, 0.2])
def test_naive_posterior_is_nan_exactly_when_both_products_underflow(dtype, p):
    n0 = numerics.first_zero_length(p, dtype)
    # (three words earlier, so that multiplying by the prior 0.5 cannot round to 0 either)
    before = numerics.naive_posterior(n0 - 3, 0.0, word_prob=p, dtype=dtype)
    after = numerics.naive_posterior(n0, 0.0, word_prob=p, dtype=dtype)
    assert before["posterior"] == pytest.approx([0.5, 0.5])
    assert not before["nan"]
    assert after["underflow"] and after["nan"]
    assert np.all(after["joint"] == 0) and np.isnan(after["posterior"]).all()
    assert after["joint"].dtype == np.dtype(dtype)


def test_one_class_underflowing_first_gives_zero_not_nan():
    # with a large gap, class B's product hits 0 long before class A's
    state = numerics.naive_posterior(100, 5.0, word_prob=0.01)
    assert state["joint"][1] == 0 and state["joint"][0] > 0
    assert state["underflow"] and not state["nan"]
    assert list(state["posterior"]) == [1.0, 0.0]


@pytest.mark.parametrize("n", [0, 10, 162, 1000, 10**5])
@pytest.mark.parametrize("gap", [0.0, 0.001, 0.01, 0.05])
@pytest.mark.parametrize("prior_a", [0.1, 0.5])
def test_stable_posterior_is_the_logistic_of_the_score_difference(n, gap, prior_a):
    b = numerics.class_scores(n, gap, prior_a=prior_a)
    posterior = numerics.stable_posterior(b)
    assert posterior.sum() == pytest.approx(1.0, abs=4e-16)
    # relative error about |b| * 1e-16 of the scores themselves, tiny after the shift
    assert posterior[0] == pytest.approx(exact_posterior_a(n, gap, prior_a), rel=1e-9)
    assert np.all(np.isfinite(posterior))


def test_shifting_first_keeps_long_documents_exact():
    b = numerics.class_scores(10**5, 0.0)  # equal scores near -460 517
    assert numerics.stable_posterior(b).tolist() == [0.5, 0.5]
    unshifted = np.exp(b - numerics.logsumexp(b))  # loses the digits of |B| ~ 5e5
    assert abs(unshifted.sum() - 1) > 1e-12


def test_stable_posterior_on_rows_and_the_seed_values():
    b = np.array([[-120.0, -121.0], [-1000.0, -1001.0], [800.0, 799.0]])
    posterior = numerics.stable_posterior(b)
    expected = 1 / (1 + math.exp(-1))
    assert posterior[:, 0] == pytest.approx([expected] * 3, rel=1e-14)
    assert numerics.stable_posterior([0.0, -np.inf]).tolist() == [1.0, 0.0]


@pytest.mark.parametrize("bad", [[np.nan, 0.0], [np.inf, 0.0], [-np.inf, -np.inf], []])
def test_stable_posterior_rejects_bad_scores(bad):
    with pytest.raises(ValueError, match="scores"):
        numerics.stable_posterior(bad)


def test_table_flags_underflow_and_keeps_log_sum_exp_right():
    table = numerics.numerics_table(500, 0.002)
    assert list(table.index) == ["naive float64", "naive float32", "log-sum-exp"]
    assert table.loc["naive float64", "note"] == "underflow: 0/0 = NaN"
    assert math.isnan(table.loc["naive float64", "P(A | x)"])
    assert table.loc["log-sum-exp", "P(A | x)"] == pytest.approx(exact_posterior_a(500, 0.002))
    short = numerics.numerics_table(10, 0.002)
    assert short.loc["naive float64", "note"] == ""
    assert short.loc["naive float64", "P(A | x)"] == pytest.approx(
        short.loc["log-sum-exp", "P(A | x)"], rel=1e-13
    )


def test_sweep_naive_breaks_at_the_zero_length_and_stable_does_not():
    n0 = numerics.first_zero_length(0.01)
    n32 = numerics.first_zero_length(0.01, "float32")
    lengths = [10, n32 - 1, n32, n0 - 1, n0, 10**5]
    sweep = numerics.numerics_sweep(lengths, 0.004)
    assert list(sweep.index) == lengths
    assert sweep["naive float64"].isna().tolist() == [False] * 4 + [True, True]
    assert sweep["naive float32"].isna().tolist() == [False, False] + [True] * 4
    assert np.allclose(sweep["log-sum-exp"], sweep["exact"], rtol=1e-12, atol=0)
    assert sweep.loc[10, "naive float64"] == pytest.approx(sweep.loc[10, "exact"], rel=1e-13)
    # subnormal products carry fewer digits: right to a few digits only, just before zero
    assert sweep.loc[n0 - 1, "naive float64"] != pytest.approx(sweep.loc[n0 - 1, "exact"], rel=1e-6)


@pytest.mark.parametrize(("n", "gap"), [(1000, 0.01), (10, 0.0), (400, 0.003)])
def test_panel_shows_the_scores_and_flags_underflow(n, gap):
    table = numerics.numerics_table(n, gap)
    text = numerics.numerics_panel(n, gap)
    b = numerics.class_scores(n, gap)
    assert f"b_A = {b[0]:.2f}, b_B = {b[1]:.2f}" in text and "not formed" in text
    assert ("NaN" in text) == table.loc["naive float64", "note"].endswith("NaN")
    assert (FLAG_TEXT in text) == (table["note"].str.startswith("underflow").any())
    assert f"{table.loc['log-sum-exp', 'P(A | x)']:.4g}" in text
    assert pd.isna(table.loc["log-sum-exp", "p(x, A)"])


@pytest.mark.parametrize(
    ("n", "gap", "p", "prior_a"), [(7, 0.02, 0.01, 0.5), (5000, 0.004, 0.2, 0.3)]
)
def test_scores_and_posterior_are_nbcores_multinomial_nb(n, gap, p, prior_a):
    # a two-word vocabulary: word 0 has probability p under A and p exp(-gap) under B, and the
    # document is word 0 repeated n times; alpha = 0 keeps exactly these probabilities
    import nbcore

    q = p * math.exp(-gap)
    model = nbcore.MultinomialNB(alpha=0.0, class_prior=[prior_a, 1 - prior_a]).fit(
        [[1, 0], [0, 1], [1, 0], [0, 1]], ["A", "A", "B", "B"], sample_weight=[p, 1 - p, q, 1 - q]
    )
    b = model.predict_joint_log_proba([[n, 0]])[0]
    np.testing.assert_allclose(numerics.class_scores(n, gap, p, prior_a), b, rtol=1e-12)
    np.testing.assert_allclose(
        numerics.stable_posterior(b), model.predict_proba([[n, 0]])[0], rtol=1e-12
    )


def test_explorer_builds_and_updates():
    box = numerics.numerics_explorer(n_words=1000, gap=0.01)
    length, gap, panel = box.children
    assert round(length.value) == 1000 and gap.value == pytest.approx(0.01)
    assert "NaN" in panel.value
    length.value = 10
    assert "NaN" not in panel.value


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: numerics.class_scores(-1, 0.1), ValueError),
        (lambda: numerics.class_scores(1.5, 0.1), TypeError),
        (lambda: numerics.class_scores(10, -0.1), ValueError),
        (lambda: numerics.class_scores(10, 0.1, word_prob=1.0), ValueError),
        (lambda: numerics.class_scores(10, 0.1, prior_a=0.0), ValueError),
        (lambda: numerics.naive_posterior(10, 0.1, dtype="float16"), ValueError),
        (lambda: numerics.first_zero_length(0.0), ValueError),
        (lambda: numerics.numerics_sweep([], 0.1), TypeError),
        (lambda: numerics.numerics_explorer(gap=0.5), ValueError),
    ],
)
def test_bad_input_is_named(call, error):
    with pytest.raises(error):
        call()
