"""What happens around the grades of a term: after grading, the exports; later, regrading.

:func:`finish` takes the results of :func:`~nbcore.classroom.grading.grade` and, in order,
orders each student's submissions (:mod:`~nbcore.classroom.unpack`), names the student of a
Canvas download that is not a roster copy (its Canvas user id, the roster's ``ID``), applies
the course's points, the overrides (:mod:`~nbcore.classroom.overrides`) and the late rule
(:mod:`~nbcore.classroom.late`), and writes the gradebooks, the LMS files, the class report
of each chapter (:mod:`~nbcore.classroom.classreport`) and a feedback page for every student
(:mod:`~nbcore.classroom.feedback`).

:func:`store` keeps each graded submission in a state folder (a copy of the file, its
student, its seed, its result) and :func:`regrade` grades those copies again, on the seeds
recorded for them, with the checks as they are now: it returns every score that changed.
"""

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from nbcore.classroom.classreport import write_class_report
from nbcore.classroom.feedback import write_feedback
from nbcore.classroom.late import apply_late
from nbcore.classroom.lms import write_lms_files
from nbcore.classroom.overrides import apply_overrides, read_overrides
from nbcore.classroom.report import _write_csv, write_gradebooks
from nbcore.classroom.results import GradingError, SubmissionResult
from nbcore.classroom.unpack import order_key, uploader

__all__ = [
    "Term",
    "finish",
    "store",
    "stored",
    "stored_refusals",
    "restore",
    "rescore",
    "regrade_changes",
    "RECORDS",
]

RECORDS = "submissions.json"
REFUSED = "refused.json"


@dataclass
class Term:
    """What the exports need besides the results; every part may be None."""

    course: object = None  # Course
    roster: object = None  # Roster
    times: dict = None  # {(student, chapter number): datetime}, from --submitted
    from_zip: set = None  # paths that came out of a ZIP: their file time is not used
    overrides: Path = None  # the audit file
    refused_files: list = None  # [(name, reason)] not unpacked from a ZIP
    released: set = None  # chapters whose solutions are released (else the course's dates)


def _canvas_student(result, roster):
    """Match a Canvas download to the roster by the Canvas user id in its name.

    A copy that names no student becomes the student of that user id. A sealed copy made for
    one student but handed in from another student's account is given to neither: a student
    could otherwise replace a classmate's grade by uploading the classmate's copy later.
    """
    account = uploader(result.path, result.root)
    user = account[1] if account and account[0] == "canvas" else None
    if user is None or not roster or result.refused:
        return
    owner = [s.id for s in roster.students if s.row.get("ID") == user]
    if result.verified:
        named = roster[result.student].row.get("ID", "") if result.student in roster else ""
        if (owner and owner[0] != result.student) or (named and named != user):
            account = owner[0] if owner else f"Canvas user {user}"
            result.verified = False
            result.mismatch = (
                f"the copy made for {result.student} was handed in from the account of "
                f"{account}: counted for neither, for the instructor to decide"
            )
            result.problems.append(result.mismatch)
        return
    if owner and result.student == result.path.stem:
        result.student = owner[0]


def _shared_copies(results):
    """Sealed copies of one student handed in from several LMS accounts.

    A copy made for one student and handed in by another (a file passed on) could otherwise
    become the first student's latest submission. An account that handed in copies sealed
    for several students is suspect: its copies of a student who also handed in from another
    account count for nobody. Where that does not settle it (the copies still come from
    several accounts), nothing tells whose account is whose: the latest copy is graded as
    usual, and every copy of the student says so, for the instructor to check.
    """
    graded = [r for r in results if r.verified and not r.refused and uploader(r.path, r.root)]
    students_of, accounts = {}, {}
    for r in graded:
        students_of.setdefault((r.chapter, uploader(r.path, r.root)), set()).add(r.student)
        accounts.setdefault((r.chapter, r.student), set()).add(uploader(r.path, r.root))
    for r in graded:
        mine = accounts[(r.chapter, r.student)]
        if len(mine) < 2:
            continue
        names = ", ".join(sorted(a[1] for a in mine))
        suspect = {a for a in mine if len(students_of[(r.chapter, a)]) > 1}
        account = uploader(r.path, r.root)
        if account in suspect and mine - suspect:
            r.verified = False
            r.mismatch = (
                f"the copy made for {r.student} was handed in from an account that handed in "
                f"other students' copies too ({account[1]}): counted for nobody, for "
                "the instructor to decide"
            )
            r.problems.append(r.mismatch)
        elif not (mine - suspect) or len(mine - suspect) > 1:
            r.problems.append(
                f"copies made for {r.student} came from more than one account ({names}): the "
                "latest is graded; check which account is theirs"
            )


def finish(results, term, out, base=None):
    """Apply the term's rules to ``results`` and write every export into ``out``."""
    times, from_zip = term.times or {}, term.from_zip or set()
    for result in results:
        _canvas_student(result, term.roster)
    _shared_copies(results)
    for result in results:
        result.order = result.order or order_key(result, times, from_zip)
        plan = term.course.chapter(result.chapter) if term.course and result.chapter else None
        for exercise in result.results if plan else []:
            exercise.points = plan.points.get(exercise.exercise, exercise.points)
    if term.overrides is not None:
        apply_overrides(results, read_overrides(term.overrides), term.overrides)
    apply_late(term.course, results)
    out = Path(out)
    written, details = write_gradebooks(results, out, base)
    if term.roster is not None:
        plans = {r.chapter: term.course.chapter(r.chapter) for r in results} if term.course else {}
        names = {chapter: plan.assignment for chapter, plan in plans.items() if plan}
        missing = term.course.missing if term.course else "zero"
        written += write_lms_files(results, term.roster, out, missing, names)
    if term.refused_files is not None:
        header = ["file", "reason"]
        written.append(_write_csv(out / "refused_files.csv", header, term.refused_files))
    roster_ids = term.roster.ids if term.roster is not None else None
    written += write_class_report(results, out, roster_ids=roster_ids, base=base)
    released = set(term.released or ())
    if term.course is not None:
        released |= term.course.released()
    if write_feedback(results, out, released=released, base=base):
        written.append(out / "feedback")
    return written, details


def _scores(result):
    return {r.exercise: r.earned for r in result.results}


def store(results, state, refused_files=()):
    """Keep a copy of every graded submission, with its student, seed and scores, in ``state``;
    and what was refused, with the reasons, for the exports of later regrades."""
    state = Path(state)
    (state / "files").mkdir(parents=True, exist_ok=True)
    records = []
    refused = {
        "files": [list(pair) for pair in refused_files],
        "submissions": [
            [r.path.name, r.chapter, r.student, r.refused] for r in results if r.refused
        ],
    }
    (state / REFUSED).write_text(json.dumps(refused, indent=1), encoding="utf-8")
    for result in results:
        if result.refused or not result.results:
            continue
        data = result.path.read_bytes()
        name = f"{hashlib.sha256(data).hexdigest()[:16]}/{result.path.name}"
        copy = state / "files" / name
        copy.parent.mkdir(exist_ok=True)
        if not copy.exists():
            copy.write_bytes(data)
        submitted = result.submitted.isoformat() if result.submitted else None
        records.append(
            {
                "file": name,
                "submission": result.path.name,
                "chapter": result.chapter,
                "student": result.student,
                "seed": result.seed,
                "submitted": submitted,
                "order": list(result.order),
                "scores": _scores(result),
            }
        )
    (state / RECORDS).write_text(json.dumps(records, indent=1), encoding="utf-8")
    return state / RECORDS


def rescore(state, records, results):
    """Record the regraded scores in ``state`` (the copies stay as they are)."""
    for record, result in zip(records, results, strict=True):
        record["scores"] = _scores(result)
    path = Path(state) / RECORDS
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return path


def stored_refusals(state):
    """(refused results, refused files) that ``state`` keeps: for the exports of a regrade."""
    path = Path(state) / REFUSED
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    results = [
        SubmissionResult(Path(name), chapter, student, refused=reason)
        for name, chapter, student, reason in data.get("submissions", [])
    ]
    return results, [tuple(pair) for pair in data.get("files", [])]


def stored(state):
    """The records of ``state`` and the paths of their copies."""
    path = Path(state) / RECORDS
    if not path.is_file():
        raise GradingError(f"no graded submissions are stored in {state} (no {RECORDS})")
    records = json.loads(path.read_text(encoding="utf-8"))
    return records, [Path(state) / "files" / r["file"] for r in records]


def restore(results, records):
    """Give regraded results back the names, times and order of the submissions they copy."""
    for result, record in zip(results, records, strict=True):
        if result.verified is False and not result.refused:
            result.student = record["student"]  # not a roster copy: as it was named
        if record["seed"] != result.seed or record["student"] != result.student:
            raise GradingError(
                f"{record['submission']}: regraded as student {result.student} on seed "
                f"{result.seed}, but it was graded as {record['student']} on seed "
                f"{record['seed']}: is this the course secret it was graded with?"
            )
        result.path = Path(record["submission"])  # the name it was handed in under
        if record["submitted"]:
            result.submitted = dt.datetime.fromisoformat(record["submitted"])
        result.order = tuple(record["order"])
    return results


def regrade_changes(results, records):
    """[(student, chapter, exercise, before, after)] of every score that changed."""
    changes = []
    for result, record in zip(results, records, strict=True):
        before, after = record["scores"], _scores(result)
        for exercise in sorted(set(before) | set(after)):
            if before.get(exercise) != after.get(exercise):
                row = (result.student, result.chapter, exercise)
                changes.append((*row, before.get(exercise), after.get(exercise)))
    return changes
