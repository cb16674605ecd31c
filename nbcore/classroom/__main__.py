"""``python -m nbcore.classroom student|grade ...``: student copies and grading."""

import argparse
import sys
from pathlib import Path

from nbcore.classroom.grading import GradingError, format_report, grade, write_gradebook
from nbcore.classroom.markup import ExerciseFormatError
from nbcore.classroom.student import make_student_copies


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m nbcore.classroom",
        description="Student copies of the book's chapters, and grading of returned notebooks.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    student = commands.add_parser(
        "student", help="write student copies: solutions removed, answer cells in their place"
    )
    student.add_argument(
        "sources", nargs="*", default=["book"], help="chapter notebooks or folders (default: book)"
    )
    student.add_argument(
        "--out", default="_build/student", help="output folder (default: _build/student)"
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
        "--csv",
        help="gradebook CSV to write (default: gradebook.csv in the first folder graded)",
    )
    grader.add_argument(
        "--jobs", type=int, default=2, help="parallel nbval workers for the checks (2)"
    )
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command == "student":
            make_student_copies(args.sources, args.out)
            return 0
        results = grade(
            args.paths,
            solutions=args.solutions,
            timeout=args.timeout,
            jobs=args.jobs,
            log=lambda message: print(message, file=sys.stderr),
        )
    except (ExerciseFormatError, GradingError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    folders = [Path(path) for path in args.paths if Path(path).is_dir()]
    base = folders[0] if len(folders) == 1 and len(args.paths) == 1 else None
    for result in results:
        print(format_report(result, base))
        print()
    csv_path = args.csv or (folders[0] / "gradebook.csv" if folders else None)
    if csv_path:
        gradebook, details = write_gradebook(results, csv_path, base)
        print(f"gradebook: {gradebook} (details: {details})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
