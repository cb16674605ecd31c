"""Per-student variants: a roster, a course secret, and one seed per student.

An exercise's *data cell* draws its numbers from ``exercises.variant_rng("8.1")``
(:mod:`nbcore.exercises`): None in the book, which keeps its own numbers, and a generator
seeded per student in graded copies. The seed of a student is

    HMAC-SHA256(course secret, "nbcore-variant:" + student id), first 8 bytes

so it needs the secret, which the instructor keeps (an environment variable or a file; it is
never written into a copy). A copy records its student's id and a *seal*,

    HMAC-SHA256(course secret, "nbcore-seal:" + student id + "|" + chapter), 32 hex digits

which the grader recomputes: a copy whose id or chapter was edited does not match its seal and
is flagged, and a secret that matches none of the copies stops grading before it starts.
"""

import hashlib
import hmac
import os
import re
from pathlib import Path

__all__ = ["SECRET_ENV", "STUDENT_ID", "read_secret", "student_seed", "seal", "read_roster"]

SECRET_ENV = "NBCORE_COURSE_SECRET"
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
MIN_SECRET = 16


class VariantError(ValueError):
    """A roster, secret or student id that cannot be used."""


def read_secret(path=None, required=False):
    """The course secret (bytes) from ``path`` or the NBCORE_COURSE_SECRET variable, or None."""
    secret = None
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise VariantError(f"no course secret file at {path}")
        secret = path.read_bytes().strip()
    elif os.environ.get(SECRET_ENV):
        secret = os.environ[SECRET_ENV].strip().encode()
    if secret is None:
        if required:
            raise VariantError(
                "per-student copies need the course secret: set NBCORE_COURSE_SECRET or pass "
                '--secret-file FILE (make one with: python -c "import secrets; '
                'print(secrets.token_hex(32))" > course-secret.txt, and keep it out of the '
                "copies and of version control)"
            )
        return None
    if len(secret) < MIN_SECRET:
        raise VariantError(f"the course secret must be at least {MIN_SECRET} characters long")
    return secret


def check_student_id(student):
    if not isinstance(student, str) or not STUDENT_ID.fullmatch(student):
        raise VariantError(
            "a student id is 1 to 64 letters, digits and . _ @ + - (starting with a letter or "
            f"digit), got {student!r}"
        )
    return student


def student_seed(secret, student):
    """The variant seed of ``student`` (a non-negative 63-bit integer)."""
    check_student_id(student)
    digest = hmac.new(secret, f"nbcore-variant:{student}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def seal(secret, student, chapter):
    """The seal of a copy made for ``student`` of ``chapter`` (32 hex digits)."""
    check_student_id(student)
    message = f"nbcore-seal:{student}|{chapter}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def read_roster(path):
    """The student ids of a roster (:func:`nbcore.classroom.roster.read_roster`)."""
    from nbcore.classroom.roster import read_roster as read  # it uses this module

    return read(path).ids
