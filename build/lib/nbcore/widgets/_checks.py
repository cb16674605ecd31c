"""The checks the explorers run on their arguments, in one place.

Every public function of :mod:`nbcore.widgets` checks its scalar arguments with these before
computing anything. Each error names the parameter, what was expected and what came: a
TypeError when the value is not of the expected kind (a bool is not a number here, although
Python counts ``True`` as 1), a ValueError when it is of the right kind but out of range.
"""

import math
from numbers import Integral, Real

from nbcore import _validation

__all__ = ["check_real", "check_probability", "check_int", "check_bool"]


def _interval(low, high, open_low, open_high):
    """How a message writes the allowed range: "in [0, 1)", ">= 0", "< 1", or ""."""
    if low is not None and high is not None:
        left, right = "(" if open_low else "[", ")" if open_high else "]"
        return f" in {left}{low:g}, {high:g}{right}"
    if low is not None:
        return f" {'>' if open_low else '>='} {low:g}"
    if high is not None:
        return f" {'<' if open_high else '<='} {high:g}"
    return ""


def _real(name, value, expected, low, high, open_low, open_high):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    number = float(value)
    too_low = low is not None and (number <= low if open_low else number < low)
    too_high = high is not None and (number >= high if open_high else number > high)
    if not math.isfinite(number) or too_low or too_high:
        interval = _interval(low, high, open_low, open_high)
        raise ValueError(f"{name} must be {expected}{interval}, got {value}")
    return number


def check_real(name, value, low=None, high=None, *, open_low=False, open_high=False):
    """A finite real number, optionally within bounds.

    Parameters
    ----------
    name : str
        The parameter's name, as the caller wrote it.
    value : object
        What came.
    low, high : float, optional
        Bounds; ``None`` leaves that side unbounded.
    open_low, open_high : bool, default False
        Exclude the bound itself (``value > low`` instead of ``value >= low``).

    Returns
    -------
    float

    Raises
    ------
    TypeError
        ``value`` is not a real number (a str, None, a bool, ...).
    ValueError
        ``value`` is NaN, infinite or outside the bounds.
    """
    return _real(name, value, "a finite number", low, high, open_low, open_high)


def check_probability(name, value, *, open_low=False, open_high=False):
    """A probability: :func:`check_real` on [0, 1], with messages that say "a probability".

    ``open_low`` and ``open_high`` exclude 0 and 1, for a prior or a parameter whose logarithm
    is taken. Returns a float; raises as :func:`check_real` does.
    """
    return _real(name, value, "a probability", 0.0, 1.0, open_low, open_high)


def check_int(name, value, low=None, high=None):
    """An integer (a Python or NumPy int, not a bool or a float), optionally low <= value <= high.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        ``value`` is not an integer: ``2.0`` is refused as well as ``"2"``.
    ValueError
        ``value`` is outside the bounds.
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            expected = f"between {low} and {high}"
        else:
            expected = f">= {low}" if low is not None else f"<= {high}"
        raise ValueError(f"{name} must be an int {expected}, got {value}")
    return int(value)


def check_bool(name, value):
    """True or False (a Python or NumPy bool; 0 and 1 are refused).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        ``value`` is not a bool.
    """
    _validation.check_bool(name, value)  # the estimators' check: one wording for both
    return bool(value)
