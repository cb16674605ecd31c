"""The class report: ``report_<chapter>.html``, what an instructor looks at after grading.

For one chapter: how the scores are spread, how many passed each exercise, the most frequent
mistakes (the hints the checks gave, counted), whether some variants were harder than others,
who handed in late, who did not hand in (with a roster), answers flagged as similar, and the
files refused with their reasons. The two plots come with their numbers as tables, for screen
readers and for copying. Static HTML, no script; the plots are PNG images inside the page.
"""

from collections import Counter
from pathlib import Path
from statistics import mean, median

import numpy as np

from nbcore import plotting
from nbcore.classroom.display import escape, safe_name
from nbcore.classroom.feedback import STYLE
from nbcore.classroom.report import _name, submissions_by_student
from nbcore.classroom.results import FAILED, NOT_ATTEMPTED, PASSED

__all__ = ["chapter_summary", "write_class_report"]

TOP_HINTS = 3


def chapter_summary(results, roster_ids=None, base=None):
    """The numbers of one chapter's report, from its results (the latest per student)."""
    latest = submissions_by_student(results, base)
    graded = [entries[-1][1] for entries in latest.values() if not entries[-1][1].refused]
    refused = [r for r in results if r.refused]
    exercises = []
    for result in graded:
        exercises += [r.exercise for r in result.results if r.exercise not in exercises]
    per_exercise = {}
    for exercise in exercises:
        rows = [r for result in graded for r in result.results if r.exercise == exercise]
        hints = Counter(r.hint for r in rows if r.status == FAILED and r.hint)
        variants = {}
        for r in rows:
            if r.status != NOT_ATTEMPTED:
                variants.setdefault(r.expected or "(not known)", []).append(r.status == PASSED)
        per_exercise[exercise] = {
            "points": max((r.points for r in rows), default=0),
            "attempted": sum(r.status != NOT_ATTEMPTED for r in rows),
            "passed": sum(r.status == PASSED for r in rows),
            "students": len(rows),
            "hints": hints.most_common(TOP_HINTS),
            "variants": variants,
        }
    handed_in = {r.student for r in results if r.student and not r.refused}
    missing = sorted(set(roster_ids) - handed_in) if roster_ids is not None else None
    return {
        "graded": graded,
        "scores": [r.final for r in graded],
        "out_of": max((r.out_of for r in graded), default=0),
        "exercises": per_exercise,
        "late": [r for r in graded if r.late],
        "missing": missing,
        "similar": [
            (r.student or _name(r, base), x.exercise, x.note)
            for r in graded
            for x in r.results
            if x.note
        ],
        "refused": [(_name(r, base), r.refused) for r in refused],
    }


def _table(caption, header, rows, numeric=()):
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in header)
    body = []
    for row in rows:
        cells = [f'<th scope="row">{escape(row[0])}</th>']
        for i, value in enumerate(row[1:], start=1):
            css = ' class="number"' if i in numeric else ""
            cells.append(f"<td{css}>{escape(value)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f"<table>\n<caption>{escape(caption)}</caption>\n<thead><tr>{head}</tr></thead>\n"
        "<tbody>\n" + "\n".join(body) + "\n</tbody>\n</table>"
    )


def _score_figure(scores, out_of):
    fig, axes = plotting.new_figure(figsize=(6.0, 2.8))
    ax = axes[0, 0]
    edges = np.linspace(0, max(out_of, 1), min(int(max(out_of, 1)), 10) + 1)
    counts, _ = np.histogram(np.clip(scores, 0, None), bins=edges)
    ax.bar(
        edges[:-1],
        counts,
        width=np.diff(edges),
        align="edge",
        color=plotting.PALETTE[0],
        edgecolor="black",
        hatch=plotting.HATCHES[1],
    )
    ax.set_xlabel(f"score (of {out_of} points)")
    ax.set_ylabel("students")
    ax.yaxis.get_major_locator().set_params(integer=True)
    spread = ", ".join(
        f"{int(c)} between {lo:g} and {hi:g}"
        for c, lo, hi in zip(counts, edges[:-1], edges[1:], strict=True)
        if c
    )
    alt = f"Histogram of the scores of {len(scores)} students: {spread}."
    return plotting.figure_html(fig, alt), list(zip(edges[:-1], edges[1:], counts, strict=True))


def _pass_figure(exercises):
    names = list(exercises)
    rates = [e["passed"] / e["students"] if e["students"] else 0 for e in exercises.values()]
    fig, axes = plotting.new_figure(figsize=(6.0, 0.5 + 0.35 * max(len(names), 2)))
    ax = axes[0, 0]
    positions = np.arange(len(names))
    ax.barh(
        positions, rates, color=plotting.PALETTE[1], edgecolor="black", hatch=plotting.HATCHES[2]
    )
    for y, e in zip(positions, exercises.values(), strict=True):
        ax.text(
            min(rates[y], 0.98),
            y,
            f" {e['passed']} of {e['students']}",
            va="center",
            ha="right" if rates[y] > 0.8 else "left",
            color="black",
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
        )
    ax.set_yticks(positions, [f"Exercise {n}" for n in names])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of students who passed")
    alt = (
        "Pass rate per exercise: "
        + "; ".join(
            f"exercise {n}, {e['passed']} of {e['students']} passed" for n, e in exercises.items()
        )
        + "."
    )
    return plotting.figure_html(fig, alt)


def _variants_section(exercises):
    parts = ["<h2>Difficulty per variant</h2>"]
    shared, single = [], []
    for name, e in exercises.items():
        groups = e["variants"]
        if any(len(g) > 1 for g in groups.values()) and len(groups) > 1:
            shared.append((name, groups))
        elif groups:
            single.append(name)
    parts.append(
        "<p>Students whose copies give the same expected answer had the same numbers in "
        "effect: they are one variant. Where several students share variants, the table "
        "compares the pass rate of each. A variant with few students says little.</p>"
    )
    rows = []
    for name, groups in shared:
        for expected, passes in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            rows.append([f"Exercise {name}", expected, len(passes), sum(passes)])
    if rows:
        parts.append(
            _table(
                "Pass counts by variant (the expected answer names the variant)",
                ["Exercise", "Expected answer", "Students", "Passed"],
                rows,
                numeric=(2, 3),
            )
        )
    if single:
        names = ", ".join(single)
        parts.append(
            f"<p>Exercises {escape(names)}: every student who tried had numbers of their own "
            "(no two share a variant), so a pass rate per variant would be one student's "
            "result; look at the hints above instead.</p>"
        )
    return "\n".join(parts)


def class_report_page(chapter, summary):
    """The HTML of one chapter's class report."""
    graded, scores, out_of = summary["graded"], summary["scores"], summary["out_of"]
    parts = [f"<h1>Class report: chapter {escape(chapter)}</h1>"]

    def count(n, what):
        return f"{n} {what}" if n == 1 else f"{n} {what}s"

    facts = [count(len(graded), "student") + " graded", count(len(summary["refused"]), "file")]
    facts[-1] += " refused"
    if summary["missing"] is not None:
        facts.append(f"{len(summary['missing'])} on the roster did not hand in")
    if scores:
        facts.append(f"mean score {mean(scores):.3g}, median {median(scores):g} of {out_of}")
    parts.append("<p>" + escape("; ".join(facts)) + ".</p>")
    if scores:
        parts.append("<h2>Scores</h2>")
        image, bins = _score_figure(scores, out_of)
        caption = "<figcaption>Scores after late penalties.</figcaption>"
        parts.append(f"<figure>{image}{caption}</figure>")
        rows = [[f"{lo:g} to {hi:g}", int(c)] for lo, hi, c in bins]
        parts.append(_table("Students per score band", ["Score", "Students"], rows, (1,)))
    exercises = summary["exercises"]
    if exercises:
        parts.append("<h2>Exercises</h2>")
        parts.append(
            f"<figure>{_pass_figure(exercises)}<figcaption>Pass rate per exercise, with its "
            "count.</figcaption></figure>"
        )
        rows = []
        for name, e in exercises.items():
            hints = "; ".join(f"{h} ({n}×)" for h, n in e["hints"]) or "none"
            rate = f"{e['passed'] / e['students']:.0%}" if e["students"] else "-"
            rows.append(
                [f"Exercise {name}", e["students"], e["attempted"], e["passed"], rate, hints]
            )
        parts.append(
            _table(
                "Per exercise: attempts, passes and the most frequent hints",
                ["Exercise", "Students", "Attempted", "Passed", "Pass rate", "Most frequent hints"],
                rows,
                numeric=(1, 2, 3),
            )
        )
        parts.append(_variants_section(exercises))
    parts.append("<h2>Late and missing</h2>")
    late = [
        [r.student or "?", r.late.days, f"{r.late.penalty:g}", r.late.note] for r in summary["late"]
    ]
    parts.append(
        _table(
            "Late submissions", ["Student", "Days late", "Points deducted", "Rule"], late, (1, 2)
        )
        if late
        else "<p>No submission was late.</p>"
    )
    if summary["missing"] is None:
        parts.append("<p>No roster was given, so missing students are not known.</p>")
    elif summary["missing"]:
        items = "".join(f"<li>{escape(s)}</li>" for s in summary["missing"])
        parts.append(f"<p>On the roster, no submission:</p>\n<ul>{items}</ul>")
    else:
        parts.append("<p>Every student on the roster handed in.</p>")
    parts.append("<h2>Similar answers</h2>")
    parts.append(
        _table(
            "Answers flagged as similar (scores kept)",
            ["Student", "Exercise", "Note"],
            summary["similar"],
        )
        if summary["similar"]
        else "<p>No answer was flagged.</p>"
    )
    parts.append("<h2>Refused files</h2>")
    parts.append(
        _table("Files not graded, with the reason", ["File", "Reason"], summary["refused"])
        if summary["refused"]
        else "<p>No file was refused.</p>"
    )
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>Class report: chapter {escape(chapter)}</title>\n<style>{STYLE}\n"
        "figure { margin: 1rem 0; } img { max-width: 100%; height: auto; }</style>\n</head>\n"
        f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )


def write_class_report(results, folder, *, roster_ids=None, base=None, log=None):
    """Write ``<folder>/report_<chapter>.html`` for every chapter graded; the paths written.

    ``roster_ids``: the students expected (the roster's ids), to list who did not hand in.
    """
    log = log or (lambda message: None)
    by_chapter = {}
    for result in results:
        if result.chapter:
            by_chapter.setdefault(result.chapter, []).append(result)
    written = []
    for chapter, chapter_results in sorted(by_chapter.items()):
        path = Path(folder) / f"report_{safe_name(chapter)}.html"
        try:
            summary = chapter_summary(chapter_results, roster_ids, base)
            path.write_text(class_report_page(chapter, summary), encoding="utf-8")
            written.append(path)
        except Exception as error:  # one chapter's report stops no other
            log(f"class report {path} not written: {type(error).__name__}: {error}")
    return written
