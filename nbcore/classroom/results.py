"""What grading works with and produces: a submission's plan, its results, the errors."""

from dataclasses import dataclass, field
from pathlib import Path

from nbcore.exercises import NOT_ATTEMPTED

__all__ = [
    "PASSED",
    "FAILED",
    "NOT_ATTEMPTED",
    "REFUSED",
    "GradingError",
    "Refused",
    "Late",
    "ExerciseResult",
    "SubmissionResult",
    "Chapter",
    "Step",
    "Plan",
]

PASSED = "passed"
FAILED = "failed"
REFUSED = "refused"


class GradingError(RuntimeError):
    """Grading could not be carried out (not: a student's answer is wrong)."""


class Refused(Exception):
    """A submission that is not graded, with the reason."""


@dataclass
class ExerciseResult:
    exercise: str
    points: int
    status: str
    hint: str = ""
    note: str = ""  # for the instructor: e.g. similar to the published solution
    override: float | None = None  # points set by the instructor (overrides.csv), with a reason
    value: str = ""  # the student's value, shortened for display (feedback pages)
    expected: str = ""  # the expected value on the student's variant, shortened (shown once
    # the chapter's solutions are released)

    @property
    def earned(self):
        if self.override is not None:
            return self.override
        return self.points if self.status == PASSED else 0


@dataclass
class Late:
    """A submission handed in after its due time (and grace period): the course's late rule."""

    days: int  # days late after the grace period, each started day counted
    penalty: float  # points deducted
    note: str  # e.g. "2 days late, 20 % off"


@dataclass
class SubmissionResult:
    path: Path
    chapter: str
    student: str = ""
    results: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    refused: str = ""
    verified: bool = False  # a roster copy whose seal matches its student id
    late: Late | None = None  # None: on time, or no due date
    submitted: object = None  # when it was handed in (datetime), where known
    seed: int | None = None  # the variant it was graded on (None: the book's numbers)
    order: tuple = ()  # sorts a student's submissions, the latest last (see unpack.py)
    mismatch: str = ""  # why this graded copy is not given to the student it names
    root: Path | None = None  # the folder given to grade that it was found in, if any
    superseded: object = None  # the later submission graded instead (this one is not run)

    @property
    def score(self):
        return sum(result.earned for result in self.results)

    @property
    def final(self):
        """The score less the late penalty."""
        return self.score - (self.late.penalty if self.late else 0)

    @property
    def out_of(self):
        return sum(result.points for result in self.results)


@dataclass
class Chapter:
    name: str
    nb: object
    exercises: list


@dataclass
class Step:
    source: str
    owner: str | None  # exercise id, None for a cell of the chapter
    kind: str  # "chapter", "student", "export"
    name: str = ""
    attribute: str | None = None


@dataclass
class Plan:
    number: int
    path: Path
    chapter: Chapter = None
    student: str = ""
    seed: int | None = None
    student_id: str | None = None  # the id recorded in a roster copy
    seal: object = None  # the seal recorded with it
    seal_ok: bool | None = None  # whether it matches, under the course secret
    answers: dict = field(default_factory=dict)
    result: SubmissionResult = None
    texts: dict = field(default_factory=dict)
