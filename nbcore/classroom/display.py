"""Values and names as a page shows them: short, escaped, and safe to use in a file name.

Everything here takes hostile input (a student's value, id or file name) and returns text that
cannot grow without bound, run in a browser, or name a path outside a folder.
"""

import hashlib
import html
import re
import reprlib

import numpy as np

from nbcore.answers import Unanswered, loads

__all__ = ["value_text", "answer_text", "safe_name", "escape", "MAX_VALUE_CHARS"]

MAX_VALUE_CHARS = 160  # a value shown on a page: at most this many characters

_SHORT = reprlib.Repr()
_SHORT.maxstring = 60
_SHORT.maxother = 100
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 6
_SHORT.maxlevel = 3


def _printable(text):
    """``text`` with lone surrogates (undecodable bytes of a file name) written as escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def value_text(value):
    """A value as a short text: numbers to 10 significant digits, arrays abbreviated."""
    if isinstance(value, Unanswered):
        return f"(no value: {value.reason})"[:MAX_VALUE_CHARS]
    if isinstance(value, float):
        text = f"{value:.10g}"
    elif isinstance(value, np.ndarray):
        with np.printoptions(threshold=8, edgeitems=3, precision=6, linewidth=MAX_VALUE_CHARS):
            text = np.array2string(value, separator=", ")
    else:
        text = _SHORT.repr(value)
    text = _printable(" ".join(text.split()))
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def answer_text(text):
    """The display text of an answer carried as JSON text (:func:`nbcore.answers.loads`)."""
    if not text:
        return ""
    try:
        return value_text(loads(text))
    except Exception:  # whatever the text holds, the page says only that it was unreadable
        return "(a value that could not be read)"


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_name(name, fallback="unnamed"):
    """``name`` as one path component: letters, digits, ``_ . -``; a short hash keeps apart two
    names that differ only in what was replaced ("bob" and "bob!" do not share a file)."""
    text = _printable(str(name))
    cleaned = _UNSAFE.sub("_", text).strip("._")[:48] or fallback
    if cleaned == text:
        return cleaned
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return f"{cleaned}-{digest}"


def escape(text):
    """Text for HTML: printable, escaped (quotes too)."""
    return html.escape(_printable(str(text)), quote=True)
