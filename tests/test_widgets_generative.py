"""The generative chapter's explorer: parameter counts and the identical-record match rate.

Expected values come from independent computations: parameter counts from enumerating every
possible record, the simulated match rate from comparing every test record with every
training record feature by feature (the module encodes records as integers or bytes), and
the exact match rate from a sum over all M**D records (the module sums over value counts).
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from nbcore.widgets import generative


def brute_force_rate(n_features, n_train, n_values, probs=None, n_test=1000, seed=0):
    """The simulation redone by broadcasting: same draws, a different comparison."""
    q = np.full(n_values, 1 / n_values) if probs is None else np.asarray(probs, dtype=float)
    rng = np.random.default_rng(seed)
    train = rng.choice(n_values, size=(n_train, n_features), p=q)
    test = rng.choice(n_values, size=(n_test, n_features), p=q)
    identical = (test[:, None, :] == train[None, :, :]).all(axis=2)
    return identical.any(axis=1).mean()


def enumerated_rate(n_features, n_train, probs):
    """sum over every record x of p(x) (1 - (1 - p(x))**N), enumerating all M**D records."""
    total = 0.0
    for record in itertools.product(range(len(probs)), repeat=n_features):
        p = math.prod(probs[v] for v in record)
        total += p * (1 - (1 - p) ** n_train)
    return total


# --------------------------------------------------------------------------- parameter counts


def test_shimodaira_fish_example():
    # three features of twenty values: 20**3 = 8000 bins against 3 * 20 = 60
    counts = generative.parameter_counts(3, 20)
    assert counts == {
        "cells": 8000,
        "full table per class": 7999,
        "one-dimensional cells": 60,
        "naive Bayes": 57,
    }


@pytest.mark.parametrize(("n_features", "n_values"), [(1, 2), (3, 2), (4, 3), (2, 5), (5, 2)])
def test_counts_match_an_enumeration_of_the_records(n_features, n_values):
    records = list(itertools.product(range(n_values), repeat=n_features))
    counts = generative.parameter_counts(n_features, n_values)
    assert counts["cells"] == len(records)
    assert counts["full table per class"] == len(records) - 1
    # naive Bayes: one table per feature, each over the values that feature takes
    tables = [{r[d] for r in records} for d in range(n_features)]
    assert counts["one-dimensional cells"] == sum(len(t) for t in tables)
    assert counts["naive Bayes"] == sum(len(t) - 1 for t in tables)


@pytest.mark.parametrize("n_features", [1, 2, 7, 20, 64])
def test_binary_features_and_the_levine_count(n_features):
    counts = generative.parameter_counts(n_features)
    assert counts["full table per class"] == 2**n_features - 1
    assert counts["naive Bayes"] == n_features


def test_count_table_keeps_exact_integers():
    table = generative.parameter_count_table([1, 10, 30], 20)
    assert list(table.index) == [1, 10, 30]
    assert table.index.name == "D"
    assert table.loc[30, "cells"] == 20**30  # far beyond 64 bits, still exact
    assert table.loc[30, "full table per class"] == 20**30 - 1
    assert table.loc[10, "naive Bayes"] == 190


# --------------------------------------------------------------------------- the simulation


def test_draw_records_shape_type_and_frequencies():
    x = generative.draw_records(20_000, 3, 3, probs=[0.6, 0.3, 0.1], rng=np.random.default_rng(5))
    assert x.shape == (20_000, 3) and x.dtype == np.uint8
    freq = np.bincount(x.ravel(), minlength=3) / x.size
    assert freq == pytest.approx([0.6, 0.3, 0.1], abs=0.01)


@pytest.mark.parametrize(
    ("n_features", "n_train", "n_values", "probs"),
    [
        (1, 5, 2, None),
        (6, 50, 2, None),
        (10, 1000, 2, None),
        (5, 300, 3, None),
        (8, 200, 3, [0.7, 0.2, 0.1]),
        (12, 500, 2, [0.9, 0.1]),
        (40, 100, 3, [0.98, 0.01, 0.01]),  # 3**40 > 2**62: the module compares bytes
        (70, 50, 2, [0.995, 0.005]),  # 2**70 > 2**62 as well
    ],
)
def test_match_rate_equals_a_brute_force_comparison(n_features, n_train, n_values, probs):
    got = generative.match_rate(n_features, n_train, n_values, probs=probs, n_test=400, seed=3)
    expected = brute_force_rate(n_features, n_train, n_values, probs, n_test=400, seed=3)
    assert got == expected
    assert 0.0 <= got <= 1.0


def test_bytes_path_finds_twins():
    # nearly constant features: most records are all zeros, so twins are common
    rate = generative.match_rate(70, 50, 2, probs=[0.999, 0.001], n_test=200, seed=1)
    assert rate > 0.5


def test_same_seed_same_rate_other_seed_other_draws():
    a = generative.match_rate(11, 1000, seed=4)
    assert generative.match_rate(11, 1000, seed=4) == a
    rates = {generative.match_rate(11, 1000, seed=s) for s in range(5)}
    assert len(rates) > 1


# --------------------------------------------------------------------------- the exact rate


@pytest.mark.parametrize(
    ("n_features", "n_train", "n_values"), [(1, 1, 2), (4, 100, 2), (10, 1000, 2), (6, 500, 3)]
)
def test_uniform_exact_rate_is_the_closed_form(n_features, n_train, n_values):
    expected = 1 - (1 - n_values**-n_features) ** n_train
    got = generative.expected_match_rate(n_features, n_train, n_values)
    assert got == pytest.approx(expected, rel=1e-12)
    # the same through the general sum over value counts
    uniform = [1 / n_values] * n_values
    general = generative.expected_match_rate(n_features, n_train, n_values, probs=uniform)
    assert general == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize(
    ("n_features", "n_train", "probs"),
    [
        (3, 10, [0.5, 0.5]),
        (6, 40, [0.8, 0.2]),
        (5, 100, [0.6, 0.3, 0.1]),
        (4, 7, [0.25, 0.25, 0.4, 0.1]),
        (4, 20, [0.5, 0.5, 0.0]),  # a value that never occurs
    ],
)
def test_exact_rate_matches_a_sum_over_every_record(n_features, n_train, probs):
    got = generative.expected_match_rate(n_features, n_train, len(probs), probs=probs)
    assert got == pytest.approx(enumerated_rate(n_features, n_train, probs), rel=1e-10)


@pytest.mark.parametrize(
    ("n_features", "n_train", "n_values", "probs"),
    [(12, 1000, 2, None), (7, 300, 3, [0.5, 0.3, 0.2]), (30, 2000, 2, [0.9, 0.1])],
)
def test_simulation_agrees_with_the_exact_rate(n_features, n_train, n_values, probs):
    exact = generative.expected_match_rate(n_features, n_train, n_values, probs=probs)
    rates = [
        generative.match_rate(n_features, n_train, n_values, probs=probs, n_test=1000, seed=s)
        for s in range(20)
    ]
    # 20 000 test records in all; the training sets differ between seeds too, so allow
    # a few standard errors of the per-seed rates
    standard_error = np.std(rates, ddof=1) / np.sqrt(len(rates))
    assert abs(np.mean(rates) - exact) < 4 * standard_error + 0.005


def test_exact_rate_falls_with_features_and_rises_with_data():
    by_d = [generative.expected_match_rate(d, 1000) for d in range(1, 31)]
    assert all(a >= b for a, b in zip(by_d, by_d[1:], strict=False))
    assert by_d[0] == pytest.approx(1.0) and by_d[-1] < 1e-5
    by_n = [generative.expected_match_rate(15, n) for n in (10, 100, 1000, 10_000, 100_000)]
    assert all(a < b for a, b in zip(by_n, by_n[1:], strict=False))


def test_half_rate_threshold_follows_n_over_ln2():
    # the rate drops below 1/2 once M**D > N / ln 2
    for n_train, n_values in [(1000, 2), (5000, 3), (100_000, 2)]:
        d = next(
            d for d in range(1, 60) if generative.expected_match_rate(d, n_train, n_values) < 0.5
        )
        assert n_values**d > n_train / math.log(2) >= n_values ** (d - 1)


def test_tiny_probabilities_keep_their_digits():
    # 1 - (1 - p)**N with p = 2**-60: naive floating point gives 0
    got = generative.expected_match_rate(60, 1000)
    assert got == pytest.approx(1000 * 2.0**-60, rel=1e-9)


# --------------------------------------------------------------------------- the sweep


def test_sweep_is_the_rate_on_a_grid():
    sweep = generative.match_rate_sweep([2, 8, 14], [100, 1000], 2, n_test=300, seed=2)
    assert sweep.shape == (3, 2)
    assert list(sweep.index) == [2, 8, 14] and list(sweep.columns) == [100, 1000]
    assert (sweep.index.name, sweep.columns.name) == ("D", "N")
    for d in (2, 8, 14):
        for n in (100, 1000):
            assert sweep.loc[d, n] == generative.match_rate(d, n, 2, n_test=300, seed=2)
    exact = generative.match_rate_sweep([2, 8, 14], [100, 1000], 3, exact=True)
    assert exact.loc[8, 100] == pytest.approx(1 - (1 - 3.0**-8) ** 100, rel=1e-12)


# --------------------------------------------------------------------------- explorer


def test_panel_shows_the_numbers():
    text = generative.match_panel(10, 1000, 2, n_test=1000, seed=0)
    assert f"{brute_force_rate(10, 1000, 2):.3f}" in text
    assert f"{1 - (1 - 2.0**-10) ** 1000:.3f}" in text
    assert "1,023" in text and "1,024" in text and "N = 1,000" in text
    assert "<script" not in text and "http" not in text
    other = generative.match_panel(4, 100, 3, n_test=300, seed=2)
    assert f"{brute_force_rate(4, 100, 3, n_test=300, seed=2):.3f}" in other and "80<" in other
    huge = generative.match_panel(30, 100, 6, n_test=10)
    assert "2.211e+23" in huge  # 6**30, in powers of ten


def test_explorer_recomputes_when_a_slider_moves():
    box = generative.generative_explorer(n_features=10, n_train=1000, n_values=2, n_test=200)
    d_slider, n_slider, m_slider, panel = box.children
    assert (d_slider.min, d_slider.max, m_slider.min, m_slider.max) == (1, 30, 2, 6)
    assert [c.description for c in box.children[:3]] == [c.label for c in generative.CONTROLS]
    assert [v for _, v in n_slider.options] == list(generative.TRAIN_SIZES)
    assert panel.value == generative.match_panel(10, 1000, 2, n_test=200)
    for d, n, m in [(4, 100, 2), (20, 100_000, 2), (6, 3000, 3)]:
        d_slider.value, n_slider.value, m_slider.value = d, n, m
        assert panel.value == generative.match_panel(d, n, m, n_test=200)


def test_naive_bayes_count_is_the_size_of_categoricalnb_tables():
    """D (M - 1) free parameters a class: the entries CategoricalNB fits, less one a feature."""
    import nbcore

    for n_features, n_values in [(3, 2), (5, 4), (2, 6)]:
        x = generative.draw_records(500, n_features, n_values, rng=np.random.default_rng(1))
        model = nbcore.CategoricalNB().fit(x, np.zeros(len(x), dtype=int))
        fitted = sum(table.shape[1] - 1 for table in model.feature_log_prob_)
        counts = generative.parameter_counts(n_features, n_values)
        assert fitted == counts["naive Bayes"]
        assert fitted + n_features == counts["one-dimensional cells"]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: generative.parameter_counts(0), ValueError, "n_features must be an int >= 1"),
        (lambda: generative.parameter_counts(2.5), TypeError, "n_features must be an int"),
        (lambda: generative.parameter_counts(3, 1), ValueError, "n_values must be an int >= 2"),
        (lambda: generative.parameter_counts(True), TypeError, "got bool"),
        (lambda: generative.match_rate(3, 0), ValueError, "n_records must be an int >= 1"),
        (lambda: generative.match_rate(3, 10, n_test=0), ValueError, "n_test"),
        (lambda: generative.match_rate(3, 10, seed=-1), ValueError, "seed"),
        (
            lambda: generative.match_rate(3, 10, 3, probs=[0.5, 0.5]),
            ValueError,
            "one entry per value",
        ),
        (
            lambda: generative.match_rate(3, 10, 2, probs=[0.7, 0.7]),
            ValueError,
            "sum to 1",
        ),
        (lambda: generative.match_rate(3, 10, 2, probs="ab"), TypeError, "probs"),
        (lambda: generative.expected_match_rate(3, 0), ValueError, "n_train"),
        (
            lambda: generative.draw_records(3, 2, rng=np.random.RandomState(0)),
            TypeError,
            "rng must be a numpy.random.Generator",
        ),
        (lambda: generative.match_rate_sweep([], [10]), ValueError, "at least one"),
        (lambda: generative.parameter_count_table([]), ValueError, "at least one"),
        (
            lambda: generative.generative_explorer(n_train=500),
            ValueError,
            "n_train must be one of",
        ),
        (lambda: generative.generative_explorer(n_features=31), ValueError, r"in \[1, 30\]"),
        (lambda: generative.generative_explorer(n_test=0), ValueError, "n_test"),
    ],
)
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_count_table_is_a_dataframe():
    assert isinstance(generative.parameter_count_table([1, 2]), pd.DataFrame)
