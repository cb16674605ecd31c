"""The chapters: each MyST text and its notebook hold the same cells, and the notebooks are
real, complete runs whose figures, widgets and numbers are set up the way the book needs.

``jupytext --diff`` exits 0 even when the two files differ, so the sync check compares text:
the notebook, written out as MyST Markdown by jupytext, must equal the committed ``.md``.
After editing either file, ``make execute`` syncs the pair and re-runs the notebook.
"""

import difflib
import re
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml

from nbcore import book, plotting

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
FIX = "run `make execute` (jupytext --sync, then a fresh run of the notebook)"


def _is_notebook_text(md):
    """A MyST notebook (jupytext header with formats), not a plain Markdown page."""
    text = md.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return False
    header = yaml.safe_load(text.split("---\n", 2)[1]) or {}
    return "formats" in header.get("jupytext", {})


CHAPTERS = sorted(md for md in BOOK.glob("*.md") if _is_notebook_text(md))
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))


def _ids(paths):
    return [p.name for p in paths]


def test_there_are_chapters():
    assert CHAPTERS, "no MyST notebook chapters in book/"


def test_every_chapter_is_a_pair():
    md_stems = {p.stem for p in CHAPTERS}
    nb_stems = {p.stem for p in NOTEBOOKS}
    assert md_stems - nb_stems == set(), f"chapters without a notebook: {FIX}"
    assert nb_stems - md_stems == set(), "notebooks without a MyST chapter"
    for md in CHAPTERS:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+", md.stem), f"{md.name}: name chapters NN_slug"
        formats = jupytext.read(md).metadata["jupytext"].get("formats", "")
        assert formats == "ipynb,md:myst", f"{md.name}: pair with formats: ipynb,md:myst"


@pytest.mark.parametrize("md", CHAPTERS, ids=_ids(CHAPTERS))
def test_pair_in_sync(md):
    notebook = jupytext.read(md.with_suffix(".ipynb"))
    expected = jupytext.writes(notebook, fmt="md:myst")
    actual = md.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{md.stem}.ipynb (as MyST)",
                tofile=md.name,
            )
        )
        pytest.fail(f"{md.name} and its notebook differ; {FIX}\n{diff}")


@pytest.mark.parametrize("md", CHAPTERS, ids=_ids(CHAPTERS))
def test_same_cells_both_ways(md):
    """Cell by cell: type, source and metadata (the text comparison's second opinion)."""
    from_md = jupytext.read(md)
    from_nb = nbformat.read(md.with_suffix(".ipynb"), as_version=4)
    assert len(from_md.cells) == len(from_nb.cells), FIX
    for i, (a, b) in enumerate(zip(from_md.cells, from_nb.cells, strict=True)):
        assert a.cell_type == b.cell_type, f"cell {i}: {FIX}"
        assert a.source == b.source, f"cell {i} source differs: {FIX}"
        # execution times and the stored values of inline expressions live only in the .ipynb
        meta_b = {k: v for k, v in b.metadata.items() if k not in ("execution", "user_expressions")}
        assert a.metadata == meta_b, f"cell {i} metadata differs: {FIX}"


def _code_cells(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    return nb, [c for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_is_one_complete_run(nb_path):
    """Outputs come from running every cell once, in order, without errors."""
    nb, cells = _code_cells(nb_path)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    counts = [c.execution_count for c in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"execution counts {counts} are not one run from the top: {FIX}"
    )
    for i, cell in enumerate(cells):
        for out in cell.outputs:
            assert out.output_type != "error", f"code cell {i} raised: {FIX}"
            assert not (out.output_type == "stream" and out.name == "stderr"), (
                f"code cell {i} wrote to stderr (a warning?): {out.text[:200]}"
            )
        assert not cell.metadata.get("execution"), "timing metadata makes outputs change"


def _has_image(cell):
    return any("image/png" in out.get("data", {}) for out in cell.outputs)


def _has_widget(cell):
    return any(
        "application/vnd.jupyter.widget-view+json" in out.get("data", {}) for out in cell.outputs
    )


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_every_figure_has_a_caption_name_and_alt_text(nb_path):
    _, cells = _code_cells(nb_path)
    names = []
    for cell in cells:
        if not _has_image(cell):
            continue
        mystnb = cell.metadata.get("mystnb", {})
        figure, image = mystnb.get("figure", {}), mystnb.get("image", {})
        # raises with a message naming what is missing
        plotting.figure_cell_metadata(
            figure.get("name", ""), figure.get("caption", ""), image.get("alt", "")
        )
        names.append(figure["name"])
    assert len(names) == len(set(names)), f"figure names repeat: {names}"


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_only_interactive_cells_skip_output_comparison(nb_path):
    """nbval-ignore-output is for widget cells; every other output is compared."""
    nb, cells = _code_cells(nb_path)
    widget_cells = 0
    for i, cell in enumerate(cells):
        tags = cell.metadata.get("tags", [])
        assert "nbval-skip" not in tags, f"code cell {i}: every cell must run"
        if _has_widget(cell):
            widget_cells += 1
            assert "nbval-ignore-output" in tags, f"code cell {i} shows a widget: tag it"
        else:
            assert "nbval-ignore-output" not in tags, f"code cell {i}: its output is compared"
            assert "NBVAL_IGNORE_OUTPUT" not in cell.source
    if widget_cells:
        state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
        for cell in cells:
            for out in cell.outputs:
                view = out.get("data", {}).get("application/vnd.jupyter.widget-view+json")
                if view:
                    assert view["model_id"] in state, "widget state not saved with the notebook"


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_outputs_have_no_run_specific_values(nb_path):
    """No timestamps, memory addresses or temporary paths in what nbval compares."""
    _, cells = _code_cells(nb_path)
    volatile = re.compile(r"0x[0-9a-f]{8,}|\d{4}-\d\d-\d\dT\d\d:\d\d|/tmp/|/work/main/")
    for i, cell in enumerate(cells):
        for out in cell.outputs:
            text = str(out.get("text", "")) + "".join(
                str(v) for k, v in out.get("data", {}).items() if k.startswith("text/")
            )
            assert not volatile.search(text), f"code cell {i}: {volatile.search(text)[0]!r}"


def _prose(markdown):
    """Markdown text without math, code, roles, directives, comments and targets."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.DOTALL)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"\$[^$]+\$", " ", text)
    text = re.sub(r"\{[a-z:]+\}`[^`]*`", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"^\s*%.*$|^\(.*\)=$", " ", text, flags=re.MULTILINE)
    # headings carry labels ("Exercise 6.1"), not computed values
    text = re.sub(r"^#{1,6} .*$", " ", text, flags=re.MULTILINE)
    return text


def test_prose_scanner_finds_typed_numbers():
    assert re.findall(r"\d", _prose("The ratio is 0.26 here.")) != []
    assert re.findall(r"\d", _prose("### Exercise 6.1\n\nNo typed numbers.")) == []
    quoted = 'A ratio of {eval}`f"{g.ratio:.2f}"` and $\\alpha = 1$.'
    assert re.findall(r"\d", _prose(quoted)) == []


@pytest.mark.parametrize("md", CHAPTERS, ids=_ids(CHAPTERS))
def test_numbers_in_prose_are_glued(md):
    """Numbers in the text come from the code (``{eval}`g.name```, nbcore/book.py), never typed."""
    nb = jupytext.read(md)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        digits = re.findall(r"[^\s]*\d[^\s]*", _prose(cell.source))
        assert not digits, f"markdown cell {i} types numbers {digits}: glue them"


def test_toc_lists_every_page_once():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]] + [
        ch["file"] for part in toc.get("parts", []) for ch in part.get("chapters", [])
    ]
    assert len(files) == len(set(files))
    on_disk = {f"book/{p.stem}" for p in BOOK.glob("*.md")}
    assert set(files) == on_disk, "every book/*.md is in _toc.yml and every entry exists"
    numbered = [f for f in files if Path(f).name[:2].isdigit()]
    assert files[len(numbered) :] == ["book/bibliography", "book/errata"], "unnumbered pages last"
    chapter_numbers = [int(Path(f).name[:2]) for f in numbered]
    assert chapter_numbers == sorted(chapter_numbers), "the toc keeps the NN order"


def _labels():
    """Every target a page can refer to: (label)= lines and figure names."""
    labels = set()
    for page in BOOK.glob("*.md"):
        text = page.read_text(encoding="utf-8")
        labels |= set(re.findall(r"^\((.+?)\)=\s*$", text, re.M))
        labels |= set(re.findall(r"^\s*name: (\S+)\s*$", text, re.M))
    return labels


def test_prose_scanner_finds_references():
    text = "See {ref}`Murphy <bib-murphy>` and {numref}`fig-a` and {ref}`plain-label`."
    assert _references(text) == ["bib-murphy", "plain-label", "fig-a"]


def _references(text):
    refs = re.findall(r"\{ref\}`[^`<]*<([^>`]+)>`", text)
    refs += re.findall(r"\{ref\}`([^`<]+)`", text)
    refs += re.findall(r"\{numref\}`([^`<]+)`", text)
    return refs


@pytest.mark.parametrize("md", sorted(BOOK.glob("*.md")), ids=lambda p: p.name)
def test_no_control_characters(md):
    """A tab or other control character in a page is a typing accident (a "\\t" of
    "\\text" written as a tab garbles the formula): only line ends belong in the text."""
    text = md.read_text(encoding="utf-8")
    bad = sorted(
        {
            (text.count("\n", 0, i) + 1, repr(ch))
            for i, ch in enumerate(text)
            if ord(ch) < 32 and ch != "\n"
        }
    )
    assert not bad, f"{md.name} has control characters at (line, character) {bad[:5]}"


@pytest.mark.parametrize("md", sorted(BOOK.glob("*.md")), ids=lambda p: p.name)
def test_references_point_at_existing_targets(md):
    """Cross-references and citations resolve without building the book."""
    missing = sorted(set(_references(md.read_text(encoding="utf-8"))) - _labels())
    assert not missing, f"{md.name} refers to targets that no page defines: {missing}"


@pytest.mark.parametrize("md", CHAPTERS, ids=_ids(CHAPTERS))
def test_every_quoted_number_is_stored_by_the_executed_run(md):
    """Each markdown cell's {eval} expressions have their values in the paired notebook.

    tools/execute.py evaluates them in order and stores the results where jupyterlab-myst
    reads them (``user_expressions``); the MyST file itself keeps only the text.
    """
    assert '"user_expressions"' not in md.read_text()
    nb = nbformat.read(md.with_suffix(".ipynb"), as_version=4)
    markdown = [cell for cell in nb.cells if cell.cell_type == "markdown"]
    quoted = 0
    for cell in markdown:
        expressions = book.expressions(cell.source)
        stored = cell.metadata.get("user_expressions", [])
        assert [item["expression"] for item in stored] == expressions, cell.source[:80]
        assert all(item["result"]["status"] == "ok" for item in stored)
        quoted += len(expressions)
    assert quoted > 0


def _figure_texts(nb):
    """(name, alt text, caption) of every figure cell of a chapter."""
    for cell in nb.cells:
        mystnb = cell.metadata.get("mystnb", {})
        if cell.cell_type == "code" and "image" in mystnb:
            figure = mystnb.get("figure", {})
            yield figure.get("name"), mystnb["image"].get("alt", ""), figure.get("caption", "")


def _typed_digits_in_figure_texts(nb):
    """Digits typed in alt texts (anywhere) and in captions (outside {eval} roles)."""
    number = re.compile(r"[^\s]*\d[^\s]*")
    found = []
    for name, alt, caption in _figure_texts(nb):
        if number.search(alt):
            found.append(f"{name} alt: {number.findall(alt)}")
        typed = number.findall(book.EXPRESSION.sub(" ", caption))
        if typed:
            found.append(f"{name} caption: {typed}")
    return found


def test_figure_text_scanner_finds_typed_numbers():
    header = (
        "---\njupytext:\n  formats: ipynb,md:myst\n---\n\n"
        "```{{code-cell}} ipython3\n---\nmystnb:\n  figure:\n    caption: {caption}\n"
        "    name: fig-x\n  image:\n    alt: {alt}\n---\nfig\n```\n"
    )
    typed = jupytext.reads(header.format(caption="Fine.", alt="About 5.11 nats."), fmt="md:myst")
    assert _typed_digits_in_figure_texts(typed) == ["fig-x alt: ['5.11']"]
    typed = jupytext.reads(header.format(caption="Slope 1.", alt="Fine."), fmt="md:myst")
    assert _typed_digits_in_figure_texts(typed) == ["fig-x caption: ['1.']"]
    quoted = header.format(caption='Loss {eval}`f"{g.loss:.2f}"`.', alt="Falls, then rises.")
    assert _typed_digits_in_figure_texts(jupytext.reads(quoted, fmt="md:myst")) == []


@pytest.mark.parametrize("md", CHAPTERS, ids=_ids(CHAPTERS))
def test_figure_alt_texts_and_captions_type_no_numbers(md):
    """An alt text is a plain string and cannot quote a computed value, so it describes the
    figure in words and leaves the numbers to the caption and the prose; a caption quotes
    them with {eval} roles, as the prose does."""
    typed = _typed_digits_in_figure_texts(jupytext.read(md))
    assert not typed, f"{md.name}: figure texts type numbers: {typed}"
