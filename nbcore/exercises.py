"""Answer checks with hints, and the exercise format every chapter follows.

An exercise is a labelled block under a chapter's ``## Exercises`` heading: a heading
``### Exercise 6.1`` and the task in words (with the data it needs and the name to store the
answer in), one or more *solution* cells, and one *check* cell that compares the answer with
the expected one and prints a one-line verdict::

    Exercise 9.9: correct (2 points)
    Exercise 9.9: not yet — hint: it looks as if you forgot the smoothing
    Exercise 9.9: not attempted — replace the ... in the answer cell with your answer

The book shows the solution folded; student copies (``python -m nbcore.classroom student``)
replace it with an answer cell and the check with a *self-check* (:func:`self_check`) that
holds no expected value, and the grader (``python -m nbcore.classroom grade``) runs the
students' answers in a sandbox and judges their values with the check cells of the book's
own copy.

The markup (cell metadata ``exercise`` and ``role``), the rules ``student`` checks, the
per-student variants (data cells and :func:`variant_rng`) and how to write mistakes that teach
are documented in CONTRIBUTING.md, "The exercise markup".

The checks
----------
:func:`check_number`, :func:`check_array`, :func:`check_probabilities`,
:func:`check_attribute` (a fitted estimator's attribute) and :func:`check_label`. Each prints
one verdict line and returns None. ``mistakes`` maps a hint to the answer a usual mistake
gives: a value, or a function of no argument (or of the expected value) that computes it, for
example ``lambda: counts / counts.sum()`` for "forgot smoothing" or
``lambda expected: expected[::-1]`` for "swapped the classes". When the student's answer
matches a mistake, its hint is printed; otherwise a built-in hint names what is recognisable
(wrong shape, log instead of probability, not normalised, rounded, ...). Verdicts never show
the expected value, and they are deterministic, so nbval compares them.
"""

import inspect
import json
import math
import numbers
import os
import warnings
import zlib

import numpy as np

from nbcore.answers import Unanswered, fingerprint, type_name
from nbcore.answers import encode as _encode
from nbcore.answers import normalize as _normalize

__all__ = [
    "check_number",
    "check_array",
    "check_probabilities",
    "check_attribute",
    "check_label",
    "self_check",
    "use_variant",
    "variant_rng",
    "verdict_line",
    "Unanswered",
]

CORRECT = "correct"
NOT_YET = "not yet"
NOT_ATTEMPTED = "not attempted"
NOT_ATTEMPTED_TEXT = "replace the ... in the answer cell with your answer"

PLAUSIBLE = "looks plausible"
PLAUSIBLE_TEXT = "graded on hand-in"

# Set by the student-copy tool when it runs a chapter to collect what the copies need.
RECORD_ENV = "NBCORE_EXERCISES_RECORD"

# The data variant in use: None for the book's own numbers (see use_variant).
_VARIANT = {"seed": None}


def verdict_line(exercise, status, points=1, hint=None):
    """The one line a check prints, for example "Exercise 9.9: correct (2 points)"."""
    unit = "point" if points == 1 else "points"
    if status == CORRECT:
        return f"Exercise {exercise}: correct ({points} {unit})"
    if status == PLAUSIBLE:
        return f"Exercise {exercise}: {PLAUSIBLE}, {PLAUSIBLE_TEXT} ({points} {unit})"
    if status == NOT_ATTEMPTED:
        return f"Exercise {exercise}: not attempted — {NOT_ATTEMPTED_TEXT}"
    return f"Exercise {exercise}: not yet — hint: {' '.join(str(hint).split())}"


def use_variant(seed):
    """Use the data variant ``seed`` (an integer) from now on; None for the book's numbers.

    A student copy made for one student of a roster calls it once, before the exercises,
    with that student's seed; the grader calls it with the seed it derives itself.
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    _VARIANT["seed"] = seed


def variant_rng(exercise):
    """The random generator an exercise's data cell draws its variant from, or None.

    None means "the book's own numbers": in the book, and in copies made without a roster.
    Each exercise gets its own stream, so that adding a variant to one exercise does not
    change another's numbers.
    """
    if not isinstance(exercise, str) or not exercise:
        raise TypeError(f"exercise must be the exercise's number as a string, got {exercise!r}")
    if _VARIANT["seed"] is None:
        return None
    return np.random.default_rng([_VARIANT["seed"], zlib.crc32(exercise.encode())])


# --------------------------------------------------------------------------- the checks


def check_number(exercise, answer, expected, *, points=1, rtol=1e-6, atol=1e-12, mistakes=None):
    """Check a single number, equal to ``expected`` within ``rtol`` and ``atol``.

    Parameters
    ----------
    exercise : str
        The exercise's number, "6.1".
    answer : float
        The student's answer.
    expected : float
        The right answer.
    points : int, default=1
        What the exercise is worth.
    rtol, atol : float
        Relative and absolute tolerance, as in ``numpy.isclose``.
    mistakes : dict of str to value or callable, optional
        Hint -> the number a usual mistake gives (or a function computing it).
    """
    _check(exercise, points, _judge_number, answer, expected, rtol, atol, mistakes, "number")


def check_array(exercise, answer, expected, *, points=1, rtol=1e-6, atol=1e-12, mistakes=None):
    """Check an array of numbers (any shape), entry by entry within ``rtol`` and ``atol``.

    Parameters are those of :func:`check_number`; ``answer`` and ``expected`` are array-like
    (lists, NumPy arrays, pandas Series and DataFrames are turned into arrays).
    """
    _check(exercise, points, _judge_array, answer, expected, rtol, atol, mistakes, "array")


def check_probabilities(
    exercise, answer, expected, *, points=1, rtol=1e-6, atol=1e-9, mistakes=None
):
    """Check a probability vector, or a matrix whose rows are probability vectors.

    ``expected`` must have non-negative entries that sum to 1 along its last axis. Besides
    the hints of :func:`check_array`, a wrong answer is told when it has negative entries,
    entries above 1, or does not sum to 1 (not normalised).
    """
    expected_array = _as_numeric_array(_normalize(expected))
    if expected_array is None or expected_array.ndim == 0:
        raise ValueError(f"expected must be an array of probabilities, got {expected!r}")
    sums = expected_array.sum(axis=-1)
    if np.any(expected_array < 0) or not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        raise ValueError(
            "expected must hold probabilities that sum to 1 along the last axis, "
            f"got sums {np.round(sums, 6).tolist()}"
        )
    _check(
        exercise,
        points,
        _judge_probabilities,
        answer,
        expected,
        rtol,
        atol,
        mistakes,
        "probabilities",
    )


def check_attribute(
    exercise,
    model,
    attribute,
    expected,
    *,
    estimator=None,
    points=1,
    rtol=1e-6,
    atol=1e-12,
    mistakes=None,
):
    """Check a fitted estimator's attribute, for example ``model.feature_log_prob_``.

    Parameters
    ----------
    exercise : str
        The exercise's number.
    model : estimator
        The student's fitted estimator.
    attribute : str
        Name of the fitted attribute to compare, "class_count_".
    expected : array-like, or list of arrays
        Its right value (a list of arrays for per-feature attributes such as
        ``CategoricalNB.feature_log_prob_``); strings and booleans compare exactly.
    estimator : str, optional
        The class name the model must have, "CategoricalNB".
    points, rtol, atol, mistakes
        As in :func:`check_number`; a mistake gives the attribute's wrong value.
    """
    if not isinstance(attribute, str) or not attribute.isidentifier():
        raise ValueError(f"attribute must be an attribute name like 'classes_', got {attribute!r}")

    def judge(model, expected, rtol, atol, mistakes):
        return _judge_attribute(model, attribute, estimator, expected, rtol, atol, mistakes)

    info = {"attribute": attribute, "estimator": estimator}
    _check(exercise, points, judge, model, expected, rtol, atol, mistakes, "attribute", info)


def check_label(exercise, answer, expected, *, points=1, mistakes=None):
    """Check a single class label ("yes", True, 3), compared exactly, type included.

    ``mistakes`` maps a hint to a wrong label, for example
    ``{"that is the other class: compare the two scores again": "no"}``.
    """
    _check(exercise, points, _judge_label, answer, expected, None, None, mistakes, "label")


# --------------------------------------------------------------------------- the self-check


def self_check(
    exercise,
    answer,
    *,
    kind,
    points=1,
    shape=None,
    integer=False,
    finite=True,
    label_type=None,
    estimator=None,
    attribute=None,
    digits=6,
    salt="",
    mistakes=None,
):
    """The check of a student copy: format and known mistakes, never the expected value.

    A student copy holds no expected value, so this check cannot say "correct". It tells
    what can be told without one: that an answer is missing or raised, has the wrong type or
    shape, is not a probability vector, or equals a *known mistake*. Each mistake is given as
    the fingerprint of the wrong value it produces (:func:`nbcore.answers.fingerprint`:
    salted, slow, rounded to ``digits`` significant digits), so the copy holds no value, not
    even a wrong one. Otherwise the verdict is "looks plausible, graded on hand-in": only
    the grader, which recomputes the expected value from the book, says whether it is right.

    Parameters
    ----------
    exercise : str
        The exercise's number, "8.1".
    answer : callable or value
        ``lambda: name``: the answer, read when the check runs, so that an answer cell that
        failed gives a verdict rather than a NameError.
    kind : {"number", "array", "probabilities", "attribute", "label"}
        Which check the grader runs.
    points : int
        What the exercise is worth.
    shape : tuple, optional
        The shape of the expected array (or of the attribute).
    integer, finite : bool
        Whether the expected number is a whole number / finite.
    label_type : str, optional
        "str", "bool" or "number": the kind of the expected label.
    estimator, attribute : str, optional
        For ``kind="attribute"``: the class name and the fitted attribute read.
    digits : int
        Significant digits of the fingerprints.
    salt : str
        The fingerprints' salt.
    mistakes : dict of str to str, optional
        Hint -> fingerprint of the wrong answer the mistake gives.
    """
    if kind not in ("number", "array", "probabilities", "attribute", "label"):
        raise ValueError(f"kind must name a check, got {kind!r}")
    value, hint = _read_answer(answer)
    if value is Ellipsis:
        print(verdict_line(exercise, NOT_ATTEMPTED, points))
        return
    if hint is None:
        spec = {
            "shape": None if shape is None else tuple(shape),
            "integer": integer,
            "finite": finite,
            "label_type": label_type,
            "estimator": estimator,
            "attribute": attribute,
        }
        hint, compared = _format_hint(kind, value, spec)
        if mistakes and compared is not None:
            found = fingerprint(compared, salt, digits)
            named = next((h for h, mark in mistakes.items() if found and mark == found), None)
            hint = named or hint
    if hint is None:
        print(verdict_line(exercise, PLAUSIBLE, points))
    else:
        print(verdict_line(exercise, NOT_YET, points, hint))


def _read_answer(answer):
    """(value, None), or (None, hint) when reading the answer failed."""
    if callable(answer) and getattr(answer, "__name__", "") == "<lambda>":
        try:
            answer = answer()
        except NameError as error:
            name = str(error).split("'")[1] if "'" in str(error) else "the answer"
            return None, (
                f"{name} is not defined: run your answer cell (if it stopped with an error, "
                "fix the error first)"
            )
        except Exception as error:
            return None, f"reading your answer raised {type(error).__name__}"
    answer = _normalize(answer)
    if isinstance(answer, Unanswered):
        return None, answer.reason
    return answer, None


def _format_hint(kind, value, spec):
    """(hint or None, the value a mistake's fingerprint is compared with, or None)."""
    if kind == "number":
        number, hint = _as_number(value)
        if hint:
            return hint, None
        if math.isnan(number):
            return "your answer is NaN (not a number): look for a 0/0 or a log of 0", None
        if spec["finite"] and math.isinf(number):
            return "your answer is infinite: a division by 0 or a log of 0?", number
        if spec["integer"] and number != int(number):
            return "expected a whole number", None
        return None, number
    if kind == "label":
        value = _plain_label(value)
        if value is None:
            return "your answer is None: assign the label itself (print() returns None)", None
        if isinstance(value, (list, tuple, np.ndarray)):
            return f"expected one label, got a {_type_name(value)}: take one element", None
        if spec["label_type"] and _label_kind(value) != spec["label_type"]:
            return (
                f"expected a label of type {spec['label_type']} (like the values in "
                f"classes_), got {_type_name(value)}"
            ), None
        return None, None
    name = "your answer"
    if kind == "attribute":
        hint = _model_hint(value, spec["attribute"], spec["estimator"])
        if hint:
            return hint, None
        value, name = _normalize(getattr(value, spec["attribute"])), spec["attribute"]
    if value is None:
        return "your answer is None: assign the value itself (print() returns None)", None
    array = _as_numeric_array(value)
    if array is None:
        if kind == "attribute":
            return None, None  # labels, or a list of arrays: the grader compares them
        return f"expected an array of numbers, got {_type_name(value)}", None
    shape = spec["shape"]
    if shape is not None and array.shape != shape:
        if array.T.shape == shape and array.ndim > 1:
            return f"{name} has shape {array.shape}, expected {shape}: is it transposed?", None
        return f"{name} has shape {array.shape}, expected {shape}", None
    if np.isnan(array).any():
        return f"{name} contains NaN: look for a 0/0 or a log of 0", array
    if kind == "probabilities":
        return _probability_hint(array), array
    return None, array


def _model_hint(model, attribute, estimator):
    """What is wrong with a submitted estimator before its attribute is read, or None."""
    if model is None:
        return "your model is None: fit() returns the model, but assign the model itself"
    if isinstance(model, type):
        return "that is the class itself: create an estimator, e.g. Model(), and fit it"
    if estimator is not None and _type_name(model) != estimator:
        return f"expected a fitted {estimator}, got {_type_name(model)}"
    try:
        getattr(model, attribute)
    except AttributeError:
        return f"the model has no {attribute}: has it been fitted (model.fit(X, y))?"
    except Exception as error:  # a property that fails
        return f"reading {attribute} raised {type(error).__name__}"
    return None


# --------------------------------------------------------------------------- the machinery


def _check(exercise, points, judge, answer, expected, rtol, atol, mistakes, kind, info=None):
    """Validate the exercise's own arguments, judge the answer, print the verdict."""
    if not isinstance(exercise, str) or not exercise:
        raise TypeError(f"exercise must be the exercise's number as a string, got {exercise!r}")
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        raise ValueError(f"points must be a positive integer, got {points!r}")
    if mistakes is not None and not isinstance(mistakes, dict):
        raise TypeError(f"mistakes must be a dict of hint -> wrong answer, got {mistakes!r}")
    expected = _normalize(expected)
    mistakes = _evaluate_mistakes(mistakes or {}, expected)
    for hint, wrong in mistakes:
        if judge(wrong, expected, rtol, atol, []) is None:
            raise ValueError(
                f"the mistake {hint!r} gives the expected answer, so it can never be told apart"
            )
    answer = _normalize(answer)
    if answer is Ellipsis:
        status, hint = NOT_ATTEMPTED, None
    elif isinstance(answer, Unanswered):
        status, hint = NOT_YET, answer.reason
    else:
        hint = judge(answer, expected, rtol, atol, mistakes)
        status = CORRECT if hint is None else NOT_YET
    line = verdict_line(exercise, status, points, hint)
    _record(exercise, kind, points, expected, mistakes, rtol, atol, line, info or {})
    print(line)


def _evaluate_mistakes(mistakes, expected):
    """[(hint, wrong answer)], calling the functions among them (quietly: no warnings)."""
    evaluated = []
    for hint, value in mistakes.items():
        if not isinstance(hint, str) or not hint.strip():
            raise TypeError(f"each mistake's key must be its hint text, got {hint!r}")
        if callable(value):
            wants_expected = len(inspect.signature(value).parameters) > 0
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = value(expected) if wants_expected else value()
        evaluated.append((hint, _normalize(value)))
    return evaluated


def _record(exercise, kind, points, expected, mistakes, rtol, atol, line, info):
    """Append what the copy tool needs to its record file, when it asks for it.

    Only the instructor's run of the book writes a record; a student copy never holds one.
    """
    path = os.environ.get(RECORD_ENV)
    if not path:
        return
    entry = {
        "exercise": exercise,
        "kind": kind,
        "points": points,
        "variant": _VARIANT["seed"],
        "expected": _encode(expected),
        "mistakes": [[hint, _encode(wrong)] for hint, wrong in mistakes],
        "rtol": rtol,
        "atol": atol,
        "line": line,
        **info,
    }
    with open(path, "a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")


_type_name = type_name


def _fmt(x):
    return f"{x:.4g}"


def _as_number(answer):
    """(float, None) for a single real number, or (None, hint)."""
    if answer is None:
        return None, "your answer is None: assign the value itself (print() returns None)"
    if isinstance(answer, bool):
        return None, "expected a number, got a bool (True/False)"
    if isinstance(answer, (int, float)):
        return float(answer), None
    if isinstance(answer, (list, tuple, np.ndarray)):
        array = _as_numeric_array(answer)
        if array is not None and array.size == 1:
            return float(array.reshape(-1)[0]), None
        shape = np.shape(answer) if array is not None else (len(answer),)
        return None, f"expected one number, got an array of shape {tuple(shape)}"
    return None, f"expected a number, got {_type_name(answer)}"


def _as_numeric_array(value):
    """A float array, or None when the value is not an array of numbers."""
    if value is None or isinstance(value, (str, dict)):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            array = np.asarray(value)
    except (ValueError, TypeError):
        return None
    if array.dtype.kind not in "biuf":
        return None
    return array.astype(float)


def _close(a, b, rtol, atol):
    with np.errstate(all="ignore"):
        return bool(np.all(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)))


def _matches(answer, expected, rtol, atol):
    """Whether ``answer`` equals ``expected``: numbers within tolerance, the rest exactly."""
    if isinstance(expected, (list, tuple)) and any(
        isinstance(item, (np.ndarray, list, tuple)) for item in expected
    ):
        try:
            if len(answer) != len(expected):
                return False
            return all(_matches(a, e, rtol, atol) for a, e in zip(answer, expected, strict=True))
        except TypeError:
            return False
    expected_numbers = _as_numeric_array(expected)
    if expected_numbers is not None:
        answer_numbers = _as_numeric_array(answer)
        return (
            answer_numbers is not None
            and answer_numbers.shape == expected_numbers.shape
            and _close(answer_numbers, expected_numbers, rtol, atol)
        )
    try:
        a, e = np.asarray(answer, dtype=object), np.asarray(expected, dtype=object)
    except (ValueError, TypeError):
        return False
    return a.shape == e.shape and bool(np.all(a == e))


def _mistake_hint(answer, mistakes, rtol, atol):
    for hint, wrong in mistakes:
        if _matches(answer, wrong, rtol, atol):
            return hint
    return None


def _judge_number(answer, expected, rtol, atol, mistakes):
    """None when right, else the hint."""
    value, hint = _as_number(answer)
    if hint:
        return hint
    target, problem = _as_number(expected)
    if problem:
        raise ValueError(f"expected must be a number, got {expected!r}")
    if math.isnan(value):
        return "your answer is NaN (not a number): look for a 0/0 or a log of 0"
    if math.isclose(value, target, rel_tol=rtol, abs_tol=atol):
        return None
    hint = _mistake_hint(value, mistakes, rtol, atol)
    if hint:
        return hint
    if math.isinf(value):
        return "your answer is infinite: a division by 0 or a log of 0?"
    return _number_hint(value, target, rtol, atol)


def _number_hint(value, target, rtol, atol):
    """Built-in hints for a wrong single number."""

    def near(x):
        if x is None or not math.isfinite(x):
            return False
        return math.isclose(value, x, rel_tol=rtol, abs_tol=atol)

    with np.errstate(all="ignore"):
        log_target = math.log(target) if target > 0 else None
        exp_target = math.exp(target) if target < 700 else None
    if near(log_target):
        return "that is the logarithm of the answer: exponentiate it (np.exp)"
    if near(exp_target):
        return "that is exp of the answer: the answer is a logarithm (np.log)"
    if target != 0 and near(-target):
        return "the sign is wrong"
    if 0 < target < 1 and near(1 - target):
        return "that is 1 minus the answer: the probability of the other outcome"
    if target != 0 and near(1 / target):
        return "that is 1 divided by the answer: the fraction is upside down"
    if math.isclose(value, target, rel_tol=max(rtol, 1e-2), abs_tol=atol):
        return f"close, but not within the tolerance (rtol={rtol:g}): do not round"
    return "not the expected value"


def _judge_array(answer, expected, rtol, atol, mistakes, name="your array", extra_hint=None):
    """None when right, else the hint; ``extra_hint(array)`` adds kind-specific hints."""
    expected_array = _as_numeric_array(expected)
    if expected_array is None:
        raise ValueError(f"expected must be an array of numbers, got {expected!r}")
    if answer is None:
        return "your answer is None: assign the value itself (print() returns None)"
    answer_array = _as_numeric_array(answer)
    if answer_array is None:
        return f"expected an array of numbers, got {_type_name(answer)}"
    hint = None
    if answer_array.shape == expected_array.shape:
        if _close(answer_array, expected_array, rtol, atol):
            return None
    hint = _mistake_hint(answer_array, mistakes, rtol, atol)
    if hint:
        return hint
    if answer_array.shape != expected_array.shape:
        shapes = f"{name} has shape {answer_array.shape}, expected {expected_array.shape}"
        if answer_array.T.shape == expected_array.shape and _close(
            answer_array.T, expected_array, rtol, atol
        ):
            return f"{shapes}: it is transposed (rows are classes, columns features)"
        return shapes
    if np.isnan(answer_array).any() and not np.isnan(expected_array).any():
        return f"{name} contains NaN: look for a 0/0 or a log of 0"
    with np.errstate(all="ignore"):
        if np.all(expected_array > 0) and _close(answer_array, np.log(expected_array), rtol, atol):
            return f"{name} holds the logarithms of the answer: exponentiate (np.exp)"
        if _close(answer_array, np.exp(expected_array), rtol, atol):
            return f"{name} holds exp of the answer: the answer is in log space (np.log)"
    if expected_array.ndim >= 1 and expected_array.shape[0] > 1:
        if _close(answer_array, expected_array[::-1], rtol, atol):
            return (
                f"{name} has the classes in the wrong order: "
                "keep the order of classes_ (sorted labels)"
            )
    if extra_hint is not None:
        hint = extra_hint(answer_array)
        if hint:
            return hint
    if _close(answer_array, expected_array, max(rtol, 1e-2), atol):
        return f"close, but not within the tolerance (rtol={rtol:g}): do not round"
    with np.errstate(all="ignore"):
        wrong = ~np.isclose(answer_array, expected_array, rtol=rtol, atol=atol, equal_nan=True)
    return f"{int(wrong.sum())} of {expected_array.size} entries differ from the expected values"


def _probability_hint(probabilities):
    """Hints for an array that cannot be a probability vector (or rows of them)."""
    if np.any(probabilities < 0):
        return "probabilities cannot be negative: are these log probabilities?"
    if np.any(probabilities > 1):
        return "a probability cannot be above 1: normalise (divide by the total)"
    sums = probabilities.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        if sums.ndim == 0:
            return f"your probabilities sum to {_fmt(float(sums))}, not 1: normalise them"
        return "each row must sum to 1: normalise each row by its total"
    return None


def _judge_probabilities(answer, expected, rtol, atol, mistakes):
    return _judge_array(
        answer, expected, rtol, atol, mistakes, name="your answer", extra_hint=_probability_hint
    )


def _judge_attribute(model, attribute, estimator, expected, rtol, atol, mistakes):
    if model is None:
        return "your model is None: fit() returns the model, but assign the model itself"
    if isinstance(model, type) or _type_name(model) in ("type", "ABCMeta"):
        return "that is the class itself: create an estimator, e.g. Model(), and fit it"
    if estimator is not None and _type_name(model) != estimator:
        return f"expected a fitted {estimator}, got {_type_name(model)}"
    try:
        value = getattr(model, attribute)
    except AttributeError:
        return f"the model has no {attribute}: has it been fitted (model.fit(X, y))?"
    except Exception as error:  # a property that fails
        return f"reading {attribute} raised {type(error).__name__}"
    value = _normalize(value)
    if _matches(value, expected, rtol, atol):
        return None
    hint = _mistake_hint(value, mistakes, rtol, atol)
    if hint:
        return hint
    if _as_numeric_array(expected) is not None:
        return _judge_array(value, expected, rtol, atol, [], name=attribute)
    return f"{attribute} is not the expected value"


def _plain_label(value):
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return _normalize(value.item())
    return value


def _label_kind(value):
    """Labels compare within a kind: a bool is not the number 1, nor the string "True"."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, numbers.Number):
        return "number"
    return type(value).__name__


def _same_label(answer, expected):
    return _label_kind(answer) == _label_kind(expected) and answer == expected


def _judge_label(answer, expected, rtol, atol, mistakes):
    answer, expected = _plain_label(answer), _plain_label(expected)
    if answer is None:
        return "your answer is None: assign the label itself (print() returns None)"
    if isinstance(answer, (list, tuple, np.ndarray)):
        return (
            f"expected one label, got a {_type_name(answer)} of length {len(answer)}: "
            "take one element, e.g. [0]"
        )
    if _same_label(answer, expected):
        return None
    for hint, wrong in mistakes:
        if _same_label(answer, _plain_label(wrong)):
            return hint
    if _label_kind(answer) != _label_kind(expected):
        return (
            f"expected a label of type {type(expected).__name__} (like the values in "
            f"classes_), got {_type_name(answer)}"
        )
    if isinstance(answer, str) and answer.strip().lower() == expected.strip().lower():
        return "labels are exact: check the spelling, upper/lower case and spaces"
    return "not the expected label"
