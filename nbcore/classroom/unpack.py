"""Submissions as LMSs hand them out: a folder (nested) or a ZIP, and which one is the latest.

A ZIP is hostile input. :func:`unpack_zip` writes its notebooks into a fresh folder and
refuses, member by member, with the reason:

* names that leave the folder (``../x``, ``/etc/x``, ``C:\\x``): each part of a name is
  cleaned and the file is created inside the folder, never where the name points;
* symbolic links and anything that is not a regular file (only file contents are written);
* members larger than a notebook may be, counted while decompressing (a ZIP's sizes are
  its own claim), and archives whose contents add up to more than ``MAX_TOTAL_BYTES``
  (zip bombs); notebooks past the ``MAX_MEMBERS``-th (other files are not counted: an LMS's
  own files, a student's extra uploads); an archive of more than ``MAX_ENTRIES`` entries.
  The two shared limits are shared fairly: the uploaders take turns, smallest notebook first,
  so one student's flood uses them up last, wherever it sits in the ZIP;
* a name that the file system cannot take (too long: it is shortened to 200 bytes, with a
  hash; a folder whose name is a notebook unpacked before it): that member only;
* encrypted members and ZIPs inside the ZIP.

Names come in the encoding the ZIP says (its UTF-8 flag); names without the flag are read as
UTF-8 when they are (what most tools write) and as code page 437 (the ZIP standard) otherwise.

**Latest.** A ZIP member's time is whatever the archive says, and a copied file's time is
when it was copied: neither says when the student handed it in. A student's submissions are
ordered by what they say about themselves: Canvas's download names
``<name>[_LATE]_<user id>_<submission id>_<file>`` carry the submission's id, which grows
with each submission; then by the time given in a submission-times file (``--submitted``);
files given as files or folders (not in a ZIP) fall back on their modification time.
"""

import csv
import datetime as dt
import hashlib
import re
import stat
import unicodedata
import zipfile
import zlib
from pathlib import Path

from nbcore.classroom.screen import MAX_NOTEBOOK_BYTES

__all__ = [
    "unpack_zip",
    "collect",
    "canvas_name",
    "uploader",
    "order_key",
    "read_times",
    "UNPACKED",
]

MAX_MEMBERS = 5_000  # notebooks unpacked from one ZIP
MAX_ENTRIES = 200_000  # entries of any kind: past this the ZIP is refused whole
MAX_TOTAL_BYTES = 2 * 1024**3
UNPACKED = "unpacked"
CHUNK = 1 << 16
# Canvas's download name: <name>[_LATE]_<user id>_<file id>_<the student's file name>; the
# name part may hold underscores (anonymous grading writes "anon"), so the first "_<digits>_
# <digits>_" after it ends it
CANVAS_NAME = re.compile(
    r"^(?P<name>.+?)(?P<late>_LATE)?_(?P<user>\d+)_(?P<submission>\d+)_(?P<file>.+)$"
)
# Moodle's download folder of one submission: "Full Name_<participant id>_assignsubmission_
# <plugin>_"; the last such suffix counts (a display name may contain one too)
MOODLE_FOLDER = re.compile(r"_(\d+)_assignsubmission_[a-z]+_?$")
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|]")


def _member_name(info):
    """The member's name as its author wrote it: UTF-8 flag, else UTF-8 if valid, else cp437."""
    if info.flag_bits & 0x800:
        return info.filename
    raw = info.orig_filename.encode("cp437", errors="replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return info.orig_filename


def _safe_parts(name):
    """The parts of a member's name with nothing that could leave the folder."""
    parts = []
    for part in re.split(r"[/\\]+", unicodedata.normalize("NFC", name)):
        part = _UNSAFE.sub("_", part).strip()
        if part in ("", ".", ".."):
            continue
        parts.append(_shorten(part))
    return parts


def _shorten(part, limit=200):
    """A name short enough for any file system (255 bytes): its start, a hash, its end."""
    if len(part) <= 120 and len(part.encode()) <= limit:
        return part
    digest = hashlib.sha256(part.encode()).hexdigest()[:8]
    head, tail = part[:100], part[-20:]  # the end keeps ".ipynb" and the chapter's name
    while len(f"{head}-{digest}{tail}".encode()) > limit:
        head = head[:-1]
    return f"{head}-{digest}{tail}"


def _refusal(info, name):
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_IFMT(mode) and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        return "not a regular file"
    if info.flag_bits & 0x1:
        return "encrypted"
    if name.lower().endswith(".zip"):
        return "a ZIP inside the ZIP (unpack it and hand in the notebooks)"
    return None


def unpack_zip(archive, folder):
    """Write the notebooks of the ZIP ``archive`` under ``folder``.

    Returns (paths written, [(member name, reason)] of the members refused).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    root = folder.resolve()
    written, refused = [], []
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError, ValueError, EOFError) as error:
        return [], [(str(archive), f"not a readable ZIP ({type(error).__name__}: {error})")]
    with zf:
        members = zf.infolist()
        if len(members) > MAX_ENTRIES:
            reason = f"{len(members)} members, more than the {MAX_ENTRIES} allowed; none unpacked"
            return [], [(str(archive), reason)]
        notebooks = []  # (info, name, parts, reason or None), in the ZIP's order
        for info in members:
            name = _member_name(info)
            if info.is_dir():
                continue
            reason = _refusal(info, name)
            parts = _safe_parts(name)
            if reason is None and (not parts or not parts[-1].endswith(".ipynb")):
                continue  # not a notebook: LMSs add their own files; nothing to grade
            if reason is None and "__MACOSX" in parts:
                continue
            notebooks.append((info, name, parts, reason))
        notebooks = _without_common_folder(notebooks)
        over = _over_the_limits([n for n in notebooks if n[3] is None])
        total = 0
        for info, name, parts, reason in notebooks:  # unpacked in the ZIP's order
            reason = reason or over.get(id(info))
            try:  # whatever one member's name does to the file system fails that member only
                if reason is None:
                    reason, target = _target(root, parts)
                if reason is None:
                    reason, size = _extract(zf, info, target, MAX_TOTAL_BYTES - total)
                    total += size
            except OSError as error:
                reason = f"cannot be unpacked ({type(error).__name__}: {error.strerror})"
            if reason:
                refused.append((name, reason))
            else:
                written.append(target)
    return written, refused


def _without_common_folder(notebooks):
    """The members with the folder every one of them is in taken off their names: a ZIP the
    instructor made of a download folder has the LMS's own layout one level down."""
    while notebooks and all(len(parts) > 1 for _, _, parts, _ in notebooks):
        tops = {parts[0] for _, _, parts, _ in notebooks}
        if len(tops) > 1:
            break
        notebooks = [(info, name, parts[1:], reason) for info, name, parts, reason in notebooks]
    return notebooks


def _uploader(parts):
    """Whose upload a member is, for sharing the limits, as far as the LMS's layout says: the
    Moodle submission folder it is in (the first, the LMS's own; what a student uploads is
    inside it, whatever its names), else the Moodle prefix of a flat Moodle name, else the
    Canvas user id of a Canvas download name, else its top folder, else the member itself."""
    for folder in parts[:-1]:
        match = MOODLE_FOLDER.search(folder)
        if match:
            return f"moodle {match[1]}"
    flat = _flat_account(parts[-1])
    if flat is not None:
        return " ".join(flat)
    return f"folder {parts[0]}" if len(parts) > 1 else f"file {parts[-1]}"


# Moodle's download without folders: "<Full Name>_<participant id>_assignsubmission_file_<the
# student's file name>"; the first such part is the LMS's
_MOODLE_FLAT = re.compile(r"^.*?_(\d+)_assignsubmission_[a-z]+_")


def _flat_account(name):
    """("moodle", participant id) or ("canvas", user id) of a download name without folders,
    or None. The LMS writes its part first and the student's file name after it, so of a
    Moodle and a Canvas reading the one whose LMS part ends first is the LMS's (a student can
    put either pattern in their own file name, never before the LMS's part)."""
    found = []
    moodle = _MOODLE_FLAT.match(name)
    if moodle:
        found.append((moodle.end(), "moodle", moodle[1]))
    canvas = CANVAS_NAME.match(name)
    if canvas:
        found.append((canvas.start("file"), "canvas", canvas["user"]))
    return min(found)[1:] if found else None


def uploader(path, root=None):
    """Who handed a file in, as the LMS's download names it: ("moodle", participant id) from
    the Moodle folder of the submission or from Moodle's name of a download without folders,
    ("canvas", user id) from a Canvas download name, else None.

    The first Moodle submission folder on its path below the folder graded is the LMS's:
    inside it, folders and names are the student's and prove nothing (Moodle lets a student
    make folders in a submission, named like a classmate's submission folder or like a Canvas
    download). A Canvas name counts only outside any Moodle folder. The same rule holds for a
    folder graded as it is (``root``: the folder given; the folders above it are the
    instructor's) and for a ZIP of it (the ZIP's own layout). A file given alone, or directly
    in the folder given: its own folder.
    """
    path = Path(path)
    parts = path.parts
    if UNPACKED in parts:  # work/unpacked/<n>/<the ZIP's layout>
        folders = parts[parts.index(UNPACKED) + 2 : -1]
    elif root is not None and path.is_relative_to(root):
        folders = path.relative_to(root).parts[:-1] or parts[-2:-1]
    else:
        folders = parts[-2:-1]
    for folder in folders:
        match = MOODLE_FOLDER.search(folder)
        if match:
            return ("moodle", match[1])
    return _flat_account(path.name)


def _over_the_limits(candidates):
    """{id(info): reason} of the notebooks that the ZIP's limits leave out.

    The limits on notebooks (``MAX_MEMBERS``) and on bytes (``MAX_TOTAL_BYTES``) are shared
    fairly rather than first come, first served: the uploaders take turns, each with their
    smallest notebook not yet counted, so that one student's flood of notebooks or of large
    ones uses up the limits last and is what is left out, whatever its place in the ZIP. The
    sizes are the ZIP's own claims, and they bound what is unpacked: ``zipfile`` never reads
    past a member's claimed size (a member that holds more fails its CRC check), and
    ``_extract`` counts the bytes again while it writes.
    """
    queues = {}
    for info, _, parts, _ in candidates:
        queues.setdefault(_uploader(parts), []).append(info)
    turns = []  # (turn, place, info): everyone's smallest first, then everyone's second...
    for place, infos in enumerate(queues.values()):  # uploaders in the ZIP's order
        infos.sort(key=lambda info: info.file_size)
        turns += [(turn, place, info) for turn, info in enumerate(infos)]
    turns.sort(key=lambda item: (item[0], item[1]))
    over, count, total = {}, 0, 0
    for _, _, info in turns:
        size = min(info.file_size, MAX_NOTEBOOK_BYTES + 1)
        if count + 1 > MAX_MEMBERS:
            over[id(info)] = f"more than {MAX_MEMBERS} notebooks in the ZIP: not unpacked"
        elif size > MAX_NOTEBOOK_BYTES:
            over[id(info)] = (
                f"it unpacks to more than the {MAX_NOTEBOOK_BYTES} bytes a notebook may have"
            )
        elif total + size > MAX_TOTAL_BYTES:
            over[id(info)] = f"the ZIP unpacks to more than {MAX_TOTAL_BYTES} bytes (a zip bomb?)"
        else:
            count, total = count + 1, total + size
    return over


def _target(root, parts):
    """(reason or None, the path a member is unpacked to: the first free name)."""
    target = root.joinpath(*parts)
    if target.parent.resolve() != target.parent or not target.resolve().is_relative_to(root):
        return "its name leads out of the folder", None
    for parent in target.parents:  # a folder whose name is an unpacked notebook's
        if parent == root:
            break
        if parent.exists() and not parent.is_dir():
            return "a folder of its name is a file unpacked before it", None
    if target.exists() or target.is_symlink():  # a duplicate: the first free name
        stem, number = target.stem, 2
        while target.exists() or target.is_symlink():
            target = target.with_name(f"{stem}_{number}{target.suffix}")
            number += 1
    return None, target


def _extract(zf, info, target, room):
    """Copy one member, counting what it really decompresses to; (reason or None, bytes)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    size, limit = 0, min(MAX_NOTEBOOK_BYTES, room)
    try:
        out = open(target, "xb")  # never a file that is there: it is another member's
    except OSError as error:
        return f"cannot be written ({type(error).__name__}: {error})", 0
    try:
        with zf.open(info) as source, out:
            while chunk := source.read(CHUNK):
                size += len(chunk)
                if size > limit:
                    break
                out.write(chunk)
    except (zipfile.BadZipFile, OSError, RuntimeError, EOFError, zlib.error) as error:
        target.unlink(missing_ok=True)  # the file this call created
        return f"cannot be read ({type(error).__name__}: {error})", size
    if size > limit:
        target.unlink(missing_ok=True)
        if limit < MAX_NOTEBOOK_BYTES:
            return f"the ZIP unpacks to more than {MAX_TOTAL_BYTES} bytes (a zip bomb?)", size
        return f"it unpacks to more than the {MAX_NOTEBOOK_BYTES} bytes a notebook may have", size
    return None, size


def collect(paths, work):
    """The notebooks of ``paths`` (files, folders, ZIPs): (paths, refused, from ZIPs).

    ZIPs are unpacked into ``work/unpacked/<n>``; ``refused`` lists (name, reason) of what was
    not unpacked, and the symbolic links in the folders (never followed, never graded);
    ``from_zip`` is the set of paths that came out of a ZIP.
    """
    found, refused, from_zip = [], [], set()
    for number, path in enumerate(map(Path, paths)):
        if path.is_file() and path.suffix.lower() == ".zip":
            written, skipped = unpack_zip(path, Path(work) / UNPACKED / str(number))
            found += written
            from_zip.update(written)
            refused += [(f"{path.name}: {name}", reason) for name, reason in skipped]
        else:
            found.append(path)
        if path.is_dir():  # links are never followed (they may lead out of the folder)
            for link in sorted(path.rglob("*.ipynb")):
                if link.is_symlink() and ".ipynb_checkpoints" not in link.parts:
                    name = link.relative_to(path).as_posix()
                    refused.append((f"{path.name}/{name}", "a symbolic link: not followed"))
    return found, refused, from_zip


def canvas_name(name):
    """(submission id, late mark, the student's file name) of a Canvas download name, or None."""
    match = CANVAS_NAME.match(Path(name).name)
    if not match:
        return None
    return int(match["submission"]), bool(match["late"]), match["file"]


def read_times(path):
    """{(student, chapter number or ""): datetime} of a submission-times CSV.

    Columns ``student``, ``chapter`` (optional: "01") and ``submitted`` (ISO 8601 with its
    offset, such as 2027-02-06T10:15:00+01:00).
    """
    times = {}
    with Path(path).open(newline="", encoding="utf-8-sig") as file:
        for number, row in enumerate(csv.DictReader(file), start=2):
            try:
                when = dt.datetime.fromisoformat(row["submitted"].strip())
            except (KeyError, ValueError, AttributeError):
                raise ValueError(
                    f"{path}, row {number}: submitted must be a time such as "
                    f"2027-02-06T10:15:00+01:00, got {row.get('submitted')!r}"
                ) from None
            if when.tzinfo is None:
                raise ValueError(f"{path}, row {number}: the time {when} has no offset")
            chapter = (row.get("chapter") or "").strip()
            times[(row.get("student", "").strip(), f"{int(chapter):02d}" if chapter else "")] = when
    return times


def order_key(result, times, from_zip):
    """How ``result`` sorts among its student's submissions (latest last); sets ``submitted``."""
    account = uploader(result.path, result.root)
    canvas = canvas_name(result.path.name) if account and account[0] == "canvas" else None
    number = str(result.chapter)[:2]
    when = times.get((result.student, number)) or times.get((result.student, ""))
    if when is None and result.path not in from_zip:
        try:
            mtime = result.path.stat().st_mtime
            when = dt.datetime.fromtimestamp(mtime, dt.UTC)
        except OSError:
            when = None
    result.submitted = when
    stamp = when.timestamp() if when else 0.0
    return (canvas[0] if canvas else -1, stamp, result.path.as_posix())
