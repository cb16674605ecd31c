"""The printable edition, ``_build/pdf/book.pdf`` (``make pdf``; ``make test`` makes it first).

Read back through its text layer (pypdf): it has a sensible number of pages, every chapter
starts a page with its title and is listed in the contents with that page number, the figures
are numbered with captions, the math is typeset (no TeX source left), the exercises are there
and none of their solutions is. The single page it was printed from is opened once more in
Chromium with print media emulated, to check that no explorer takes room on paper (an
explorer prints as an empty box: no kernel, no picture) while the static twins stay.
"""

import functools
import re
import shutil
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent
PDF = ROOT / "_build" / "pdf" / "book.pdf"
SINGLE = ROOT / "_build" / "singlehtml" / "book.html"
sys.path.insert(0, str(ROOT / "tools"))
import build_pdf  # noqa: E402


@pytest.fixture(scope="module")
def pages():
    if not PDF.is_file():
        pytest.fail(f"no {PDF}: run `make pdf` first (make test does)")
    return build_pdf.page_texts(PDF.read_bytes())


@pytest.fixture(scope="module")
def text(pages):
    return build_pdf.comparable(" ".join(pages))


def _chapters():
    """(file, title as the book numbers it) for every chapter in the table of contents."""
    found = []
    for md in sorted((ROOT / "book").glob("*.md")):
        heading = next(
            line[2:].strip()
            for line in md.read_text(encoding="utf-8").splitlines()
            if line.startswith("# ")
        )
        number = re.match(r"(\d\d)_", md.name)
        # unnumbered pages (00_*, the bibliography) keep their title as it is
        numbered = number and not md.stem.startswith("00_")
        found.append((md, f"{int(number.group(1))}. {heading}" if numbered else heading))
    return found


def test_page_count(pages):
    chapters = [c for c in _chapters() if re.match(r"(0[1-9]|[1-9]\d)_", c[0].name)]
    # every chapter is several pages; a failed print gives one page or a blank run of them
    assert 5 * len(chapters) <= len(pages) <= 600, len(pages)
    blank = [n + 1 for n, page in enumerate(pages) if len(page) < 40]
    assert not blank, f"pages with (almost) no text: {blank}"


def test_every_chapter_starts_a_page_and_is_in_the_contents(pages):
    titles = [title for md, title in _chapters() if md.stem != "00_welcome"]
    starts = build_pdf.chapter_pages(pages, titles)
    missing = [t for t in titles if t not in starts]
    assert not missing, f"chapters whose title opens no page: {missing}"
    assert list(starts.values()) == sorted(starts.values()), "chapters out of order"
    # the contents page lists each chapter with the page it starts on
    # (the contents may run over several pages: all pages from its first to the first chapter)
    first = next(n for n, p in enumerate(pages) if "Contents" in p)
    contents = build_pdf.comparable(" ".join(pages[first : min(starts.values()) - 1]))
    for title, page in starts.items():
        assert build_pdf.comparable(f"{title} {page}") in contents, (title, page)


def test_figures_are_numbered_with_captions(text):
    html = SINGLE.read_text(encoding="utf-8")
    captions = re.findall(r'<span class="caption-number">(Fig\. [\d.]+)', html)
    assert len(captions) >= 10
    for number in captions:
        assert build_pdf.comparable(number) in text, f"{number} is not in the PDF"


def test_quoted_numbers_are_printed(text):
    """The prose's {eval} numbers are printed: the PDF, built without a kernel, shows the values
    the executed run stored with each markdown cell (an expression without one prints nothing)."""
    import nbformat

    from nbcore.classroom.prose import glued_values

    numbers = []
    for md, _ in _chapters():
        if md.with_suffix(".ipynb").is_file():
            values = glued_values(nbformat.read(md.with_suffix(".ipynb"), as_version=4))
            numbers += [v for v in values.values() if re.fullmatch(r"-?\d[\d.,]*\d%?", v)]
    assert len(numbers) > 200
    missing = [v for v in numbers if build_pdf.comparable(v) not in text]
    assert not missing, f"{len(missing)} quoted numbers not printed, e.g. {missing[:10]}"


def test_math_is_typeset(text):
    # MathJax typeset before printing: its glyphs are in the text layer, TeX delimiters are not
    # (TeX commands may appear: a docstring's Notes print them as code)
    for glyph in ("θ", "π", "∑", "∏"):
        assert glyph in text, f"no {glyph}: the math was printed before MathJax typeset it"
    for delimiter in ("$$", "\\(", "\\[", "\\begin{"):
        assert delimiter not in text, delimiter


def _exercise_cells():
    """(chapter, exercise, role, source, the book's text outside exercise cells)."""
    cells = [(md.name, cell) for md, _ in _chapters() for cell in jupytext.read(md).cells]
    rest = "\n".join(c.source for _, c in cells if c.metadata.get("role") is None)
    for name, cell in cells:
        role = cell.metadata.get("role")
        if role in ("solution", "check"):
            yield name, cell.metadata.get("exercise"), role, cell.source, rest


def test_exercises_are_printed_without_solutions(text):
    cells = list(_exercise_cells())
    assert len([c for c in cells if c[2] == "solution"]) >= 20
    checked = 0
    for name, exercise, role, source, rest in cells:
        assert build_pdf.comparable(f"Exercise {exercise}") in text, (name, exercise)
        # lines of the solution or check that the chapter does not also show elsewhere
        lines = [
            line.strip()
            for line in source.splitlines()
            if len(line.strip()) >= 20
            and not line.strip().startswith("#")
            and line.strip() not in rest
        ]
        for line in lines[:3]:
            checked += 1
            assert build_pdf.comparable(line) not in text, (
                f"{name}, exercise {exercise}: its {role} is printed: {line!r}"
            )
    assert checked >= 20


def test_no_explorer_is_printed(text):
    assert build_pdf.comparable("A saved view of this explorer") not in text


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the signature of the base class
        pass


@pytest.mark.browser
def test_no_widget_box_takes_room_on_paper():
    if not SINGLE.is_file():
        pytest.fail(f"no {SINGLE}: run `make pdf` first (make test does)")
    handler = functools.partial(_QuietHandler, directory=str(SINGLE.parent))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="book-pdf-test-")
    driver = build_pdf.start_browser(profile)
    try:
        driver.get(f"http://localhost:{server.server_address[1]}/book.html")
        deadline = time.monotonic() + 60
        while driver.execute_script("return document.readyState") != "complete":
            assert time.monotonic() < deadline, "the single page did not load"
            time.sleep(0.2)
        # wait for the widget manager, then look at the page as the printer does
        time.sleep(2)
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        facts = driver.execute_script(
            """
            const views = Array.from(document.querySelectorAll(
              'script[type="application/vnd.jupyter.widget-view+json"]'));
            const shown = e => e.getClientRects().length > 0 && e.offsetHeight > 0;
            // the cell that holds an explorer: on paper its code and an empty output area
            const boxes = views.map(v => v.closest('.cell') || v.parentElement)
              .concat(Array.from(document.querySelectorAll('.widget-subarea, .jupyter-widgets')));
            return {views: views.length,
                    printed: boxes.filter(shown).map(b => b.outerHTML.slice(0, 120)),
                    figures: Array.from(document.querySelectorAll('figure')).filter(shown).length,
                    tables: Array.from(document.querySelectorAll('.cell_output table'))
                      .filter(shown).length};
            """
        )
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        server.shutdown()
        server.server_close()
    assert facts["views"] >= 5, "the page holds no explorer: nothing was checked"
    assert not facts["printed"], f"widget boxes on paper: {facts['printed'][:3]}"
    # the static twins (figures, tables) stay
    assert facts["figures"] >= 10 and facts["tables"] >= 10, facts


def test_build_pdf_reads_the_notebooks_with_their_outputs():
    """The single-page build uses the stored outputs: each paired .md is excluded."""
    paired = build_pdf.paired_chapters()
    assert len(paired) >= 9
    assert all(md.with_suffix(".ipynb").is_file() for md in paired)


# --- the page as a reader sees it: code frames, outline, title page, exercise introductions ---


def test_no_code_frame_is_left_empty():
    """Rendered as a PDF viewer shows them, no page has a code frame without its code."""
    empty = build_pdf.empty_code_frames(PDF.read_bytes())
    assert not empty, f"empty code frames (page, top mm, height mm): {empty}"


@pytest.mark.browser
def test_the_frame_detector_sees_an_empty_frame(tmp_path):
    """The detector itself: of a printed empty frame and a frame with code, it reports one."""
    page = tmp_path / "frames.html"
    grey = "#" + "".join(f"{c:02x}" for c in build_pdf.CODE_BACKGROUND)
    page.write_text(
        "<!DOCTYPE html><html lang=en><title>t</title><body style='margin:0'>"
        f"<div style='background:{grey};height:60mm;width:150mm'></div>"
        "<p>between</p>"
        f"<pre style='background:{grey};height:40mm;width:150mm;margin:0'>x = 1\n"
        "print(x)</pre></body></html>",
        encoding="utf-8",
    )
    profile = tempfile.mkdtemp(prefix="book-pdf-test-")
    driver = build_pdf.start_browser(profile)
    try:
        driver.get(page.as_uri())
        pdf = driver.execute_cdp_cmd("Page.printToPDF", {"printBackground": True})["data"]
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    import base64

    found = build_pdf.empty_code_frames(base64.b64decode(pdf))
    assert [(page, height) for page, _, height in found] == [(1, 60)], found


def _markdown_headings(md):
    """The ## headings of a page's markdown cells, math as a pattern that must match text."""
    found = []
    for cell in jupytext.read(md).cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            if line.startswith("## "):
                text = line[3:].strip().replace("`", "")
                parts = re.split(r"\$[^$]+\$", text)
                found.append(r"\s*.+?\s*".join(re.escape(p.strip()) for p in parts))
    return found


def test_outline_has_one_clean_entry_per_chapter_and_section():
    outline = build_pdf.outline_titles(PDF.read_bytes())
    top = [title for depth, title in outline if depth == 0]
    assert sorted(top) == sorted(title for _, title in _chapters()), top
    for depth, title in outline:
        assert title.strip() and "#" not in title, (depth, title)
        # no text said twice, as when a heading's number or words were read twice
        assert not re.search(r"(\w.{5,})\1", title), title
    # every section heading of every page is an entry under its chapter, math written out
    chapters = {title: i for i, (depth, title) in enumerate(outline) if depth == 0}
    for md, title in _chapters():
        start = chapters[title]
        end = next((i for i in range(start + 1, len(outline)) if outline[i][0] == 0), None)
        quotes = str.maketrans("‘’“”", "''\"\"")  # typographic quotes as typed
        sections = [t.translate(quotes) for d, t in outline[start + 1 : end] if d == 1]
        for pattern in _markdown_headings(md):
            assert any(re.fullmatch(r"(\d+\.)*\d*\.?\s*" + pattern, s) for s in sections), (
                f"{md.name}: no outline entry for the section {pattern!r} in {sections}"
            )


def _edition():
    return build_pdf.edition()


def test_title_page_names_the_edition_the_licences_and_how_to_cite(pages):
    ed, cite = _edition()
    first = build_pdf.comparable(pages[0])
    for words in (
        "Naive Bayes classifiers",
        ed["authors"],
        f"Edition {ed['version']}, {ed['date_text']}",
        "CC BY 4.0",
        "MIT licence",
        "SMS Spam Collection",
        f"How to cite: {cite(ed)}",
        "Errata",
    ):
        assert build_pdf.comparable(words) in first, words
    # the title page stands alone: the book's text starts on the next page
    assert "Who it is for" not in pages[0]
    # and the title is printed once, not also by the theme's print header above it
    title = build_pdf.comparable("Naive Bayes classifiers")
    assert first.startswith(title) and not first.startswith(title * 2), pages[0][:80]


def test_printed_exercise_introductions_speak_of_paper(text):
    for left_out in ("Show solution", "Hide solution", "check cell", "The cell after it"):
        assert build_pdf.comparable(left_out) not in text, left_out
    chapters = [md for md, _ in _chapters() if "% exercises follow" in md.read_text("utf-8")]
    assert chapters
    assert text.count(build_pdf.comparable(build_pdf.PRINTED_EXERCISES)) == len(chapters)
