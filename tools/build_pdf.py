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
        titles = driver.execute_script(TOC_JS, {})
        first = base64.b64decode(driver.execute_cdp_cmd("Page.printToPDF", PRINT_OPTIONS)["data"])
        pages = chapter_pages(page_texts(first), titles)
        missing = [t for t in titles if t not in pages]
        if missing:
            print(f"warning: no page found for {missing}", file=sys.stderr)
        driver.execute_script(TOC_JS, {t: str(n) for t, n in pages.items()})
        final = base64.b64decode(driver.execute_cdp_cmd("Page.printToPDF", PRINT_OPTIONS)["data"])
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
    from pypdf import PdfReader

    n_pages = len(PdfReader(OUT).pages)
    print(f"wrote {OUT.relative_to(ROOT)}: {n_pages} pages, {len(titles)} chapters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
