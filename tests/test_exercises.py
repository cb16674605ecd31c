"""nbcore.exercises: verdicts, hints keyed on the usual mistakes, and the writer's errors."""

import json

import numpy as np
import pandas as pd
import pytest

import nbcore
from nbcore import answers, exercises
from nbcore.datasets import load_weather


def verdict(capsys, check, *args, **kwargs):
    """The one line a check prints."""
    check(*args, **kwargs)
    out = capsys.readouterr().out
    assert out.endswith("\n") and out.count("\n") == 1, out
    return out.rstrip("\n")


def hint(capsys, check, *args, **kwargs):
    line = verdict(capsys, check, *args, **kwargs)
    prefix = f"Exercise {args[0]}: not yet — hint: "
    assert line.startswith(prefix), line
    return line[len(prefix) :]


# --------------------------------------------------------------------------- verdict lines


def test_verdict_lines_are_short_and_fixed():
    assert exercises.verdict_line("6.1", "correct", 2) == "Exercise 6.1: correct (2 points)"
    assert exercises.verdict_line("6.1", "correct", 1) == "Exercise 6.1: correct (1 point)"
    assert exercises.verdict_line("6.1", "not yet", 1, "a\n  b") == (
        "Exercise 6.1: not yet — hint: a b"
    )
    assert exercises.verdict_line("6.1", "not attempted").startswith(
        "Exercise 6.1: not attempted — replace the ..."
    )


def test_correct_answer_prints_points(capsys):
    line = verdict(capsys, exercises.check_number, "6.1", 10 / 16, expected=0.625, points=2)
    assert line == "Exercise 6.1: correct (2 points)"


def test_placeholder_is_not_attempted(capsys):
    for check, expected in [
        (exercises.check_number, 0.5),
        (exercises.check_array, [1.0, 2.0]),
        (exercises.check_probabilities, [0.5, 0.5]),
        (exercises.check_label, "yes"),
    ]:
        line = verdict(capsys, check, "1.1", ..., expected=expected)
        assert line.startswith("Exercise 1.1: not attempted — ")
    line = verdict(capsys, exercises.check_attribute, "1.1", ..., "classes_", expected=["a"])
    assert "not attempted" in line


def test_unanswered_carries_its_reason(capsys):
    answer = exercises.Unanswered("your code raised ZeroDivisionError: division by zero")
    assert hint(capsys, exercises.check_number, "1.2", answer, expected=1.0) == (
        "your code raised ZeroDivisionError: division by zero"
    )


def test_verdicts_are_deterministic(capsys):
    lines = {
        verdict(capsys, exercises.check_probabilities, "1.3", [0.7, 0.6], expected=[0.4, 0.6])
        for _ in range(3)
    }
    assert lines == {
        "Exercise 1.3: not yet — hint: your probabilities sum to 1.3, not 1: normalise them"
    }


# --------------------------------------------------------------------------- numbers


def test_number_tolerance_and_types(capsys):
    check = exercises.check_number
    assert "correct" in verdict(capsys, check, "2.1", 0.625 * (1 + 1e-8), expected=0.625)
    assert "correct" in verdict(capsys, check, "2.1", np.float32(0.5), expected=0.5, rtol=1e-6)
    assert "correct" in verdict(capsys, check, "2.1", np.array([0.5]), expected=0.5)
    assert "correct" in verdict(capsys, check, "2.1", 3, expected=3.0)
    assert hint(capsys, check, "2.1", "0.5", expected=0.5) == "expected a number, got str"
    assert hint(capsys, check, "2.1", True, expected=1.0).startswith(
        "expected a number, got a bool"
    )
    assert hint(capsys, check, "2.1", None, expected=1.0).startswith("your answer is None")
    assert hint(capsys, check, "2.1", [0.2, 0.8], expected=0.2) == (
        "expected one number, got an array of shape (2,)"
    )
    assert hint(capsys, check, "2.1", float("nan"), expected=0.2).startswith("your answer is NaN")
    assert hint(capsys, check, "2.1", float("inf"), expected=0.2).startswith(
        "your answer is infinite"
    )


def test_number_hints_name_the_usual_mistakes(capsys):
    check = exercises.check_number
    p = 0.3
    assert "logarithm" in hint(capsys, check, "2.2", np.log(p), expected=p)
    assert "exp of the answer" in hint(capsys, check, "2.2", np.exp(-2.5), expected=-2.5)
    assert hint(capsys, check, "2.2", -p, expected=p) == "the sign is wrong"
    assert "1 minus the answer" in hint(capsys, check, "2.2", 1 - p, expected=p)
    assert "upside down" in hint(capsys, check, "2.2", 1 / p, expected=p)
    assert "do not round" in hint(capsys, check, "2.2", 0.3001, expected=p)
    assert hint(capsys, check, "2.2", 0.9, expected=p) == "not the expected value"


def test_exercise_mistakes_come_first_values_and_functions(capsys):
    counts = np.array([5, 1, 5])
    mistakes = {
        "forgot the smoothing": lambda: counts[0] / counts.sum(),
        "the denominator needs alpha once per word": 6 / 12,
        "that is the complement, on purpose": lambda expected: 1 - expected,
    }
    expected = (5 + 1) / (11 + 3)
    kwargs = {"expected": expected, "mistakes": mistakes}
    check = exercises.check_number
    assert hint(capsys, check, "2.3", 5 / 11, **kwargs) == "forgot the smoothing"
    assert hint(capsys, check, "2.3", 0.5, **kwargs) == "the denominator needs alpha once per word"
    # an exercise's own hint wins over the built-in one for the same wrong answer
    assert (
        hint(capsys, check, "2.3", 1 - expected, **kwargs) == "that is the complement, on purpose"
    )


def test_mistake_functions_run_quietly(capsys, recwarn):
    counts = np.array([0, 3])
    line = verdict(
        capsys,
        exercises.check_number,
        "2.4",
        -np.inf,
        expected=np.log(1 / 5),
        mistakes={"no smoothing: log 0": lambda: np.log(counts / counts.sum())[0]},
    )
    assert line.endswith("hint: no smoothing: log 0")
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


# --------------------------------------------------------------------------- arrays


def test_array_accepts_lists_series_and_frames(capsys):
    check = exercises.check_array
    expected = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert "correct" in verdict(capsys, check, "3.1", [[1, 2], [3, 4]], expected=expected)
    assert "correct" in verdict(capsys, check, "3.1", pd.DataFrame(expected), expected=expected)
    assert "correct" in verdict(capsys, check, "3.1", pd.Series([1.0, 2.0]), expected=[1, 2])


def test_array_hints(capsys):
    check = exercises.check_array
    expected = np.array([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]])
    assert hint(capsys, check, "3.2", expected.T, expected=expected) == (
        "your array has shape (3, 2), expected (2, 3): it is transposed "
        "(rows are classes, columns features)"
    )
    assert hint(capsys, check, "3.2", expected[:1], expected=expected) == (
        "your array has shape (1, 3), expected (2, 3)"
    )
    assert "wrong order" in hint(capsys, check, "3.2", expected[::-1], expected=expected)
    assert "logarithms" in hint(capsys, check, "3.2", np.log(expected), expected=expected)
    wrong = expected.copy()
    wrong[0, 0] = 9
    assert hint(capsys, check, "3.2", wrong, expected=expected) == (
        "1 of 6 entries differ from the expected values"
    )
    wrong[0, 0] = np.nan
    assert "contains NaN" in hint(capsys, check, "3.2", wrong, expected=expected)
    assert hint(capsys, check, "3.2", "abc", expected=expected) == (
        "expected an array of numbers, got str"
    )


def test_array_variance_mistake(capsys):
    x = np.array([12.0, 30.0, 18.0])
    kwargs = {
        "expected": np.array([np.var(x)]),
        "mistakes": {"that divides by N - 1": lambda: np.array([np.var(x, ddof=1)])},
    }
    assert hint(capsys, exercises.check_array, "3.3", [np.var(x, ddof=1)], **kwargs) == (
        "that divides by N - 1"
    )


# --------------------------------------------------------------------------- probabilities


def test_probability_hints(capsys):
    check = exercises.check_probabilities
    expected = np.array([0.2, 0.8])
    assert "correct" in verdict(capsys, check, "4.1", [0.2, 0.8], expected=expected)
    assert "wrong order" in hint(capsys, check, "4.1", [0.8, 0.2], expected=expected)
    assert "logarithms" in hint(capsys, check, "4.1", np.log(expected), expected=expected)
    assert hint(capsys, check, "4.1", [-0.2, 1.2], expected=expected).startswith(
        "probabilities cannot be negative"
    )
    assert hint(capsys, check, "4.1", [0.5, 1.5], expected=expected).startswith(
        "a probability cannot be above 1"
    )
    # unnormalised joint probabilities: the usual "forgot to normalise"
    assert hint(capsys, check, "4.1", [0.02, 0.08], expected=expected) == (
        "your probabilities sum to 0.1, not 1: normalise them"
    )
    rows = np.array([[0.2, 0.8], [0.6, 0.4]])
    assert hint(capsys, check, "4.1", rows * 2, expected=rows) == (
        "a probability cannot be above 1: normalise (divide by the total)"
    )
    assert hint(capsys, check, "4.1", rows / 4, expected=rows) == (
        "each row must sum to 1: normalise each row by its total"
    )


def test_probability_multiplied_raw_probabilities(capsys):
    """A long product of raw probabilities underflows to 0: the exercise names it."""
    log_theta = np.log(np.full((2, 800), 0.01))
    log_joint = np.log([0.5, 0.5]) + log_theta.sum(axis=1) + np.array([0.0, 1.0])
    expected = np.exp(log_joint - nbcore.logsumexp(log_joint))
    raw = np.prod(np.exp(log_theta), axis=1) * 0.5
    mistakes = {"the product of raw probabilities underflowed: work in log space": raw}
    assert hint(
        capsys, exercises.check_probabilities, "4.2", raw, expected=expected, mistakes=mistakes
    ) == ("the product of raw probabilities underflowed: work in log space")


def test_probability_expected_must_be_probabilities():
    with pytest.raises(ValueError, match="sum to 1"):
        exercises.check_probabilities("4.3", [0.5, 0.5], expected=[0.5, 0.6])
    with pytest.raises(ValueError, match="array of probabilities"):
        exercises.check_probabilities("4.3", [0.5, 0.5], expected="yes")


# --------------------------------------------------------------------------- estimators


@pytest.fixture(scope="module")
def spam():
    X = np.array([[0, 2, 0], [1, 3, 0], [0, 1, 1], [3, 0, 2], [2, 1, 3]])
    y = np.array(["ham", "ham", "ham", "spam", "spam"])
    counts = np.array([X[y == c].sum(axis=0) for c in ["ham", "spam"]])
    return X, y, counts


def test_attribute_of_a_fitted_model(capsys, spam):
    X, y, counts = spam
    expected = np.log((counts + 1) / (counts + 1).sum(axis=1, keepdims=True))
    unsmoothed = nbcore.MultinomialNB(alpha=1e-10).fit(X, y)
    kwargs = {
        "expected": expected,
        "estimator": "MultinomialNB",
        "points": 2,
        "mistakes": {"unsmoothed: use alpha=1": lambda: unsmoothed.feature_log_prob_},
    }
    check = exercises.check_attribute
    model = nbcore.MultinomialNB().fit(X, y)
    assert verdict(capsys, check, "5.1", model, "feature_log_prob_", **kwargs) == (
        "Exercise 5.1: correct (2 points)"
    )
    assert hint(capsys, check, "5.1", unsmoothed, "feature_log_prob_", **kwargs) == (
        "unsmoothed: use alpha=1"
    )
    assert hint(capsys, check, "5.1", nbcore.MultinomialNB(), "feature_log_prob_", **kwargs) == (
        "the model has no feature_log_prob_: has it been fitted (model.fit(X, y))?"
    )
    gaussian = nbcore.GaussianNB().fit(X, y)
    assert hint(capsys, check, "5.1", gaussian, "feature_log_prob_", **kwargs) == (
        "expected a fitted MultinomialNB, got GaussianNB"
    )
    assert hint(
        capsys, check, "5.1", nbcore.MultinomialNB, "feature_log_prob_", **kwargs
    ).startswith("that is the class itself")
    bernoulli = nbcore.MultinomialNB(alpha=2.0).fit(X, y)
    kwargs.pop("estimator")
    assert hint(capsys, check, "5.1", bernoulli, "feature_log_prob_", **kwargs) == (
        "6 of 6 entries differ from the expected values"
    )


def test_attribute_list_of_arrays_and_labels(capsys):
    weather = load_weather()
    X, y = weather.iloc[:, :-1], weather.iloc[:, -1]
    model = nbcore.CategoricalNB().fit(X, y)
    expected = [np.array(p) for p in model.feature_log_prob_]
    check = exercises.check_attribute
    assert "correct" in verdict(capsys, check, "5.2", model, "feature_log_prob_", expected=expected)
    other = nbcore.CategoricalNB(alpha=0.5).fit(X, y)
    line = verdict(capsys, check, "5.2", other, "feature_log_prob_", expected=expected)
    assert line == "Exercise 5.2: not yet — hint: feature_log_prob_ is not the expected value"
    assert "correct" in verdict(capsys, check, "5.3", model, "classes_", expected=["no", "yes"])
    assert "not yet" in verdict(capsys, check, "5.3", model, "classes_", expected=["yes", "no"])


# --------------------------------------------------------------------------- labels


def test_label_hints(capsys):
    check = exercises.check_label
    kwargs = {"expected": "yes", "mistakes": {"that is the class with the lower score": "no"}}
    assert "correct" in verdict(capsys, check, "6.1", "yes", **kwargs)
    assert "correct" in verdict(capsys, check, "6.1", np.str_("yes"), **kwargs)
    assert "correct" in verdict(capsys, check, "6.1", np.array("yes"), **kwargs)
    assert hint(capsys, check, "6.1", "no", **kwargs) == "that is the class with the lower score"
    assert hint(capsys, check, "6.1", np.array(["yes"]), **kwargs) == (
        "expected one label, got a ndarray of length 1: take one element, e.g. [0]"
    )
    assert hint(capsys, check, "6.1", True, **kwargs) == (
        "expected a label of type str (like the values in classes_), got bool"
    )
    assert hint(capsys, check, "6.1", "Yes ", **kwargs).startswith("labels are exact")
    assert hint(capsys, check, "6.1", "maybe", **kwargs) == "not the expected label"
    assert hint(capsys, check, "6.2", 1, expected=True) == (
        "expected a label of type bool (like the values in classes_), got int"
    )
    assert "correct" in verdict(capsys, check, "6.2", np.bool_(True), expected=True)
    assert "correct" in verdict(capsys, check, "6.3", np.int64(2), expected=2)


# --------------------------------------------------------------------------- writer's errors


def test_writer_errors_are_clear():
    with pytest.raises(ValueError, match="points must be a positive integer"):
        exercises.check_number("7.1", 1.0, expected=1.0, points=0)
    with pytest.raises(TypeError, match="exercise must be"):
        exercises.check_number(7.1, 1.0, expected=1.0)
    with pytest.raises(ValueError, match="gives the expected answer"):
        exercises.check_number("7.1", 1.0, expected=0.5, mistakes={"oops": 0.5})
    with pytest.raises(TypeError, match="mistakes must be a dict"):
        exercises.check_number("7.1", 1.0, expected=0.5, mistakes=[0.4])
    with pytest.raises(ValueError, match="attribute must be"):
        exercises.check_attribute("7.1", object(), "not an attribute", expected=[1])


# --------------------------------------------------------------------------- the self-check


def test_the_self_check_never_says_correct(capsys):
    spec = {"kind": "number", "digits": 6, "salt": "s"}
    line = verdict(capsys, exercises.self_check, "8.1", lambda: 0.25, **spec)
    assert line == "Exercise 8.1: looks plausible, graded on hand-in (1 point)"
    line = verdict(capsys, exercises.self_check, "8.1", lambda: ..., **spec)
    assert line.startswith("Exercise 8.1: not attempted")


def test_the_self_check_names_a_known_mistake_by_its_fingerprint(capsys):
    mark = answers.fingerprint(5 / 11, "salt", 6)
    spec = {"kind": "number", "digits": 6, "salt": "salt", "mistakes": {"forgot alpha": mark}}
    assert hint(capsys, exercises.self_check, "8.1", lambda: 5 / 11, **spec) == "forgot alpha"
    assert hint(capsys, exercises.self_check, "8.1", lambda: 0.4545454, **spec) == "forgot alpha"
    line = verdict(capsys, exercises.self_check, "8.1", lambda: 0.4545, **spec)
    assert "plausible" in line
    assert answers.fingerprint(5 / 11, "other salt", 6) != mark


def test_the_self_check_reports_format_problems(capsys):
    def check(answer, **spec):
        return hint(capsys, exercises.self_check, "8.2", lambda: answer, **spec)

    assert check([0.2, 0.7], kind="probabilities", shape=(2,)).startswith(
        "your probabilities sum to 0.9"
    )
    assert check([[0.2, 0.8]], kind="probabilities", shape=(2,)) == (
        "your answer has shape (1, 2), expected (2,)"
    )
    assert check([-0.2, 1.2], kind="probabilities", shape=(2,)).startswith(
        "probabilities cannot be negative"
    )
    assert check("0.5", kind="number") == "expected a number, got str"
    assert check(float("nan"), kind="number").startswith("your answer is NaN")
    assert check(107.5, kind="number", integer=True) == "expected a whole number"
    assert check(["yes"], kind="label", label_type="str").startswith("expected one label")
    assert check(True, kind="label", label_type="str").startswith("expected a label of type str")
    assert check(nbcore.MultinomialNB, kind="attribute", attribute="classes_").startswith(
        "that is the class itself"
    )
    assert check(
        nbcore.GaussianNB(), kind="attribute", attribute="classes_", estimator="CategoricalNB"
    ) == ("expected a fitted CategoricalNB, got GaussianNB")


def test_an_answer_cell_that_failed_gives_a_verdict_not_a_traceback(capsys):
    def failed_answer():
        return lse  # noqa: F821 - the answer cell raised before assigning it

    failed_answer.__name__ = "<lambda>"
    line = hint(capsys, exercises.self_check, "8.1", failed_answer, kind="number")
    assert line.startswith("lse is not defined: run your answer cell")


def test_variants_are_reproducible_per_exercise_and_none_in_the_book():
    try:
        assert exercises.variant_rng("8.1") is None
        exercises.use_variant(12345)
        first = exercises.variant_rng("8.1").integers(0, 10**9, size=3)
        again = exercises.variant_rng("8.1").integers(0, 10**9, size=3)
        other = exercises.variant_rng("8.2").integers(0, 10**9, size=3)
        assert first.tolist() == again.tolist() != other.tolist()
        with pytest.raises(ValueError, match="seed must be"):
            exercises.use_variant(-1)
    finally:
        exercises.use_variant(None)


def test_record_mode_writes_the_expected_values(tmp_path, monkeypatch, capsys):
    record = tmp_path / "record.jsonl"
    monkeypatch.setenv(exercises.RECORD_ENV, str(record))
    exercises.check_number("8.1", 0.5, expected=0.5)
    exercises.check_label("8.2", "no", expected="yes")
    entries = [json.loads(line) for line in record.read_text().splitlines()]
    assert [e["exercise"] for e in entries] == ["8.1", "8.2"]
    assert answers.decode(entries[0]["expected"]) == 0.5
    assert entries[0]["kind"] == "number" and entries[0]["variant"] is None
    assert entries[1]["line"].startswith("Exercise 8.2: not yet")
    capsys.readouterr()
