"""nbcore.book.glue keeps the values the prose quotes; the copies quote them from the run."""

import nbformat
import pytest

from nbcore import book
from nbcore.classroom.prose import glued_values, render_markdown


def test_glue_keeps_the_value_on_g(capsys):
    book.glue("glue_test_value", 0.25, display=False)
    assert book.g.glue_test_value == 0.25
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", ["two words", "1st", "g.x", 3])
def test_glue_refuses_names_the_prose_cannot_write(name):
    with pytest.raises(ValueError, match="name must be a Python identifier"):
        book.glue(name, 1.0, display=False)


def _cell(source, results):
    metadata = {
        "user_expressions": [
            {"expression": e, "result": {"status": "ok", "data": d, "metadata": {}}}
            for e, d in results
        ]
    }
    return nbformat.v4.new_markdown_cell(source, metadata=metadata)


def test_copies_quote_what_the_run_stored():
    cell = _cell(
        'P is {eval}`f"{g.p:.3f}"`, n is {eval}`g.n`, w is {eval}`g.w`, s is {eval}`g.s`.\n\n'
        "{eval}`g.eq`",
        [
            ('f"{g.p:.3f}"', {"text/plain": "'0.123'"}),
            ("g.n", {"text/plain": "np.int64(42)"}),
            ("g.w", {"text/markdown": '"free"', "text/plain": "<Markdown object>"}),
            ("g.s", {"text/plain": "'it\\'s'"}),
            ("g.eq", {"text/latex": "$\\displaystyle \\frac{1}{2}$", "text/plain": "<Math>"}),
        ],
    )
    nb = nbformat.v4.new_notebook(cells=[cell])
    values = glued_values(nb)
    text = render_markdown(cell.source, values)
    assert text == 'P is 0.123, n is 42, w is "free", s is it\'s.\n\n$$\n\\frac{1}{2}\n$$'


def test_an_expression_the_run_did_not_store_is_reported():
    missing = []
    text = render_markdown("x is {eval}`g.unknown`.", {}, missing=missing)
    assert missing == ["g.unknown"] and text == "x is `g.unknown`."
