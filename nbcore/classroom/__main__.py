"""``python -m nbcore.classroom student|grade|regrade|override ...``: a term's classroom work."""

import argparse
import os
import sys
import tempfile
from pathlib import Path

from nbcore.classroom import term
from nbcore.classroom.course import CourseError, load_course
from nbcore.classroom.display import printable
from nbcore.classroom.grading import GradingError, format_report, grade
from nbcore.classroom.markup import ExerciseFormatError
from nbcore.classroom.overrides import OverrideError, add_override
from nbcore.classroom.roster import read_roster
from nbcore.classroom.sandbox import Limits
from nbcore.classroom.similarity import SIMILAR
from nbcore.classroom.student import StudentCopyError, make_student_copies
from nbcore.classroom.unpack import collect, read_times
from nbcore.classroom.variants import VariantError, read_secret


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m nbcore.classroom",
        description="Student copies of the book's chapters, and grading of returned notebooks.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    student = commands.add_parser(
        "student", help="write student copies: solutions and expected values removed"
    )
    student.add_argument(
        "sources", nargs="*", default=["book"], help="chapter notebooks or folders (default: book)"
    )
    student.add_argument(
        "--out", default="_build/student", help="output folder (default: _build/student)"
    )
    _common(student)

    grader = commands.add_parser(
        "grade", help="grade submitted notebooks (files, or folders of them)"
    )
    grader.add_argument(
        "paths", nargs="+", help="submitted notebooks, folders of them, or ZIPs (as LMSs give)"
    )
    _common(grader)
    grader.add_argument(
        "--submitted",
        help="CSV of submission times: student, chapter, submitted (ISO 8601), for the late rule",
    )
    grader.add_argument(
        "--state", help="folder that keeps the graded submissions for regrading (<out>/state)"
    )
    grader.add_argument(
        "--solutions", default="book", help="folder of the book's notebooks (default: book)"
    )
    grader.add_argument(
        "--timeout", type=float, default=60, help="seconds each student cell may run (60)"
    )
    grader.add_argument(
        "--budget", type=float, default=900, help="seconds one submission may run in all (900)"
    )
    grader.add_argument(
        "--memory", type=float, default=4, help="GiB of address space per submission (4)"
    )
    grader.add_argument(
        "--out", help="folder of the gradebooks (default: the folder graded, if one)"
    )
    grader.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="submissions graded at once (default: the number of cores)",
    )
    grader.add_argument(
        "--unsandboxed",
        action="store_true",
        help="run student code without bubblewrap, with your rights (trusted work only)",
    )
    grader.add_argument(
        "--similar",
        type=float,
        default=SIMILAR,
        help=f"flag answers this similar to the solution or a classmate's (0-1, {SIMILAR})",
    )
    regrader = commands.add_parser(
        "regrade", help="grade the stored submissions again, with the checks as they are now"
    )
    regrader.add_argument("state", help="the state folder grading wrote (<out>/state)")
    _common(regrader)
    regrader.add_argument("--solutions", default="book", help="folder of the book's notebooks")
    regrader.add_argument("--out", help="folder of the exports (default: the state's parent)")
    regrader.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    regrader.add_argument("--unsandboxed", action="store_true", help="as for grade")
    overrider = commands.add_parser(
        "override", help="set an exercise's points for a student, with the reason (audited)"
    )
    for name in ("student", "chapter", "exercise"):
        overrider.add_argument(name)
    overrider.add_argument("points", type=float)
    overrider.add_argument("--reason", required=True, help="why: kept in the audit file")
    overrider.add_argument("--file", default="overrides.csv", help="the audit file")
    return parser


def _common(command):
    command.add_argument(
        "--course", help="the course file, course.toml: roster, chapters, dates, late rule"
    )
    command.add_argument(
        "--roster", help="roster CSV (plain ids, or a Canvas or Moodle export; else the course's)"
    )
    command.add_argument(
        "--secret-file", help="file holding the course secret (else NBCORE_COURSE_SECRET)"
    )
    command.add_argument(
        "--overrides", help="audit file of overridden points (default: <out>/overrides.csv)"
    )
    command.add_argument(
        "--released",
        help="chapters whose solutions are released, e.g. 01,02: their feedback pages show "
        "the expected values (with a course file, also the chapters past their release date)",
    )


def _setting(args):
    """The course, roster path and secret file the options and the course file give."""
    course = load_course(args.course) if args.course else None
    roster = args.roster or (course.roster if course else None)
    secret_file = args.secret_file or (course.secret_file if course else None)
    return course, roster, secret_file


def _student(args):
    course, roster, secret_file = _setting(args)
    secret = read_secret(secret_file, required=roster is not None)
    sources = args.sources
    if course is not None:
        from nbcore.classroom.student import chapter_sources

        sources = [p for p in chapter_sources(sources) if course.chapter(p.stem)]
        if not sources:
            raise CourseError(f"{course.path}: none of its chapters is among {args.sources}")
    make_student_copies(sources, args.out, roster=roster, secret=secret)
    return 0


def _export(results, args, out, base, term_parts):
    course, roster, _ = term_parts
    overrides = Path(args.overrides) if args.overrides else out / "overrides.csv"
    parts = term.Term(
        course=course,
        roster=read_roster(roster) if roster is not None else None,
        times=getattr(args, "times", None),
        from_zip=getattr(args, "from_zip", None),
        overrides=overrides,
        refused_files=getattr(args, "refused_files", None),
        released={c.strip() for c in (args.released or "").split(",") if c.strip()},
    )
    return term.finish(results, parts, out, base)


def _regrade(args):
    setting = _setting(args)
    secret = read_secret(setting[2])
    records, paths = term.stored(args.state)
    out = Path(args.out) if args.out else Path(args.state).resolve().parent
    results = grade(
        paths,
        solutions=args.solutions,
        jobs=args.jobs,
        secret=secret,
        unsandboxed=args.unsandboxed,
        latest=False,  # the stored copies are the ones graded: each is graded again
    )
    term.restore(results, records)
    refused, args.refused_files = term.stored_refusals(args.state)
    written, details = _export(results + refused, args, out, None, setting)
    changes = term.regrade_changes(results, records)
    for student, chapter, exercise, before, after in changes:
        print(
            f"changed: student {printable(student)}, chapter {chapter}, exercise {exercise}: "
            f"{before} -> {after}"
        )
    print(f"{len(changes)} scores changed in {len(results)} submissions")
    term.rescore(args.state, records, results)
    print(f"written: {', '.join(str(p) for p in written)} (details: {details})")
    return 0


def main(argv=None):
    args = _parser().parse_args(argv)
    errors = (
        ExerciseFormatError,
        GradingError,
        VariantError,
        StudentCopyError,
        CourseError,
        OverrideError,
        ValueError,
    )
    try:
        if args.command == "student":
            return _student(args)
        if args.command == "regrade":
            return _regrade(args)
        if args.command == "override":
            path = add_override(
                args.file, args.student, args.chapter, args.exercise, args.points, args.reason
            )
            print(f"recorded in {path}")
            return 0
        with tempfile.TemporaryDirectory(prefix="nbcore-unpack-") as work:
            return _grade(args, work)
    except errors as error:
        print(f"error: {printable(error)}", file=sys.stderr)
        return 2


def _grade(args, work):
    setting = _setting(args)
    secret = read_secret(setting[2])
    given = [Path(path) for path in args.paths]
    args.times = read_times(args.submitted) if args.submitted else {}
    args.paths, args.refused_files, args.from_zip = collect(given, work)
    for name, reason in args.refused_files:
        print(f"refused {printable(name)}: {printable(reason)}", file=sys.stderr)
    folders = [p if p.is_dir() else p.parent for p in given if p.is_dir() or p.suffix == ".zip"]
    out = Path(args.out) if args.out else (folders[0] if folders else None)
    if out is None and (setting[0] or setting[1]):
        out = Path(".")
    base = None
    if len(given) == 1 and given[0].is_dir():
        base = given[0]
    elif len(given) == 1 and given[0].suffix == ".zip":
        base = Path(work) / "unpacked" / "0"
    interactive = sys.stderr.isatty()

    def progress(message):
        end = "\r" if interactive else "\n"
        print(message, end=end, file=sys.stderr, flush=True)

    results = grade(
        args.paths,
        solutions=args.solutions,
        timeout=args.timeout,
        budget=args.budget,
        jobs=args.jobs,
        secret=secret,
        unsandboxed=args.unsandboxed,
        limits=Limits(memory_bytes=int(args.memory * 1024**3)),
        out=out,
        log=lambda message: None,
        progress=progress,
        similar=args.similar,
        times=args.times,
        from_zip=args.from_zip,
    )
    if interactive:
        print(file=sys.stderr)
    if out is not None:
        written, details = _export(results, args, out, base, setting)
    for result in results:
        print(format_report(result, base))
        print()
    if out is not None:
        books = [p for p in written if p.name.startswith("gradebook_")]
        print(f"gradebooks: {', '.join(str(p) for p in books)} (details: {details})")
        others = [p for p in written if p not in books]
        if others:
            print(f"also written: {', '.join(str(p) for p in others)}")
        state = term.store(results, args.state or out / "state", args.refused_files)
        print(f"kept for regrading: {state}")
    if results and all(result.refused for result in results):
        print(f"error: all {len(results)} submissions were refused, none graded", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
