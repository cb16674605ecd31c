"""Answers as data: a safe encoding that carries values between kernels and into notebooks.

Grading runs a student's code in one kernel and the instructor's check in another, fresh one;
only the answer's *value* crosses over, as JSON (never pickle: nothing in it can run code).
Student copies carry each exercise's expected value *sealed* in the same encoding, compressed
and base64-coded so that it cannot be read off the notebook (it is not encrypted: the self
check needs it).

What crosses over: None, ..., bools, numbers, strings, lists, tuples, dicts with string keys,
NumPy arrays (numbers, booleans, strings or objects among these), and for an estimator its
class name, its parameters and the one attribute the check reads. Anything else arrives as a
stand-in that only knows its class name, so the check says "expected a number, got Foo".
"""

import base64
import json
import math
import zlib
from pathlib import Path

import numpy as np

from nbcore.exercises import Unanswered, _normalize

__all__ = ["encode", "decode", "seal", "unseal", "export", "load", "Opaque", "SubmittedEstimator"]

MAX_EXPORT_BYTES = 4_000_000


class Opaque:
    """Stand-in for an answer of a type that does not cross over (only its name does)."""

    def __init__(self, type_name):
        self.type_name = str(type_name)

    def __repr__(self):
        return f"<{self.type_name}>"


class SubmittedEstimator:
    """Stand-in for a student's estimator: class name, parameters, the attribute checked."""

    def __init__(self, type_name, params, attributes):
        self.type_name = str(type_name)
        self._params = dict(params)
        for name, value in attributes.items():
            setattr(self, name, value)

    def get_params(self, deep=True):
        return dict(self._params)

    def __repr__(self):
        params = ", ".join(f"{key}={value!r}" for key, value in sorted(self._params.items()))
        return f"{self.type_name}({params})"


def _float(x):
    """JSON has no NaN or infinity: spell them."""
    if math.isfinite(x):
        return x
    return {"$": "float", "value": repr(x)}


def encode(value):
    """A JSON-ready structure for ``value`` (see the module docstring for what is kept)."""
    value = _normalize(value)
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
            "params": encode(value._params),
            "attributes": encode(
                {k: v for k, v in vars(value).items() if k not in ("type_name", "_params")}
            ),
        }
    if isinstance(value, np.ndarray):
        return _encode_array(value)
    if isinstance(value, (list, tuple)):
        return {"$": type(value).__name__, "items": [encode(item) for item in value]}
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {"$": "dict", "items": [[key, encode(item)] for key, item in value.items()]}
    if isinstance(value, complex):
        return {"$": "opaque", "type": "complex"}
    return {"$": "opaque", "type": type(value).__name__}


def _encode_array(array):
    kind = array.dtype.kind
    if kind in "biu":
        data = array.tolist()
    elif kind == "f":
        data = [_float(x) for x in array.astype(float).reshape(-1).tolist()]
        return {"$": "ndarray", "dtype": array.dtype.str, "shape": list(array.shape), "flat": data}
    elif kind == "U":
        data = array.tolist()
    elif kind == "O":
        flat = [encode(item) for item in array.reshape(-1).tolist()]
        return {"$": "ndarray", "dtype": "O", "shape": list(array.shape), "flat": flat}
    else:
        return {"$": "opaque", "type": f"ndarray of {array.dtype}"}
    return {"$": "ndarray", "dtype": array.dtype.str, "shape": list(array.shape), "data": data}


def decode(data):
    """The value that :func:`encode` encoded."""
    if not isinstance(data, dict):
        if isinstance(data, list):
            raise ValueError("a bare list is not an encoded value")
        return data
    tag = data.get("$")
    if tag == "ellipsis":
        return Ellipsis
    if tag == "float":
        return float(data["value"])
    if tag == "unanswered":
        return Unanswered(data["reason"])
    if tag == "opaque":
        return Opaque(data["type"])
    if tag == "estimator":
        return SubmittedEstimator(data["type"], decode(data["params"]), decode(data["attributes"]))
    if tag in ("list", "tuple"):
        items = [decode(item) for item in data["items"]]
        return items if tag == "list" else tuple(items)
    if tag == "dict":
        return {str(key): decode(item) for key, item in data["items"]}
    if tag == "ndarray":
        shape = tuple(int(n) for n in data["shape"])
        if data["dtype"] == "O":
            flat = np.empty(len(data["flat"]), dtype=object)
            flat[:] = [decode(item) for item in data["flat"]]
            return flat.reshape(shape)
        dtype = np.dtype(data["dtype"])
        if "flat" in data:
            return np.array([decode(x) for x in data["flat"]], dtype=dtype).reshape(shape)
        return np.array(data["data"], dtype=dtype).reshape(shape)
    raise ValueError(f"not an encoded value: {tag!r}")


def seal(value):
    """``value`` as a short ASCII key: encoded, compressed, base64."""
    text = json.dumps(encode(value), separators=(",", ":"), sort_keys=True)
    return base64.b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii")


def unseal(key):
    """The value that :func:`seal` sealed."""
    return decode(json.loads(zlib.decompress(base64.b64decode(key)).decode("utf-8")))


def _estimator(model, attribute):
    """A :class:`SubmittedEstimator` carrying what ``check_attribute`` reads."""
    if isinstance(model, type):
        return Opaque("type")
    try:
        params = model.get_params()
    except Exception:
        params = {}
    params = {
        str(key): value
        for key, value in params.items()
        if value is None or isinstance(value, (bool, int, float, str))
    }
    attributes = {}
    try:
        attributes[attribute] = _normalize(getattr(model, attribute))
    except AttributeError:
        pass
    return SubmittedEstimator(type(model).__name__, params, attributes)


def export(path, getter, attribute=None):
    """Write the answer (``getter()``) to ``path`` as JSON; runs in the student's kernel.

    ``attribute`` is set for ``check_attribute`` exercises, whose answer is an estimator.
    """
    try:
        value = getter()
    except NameError as error:
        name = str(error).split("'")[1] if "'" in str(error) else "the answer"
        value = Unanswered(f"your code does not define {name}: store your answer in {name}")
    plain = value is None or value is Ellipsis or isinstance(value, Unanswered)
    if attribute is not None and not plain:
        value = _estimator(value, attribute)
    try:
        text = json.dumps(encode(value), allow_nan=False)
    except (ValueError, TypeError, RecursionError) as error:
        text = json.dumps(encode(Unanswered(f"your answer could not be read ({error})")))
    if len(text) > MAX_EXPORT_BYTES:
        text = json.dumps(encode(Unanswered("your answer is too large to grade")))
    Path(path).write_text(text, encoding="utf-8")


def load(text):
    """The answer that :func:`export` wrote; runs in the checking kernel."""
    return decode(json.loads(text))
