"""``python -m nbcore.classroom student|grade ...``: student copies and grading."""

import argparse
import os
import sys
from pathlib import Path

from nbcore.classroom.grading import GradingError, format_report, grade, write_gradebooks
from nbcore.classroom.markup import ExerciseFormatError
from nbcore.classroom.sandbox import Limits
from nbcore.classroom.similarity import SIMILAR
from nbcore.classroom.student import StudentCopyError, make_student_copies
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
    student.add_argument(
        "--roster", help="CSV of student ids: one copy per student, on the student's variant"
    )
    student.add_argument(
        "--secret-file", help="file holding the course secret (else NBCORE_COURSE_SECRET)"
    )

    grader = commands.add_parser(
        "grade", help="grade submitted notebooks (files, or folders of them)"
    )
    grader.add_argument("paths", nargs="+", help="submitted notebooks or folders of them")
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
        "--secret-file", help="file holding the course secret (else NBCORE_COURSE_SECRET)"
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
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command == "student":
            secret = read_secret(args.secret_file, required=args.roster is not None)
            make_student_copies(args.sources, args.out, roster=args.roster, secret=secret)
            return 0
        secret = read_secret(args.secret_file)
        folders = [Path(path) for path in args.paths if Path(path).is_dir()]
        out = Path(args.out) if args.out else (folders[0] if folders else None)
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
        )
    except (ExerciseFormatError, GradingError, VariantError, StudentCopyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if sys.stderr.isatty():
        print(file=sys.stderr)
    base = folders[0] if len(folders) == 1 and len(args.paths) == 1 else None
    for result in results:
        print(format_report(result, base))
        print()
    if out is not None:
        written, details = write_gradebooks(results, out, base)
        names = ", ".join(str(path) for path in written)
        print(f"gradebooks: {names} (details: {details})")
    if results and all(result.refused for result in results):
        print(f"error: all {len(results)} submissions were refused, none graded", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
