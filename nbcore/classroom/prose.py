"""Book markdown (MyST) turned into plain Jupyter markdown for student copies.

A student opens a copy in JupyterLab or VS Code, which render CommonMark and LaTeX but not the
book's MyST: quoted numbers, cross references, labels, comments and directives. In a copy

* an inline expression ``{eval}`f"{g.name:.3g}"``` becomes the text the book shows for it, read
  from the chapter's executed run (:func:`glued_values`);
* ``{doc}`text <target>``` and ``{ref}`text <label>``` become their text; ``{numref}`` to a
  figure becomes "the figure above" or "the figure below"; ``{eq}`` becomes "the equation";
* label lines ``(name)=`` and comment lines ``% ...`` are removed;
* admonitions become block quotes with a bold title; ``{math}`` blocks become ``$$ ... $$``;
  ``{literalinclude}`` becomes a pointer to the file; ``{tableofcontents}`` is dropped;
* sentences meant for the book ("its solution is folded under *Show solution*") are replaced
  by the copy's own instructions (:data:`STUDENT_NOTE`).
"""

import ast
import re

from nbcore.book import EXPRESSION

__all__ = ["STUDENT_NOTE", "glued_values", "figure_positions", "render_markdown"]

STUDENT_NOTE = (
    "**Your copy.** Each exercise below has an answer cell: replace the `...` with your code "
    "(add cells just below it if you need them), keep the name it stores the answer in, and "
    "run the check cell under it. The check tells you when something is missing, has the "
    "wrong type or shape, or matches a known mistake, with a hint; otherwise it says *looks "
    "plausible, graded on hand-in*: whether the value is right is decided when your "
    "instructor grades the notebook you hand in."
)
_NUMREF = re.compile(r"\{numref\}`(?:([^`<]*?)\s*<)?([^`<>]+)>?`")
_TEXT_ROLE = re.compile(r"\{(?:doc|ref|term)\}`(?:([^`<]*?)\s*<([^`>]+)>|([^`]+))`")
_EQ = re.compile(r"\{eq\}`[^`]+`")
_CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
_OTHER_ROLE = re.compile(r"\{[a-z:-]+\}`([^`]*)`")
_LABEL = re.compile(r"^\(([^()\s]+)\)=\s*$")
_FENCE = re.compile(r"^(`{3,}|:{3,})\{([a-z:-]+)\}\s*(.*)$")
_BOOK_SENTENCES = re.compile(
    r"Show solution|student copy|make student|prints\s+\*correct\*", re.IGNORECASE
)


def _drop_book_sentences(text):
    """Remove the sentences that speak of the book's folded solutions or its checks.

    Only paragraphs holding such a sentence are touched: their sentences are split at . ! ?
    and joined again with spaces (the paragraph is rewrapped; markdown does not mind).
    """
    paragraphs = re.split(r"(\n\s*\n)", text)
    for index, paragraph in enumerate(paragraphs):
        if not _BOOK_SENTENCES.search(paragraph):
            continue
        sentences = re.split(r"(?<=[.!?])\s+", paragraph.strip())
        kept = [sentence for sentence in sentences if not _BOOK_SENTENCES.search(sentence)]
        paragraphs[index] = " ".join(" ".join(kept).split())
    return "".join(paragraphs)


def glued_values(nb):
    """{expression: its text} for the chapter's inline expressions, from the executed run.

    tools/execute.py stores each markdown cell's ``{eval}`` results in its ``user_expressions``
    metadata, as jupyterlab-myst does. The text is what the book shows: markdown as written,
    LaTeX as a displayed equation, and otherwise the text/plain repr, a string's without its
    quotes and a NumPy scalar's without ``np.float64(...)``.
    """
    values = {}
    for cell in nb.cells:
        for item in cell.get("metadata", {}).get("user_expressions", []):
            result = item.get("result", {})
            if result.get("status") != "ok":
                continue
            data = result.get("data", {})
            if "text/markdown" in data:
                text = data["text/markdown"]
            elif "text/latex" in data:
                latex = data["text/latex"].strip().strip("$").removeprefix("\\displaystyle")
                text = f"$$\n{latex.strip()}\n$$"
            else:
                text = str(_plain_value(data.get("text/plain", "")))
            values[item["expression"]] = text
    return values


def figure_positions(nb):
    """{figure label: index of the cell that draws it}."""
    positions = {}
    for index, cell in enumerate(nb.cells):
        figure = cell.metadata.get("mystnb", {}).get("figure", {})
        if isinstance(figure, dict) and figure.get("name"):
            positions[figure["name"]] = index
    return positions


def _plain_value(text):
    """The Python value of a glued text/plain repr (numbers, strings), or the text itself."""
    text = text.strip()
    match = re.fullmatch(r"np\.(?:float|int|uint)\d*\((.*)\)", text)
    if match:
        text = match.group(1)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _eval(match, values, missing):
    expression = match.group(1).strip()
    if expression not in values:
        missing.append(expression)
        return f"`{expression}`"
    return values[expression]


def _numref(match, here, figures):
    text, label = match.group(1), match.group(2).strip()
    where = figures.get(label)
    noun = "the table" if label.startswith(("tab", "tbl")) else "the figure"
    if where is not None:
        noun += " above" if where < here else " below"
    if text and "%s" not in text and "{number}" not in text:
        return text
    return noun


def _text_role(match):
    if match.group(3) is not None:
        target = match.group(3).strip()
        return target.rsplit("/", 1)[-1].replace("_", " ").replace("-", " ")
    return match.group(1)


def _directive(name, argument, body):
    """Plain markdown for a fenced MyST directive."""
    options = [line for line in body if re.match(r"^:[a-z-]+:", line)]
    body = [line for line in body if line not in options]
    if name in ("tableofcontents",):
        return []
    if name == "math":
        return ["$$", *body, "$$"]
    if name == "literalinclude":
        return [f"*(The book shows the file `{argument.lstrip('./')}` here.)*"]
    if name in ("figure", "image"):
        return [f"![{' '.join(body).strip()}]({argument})"]
    title = argument or name.capitalize()
    quoted = [f"> **{title}.**", ">"] + [f"> {line}" if line else ">" for line in body]
    return quoted


def render_markdown(source, values, figures=None, here=0, missing=None):
    """``source`` (MyST) as plain Jupyter markdown (see the module docstring)."""
    figures = figures or {}
    missing = [] if missing is None else missing
    lines, out, index = source.split("\n"), [], 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence and fence.group(2) != "code-cell":
            marker, name, argument = fence.groups()
            body, index = [], index + 1
            while index < len(lines) and lines[index].strip() != marker:
                body.append(lines[index])
                index += 1
            index += 1
            out += _directive(name, argument.strip(), body)
            continue
        index += 1
        if _LABEL.match(line) or line.lstrip().startswith("% ") or line.strip() == "%":
            continue
        out.append(line)
    text = "\n".join(out)
    text = EXPRESSION.sub(lambda m: _eval(m, values, missing), text)
    text = _NUMREF.sub(lambda m: _numref(m, here, figures), text)
    text = _TEXT_ROLE.sub(_text_role, text)
    text = _EQ.sub("the equation", text)
    text = _CITE.sub(lambda m: f"[{m.group(1)}]", text)
    text = _OTHER_ROLE.sub(lambda m: m.group(1), text)
    text = _drop_book_sentences(text)
    # "the figure below draws" at the start of a sentence reads "The figure below draws"
    text = re.sub(
        r"(^|[.!?]\s+|\n\n)(the (?:figure|table))",
        lambda m: m.group(1) + "T" + m.group(2)[1:],
        text,
    )
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")
