"""Build the printable edition of the book: ``_build/pdf/book.pdf`` (``make pdf``), offline.

1. A single-page HTML build (Jupyter Book's ``singlehtml`` builder) into
   ``_build/singlehtml/``. It reads the chapters' paired ``.ipynb`` files with their stored
   outputs (the outputs of a real run, ``tools/execute.py``, that nbval checks against a fresh
   run in ``make test``), so nothing is executed again; the two pages without a notebook
   (welcome, notation) are read from their ``.md``.
2. Headless Chromium opens that page from a localhost server with the network off, waits for
   the bundled MathJax to finish typesetting and for every image, adds a table of contents,
   and prints to PDF with the DevTools call ``Page.printToPDF`` (through selenium). The print
   style sheet (``book-assets/css/book.css``, ``@media print``) leaves out the navigation,
   the explorers (their static twins stay) and the exercises' solutions and checks.
3. It prints twice: the first print tells on which page each chapter starts, the second
   writes those page numbers into the table of contents.

Why Chromium and not LaTeX: the browser the tests already need prints exactly what the HTML
book shows (MathJax, the theme, the figures, the static twins as HTML tables) with no TeX
installation (Debian's texlive is gigabytes) and none of the LaTeX builder's failure modes
with notebook outputs (HTML tables, SVG, widget state).

Usage: ``python tools/build_pdf.py [--skip-build]`` (``--skip-build`` prints the existing
``_build/singlehtml``).
"""

import argparse
import base64
import functools
import io
import os
import shutil
import sys
import tempfile
import threading
import time
import unicodedata
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SINGLE = ROOT / "_build" / "singlehtml"
OUT = ROOT / "_build" / "pdf" / "book.pdf"
HTML = ROOT / "_build" / "html"

# The table of contents, built in the page from the chapters' titles before printing.
TOC_JS = r"""
const chapters = Array.from(document.querySelectorAll('span[id^="document-"] + section'));
const title = (section) => {
  const h = section.querySelector('h1, h2, h3, h4');
  return Array.from(h.childNodes)
    .filter(n => !(n.classList && n.classList.contains('headerlink')))
    .map(n => n.textContent).join('').replace(/\s+/g, ' ').trim();
};
const pages = arguments[0] || {};
let nav = document.getElementById('book-print-toc');
if (!nav) {
  nav = document.createElement('nav');
  nav.id = 'book-print-toc';
  nav.setAttribute('aria-label', 'Contents');
  // the welcome page's own "Contents" section, where the chapters follow
  const heading = document.querySelector('section#contents > h2');
  if (heading) {
    heading.after(nav);
  } else {
    nav.innerHTML = '<h2>Contents</h2>';
    chapters[0].before(nav);
  }
}
let list = nav.querySelector('ol');
if (!list) { list = document.createElement('ol'); nav.append(list); }
list.innerHTML = '';
chapters.forEach((section) => {
  section.classList.add('book-chapter');
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.href = '#' + section.id;
  link.textContent = title(section);
  const page = document.createElement('span');
  page.className = 'book-toc-page';
  page.textContent = pages[title(section)] || '';
  item.append(link, page);
  list.append(item);
});
return chapters.map(title);
"""

# MathJax finished, every image decoded, the fonts loaded.
READY_JS = """
const done = arguments[arguments.length - 1];
const math = (window.MathJax && MathJax.startup && MathJax.startup.promise)
  ? MathJax.startup.promise.then(() => MathJax.typesetPromise ? MathJax.typesetPromise() : null)
  : Promise.resolve();
const images = Promise.all(Array.from(document.images).map(
  i => i.complete ? Promise.resolve() : new Promise(r => { i.onload = i.onerror = r; })));
Promise.all([math, images, document.fonts.ready]).then(
  () => done('ok'), (e) => done('failed: ' + e));
"""

# The title page, before the welcome page: title, authors, edition, date, licences, how to cite.
TITLE_JS = r"""
const html = arguments[0];
if (!document.getElementById('book-title-page')) {
  const page = document.createElement('section');
  page.id = 'book-title-page';
  page.innerHTML = html;
  const first = document.querySelector('.bd-article > section, article > section, main section');
  first.before(page);
  first.classList.add('book-welcome');
}
"""

# The exercise introductions speak of what the HTML book and the notebooks show (the folded
# "Show solution", the check cell after it). Print leaves those out: such sentences are
# replaced by one that says where the solutions and checks are.
PRINT_TEXT_JS = r"""
const leftOut =
  /\b(Show solution|Hide solution|check cells?|checks your answer|The cell after it)\b/;
const instead = arguments[0];
let changed = 0;
for (const p of document.querySelectorAll('main p')) {
  if (!leftOut.test(p.textContent)) continue;
  // the paragraph's text nodes, with the offset where each starts in p.textContent
  const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
  const texts = [];
  let offset = 0;
  while (walker.nextNode()) {
    texts.push([walker.currentNode, offset]);
    offset += walker.currentNode.data.length;
  }
  const at = (position) => {
    for (let i = texts.length - 1; i >= 0; i--) {
      if (texts[i][1] <= position) return [texts[i][0], position - texts[i][1]];
    }
    return [texts[0][0], 0];
  };
  const sentences = Array.from(p.textContent.matchAll(/[^.!?]+(?:[.!?]+(?:\s+|$)|$)/g));
  const drop = sentences.filter(m => leftOut.test(m[0]));
  // from the end, so that earlier offsets stay valid
  drop.reverse().forEach((m, i) => {
    const range = document.createRange();
    range.setStart(...at(m.index));
    range.setEnd(...at(m.index + m[0].length));
    range.deleteContents();
    if (i === drop.length - 1) range.insertNode(document.createTextNode(instead + ' '));
  });
  if (drop.length) {
    p.style.breakInside = 'avoid';  // the short paragraph about paper stays on one page
    changed += 1;
  }
}
return changed;
"""

# The headings as the PDF outline shows them: level 0 for each page of the book (welcome,
# notation, chapters, bibliography, errata) and for the contents, 1 for their sections, and so
# on; text without the permalink sign, math as text (its TeX, lightly rewritten).
HEADINGS_JS = r"""
const greek = {alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', epsilon: 'ε', theta: 'θ',
  lambda: 'λ', mu: 'μ', pi: 'π', sigma: 'σ', Sigma: 'Σ', phi: 'φ', top: 'ᵀ', cdot: '·',
  times: '×', le: '≤', ge: '≥', ne: '≠', approx: '≈', infty: '∞', sum: 'Σ', prod: 'Π'};
const texText = (tex) => tex
  .replace(/\\(?:operatorname|text|mathrm|mathbf|mathit|boldsymbol|mathcal)\s*\{([^}]*)\}/g, '$1')
  .replace(/\^\s*\\top/g, 'ᵀ')
  .replace(/\\([A-Za-z]+)/g, (m, name) => greek[name] || name)
  .replace(/\\[,;:! ]/g, ' ')
  .replace(/[{}]/g, '')
  .replace(/ - /g, ' − ')
  .replace(/\s+/g, ' ').trim();
const shown = e => e.getClientRects().length > 0;
const items = MathJax.startup && MathJax.startup.document
  ? MathJax.startup.document.getMathItemsWithin(document.body) : [];
const headings = Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]'))
  .filter(shown);
return headings.map((h) => {
  const copy = h.cloneNode(true);
  copy.querySelectorAll('.headerlink').forEach(e => e.remove());
  // each typeset formula becomes the text of its TeX
  const originals = Array.from(h.querySelectorAll('mjx-container'));
  const copies = Array.from(copy.querySelectorAll('mjx-container'));
  copies.forEach((c, i) => {
    const item = items.find(it => it.typesetRoot === originals[i]);
    c.replaceWith(document.createTextNode(item ? texText(item.math) : ''));
  });
  const chapter = h.closest('.book-chapter, .book-welcome, #book-print-toc');
  let level = 0;
  if (chapter && chapter.id !== 'book-print-toc') {
    for (let e = h.parentElement; e && e !== chapter; e = e.parentElement) {
      if (e.tagName === 'SECTION') level += 1;
    }
    if (h.parentElement === chapter) level = 0;
  }
  return [level, copy.textContent.replace(/\s+/g, ' ').trim()];
});
"""

PRINT_OPTIONS = {
    "printBackground": True,
    "preferCSSPageSize": True,
    "displayHeaderFooter": True,
    "headerTemplate": "<span></span>",
    "footerTemplate": (
        '<div style="font-size:8pt;width:100%;text-align:center;color:#333">'
        '<span class="pageNumber"></span></div>'
    ),
    "generateDocumentOutline": True,
    "generateTaggedPDF": True,
}


def paired_chapters():
    """The chapters' .md files that have a paired .ipynb (the .ipynb is built instead)."""
    return sorted(md for md in (ROOT / "book").glob("*.md") if md.with_suffix(".ipynb").is_file())


def build_singlehtml():
    from jupyter_book.sphinx import build_sphinx

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    excludes = [p for p in config["exclude_patterns"] if not p.endswith(".ipynb")]
    excludes += [md.relative_to(ROOT).as_posix() for md in paired_chapters()]
    if SINGLE.exists():
        shutil.rmtree(SINGLE)
    result = build_sphinx(
        ROOT,
        SINGLE,
        noconfig=True,
        path_config=str(ROOT / "_config.yml"),
        confoverrides={
            "exclude_patterns": excludes,
            "nb_execution_mode": "off",
            # what the jupyter-book command line adds for every build
            "external_toc_path": (ROOT / "_toc.yml").as_posix(),
            "latex_individualpages": False,
        },
        builder="singlehtml",
        freshenv=True,
        keep_going=True,
        quiet=True,
    )
    if result:
        raise SystemExit(f"the single-page build failed ({result})")
    # The builder writes the book as the root page (book/00_welcome.html) but with links
    # relative to the output folder (_static/..., _images/...): serve it from there.
    root = config.get("root") or yaml.safe_load((ROOT / "_toc.yml").read_text("utf-8"))["root"]
    page = SINGLE / (root + ".html")
    if not page.is_file():
        raise SystemExit(f"the single-page build wrote no {page}")
    return page.replace(SINGLE / "book.html")


def chromium_paths():
    """(browser, driver): the Chromium and ChromeDriver found on this machine, None if not."""
    browser = next(
        (shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None
    )
    driver = shutil.which("chromedriver")
    if driver is None and Path("/usr/lib/chromium/chromedriver").is_file():
        driver = "/usr/lib/chromium/chromedriver"
    return browser, driver


def find_chromium():
    browser, driver = chromium_paths()
    if browser is None or driver is None:
        raise SystemExit(
            "make pdf needs Chromium and ChromeDriver: `make install` installs them "
            "(tools/setup_system.sh)"
        )
    return browser, driver


def start_browser(profile):
    os.environ.setdefault("SE_OFFLINE", "true")
    os.environ.setdefault("SE_AVOID_STATS", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = find_chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        # offline: nothing but localhost resolves, every other request goes nowhere
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",
        "--proxy-server=http://127.0.0.1:9",
    ):
        options.add_argument(flag)
    drv = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    drv.set_page_load_timeout(120)
    drv.set_script_timeout(120)
    # printing some 300 pages takes minutes on a busy machine: the driver waits that long
    drv.command_executor.client_config.timeout = 900
    # the book in its light scheme, as on paper
    drv.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "light"}]},
    )
    return drv


def page_texts(pdf_bytes):
    """The text layer of each page, whitespace collapsed."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf_bytes))
    return [" ".join((page.extract_text() or "").split()) for page in reader.pages]


def comparable(text):
    """Text as compared across HTML and PDF: ligatures (fi) undone, no spaces, lower case.

    Spaces go because the PDF's text layer breaks lines in titles ("log-sum- exp")."""
    return "".join(unicodedata.normalize("NFKC", text).split()).lower()


def chapter_pages(texts, titles):
    """Page (1-based) on which each chapter starts: the first page that opens with its title.

    Every chapter starts a new page (print CSS), so its title is the page's first text; the
    contents page lists the titles too, but not at its top.
    """
    texts = [comparable(text) for text in texts]
    found, start = {}, 0
    for title in titles:
        for number in range(start, len(texts)):
            if texts[number].startswith(comparable(title)):
                found[title] = number + 1
                start = number + 1
                break
    return found


PRINTED_EXERCISES = (
    "The printed edition leaves out the solutions and the cells that check an answer: work each"
    " exercise here, then run the chapter's notebook to see its solution and check your answer."
)


def edition():
    """The edition as CITATION.cff records it (book-assets/ext/book_edition.py reads it)."""
    sys.path.insert(0, str(ROOT / "book-assets" / "ext"))
    import book_edition

    return book_edition.edition(ROOT), book_edition.citation_text


def title_page_html():
    """The title page: title, authors, edition and date, licences, how to cite, errata."""
    from html import escape

    ed, cite = edition()
    title = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["title"]
    return f"""
<h1 class="book-title">{escape(title)}</h1>
<p class="book-subtitle">An open course book, with the library nbcore</p>
<p class="book-authors">{escape(ed["authors"])}</p>
<p class="book-edition">Edition {escape(ed["version"])}, {escape(ed["date_text"])}</p>
<div class="book-licence">
<p>Text and figures &#169; {ed["year"]} {escape(ed["authors"])}, licensed under the Creative
Commons Attribution 4.0 International licence (CC BY 4.0,
https://creativecommons.org/licenses/by/4.0/): you may copy, adapt and share them for any
purpose, naming the book and its authors, linking to the licence and saying what you changed.
The code is licensed under the MIT licence. The SMS Spam Collection is by Tiago A. Almeida and
José María Gómez Hidalgo and keeps its own CC BY 4.0 attribution. The full terms are in the
files LICENSE and LICENSE-CC-BY-4.0.txt that come with the book.</p>
<p><strong>How to cite:</strong> {escape(cite(ed))}</p>
<p>Corrections to the text since the last edition are listed in the Errata, at the end of
the book.</p>
</div>
"""


def clean_outline(pdf_bytes, headings):
    """The PDF with its outline rewritten: one entry per heading, clean text, nested by level.

    Chromium makes an entry for every heading that prints, from the heading's text as it
    stands (section numbers, permalink signs, typeset math lost) and nested by HTML level
    (every chapter under the welcome page's contents). ``headings`` are the same headings in
    the same order, as (level, text); each new entry keeps the place Chromium's points to.
    """
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import Fit, NameObject

    reader = PdfReader(io.BytesIO(pdf_bytes))
    places = []

    def walk(items):
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                places.append(item)

    walk(reader.outline)
    if len(places) != len(headings):
        raise SystemExit(
            f"the PDF has {len(places)} outline entries for {len(headings)} headings: "
            "the outline cannot be matched to the headings"
        )
    writer = PdfWriter(clone_from=reader)
    if "/Outlines" in writer._root_object:
        del writer._root_object[NameObject("/Outlines")]
    parents = []  # parents[level] = the last entry at that level
    for (level, text), place in zip(headings, places, strict=True):
        level = min(level, len(parents))
        parent = parents[level - 1] if level > 0 else None
        entry = writer.add_outline_item(
            title=text,
            page_number=reader.get_destination_page_number(place),
            parent=parent,
            fit=Fit.xyz(left=place.left, top=place.top),
        )
        del parents[level:]
        parents.append(entry)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def outline_titles(pdf_bytes):
    """The PDF's outline as (depth, title), depth 0 for the top level."""
    from pypdf import PdfReader

    found = []

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                found.append((depth, item.title))

    walk(PdfReader(io.BytesIO(pdf_bytes)).outline, 0)
    return found


# The code frames' background on paper (book-assets/css/book.css, @media print): a colour no
# other element of the book uses, so that a region of it is a code frame. Ink inside a frame is
# anything darker than INK (text in any of the highlighting colours is).
CODE_BACKGROUND = (0xEE, 0xF2, 0xF7)
INK = 170


def empty_code_frames(pdf_bytes, scale=1.5):
    """Code frames printed with nothing in them: [(page, top, height)], 1-based page, in mm.

    Renders every page (PDFium, as a PDF viewer shows it), finds the regions in the code
    frames' colour, and keeps those with no ink inside: a frame whose code went to the next page.
    Slivers (the rounded corners, a frame's last millimetre) are not frames.
    """
    import numpy as np
    import pypdfium2
    from scipy import ndimage

    mm = scale * 72 / 25.4  # pixels per millimetre
    found = []
    document = pypdfium2.PdfDocument(pdf_bytes)
    try:
        for number in range(len(document)):
            bitmap = document[number].render(scale=scale, rev_byteorder=True)  # RGB, not BGR
            image = bitmap.to_numpy()[:, :, :3].astype(int)
            grey = (np.abs(image - np.array(CODE_BACKGROUND)) <= 1).all(axis=2)
            ink = image.min(axis=2) < INK
            regions, _ = ndimage.label(grey)
            for rows, cols in ndimage.find_objects(regions):
                height, width = rows.stop - rows.start, cols.stop - cols.start
                if height < 3 * mm or width < 40 * mm:
                    continue
                if not ink[rows, cols].any():
                    found.append((number + 1, round(rows.start / mm), round(height / mm)))
    finally:
        document.close()
    return found


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves files without logging each request."""

    def log_message(self, format, *args):  # noqa: A002 - the signature of the base class
        pass


def print_pdf(page):
    handler = functools.partial(QuietHandler, directory=str(SINGLE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="book-pdf-")
    driver = start_browser(profile)
    try:
        url = f"http://localhost:{server.server_address[1]}/{page.relative_to(SINGLE).as_posix()}"
        driver.get(url)
        deadline = time.monotonic() + 60
        while driver.execute_script("return document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise SystemExit("the single page did not finish loading")
            time.sleep(0.2)
        outcome = driver.execute_async_script(READY_JS)
        if outcome != "ok":
            raise SystemExit(f"MathJax or an image did not finish: {outcome}")
        driver.execute_script(TITLE_JS, title_page_html())
        if not driver.execute_script(PRINT_TEXT_JS, PRINTED_EXERCISES):
            print(
                "warning: no exercise introduction mentions what print leaves out", file=sys.stderr
            )
        titles = driver.execute_script(TOC_JS, {})
        first = base64.b64decode(driver.execute_cdp_cmd("Page.printToPDF", PRINT_OPTIONS)["data"])
        pages = chapter_pages(page_texts(first), titles)
        missing = [t for t in titles if t not in pages]
        if missing:
            print(f"warning: no page found for {missing}", file=sys.stderr)
        driver.execute_script(TOC_JS, {t: str(n) for t, n in pages.items()})
        final = base64.b64decode(driver.execute_cdp_cmd("Page.printToPDF", PRINT_OPTIONS)["data"])
        # the headings as print shows them (what is hidden on paper has no outline entry)
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"media": "print", "features": [{"name": "prefers-color-scheme", "value": "light"}]},
        )
        headings = driver.execute_script(HEADINGS_JS)
        final = clean_outline(final, headings)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        server.shutdown()
        server.server_close()
    return final, titles


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--skip-build", action="store_true", help="print the existing _build/singlehtml"
    )
    args = parser.parse_args(argv)
    if args.skip_build:
        page = SINGLE / "book.html"
        if not page.is_file():
            raise SystemExit(f"no {page}: run without --skip-build")
    else:
        page = build_singlehtml()
    pdf, titles = print_pdf(page)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(pdf)
    # the HTML book links the printed edition (book-assets/ext/book_edition.py)
    if HTML.is_dir():
        shutil.copyfile(OUT, HTML / "book.pdf")
    from pypdf import PdfReader

    n_pages = len(PdfReader(OUT).pages)
    print(f"wrote {OUT.relative_to(ROOT)}: {n_pages} pages, {len(titles)} chapters")
    empty = empty_code_frames(pdf)
    if empty:
        print(f"warning: {len(empty)} empty code frames (page, top mm, height mm): {empty}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
