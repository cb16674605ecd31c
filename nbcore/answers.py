"""Answers as data: what a check compares, and how a value crosses from one process to another.

Both sides import this module and it imports neither: :mod:`nbcore.exercises` (the checks a
notebook calls) and :mod:`nbcore.classroom` (the tools that make student copies and grade).

* :func:`normalize` turns NumPy scalars, pandas objects and str subclasses into plain values,
  so that a check compares values, never objects that pretend.
* :func:`dumps` / :func:`loads` carry an answer's *value* as JSON text (never pickle: nothing
  in it can run code). Grading runs a student's code in a sandbox and the instructor's check in
  another, fresh kernel; only this text crosses over, and :func:`loads` refuses text that is
  too large, too deep or not of the expected form.
* :func:`fingerprint` is the salted, slow hash of a value rounded to a number of significant
  digits. A student copy carries fingerprints of the *wrong* answers a usual mistake gives, so
  that its self-check can name the mistake without holding any value.

What crosses over: None, ..., bools, numbers, strings, lists, tuples, dicts with string keys,
NumPy arrays (numbers, booleans, strings or objects among these), and for an estimator its
class name, its parameters and the one attribute the check reads. Anything else arrives as a
stand-in that only knows its class name, so the check says "expected a number, got Foo".
"""

import hashlib
import json
import math
import numbers
import re

import numpy as np

__all__ = [
    "MAX_ANSWER_BYTES",
    "MAX_DECODED_BYTES",
    "Unanswered",
    "Opaque",
    "SubmittedEstimator",
    "normalize",
    "type_name",
    "encode",
    "decode",
    "dumps",
    "loads",
    "export_text",
    "fingerprint",
    "significant_digits",
]

# The largest answer, as JSON text, that crosses from a student's sandbox to the grader.
MAX_ANSWER_BYTES = 4_000_000
MAX_DEPTH = 20
# What the text of an answer may hold: JSON nested at most this deep (an encoded value of
# MAX_DEPTH levels nests about 3 JSON levels per level, an array up to 32 more), and arrays of
# at most this many bytes once decoded (a 4 MB text of short strings must not become a
# gigabytes-large array of wide strings), all the arrays of one answer together too.
MAX_JSON_DEPTH = 128
MAX_ARRAY_BYTES = 64_000_000
MAX_DECODED_BYTES = 64_000_000
FINGERPRINT_ROUNDS = 100_000  # PBKDF2 rounds: a guess costs milliseconds, a search costs days
_DTYPE = re.compile(r"^[<>|=]?([biuf][1248]|b1|U\d{1,4})$")


class Unanswered:
    """An answer that could not be obtained, with the reason; its check says "not yet".

    The grader passes one to a check cell when the student's code raised an exception, ran
    past the time limit, or did not define the answer's name.
    """

    def __init__(self, reason):
        self.reason = str(reason)

    def __repr__(self):
        return f"Unanswered({self.reason!r})"


class Opaque:
    """Stand-in for an answer of a type that does not cross over (only its name does)."""

    def __init__(self, type_name):
        self.type_name = str(type_name)[:100]

    def __repr__(self):
        return f"<{self.type_name}>"


class SubmittedEstimator:
    """Stand-in for a student's estimator: class name, parameters, the attribute checked."""

    def __init__(self, type_name, params, attributes):
        self.type_name = str(type_name)[:100]
        self._params = dict(params)
        for name, value in attributes.items():
            if name.isidentifier() and not name.startswith("_"):
                setattr(self, name, value)

    def get_params(self, deep=True):
        return dict(self._params)

    def __repr__(self):
        params = ", ".join(f"{key}={value!r}" for key, value in sorted(self._params.items()))
        return f"{self.type_name}({params})"


def type_name(value):
    """Class name of an answer; the stand-ins report the class they replace."""
    if isinstance(value, (Opaque, SubmittedEstimator)):
        return value.type_name
    return type(value).__name__


def normalize(value):
    """Plain Python and NumPy values: numpy scalars -> Python, Series/DataFrame -> ndarray."""
    if isinstance(value, np.generic):
        return value.item() if value.dtype.kind in "biufUc" else value
    if value is None or value is Ellipsis or isinstance(value, (bool, Unanswered)):
        return value
    if isinstance(value, str):
        return str.__str__(value)  # a plain str, also for str subclasses
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(normalize(item) for item in value)
    if hasattr(value, "__array__") and not isinstance(value, type):
        try:
            return np.asarray(value)
        except Exception:  # an object that only pretends to be an array
            return value
    return value


# --------------------------------------------------------------------------- JSON encoding


def _float(x):
    """JSON has no NaN or infinity: spell them."""
    if math.isfinite(x):
        return x
    return {"$": "float", "value": repr(x)}


def encode(value, _depth=0):
    """A JSON-ready structure for ``value`` (see the module docstring for what is kept)."""
    if _depth > MAX_DEPTH:
        return {"$": "opaque", "type": "too deeply nested"}
    value = normalize(value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if value is Ellipsis:
        return {"$": "ellipsis"}
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, Unanswered):
        return {"$": "unanswered", "reason": value.reason}
    if isinstance(value, Opaque):
        return {"$": "opaque", "type": value.type_name}
    if isinstance(value, SubmittedEstimator):
        return {
            "$": "estimator",
            "type": value.type_name,
            "params": encode(value._params, _depth + 1),
            "attributes": encode(
                {k: v for k, v in vars(value).items() if k not in ("type_name", "_params")},
                _depth + 1,
            ),
        }
    if isinstance(value, np.ndarray):
        return _encode_array(value, _depth)
    if isinstance(value, (list, tuple)):
        items = [encode(item, _depth + 1) for item in value]
        return {"$": type(value).__name__, "items": items}
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        items = [[key, encode(item, _depth + 1)] for key, item in value.items()]
        return {"$": "dict", "items": items}
    return {"$": "opaque", "type": type(value).__name__}


def _encode_array(array, depth):
    kind = array.dtype.kind
    shape = list(array.shape)
    if kind == "f":
        data = [_float(x) for x in array.astype(float).reshape(-1).tolist()]
        return {"$": "ndarray", "dtype": "<f8", "shape": shape, "flat": data}
    if kind in "biu":
        return {"$": "ndarray", "dtype": array.dtype.str, "shape": shape, "data": array.tolist()}
    if kind == "U":
        return {"$": "ndarray", "dtype": array.dtype.str, "shape": shape, "data": array.tolist()}
    if kind == "O":
        flat = [encode(item, depth + 1) for item in array.reshape(-1).tolist()]
        return {"$": "ndarray", "dtype": "O", "shape": shape, "flat": flat}
    return {"$": "opaque", "type": f"ndarray of {array.dtype}"}


def _decode_float(text):
    if text not in ("nan", "inf", "-inf"):
        raise ValueError(f"not an encoded float: {text!r}")
    return float(text)


def decode(data, _depth=0, _budget=None):
    """The value that :func:`encode` encoded; ValueError on anything else.

    The arrays of one value together hold at most MAX_DECODED_BYTES once decoded.
    """
    if _budget is None:
        _budget = [MAX_DECODED_BYTES]  # bytes its arrays may still take
    if _depth > MAX_DEPTH + 2:
        raise ValueError("an encoded value nested too deeply")
    if isinstance(data, (list, float, int, str, bool)) or data is None:
        if isinstance(data, list):
            raise ValueError("a bare list is not an encoded value")
        return data
    if not isinstance(data, dict):
        raise ValueError(f"not an encoded value: {type(data).__name__}")
    tag = data.get("$")
    if tag == "ellipsis":
        return Ellipsis
    if tag == "float":
        return _decode_float(data["value"])
    if tag == "unanswered":
        return Unanswered(str(data["reason"])[:500])
    if tag == "opaque":
        return Opaque(data["type"])
    if tag == "estimator":
        params, attributes = (
            decode(data["params"], _depth + 1, _budget),
            decode(data["attributes"], _depth + 1, _budget),
        )
        if not isinstance(params, dict) or not isinstance(attributes, dict):
            raise ValueError("an encoded estimator needs dicts of parameters and attributes")
        return SubmittedEstimator(data["type"], params, attributes)
    if tag in ("list", "tuple"):
        items = [decode(item, _depth + 1, _budget) for item in data["items"]]
        return items if tag == "list" else tuple(items)
    if tag == "dict":
        return {str(key): decode(item, _depth + 1, _budget) for key, item in data["items"]}
    if tag == "ndarray":
        return _decode_array(data, _depth, _budget)
    raise ValueError(f"not an encoded value: {tag!r}")


def _dtype(text):
    if not isinstance(text, str) or not _DTYPE.match(text):
        raise ValueError(f"not an allowed array type: {text!r}")
    return np.dtype(text)


def _decode_array(data, depth, budget):
    shape = tuple(int(n) for n in data["shape"])
    if any(n < 0 for n in shape) or len(shape) > 32:
        raise ValueError(f"not an array shape: {shape}")
    size = math.prod(shape)
    itemsize = 8 if data["dtype"] == "O" else _dtype(data["dtype"]).itemsize
    if size * itemsize > MAX_ARRAY_BYTES:
        raise ValueError(f"an encoded array of {size * itemsize} bytes, over {MAX_ARRAY_BYTES}")
    budget[0] -= size * itemsize
    if budget[0] < 0:
        raise ValueError(
            f"an answer whose arrays take more than the {MAX_DECODED_BYTES} allowed bytes "
            "once decoded"
        )
    if data["dtype"] == "O":
        items = data["flat"]
        if len(items) != size:
            raise ValueError("an encoded array whose data do not fill its shape")
        flat = np.empty(size, dtype=object)
        flat[:] = [decode(item, depth + 1, budget) for item in items]
        return flat.reshape(shape)
    dtype = _dtype(data["dtype"])
    if "flat" in data:
        items = [
            x if not isinstance(x, dict) else _decode_float(x.get("value")) for x in data["flat"]
        ]
        if len(items) != size or not all(isinstance(x, (int, float)) for x in items):
            raise ValueError("an encoded array whose data do not fill its shape")
        return np.array(items, dtype=dtype).reshape(shape)
    array = np.array(data["data"], dtype=dtype)
    if array.size != size:
        raise ValueError("an encoded array whose data do not fill its shape")
    return array.reshape(shape)


def dumps(value):
    """``value`` as JSON text (see :func:`encode`)."""
    return json.dumps(encode(value), allow_nan=False, separators=(",", ":"))


_ESCAPE = re.compile(r"\\.", re.DOTALL)
_OPEN = np.frombuffer("[{".encode("utf-32-le"), dtype="<u4")
_CLOSE = np.frombuffer("]}".encode("utf-32-le"), dtype="<u4")


def json_depth(text):
    """How deep the arrays and objects of JSON ``text`` nest, counted without parsing it.

    The parser recurses once per level, so text nested deeper than the stack allows fails in
    one thread and not in another; the depth is checked first, the same everywhere. The count
    takes time linear in the length of the text, also for hostile text (unterminated strings):
    escapes are dropped, the quotes then split the text into strings (odd parts) and the rest
    (even parts), and only brackets in the rest count.
    """
    outside = "".join(_ESCAPE.sub("", text).split('"')[::2])
    codes = np.frombuffer(outside.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    steps = np.isin(codes, _OPEN).astype(np.int64) - np.isin(codes, _CLOSE)
    return int(max(0, np.cumsum(steps).max(initial=0)))


def loads(text, max_bytes=MAX_ANSWER_BYTES):
    """The value that :func:`dumps` wrote; ValueError when the text is not one."""
    if not isinstance(text, str):
        raise ValueError("an answer arrives as text")
    if len(text) > max_bytes:
        raise ValueError(f"an answer of {len(text)} bytes, more than the {max_bytes} allowed")
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"JSON nested {depth} deep, more than the {MAX_JSON_DEPTH} allowed")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"not JSON: {error}") from None
    try:
        return decode(data)
    except (KeyError, TypeError, IndexError, OverflowError, RecursionError, MemoryError) as error:
        raise ValueError(f"not an encoded answer ({type(error).__name__})") from None


def _estimator(model, attribute):
    """A :class:`SubmittedEstimator` carrying what ``check_attribute`` reads."""
    if isinstance(model, type):
        return Opaque("type")
    try:
        params = model.get_params()
    except Exception:
        params = {}
    if not isinstance(params, dict):
        params = {}
    params = {
        str(key): value
        for key, value in params.items()
        if value is None or isinstance(value, (bool, int, float, str))
    }
    attributes = {}
    try:
        attributes[attribute] = normalize(getattr(model, attribute))
    except AttributeError:
        pass
    return SubmittedEstimator(type(model).__name__, params, attributes)


def export_text(getter, attribute=None, max_bytes=MAX_ANSWER_BYTES):
    """The answer (``getter()``) as JSON text of at most ``max_bytes``; never raises.

    ``attribute`` is set for ``check_attribute`` exercises, whose answer is an estimator.
    """
    try:
        value = getter()
    except NameError as error:
        name = str(error).split("'")[1] if "'" in str(error) else "the answer"
        value = Unanswered(f"your code does not define {name}: store your answer in {name}")
    except Exception as error:  # a property or __getattr__ that fails
        value = Unanswered(f"reading your answer raised {type(error).__name__}")
    plain = value is None or value is Ellipsis or isinstance(value, Unanswered)
    try:
        if attribute is not None and not plain:
            value = _estimator(value, attribute)
        text = dumps(value)
    except Exception as error:  # a value whose methods raise, or too deep
        text = dumps(Unanswered(f"your answer could not be read ({type(error).__name__})"))
    if len(text) > max_bytes:
        text = dumps(Unanswered("your answer is too large to grade"))
    return text


# --------------------------------------------------------------------------- fingerprints


def significant_digits(rtol):
    """How many significant digits a fingerprint keeps for a check of relative tolerance rtol."""
    if not rtol or rtol <= 0:
        return 15
    return max(2, min(15, int(math.floor(-math.log10(rtol)))))


def _number_text(x, digits):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x + 0.0:.{digits - 1}e}"


def _value_text(value, digits):
    """A canonical text of a number or array of numbers, rounded; None for other values."""
    value = normalize(value)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return "n:" + _number_text(float(value), digits)
    try:
        array = np.asarray(value)
    except Exception:
        return None
    if array.dtype.kind not in "biuf" or array.size > 100_000:
        return None
    flat = ",".join(_number_text(float(x), digits) for x in array.astype(float).reshape(-1))
    return f"a{list(array.shape)}:{flat}"


def fingerprint(value, salt, digits):
    """Salted PBKDF2 hash of ``value`` rounded to ``digits`` significant digits, or None.

    Only numbers and arrays of numbers have a fingerprint.
    """
    text = _value_text(value, digits)
    if text is None:
        return None
    key = hashlib.pbkdf2_hmac("sha256", text.encode(), str(salt).encode(), FINGERPRINT_ROUNDS)
    return key.hex()[:32]
