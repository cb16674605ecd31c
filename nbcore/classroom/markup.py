"""Read the exercise markup of a chapter notebook (the format of :mod:`nbcore.exercises`).

:func:`find_exercises` returns one :class:`Exercise` per exercise, in notebook order, after
checking the rules of the format; a broken rule raises :class:`ExerciseFormatError` naming the
cell. :func:`solution_leaks` lists the cells that would show a solution's value in a student
copy.
"""

import ast
import re
from dataclasses import dataclass, field

__all__ = [
    "CHECKS",
    "Exercise",
    "ExerciseFormatError",
    "find_exercises",
    "solution_leaks",
    "bound_names",
    "loaded_names",
    "python_source",
]

# check function -> kind of answer
CHECKS = {
    "check_number": "number",
    "check_array": "array",
    "check_probabilities": "probabilities",
    "check_attribute": "attribute",
    "check_label": "label",
}
ROLES = ("solution", "check", "answer", "data")
_ID = re.compile(r"^[0-9A-Za-z]+(\.[0-9A-Za-z]+)*$")


class ExerciseFormatError(ValueError):
    """A chapter breaks a rule of the exercise format."""


@dataclass
class Exercise:
    """One exercise of a notebook, located by cell index."""

    id: str
    points: int
    kind: str
    answer_name: str
    attribute: str | None
    check_cell: int
    solution_cells: list = field(default_factory=list)
    expected_span: tuple = None  # (start line, start col, end line, end col) in the check source
    check_qualifier: str = "exercises"
    data_cells: list = field(default_factory=list)  # cells that draw the exercise's variant

    @property
    def max_points(self):
        return self.points


def python_source(source):
    """Cell source as plain Python (IPython magics turned into calls), for the ast module."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return source
    return TransformerManager().transform_cell(source)


class _Bindings(ast.NodeVisitor):
    """Names a cell binds at the top level (not inside functions, classes or comprehensions)."""

    def __init__(self):
        self.names = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_FunctionDef(self, node):
        self.names.add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.names.add(node.name)

    def visit_Lambda(self, node):
        pass

    def _skip(self, node):
        pass

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _skip

    def visit_Import(self, node):
        for alias in node.names:
            self.names.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import


def bound_names(source):
    """Names that a cell assigns, imports or defines at its top level."""
    visitor = _Bindings()
    try:  # a student's cell is hostile input: what cannot be read binds nothing we know of
        visitor.visit(ast.parse(python_source(source)))
    except Exception:
        return set()
    return visitor.names


def loaded_names(source):
    """Every name that a cell reads, anywhere in it."""
    try:
        tree = ast.parse(python_source(source))
    except Exception:  # IPython's transformer raises more than SyntaxError on some input
        return set()
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def _exercise_id(cell, index):
    value = cell.metadata.get("exercise")
    if value is None:
        return None
    if not isinstance(value, str):
        raise ExerciseFormatError(
            f"cell {index}: the exercise number must be a quoted string such as '6.1', "
            f"got {value!r} ({type(value).__name__}); write exercise: '{value}'"
        )
    if not _ID.match(value):
        raise ExerciseFormatError(
            f"cell {index}: the exercise number must look like '6.1', got {value!r}"
        )
    return value


def _role(cell, index, exercise):
    role = cell.metadata.get("role")
    if role not in ROLES:
        raise ExerciseFormatError(
            f"cell {index} (exercise {exercise}): role must be one of "
            f"{', '.join(ROLES)}, got {role!r}"
        )
    if role == "check" and cell.cell_type != "code":
        raise ExerciseFormatError(f"cell {index} (exercise {exercise}): a check must be code")
    return role


def _literal(node, what, where):
    if not isinstance(node, ast.Constant):
        raise ExerciseFormatError(f"{where}: {what} must be a literal, got {ast.unparse(node)}")
    return node.value


def _read_check(cell, index, exercise):
    """(kind, answer name, attribute, points, expected span, qualifier) of a check cell."""
    where = f"cell {index} (check of exercise {exercise})"
    try:
        tree = ast.parse(cell.source)
    except SyntaxError as error:
        raise ExerciseFormatError(f"{where}: not valid Python ({error.msg})") from None
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, (ast.Attribute, ast.Name))
        and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) in CHECKS
    ]
    if len(calls) != 1:
        raise ExerciseFormatError(
            f"{where}: a check cell makes exactly one call to exercises.check_..., "
            f"found {len(calls)}"
        )
    call = calls[0]
    if not isinstance(call.func, ast.Attribute):
        raise ExerciseFormatError(
            f"{where}: call the check through the module, exercises.{call.func.id}(...)"
        )
    kind = CHECKS[call.func.attr]
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    if None in keywords:
        raise ExerciseFormatError(f"{where}: no **arguments in a check call")
    positional = ["exercise", "model" if kind == "attribute" else "answer"]
    positional += ["attribute", "expected"] if kind == "attribute" else ["expected"]
    arguments = dict(zip(positional, call.args, strict=False))
    if len(call.args) > len(positional) or set(arguments) & set(keywords):
        raise ExerciseFormatError(f"{where}: too many or repeated arguments")
    arguments.update(keywords)
    missing = [name for name in positional if name not in arguments]
    if missing:
        raise ExerciseFormatError(f"{where}: the check needs {', '.join(missing)}")
    named = _literal(arguments["exercise"], "the exercise number", where)
    if named != exercise:
        raise ExerciseFormatError(
            f"{where}: the call checks exercise {named!r} but the cell is marked {exercise!r}"
        )
    answer = arguments[positional[1]]
    if not isinstance(answer, ast.Name):
        raise ExerciseFormatError(
            f"{where}: the answer must be a plain variable name, got {ast.unparse(answer)}"
        )
    attribute = None
    if kind == "attribute":
        attribute = _literal(arguments["attribute"], "the attribute name", where)
    points = 1
    if "points" in arguments:
        points = _literal(arguments["points"], "points", where)
        if isinstance(points, bool) or not isinstance(points, int) or points < 1:
            raise ExerciseFormatError(f"{where}: points must be a positive integer")
    node = arguments["expected"]
    span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    return kind, answer.id, attribute, points, span, ast.unparse(call.func.value)


def find_exercises(nb):
    """The exercises of a notebook, in order; raises ExerciseFormatError on a broken rule."""
    exercises = {}
    data = {}
    order = []
    open_exercise = None  # the exercise whose solution started and whose check has not come
    for index, cell in enumerate(nb.cells):
        exercise = _exercise_id(cell, index)
        if exercise is None:
            if cell.cell_type == "code" and open_exercise is not None:
                raise ExerciseFormatError(
                    f"cell {index}: a code cell between the solution and the check of "
                    f"exercise {open_exercise}; mark it role: solution or move it"
                )
            continue
        role = _role(cell, index, exercise)
        if role == "data":
            if cell.cell_type != "code" or f"variant_rng({exercise!r})" not in cell.source.replace(
                '"', "'"
            ):
                raise ExerciseFormatError(
                    f"cell {index} (exercise {exercise}): a data cell is code that draws its "
                    f"numbers from exercises.variant_rng('{exercise}')"
                )
            if open_exercise is not None or exercise in exercises:
                raise ExerciseFormatError(
                    f"cell {index}: the data cell of exercise {exercise} must come before its "
                    "solution, outside any other exercise"
                )
            data.setdefault(exercise, []).append(index)
            continue
        if role in ("solution", "answer"):
            if exercise in exercises and exercises[exercise]["check"] is not None:
                raise ExerciseFormatError(
                    f"cell {index}: a solution of exercise {exercise} after its check"
                )
            if open_exercise not in (None, exercise):
                raise ExerciseFormatError(
                    f"cell {index}: exercise {exercise} starts before exercise "
                    f"{open_exercise} has its check cell"
                )
            entry = exercises.setdefault(exercise, {"solutions": [], "check": None})
            if exercise not in order:
                order.append(exercise)
            entry["solutions"].append(index)
            open_exercise = exercise
        else:  # check
            entry = exercises.get(exercise)
            if entry is None or not entry["solutions"]:
                raise ExerciseFormatError(
                    f"cell {index}: the check of exercise {exercise} comes before any solution"
                )
            if entry["check"] is not None:
                raise ExerciseFormatError(
                    f"cell {index}: exercise {exercise} has a second check cell"
                )
            entry["check"] = index
            open_exercise = None
    if open_exercise is not None:
        raise ExerciseFormatError(f"exercise {open_exercise} has no check cell")

    result = []
    for exercise in order:
        entry = exercises[exercise]
        check = nb.cells[entry["check"]]
        kind, answer, attribute, points, span, qualifier = _read_check(
            check, entry["check"], exercise
        )
        code = [i for i in entry["solutions"] if nb.cells[i].cell_type == "code"]
        if not code:
            raise ExerciseFormatError(f"exercise {exercise} has no solution code cell")
        bound = set().union(*(bound_names(nb.cells[i].source) for i in code))
        if answer not in bound:
            raise ExerciseFormatError(
                f"exercise {exercise}: the check reads {answer}, which no solution cell assigns"
            )
        result.append(
            Exercise(
                id=exercise,
                points=points,
                kind=kind,
                answer_name=answer,
                attribute=attribute,
                check_cell=entry["check"],
                solution_cells=entry["solutions"],
                expected_span=span,
                check_qualifier=qualifier,
                data_cells=data.pop(exercise, []),
            )
        )
    if data:
        raise ExerciseFormatError(f"a data cell for exercise {sorted(data)[0]}, which has no check")
    return result


def solution_leaks(nb, exercises):
    """Messages for cells that use a name only a solution defines (empty when none).

    Such a cell would run with the student's placeholder and, worse, its stored output
    would show the solution's value in the student copy.
    """
    solution_of = {i: ex for ex in exercises for i in ex.solution_cells}
    check_of = {ex.check_cell: ex for ex in exercises}
    tainted = {}  # name -> exercise whose solution defined it
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if index in solution_of:
            for name in bound_names(cell.source):
                tainted[name] = solution_of[index].id
            continue
        bound = bound_names(cell.source)
        # a cell that assigns the name itself is taken to use its own value
        used = (loaded_names(cell.source) & set(tainted)) - bound
        if index in check_of:
            used -= {check_of[index].answer_name}
        for name in sorted(used):
            problems.append(
                f"cell {index} uses {name}, which only the solution of exercise "
                f"{tainted[name]} defines: its output would give the solution away"
            )
        for name in bound:
            tainted.pop(name, None)
    return problems
