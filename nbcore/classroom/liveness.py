"""Which of the book's cells a graded run can leave out: those nothing graded depends on.

Grading runs a chapter's own cells before the student's answers (in the student's sandbox) and
before the book's checks (in the checking kernel). Many of them compute what the text shows,
a figure, a table, a timing, and nothing that an exercise reads. Leaving them out changes no
graded value and saves most of the time a copy takes (a Dask cluster, memory measurements).

A cell is left out when, read from the last cell back:

* nothing it binds is read by a later cell that stays, or by the extra sources (the student's
  answers, the checks);
* it reads no name that a later staying cell also reads, other than modules, functions,
  classes and builtins (a cell that reads ``model`` may change it: ``model.fit(...)``),
  unless it only draws: the book shows a figure or a widget from it;
* it does not touch hidden state: the global random state, files, the environment,
  settings, ``global``, ``exec`` (a regular expression on its source, see ``_HIDDEN_STATE``).
  A generator made in the cell (``np.random.default_rng(seed)``) is not hidden state: it is a
  name like any other, and a cell that draws from a generator a later cell also draws from
  reads a live name, so it stays. In a chapter that seeds the global random state
  (``np.random.seed``), every cell that mentions random numbers stays;
* it is not an exercise's data, solution or check cell.

A cell tagged ``grading-skip`` by the chapter's author (the files it writes and the objects it
changes are read only by the chapter's demonstrations, never by an exercise) is left out on
the first rule alone: unless a later staying cell or an answer reads a name it binds, or an
answer reads a name it reads (other than modules, functions and builtins: ``WORKDIR``, say).

Names are read from the source with :mod:`ast`: a cell "reads" a name when it loads it before
binding it (at the top level, in order), or loads it inside a function, lambda or comprehension
that does not bind it itself. The rules are conservative: a cell they are unsure of stays, and
so does every cell before it; an answer they cannot read (a magic such as ``%%time``, whose code
IPython passes as a string, ``globals()``, ``eval``, code too long to analyse) keeps every
cell.
"""

import ast
import builtins
import re

from nbcore.classroom.markup import bound_names, python_source

__all__ = ["free_names", "skippable_cells", "MAX_SOURCE", "GRADING_SKIP"]

_HIDDEN_STATE = re.compile(
    # the global random state: NumPy's legacy functions, the standard library's random
    r"np\.random\.(?!default_rng\b)|numpy\.random\.(?!default_rng\b)|RandomState|"
    r"(?<![\w.])random\.\w+\(|shuffle|"
    # the interpreter, the process, settings
    r"global|nonlocal|\bexec\b|\beval\b|setattr|delattr|__|:=|\bdel\b|"
    r"seterr|errstate|option(?!_context)|config|rcParams|warnings\.|environ|"
    r"\bos\.(?!path\b|cpu_count\b|sched_getaffinity\b)|\bsys\.|"
    # files
    # (not ".rename(": pandas renames columns and series everywhere in the book; a file is
    # renamed through os or shutil, caught above and here)
    r"\bopen\(|write|save|\.dump\(|mkdir|unlink|remove|rmtree|shutil"
)
# reads the analysis cannot see: magics (IPython turns their code into a string), and names
# looked up by their text
_HIDDEN_READS = re.compile(
    r"get_ipython|\bglobals\b|\blocals\b|\bvars\b|\beval\b|\bexec\b|__import__|"
    r"__dict__|__builtins__|\bimportlib\b|sys\.modules|user_ns|_getframe|f_globals|numexpr|"
    r"__main__|__globals__|\bcProfile\b|\bprofile\b|runctx|\btimeit\b|\brunpy\b"
)
_SEEDS_GLOBAL = re.compile(r"random\.seed|random\.set_state")
_BUILTINS = frozenset(dir(builtins))
# the tag of a book cell whose effects besides the names it binds (files it writes, objects it
# changes) no exercise depends on: only the chapter's own demonstrations read them
GRADING_SKIP = "grading-skip"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _stored(nodes):
    """Names stored by ``nodes`` and their children, not looking into nested scopes."""
    names, stack = set(), list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.AnnAssign) and node.value is None:
            continue  # "x: int" alone binds nothing
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return names


def _reads(node, out, local=frozenset()):
    """Add to ``out`` the names ``node`` loads that are not bound in the scope they are loaded
    in (function arguments and locals, comprehension variables). Iterative: linear in the
    size of the code, whatever its shape."""
    stack = [(node, local)]
    while stack:
        node, local = stack.pop()
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load) and node.id not in local:
                out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args  # decorators, defaults and annotations run where it is defined
            outer = [d for d in args.defaults + args.kw_defaults if d is not None]
            if not isinstance(node, ast.Lambda):
                outer += node.decorator_list + ([node.returns] if node.returns else [])
            outer += [a.annotation for a in ast.walk(args) if getattr(a, "annotation", None)]
            stack.extend((child, local) for child in outer)
            body = node.body if isinstance(node.body, list) else [node.body]
            inner = local | _stored([args, *body])
            stack.extend((child, inner) for child in body)
        elif isinstance(node, _COMPREHENSIONS):
            inner = local | _stored([g.target for g in node.generators])
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
        else:
            stack.extend((child, local) for child in ast.iter_child_nodes(node))


def _block(statements, scopes, found):
    """Add to ``found`` the names ``statements`` read before they bind them, in order.

    ``scopes``: the sets of names bound before, outermost first. Only a simple statement's
    bindings count for what follows it: a name bound inside an ``if``, a loop or a ``try`` may
    not be bound at all, so a later read of it is a read of the notebook's name.
    """
    local = set()
    scopes = [*scopes, local]

    def read(node, extra=()):
        names = set()
        _reads(node, names)
        found.update(n for n in names if n not in extra and not any(n in s for s in scopes))

    for statement in statements:
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            read(statement.iter)
            _block(statement.body + statement.orelse, [*scopes, _stored([statement.target])], found)
        elif isinstance(statement, (ast.If, ast.While)):
            read(statement.test)
            _block(statement.body, scopes, found)
            _block(statement.orelse, scopes, found)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                read(item.context_expr)
            targets = [i.optional_vars for i in statement.items if i.optional_vars is not None]
            _block(statement.body, [*scopes, _stored(targets)], found)
        elif isinstance(statement, ast.Try):
            _block(statement.body, scopes, found)
            for handler in statement.handlers:
                if handler.type is not None:
                    read(handler.type)
                _block(handler.body, [*scopes, {handler.name} if handler.name else set()], found)
            _block(statement.orelse + statement.finalbody, scopes, found)
        else:
            read(statement)
            local |= _stored([statement])


MAX_SOURCE = 200_000  # characters of code analysed; longer code keeps every cell


def free_names(source):
    """The names a cell reads from the notebook's globals; None for code that is not read
    (unparsable, or longer than MAX_SOURCE): the caller then keeps every cell."""
    if not isinstance(source, str) or len(source) > MAX_SOURCE:
        return None
    try:  # the student's code is hostile input: whatever fails to parse keeps every cell
        code = python_source(source)
        if _HIDDEN_READS.search(code):  # names read where the analysis cannot see them
            return None
        found = set()
        _block(ast.parse(code).body, [], found)
        if ".query(" in code:  # pandas reads "@name" in a query string by its text
            found |= set(re.findall(r"@([A-Za-z_]\w*)", code))
        return found
    except Exception:
        return None


def _definitions(source):
    """Names a cell binds by ``import``, ``def`` or ``class`` at its top level."""
    try:
        tree = ast.parse(python_source(source))
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def _draws(cell):
    """Whether the book shows a figure or a widget from ``cell``."""
    return bool(cell.metadata.get("mystnb", {}).get("figure")) or any(
        "image/png" in output.get("data", {})
        or "application/vnd.jupyter.widget-view+json" in output.get("data", {})
        for output in cell.get("outputs", [])
    )


def skippable_cells(chapter, extra_sources=()):
    """Indices of the chapter's code cells that no graded value depends on (see the module)."""
    cells = chapter.nb.cells
    code = [i for i, cell in enumerate(cells) if cell.cell_type == "code"]
    kept_always = set()
    for exercise in chapter.exercises:
        kept_always |= set(exercise.data_cells) | set(exercise.solution_cells)
        kept_always.add(exercise.check_cell)
    # names only ever bound by import, def or class: reading them cannot change them
    definitions, other = set(), set()
    for i in code:
        mine = _definitions(cells[i].source)
        definitions |= mine
        other |= bound_names(cells[i].source) - mine
    unchanging = (definitions - other) | _BUILTINS

    hidden = _HIDDEN_STATE
    if any(_SEEDS_GLOBAL.search(cells[i].source) for i in code):
        hidden = re.compile(f"{_HIDDEN_STATE.pattern}|random|seed|rng")
    live = set()  # names a later staying cell (or an extra source) reads
    if sum(len(s) for s in extra_sources) > MAX_SOURCE:  # not read: every cell stays
        return set()
    for source in extra_sources:
        names = free_names(source)
        if names is None:  # unreadable: keep every cell
            return set()
        live |= names
    answers_read = set(live) - unchanging
    skipped = set()
    for i in reversed(code):
        source = cells[i].source
        reads = free_names(source)
        if i in kept_always or reads is None or bound_names(source) & live:
            pass
        elif GRADING_SKIP in cells[i].metadata.get("tags", ()):
            # the chapter's author vouches for its effects: it stays only for what an answer
            # reads, the names it binds or the settings it reads (WORKDIR, SEED)
            if not (reads & answers_read):
                skipped.add(i)
                continue
        elif not hidden.search(source) and (_draws(cells[i]) or not (reads & live) - unchanging):
            skipped.add(i)
            continue
        if reads is None:  # a cell we cannot read stays, and so does everything before it
            return skipped
        live |= reads
    return skipped
