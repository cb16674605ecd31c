"""Gradebooks an LMS imports: ``canvas_<chapter>.csv`` and ``moodle_<chapter>.csv``.

One row per student of the roster, in the roster's order; the points are the final score
(the late penalty deducted, overrides applied). A student with no graded submission is
listed with 0 or an empty cell (the course file's ``missing``). A submission that does not
belong to a roster student (refused, or naming a student the roster lacks) never becomes a
row: it is listed in ``unmatched_<chapter>.csv`` for the instructor to look at.

Canvas: the Gradebook's CSV import matches students on the columns its export has,
``Student, ID, SIS User ID, SIS Login ID, Section``, and takes each further column as an
assignment whose header is the assignment's name (a name Canvas does not know becomes a new
assignment); the export's second row, "Points Possible", is kept. (Canvas Community guide
"How do I import grades in the Gradebook?"; restated in Ohio State's "Import a CSV file to
Carmen Grades": "Student Name ... OR Student ID OR Student SIS User ID ..., SIS Login ID,
Section, Assignment Name".) The student columns are copied from a Canvas roster export; from
another roster only SIS User ID is known, which Canvas accepts on its own.

Moodle: Grades > Import > CSV file maps one identifier column ("Map from") to a user field
("Map to": ID number, email address, ...) and a grade column to a grade item (moodle/moodle
``grade/import/csv``). We write ``ID number`` (and ``Email address`` when the roster has it)
and one column named after the assignment.
"""

from nbcore.classroom.report import _write_csv

__all__ = ["roster_results", "write_lms_files", "CANVAS_COLUMNS", "MOODLE_COLUMNS"]

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("ID number", "Email address")
# identifiers the LMS matches rows on, written as its export gave them (the student's name,
# which a student can set, is still kept from being read as a formula)
CANVAS_IDS = ("ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_IDS = ("ID number",)  # a student can edit their email address: kept from formulas


def roster_results(results, roster, chapter):
    """({student: their latest graded result}, [results that match no roster student])."""
    mine = [r for r in results if r.chapter == chapter]
    strict = any(r.verified for r in mine)  # with the course secret, only sealed copies count
    chosen, unmatched = {}, []
    for result in sorted(mine, key=lambda r: r.order or (-1, 0.0, r.path.as_posix())):
        if result.superseded is not None:
            continue  # not run: a later copy of the same student stands for it
        ok = result.student in roster and not result.refused and not result.mismatch
        ok = ok and result.results
        if ok and (result.verified or not strict):
            chosen[result.student] = result  # sorted: the latest wins
        else:
            unmatched.append(result)
    return chosen, unmatched


def _points(result, missing):
    if result is None:
        return 0 if missing == "zero" else ""
    return round(result.final, 6)


def write_lms_files(results, roster, folder, missing="zero", names=None):
    """Write the Canvas, Moodle and unmatched files of every chapter graded; return the paths.

    ``names``: {chapter: assignment name} (default: the chapter's name).
    """
    written = []
    for chapter in sorted({r.chapter for r in results if r.chapter}):
        name = (names or {}).get(chapter) or chapter
        chosen, unmatched = roster_results(results, roster, chapter)
        out_of = max((r.out_of for r in chosen.values()), default="")
        canvas = [["    Points Possible", "", "", "", "", out_of]]
        moodle = []
        for student in roster.students:
            points = _points(chosen.get(student.id), missing)
            row = student.row
            if roster.kind == "canvas":
                canvas.append([row.get(c, "") for c in CANVAS_COLUMNS] + [points])
            else:
                canvas.append(["", "", student.id, "", "", points])
            moodle.append([row.get("ID number", student.id), row.get("Email address", ""), points])
        written.append(
            _write_csv(
                folder / f"canvas_{chapter}.csv",
                [*CANVAS_COLUMNS, name],
                canvas,
                verbatim=CANVAS_IDS,
            )
        )
        written.append(
            _write_csv(
                folder / f"moodle_{chapter}.csv",
                [*MOODLE_COLUMNS, name],
                moodle,
                verbatim=MOODLE_IDS,
            )
        )
        rows = [
            [r.path.name, r.student, r.refused or r.mismatch or "not a student of the roster"]
            for r in unmatched
        ]
        path = folder / f"unmatched_{chapter}.csv"
        written.append(_write_csv(path, ["submission", "student", "reason"], rows))
    return written
