"""The numbers a chapter's prose quotes, kept where the text can find them.

A chapter computes a value and keeps it under a name::

    glue("p_yes", posterior_yes, display=False)

and its text quotes it with a MyST inline expression, evaluated in the chapter's kernel::

    the posterior is {eval}`f"{g.p_yes:.4f}"`

The same expression is evaluated in both places a chapter is read: by myst-nb when the book is
built (``execute_notebooks: inline``) and by jupyterlab-myst when the chapter runs in
JupyterLab. ``tools/execute.py`` stores each result in its markdown cell's
``user_expressions`` metadata, as jupyterlab-myst does, so a saved chapter opens with its
numbers filled in and the student copies quote the same values.
"""

import re
from types import SimpleNamespace

__all__ = ["EXPRESSION", "expressions", "g", "glue"]

#: A MyST inline expression in the prose; group 1 is the Python expression.
EXPRESSION = re.compile(r"\{eval\}`([^`]+)`")

#: Every value glued so far, as attributes: ``g.p_yes``.
g = SimpleNamespace()


def glue(name, value, display=True):
    """Keep ``value`` as ``g.<name>``; with ``display=True`` also show it as the cell's output.

    Parameters
    ----------
    name : str
        A Python identifier (the prose writes ``g.<name>``).
    value : object
        A number, a string, or an IPython display object (``Markdown``, ``Math``).
    display : bool, default True
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a Python identifier, got {name!r}")
    setattr(g, name, value)
    if display:
        from IPython.display import display as show

        show(value)


def expressions(markdown):
    """The inline expressions of a markdown text, each once, in order of first use."""
    return list(dict.fromkeys(EXPRESSION.findall(markdown)))
