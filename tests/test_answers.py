"""nbcore.answers: an answer judged after crossing processes gets the same verdict."""

import json

import numpy as np
import pandas as pd
import pytest

import nbcore
from nbcore import answers as values
from nbcore import exercises

X = np.array([[0, 2, 0], [1, 3, 0], [0, 1, 1], [3, 0, 2], [2, 1, 3]])
y = np.array(["ham", "ham", "ham", "spam", "spam"])


class AlwaysEqual:
    """A student's object that claims to equal everything."""

    def __eq__(self, other):
        return True

    __hash__ = None


class Pretender:
    """An object whose __array__ fails."""

    def __array__(self, *args, **kwargs):
        raise RuntimeError("no")


def _crossed(answer, attribute, tmp_path):
    """The answer after the grader's export (student kernel) and load (checking kernel)."""
    text = values.export_text(lambda: answer, attribute=attribute)
    json.loads(text)  # plain JSON, nothing executable
    return values.loads(text)


CASES = [
    (exercises.check_number, 0.25, {"expected": 0.25}),
    (exercises.check_number, np.float64(0.3), {"expected": 0.25}),
    (exercises.check_number, "0.25", {"expected": 0.25}),
    (exercises.check_number, None, {"expected": 0.25}),
    (exercises.check_number, ..., {"expected": 0.25}),
    (exercises.check_number, float("nan"), {"expected": 0.25}),
    (exercises.check_number, AlwaysEqual(), {"expected": 0.25}),
    (exercises.check_number, Pretender(), {"expected": 0.25}),
    (exercises.check_array, pd.Series([1.0, 2.0]), {"expected": [1.0, 2.0]}),
    (exercises.check_array, [[1, 2], [3, 4]], {"expected": [[1, 3], [2, 4]]}),
    (exercises.check_array, {"a": 1.0}, {"expected": [1.0]}),
    (exercises.check_probabilities, [0.02, 0.08], {"expected": [0.2, 0.8]}),
    (exercises.check_probabilities, (0.2, 0.8), {"expected": [0.2, 0.8]}),
    (exercises.check_label, np.str_("spam"), {"expected": "spam"}),
    (exercises.check_label, np.array(["spam"]), {"expected": "spam"}),
    (exercises.check_label, AlwaysEqual(), {"expected": "spam"}),
    (exercises.check_label, True, {"expected": "spam"}),
]


@pytest.mark.parametrize(("check", "answer", "kwargs"), CASES)
def test_same_verdict_before_and_after_crossing(check, answer, kwargs, tmp_path, capsys):
    check("1.1", answer, **kwargs)
    before = capsys.readouterr().out
    check("1.1", _crossed(answer, None, tmp_path), **kwargs)
    assert capsys.readouterr().out == before


def _models():
    fitted = nbcore.MultinomialNB().fit(X, y)
    return [
        fitted,
        nbcore.MultinomialNB(alpha=0.5).fit(X, y),
        nbcore.MultinomialNB(),
        nbcore.GaussianNB().fit(X, y),
        nbcore.MultinomialNB,
        None,
        ...,
        AlwaysEqual(),
    ]


@pytest.mark.parametrize("index", range(8))
def test_same_verdict_for_estimators(index, tmp_path, capsys):
    model = _models()[index]
    counts = np.array([X[y == c].sum(axis=0) for c in ["ham", "spam"]])
    kwargs = {
        "expected": np.log((counts + 1) / (counts + 1).sum(axis=1, keepdims=True)),
        "estimator": "MultinomialNB",
    }
    exercises.check_attribute("1.2", model, "feature_log_prob_", **kwargs)
    before = capsys.readouterr().out
    crossed = _crossed(model, "feature_log_prob_", tmp_path)
    exercises.check_attribute("1.2", crossed, "feature_log_prob_", **kwargs)
    assert capsys.readouterr().out == before


def test_undefined_answer_is_reported_by_name(tmp_path, capsys):
    def getter():
        return undefined_name  # noqa: F821 - the student never assigned it

    exercises.check_number("1.3", values.loads(values.export_text(getter)), expected=1.0)
    assert capsys.readouterr().out == (
        "Exercise 1.3: not yet — hint: your code does not define undefined_name: "
        "store your answer in undefined_name\n"
    )


def test_decoding_never_runs_code():
    crafted = {"$": "opaque", "type": "__import__('os').system('false')"}
    assert isinstance(values.decode(crafted), values.Opaque)
    with pytest.raises(ValueError, match="not an encoded value"):
        values.decode({"$": "pickle", "data": "gASV"})


def test_oversized_answer_is_refused(capsys):
    text = values.export_text(lambda: np.zeros(1_000_000))
    exercises.check_array("1.4", values.loads(text), expected=[0.0])
    assert "too large" in capsys.readouterr().out
    with pytest.raises(ValueError, match="more than the"):
        values.loads("[" * 10 + "0" * values.MAX_ANSWER_BYTES)


@pytest.mark.parametrize(
    "crafted",
    [
        '{"$": "ndarray", "dtype": "<f8", "shape": [1000000000], "flat": [1.0]}',
        '{"$": "ndarray", "dtype": "V100000000", "shape": [1], "data": [0]}',
        '{"$": "ndarray", "dtype": "<i8", "shape": [-1], "data": [1]}',
        '{"$": "float", "value": "__import__"}',
        '{"$": "list", "items": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"$": "estimator", "type": "X", "params": 1, "attributes": 2}',
        "[1, 2]",
        "not json",
    ],
)
def test_crafted_answers_are_refused_with_a_value_error(crafted):
    with pytest.raises(ValueError):
        values.loads(crafted)


def test_answers_and_exercises_import_no_classroom_code():
    import subprocess
    import sys

    code = (
        "import sys, nbcore.exercises, nbcore.answers; "
        "print(sorted(m for m in sys.modules if m.startswith('nbcore.classroom')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr
