"""Values and names as a page shows them: short, escaped, and safe to use in a file name.

Everything here takes hostile input (a student's value, id or file name) and returns text that
cannot grow without bound, run in a browser, or name a path outside a folder.
"""

import hashlib
import html
import os
import re
import reprlib

import numpy as np

from nbcore.answers import Unanswered, loads

__all__ = ["value_text", "answer_text", "safe_name", "escape", "printable", "MAX_VALUE_CHARS"]

MAX_VALUE_CHARS = 160  # a value shown on a page: at most this many characters

_SHORT = reprlib.Repr()
_SHORT.maxstring = 60
_SHORT.maxother = 100
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 6
_SHORT.maxlevel = 3


# C0 and C1 control characters (ESC starts a terminal's commands, CR and BS move its cursor,
# BEL rings), DEL, and the marks that reorder text on screen (bidi overrides and isolates)
_CONTROLS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def printable(text):
    """``text`` safe to print on a terminal or to write into a report, as one line.

    Bytes of a file name that are not UTF-8 (which Python holds as lone surrogates) are
    written as escapes, b"zz\\xfe.ipynb" as "zz\\xfe.ipynb"; so are control characters (ESC,
    CR, LF, BEL, C1) and the bidirectional overrides: "\\x1b", "\\r", "\\u202e". Every text a
    student can choose (a file name, an id, a hint, a value) goes through here before it is
    printed or written: it cannot move the cursor, repaint a line, set the window's title or
    reorder the text around it.
    """
    text = str(text)
    try:
        text = os.fsencode(text).decode("utf-8", "backslashreplace")
    except UnicodeError:  # a lone surrogate that does not stand for a byte
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROLS.sub(_escaped, text)


def _escaped(match):
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_printable = printable


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
