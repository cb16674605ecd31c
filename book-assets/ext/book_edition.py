"""The edition, the licences and the downloads of the HTML book (loaded by _config.yml).

1. The edition (version and date) is read from ``CITATION.cff``, the one place it is written.
   The welcome page shows it under its title with the licences and links to the errata;
   ``{{ edition }}`` and ``{{ edition_date }}`` are MyST substitutions any page may use; the
   printed edition's title page (tools/build_pdf.py) reads the same file.
2. Every page's footer names the licences (text and figures CC BY 4.0, code MIT, the SMS
   Spam Collection with its own attribution) and links to the licence files, the errata, the
   printed edition and, on a chapter, the chapter's notebook.
3. Downloads that work offline: each chapter's notebook (``book/NN_slug.ipynb``, with its
   outputs) is copied into the build (``notebooks/``); the theme's download menu offers it and,
   in place of the browser's print dialogue, the printed edition (``book.pdf``, copied there by
   tools/build_pdf.py).
4. Search shows the passage that matches, also from ``file://``: Sphinx's search page fetches
   each result's page to cut a summary from it, which a browser refuses for local files. The
   text of every section is written into ``_static/book-search-texts.js``, loaded by the search
   page only, which answers those fetches itself.
"""

import datetime
import json
import shutil
from html import escape
from pathlib import Path

import yaml
from docutils import nodes
from sphinx import addnodes

PDF_NAME = "book.pdf"
NOTEBOOKS = "notebooks"
SEARCH_TEXTS = "book-search-texts.js"


def edition(root):
    """{"version", "date" (ISO), "date_text" ("24 November 2026"), "title", "authors"}."""
    citation = yaml.safe_load((Path(root) / "CITATION.cff").read_text(encoding="utf-8"))
    released = citation["date-released"]
    if isinstance(released, str):
        released = datetime.date.fromisoformat(released)
    return {
        "version": str(citation["version"]),
        "date": released.isoformat(),
        "date_text": f"{released.day} {released:%B %Y}",
        "title": citation["preferred-citation"]["title"],
        "authors": ", ".join(a["name"] for a in citation["authors"]),
        "year": released.year,
    }


def citation_text(ed):
    """How to cite the edition, in one line."""
    return f"{ed['authors']} ({ed['year']}). {ed['title']}, edition {ed['version']}."


def notebook_of(app, docname):
    """The paired notebook of a page (book/NN_slug.ipynb), or None."""
    path = Path(app.srcdir) / f"{docname}.ipynb"
    return path if path.is_file() and not path.name.startswith("00_") else None


def on_config_inited(app, config):
    ed = edition(app.confdir)
    app.book_edition = ed
    config.myst_substitutions = {
        **(config.myst_substitutions or {}),
        "edition": ed["version"],
        "edition_date": ed["date_text"],
    }
    config.html_context = {**(config.html_context or {}), "book_edition": ed}


def _xref(docname, target, text):
    """A link to another page, resolved by Sphinx for each builder."""
    ref = addnodes.pending_xref(
        "", refdomain="std", reftype="doc", reftarget=target, refexplicit=True, refdoc=docname
    )
    ref += nodes.inline(text, text)
    return ref


def add_edition_line(app, doctree):
    """Under the welcome page's title: edition, date, licences, and where corrections are."""
    docname = app.env.docname
    if docname != app.config.root_doc:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None or not isinstance(section[0], nodes.title):
        return
    ed = app.book_edition
    para = nodes.paragraph(classes=["book-edition"])
    para += nodes.strong(text=f"Edition {ed['version']}, {ed['date_text']}.")
    para += nodes.Text(
        " The text and figures are licensed under CC BY 4.0 (Creative Commons Attribution 4.0"
        " International), the code under the MIT licence; the SMS Spam Collection keeps its"
        " own CC BY 4.0 attribution. Cite it as: "
        f"{citation_text(ed)} Corrections since the last edition are listed in the "
    )
    para += _xref(docname, "/book/errata", "errata")
    para += nodes.Text(".")
    section.insert(1, para)


def on_page_context(app, pagename, templatename, context, doctree):
    """Footer links, the download menu's notebook and printed edition, the search texts."""
    if app.builder.format != "html":
        return
    pathto = context["pathto"]
    notebook = notebook_of(app, pagename)
    links = {
        "licence_text": pathto("LICENSE-CC-BY-4.0.txt", 1),
        "licence": pathto("LICENSE", 1),
        "citation": pathto("CITATION.cff", 1),
        "errata": pathto("book/errata"),
        "pdf": pathto(PDF_NAME, 1),
        "notebook": pathto(f"{NOTEBOOKS}/{notebook.name}", 1) if notebook else "",
    }
    context["book_links"] = links
    for group in context.get("header_buttons", []):
        if group.get("label") != "download-buttons":
            continue
        buttons = [b for b in group["buttons"] if b.get("label") != "download-pdf-button"]
        if notebook:
            buttons.insert(
                0,
                {
                    "type": "link",
                    "url": links["notebook"],
                    "text": ".ipynb",
                    "tooltip": "Download this chapter's notebook, with its outputs",
                    "icon": "fas fa-code",
                    "label": "download-notebook-button",
                },
            )
        buttons.append(
            {
                "type": "link",
                "url": links["pdf"],
                "text": "Book (PDF)",
                "tooltip": "Download the printed edition of the whole book",
                "icon": "fas fa-file-pdf",
                "label": "download-pdf-button",
            }
        )
        group["buttons"] = buttons
    if pagename == "search":
        app.add_js_file(SEARCH_TEXTS)


def _section_html(section):
    """A section as nested plain-text HTML with its id (what search summaries are cut from)."""
    parts = [f'<section id="{escape(section["ids"][0])}">' if section["ids"] else "<section>"]
    for child in section.children:
        if isinstance(child, nodes.section):
            parts.append(_section_html(child))
        elif not isinstance(child, nodes.raw | nodes.image | nodes.comment):
            text = " ".join(
                t.astext()
                for t in child.findall(nodes.Text)
                if not any(isinstance(a, nodes.raw) for a in _ancestors(t))
            )
            if text.strip():
                parts.append(f"<p>{escape(' '.join(text.split()))}</p>")
    parts.append("</section>")
    return "".join(parts)


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


def write_downloads(app, exception):
    """Copy the chapters' notebooks and write the search texts into the HTML build."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    folder = out / NOTEBOOKS
    folder.mkdir(exist_ok=True)
    for docname in sorted(app.env.found_docs):
        notebook = notebook_of(app, docname)
        if notebook:
            shutil.copyfile(notebook, folder / notebook.name)
    texts = {}
    for docname in sorted(app.env.found_docs):
        doctree = app.env.get_doctree(docname)
        body = "".join(
            _section_html(s) for s in doctree.findall(nodes.section) if s.parent is doctree
        )
        texts[docname] = f'<div role="main">{body}</div>'
    script = (
        "// Section texts of every page, for the search page's summaries (book_edition.py).\n"
        f"window.BOOK_SEARCH_TEXTS = {json.dumps(texts, ensure_ascii=False)};\n"
        + (Path(__file__).parent / "search_texts.js").read_text(encoding="utf-8")
    )
    static = out / "_static"
    static.mkdir(exist_ok=True)
    (static / SEARCH_TEXTS).write_text(script, encoding="utf-8")


def setup(app):
    app.connect("config-inited", on_config_inited)
    app.connect("doctree-read", add_edition_line)
    # after the theme has filled its header buttons (priority 500)
    app.connect("html-page-context", on_page_context, priority=900)
    app.connect("build-finished", write_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": False}
