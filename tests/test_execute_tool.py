"""tools/execute.py writes a notebook the way JupyterLab would save it again."""

import importlib.util
import json
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parent.parent
KEY = "application/vnd.jupyter.widget-state+json"


@pytest.fixture(autouse=True)
def _restore_kernel_manager_default():
    """Loading the tool sets a process-wide default; other tests in this process keep theirs."""
    trait = KernelManager.class_traits()["transport_encryption"]
    before = trait.default_value
    yield
    trait.default_value = before


def _tool():
    spec = importlib.util.spec_from_file_location("execute", ROOT / "tools" / "execute.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _notebook(state):
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {KEY: {"state": state, "version_major": 2, "version_minor": 0}}
    return nb


def test_whole_number_floats_are_written_as_javascript_writes_them():
    state = {
        "1" * 32: {
            "model_name": "FloatSliderModel",
            "state": {"max": 20.0, "min": 0.0, "step": 0.05, "value": 0.5, "_dom": [1.0, "a"]},
        }
    }
    nb = _tool().js_widget_numbers(_notebook(state))
    saved = nb.metadata["widgets"][KEY]["state"]["1" * 32]["state"]
    assert saved == {"max": 20, "min": 0, "step": 0.05, "value": 0.5, "_dom": [1, "a"]}
    assert isinstance(saved["max"], int) and isinstance(saved["step"], float)
    # what JupyterLab writes: JSON.stringify(20.0) is "20"
    assert '"max": 20,' in json.dumps(saved, sort_keys=True)


def test_a_notebook_without_widgets_is_left_alone():
    nb = nbformat.v4.new_notebook()
    assert _tool().js_widget_numbers(nb) == nbformat.v4.new_notebook()


def test_kernels_start_with_transport_encryption():
    _tool()
    assert KernelManager().transport_encryption == "auto"
