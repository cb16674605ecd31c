"""Open every page of the built book in headless Chromium with the network switched off.

The pages are served from a localhost HTTP server started here; Chromium resolves no other
host name and sends every other request to a proxy that does not exist, so anything the
book tried to fetch from elsewhere would fail and show up as a console error. Each page is
opened twice, in the light and in the dark colour scheme (the reader's system preference,
emulated; the theme follows it), and the test checks that MathJax typeset the math, that the
widget manager rendered the saved widgets and that every control of a saved explorer is
switched off (a reader cannot move what would not recompute), that every image has alt text
and loaded, that the console has no errors, and that the accessibility audit axe-core
(vendored by tools/vendor_js.py) finds no serious or critical violation. It saves a
screenshot of each page under ``_build/screenshots/`` (dark scheme: ``dark/``).

Needs Chromium and its driver; `make install` installs them (tools/setup_system.sh).
"""

import functools
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the printed edition's tool finds Chromium and serves files quietly; the browser test too
sys.path.insert(0, str(ROOT / "tools"))
import build_pdf  # noqa: E402

BUILD = Path(os.environ.get("BOOK_HTML_DIR", ROOT / "_build" / "html"))
SCREENSHOTS = Path(os.environ.get("BOOK_SCREENSHOT_DIR", ROOT / "_build" / "screenshots"))
AXE = ROOT / "book-assets" / "test-js" / "axe-core" / "axe.min.js"
WIDTH, MAX_HEIGHT = 1400, 12000
SCHEMES = ("light", "dark")
# axe's impact levels that fail the test (the others: "moderate", "minor")
FAILING_IMPACTS = ("serious", "critical")
INSTALL_HINT = (
    "The browser test needs Chromium and ChromeDriver. `make install` installs them when\n"
    "missing (tools/setup_system.sh); on Debian by hand:\n"
    "    sudo apt-get install chromium chromium-driver"
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site():
    if not (BUILD / "index.html").is_file():
        pytest.fail(f"no built book in {BUILD}: run `make book` first (make test does)")
    handler = functools.partial(build_pdf.QuietHandler, directory=str(BUILD))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def driver():
    browser, chromedriver = build_pdf.chromium_paths()
    if browser is None or chromedriver is None:
        pytest.fail(INSTALL_HINT)
    # Selenium must not try to download a driver or report statistics.
    os.environ.setdefault("SE_OFFLINE", "true")
    os.environ.setdefault("SE_AVOID_STATS", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="book-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--window-size={WIDTH},1000",
        f"--user-data-dir={profile}",
        # The network is off: no host name resolves but localhost, and every request that is
        # not for a loopback address goes to a proxy on a port where nothing listens.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",
        "--proxy-server=http://127.0.0.1:9",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        drv = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    except Exception as exc:  # pragma: no cover - depends on the machine
        shutil.rmtree(profile, ignore_errors=True)
        pytest.fail(f"could not start Chromium ({exc.__class__.__name__}: {exc})\n{INSTALL_HINT}")
    drv.set_page_load_timeout(60)
    drv.set_script_timeout(60)
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def axe_source():
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `make install` (tools/vendor_js.py vendors axe-core)")
    return AXE.read_text(encoding="utf-8")


def _set_scheme(driver, scheme):
    """Emulate the reader's system colour scheme; the theme (mode "auto") follows it."""
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )


def _axe_violations(driver, axe_source):
    """Run axe-core on the loaded page; return its serious and critical violations."""
    if not driver.execute_script("return !!window.axe"):
        driver.execute_script(axe_source)
    # Colours are measured as they end up: a theme's colour transitions (after the scheme is
    # applied on load) are run to their end first, or axe may read a colour half-way.
    driver.execute_script(
        "document.getAnimations().forEach(a => { try { a.finish(); } catch (e) {} });"
    )
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then("
        "  r => done(r.violations.map(v => ({id: v.id, impact: v.impact,"
        "    nodes: v.nodes.map(n => n.target.join(' '))}))),"
        "  e => done({error: String(e)}));"
    )
    if isinstance(result, dict):
        raise AssertionError(f"axe-core failed: {result['error']}")
    return [v for v in result if v["impact"] in FAILING_IMPACTS]


# Controls of saved explorers that a reader could still move, and explorers without the note.
MOVABLE_CONTROLS_JS = """
const movable = [];
const show = e => e.outerHTML.slice(0, 100);
document.querySelectorAll('.widget-subarea input, .widget-subarea select,'
    + ' .widget-subarea textarea, .widget-subarea button')
  .forEach(e => { if (!e.disabled) movable.push(show(e)); });
document.querySelectorAll('.widget-subarea .noUi-target')
  .forEach(e => { if (!e.hasAttribute('disabled')) movable.push(show(e)); });
document.querySelectorAll('.widget-subarea [contenteditable]')
  .forEach(e => { if (e.isContentEditable) movable.push(show(e)); });
document.querySelectorAll('.widget-subarea [role=slider]')
  .forEach(e => { if (e.getAttribute('aria-disabled') !== 'true') movable.push(show(e)); });
const controls = 'input, select, textarea, button, .noUi-target, [contenteditable]';
const unexplained = Array.from(document.querySelectorAll('.widget-subarea'))
  .filter(s => s.querySelector(controls))
  .filter(s => !(s.previousElementSibling
                 && s.previousElementSibling.classList.contains('book-explorer-note')
                 && /JupyterLab/.test(s.previousElementSibling.textContent)));
return {movable: movable, unexplained: unexplained.length,
        subareas: document.querySelectorAll('.widget-subarea').length};
"""


def _pages():
    skip = {"_static", "_sources", "_images", "reports"}
    return [
        p.relative_to(BUILD).as_posix()
        for p in sorted(BUILD.rglob("*.html"))
        if not (set(p.relative_to(BUILD).parts) & skip)
    ]


def _wait(driver, condition, timeout=30, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if driver.execute_script(condition):
            return True
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


# Chromium's own probe for /favicon.ico on a page that names no icon (the root index.html,
# Sphinx's redirect to the welcome page), sometimes logged: not a request of the book's
_FAVICON_PROBE = re.compile(r"^https?://localhost:\d+/favicon\.ico - Failed to load resource")


def _severe(driver):
    return [
        e["message"]
        for e in driver.get_log("browser")
        if e.get("level") == "SEVERE" and not _FAVICON_PROBE.match(e["message"])
    ]


def _expected_sliders(html):
    """Number of slider views the page's saved widget state holds."""
    marker = '<script type="application/vnd.jupyter.widget-state+json">'
    if marker not in html:
        return 0
    state = json.loads(html.split(marker, 1)[1].split("</script>", 1)[0])
    return sum(
        1 for m in state["state"].values() if m.get("model_name", "").endswith("SliderModel")
    )


def _check_page(driver, site, page, scheme, axe_source):
    """Load one page in one colour scheme; return (problems, facts)."""
    problems, facts = [], {}
    html = (BUILD / page).read_text(encoding="utf-8")
    driver.set_window_size(WIDTH, 1000)
    if driver.current_url.startswith(site):
        # every page as on a reader's first visit: nothing remembered from the previous one
        driver.execute_script("window.localStorage.clear(); window.sessionStorage.clear();")
    driver.get(f"{site}/{page}")
    _wait(driver, "return document.readyState === 'complete'", what="the page to load")
    theme = driver.execute_script("return document.documentElement.dataset.theme")
    if theme != scheme:
        problems.append(f"the theme shows {theme!r} where the reader's system asks for {scheme}")

    # Math: typeset by the bundled MathJax 3, nothing left as raw TeX.
    n_math = driver.execute_script("return document.querySelectorAll('.math').length")
    facts["math"] = n_math
    if n_math:
        _wait(
            driver,
            "return !!(window.MathJax && MathJax.startup && MathJax.startup.promise)",
            what="MathJax to start",
        )
        outcome = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "MathJax.startup.promise.then(() => done('ok'), (e) => done('failed: ' + e));"
        )
        if outcome != "ok":
            problems.append(f"MathJax {outcome}")
        n_mjx = driver.execute_script("return document.querySelectorAll('mjx-container').length")
        facts["mjx"] = n_mjx
        raw = driver.execute_script(
            "return Array.from(document.querySelectorAll('.math'))"
            ".filter(e => !e.querySelector('mjx-container') || /\\\\[([]/.test(e.textContent))"
            ".map(e => e.textContent.slice(0, 60));"
        )
        if n_mjx == 0:
            problems.append("page has math but no mjx-container: MathJax did not typeset")
        if raw:
            problems.append(f"{len(raw)} math elements left untypeset, e.g. {raw[:3]}")

    # Widgets: the saved state rendered by the vendored html-manager.
    expected_sliders = _expected_sliders(html)
    facts["sliders"] = expected_sliders
    if expected_sliders:
        try:
            _wait(
                driver,
                f"return document.querySelectorAll('.widget-slider').length >= {expected_sliders}",
                what=f"{expected_sliders} rendered slider widgets",
            )
        except AssertionError as exc:
            problems.append(str(exc))
        n_views = driver.execute_script(
            "return document.querySelectorAll('.jupyter-widgets').length"
        )
        if n_views == 0:
            problems.append("no .jupyter-widgets element: the widget manager rendered nothing")
        # Saved explorers: nothing a reader can move, and a note that says where they run.
        try:
            _wait(
                driver,
                MOVABLE_CONTROLS_JS.replace("return {", "const r = {") + ";"
                "return r.movable.length === 0 && r.unexplained === 0;",
                timeout=10,
                what="every explorer's controls to be switched off, with a note",
            )
        except AssertionError:
            frozen = driver.execute_script(MOVABLE_CONTROLS_JS)
            problems.append(
                f"{len(frozen['movable'])} control(s) a reader can move without effect, e.g. "
                f"{frozen['movable'][:3]}; {frozen['unexplained']} explorer(s) without a note"
            )
        facts["explorers"] = driver.execute_script(MOVABLE_CONTROLS_JS)["subareas"]

    # Images: loaded, and each with a text alternative.
    images = driver.execute_script(
        "return Array.from(document.images).map(i => ({src: i.getAttribute('src'),"
        " alt: (i.getAttribute('alt') || '').trim(), ok: i.complete && i.naturalWidth > 0}));"
    )
    facts["images"] = len(images)
    for img in images:
        if not img["alt"]:
            problems.append(f"image without alt text: {img['src']}")
        if not img["ok"]:
            problems.append(f"image did not load: {img['src']}")
    figures_without_img = driver.execute_script(
        "return Array.from(document.querySelectorAll('figure'))"
        ".filter(f => !f.querySelector('img')).length"
    )
    if figures_without_img:
        problems.append(f"{figures_without_img} figure(s) without an image")

    # Accessibility: no serious or critical violation (axe-core's rules, WCAG 2.x A/AA).
    violations = _axe_violations(driver, axe_source)
    facts["axe"] = {v["id"]: len(v["nodes"]) for v in violations}
    for v in violations:
        problems.append(f"axe {v['impact']} {v['id']}: {len(v['nodes'])} x, e.g. {v['nodes'][:3]}")

    # Console: no errors (failed loads, script errors, blocked requests).
    severe = _severe(driver)
    if severe:
        problems.append(f"console errors: {severe}")

    # Screenshot, tall enough to show the whole page (up to MAX_HEIGHT pixels).
    height = driver.execute_script(
        "return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight,"
        " ...Array.from(document.querySelectorAll('main, article, .bd-main'))"
        ".map(e => e.scrollHeight));"
    )
    driver.set_window_size(WIDTH, int(min(max(height + 200, 1000), MAX_HEIGHT)))
    time.sleep(0.3)
    folder = SCREENSHOTS if scheme == "light" else SCREENSHOTS / scheme
    folder.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(folder / (page.replace("/", "__")[:-5] + ".png")))
    return problems, facts


def _check_network_is_off(driver, site):
    """The set-up itself: a page of the book loads, a request to another host fails."""
    driver.get(f"{site}/index.html")
    outcome = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('https://example.org/', {mode: 'no-cors'})"
        ".then(() => done('reached'), () => done('blocked'));"
    )
    _severe(driver)  # the blocked request logs an error; clear it
    assert outcome == "blocked", "the test browser reached the internet"


def _check_weather_explorer(driver, site):
    """The explorer shows its first setting, rendered from the saved widget state."""
    driver.set_window_size(WIDTH, 1000)
    driver.get(f"{site}/book/06_weather.html")
    _wait(
        driver,
        "return document.querySelectorAll('.widget-slider').length >= 2",
        what="the explorer's sliders",
    )
    text = driver.execute_script(
        "return Array.from(document.querySelectorAll('.widget-html'))"
        ".map(e => e.textContent).join(' ');"
    )
    assert "P(play = yes | x)" in text and "Prediction" in text
    # the first setting: alpha = 0 and the data's prior 9/14, as in the chapter's table
    assert "alpha = 0.00, prior of yes = 0.643" in text
    assert "0.2046" in text and "play = no" in text
    labels = driver.execute_script(
        "return Array.from(document.querySelectorAll('.widget-slider .widget-label'))"
        ".map(e => e.textContent);"
    )
    assert "smoothing alpha" in labels and "prior of yes" in labels
    assert not _severe(driver)


def _check_frozen_explorer(driver, site):
    """Dragging a slider or pressing keys on it changes nothing: not even its readout."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.set_window_size(WIDTH, 1000)
    driver.get(f"{site}/book/06_weather.html")
    _wait(
        driver,
        "return document.querySelectorAll('.widget-subarea.book-frozen .noUi-handle').length >= 2",
        what="the explorer's sliders, switched off",
    )
    state_js = (
        "return Array.from(document.querySelectorAll('.widget-subarea')).map(s => s.innerText"
        " + Array.from(s.querySelectorAll('[role=slider]')).map(h => h.getAttribute("
        "'aria-valuenow')).join(','));"
    )
    before = driver.execute_script(state_js)
    handle = driver.find_element(By.CSS_SELECTOR, ".widget-subarea .noUi-handle")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", handle)
    ActionChains(driver).drag_and_drop_by_offset(handle, 120, 0).perform()
    driver.execute_script("arguments[0].focus();", handle)
    handle.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.END)
    readout = driver.find_element(By.CSS_SELECTOR, ".widget-subarea .widget-readout")
    ActionChains(driver).double_click(readout).send_keys("7", Keys.ENTER).perform()
    time.sleep(0.5)
    assert driver.execute_script(state_js) == before
    name = handle.get_attribute("aria-label")
    assert name == "smoothing alpha", f"the slider's accessible name is {name!r}"
    assert not _severe(driver)


def test_axe_audit_catches_violations(driver, axe_source):
    """The audit itself: a page with an unnamed slider and an image without alt fails it."""
    driver.get(
        "data:text/html,<html lang=en><title>t</title><main><img src='x.png'>"
        "<div role=slider tabindex=0 aria-valuenow=1></div></main></html>"
    )
    found = {v["id"] for v in _axe_violations(driver, axe_source)}
    assert {"image-alt", "aria-input-field-name"} <= found


def test_every_page_renders_offline_in_chromium(site, driver, axe_source):
    _check_network_is_off(driver, site)
    pages = _pages()
    assert "book/06_weather.html" in pages and "book/00_notation.html" in pages
    report, all_facts = {}, {}
    for scheme in SCHEMES:
        _set_scheme(driver, scheme)
        for page in pages:
            problems, facts = _check_page(driver, site, page, scheme, axe_source)
            all_facts[scheme, page] = facts
            if problems:
                report[f"{page} ({scheme})"] = problems
    _set_scheme(driver, "light")
    assert not report, "pages that do not render offline:\n" + json.dumps(report, indent=2)
    # the checks above must have had something to check
    for scheme in SCHEMES:
        assert all_facts[scheme, "book/00_notation.html"]["mjx"] > 0
        assert all_facts[scheme, "book/06_weather.html"]["mjx"] > 0
        assert all_facts[scheme, "book/06_weather.html"]["sliders"] >= 2
        assert all_facts[scheme, "book/06_weather.html"]["explorers"] >= 2
        assert all_facts[scheme, "book/06_weather.html"]["images"] >= 2
    assert (SCREENSHOTS / "book__06_weather.png").stat().st_size > 10_000
    assert (SCREENSHOTS / "dark" / "book__06_weather.png").stat().st_size > 10_000
    _check_weather_explorer(driver, site)
    _check_frozen_explorer(driver, site)


@pytest.mark.parametrize("served", [False, True], ids=["file", "http"])
def test_search_shows_the_matching_passage(site, driver, served):
    """Search results show the passage that matches, from a local folder as from a server."""
    base = site if served else BUILD.resolve().as_uri()
    driver.set_window_size(WIDTH, 1000)
    driver.get(f"{base}/search.html?q=likelihood")
    _wait(
        driver,
        "return document.querySelectorAll('#search-results li p.context').length >= 3",
        what="search results with the matching passage",
    )
    passages = driver.execute_script(
        "return Array.from(document.querySelectorAll('#search-results li p.context'))"
        ".map(p => p.textContent);"
    )
    assert sum("likelihood" in p.lower() for p in passages) >= 3, passages[:5]
    _severe(driver)  # file:// pages log the theme's blocked requests; not this test's subject


def test_hanging_indent_of_wrapped_code_on_a_phone(site, driver):
    """On a 390 px screen a long code line wraps under its own indentation, not at column 0."""
    driver.set_window_size(390, 900)
    try:
        driver.get(f"{site}/book/07_text.html")
        _wait(driver, "return document.querySelector('.book-code-line') !== null", what="lines")
        lines = driver.execute_script(
            """
            const out = [];
            for (const line of document.querySelectorAll('div.cell_input .book-code-line')) {
              const rects = Array.from(line.getClientRects());
              const range = document.createRange();
              range.selectNodeContents(line);
              const boxes = Array.from(range.getClientRects()).filter(r => r.width > 0);
              const tops = [...new Set(boxes.map(b => Math.round(b.top)))];
              if (tops.length < 2) continue;  // not wrapped
              const first = Math.min(...boxes.filter(b => Math.round(b.top) === tops[0])
                .map(b => b.left));
              const next = Math.min(...boxes.filter(b => Math.round(b.top) === tops[1])
                .map(b => b.left));
              out.push([line.textContent.slice(0, 40), first, next]);
            }
            return out;
            """
        )
    finally:
        driver.set_window_size(WIDTH, 1000)
    assert lines, "no code line wraps at 390 px: nothing was checked"
    flush = [text for text, first, following in lines if following <= first]
    assert not flush, f"wrapped lines that restart at the first line's column: {flush[:3]}"
