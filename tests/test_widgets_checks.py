"""The explorers' shared argument checks: each error path, and what passes through."""

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from nbcore._validation import check_bool, check_int, check_pair, check_probability, check_real

# --------------------------------------------------------------------------- check_real


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 0.0), (2.5, 2.5), (-3, -3.0), (np.float64(0.25), 0.25), (np.int64(7), 7.0)],
)
def test_real_returns_a_float(value, expected):
    got = check_real("x", value)
    assert type(got) is float and got == expected


@pytest.mark.parametrize(
    ("value", "kind"),
    [("1.0", "str"), (None, "NoneType"), ([1.0], "list"), (1 + 2j, "complex")],
)
def test_real_refuses_what_is_not_a_number(value, kind):
    with pytest.raises(TypeError, match=f"^alpha must be a real number, got {kind}$"):
        check_real("alpha", value)


@pytest.mark.parametrize("value", [True, False, np.True_])
def test_real_refuses_a_bool(value):
    with pytest.raises(TypeError, match="^alpha must be a real number, got bool$"):
        check_real("alpha", value)


@pytest.mark.parametrize(
    ("value", "shown"), [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")]
)
def test_real_refuses_nan_and_infinity(value, shown):
    with pytest.raises(ValueError, match=f"^mu must be a finite number, got {shown}$"):
        check_real("mu", value)
    # also when the bounds would let an infinity through
    with pytest.raises(ValueError, match=f"^mu must be a finite number >= 0, got {shown}$"):
        check_real("mu", value, 0.0)


def test_real_closed_bounds_include_the_bounds():
    assert check_real("gap", 0.0, 0.0, 0.05) == 0.0
    assert check_real("gap", 0.05, 0.0, 0.05) == 0.05
    for value in (-0.001, 0.06):
        message = rf"^gap must be a finite number in \[0, 0.05\], got {value}$"
        with pytest.raises(ValueError, match=message):
            check_real("gap", value, 0.0, 0.05)


def test_real_open_bounds_exclude_the_bounds():
    assert check_real("p", 0.5, 0.0, 1.0, open_low=True, open_high=True) == 0.5
    with pytest.raises(ValueError, match=r"^p must be a finite number in \(0, 1\), got 0$"):
        check_real("p", 0, 0.0, 1.0, open_low=True, open_high=True)
    with pytest.raises(ValueError, match=r"^p must be a finite number in \(0, 1\), got 1.0$"):
        check_real("p", 1.0, 0.0, 1.0, open_low=True, open_high=True)
    # half-open: the closed side is allowed, the open side is not
    assert check_real("p", 0.0, 0.0, 1.0, open_high=True) == 0.0
    with pytest.raises(ValueError, match=r"^p must be a finite number in \[0, 1\), got 1.0$"):
        check_real("p", 1.0, 0.0, 1.0, open_high=True)


def test_real_one_sided_bounds():
    assert check_real("alpha", 0.0, 0.0) == 0.0
    with pytest.raises(ValueError, match="^alpha must be a finite number >= 0, got -1.0$"):
        check_real("alpha", -1.0, 0.0)
    with pytest.raises(ValueError, match="^alpha must be a finite number > 0, got 0.0$"):
        check_real("alpha", 0.0, 0.0, open_low=True)
    assert check_real("t", 3.0, high=3.0) == 3.0
    with pytest.raises(ValueError, match="^t must be a finite number <= 3, got 3.5$"):
        check_real("t", 3.5, high=3.0)
    with pytest.raises(ValueError, match="^t must be a finite number < 3, got 3.0$"):
        check_real("t", 3.0, high=3.0, open_high=True)


# --------------------------------------------------------------------------- check_probability


@pytest.mark.parametrize("value", [0, 0.0, 0.3, 1, 1.0, np.float64(0.7), Fraction(1, 3)])
def test_probability_accepts_zero_to_one(value):
    got = check_probability("p_storm", value)
    assert type(got) is float and got == float(value)


@pytest.mark.parametrize(
    ("value", "shown"), [(1.5, "1.5"), (-0.1, "-0.1"), (math.nan, "nan"), (math.inf, "inf")]
)
def test_probability_refuses_values_outside_zero_to_one(value, shown):
    message = rf"^p_storm must be a probability in \[0, 1\], got {shown}$"
    with pytest.raises(ValueError, match=message):
        check_probability("p_storm", value)


def test_probability_open_ends():
    assert check_probability("prior_m", 0.01, open_low=True, open_high=True) == 0.01
    for value in (0.0, 1.0):
        with pytest.raises(
            ValueError, match=rf"^prior_m must be a probability in \(0, 1\), got {value}$"
        ):
            check_probability("prior_m", value, open_low=True, open_high=True)


@pytest.mark.parametrize(("value", "kind"), [(True, "bool"), ("0.5", "str"), (None, "NoneType")])
def test_probability_refuses_what_is_not_a_number(value, kind):
    with pytest.raises(TypeError, match=f"^prior_yes must be a real number, got {kind}$"):
        check_probability("prior_yes", value)


# --------------------------------------------------------------------------- check_int


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3)])
def test_int_returns_a_python_int(value):
    got = check_int("n_features", value, 1)
    assert type(got) is int and got == 3


@pytest.mark.parametrize(
    ("value", "kind"), [(2.0, "float"), ("2", "str"), (None, "NoneType"), (True, "bool")]
)
def test_int_refuses_what_is_not_an_int(value, kind):
    with pytest.raises(TypeError, match=f"^n_features must be an int, got {kind}$"):
        check_int("n_features", value, 1)


def test_int_bounds_are_inclusive():
    assert check_int("n_values", 2, 2, 6) == 2
    assert check_int("n_values", 6, 2, 6) == 6
    for value in (1, 7):
        with pytest.raises(
            ValueError, match=f"^n_values must be an int between 2 and 6, got {value}$"
        ):
            check_int("n_values", value, 2, 6)


def test_int_one_sided_and_unbounded():
    with pytest.raises(ValueError, match="^n_words must be an int >= 0, got -1$"):
        check_int("n_words", -1, 0)
    with pytest.raises(ValueError, match="^k must be an int <= 5, got 6$"):
        check_int("k", 6, high=5)
    assert check_int("seed", -12) == -12
    assert check_int("seed", 10**30) == 10**30


# --------------------------------------------------------------------------- check_bool


@pytest.mark.parametrize("value", [True, False, np.True_, np.False_])
def test_bool_returns_a_python_bool(value):
    got = check_bool("shared", value)
    assert type(got) is bool and got == bool(value)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(1, "1 (int)"), (0.0, "0.0 (float)"), ("yes", "'yes' (str)"), (None, "None (NoneType)")],
)
def test_bool_refuses_anything_else(value, shown):
    message = f"^shared must be True or False; got {re.escape(shown)}\\.$"
    with pytest.raises(TypeError, match=message):
        check_bool("shared", value)


@pytest.mark.parametrize(
    ("values", "error", "words"),
    [
        ("ab", TypeError, "p must be a pair (lo, hi), got str"),
        (0.5, TypeError, "p must be a pair (lo, hi), got float"),
        ((0.1, 0.2, 0.3), ValueError, "p must hold 2 values (lo, hi), got 3"),
    ],
)
def test_check_pair_names_what_the_two_values_are(values, error, words):
    with pytest.raises(error) as info:
        check_pair("p", values, "(lo, hi)")
    assert str(info.value) == words
    assert check_pair("p", (0.1, 0.2), "(lo, hi)") == [0.1, 0.2]
