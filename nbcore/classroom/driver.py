"""The program that runs a student's notebook code inside the grading sandbox.

The grader starts it in a bubblewrap sandbox (:mod:`nbcore.classroom.sandbox`) and talks to it
over its standard input and output, one JSON object per line; nothing else connects the two.
Requests::

    {"run": "<cell source>", "limit": 60}           -> {"ok": true} or {"ok": false, "error": "..."}
    {"export": "answer_name", "attribute": null}     -> {"value": "<JSON text of the answer>"}

Cells run in an IPython shell (magics such as ``%matplotlib inline`` work). Whatever the cells
print goes nowhere: the protocol uses copies of the original standard streams, and the
streams the student's code sees are /dev/null. A cell that runs past its limit gets a
KeyboardInterrupt; if it ignores it, the grader ends the whole sandbox.

Everything this program says is treated by the grader as the student's claim: a student's code
can write to the protocol too, but it can only make its own answers look like other values it
could have computed anyway, and every line is size-capped by the grader.
"""

import json
import os
import sys
import threading


def main():
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115

    def reply(message):
        protocol_out.write(json.dumps(message) + "\n")
        protocol_out.flush()

    _copy_font_list()
    try:
        from IPython.core.interactiveshell import InteractiveShell

        from nbcore.answers import export_text

        class Shell(InteractiveShell):
            def enable_gui(self, gui=None):  # %matplotlib inline: figures are not shown here
                pass

        shell = Shell.instance()
    except Exception as error:  # pragma: no cover - a broken environment
        reply({"fatal": f"{type(error).__name__}: {error}"})
        return 1
    reply({"ready": True})
    for line in protocol_in:
        request = json.loads(line)
        if "run" in request:
            reply(_run(shell, request["run"], float(request.get("limit", 60))))
        elif "export" in request:
            name, attribute = request["export"], request.get("attribute")
            text = export_text(lambda n=name: eval(n, shell.user_ns), attribute)  # noqa: S307
            reply({"value": text})
    return 0


def _copy_font_list(source="/run/nbcore/matplotlib-cache"):
    """Give Matplotlib the grader's font list (read-only in the sandbox) in a writable place."""
    import glob
    import shutil

    target = os.environ.get("MPLCONFIGDIR")
    if not target or not os.path.isdir(source):
        return
    os.makedirs(target, exist_ok=True)
    for path in glob.glob(os.path.join(source, "fontlist-*.json")):
        shutil.copy(path, target)


def _run(shell, source, limit):
    """Run one cell with a time limit; {"ok": bool, "error": "Name: message"}."""
    import _thread

    timer = threading.Timer(limit, _thread.interrupt_main)
    timer.daemon = True
    try:
        timer.start()
    except RuntimeError:  # no thread left (a process limit): the grader's own limit still holds
        pass
    try:
        result = shell.run_cell(source, store_history=False)
    except BaseException as error:  # an interrupt that arrived outside the cell's code
        return {"ok": False, "error": f"{type(error).__name__}: {error}"[:300]}
    finally:
        timer.cancel()
    error = result.error_before_exec or result.error_in_exec
    if error is None:
        return {"ok": True}
    return {"ok": False, "error": f"{type(error).__name__}: {error}"[:300]}


if __name__ == "__main__":
    sys.exit(main())
