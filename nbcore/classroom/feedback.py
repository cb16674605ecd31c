"""Feedback for every student: ``feedback/<student>/<chapter>.html``, one page per submission.

A page lists each exercise with the student's value, the verdict, the hint and the points; the
late penalty and the notes; and the expected value on the student's own numbers once the
chapter's solutions are released (the course file's ``release`` date). A refused file gets a
page too, saying why it was not graded (under ``feedback/_not-graded/``), and a submission
that the gradebook could not give to a student is under ``feedback/_unmatched/``. The pages
are static HTML with no script, readable offline and printable. Student ids and file names
are hostile input: every text is escaped, and a file's name is made of safe characters only
(:func:`~nbcore.classroom.display.safe_name`).
"""

import re
from pathlib import Path

from nbcore.classroom.display import escape, safe_name
from nbcore.classroom.report import submissions_by_student
from nbcore.classroom.results import FAILED, NOT_ATTEMPTED, PASSED

__all__ = ["write_feedback", "feedback_page", "STYLE"]

STYLE = """
body { font-family: system-ui, sans-serif; color: #1a1a1a; background: #ffffff;
       max-width: 56rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
caption { text-align: left; font-weight: bold; padding: 0.3rem 0; }
th, td { border: 1px solid #6b6b6b; padding: 0.3rem 0.5rem; text-align: left;
         vertical-align: top; }
th { background: #eef2f7; }
td.value { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
td.number { text-align: right; }
.passed { color: #1b5e20; } .failed { color: #8f3f00; } .not-attempted { color: #4a4a4a; }
@media print { body { margin: 0; max-width: none; } th { background: #eeeeee; }
               tr { break-inside: avoid; } }
"""

_STATUS = {
    PASSED: ("correct", "passed"),
    FAILED: ("not yet", "failed"),
    NOT_ATTEMPTED: ("not attempted", "not-attempted"),
}


def _page(title, body):
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n"
        f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )


def _points(x):
    return f"{x:g}"


def feedback_page(result, *, released=False, others=()):
    """The HTML of one submission's feedback page."""
    who = escape(result.student or result.path.name)
    chapter = escape(result.chapter or "(not known)")
    title = f"Feedback: chapter {result.chapter or '?'}, {result.student or result.path.name}"
    parts = [f"<h1>Chapter {chapter}: feedback for {who}</h1>"]
    # the file's own name: the folders above it are the instructor's
    parts.append(f"<p>Submission: <code>{escape(result.path.name)}</code></p>")
    if result.refused:
        parts.append(
            "<p><strong>This file was not graded.</strong> Reason: "
            f"{escape(result.refused)}</p>"
            "<p>Hand in the notebook you were given for this chapter, as you saved it, and ask "
            "your instructor if the reason is not clear.</p>"
        )
        return _page(title, "\n".join(parts))
    score = f"{_points(result.score)} of {result.out_of} points"
    if result.late:
        late = result.late
        parts.append(
            f"<p>Score: {score}. Handed in late ({escape(late.note)}): "
            f"&minus;{_points(late.penalty)} points, so <strong>{_points(result.final)} of "
            f"{result.out_of}</strong>.</p>"
        )
    else:
        parts.append(f"<p>Score: <strong>{score}</strong>.</p>")
    header = ["Exercise", "Your value", "Result", "Hint", "Points"]
    if released:
        header.insert(2, "Expected value")
    rows = []
    for r in result.results:
        label, css = _STATUS.get(r.status, (r.status, "failed"))
        points = f"{_points(r.earned)} of {r.points}"
        if r.override is not None:
            points += " (set by your instructor)"
        cells = [
            f'<th scope="row">{escape(r.exercise)}</th>',
            f'<td class="value">{escape(r.value) or "&mdash;"}</td>',
            f'<td class="{css}">{escape(label)}</td>',
            f"<td>{escape(r.hint)}</td>",
            f'<td class="number">{escape(points)}</td>',
        ]
        if released:
            cells.insert(2, f'<td class="value">{escape(r.expected) or "&mdash;"}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in header)
    parts.append(
        "<table>\n<caption>Your exercises, one row each</caption>\n"
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>"
    )
    if not released:
        parts.append(
            "<p>The expected values are shown here once the solutions of this chapter are "
            "released.</p>"
        )
    notes = [escape(for_the_student(p)) for p in result.problems]
    notes += [
        f"Exercise {escape(r.exercise)}: {escape(for_the_student(r.note))}"
        for r in result.results
        if r.note
    ]
    if others:
        names = ", ".join(f"<code>{escape(o)}</code>" for o in others)
        notes.append(f"You handed in more than one file; this is the latest. Also: {names}")
    if notes:
        parts.append("<h2>Notes</h2>\n<ul>\n" + "\n".join(f"<li>{n}</li>" for n in notes))
        parts[-1] += "\n</ul>"
    return _page(title, "\n".join(parts))


# the instructor's notes name classmates and their accounts; a student's page says only that
# there is another one (typical answers sent on purpose would otherwise reveal who wrote what)
_CLASSMATE = [
    (re.compile(r"similar to \S+'s "), "similar to another student's "),
    (re.compile(r"from the account of [^:;]+"), "from another student's account"),
    (
        re.compile(r"from an account that handed in other students' copies too \([^)]*\)"),
        "from an account that handed in other students' copies too",
    ),
    (re.compile(r"more than one account \([^)]*\)"), "more than one account"),
]


def for_the_student(note):
    """An instructor's note as the student may read it: without classmates' names or ids."""
    for pattern, replacement in _CLASSMATE:
        note = pattern.sub(replacement, note)
    return note


def write_feedback(results, folder, *, released=(), base=None, log=None):
    """Write ``<folder>/feedback/<student>/<chapter>.html`` for every student and chapter.

    ``released``: the chapters whose solutions are released (their names, or their numbers
    such as "08"). A student's latest submission of a chapter gets the page (as in the
    gradebook); a refused file gets a page of its own. A page that cannot be written is
    reported to ``log`` and the others are still written. Returns the paths written.
    """
    log = log or (lambda message: None)
    root = Path(folder) / "feedback"
    released = {str(r) for r in released}
    by_chapter = {}
    for result in results:
        by_chapter.setdefault(result.chapter or "", []).append(result)
    written = []
    for chapter, chapter_results in sorted(by_chapter.items()):
        is_released = chapter in released or chapter[:2] in released
        for student, entries in sorted(submissions_by_student(chapter_results, base).items()):
            result = entries[-1][1]
            others = [r.path.name for _, r in entries[:-1]]
            chapter_file = safe_name(chapter or "unknown-chapter")
            if result.refused:  # "_..." is never a safe_name: no student's folder
                path = root / "_not-graded" / f"{chapter_file}-{safe_name(student)}.html"
            elif result.student and student == result.student:
                path = root / safe_name(student) / f"{chapter_file}.html"
            else:  # a row of its own in the gradebook: not matched to a student
                path = root / "_unmatched" / safe_name(student) / f"{chapter_file}.html"
            try:
                html_text = feedback_page(result, released=is_released, others=others)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(html_text, encoding="utf-8")
                written.append(path)
            except Exception as error:  # one page that fails stops no other
                log(f"feedback page {path} not written: {type(error).__name__}: {error}")
    return written
