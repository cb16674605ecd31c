"""JupyterLab for the classroom (``make lab``): chapters run on copies, the repository stays clean.

Running a chapter in JupyterLab changes its notebook: Lab autosaves the outputs of the run, the
execution counts and the widget state (random ``model_id``s). On the repository's own
``book/*.ipynb`` that would leave tracked files modified after every lesson (and block
``git pull``). So Lab never sees ``book/``:

1. the chapters are copied into ``_build/lab/book/`` (``--root``), each chapter's pair
   (``NN_slug.md``, ``NN_slug.ipynb``) and the pages without a notebook. A copy is made when it
   is missing, and made again when the book's file has changed since the copy was taken (after
   a ``git pull``, say); a copy that was edited in Lab is then moved aside into
   ``_build/lab/.replaced/<time>/``, never deleted. ``--fresh`` makes every copy again;
2. the file browser shows one file per chapter, the MyST ``NN_slug.md`` that opens as a
   notebook (jupytext, with the outputs of the paired ``.ipynb``): the paired ``.ipynb`` files
   are hidden from the listing (``ContentsManager.hide_globs``), and still read and written by
   jupytext;
3. JupyterLab starts on that folder with the project's settings (``book-assets/jupyter/``:
   ``.md`` files open as notebooks), its own workspaces folder, nothing fetched from the web
   (no extension manager listings, no news, no update check), and kernels that talk to the
   server over CurveZMQ-encrypted sockets (``--KernelManager.transport_encryption=auto``).

``tests/test_lab_browser.py`` starts Lab through :func:`lab_command`, runs every chapter, saves
it, and checks that no file under ``book/`` changed.

Usage: ``python tools/lab.py [--root _build/lab] [--fresh] [--prepare-only] [-- LAB ARGS]``.
"""

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
LAB_ROOT = ROOT / "_build" / "lab"
WORKSPACES = ROOT / "_build" / "lab-workspaces"
CONFIG = ROOT / "book-assets" / "jupyter"
RECORD = ".lab-copies.json"  # the book's and the copy's digests at the time of each copy

# Jupyter Server's own hidden names, plus the paired notebooks of the chapters.
HIDDEN = ["__pycache__", "*.pyc", "*.pyo", ".DS_Store", "*~", "*.so", "*.dylib"]
PAIRED_NOTEBOOKS = "[0-9][0-9]_*.ipynb"

# Files of book/ that Lab does not need (nbval's output masks).
NOT_COPIED = {"sanitize.cfg"}


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def book_files():
    """The files of book/ that JupyterLab serves copies of."""
    return sorted(p for p in BOOK.iterdir() if p.is_file() and p.name not in NOT_COPIED)


def prepare(root=LAB_ROOT, fresh=False, log=print):
    """Copy the book's chapters into ``root/book``; return the folder. See the module doc."""
    root = Path(root)
    target = root / "book"
    target.mkdir(parents=True, exist_ok=True)
    record_path = root / RECORD
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = {}
    stamp = time.strftime("%Y%m%d-%H%M%S")
    copied = []
    for source in book_files():
        copy = target / source.name
        book_digest = _digest(source)
        previous = record.get(source.name, {})
        if copy.is_file() and not fresh and previous.get("book") == book_digest:
            continue  # the book has not changed since this copy was made
        if copy.is_file() and _digest(copy) not in (previous.get("copy"), book_digest):
            aside = root / ".replaced" / stamp
            aside.mkdir(parents=True, exist_ok=True)
            shutil.move(copy, aside / source.name)
            log(f"{copy.name} was changed in Lab: kept as {aside / source.name}")
        shutil.copy2(source, copy)
        record[source.name] = {"book": book_digest, "copy": book_digest}
        copied.append(copy)
    # A pair's text must not be older than its notebook (jupytext refuses an outdated text):
    # the .md of every pair copied now is given the newer time.
    for copy in copied:
        md, ipynb = copy.with_suffix(".md"), copy.with_suffix(".ipynb")
        if md.is_file() and ipynb.is_file():
            newest = max(md.stat().st_mtime, ipynb.stat().st_mtime)
            os.utime(md, (newest + 1, newest + 1))
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")
    if copied:
        log(f"copied {len(copied)} file(s) of book/ into {target}")
    return target


def lab_environment(base=None):
    """The environment Lab runs in: the .venv's kernels first, the project's Lab settings."""
    return dict(
        os.environ if base is None else base,
        JUPYTER_PREFER_ENV_PATH="1",
        JUPYTER_CONFIG_PATH=str(CONFIG),
    )


def lab_command(root=LAB_ROOT, workspaces=WORKSPACES, extra=()):
    """The ``jupyter lab`` command line that ``make lab`` and the Lab test run."""
    command = [
        sys.executable, "-m", "jupyterlab",
        f"--ServerApp.root_dir={root}", "--LabApp.default_url=/lab/tree/book",
        f"--LabApp.workspaces_dir={workspaces}",
        "--KernelManager.transport_encryption=auto", "--LabApp.extension_manager=readonly",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
    ]  # fmt: skip
    # a list option is given once per item on the command line
    command += [f"--ContentsManager.hide_globs={glob}" for glob in HIDDEN + [PAIRED_NOTEBOOKS]]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    return command + list(extra)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=LAB_ROOT, help="folder Lab serves")
    parser.add_argument("--fresh", action="store_true", help="copy every chapter again")
    parser.add_argument(
        "--prepare-only", action="store_true", help="make the copies, do not start Lab"
    )
    parser.add_argument("lab_args", nargs="*", help="more jupyter lab options, after --")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    prepare(root, fresh=args.fresh)
    if args.prepare_only:
        return 0
    WORKSPACES.mkdir(parents=True, exist_ok=True)
    command = lab_command(root, WORKSPACES, args.lab_args)
    os.execve(sys.executable, command, lab_environment())


if __name__ == "__main__":
    sys.exit(main())
