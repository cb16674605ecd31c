"""The self-check of a student copy: what it may know of an exercise without its answer.

A copy's check cell (:func:`nbcore.exercises.self_check`) knows the answer's kind, shape and
type, and, where trying every value would take too long, salted fingerprints of the wrong
values the known mistakes give (:func:`nbcore.answers.fingerprint`).
"""

import hashlib
import json

from nbcore.answers import decode, fingerprint, significant_digits
from nbcore.exercises import _label_kind

__all__ = ["MIN_GUESSES", "guesses", "salt", "self_check_spec", "self_check_source"]


def salt(chapter, exercise, student):
    text = f"nbcore-self-check|{chapter}|{exercise.id}|{student or ''}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _whole(value):
    """Whether every number in ``value`` is a whole number (such values can be enumerated)."""
    import numpy as np

    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return True
    return bool(np.all(np.isfinite(array)) and np.all(array == np.round(array)))


# A copy carries the fingerprints of an exercise's mistakes only when finding them by trying
# every value at the check's precision takes at least this many guesses: 10**12 PBKDF2 guesses
# of 100,000 rounds are months of a graphics card (about 10**5 guesses a second) and centuries
# of a CPU core (about 25 a second). One number at six significant digits is 9 * 10**5 guesses
# per decade (about 10 hours of one core), so a single number never gets fingerprints.
MIN_GUESSES = 10**12


def guesses(size, digits, kind):
    """Values to try, per decade of magnitude, to find an answer of ``size`` numbers kept to
    ``digits`` significant digits (a probability vector has one number fewer to guess)."""
    free = size - 1 if kind == "probabilities" else size
    return (9 * 10 ** (digits - 1)) ** max(free, 0)


def self_check_spec(exercise, entry, salt, cache=None):
    """The keyword arguments of the self-check of one exercise, from its recorded entry."""
    import numpy as np

    expected = decode(entry["expected"])
    spec = {"kind": entry["kind"], "points": entry["points"]}
    kind = entry["kind"]
    if kind == "label":
        spec["label_type"] = _label_kind(np.asarray(expected).item())
        return spec  # a label's mistakes name the other labels: no fingerprints
    if kind == "attribute":
        spec["attribute"] = entry["attribute"]
        if entry.get("estimator"):
            spec["estimator"] = entry["estimator"]
    try:
        array = np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        return spec
    if kind == "number":
        if _whole(array):
            spec["integer"] = True
        if not np.isfinite(array).all():
            spec["finite"] = False
    else:
        spec["shape"] = tuple(array.shape)
    if _whole(array):
        return spec  # whole numbers can be enumerated: their mistakes stay with the grader
    digits = significant_digits(entry["rtol"])
    if guesses(array.size, digits, kind) < MIN_GUESSES:
        return spec  # so few values at this precision that trying them all finds the mistake
    cache = {} if cache is None else cache

    def mark(value):
        key = (json.dumps(value, sort_keys=True), salt, digits)
        if key not in cache:
            cache[key] = fingerprint(decode(value), salt, digits)
        return cache[key]

    own = mark(entry["expected"])
    mistakes = {}
    for hint, wrong in entry["mistakes"]:
        found = mark(wrong)
        if found is not None and found != own:
            mistakes[hint] = found
    if mistakes:
        spec.update(digits=digits, salt=salt, mistakes=mistakes)
    return spec


def self_check_source(exercise, spec):
    """The source of a copy's check cell."""
    arguments = [f"    {exercise.id!r}", f"    lambda: {exercise.answer_name}"]
    for key, value in spec.items():
        if key == "mistakes":
            items = "".join(f"        {hint!r}: {mark!r},\n" for hint, mark in value.items())
            arguments.append(f"    mistakes={{\n{items}    }}")
        else:
            arguments.append(f"    {key}={value!r}")
    return (
        f"# Checks the form of your answer and the known mistakes; graded on hand-in.\n"
        f"{exercise.check_qualifier}.self_check(\n" + ",\n".join(arguments) + ",\n)"
    )
