"""The built HTML book loads nothing from outside itself.

Parses every .html and .css file of ``_build/html`` (built by ``make book``; ``make test``
builds it first) and fails on any script, stylesheet, font, image or frame that would be
fetched from another host: an ``http://``, ``https://`` or protocol-relative ``//`` URL in a
``src``/``href``/``srcset`` that the browser loads, in a ``style`` attribute or ``<style>``
block, or in a CSS ``@import``, ``url()`` or ``@font-face``. Plain links to other pages
(``<a href>``) are allowed: a reader follows them, the page does not load them.
"""

import importlib.util
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("BOOK_HTML_DIR", ROOT / "_build" / "html"))

EXTERNAL = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
# link rel values whose href the browser fetches by itself
LOADED_LINK_RELS = {
    "stylesheet",
    "preload",
    "modulepreload",
    "prefetch",
    "preconnect",
    "dns-prefetch",
    "icon",
    "shortcut",
    "apple-touch-icon",
    "manifest",
    "mask-icon",
}
LOADED_ATTRS = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "frame": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "input": ("src",),
    "image": ("href", "xlink:href"),
    "use": ("href", "xlink:href"),
}
CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE | re.DOTALL)
CSS_IMPORT = re.compile(r"@import\s+(?:url\(\s*)?(['\"]?)([^'\")\s;]+)\1", re.IGNORECASE)
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def _urls_of(attr, value):
    if attr in ("srcset",):
        return [part.strip().split()[0] for part in value.split(",") if part.strip()]
    return [value]


def external_css_refs(css):
    """External URLs a stylesheet would load (@import, url(), so also @font-face src)."""
    css = CSS_COMMENT.sub("", css)
    found = []
    for _, url in CSS_URL.findall(css):
        if not url.strip().lower().startswith("data:") and EXTERNAL.match(url):
            found.append(url.strip())
    for _, url in CSS_IMPORT.findall(css):
        if EXTERNAL.match(url):
            found.append(url.strip())
    return sorted(set(found))


class _RefCollector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.external = []
        self._in_style = False
        self._style = []

    def handle_starttag(self, tag, attrs):
        attrs = {k.lower(): (v or "") for k, v in attrs}
        for attr in LOADED_ATTRS.get(tag, ()):
            for url in _urls_of(attr, attrs.get(attr, "")):
                if EXTERNAL.match(url):
                    self.external.append(f"<{tag} {attr}={url!r}>")
        if tag == "link":
            rels = set(attrs.get("rel", "").lower().split())
            if rels & LOADED_LINK_RELS and EXTERNAL.match(attrs.get("href", "")):
                self.external.append(f"<link rel={attrs['rel']!r} href={attrs['href']!r}>")
        if "style" in attrs:
            self.external += [f"<{tag} style> {u}" for u in external_css_refs(attrs["style"])]
        if tag == "style":
            self._in_style, self._style = True, []

    def handle_endtag(self, tag):
        if tag == "style" and self._in_style:
            self._in_style = False
            self.external += [f"<style> {u}" for u in external_css_refs("".join(self._style))]

    def handle_data(self, data):
        if self._in_style:
            self._style.append(data)


def external_html_refs(html):
    parser = _RefCollector()
    parser.feed(html)
    parser.close()
    return parser.external


def _built_files(pattern):
    if not (BUILD / "index.html").is_file():
        pytest.fail(f"no built book in {BUILD}: run `make book` first (make test does)")
    return sorted(BUILD.rglob(pattern))


# --- the scanner itself catches what it must ------------------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        '<script src="https://cdn.example.org/x.js"></script>',
        '<script src="//cdn.example.org/x.js"></script>',
        '<link rel="stylesheet" href="http://fonts.example.com/css">',
        '<link rel="preload" as="font" href="https://x.org/f.woff2">',
        '<img alt="a" src="https://x.org/a.png">',
        '<img alt="a" src="a.png" srcset="a.png 1x, https://x.org/a2.png 2x">',
        '<iframe src="https://www.example.com/embed"></iframe>',
        "<style>@import url('https://fonts.example.com/css');</style>",
        '<div style="background: url(//x.org/bg.png)"></div>',
    ],
)
def test_scanner_flags_external_loads(html):
    assert external_html_refs(html)


@pytest.mark.parametrize(
    "html",
    [
        '<a href="https://en.wikipedia.org/wiki/Naive_Bayes_classifier">a link</a>',
        '<script src="../_static/offline-js/requirejs/require.js"></script>',
        '<link rel="canonical" href="https://example.org/book/">',
        '<img alt="a" src="data:image/png;base64,AAAA">',
        '<style>.x { background: url("data:image/svg+xml;utf8,'
        "<svg xmlns='http://www.w3.org/2000/svg'/>\") }</style>",
        '<script>const u = "https://example.org/not-loaded";</script>',
    ],
)
def test_scanner_allows_local_loads_and_plain_links(html):
    assert external_html_refs(html) == []


def test_css_scanner():
    css = """
    /* @import url(https://commented.out/x.css); */
    @import "../basic.css";
    @import url("https://fonts.example.com/css?family=Roboto");
    @font-face { font-family: X; src: url(https://x.org/f.woff2) format("woff2"),
                 url(../fonts/f.ttf); }
    .a { background: url("data:image/svg+xml;charset=utf-8,%3Csvg
         xmlns='http://www.w3.org/2000/svg'%3E"); }
    """
    assert external_css_refs(css) == [
        "https://fonts.example.com/css?family=Roboto",
        "https://x.org/f.woff2",
    ]


# --- the built book ---------------------------------------------------------------------


def test_no_external_loads_in_any_html_page():
    pages = _built_files("*.html")
    assert len(pages) >= 3
    problems = {}
    for page in pages:
        refs = external_html_refs(page.read_text(encoding="utf-8", errors="replace"))
        if refs:
            problems[str(page.relative_to(BUILD))] = refs
    assert not problems, f"pages load resources from other hosts: {problems}"


def test_no_external_loads_in_any_stylesheet():
    sheets = _built_files("*.css")
    assert sheets
    problems = {}
    for sheet in sheets:
        refs = external_css_refs(sheet.read_text(encoding="utf-8", errors="replace"))
        if refs:
            problems[str(sheet.relative_to(BUILD))] = refs
    assert not problems, f"stylesheets load resources from other hosts: {problems}"


def _chapter_pages_with_widgets():
    return [
        p
        for p in _built_files("*.html")
        if "application/vnd.jupyter.widget-state+json" in p.read_text(encoding="utf-8")
    ]


def test_every_page_has_a_language_and_a_title():
    """Screen readers choose their voice by <html lang>; a page without a title is unnamed."""
    problems = {}
    for page in _built_files("*.html"):
        if page.relative_to(BUILD).parts[0] in ("_static", "_sources"):
            continue  # the theme's template fragments, not pages
        html = page.read_text(encoding="utf-8")
        lang = re.search(r"<html[^>]*\blang=\"([^\"]+)\"", html)
        title = re.search(r"<title>(.*?)</title>", html, re.DOTALL)
        if not lang or lang.group(1) != "en" or not title or not title.group(1).strip():
            problems[str(page.relative_to(BUILD))] = (lang and lang.group(1), title and title[1])
    assert not problems, f"pages without lang='en' or a title: {problems}"


def test_root_index_leads_to_the_first_page():
    html = (BUILD / "index.html").read_text(encoding="utf-8")
    target = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"', html).group(1)
    assert f'<a href="{target}">' in html, "a reader without redirects needs a link"
    assert (BUILD / target).is_file(), f"index.html leads to {target}, which is not built"


def test_the_audit_engine_is_not_shipped_with_the_book():
    assert not list(BUILD.rglob("axe*.js")), "axe-core is for the tests, not the readers"


def test_folded_cells_are_named_by_what_they_show():
    """myst-nb's "Toggle hidden content" label is replaced (book-assets/ext/book_html.py)."""
    pages = [p for p in _built_files("*.html") if "<summary" in p.read_text(encoding="utf-8")]
    assert pages, "no page has a folded cell; every chapter's exercises should"
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "Toggle hidden content" not in html, page
        # exercise cells carry their role, so print can leave the solutions out
        prompt = '<p class="collapsed admonition-title">Show solution</p>'
        if prompt in html:
            assert len(re.findall(r'class="[^"]*\bexercise-solution\b', html)) == html.count(
                prompt
            ), page


def test_widget_pages_use_the_vendored_manager():
    pages = _chapter_pages_with_widgets()
    assert pages, "no page embeds widget state; the weather chapter should"
    for page in pages:
        html = page.read_text(encoding="utf-8")
        for script in ("offline-js/requirejs/require.js", "offline-js/html-manager/embed-amd.js"):
            assert f"_static/{script}?" in html or f'_static/{script}"' in html, (page, script)
        assert "cdn.jsdelivr.net" not in html and "cdnjs.cloudflare.com" not in html
    for vendored in ("requirejs/require.js", "html-manager/embed-amd.js"):
        assert (BUILD / "_static" / "offline-js" / vendored).stat().st_size > 10_000


def test_math_comes_from_the_bundled_mathjax():
    pages = [p for p in _built_files("*.html") if 'class="math' in p.read_text(encoding="utf-8")]
    assert pages, "no page has math; the notation page and the weather chapter should"
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert re.search(r'src="[./]*_static/mathjax/tex-chtml\.js', html), page
    assert (BUILD / "_static" / "mathjax" / "tex-chtml.js").is_file()


def test_no_launch_buttons_thebe_or_analytics():
    for page in _built_files("*.html"):
        html = page.read_text(encoding="utf-8")
        # hosts and attributes that launch buttons and analytics put in a page (not words
        # that prose may use, such as "plausible")
        markers = (
            "mybinder.org",
            "binderhub",
            "colab.research.google",
            "deepnote.com",
            "googletagmanager",
            "plausible.io",
            "data-domain=",
        )
        for marker in markers:
            assert marker not in html.lower(), (page, marker)
        assert "thebe-launch-button" not in html, page


def test_config_has_the_required_build_settings():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    required = {".*", "_build", "README.md", "tests", "nbcore", "benchmarks", "book/**.ipynb"}
    assert required <= set(config["exclude_patterns"])
    # every build runs every chapter, cell by cell as it renders, so {eval} reads the kernel
    assert config["execute"]["execute_notebooks"] == "inline"
    assert re.fullmatch(config["sphinx"]["config"]["nb_eval_name_regex"], 'f"{g.x:.3f}"')
    assert config["execute"]["allow_errors"] is False
    extensions = config["sphinx"]["config"]["extensions"]
    assert "sphinx-mathjax-offline" in extensions
    assert "sphinx_thebe" not in extensions and "sphinx.ext.intersphinx" not in extensions
    assert config["sphinx"]["config"]["language"] == "en"
    js = config["sphinx"]["config"]["nb_ipywidgets_js"]
    assert all(not EXTERNAL.match(path) for path in js)
    assert "url" not in config.get("repository", {}) or re.match(
        r"https://(github\.com|gitlab\.com|bitbucket\.org)/", config["repository"]["url"]
    )


def _vendor_module():
    spec = importlib.util.spec_from_file_location("vendor_js", ROOT / "tools" / "vendor_js.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vendor_hash_is_npm_integrity_format(tmp_path):
    vendor = _vendor_module()
    sample = tmp_path / "abc"
    sample.write_bytes(b"abc")
    # SHA-512 of "abc" (FIPS 180-2 test vector), base64, as npm writes integrity
    assert vendor.sri_sha512(sample) == (
        "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw=="
    )
    for spec in vendor.PINS.values():
        assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", spec["integrity"])


def test_vendored_js_matches_the_pins():
    vendor = _vendor_module()
    assert vendor.vendored_ok(), "vendored JavaScript missing or stale: run `make install`"
    for name, spec in vendor.PINS.items():
        meta = json.loads((vendor.target_of(spec) / "package.json").read_text("utf-8"))
        assert (meta["name"], meta["version"]) == (name, spec["version"])


# --- the edition, the licences, the downloads ----------------------------------------------


def _citation():
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_the_edition_is_one_version_everywhere():
    """CITATION.cff, the package and the newest CHANGELOG entry name the same edition."""
    import tomllib

    citation = _citation()
    package = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert str(citation["version"]) == package["version"]
    newest = re.search(
        r"^## (\S+) \((\d{4}-\d\d-\d\d)\)$", (ROOT / "CHANGELOG.md").read_text(), re.M
    )
    assert newest, "CHANGELOG.md has no entry '## VERSION (YYYY-MM-DD)'"
    assert newest.groups() == (str(citation["version"]), str(citation["date-released"]))
    assert {"CC-BY-4.0", "MIT"} <= set(citation["license"])
    for key in ("cff-version", "message", "title", "authors", "preferred-citation"):
        assert citation.get(key), key


def test_licence_files_cover_text_code_and_the_sms_corpus():
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "CC BY 4.0" in licence and "MIT License" in licence
    assert "Permission is hereby granted, free of charge" in licence
    assert "SMSSpamCollection.README.md" in licence
    legal = (ROOT / "LICENSE-CC-BY-4.0.txt").read_text(encoding="utf-8")
    assert "Creative Commons Attribution 4.0 International Public License" in legal
    assert "Section 8 -- Interpretation." in legal  # the whole legal code, not a summary
    sms = (ROOT / "nbcore" / "data" / "SMSSpamCollection.README.md").read_text(encoding="utf-8")
    assert "Almeida" in sms and "CC BY 4.0" in sms
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["copyright"].strip()


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]


def test_errata_page_has_a_section_per_chapter_and_is_in_the_contents():
    files = _toc_files()
    assert "book/errata" in files
    errata = (ROOT / "book" / "errata.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", errata, re.M)
    expected = [
        re.search(r"^# (.+)$", (ROOT / f"{f}.md").read_text(encoding="utf-8"), re.M)[1]
        for f in files
        if Path(f).name not in ("00_welcome", "errata")
    ]
    # the bibliography's section is there only when it has corrections
    if sections and sections[-1] != "Bibliography":
        expected = [title for title in expected if title != "Bibliography"]
    assert sections == expected, "one section per chapter, in the book's order"
    for f in files:
        if Path(f).name[:2].isdigit() and Path(f).name != "00_welcome":
            assert f"<{Path(f).name}>`" in errata, f"the errata section does not link {f}"


def _page(name):
    path = BUILD / name
    if not path.is_file():
        pytest.fail(f"no {path}: run `make book` first (make test does)")
    return path.read_text(encoding="utf-8")


def _links(html):
    return re.findall(r'<a [^>]*href="([^"#?]+)[^"]*"', html)


def test_welcome_page_shows_the_edition_and_links_the_errata():
    citation = _citation()
    html = _page("book/00_welcome.html")
    assert f"Edition {citation['version']}" in html
    assert 'href="errata.html"' in html
    assert "CC BY 4.0" in html and "MIT" in html


def test_every_page_footer_has_the_licences_errata_and_printed_edition():
    pages = [p for p in _built_files("book/*.html")]
    assert len(pages) >= 12
    for page in pages:
        html = page.read_text(encoding="utf-8")
        footer = html[html.index('class="extra_footer book-footer"') :]
        assert "CC BY 4.0" in footer and "MIT" in footer, page
        targets = {Path(link).name for link in _links(footer)}
        for name in ("LICENSE-CC-BY-4.0.txt", "LICENSE", "CITATION.cff", "errata.html", "book.pdf"):
            # (the errata page's own link points to itself: "#")
            assert name in targets or page.name == name, (page.name, name)
        for link in _links(footer):
            assert (page.parent / link).resolve().is_file(), f"{page.name}: dead link {link}"


def test_each_chapter_offers_its_notebook_for_download():
    chapters = sorted(p for p in (ROOT / "book").glob("[0-9][0-9]_*.ipynb") if p.name[:2] != "00")
    assert len(chapters) >= 10
    for notebook in chapters:
        html = _page(f"book/{notebook.stem}.html")
        assert f'href="../notebooks/{notebook.name}"' in html, notebook.name
        copy = BUILD / "notebooks" / notebook.name
        assert copy.read_bytes() == notebook.read_bytes(), f"{copy} is not the chapter's notebook"


def test_no_empty_index_page():
    """No generated index (the book has no index entries): no page, no link to one."""
    assert not (BUILD / "genindex.html").exists()
    for page in _built_files("*.html"):
        assert 'href="genindex.html"' not in page.read_text(encoding="utf-8"), page
        assert 'genindex.html"' not in page.read_text(encoding="utf-8"), page


def test_search_page_carries_the_section_texts():
    html = _page("search.html")
    assert "_static/book-search-texts.js" in html
    script = (BUILD / "_static" / "book-search-texts.js").read_text(encoding="utf-8")
    texts = json.loads(script[script.index("{") : script.index("};\n") + 1])
    assert {f"book/{p.stem}" for p in (ROOT / "book").glob("*.md")} <= set(texts)
    for name, text in texts.items():
        assert text.startswith('<div role="main">') and "<section id=" in text, name
    assert "outlook" in texts["book/06_weather"]
