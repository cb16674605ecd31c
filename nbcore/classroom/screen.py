"""Step 1 of grading: read and screen a submission, before any of its code runs.

A submission must be a student copy (``nbcore.copy: student`` in its metadata) of a chapter of
the book (its name among the book's chapters), hold no ``role: solution`` cell (the book's own
notebook is refused) and no answer cell for an exercise the chapter does not have. The
student's work for an exercise is its answer cell and the unmarked code cells right below it;
nothing else of the submission is used: check cells, edited chapter cells and planted cells are
ignored.
"""

import hmac
from pathlib import Path

import nbformat

from nbcore.classroom.markup import find_exercises
from nbcore.classroom.results import Chapter, GradingError, Plan, Refused, SubmissionResult
from nbcore.classroom.student import CHAPTER, placeholder_source, read_chapter
from nbcore.classroom.variants import STUDENT_ID, seal, student_seed

__all__ = [
    "submission_paths",
    "book_chapters",
    "read_submission",
    "screen",
    "plan_submission",
    "check_seals",
]

MAX_NOTEBOOK_BYTES = 20_000_000


def submission_paths(paths, roots=None):
    """The notebooks to grade: the files given, and every .ipynb under the folders given.

    ``roots``, a dict, receives {notebook: the folder given that it was found in}.
    """
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            inside = sorted(
                p
                for p in path.rglob("*.ipynb")
                if ".ipynb_checkpoints" not in p.parts and not p.is_symlink()
            )
            found += inside
            if roots is not None:
                roots.update(dict.fromkeys(inside, path))
        elif path.is_file():
            found.append(path)
        else:
            raise GradingError(f"no such notebook or folder: {path}")
    return found


def book_chapters(solutions):
    """{chapter name: path} of the chapters in ``solutions``: each chapter's notebook, or its
    MyST .md where it has none (an instructor's private chapters may be .md only)."""
    found = {}
    for path in sorted(Path(solutions).glob("*.md")) + sorted(Path(solutions).glob("*.ipynb")):
        if CHAPTER.match(path.stem) and path.is_file():
            found[path.stem] = path
    return dict(sorted(found.items()))


def read_submission(path):
    """The notebook at ``path``; Refused when it is not one."""
    if path.is_symlink() or not path.is_file():
        raise Refused("not a regular file (a link or a special file)")
    size = path.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        raise Refused(f"the file is {size} bytes, more than the {MAX_NOTEBOOK_BYTES} allowed")
    try:
        with path.open(encoding="utf-8-sig") as file:  # a byte order mark is left out
            nb = nbformat.read(file, as_version=4)
    except Exception as error:
        reason = " ".join(str(error).split())[:200]
        raise Refused(f"not a readable notebook ({type(error).__name__}: {reason})") from None
    if not isinstance(nb.get("cells"), list) or not isinstance(nb.get("metadata"), dict):
        raise Refused("not a notebook")
    return nb


def chapter_name(nb, path, chapters):
    """Which chapter a submission is: its copy's metadata, else a chapter name in its name."""
    meta = nb.metadata.get("nbcore")
    name = meta.get("chapter") if isinstance(meta, dict) else None
    if name is not None:
        if not isinstance(name, str) or name not in chapters:
            raise Refused(
                f"its metadata names the chapter {str(name)[:80]!r}, which is not a chapter "
                "of the book"
            )
        return name
    for candidate in sorted(chapters, key=len, reverse=True):
        if candidate in path.name:
            return candidate
    raise Refused("cannot tell which chapter this is (no nbcore.chapter metadata, no chapter name)")


def _normalized(source):
    return "\n".join(line.strip() for line in str(source).splitlines() if line.strip())


def _roles(index, cell):
    """(role, exercise) of a cell, after checking that it is a well-formed cell."""
    if not isinstance(cell, dict) or not isinstance(cell.get("metadata", {}), dict):
        raise Refused(f"cell {index} is not a notebook cell")
    if cell.get("cell_type") == "code" and not isinstance(cell.get("source"), str):
        raise Refused(f"cell {index} has no source text")
    try:
        str(cell.get("source", "")).encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(f"cell {index} holds text that is not valid Unicode") from None
    meta = cell.get("metadata", {})
    role, exercise = meta.get("role"), meta.get("exercise")
    for key, value in (("role", role), ("exercise", exercise)):
        if value is not None and not isinstance(value, str):
            raise Refused(f"cell {index}: its {key} metadata is not text")
    return role, exercise


def screen(nb, exercises):
    """Refuse what is not a student copy; return {exercise: [sources of the student's cells]}.

    The student's work for an exercise is its answer cell (``role: answer``) and the unmarked
    code cells right below it; an exercise whose cells hold only the placeholder (or nothing)
    gets an empty list.
    """
    meta = nb.metadata.get("nbcore")
    if not isinstance(meta, dict) or meta.get("copy") != "student":
        raise Refused(
            "not a student copy (made by make student); the book's own notebooks "
            "and other notebooks are not graded"
        )
    known = {ex.id: ex for ex in exercises}
    answer_cells = {}
    for index, cell in enumerate(nb.cells):
        role, exercise = _roles(index, cell)
        if role == "solution":
            raise Refused(
                f"cell {index} is a solution cell (role: solution): the book's own notebook, "
                "or solution cells put into a copy, are not graded"
            )
        if role not in (None, "answer", "check", "variant", "data"):
            raise Refused(f"cell {index} has the role {str(role)[:40]!r}, which copies do not use")
        if exercise is not None and exercise not in known:
            raise Refused(
                f"cell {index} belongs to exercise {str(exercise)[:20]!r}, "
                "which the chapter does not have"
            )
        if role == "answer":
            if cell.get("cell_type") != "code":
                raise Refused(f"cell {index}: an answer cell must be code")
            if exercise in answer_cells:
                raise Refused(f"exercise {exercise} has a second answer cell (cell {index})")
            answer_cells[exercise] = index
    answers = {}
    for exercise in exercises:
        sources = []
        index = answer_cells.get(exercise.id)
        if index is not None:
            sources.append(nb.cells[index].source)
            for cell in nb.cells[index + 1 :]:
                if cell.get("cell_type") != "code" or cell.get("metadata", {}).get("role"):
                    break
                if "exercise" in cell.get("metadata", {}):
                    break
                sources.append(cell.get("source"))
        if not all(isinstance(s, str) for s in sources):
            raise Refused(f"exercise {exercise.id}: a cell whose source is not text")
        placeholder = _normalized(placeholder_source(exercise))
        if all(_normalized(s) in ("", placeholder) for s in sources):
            sources = []
        answers[exercise.id] = sources
    return answers


def student_of(nb, path):
    """(student id recorded in the copy or None, the name to show)."""
    meta = nb.metadata.get("nbcore", {})
    student = meta.get("student") if isinstance(meta, dict) else None
    if student is None:
        return None, path.stem
    if not isinstance(student, str) or not STUDENT_ID.fullmatch(student):
        raise Refused(
            f"the copy's student id {str(student)[:70]!r} is not a valid id (was it edited?)"
        )
    return student, student


def plan_submission(number, path, chapters, loaded, secret):
    """Screen one submission: a _Plan, its result Refused when it is not graded."""
    plan = Plan(number, path)
    plan.result = SubmissionResult(path, "", path.stem)
    try:
        nb = read_submission(path)
        name = chapter_name(nb, path, chapters)
        plan.result.chapter = name
        if name not in loaded:
            book = read_chapter(chapters[name])
            loaded[name] = Chapter(name, book, find_exercises(book))
        plan.chapter = loaded[name]
        if not plan.chapter.exercises:
            raise Refused(f"chapter {name} has no exercises")
        plan.answers = screen(nb, plan.chapter.exercises)
        plan.student_id, plan.result.student = student_of(nb, path)
        if plan.student_id is not None:
            plan.seal = nb.metadata["nbcore"].get("seal")
            if secret is not None:
                plan.seed = plan.result.seed = student_seed(secret, plan.student_id)
                expected = seal(secret, plan.student_id, name)
                plan.seal_ok = isinstance(plan.seal, str) and hmac.compare_digest(
                    plan.seal, expected
                )
        elif secret is not None and any(ex.data_cells for ex in plan.chapter.exercises):
            raise Refused(
                "not a copy made for a student of the roster (no student id), but this "
                "chapter's exercises have per-student variants"
            )
        plan.student = plan.result.student
    except Refused as error:
        plan.result.refused = str(error)
        plan.chapter = None
    except Exception as error:  # a submission built to break the reading fails alone
        reason = " ".join(f"{type(error).__name__}: {error}".split())[:200]
        plan.result.refused = f"the notebook could not be read ({reason})"
        plan.chapter = None
    return plan


def check_seals(plans, secret):
    """Check the copies made for the students of a roster against the course secret.

    Stops (GradingError) when such copies are graded without the secret, or when the secret
    matches none of their seals and at least two seals were checked (a wrong secret: one
    copy alone cannot tell a wrong secret from a forged seal, so it is refused instead).
    Refuses, flagged with a note that says so, each copy whose seal does not match its student
    id and chapter (an edited id) and each copy that carries no seal (a deleted seal); the
    others are marked verified: only they are graded as the student they name.
    """
    roster = [p for p in plans if p.chapter is not None and p.student_id is not None]
    if not roster:
        return
    if secret is None:
        raise GradingError(
            f"{len(roster)} of the submissions are copies made for the students of a roster "
            f"(student {roster[0].student_id}, ...): grading them needs the course secret "
            "they were made with (NBCORE_COURSE_SECRET, or --secret-file FILE; "
            "make grade SECRET_FILE=FILE)"
        )
    sealed = [p for p in roster if p.seal is not None]
    if len(sealed) >= 2 and not any(p.seal_ok for p in sealed):
        raise GradingError(
            f"the course secret given matches none of the {len(sealed)} copies made for "
            "the students of a roster: it is not the secret they were made with (check "
            "NBCORE_COURSE_SECRET or the --secret-file / SECRET_FILE given)"
        )
    for plan in roster:
        if plan.seal is None:
            plan.result.refused = (
                f"flagged: the copy says student {plan.student_id} but carries no seal: its "
                "student id cannot be checked (the seal was deleted, or the id added)"
            )
            plan.chapter = None
        elif not plan.seal_ok:
            alone = " (or the course secret given is not the one it was made with)"
            plan.result.refused = (
                f"flagged: the copy says student {plan.student_id} and chapter "
                f"{plan.chapter.name}, which do not match its seal; the copy was made for "
                "another student or chapter, or its id was edited"
                + (alone if len(sealed) == 1 else "")
            )
            plan.chapter = None
        else:
            plan.result.verified = True
