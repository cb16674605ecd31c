"""The course's late rule, applied to one submission.

A submission handed in ``t`` after its due time (plus the student's extension) is on time
when ``t`` is within the grace period; otherwise it is ``days = ceil((t - grace) / 1 day)``
days late, and ``per_day`` percent of the chapter's points are deducted per day, never more
than the points earned (a score does not go below zero).
"""

import datetime as dt
import math

from nbcore.classroom.results import Late

__all__ = ["late_for", "apply_late"]

DAY = dt.timedelta(days=1)


def late_for(course, chapter, student, submitted, earned, out_of):
    """The :class:`Late` of a submission, or None when on time or nothing says when it's due."""
    plan = course.chapter(chapter) if course is not None else None
    if plan is None or plan.due is None or submitted is None:
        return None
    due = plan.due + course.late.extensions.get(student, 0) * DAY
    after = submitted - due - course.late.grace
    if after <= dt.timedelta(0):
        return None
    days = math.ceil(after / DAY)
    percent = min(100.0, days * course.late.per_day)
    penalty = min(float(earned), round(out_of * percent / 100, 6))
    word = "day" if days == 1 else "days"
    return Late(days, penalty, f"{days} {word} late, {percent:g} % off")


def apply_late(course, results):
    """Set ``late`` on every graded result (in place); returns ``results``."""
    for result in results:
        if result.refused or not result.results:
            continue
        result.late = late_for(
            course, result.chapter, result.student, result.submitted, result.score, result.out_of
        )
    return results
