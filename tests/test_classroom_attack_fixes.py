"""Forged replies and submissions built against one step of the grader, each driven directly.

Each test performs the attack on the function it targets: the defence must make it fail alone,
with a clear reason, and fast (a thread that holds the interpreter stalls the whole grader).
"""

import threading

import pytest

from nbcore import answers


def _within(seconds, function, *args):
    """Run ``function(*args)`` in a thread; fail if it is not done in ``seconds``."""
    outcome = {}

    def target():
        try:
            outcome["value"] = function(*args)
        except Exception as error:  # the outcome under test is often an error
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{function.__name__} still running after {seconds} s"
    return outcome


@pytest.mark.parametrize(
    "text",
    [
        'a"' * 2_000_000,  # 4 MB of unterminated strings
        '"' + 'a\\"' * 1_300_000,  # one string, never closed, of escaped quotes
        '["' + "\\\\" * 1_900_000,  # escaped backslashes, never closed
    ],
)
def test_unterminated_strings_are_refused_fast(text):
    # A generous bound: the counting this replaced took minutes on 120 KB of such text.
    outcome = _within(20, answers.loads, text)
    assert "not JSON" in str(outcome["error"])


def test_depth_counts_brackets_outside_strings_only():
    assert answers.json_depth('{"a": "[[[{{", "b": [[1], "\\"]]]"]}') == 3
    assert answers.json_depth("[" * 200 + "]" * 200) == 200
    assert answers.json_depth('"[[[' + "]" * 5) == 0
    deep = '["\\\\", ' + "[" * 129 + "]" * 129 + "]"
    with pytest.raises(ValueError, match="129|130|more than the 128"):
        answers.loads(deep)
