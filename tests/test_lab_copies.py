"""``make lab``'s copies (tools/lab.py): made once, kept while the book is unchanged, made again
when the book changes, and a copy edited in Lab is moved aside rather than lost."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import lab as lab_tool  # noqa: E402 - tools/lab.py


@pytest.fixture
def book(tmp_path, monkeypatch):
    folder = tmp_path / "book"
    folder.mkdir()
    (folder / "03_mle.md").write_text("text 1\n")
    (folder / "03_mle.ipynb").write_text("{}\n")
    (folder / "sanitize.cfg").write_text("[regex1]\n")
    monkeypatch.setattr(lab_tool, "BOOK", folder)
    return folder


def test_the_copies_are_the_book_without_nbvals_masks(book, tmp_path):
    served = lab_tool.prepare(tmp_path / "lab", log=lambda message: None)
    assert sorted(p.name for p in served.iterdir()) == ["03_mle.ipynb", "03_mle.md"]
    assert (served / "03_mle.md").read_text() == "text 1\n"
    # jupytext refuses a text file older than its paired notebook
    assert (served / "03_mle.md").stat().st_mtime > (served / "03_mle.ipynb").stat().st_mtime


def test_a_copy_run_in_lab_is_kept_while_the_book_is_unchanged(book, tmp_path):
    served = lab_tool.prepare(tmp_path / "lab", log=lambda message: None)
    (served / "03_mle.ipynb").write_text('{"outputs": "of a run"}\n')
    lab_tool.prepare(tmp_path / "lab", log=lambda message: None)
    assert (served / "03_mle.ipynb").read_text() == '{"outputs": "of a run"}\n'
    assert (book / "03_mle.ipynb").read_text() == "{}\n"


def test_a_changed_chapter_is_copied_again_and_the_edited_copy_moved_aside(book, tmp_path):
    served = lab_tool.prepare(tmp_path / "lab", log=lambda message: None)
    (served / "03_mle.ipynb").write_text('{"outputs": "of a run"}\n')
    (book / "03_mle.md").write_text("text 2\n")
    (book / "03_mle.ipynb").write_text('{"new": 1}\n')
    messages = []
    lab_tool.prepare(tmp_path / "lab", log=messages.append)
    assert (served / "03_mle.md").read_text() == "text 2\n"
    assert (served / "03_mle.ipynb").read_text() == '{"new": 1}\n'
    [aside] = (tmp_path / "lab" / ".replaced").glob("*/03_mle.ipynb")
    assert aside.read_text() == '{"outputs": "of a run"}\n'
    assert any("03_mle.ipynb was changed in Lab" in m for m in messages)


def test_lab_hides_the_paired_notebooks_and_encrypts_kernel_sockets(tmp_path):
    command = lab_tool.lab_command(tmp_path, tmp_path / "workspaces")
    assert f"--ServerApp.root_dir={tmp_path}" in command
    assert "--ContentsManager.hide_globs=[0-9][0-9]_*.ipynb" in command
    assert "--KernelManager.transport_encryption=auto" in command
