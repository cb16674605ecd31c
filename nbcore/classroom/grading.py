"""Grade returned student copies: the pipeline, from the notebooks handed in to the gradebooks.

Each submission goes through the steps of the pipeline, one module each:

1. :mod:`~nbcore.classroom.screen` **reads and screens** it, before any of its code runs:
   a student copy of a chapter of the book, no solution cell, no planted exercise, the copy's
   student id and its seal; a submission that is not one is refused, with the reason.
2. :mod:`~nbcore.classroom.run` **runs the student's code in a sandbox**
   (:mod:`~nbcore.classroom.sandbox`, :mod:`~nbcore.classroom.driver`) and brings back the
   answers' values as JSON text.
3. :mod:`~nbcore.classroom.check` **judges the values** with the book's own checks, in a clean
   kernel that no student code ran in (``pytest --nbval``).
4. :mod:`~nbcore.classroom.report` **reports**: the table per submission and the gradebooks;
   :mod:`~nbcore.classroom.similarity` notes answers close to the published solution or to a
   classmate's.

Submissions run in parallel (``jobs``); their checks run in batches, and the gradebooks are
written after every batch, so an interrupted run keeps what it graded. Whatever goes wrong
while one submission is planned, run or checked fails that submission only.
"""

import hashlib
import os
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

import nbcore
from nbcore.answers import Unanswered, dumps
from nbcore.classroom.check import check_batch
from nbcore.classroom.display import answer_text
from nbcore.classroom.report import cell, format_report, write_gradebook, write_gradebooks
from nbcore.classroom.results import (
    FAILED,
    NOT_ATTEMPTED,
    PASSED,
    REFUSED,
    ExerciseResult,
    GradingError,
    SubmissionResult,
)
from nbcore.classroom.run import Settings, run_student_code, student_steps
from nbcore.classroom.sandbox import Limits, sandbox_problem
from nbcore.classroom.screen import (
    book_chapters,
    check_seals,
    plan_submission,
    submission_paths,
)
from nbcore.classroom.similarity import SIMILAR, flag_similar
from nbcore.classroom.unpack import order_key, uploader

__all__ = [
    "PASSED",
    "FAILED",
    "NOT_ATTEMPTED",
    "REFUSED",
    "ExerciseResult",
    "SubmissionResult",
    "GradingError",
    "grade",
    "supersede",
    "format_report",
    "write_gradebook",
    "write_gradebooks",
    "cell",
]

CHECK_BATCH = 20


# --------------------------------------------------------------------------- all together


def _package_fingerprint():
    """A hash of nbcore's code, to notice a change during a run (the sandbox forbids one)."""
    root = Path(nbcore.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _fail_whole(plan, step, error):
    """Fail every exercise of ``plan``: grading it failed in ``step`` (its own doing)."""
    reason = " ".join(f"{type(error).__name__}: {error}".split())[:200]
    plan.result.problems.append(f"grading stopped while {step} this submission: {reason}")
    plan.result.results = [
        ExerciseResult(ex.id, ex.points, FAILED, f"grading failed while {step} this submission")
        for ex in plan.chapter.exercises
    ]


def _check(batch, work, cell_timeout):
    """Check a batch; when that fails, each submission alone, failing only the one at fault."""
    try:
        check_batch(batch[0].chapter, batch, work, cell_timeout)
        return
    except Exception as error:
        if len(batch) == 1:
            batch[0].result.results = []
            _fail_whole(batch[0], "checking", error)
            return
    for plan in batch:
        plan.result.results = []
        _check([plan], work, cell_timeout)


def supersede(plans, times, from_zip):
    """Set aside all but the latest copy of a student that one account handed in for a chapter.

    A student who hands in many copies (an LMS takes several files per submission) would
    otherwise have each of them run to its limits, delaying and bloating everyone's grading.
    Copies are grouped by chapter, LMS account (:func:`nbcore.classroom.unpack.uploader`)
    and the student a verified copy is sealed for (an account's copies that are not verified
    form one group; a file that names neither an account nor a verified student is its own
    group). In each group only the latest copy (:func:`~nbcore.classroom.unpack.order_key`)
    is run; the others get ``result.superseded`` and are not run. A group never holds two
    students' verified copies, so one account's copies never displace another student's
    row. Returns the plans set aside.
    """
    groups = {}
    for plan in plans:
        if plan.chapter is None:
            continue
        result = plan.result
        account = uploader(plan.path, result.root)
        if result.verified:
            who = ("student", result.student)
        elif account is not None:
            who = ("not verified",)
        else:
            continue
        groups.setdefault((plan.chapter.name, account, who), []).append(plan)
    dropped = []
    for group in groups.values():
        keys = {}
        for plan in group:
            keys[plan.number] = order_key(plan.result, times, from_zip)
            plan.result.submitted = None  # set again, with the student's final name, later
        group.sort(key=lambda p: keys[p.number])
        for plan in group[:-1]:
            plan.result.superseded = group[-1].result
            plan.chapter = None
            dropped.append(plan)
    return dropped


def _clock(seconds):
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def grade(
    paths,
    solutions="book",
    timeout=60,
    chapter_timeout=600,
    budget=900,
    jobs=None,
    secret=None,
    unsandboxed=False,
    limits=None,
    out=None,
    log=None,
    progress=None,
    similar=SIMILAR,
    latest=True,
    times=None,
    from_zip=None,
):
    """Grade notebooks (files or folders of them) against the book's copies in ``solutions``.

    Parameters
    ----------
    paths : list of str or Path
        Submitted notebooks, or folders searched for them.
    solutions : str or Path, default="book"
        Folder of the book's chapter notebooks (the instructor's copies).
    timeout : float, default=60
        Time limit, in seconds, of each of the student's cells.
    chapter_timeout : float, default=600
        Time limit of each of the book's own cells.
    budget : float, default=900
        Total time, in seconds, that one submission's code may run (all cells, all restarts).
    jobs : int, optional
        Submissions graded at once (default: the number of CPU cores).
    secret : bytes, optional
        The course secret, for copies made for the students of a roster.
    unsandboxed : bool, default=False
        Run student code without bubblewrap (only where it cannot run, on trusted work).
    limits : Limits, optional
        The sandbox's resource limits.
    out : str or Path, optional
        Folder of the gradebooks, rewritten after every batch of checks.
    log, progress : callable, optional
        Called with messages, and with a one-line progress report.
    similar : float, default=0.9
        Answers at least this similar to the published solution or to a classmate's answer
        are noted in the gradebook (:mod:`nbcore.classroom.similarity`); scores are kept.
    latest : bool, default=True
        Run only the latest copy of each student that one LMS account (or, for files that
        name no account, the folder graded) handed in for a chapter; the others are listed as
        superseded, not run (:func:`supersede`). False grades every file (a regrade).
    times, from_zip : optional
        The submission times (``--submitted``) and the files that came out of a ZIP, for
        telling which copy is the latest (:func:`nbcore.classroom.unpack.order_key`).

    Returns
    -------
    list of SubmissionResult, in the order of the submissions
    """
    log = log or (lambda message: None)
    progress = progress or (lambda message: None)
    solutions = Path(solutions)
    if not solutions.is_dir():
        raise GradingError(f"no folder of book notebooks at {solutions}")
    problem = None if unsandboxed else sandbox_problem()
    if problem:
        raise GradingError(
            f"student code cannot be sandboxed here: {problem}. Grading runs each submission "
            "in a bubblewrap sandbox; install bubblewrap, or pass --unsandboxed to run "
            "student code with your own rights (only for work you trust)"
        )
    chapters = book_chapters(solutions)
    jobs = max(1, jobs or os.cpu_count() or 1)
    settings = Settings(timeout, chapter_timeout, budget, limits or Limits(), not unsandboxed)
    loaded, roots = {}, {}
    plans = [
        plan_submission(n, p, chapters, loaded, secret)
        for n, p in enumerate(submission_paths(paths, roots))
    ]
    for plan in plans:
        plan.result.root = roots.get(plan.path)
    check_seals(plans, secret)
    superseded = supersede(plans, times or {}, from_zip or set()) if latest else []
    for plan in plans:
        if plan.result.refused:
            log(f"refused {plan.path}: {plan.result.refused}")
    fingerprint = _package_fingerprint()
    started, finished = time.monotonic(), [0]
    lock = threading.Lock()
    slots = list(range(jobs))

    def report():
        done = finished[0]
        elapsed = time.monotonic() - started
        eta = "--:--" if not done else _clock(elapsed / done * (len(plans) - done))
        progress(f"graded {done}/{len(plans)} · elapsed {_clock(elapsed)} · ETA {eta}")

    def finish(batch):
        with lock:
            finished[0] += len(batch)
        if out is not None:
            write_gradebooks([p.result for p in plans if p.result.results or p.result.refused], out)
        report()

    def run(plan):
        with lock:
            slot = slots.pop()
        try:
            steps = student_steps(plan.chapter, plan.answers, plan.seed)
            texts, failed, problems = (
                run_student_code(steps, slot, settings) if steps else ({}, {}, [])
            )
        except Exception as error:  # whatever this submission does fails it alone
            _fail_whole(plan, "running", error)
            return plan
        finally:
            with lock:
                slots.append(slot)
        if _package_fingerprint() != fingerprint:
            raise GradingError(
                f"{plan.path}: nbcore's code changed while this submission ran; grading stopped"
            )
        plan.result.problems += problems
        for exercise in plan.chapter.exercises:
            if not plan.answers[exercise.id]:
                continue
            if exercise.id in failed:
                plan.texts[exercise.id] = dumps(Unanswered(failed[exercise.id]))
            elif exercise.id in texts:
                plan.texts[exercise.id] = texts[exercise.id]
            else:
                reason = "no answer was recorded: the notebook stopped before this exercise"
                plan.texts[exercise.id] = dumps(Unanswered(reason))
        return plan

    with tempfile.TemporaryDirectory(prefix="nbcore-grade-") as tmp:
        work = Path(tmp)
        waiting = [p for p in plans if p.chapter is not None]
        blank = [p for p in waiting if not any(p.answers.values())]
        for plan in blank:
            plan.result.results = [
                ExerciseResult(ex.id, ex.points, NOT_ATTEMPTED) for ex in plan.chapter.exercises
            ]
        refused = [p for p in plans if p.chapter is None and p not in superseded]
        if blank or refused or superseded:
            finish(blank + refused + superseded)
        queue = [p for p in waiting if p not in blank]
        ready = {}  # chapter -> plans whose code ran, waiting for their checks
        running = {}
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            while queue or running or any(ready.values()):
                while len(running) < jobs:
                    full = [c for c, ps in ready.items() if len(ps) >= CHECK_BATCH]
                    rest = [c for c, ps in ready.items() if ps]
                    name = full[0] if full else (rest[0] if rest and not queue else None)
                    if name is not None:
                        batch, ready[name] = ready[name][:CHECK_BATCH], ready[name][CHECK_BATCH:]
                        future = pool.submit(_check, batch, work, chapter_timeout)
                        running[future] = ("check", batch)
                    elif queue:
                        plan = queue.pop(0)
                        log(f"running {plan.path}")
                        running[pool.submit(run, plan)] = ("run", [plan])
                    else:
                        break
                if not running:
                    continue
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    kind, batch = running.pop(future)
                    future.result()  # a GradingError stops the run
                    if kind == "run" and batch[0].result.results:  # it failed as a whole
                        finish(batch)
                    elif kind == "run":
                        ready.setdefault(batch[0].chapter.name, []).append(batch[0])
                    else:
                        finish(batch)
        for plan in plans:  # the values, as the feedback pages show them
            for result in plan.result.results:
                result.value = answer_text(plan.texts.get(result.exercise, ""))
        by_chapter = {}
        for plan in plans:
            if plan.chapter is not None and plan.result.results and not plan.result.refused:
                by_chapter.setdefault(plan.chapter.name, []).append(plan)
        for chapter_plans in by_chapter.values():
            flag_similar(chapter_plans[0].chapter, chapter_plans, similar)
        if out is not None and by_chapter:
            write_gradebooks([p.result for p in plans if p.result.results or p.result.refused], out)
    return [plan.result for plan in plans]
