"""ZIPs of submissions as LMSs hand them out, and the attacks a ZIP can carry."""

import datetime as dt
import stat
import zipfile
from pathlib import Path

import pytest

from nbcore.classroom import unpack
from nbcore.classroom.results import SubmissionResult
from nbcore.classroom.unpack import canvas_name, collect, order_key, read_times, unpack_zip

NB = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'


def _zip(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in members:
            zf.writestr(info, data)
    return path


def test_nested_folders_and_lms_names(tmp_path):
    archive = _zip(
        tmp_path / "subs.zip",
        [
            ("smithjohn_12345_67890_03_text.ipynb", NB),
            ("Jane Doe_555_assignsubmission_file_/03_text.ipynb", NB),
            ("readme.txt", b"not graded"),
            ("__MACOSX/._03_text.ipynb", b"resource fork"),
        ],
    )
    paths, refused, from_zip = collect([archive], tmp_path / "work")
    names = sorted(p.relative_to(tmp_path / "work" / "unpacked" / "0").as_posix() for p in paths)
    assert names == [
        "Jane Doe_555_assignsubmission_file_/03_text.ipynb",
        "smithjohn_12345_67890_03_text.ipynb",
    ]
    assert refused == [] and set(paths) == from_zip
    assert all(p.read_bytes() == NB for p in paths)


def test_names_in_any_encoding(tmp_path):
    archive = tmp_path / "names.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("müller_1_2_03_a.ipynb", NB)  # Python sets the UTF-8 flag
    # a second archive whose UTF-8 name has no flag (as many tools write), and a cp437 one
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w") as zf:
        info = zipfile.ZipInfo("x" * len("müller.ipynb".encode()))
        zf.writestr(info, NB)
    data = plain.read_bytes().replace(b"x" * len("müller.ipynb".encode()), "müller.ipynb".encode())
    plain.write_bytes(data)
    old = tmp_path / "cp437.zip"
    with zipfile.ZipFile(old, "w") as zf:
        zf.writestr(zipfile.ZipInfo("XXXXXXX.ipynb"), NB)
    old.write_bytes(old.read_bytes().replace(b"XXXXXXX", "Mü_ller".encode("cp437")))
    for path, expected in [(archive, "müller_1_2_03_a.ipynb"), (plain, "müller.ipynb")]:
        written, refused = unpack_zip(path, tmp_path / path.stem)
        assert [p.name for p in written] == [expected] and refused == []
    written, _ = unpack_zip(old, tmp_path / "old")
    assert [p.name for p in written] == ["Mü_ller.ipynb"]  # 0x81 is not UTF-8: code page 437


def test_path_traversal_stays_inside(tmp_path):
    archive = _zip(
        tmp_path / "evil.zip",
        [("../../escaped.ipynb", NB), ("/tmp/abs_escaped.ipynb", NB), ("a\\..\\..\\b.ipynb", NB)],
    )
    written, refused = unpack_zip(archive, tmp_path / "out")
    assert not (tmp_path / "escaped.ipynb").exists()
    assert not Path("/tmp/abs_escaped.ipynb").exists()
    root = (tmp_path / "out").resolve()
    assert len(written) == 3 and all(p.resolve().is_relative_to(root) for p in written)
    assert refused == []


def test_symlinks_are_refused(tmp_path):
    link = zipfile.ZipInfo("link.ipynb")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive = _zip(tmp_path / "link.zip", [(link, "/etc/passwd"), ("ok.ipynb", NB)])
    written, refused = unpack_zip(archive, tmp_path / "out")
    assert [p.name for p in written] == ["ok.ipynb"]
    assert refused == [("link.ipynb", "a symbolic link")]
    assert not (tmp_path / "out" / "link.ipynb").is_symlink()


def test_a_zip_bomb_is_cut_off_while_decompressing(tmp_path, monkeypatch):
    monkeypatch.setattr(unpack, "MAX_NOTEBOOK_BYTES", 1_000_000)
    bomb = b"0" * 50_000_000  # compresses to about 50 kB
    archive = _zip(tmp_path / "bomb.zip", [("bomb.ipynb", bomb), ("ok.ipynb", NB)])
    assert archive.stat().st_size < 200_000
    written, refused = unpack_zip(archive, tmp_path / "out")
    assert [p.name for p in written] == ["ok.ipynb"]
    assert refused[0][0] == "bomb.ipynb" and "more than the 1000000 bytes" in refused[0][1]
    assert not (tmp_path / "out" / "bomb.ipynb").exists()


def test_a_zip_bomb_of_many_small_members_meets_the_total(tmp_path, monkeypatch):
    monkeypatch.setattr(unpack, "MAX_TOTAL_BYTES", 3_000_000)
    member = b"0" * 1_000_000
    archive = _zip(tmp_path / "bombs.zip", [(f"{i}.ipynb", member) for i in range(6)])
    written, refused = unpack_zip(archive, tmp_path / "out")
    assert len(written) == 3 and len(refused) == 3
    assert all("zip bomb" in reason for _, reason in refused)


def test_lying_sizes_do_not_help(tmp_path, monkeypatch):
    monkeypatch.setattr(unpack, "MAX_NOTEBOOK_BYTES", 1_000)
    archive = _zip(tmp_path / "liar.zip", [("big.ipynb", b"1" * 100_000)])
    data = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        info = zf.infolist()[0]
    # claim 10 bytes in the central directory: the count while decompressing still stops it
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    assert info.file_size == 100_000
    written, refused = unpack_zip(archive, tmp_path / "out")
    assert written == [] and len(refused) == 1


def test_too_many_members(tmp_path, monkeypatch):
    monkeypatch.setattr(unpack, "MAX_MEMBERS", 10)
    archive = _zip(tmp_path / "many.zip", [(f"{i}.ipynb", NB) for i in range(11)])
    written, refused = unpack_zip(archive, tmp_path / "out")
    assert len(written) == 10 and refused == [("10.ipynb", refused[0][1])]
    assert "more than 10 notebooks" in refused[0][1]
    monkeypatch.setattr(unpack, "MAX_ENTRIES", 10)  # entries of any kind: the ZIP as a whole
    written, refused = unpack_zip(archive, tmp_path / "out2")
    assert written == [] and "11 members, more than the 10 allowed" in refused[0][1]


def test_not_a_zip_and_zips_inside(tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    assert "not a readable ZIP" in unpack_zip(bad, tmp_path / "o1")[1][0][1]
    archive = _zip(tmp_path / "outer.zip", [("inner.zip", b"PK")])
    assert "inside the ZIP" in unpack_zip(archive, tmp_path / "o2")[1][0][1]


def test_latest_is_what_the_submission_says(tmp_path):
    assert canvas_name("smithjohn_LATE_12345_67890_03_text.ipynb") == (67890, True, "03_text.ipynb")
    assert canvas_name("03_text.ipynb") is None
    first = tmp_path / "smithjohn_12345_900_03_text.ipynb"
    second = tmp_path / "smithjohn_12345_1000_03_text-1.ipynb"
    for path in (second, first):  # the older submission is the newer file
        path.write_bytes(NB)
    results = [SubmissionResult(p, "03_text", "s1") for p in (first, second)]
    keys = [order_key(r, {}, {first, second}) for r in results]
    assert keys[1] > keys[0]
    assert results[0].submitted is None  # a ZIP member's time is not taken


def test_submission_times_file(tmp_path):
    times = tmp_path / "submitted.csv"
    times.write_text("student,chapter,submitted\ns1,3,2027-02-06T10:15:00+01:00\n")
    table = read_times(times)
    when = dt.datetime(2027, 2, 6, 9, 15, tzinfo=dt.UTC)
    assert table == {("s1", "03"): when}
    result = SubmissionResult(tmp_path / "x.ipynb", "03_text", "s1")
    order_key(result, table, {result.path})
    assert result.submitted == when
    times.write_text("student,submitted\ns1,yesterday\n")
    with pytest.raises(ValueError, match="row 2: submitted must be a time"):
        read_times(times)


def test_a_long_name_is_shortened_and_stays_a_notebook(tmp_path):
    archive = _zip(tmp_path / "long.zip", [("x" * 300 + "_03_text.ipynb", NB)])
    written, refused = unpack_zip(archive, tmp_path / "out")
    assert refused == [] and len(written) == 1
    name = written[0].name
    assert name.endswith("_03_text.ipynb") and len(name) <= 130 and len(name.encode()) <= 200


def test_a_duplicate_name_never_overwrites_or_deletes_another_member(tmp_path):
    """The attack: duplicates were renamed ``stem_<count>`` without looking whether that name
    was taken; when it was, unpacking the duplicate failed and its clean-up deleted the other,
    already unpacked member (a classmate's notebook, in a ZIP whose names students choose)."""
    members = [
        ("victim.ipynb", NB),
        ("att_a.ipynb", NB),
        ("att_a_3.ipynb", NB.replace(b"{", b'{"x": 1, ', 1)),  # the name the rename picked
        ("att_a.ipynb", NB),
        ("att_a.ipynb", NB),
    ]
    with pytest.warns(UserWarning, match="Duplicate name"):
        archive = _zip(tmp_path / "dup.zip", members)
    written, refused = unpack_zip(archive, tmp_path / "out")
    assert refused == []
    assert len(written) == 5 and len(set(written)) == 5
    assert all(path.is_file() for path in written)
    assert '"x": 1' in (tmp_path / "out" / "att_a_3.ipynb").read_text()


def test_one_students_odd_names_and_extra_files_stop_no_one_else(tmp_path, monkeypatch):
    """The attacks: a file and a folder of the same name, a name of 300 bytes (Chinese
    characters), and thousands of non-notebook files stopped the whole run or refused the
    whole ZIP. Each now fails its own member only."""
    monkeypatch.setattr(unpack, "MAX_MEMBERS", 4)  # the uploader of two notebooks loses one
    long_name = "twostu_102_5002_" + "朴素贝叶斯" * 20 + "90_spam.ipynb"
    members = [
        ("one_101_5001_90_spam.ipynb", NB),
        ("s2/x.ipynb", NB),
        ("s2/x.ipynb/y.ipynb", NB),
        (long_name, NB),
        *[(f"s2/extra{n}.txt", b"x") for n in range(50)],
        ("late_103_5003_90_spam.ipynb", NB),
    ]
    written, refused = unpack_zip(_zip(tmp_path / "odd.zip", members), tmp_path / "out")
    names = [p.name for p in written]
    assert names[:2] == ["one_101_5001_90_spam.ipynb", "x.ipynb"]
    assert len(names[2].encode()) <= 200 and names[2].endswith("90_spam.ipynb")
    assert names[2].startswith("twostu_102_5002_")
    assert names[3] == "late_103_5003_90_spam.ipynb"
    assert refused == [("s2/x.ipynb/y.ipynb", "more than 4 notebooks in the ZIP: not unpacked")]
    monkeypatch.setattr(unpack, "MAX_MEMBERS", 5)
    written, refused = unpack_zip(_zip(tmp_path / "odd5.zip", members), tmp_path / "out5")
    assert len(written) == 4
    assert refused == [("s2/x.ipynb/y.ipynb", "a folder of its name is a file unpacked before it")]


def test_one_students_flood_of_notebooks_uses_the_limits_last(tmp_path, monkeypatch):
    """The attack: one student (a Canvas user id, or a Moodle folder) uploads many notebooks,
    or many large ones, and the ZIP puts them first. The limits on notebooks and on bytes were
    counted in the ZIP's order, so everyone after the flood was refused. Now the uploaders take
    turns: the flood is what is left out, and every other student's notebook is unpacked."""
    monkeypatch.setattr(unpack, "MAX_MEMBERS", 20)
    flood = [(f"mallory_900_{7000 + n}_90_spam.ipynb", NB) for n in range(40)]
    honest = [(f"student{n}_{100 + n}_{8000 + n}_90_spam.ipynb", NB) for n in range(10)]
    moodle = [("Bob Smith_77_assignsubmission_file_/90_spam.ipynb", NB)]
    archive = _zip(tmp_path / "flood.zip", flood + honest + moodle)
    written, refused = unpack_zip(archive, tmp_path / "out")
    names = {p.name for p in written}
    assert {name for name, _ in honest} <= names and "90_spam.ipynb" in names
    assert len(written) == 20 and len(refused) == 40 - 9
    assert all(name.startswith("mallory_900_") for name, _ in refused)
    assert all("more than 20 notebooks" in reason for _, reason in refused)
    # the same with bytes: the flood's large notebooks (zeros compress to almost nothing)
    monkeypatch.setattr(unpack, "MAX_MEMBERS", 5_000)
    monkeypatch.setattr(unpack, "MAX_NOTEBOOK_BYTES", 1_000_000)
    monkeypatch.setattr(unpack, "MAX_TOTAL_BYTES", 3_000_000)
    big = b"0" * 900_000
    bombs = [(f"mallory_900_{7000 + n}_90_spam.ipynb", big) for n in range(10)]
    archive = _zip(tmp_path / "bytes.zip", bombs + honest)
    written, refused = unpack_zip(archive, tmp_path / "out_bytes")
    names = {p.name for p in written}
    assert {name for name, _ in honest} <= names
    assert all(name.startswith("mallory_900_") for name, _ in refused) and len(refused) == 7
    assert all("zip bomb" in reason for _, reason in refused)
    assert sum(p.stat().st_size for p in written) <= 3_000_000


def test_the_uploader_is_read_from_the_lms_layout_not_from_names_a_student_chose():
    """The attacks: inside their own Moodle folder, a student put a classmate's copy in a
    sub folder named like the classmate's Moodle folder, or in a plain sub folder, or under a
    Canvas-shaped name; each was taken for the classmate's (or nobody's) upload, so the copy
    could replace the classmate's grade. Only the top folder of the ZIP's layout counts."""
    root = Path("work") / unpack.UNPACKED / "0"
    bob = "Bob Baker_1002_assignsubmission_file_"
    for inside in [
        ("Ann Ames_1001_assignsubmission_file_", "90_spam.ipynb"),
        ("plain", "90_spam.ipynb"),
        ("ames_1001_5001_90_spam.ipynb",),
    ]:
        assert unpack.uploader(root / bob / Path(*inside)) == ("moodle", "1002"), inside
    assert unpack.uploader(root / "ames_1001_5001_90_spam.ipynb") == ("canvas", "1001")
    # an instructor's folder of Canvas downloads: the Canvas names count
    assert unpack.uploader(root / "90" / "ames_1001_5001_90_spam.ipynb") == ("canvas", "1001")
    # Canvas names keep underscores of the name part (and "anon" under anonymous grading)
    assert unpack.uploader(root / "smith_john_101_5001_x_1.ipynb") == ("canvas", "101")
    assert canvas_name("anon_LATE_102_5002_90_spam.ipynb") == (5002, True, "90_spam.ipynb")


def test_a_flood_inside_ones_own_folder_or_a_rezipped_download_is_one_uploader(
    tmp_path, monkeypatch
):
    """The attacks: 5,000 tiny notebooks named like Canvas downloads inside one student's
    Moodle folder counted as 5,000 uploaders; and an instructor's ZIP of the download folder
    made the whole class one uploader. Either way the flood took every turn."""
    monkeypatch.setattr(unpack, "MAX_MEMBERS", 20)
    for top in ("", "Assignment 3 download/"):
        flood = [
            (f"{top}Mallory M_900_assignsubmission_file_/x_{n}_{n}_90_spam.ipynb", NB)
            for n in range(40)
        ]
        honest = [
            (f"{top}Student {n}_{100 + n}_assignsubmission_file_/90_spam.ipynb", NB)
            for n in range(10)
        ]
        archive = _zip(tmp_path / f"flood{len(top)}.zip", flood + honest)
        written, refused = unpack_zip(archive, tmp_path / f"out{len(top)}")
        assert len(written) == 20 and len(refused) == 30
        assert all(name.startswith(f"{top}Mallory") for name, _ in refused)
        kept = {p.parent.name for p in written}
        assert {f"Student {n}_{100 + n}_assignsubmission_file_" for n in range(10)} <= kept


def test_a_broken_member_or_name_fails_itself_not_the_run(tmp_path):
    """The attacks: a member whose deflate stream is corrupt raised zlib.error, and a ZIP
    whose UTF-8-flagged name is not UTF-8 raised UnicodeDecodeError: the whole run stopped
    and nobody was graded."""
    archive = _zip(tmp_path / "corrupt.zip", [("bad.ipynb", NB * 50), ("ok.ipynb", NB)])
    data = bytearray(archive.read_bytes())
    start = data.find(b"PK\x03\x04") + 30 + len("bad.ipynb")
    data[start : start + 40] = bytes(range(40))  # scramble the compressed bytes
    archive.write_bytes(bytes(data))
    written, refused = unpack_zip(archive, tmp_path / "out")
    assert [p.name for p in written] == ["ok.ipynb"]
    assert refused[0][0] == "bad.ipynb" and "cannot be read" in refused[0][1]
    named = _zip(tmp_path / "name.zip", [(zipfile.ZipInfo("nameXX.ipynb"), NB)])
    data = bytearray(named.read_bytes())
    for at in (i for i in range(len(data)) if data.startswith(b"PK\x01\x02", i)):
        data[at + 9] |= 0x08  # the general-purpose flag's UTF-8 bit (0x800), high byte
    data = bytes(data).replace(b"nameXX", b"name\xff\xfe")
    named.write_bytes(data)
    written, refused = unpack_zip(named, tmp_path / "out2")
    assert written == [] and "not a readable ZIP" in refused[0][1]


def test_a_flood_of_canvas_shaped_names_in_a_flat_moodle_download_is_one_uploader(
    tmp_path, monkeypatch
):
    """Moodle's download without folders prefixes each file with the submission's
    "<name>_<id>_assignsubmission_file_": a student's Canvas-shaped file names after it must
    not make a flood of uploaders."""
    monkeypatch.setattr(unpack, "MAX_MEMBERS", 20)
    flood = [(f"Mallory M_900_assignsubmission_file_x_{n}_{n}_90.ipynb", NB) for n in range(40)]
    honest = [(f"Student {n}_{100 + n}_assignsubmission_file_90.ipynb", NB) for n in range(10)]
    written, refused = unpack_zip(_zip(tmp_path / "flat.zip", flood + honest), tmp_path / "out")
    assert {name for name, _ in honest} <= {p.name for p in written}
    assert len(refused) == 30 and all(name.startswith("Mallory") for name, _ in refused)
