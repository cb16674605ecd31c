"""The README's example runs and prints what the weather tables give by hand."""

import contextlib
import io
import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs_and_matches_the_hand_computation():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "the README has one Python example"
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(blocks[0], "README.md", "exec"), namespace)
    assert printed.getvalue().strip()
    proba = namespace["model"].predict_proba(namespace["days"])
    # sunny, cool, high, windy: pi_c times the relative frequencies of the weather tables
    yes = 9 / 14 * 2 / 9 * 3 / 9 * 3 / 9 * 3 / 9
    no = 5 / 14 * 3 / 5 * 1 / 5 * 4 / 5 * 3 / 5
    # rainy, the rest unknown: pi_c times P(rainy | c) only
    rainy_yes, rainy_no = 9 / 14 * 3 / 9, 5 / 14 * 2 / 5
    expected = [
        [no / (yes + no), yes / (yes + no)],
        [rainy_no / (rainy_yes + rainy_no), rainy_yes / (rainy_yes + rainy_no)],
    ]
    assert list(namespace["model"].classes_) == ["no", "yes"]
    np.testing.assert_allclose(proba, expected, rtol=1e-12)
