"""nbcore.classroom.values: an answer judged after crossing kernels gets the same verdict."""

import json

import numpy as np
import pandas as pd
import pytest

import nbcore
from nbcore import exercises
from nbcore.classroom import values

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
    path = tmp_path / "answer.json"
    values.export(path, lambda: answer, attribute=attribute)
    text = path.read_text()
    json.loads(text)  # plain JSON, nothing executable
    return values.load(text)


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
    path = tmp_path / "answer.json"

    def getter():
        return undefined_name  # noqa: F821 - the student never assigned it

    values.export(path, getter)
    exercises.check_number("1.3", values.load(path.read_text()), expected=1.0)
    assert capsys.readouterr().out == (
        "Exercise 1.3: not yet — hint: your code does not define undefined_name: "
        "store your answer in undefined_name\n"
    )


def test_decoding_never_runs_code():
    crafted = {"$": "opaque", "type": "__import__('os').system('false')"}
    assert isinstance(values.decode(crafted), values.Opaque)
    with pytest.raises(ValueError, match="not an encoded value"):
        values.decode({"$": "pickle", "data": "gASV"})


def test_oversized_answer_is_refused(tmp_path, capsys):
    path = tmp_path / "answer.json"
    values.export(path, lambda: np.zeros(1_000_000))
    exercises.check_array("1.4", values.load(path.read_text()), expected=[0.0])
    assert "too large" in capsys.readouterr().out
