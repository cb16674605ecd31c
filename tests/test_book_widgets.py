"""Every chapter's stored explorer is the current explorer: a stale notebook fails here.

The HTML book, the printed edition and JupyterLab show each explorer from the widget state that
``tools/execute.py`` stored in the chapter's ``.ipynb``, and nbval ignores widget cells
(``nbval-ignore-output``). So when an explorer's controls change in ``nbcore/widgets/`` (a
slider added, renamed, given another range) and the chapter is not executed again, every
other test still passes while readers see the old explorer.

Each explorer stored in a chapter (a ``VBox`` of controls above an ``HTML`` panel, shown by a
widget cell) is compared with the control tuples that ``nbcore/widgets`` defines:

* module constants (``CONTROLS``, ``NUMERIC_CONTROLS``, ...): the stored controls must be
  exactly the tuple's widgets: kind, label, range, step, readout format, options, in order;
* functions that make controls from the chapter's data (``gaussian_controls(x)``,
  ``smoothing_controls(split)``), read from their source: the stored controls must have
  their kinds and labels, in order (their ranges come from the data).

The fix for a failure is ``make execute CHAPTER=NN``.
"""

import ast
import importlib
import inspect
import json
import math
import pkgutil
from pathlib import Path

import pytest

import nbcore.widgets
from nbcore.widgets._explorer import Choice, Slider, Steps, Text, Toggle

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "book").glob("[01][0-9]_*.ipynb"))
VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
SPECS = (Slider, Steps, Toggle, Choice, Text)
# the ipywidgets model of each kind of control (see the specs' widget methods)
KINDS = {
    "FloatSliderModel": "Slider",
    "IntSliderModel": "Slider",
    "FloatLogSliderModel": "Slider",
    "SelectionSliderModel": "Steps",
    "ToggleButtonsModel": "Toggle",
    "DropdownModel": "Choice",
    "ComboboxModel": "Text",
}
COMPARED = ("_model_name", "min", "max", "step", "base", "readout_format", "_options_labels")


def widget_modules():
    for info in pkgutil.iter_modules(nbcore.widgets.__path__):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"nbcore.widgets.{info.name}")


def constant_tuples():
    """{(module, name): tuple of control specs} for every module-level control tuple."""
    found = {}
    for module in widget_modules():
        for name, value in vars(module).items():
            if isinstance(value, tuple) and value and all(isinstance(v, SPECS) for v in value):
                found[(module.__name__, name)] = value
    return found


def factory_shapes():
    """{(module, function): [(kind, label), ...]} for functions returning a tuple of specs."""
    found = {}
    for module in widget_modules():
        tree = ast.parse(inspect.getsource(module))
        for function in tree.body:
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if not (isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple)):
                    continue
                calls = node.value.elts
                if calls and all(
                    isinstance(c, ast.Call)
                    and isinstance(c.func, ast.Name)
                    and c.func.id in {s.__name__ for s in SPECS}
                    and len(c.args) >= 2
                    and isinstance(c.args[1], ast.Constant)
                    for c in calls
                ):
                    shape = [(c.func.id, c.args[1].value) for c in calls]
                    found[(module.__name__, function.name)] = shape
    return found


def _kind(spec):
    return "Choice" if type(spec) is Choice else type(spec).__name__


def _default(spec):
    if isinstance(spec, Slider):
        value = 10.0**spec.low if spec.log else spec.low
        return int(spec.low) if spec.integer else value
    if isinstance(spec, Toggle):
        return False
    if isinstance(spec, Text):
        return ""
    return spec.options[0]


def _same(a, b):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def stored_explorers(path):
    """[(cell index, [control state, ...])] for every explorer a chapter's cells show."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    state = nb["metadata"].get("widgets", {}).get(STATE, {}).get("state", {})
    explorers = []
    for index, cell in enumerate(nb["cells"]):
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(VIEW)
            if not view:
                continue
            root = state.get(view["model_id"])
            assert root is not None, f"{path.name} cell {index}: its widget has no stored state"
            if root["model_name"] != "VBoxModel":
                continue
            children = [state[c.removeprefix("IPY_MODEL_")] for c in root["state"]["children"]]
            controls = [c["state"] | {"_model_name": c["model_name"]} for c in children]
            controls = [c for c in controls if c["_model_name"] in KINDS]
            if controls:
                explorers.append((index, controls))
    return explorers


def test_the_explorers_are_found():
    """The comparison below has something to compare: every chapter's explorers."""
    assert len(constant_tuples()) >= 8
    assert {name for _, name in factory_shapes()} >= {"gaussian_controls", "smoothing_controls"}
    found = sum(len(stored_explorers(path)) for path in CHAPTERS)
    assert found >= len(CHAPTERS)


def mismatch(controls, specs):
    """Why stored controls are not the widgets of ``specs`` (None when they are)."""
    if len(controls) != len(specs):
        return f"{len(controls)} controls stored, the explorer has {len(specs)}"
    for stored, spec in zip(controls, specs, strict=True):
        current = spec.widget(_default(spec)).get_state()
        current["_model_name"] = current.get("_model_name")
        if stored.get("description") != spec.label:
            return f"control {stored.get('description')!r} is now {spec.label!r}"
        for key in COMPARED:
            if key in current and not _same(stored.get(key), current[key]):
                return f"{spec.label!r}: {key} stored {stored.get(key)!r}, now {current[key]!r}"
    return None


def explain(controls):
    """None when the stored controls are a current explorer's, else why not."""
    tuples, shapes = constant_tuples(), factory_shapes()
    reasons = []
    for (module, name), specs in tuples.items():
        reason = mismatch(controls, specs)
        if reason is None:
            return None
        if {s.label for s in specs} & {c.get("description") for c in controls}:
            reasons.append(f"{module}.{name}: {reason}")
    stored_shape = [(KINDS[c["_model_name"]], c.get("description")) for c in controls]
    for (module, name), shape in shapes.items():
        if stored_shape == shape:
            return None
        if {label for _, label in shape} & {label for _, label in stored_shape}:
            reasons.append(f"{module}.{name}(): controls {shape}, stored {stored_shape}")
    return "; ".join(reasons) or f"no explorer in nbcore.widgets has the controls {stored_shape}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_each_stored_explorer_is_the_current_explorer(path):
    for index, controls in stored_explorers(path):
        reason = explain(controls)
        assert reason is None, (
            f"{path.name} cell {index} stores an explorer that nbcore.widgets no longer "
            f"builds ({reason}): run make execute CHAPTER={path.stem[:2]}"
        )


def test_an_added_slider_makes_the_stored_explorer_stale(monkeypatch):
    """The failure the test exists for: chapter 8 stored before a slider was added."""
    from nbcore.widgets import numerics

    path = ROOT / "book" / "08_numerics.ipynb"
    [(_, controls)] = stored_explorers(path)
    assert explain(controls) is None
    added = numerics.CONTROLS + (Slider("vocabulary", "vocabulary size", 1, 5, 1),)
    monkeypatch.setattr(numerics, "CONTROLS", added)
    assert "2 controls stored, the explorer has 3" in explain(controls)


def test_a_changed_range_makes_the_stored_explorer_stale(monkeypatch):
    from dataclasses import replace

    from nbcore.widgets import numerics

    [(_, controls)] = stored_explorers(ROOT / "book" / "08_numerics.ipynb")
    changed = (replace(numerics.CONTROLS[0], high=numerics.CONTROLS[0].high + 1),)
    monkeypatch.setattr(numerics, "CONTROLS", changed + numerics.CONTROLS[1:])
    assert "max stored" in explain(controls)
