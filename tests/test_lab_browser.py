"""A chapter in JupyterLab reads as it reads in the book, runs, and leaves the repository as it was.

JupyterLab is started as ``make lab`` starts it (``tools/lab.py``: copies of ``book/`` in a
folder of its own, the paired ``.ipynb`` files hidden, jupyterlab-myst and jupytext); headless
Chromium opens each chapter's MyST file as a notebook and reads the rendered markdown. Every
inline expression must show the value the executed chapter stored for it, and no role,
directive or label may be left as markup. Every chapter is then saved, and one chapter with
explorers is run (Run All) and saved, widget state included: the copies change, and not one byte
of ``book/`` does. (Every chapter's cells also run under nbval in ``make test``; running each
one again in Lab would only repeat that, at ten minutes a build.)
"""

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import test_book_browser

from nbcore.classroom.prose import glued_values

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import lab as lab_tool  # noqa: E402 - tools/lab.py, what make lab runs

pytestmark = pytest.mark.browser

# the book's browser test's headless, offline Chromium, one per module
driver = test_book_browser.driver

CHAPTER = "04_smoothing"
TOKEN = "book-lab-test"
RAW_MYST = re.compile(r"\{(?:eval|glue|doc|ref|numref|eq|cite|math)[a-z:-]*\}|^\([\w-]+\)=$", re.M)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _book_digests():
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in lab_tool.book_files()}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    before = _book_digests()
    lab_tool.prepare(root, log=lambda message: None)
    port = _free_port()
    command = lab_tool.lab_command(
        root,
        root / "workspaces",
        [
            "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={TOKEN}",
        ],
    )  # fmt: skip
    log = open(root / "lab.log", "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        command, env=lab_tool.lab_environment(), stdout=log, stderr=subprocess.STDOUT, cwd=root
    )
    url = f"http://localhost:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if server.poll() is not None:
                break
            time.sleep(0.5)
    else:
        server.kill()
        pytest.fail(f"JupyterLab did not start: {(root / 'lab.log').read_text()[-2000:]}")
    yield SimpleNamespace(url=url, root=root, book_before=before, log=root / "lab.log")
    server.terminate()
    server.wait(30)
    log.close()


def _rendered_markdown(chromium):
    from selenium.webdriver.common.by import By

    return [
        cell.get_attribute("textContent")
        for cell in chromium.find_elements(
            By.CSS_SELECTOR, ".jp-MarkdownCell .jp-RenderedMarkdown, .jp-MarkdownCell .myst"
        )
    ]


def _run_all(chromium):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(chromium, 60)
    run_menu = wait.until(
        ready.element_to_be_clickable(
            (By.XPATH, "//li[contains(@class,'lm-MenuBar-item')][.//div[text()='Run']]")
        )
    )
    run_menu.click()
    item = wait.until(
        ready.element_to_be_clickable(
            (By.CSS_SELECTOR, "li.lm-Menu-item[data-command='runmenu:run-all']")
        )
    )
    item.click()
    # done when no cell waits or runs ([*]) and the kernel reports idle, twice in a row
    quiet = 0
    deadline = time.monotonic() + 600
    while quiet < 2 and time.monotonic() < deadline:
        time.sleep(2)
        prompts = [
            p.get_attribute("textContent")
            for p in chromium.find_elements(By.CSS_SELECTOR, ".jp-CodeCell .jp-InputPrompt")
        ]
        busy = any("*" in p for p in prompts) or not prompts[-1].strip("[]: ")
        quiet = 0 if busy else quiet + 1
    assert quiet == 2, "Run All did not finish within 10 minutes"
    return prompts


CHAPTERS = sorted(p.stem for p in (ROOT / "book").glob("[01][0-9]_*.ipynb"))


def _numbers(expected):
    return {e: v for e, v in expected.items() if re.fullmatch(r"-?[\d.,]+%?", v)}


def _settled(chromium, chapter, expected, seconds=180):
    """The rendered markdown once every cell shows its values (or the time is up)."""
    from selenium.webdriver.common.by import By

    n_markdown = sum(
        cell.cell_type == "markdown"
        for cell in nbformat.read(ROOT / "book" / f"{chapter}.ipynb", as_version=4).cells
    )
    numbers = _numbers(expected)
    deadline = time.monotonic() + seconds
    while True:
        time.sleep(1)
        texts = _rendered_markdown(chromium)
        flat = " ".join(" ".join(texts).split())
        done = (
            len(texts) >= n_markdown
            and all(v in flat for v in numbers.values())
            and not any(expression in flat for expression in expected)
        )
        if done or time.monotonic() > deadline:
            break
    assert len(texts) >= n_markdown, f"{chapter}: {len(texts)} of {n_markdown} cells rendered"
    unresolved = [
        e.get_attribute("textContent")
        for e in chromium.find_elements(By.CSS_SELECTOR, '[title="Cross Reference Not Found"]')
    ]
    return "\n".join(texts), unresolved


def _open(chromium, lab, chapter, expected):
    """Open a chapter's MyST file as a notebook, alone (?reset), and wait for its values."""
    chromium.get(f"{lab.url}/lab/tree/book/{chapter}.md?reset&token={TOKEN}")
    return _settled(chromium, chapter, expected)


def _check_prose(chapter, page, unresolved, expected):
    raw = RAW_MYST.findall(page)
    assert not raw, f"{chapter}: raw MyST markup in JupyterLab: {raw[:5]}"
    assert not unresolved, f"{chapter}: cross-references JupyterLab cannot resolve: {unresolved}"
    unevaluated = [expr for expr in expected if expr in page]
    assert not unevaluated, f"{chapter}: expressions shown as code, not values: {unevaluated[:5]}"
    numbers = _numbers(expected)
    flat = " ".join(page.split())
    missing = {e: v for e, v in numbers.items() if v not in flat}
    assert not missing, f"{chapter}: values not shown: {json.dumps(missing)[:500]}"
    return numbers


def _api(lab, path, method="GET"):
    request = urllib.request.Request(
        f"{lab.url}/api/{path}", method=method, headers={"Authorization": f"token {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return json.loads(body) if body else None


def test_the_file_browser_shows_one_file_per_chapter(lab):
    listing = [item["name"] for item in _api(lab, "contents/book")["content"]]
    for chapter in CHAPTERS:
        shown = [name for name in listing if name.startswith(chapter + ".")]
        assert shown == [f"{chapter}.md"], (chapter, shown)
    # hidden from the listing only: the paired notebook is still there for jupytext
    assert _api(lab, f"contents/book/{CHAPTERS[0]}.ipynb?content=0")["type"] == "notebook"


def _save(chromium):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(chromium, 60)
    wait.until(
        ready.element_to_be_clickable(
            (By.XPATH, "//li[contains(@class,'lm-MenuBar-item')][.//div[text()='File']]")
        )
    ).click()
    wait.until(
        ready.element_to_be_clickable(
            (By.CSS_SELECTOR, "li.lm-Menu-item[data-command='docmanager:save']")
        )
    ).click()


def test_every_chapter_opens_and_saves_and_leaves_the_repository_unchanged(lab, driver):
    """Each chapter opens with its stored numbers shown as prose and is saved in Lab (CHAPTER,
    which has explorers, after Run All): its copy changes, book/ does not, and no kernel warns
    of plain-TCP sockets."""
    for chapter in CHAPTERS:
        copy = lab.root / "book" / f"{chapter}.ipynb"
        saved_before = copy.stat().st_mtime_ns
        expected = glued_values(nbformat.read(ROOT / "book" / f"{chapter}.ipynb", as_version=4))
        # opened, not run: jupyterlab-myst shows the values the executed chapter stored
        page, unresolved = _open(driver, lab, chapter, expected)
        _check_prose(chapter, page, unresolved, expected)
        if chapter == CHAPTER:
            prompts = _run_all(driver)
            assert all(re.fullmatch(r"\[\d+\]:", p.strip()) for p in prompts), (chapter, prompts)
        _save(driver)
        deadline = time.monotonic() + 120
        while copy.stat().st_mtime_ns == saved_before and time.monotonic() < deadline:
            time.sleep(1)
        assert copy.stat().st_mtime_ns != saved_before, f"{chapter}: Lab did not save the copy"
        for kernel in _api(lab, "kernels"):  # one chapter's kernel at a time
            _api(lab, f"kernels/{kernel['id']}", method="DELETE")
    assert _book_digests() == lab.book_before, "running a chapter in Lab changed book/"
    log = lab.log.read_text(encoding="utf-8", errors="replace")
    assert "eavesdrop" not in log.lower(), "a kernel warned that its sockets are not encrypted"


# Last: it replaces the served copy of CHAPTER by one without stored values.
def test_chapter_runs_in_lab_and_shows_numbers_not_markup(lab, driver):
    """Run All: every cell runs in the Lab kernel and the text shows the fresh values."""
    nb = nbformat.read(ROOT / "book" / f"{CHAPTER}.ipynb", as_version=4)
    expected = glued_values(nb)
    assert len(expected) >= 10, "the chapter's executed notebook stores its expressions"
    # the values can only come from the kernel: the served copy has none stored
    served = lab.root / "book" / f"{CHAPTER}.ipynb"
    assert served.resolve() != (ROOT / "book" / f"{CHAPTER}.ipynb").resolve()
    for cell in nb.cells:
        cell.metadata.pop("user_expressions", None)
    nbformat.write(nb, served)
    os.utime(served.with_suffix(".md"))  # the text stays the newer file of the pair, as in book/
    driver.get(f"{lab.url}/lab/tree/book/{CHAPTER}.md?reset&token={TOKEN}")
    # as a reader would, wait for the page: jupyterlab-myst evaluates only the expressions of
    # cells it has already parsed when Run All reaches them (jupyterlab-myst#175)
    _settled(driver, CHAPTER, {}, seconds=180)
    time.sleep(2)
    prompts = _run_all(driver)
    assert all(re.fullmatch(r"\[\d+\]:", p.strip()) for p in prompts), prompts
    page, unresolved = _settled(driver, CHAPTER, expected)  # re-rendered with fresh values
    numbers = _check_prose(CHAPTER, page, unresolved, expected)
    assert len(numbers) >= 10
