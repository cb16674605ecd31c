"""Run the book's chapters and store their real outputs in the paired notebooks.

For each chapter ``book/NN_slug.md`` (a MyST notebook paired with ``book/NN_slug.ipynb``):

1. ``jupytext --sync``: the newer of the two files gives the cells' inputs to the other;
2. the ``.ipynb`` is executed from top to bottom with nbclient, in ``book/`` as the working
   directory and with the current Python environment's kernel, and saved with its outputs
   and its widget state (so the HTML book can show the widgets);
3. the random ids that ipywidgets gives its models are renamed to ids numbered in order of
   appearance, so that running an unchanged chapter again rewrites the same file;
4. each markdown cell's MyST inline expressions (``{eval}`g.p_yes```) are evaluated in the
   kernel at the cell's place, as jupyterlab-myst does on Run All, and stored in the cell's
   ``user_expressions`` metadata in jupyterlab-myst's format: the chapter opens in JupyterLab
   with its numbers shown, and the student copies quote them. An expression that fails, or
   that gives two different values in one chapter, stops the run;
5. whole numbers in the saved widget state are written as JavaScript writes them (``20``, not
   Python's ``20.0``), so that saving the notebook in JupyterLab, which serialises the state
   from JavaScript, leaves the file unchanged.

Kernels are started with CurveZMQ transport encryption (jupyter_client's
``transport_encryption = "auto"``, which the ipykernel kernelspec supports) rather than
plain TCP, which ipykernel warns about at every start.

Outputs are never edited by hand: `make test` re-runs every notebook (nbval) and fails when a
stored output differs from a fresh one.

Which file of a pair gives the cells' text is decided by jupytext: the newer file by
modification time (so edit one file of a pair, then run this; CONTRIBUTING.md, "A chapter").

Usage: ``python tools/execute.py [book/06_weather.md | 06 ...]`` (default: every paired
chapter; a chapter may be named by its number, as ``make execute CHAPTER=06`` does).
"""

import argparse
import json
import re
import sys
from pathlib import Path

import jupytext
import nbformat
from jupyter_client.manager import KernelManager
from jupytext.cli import jupytext as jupytext_cli
from nbclient import NotebookClient

from nbcore.book import expressions

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
TIMEOUT = 600  # seconds per cell
KERNEL = "python3"

_MODEL_ID = re.compile(r"^[0-9a-f]{32}$")

# Encrypt the kernel's sockets when its kernelspec supports it (ipykernel does).
KernelManager.class_traits()["transport_encryption"].default_value = "auto"


def paired_chapters():
    """Every MyST chapter in book/ that is paired with an .ipynb (jupytext formats)."""
    chapters = []
    for md in sorted(BOOK.glob("*.md")):
        header = jupytext.read(md).metadata.get("jupytext", {})
        if "ipynb" in str(header.get("formats", "")):
            chapters.append(md)
    return chapters


def stable_widget_ids(nb):
    """Rename ipywidgets' random model ids to ids numbered in order of first appearance."""
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json")
    if not state or not state.get("state"):
        return nb
    ids = [key for key in state["state"] if _MODEL_ID.match(key)]
    # Order by first appearance in the outputs, then in the state, so the numbering follows
    # the notebook and not the kernel's creation order.
    text = json.dumps(nb, sort_keys=False)
    ids.sort(key=lambda key: text.find(key))
    mapping = {old: f"{i + 1:032x}" for i, old in enumerate(ids)}
    if not mapping:
        return nb
    pattern = re.compile("|".join(map(re.escape, mapping)))
    return nbformat.from_dict(json.loads(pattern.sub(lambda m: mapping[m.group(0)], text)))


class ExpressionClient(NotebookClient):
    """nbclient that also evaluates the inline expressions of markdown cells, in order."""

    async def async_execute_cell(self, cell, cell_index, execution_count=None, **kwargs):
        if cell.cell_type != "markdown":
            return await super().async_execute_cell(cell, cell_index, execution_count, **kwargs)
        quoted = expressions(cell.source)
        cell.metadata.pop("user_expressions", None)
        if quoted:
            cell.metadata["user_expressions"] = await self._evaluate(quoted, cell_index)
        return cell

    async def _evaluate(self, expressions, cell_index):
        named = {str(i): expression for i, expression in enumerate(expressions)}
        msg_id = self.kc.execute("", silent=False, store_history=False, user_expressions=named)
        reply = await self.async_wait_for_reply(msg_id)
        results = reply["content"]["user_expressions"]
        stored = []
        for key, expression in named.items():
            result = results[key]
            if result["status"] != "ok":
                raise SystemExit(
                    f"markdown cell {cell_index}: {{eval}}`{expression}` failed: "
                    f"{result.get('ename')}: {result.get('evalue')}"
                )
            seen = self.expression_values.setdefault(expression, result["data"])
            if seen != result["data"]:
                raise SystemExit(
                    f"markdown cell {cell_index}: {{eval}}`{expression}` gives "
                    f"{result['data']} here and {seen} above; quote each value once"
                )
            stored.append({"expression": expression, "result": result})
        return stored


def _js_number(value):
    """A float that is a whole number as the int JavaScript's JSON.stringify would write."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: _js_number(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_js_number(item) for item in value]
    return value


def js_widget_numbers(nb):
    """Write the widget state's whole-number floats as JupyterLab saves them (20.0 -> 20)."""
    widgets = nb.metadata.get("widgets", {})
    key = "application/vnd.jupyter.widget-state+json"
    if key in widgets:
        widgets[key] = nbformat.from_dict(_js_number(widgets[key]))
    return nb


def execute(md_path):
    md_path = Path(md_path).resolve()
    ipynb_path = md_path.with_suffix(".ipynb")
    # 1. inputs: newest file wins, both rewritten
    status = jupytext_cli(["--sync", "--quiet", str(md_path)])
    if status:
        raise SystemExit(f"jupytext --sync failed for {md_path}")
    # 2. outputs: run the notebook with the current environment's kernel
    nb = nbformat.read(ipynb_path, as_version=4)
    client = ExpressionClient(
        nb,
        timeout=TIMEOUT,
        kernel_name=KERNEL,
        allow_errors=False,
        record_timing=False,
        store_widget_state=True,
        resources={"metadata": {"path": str(md_path.parent)}},
    )
    client.expression_values = {}
    client.execute()
    nb = js_widget_numbers(stable_widget_ids(nb))
    # 3. write through jupytext, so the pair stays in sync (the .md text is unchanged)
    jupytext.write(nb, ipynb_path, fmt="ipynb")
    status = jupytext_cli(["--sync", "--quiet", str(ipynb_path)])
    if status:
        raise SystemExit(f"jupytext --sync failed for {ipynb_path}")
    print(f"executed {ipynb_path}")


def resolve(name):
    """A chapter's .md from a path or a chapter number ('3', '03')."""
    if re.fullmatch(r"\d{1,2}", name):
        found = sorted(BOOK.glob(f"{int(name):02d}_*.md"))
        if not found:
            raise SystemExit(f"no chapter {int(name):02d} in {BOOK}")
        return found[0]
    path = Path(name)
    return path.with_suffix(".md") if path.suffix == ".ipynb" else path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="MyST chapters (default: all paired)")
    args = parser.parse_args(argv)
    chapters = [resolve(p) for p in args.chapters] or paired_chapters()
    if not chapters:
        print("no paired chapters found in book/", file=sys.stderr)
        return 1
    for md in chapters:
        execute(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
