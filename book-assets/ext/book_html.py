"""What the book changes in its myst-nb build (loaded by _config.yml).

1. Folded cells ("Show solution", "Show code cell source") are ``<details>`` elements whose
   ``<summary>`` myst-nb labels "Toggle hidden content". That label differs from the text the
   summary shows, so a screen reader and a voice-control user hear another name than the one
   they see (axe: label-content-name-mismatch). Written here without it: the visible text is
   the name.
2. The kernels that execute the chapters talk to the build over CurveZMQ-encrypted sockets
   (jupyter_client's ``transport_encryption = "auto"``; the ipykernel kernelspec declares
   support) instead of plain TCP, which ipykernel warns about at every kernel start.
3. Each code cell carries its exercise role as a class (``exercise-solution``,
   ``exercise-check``) from its ``role`` metadata (the exercise format, nbcore/exercises.py),
   so that the printed edition can leave the solutions out (book-assets/css/book.css).
"""

from html import escape

from docutils import nodes
from jupyter_client.manager import KernelManager
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput


def visit_hidden_cell(self, node):
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def mark_exercise_roles(app, doctree):
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        role = (cell.get("cell_metadata") or {}).get("role")
        if isinstance(role, str) and role.isidentifier():
            cell["classes"].append(f"exercise-{role}")


def setup(app):
    KernelManager.class_traits()["transport_encryption"].default_value = "auto"
    app.setup_extension("myst_nb")
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput))
    app.connect("doctree-read", mark_exercise_roles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
