"""A pytest plugin that records what nbval saw in each notebook cell, for the grader.

Loaded with ``-p nbcore.classroom.nbval_report``; when the environment variable
``NBCORE_NBVAL_REPORT`` names a folder, each cell's outcome, its exercise metadata and the
text it printed are appended, one JSON line per cell, to ``<folder>/<notebook stem>.jsonl``.
"""

import json
import os
from pathlib import Path

import pytest

REPORT_ENV = "NBCORE_NBVAL_REPORT"


def _text(outputs, name):
    return "".join(
        out.get("text", "")
        for out in outputs
        if out.get("output_type") == "stream" and out.get("name") == name
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    folder = os.environ.get(REPORT_ENV)
    cell = getattr(item, "cell", None)
    if not folder or cell is None:
        return
    if report.when != "call" and report.outcome == "passed":
        return
    outputs = getattr(item, "test_outputs", None) or []
    errors = [
        f"{out.get('ename')}: {out.get('evalue')}"
        for out in outputs
        if out.get("output_type") == "error"
    ]
    if not errors and report.failed and report.when != "call":
        errors = [str(report.longrepr).strip().splitlines()[-1][:300]]
    record = {
        "cell": item.cell_num,
        "exercise": cell.metadata.get("exercise"),
        "role": cell.metadata.get("role"),
        "submission": cell.metadata.get("submission"),
        "when": report.when,
        "outcome": report.outcome,
        "stdout": _text(outputs, "stdout"),
        "error": errors[0] if errors else "",
    }
    path = Path(folder) / f"{Path(str(item.fspath)).stem}.jsonl"
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps(record) + "\n")
