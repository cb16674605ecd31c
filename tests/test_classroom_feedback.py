"""Feedback pages (nbcore.classroom.feedback) and the class report (nbcore.classroom.classreport),
from results built here; the term test (test_classroom_term.py) checks them after real grading.
"""

import html
import re
from pathlib import Path

import numpy as np
import pytest
import test_book_browser

from nbcore.answers import Unanswered, dumps
from nbcore.classroom import feedback as feedback_module
from nbcore.classroom.classreport import chapter_summary, write_class_report
from nbcore.classroom.display import MAX_VALUE_CHARS, answer_text, safe_name, value_text
from nbcore.classroom.feedback import write_feedback
from nbcore.classroom.results import (
    FAILED,
    NOT_ATTEMPTED,
    PASSED,
    ExerciseResult,
    Late,
    SubmissionResult,
)

CHAPTER = "08_numerics"


def _result(student, statuses, *, chapter=CHAPTER, verified=True, order=(0,), **kw):
    """A graded submission: ``statuses`` is [(exercise, status, hint, value, expected)]."""
    results = [
        ExerciseResult(ex, 2, status, hint, value=value, expected=expected)
        for ex, status, hint, value, expected in statuses
    ]
    return SubmissionResult(
        Path(f"/in/{student}.ipynb"),
        chapter,
        student,
        results=results,
        verified=verified,
        order=order,
        **kw,
    )


def _batch():
    return [
        _result("ada", [("8.1", PASSED, "", "0.125", "0.125"), ("8.2", PASSED, "", "3", "3")]),
        _result(
            "bo",
            [
                ("8.1", FAILED, "do not round", "0.13", "0.125"),
                ("8.2", PASSED, "", "3", "3"),
            ],
            late=Late(2, 0.8, "2 days late, 20 % off"),
        ),
        _result(
            "cy",
            [
                ("8.1", FAILED, "do not round", "0.12", "0.5"),
                ("8.2", NOT_ATTEMPTED, "", "", "4"),
            ],
        ),
        SubmissionResult(Path("/in/junk.ipynb"), CHAPTER, "", refused="not a notebook"),
    ]


def _pages(folder):
    return {
        p.relative_to(folder / "feedback").as_posix(): p.read_text()
        for p in (folder / "feedback").rglob("*.html")
    }


def test_a_page_for_every_student_and_every_refused_file(tmp_path):
    write_feedback(_batch(), tmp_path)
    pages = _pages(tmp_path)
    assert set(pages) == {
        f"ada/{CHAPTER}.html",
        f"bo/{CHAPTER}.html",
        f"cy/{CHAPTER}.html",
        f"_not-graded/{CHAPTER}-{safe_name('/in/junk.ipynb')}.html",
    }
    refused = pages[f"_not-graded/{CHAPTER}-{safe_name('/in/junk.ipynb')}.html"]
    assert "not graded" in refused and "not a notebook" in refused


def test_a_page_shows_values_verdicts_hints_points_and_the_late_penalty(tmp_path):
    write_feedback(_batch(), tmp_path)
    page = _pages(tmp_path)[f"bo/{CHAPTER}.html"]
    assert '<html lang="en">' in page and "<script" not in page
    assert '<th scope="row">8.1</th>' in page
    assert "0.13" in page and "do not round" in page and "not yet" in page
    assert "0 of 2" in page and "2 of 2" in page
    assert "2 days late, 20 % off" in page and "&minus;0.8 points" in page
    assert "<strong>1.2 of 4</strong>" in page


def test_expected_values_appear_only_once_released(tmp_path):
    write_feedback(_batch(), tmp_path / "before")
    write_feedback(_batch(), tmp_path / "after", released={"08"})
    before = _pages(tmp_path / "before")[f"cy/{CHAPTER}.html"]
    after = _pages(tmp_path / "after")[f"cy/{CHAPTER}.html"]
    assert 'scope="col">Expected value' not in before and ">0.5<" not in before
    assert "once the solutions of this chapter are released" in before
    assert 'scope="col">Expected value' in after and '<td class="value">0.5</td>' in after
    # the chapter's full name releases it too
    write_feedback(_batch(), tmp_path / "named", released={CHAPTER})
    assert 'scope="col">Expected value' in _pages(tmp_path / "named")[f"cy/{CHAPTER}.html"]


HOSTILE_IDS = [
    "<script>alert(1)</script>",
    "../../outside",
    "/etc/passwd",
    "a/b\\c",
    "zz\udcfe",  # a byte of a file name that is not UTF-8
    "x" * 5000,
    "..",
    "",
]


def test_hostile_ids_values_and_names_stay_inside_and_escaped(tmp_path):
    results = [
        _result(
            student,
            [("8.1", FAILED, "<img src=x onerror=alert(1)>", "<script>x</script>", "")],
            order=(n,),
        )
        for n, student in enumerate(HOSTILE_IDS)
    ]
    results.append(
        SubmissionResult(Path("/in/<b>evil</b>\udcfe.ipynb"), "", "", refused="<script>")
    )
    written = write_feedback(results, tmp_path)
    root = (tmp_path / "feedback").resolve()
    assert len(written) == len(results)
    for path in written:
        assert path.resolve().is_relative_to(root)
        assert all(len(part) <= 100 for part in path.relative_to(root).parts)
        text = path.read_text(encoding="utf-8")
        assert "<script" not in text and "<img" not in text and "<b>" not in text
    assert not (tmp_path.parent / "outside").exists()
    # nothing was written outside the feedback folder
    assert {p.name for p in tmp_path.iterdir()} == {"feedback"}


def test_names_that_differ_only_in_unsafe_characters_get_separate_pages(tmp_path):
    results = [
        _result("bob!", [("8.1", PASSED, "", "1", "1")]),
        _result("bob?", [("8.1", FAILED, "h", "2", "1")]),
        _result("bob", [("8.1", FAILED, "h", "3", "1")]),
    ]
    assert len(set(write_feedback(results, tmp_path))) == 3


def test_a_copy_claiming_a_verified_students_id_does_not_replace_their_page(tmp_path):
    own = _result("ada", [("8.1", PASSED, "", "0.125", "")], order=(0,))
    impostor = _result("ada", [("8.1", FAILED, "h", "9", "")], verified=False, order=(1,))
    write_feedback([own, impostor], tmp_path)
    pages = _pages(tmp_path)
    assert "0.125" in pages[f"ada/{CHAPTER}.html"]
    assert any(name.startswith("_unmatched/") and "9" in text for name, text in pages.items())


def test_the_latest_submission_gets_the_page_and_names_the_others(tmp_path):
    early = _result("ada", [("8.1", FAILED, "h", "1", "")], order=(0,))
    early.path = Path("/in/ada-first.ipynb")
    late = _result("ada", [("8.1", PASSED, "", "2", "")], order=(1,))
    write_feedback([late, early], tmp_path)
    page = _pages(tmp_path)[f"ada/{CHAPTER}.html"]
    assert "correct" in page and "ada-first.ipynb" in page


def test_one_page_that_fails_stops_no_other(tmp_path, monkeypatch):
    real = feedback_module.feedback_page

    def failing(result, **kw):
        if result.student == "bo":
            raise RuntimeError("disk full")
        return real(result, **kw)

    monkeypatch.setattr(feedback_module, "feedback_page", failing)
    messages = []
    written = write_feedback(_batch(), tmp_path, log=messages.append)
    assert len(written) == 3 and any("disk full" in m for m in messages)


def test_values_are_short_whatever_the_answer():
    assert value_text(0.1 + 0.2) == "0.3"
    assert value_text(1 / 3) == "0.3333333333"
    big = value_text(np.arange(100_000.0))
    assert "..." in big and len(big) <= MAX_VALUE_CHARS
    assert len(value_text("x" * 10**6)) <= MAX_VALUE_CHARS
    assert value_text(Unanswered("it raised")) == "(no value: it raised)"
    assert answer_text(dumps([1, 2.5, "a"])) == "[1, 2.5, 'a']"
    assert answer_text('{"$": "float", "value": "nan"') == "(a value that could not be read)"
    assert answer_text("[" * 5000 + "]" * 5000) == "(a value that could not be read)"
    assert answer_text("") == ""


def test_the_class_reports_numbers():
    summary = chapter_summary(_batch(), roster_ids=["ada", "bo", "cy", "dee"])
    e1, e2 = summary["exercises"]["8.1"], summary["exercises"]["8.2"]
    assert (e1["students"], e1["attempted"], e1["passed"]) == (3, 3, 1)
    assert (e2["students"], e2["attempted"], e2["passed"]) == (3, 2, 2)
    assert e1["hints"] == [("do not round", 2)]
    assert summary["missing"] == ["dee"]
    assert [r.student for r in summary["late"]] == ["bo"]
    assert summary["refused"] == [("/in/junk.ipynb", "not a notebook")]
    assert summary["scores"] == [4, pytest.approx(1.2), 0]
    # two students share the variant whose expected answer is 0.125
    assert {k: len(v) for k, v in e1["variants"].items()} == {"0.125": 2, "0.5": 1}


def test_the_class_report_page(tmp_path):
    batch = _batch()
    batch[0].results[0].note = "similar to the published solution of 8.1"
    (path,) = write_class_report(batch, tmp_path, roster_ids=["ada", "bo", "cy", "dee"])
    assert path.name == f"report_{CHAPTER}.html"
    page = path.read_text()
    assert '<html lang="en">' in page and "<script" not in page
    alts = re.findall(r'<img alt="([^"]+)"', page)
    assert len(alts) == 2
    assert "exercise 8.1, 1 of 3 passed; exercise 8.2, 2 of 3 passed" in html.unescape(alts[1])
    assert "do not round (2×)" in page
    assert "<li>dee</li>" in page
    assert "similar to the published solution of 8.1" in page
    assert "not a notebook" in page and "2 days late, 20 % off" in page
    # the plots' numbers as tables too, with captions and header scopes
    assert page.count("<caption>") >= 4 and 'scope="col"' in page


def test_without_a_roster_the_report_says_missing_students_are_not_known(tmp_path):
    (path,) = write_class_report(_batch(), tmp_path)
    assert "missing students are not known" in path.read_text()


driver, axe_source = test_book_browser.driver, test_book_browser.axe_source  # the fixtures


@pytest.mark.browser
def test_a_feedback_page_and_a_report_pass_the_accessibility_audit(tmp_path, driver, axe_source):
    batch = _batch()
    pages = write_feedback(batch, tmp_path, released={"08"})
    pages += write_class_report(batch, tmp_path, roster_ids=["ada", "bo", "cy", "dee"])
    audited = [p for p in pages if p.parent.name == "bo" or p.name.startswith("report_")]
    assert len(audited) == 2
    for page in audited:
        driver.get(page.as_uri())
        assert driver.execute_script("return document.documentElement.lang") == "en"
        violations = test_book_browser._axe_violations(driver, axe_source)
        assert not violations, (page.name, violations)
        driver.save_screenshot(str(tmp_path / f"{page.stem}.png"))
