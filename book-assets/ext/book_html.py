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
4. The prose quotes computed numbers with MyST inline expressions (``{eval}`g.p_yes```,
   nbcore/book.py), which myst-nb evaluates in the chapter's kernel while it renders the page
   (``execute_notebooks: inline``). myst-nb runs a code cell only when it renders it, and a
   hidden cell (``remove-cell``) is never rendered, so an expression could be evaluated before
   the cell that computes its value has run. Here every code cell above an expression runs
   first: the expression sees the kernel as JupyterLab's Run All leaves it at that point.
   Without a kernel (the printed edition, built from the stored run) an expression shows the
   value tools/execute.py stored with its markdown cell. An expression alone in its
   paragraph that gives LaTeX (an ``IPython.display.Math``) is set
   as a displayed equation.
"""

from html import escape

from docutils import nodes
from jupyter_client.manager import KernelManager
from myst_nb.core.variables import VariableOutput, render_variable_outputs
from myst_nb.ext.eval import EvalRoleAny, eval_warning
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


def _stored_result(client, line, expression):
    """The result the chapter's executed run stored for ``expression`` in its markdown cell."""
    cells = client.notebook.cells
    here = max((i for i in range(len(cells)) if client.cell_line(i) <= line), default=None)
    if here is None:
        return None
    for item in cells[here].get("metadata", {}).get("user_expressions", []):
        if item.get("expression") == expression and item["result"].get("status") == "ok":
            return item["result"]
    return None


class EvalRole(EvalRoleAny):
    """``{eval}``, after running every code cell that stands above it in the chapter.

    Without a kernel (the printed edition renders the stored run), the value comes from the
    markdown cell's ``user_expressions``, where tools/execute.py stored it.
    """

    def run(self):
        renderer = self.document.get("nb_renderer")
        client = getattr(getattr(renderer, "renderer", None), "nb_client", None)
        if client is None or self.line is None:
            return super().run()
        if client.nb_config.execution_mode != "inline":
            result = _stored_result(client, self.line, self.text)
            if result is None:
                message = f"no stored value for {{eval}}`{self.text}`: run tools/execute.py"
                return [], [eval_warning(message, self.document, self.line)]
            metadata = dict(result.get("metadata", {}), strip_text_quotes=True)
            output = VariableOutput(result["data"], metadata, renderer, "eval")
            rendered = render_variable_outputs(
                [output], self.document, self.line, self.source, inline=True
            )
            return rendered, []
        cells = client.notebook.cells
        above = [
            index
            for index, cell in enumerate(cells)
            if cell.cell_type == "code" and client.cell_line(index) < self.line
        ]
        if above:
            client.code_cell_outputs(above[-1])
        return super().run()


def display_lone_equations(app, doctree, docname=None):
    """A paragraph that is only an evaluated LaTeX expression becomes a displayed equation."""
    for paragraph in list(doctree.findall(nodes.paragraph)):
        children = [
            c for c in paragraph.children if not (isinstance(c, nodes.Text) and not c.strip())
        ]
        while len(children) == 1 and isinstance(children[0], nodes.container):
            children = children[0].children  # myst-nb wraps an expression's output
        if len(children) == 1 and isinstance(children[0], nodes.math):
            math = children[0]
            if "text_latex" in math["classes"]:
                latex = math.astext().removeprefix("\\displaystyle").strip()
                block = nodes.math_block(latex, latex, nowrap=False, number=None)
                block["classes"] = ["evaluated"]
                paragraph.replace_self(block)


def setup(app):
    KernelManager.class_traits()["transport_encryption"].default_value = "auto"
    app.setup_extension("myst_nb")
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput))
    app.connect("doctree-read", mark_exercise_roles)
    app.add_role("eval", EvalRole(), override=True)
    app.connect("doctree-resolved", display_lone_equations)  # after the MIME type is chosen
    return {"parallel_read_safe": True, "parallel_write_safe": True}
