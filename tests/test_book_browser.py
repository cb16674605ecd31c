"""Open every page of the built book in headless Chromium with the network switched off.

The pages are served from a localhost HTTP server started here; Chromium resolves no other
host name and sends every other request to a proxy that does not exist, so anything the
book tried to fetch from elsewhere would fail and show up as a console error. For each page
the test checks that MathJax typeset the math, that the widget manager rendered the saved
widgets, that every image has alt text and loaded, and that the console has no errors; it
saves a screenshot of each page under ``_build/screenshots/``.

Needs Chromium and its driver (Debian: ``sudo apt-get install chromium chromium-driver``).
"""

import functools
import json
import os
import shutil
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("BOOK_HTML_DIR", ROOT / "_build" / "html"))
SCREENSHOTS = Path(os.environ.get("BOOK_SCREENSHOT_DIR", ROOT / "_build" / "screenshots"))
WIDTH, MAX_HEIGHT = 1400, 12000
INSTALL_HINT = (
    "The browser test needs Chromium and ChromeDriver. On Debian or Ubuntu install them with\n"
    "    sudo apt-get install chromium chromium-driver\n"
    "(.ci/run does this on CI)."
)

pytestmark = pytest.mark.browser


def _find_chromium():
    browser = next(
        (shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None
    )
    driver = shutil.which("chromedriver")
    if driver is None and Path("/usr/lib/chromium/chromedriver").is_file():
        driver = "/usr/lib/chromium/chromedriver"
    return browser, driver


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the signature of the base class
        pass


@pytest.fixture(scope="module")
def site():
    if not (BUILD / "index.html").is_file():
        pytest.fail(f"no built book in {BUILD}: run `make book` first (make test does)")
    handler = functools.partial(_QuietHandler, directory=str(BUILD))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def driver():
    browser, chromedriver = _find_chromium()
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


def _severe(driver):
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def _expected_sliders(html):
    """Number of slider views the page's saved widget state holds."""
    marker = '<script type="application/vnd.jupyter.widget-state+json">'
    if marker not in html:
        return 0
    state = json.loads(html.split(marker, 1)[1].split("</script>", 1)[0])
    return sum(
        1 for m in state["state"].values() if m.get("model_name", "").endswith("SliderModel")
    )


def _check_page(driver, site, page):
    """Load one page; return (problems, facts)."""
    problems, facts = [], {}
    html = (BUILD / page).read_text(encoding="utf-8")
    driver.set_window_size(WIDTH, 1000)
    if driver.current_url.startswith(site):
        # every page as on a reader's first visit: nothing remembered from the previous one
        driver.execute_script("window.localStorage.clear(); window.sessionStorage.clear();")
    driver.get(f"{site}/{page}")
    _wait(driver, "return document.readyState === 'complete'", what="the page to load")

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
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / (page.replace("/", "__")[:-5] + ".png")))
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
    # the first setting: alpha = 0 and the data's prior 9/14 on the slider's grid, 0.64
    assert "alpha = 0.00, prior of yes = 0.64" in text
    assert "0.2026" in text and "play = no" in text
    labels = driver.execute_script(
        "return Array.from(document.querySelectorAll('.widget-slider .widget-label'))"
        ".map(e => e.textContent);"
    )
    assert "smoothing alpha" in labels and "prior of yes" in labels
    assert not _severe(driver)


def test_every_page_renders_offline_in_chromium(site, driver):
    _check_network_is_off(driver, site)
    pages = _pages()
    assert "book/06_weather.html" in pages and "book/00_notation.html" in pages
    report, all_facts = {}, {}
    for page in pages:
        problems, facts = _check_page(driver, site, page)
        all_facts[page] = facts
        if problems:
            report[page] = problems
    assert not report, "pages that do not render offline:\n" + json.dumps(report, indent=2)
    # the checks above must have had something to check
    assert all_facts["book/00_notation.html"]["mjx"] > 0
    assert all_facts["book/06_weather.html"]["mjx"] > 0
    assert all_facts["book/06_weather.html"]["sliders"] >= 2
    assert all_facts["book/06_weather.html"]["images"] >= 2
    assert (SCREENSHOTS / "book__06_weather.png").stat().st_size > 10_000
    _check_weather_explorer(driver, site)
