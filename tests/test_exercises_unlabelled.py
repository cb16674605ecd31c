"""The exercises of the chapter on unlabelled text (12): every hint fires.

Each exercise's data cell, solution and check cell are read from the chapter's notebook and run
here, in the book (no variant) and for many per-student variants: the solution and an answer
computed independently below are "correct", and the answer each usual mistake gives gets that
mistake's hint, never "correct". A variant whose mistake coincides with the answer would make
the check refuse to run (ValueError), so running many variants also tests the data cells.
"""

import contextlib
import functools
import io
import math
from pathlib import Path

import nbformat
import numpy as np
import pytest

import nbcore
from nbcore import exercises

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTER = "12_unlabelled"
SEEDS = [None, *range(40)]  # None: the book's own numbers


@functools.cache
def _cells(exercise):
    nb = nbformat.read(BOOK / f"{CHAPTER}.ipynb", as_version=4)
    by_role = {}
    for cell in nb.cells:
        if cell.metadata.get("exercise") == exercise and cell.cell_type == "code":
            by_role.setdefault(cell.metadata.get("role"), []).append(cell.source)
    return by_role


def _namespace():
    return {"np": np, "nbcore": nbcore, "exercises": exercises}


def _run(exercise, seed, answer):
    """The verdict of the check on ``answer(namespace)`` (or on the solution, if None)."""
    cells = _cells(exercise)
    namespace = _namespace()
    exercises.use_variant(seed)
    try:
        for source in cells.get("data", []):
            exec(source, namespace)  # noqa: S102 - the chapter's own cell
        if answer is None:
            for source in cells["solution"]:
                exec(source, namespace)  # noqa: S102
        else:
            name, value = answer(namespace)
            namespace[name] = value
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(cells["check"][0], namespace)  # noqa: S102
        return out.getvalue()
    finally:
        exercises.use_variant(None)


# --------------------------------------------------------------------------- the answers
# Each exercise: the answer's name, the right answer, and {hint fragment: the mistake's answer},
# computed from the data cell's names with plain loops and the textbook formulas, not copied
# from the check cell.


def _posterior_spam(counts, n_messages, message, alpha=1.0, prior=True, presence=False):
    """P(spam | message) under the multinomial model, by products of plain floats."""
    joint = []
    for c in (0, 1):
        total = sum(counts[c]) + alpha * len(counts[c])
        value = n_messages[c] / sum(n_messages) if prior else 1.0
        for d, x in enumerate(message):
            times = min(x, 1) if presence else x
            value *= ((counts[c][d] + alpha) / total) ** times
        joint.append(value)
    return joint[1] / (joint[0] + joint[1]), joint[1]


def _tie_prior(counts, message, alpha=1.0, presence=False):
    """The prior of spam at which P(spam | message) is one half, found by bisection on the
    posterior itself (not from the closed form the solution uses)."""
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        r = _posterior_spam(counts, [1 - middle, middle], message, alpha, presence=presence)[0]
        low, high = (middle, high) if r < 0.5 else (low, middle)
    return (low + high) / 2


def _ex121(ns):
    counts = ns["labelled_counts_121"].tolist()
    n, x = ns["n_messages_121"].tolist(), ns["message_121"].tolist()
    right = _tie_prior(counts, x)
    return (
        "prior_half",
        right,
        {
            "that is the prior of ham at the tie": 1 - right,
            "that is r_spam at the labelled share 3/5": _posterior_spam(counts, n, x)[0],
            "a repeated word counts once per occurrence": _tie_prior(counts, x, presence=True),
            "the smoothing is missing": _tie_prior(counts, x, alpha=0.0),
        },
    )


def _theta(labelled, unlabelled, weights, word, alpha=1.0):
    counts = [
        labelled[d] + sum(w * row[d] for w, row in zip(weights, unlabelled, strict=True))
        for d in range(3)
    ]
    return (counts[word] + alpha) / (sum(counts) + 3 * alpha)


def _ex122(ns):
    labelled = ns["spam_counts_122"].tolist()
    unlabelled = ns["unlabelled_122"].tolist()
    r, lam, word = ns["r_spam_122"].tolist(), ns["lambda_122"], ns["word_122"]
    return (
        "theta_spam_word",
        _theta(labelled, unlabelled, [lam * q for q in r], word),
        {
            "lambda is missing": _theta(labelled, unlabelled, r, word),
            "that is a hard assignment": _theta(
                labelled, unlabelled, [lam * (q > 0.5) for q in r], word
            ),
            "that uses the responsibilities of ham": _theta(
                labelled, unlabelled, [lam * (1 - q) for q in r], word
            ),
            "the labelled counts are missing": _theta(
                [0, 0, 0], unlabelled, [lam * q for q in r], word
            ),
            "the smoothing is missing": _theta(
                labelled, unlabelled, [lam * q for q in r], word, alpha=0.0
            ),
        },
    )


def _ex123(ns):
    (n_ham, n_spam), r, lam = (
        ns["n_labelled_123"].tolist(),
        ns["r_spam_123"].tolist(),
        ns["lambda_123"],
    )
    return (
        "prior_spam",
        (n_spam + lam * sum(r)) / (n_ham + n_spam + lam * len(r)),
        {
            "the denominator counts each unlabelled message once": (n_spam + lam * sum(r))
            / (n_ham + n_spam + len(r)),
            "lambda is missing": (n_spam + sum(r)) / (n_ham + n_spam + len(r)),
            "that is the labelled share only": n_spam / (n_ham + n_spam),
            "that is a hard assignment": (n_spam + lam * sum(q > 0.5 for q in r))
            / (n_ham + n_spam + lam * len(r)),
            "that is the mean responsibility": sum(r) / len(r),
        },
    )


def _ex124(ns, start_prior=None, keep_prior=False, weight=None, hard=False, alpha_in_l=True):
    """l after one EM iteration from (the labelled fit's theta, a class prior), by plain loops.

    ``start_prior`` defaults to the exercise's prior_124; ``weight`` replaces lambda in the
    M-step; ``hard`` gives each message wholly to its likelier class; ``keep_prior`` leaves the
    class prior where it started; ``alpha_in_l=False`` leaves the log prior out of l."""
    X, y, lam, alpha = ns["X_124"].tolist(), ns["y_124"].tolist(), ns["lambda_124"], ns["alpha_124"]
    labelled = [i for i in range(len(y)) if y[i] != -1]
    unlabelled = [i for i in range(len(y)) if y[i] == -1]
    if start_prior is None:
        start_prior = [float(p) for p in ns["prior_124"]]
    weight = lam if weight is None else weight
    # the labelled fit's theta: counts of the labelled messages, smoothed
    theta = []
    for c in (0, 1):
        counts = [sum(X[i][d] for i in labelled if y[i] == c) for d in range(3)]
        theta.append([(counts[d] + alpha) / (sum(counts) + 3 * alpha) for d in range(3)])

    def b(i, c, prior, theta):
        return math.log(prior[c]) + sum(X[i][d] * math.log(theta[c][d]) for d in range(3))

    def ell(prior, theta, with_alpha=True):
        value = sum(b(i, y[i], prior, theta) for i in labelled)
        value += lam * sum(
            math.log(sum(math.exp(b(i, c, prior, theta)) for c in (0, 1))) for i in unlabelled
        )
        if with_alpha:
            value += alpha * sum(math.log(t) for row in theta for t in row)
        return value

    # E-step
    r = {}
    for i in unlabelled:
        joint = [math.exp(b(i, c, start_prior, theta)) for c in (0, 1)]
        r[i] = [j / sum(joint) for j in joint]
        if hard:
            r[i] = [float(r[i][c] == max(r[i])) for c in (0, 1)]
    # M-step
    new_theta, class_weight = [], []
    for c in (0, 1):
        counts = [
            sum(X[i][d] for i in labelled if y[i] == c)
            + sum(weight * r[i][c] * X[i][d] for i in unlabelled)
            for d in range(3)
        ]
        new_theta.append([(counts[d] + alpha) / (sum(counts) + 3 * alpha) for d in range(3)])
        class_weight.append(
            sum(y[i] == c for i in labelled) + weight * sum(r[i][c] for i in unlabelled)
        )
    new_prior = start_prior if keep_prior else [w / sum(class_weight) for w in class_weight]
    before = ell([float(p) for p in ns["prior_124"]], theta)
    fit_prior = [sum(y[i] == c for i in labelled) / len(labelled) for c in (0, 1)]
    right = ell(new_prior, new_theta, with_alpha=alpha_in_l)
    if (start_prior, keep_prior, weight, hard, alpha_in_l) != (
        [float(p) for p in ns["prior_124"]],
        False,
        lam,
        False,
        True,
    ):
        return "objective_after", right, {}
    return (
        "objective_after",
        right,
        {
            "that is l at the parameters you started from": before,
            "re-estimates the class prior as well": _ex124(ns, keep_prior=True)[1],
            "starts from the labelled fit's own prior": _ex124(ns, start_prior=fit_prior)[1],
            "lambda is missing from the M-step": _ex124(ns, weight=1.0)[1],
            "that is a hard assignment": _ex124(ns, hard=True)[1],
            "the log prior alpha * sum log theta_cd is missing": _ex124(ns, alpha_in_l=False)[1],
        },
    )


EXERCISES = {"12.1": _ex121, "12.2": _ex122, "12.3": _ex123, "12.4": _ex124}


def _answer(make, which):
    def answer(ns):
        name, right, mistakes = make(ns)
        return name, right if which is None else mistakes[which]

    return answer


@pytest.mark.parametrize(("exercise", "make"), list(EXERCISES.items()), ids=list(EXERCISES))
def test_solution_and_right_answer_are_correct_in_every_variant(exercise, make):
    for seed in SEEDS:
        assert "correct" in _run(exercise, seed, None).split(":")[1], seed
        verdict = _run(exercise, seed, _answer(make, None))
        assert f"Exercise {exercise}: correct" in verdict, (seed, verdict)


@pytest.mark.parametrize(("exercise", "make"), list(EXERCISES.items()), ids=list(EXERCISES))
def test_every_mistake_gets_its_hint_in_the_book_and_the_variants(exercise, make):
    namespace = _namespace()
    exec(_cells(exercise)["data"][0], namespace)  # noqa: S102
    hints = make(namespace)[2]
    for seed in SEEDS:
        for fragment in hints:
            verdict = _run(exercise, seed, _answer(make, fragment))
            assert "not yet" in verdict and fragment in verdict, (seed, fragment, verdict)


def test_12_1_variants_keep_every_answer_apart():
    """In the first thousand per-student streams, no two of the answer and its slips coincide
    (so each slip gets its own hint, and the check never refuses to run)."""
    for seed in range(1000):
        namespace = _namespace()
        exercises.use_variant(seed)
        try:
            exec(_cells("12.1")["data"][0], namespace)  # noqa: S102
        finally:
            exercises.use_variant(None)
        _, right, mistakes = _ex121(namespace)
        values = [right, *mistakes.values()]
        for i, u in enumerate(values):
            for v in values[i + 1 :]:
                assert not math.isclose(u, v, rel_tol=1e-4), (seed, values)


def test_12_1_generator_rejects_a_tie_and_coinciding_slips():
    """Variants the generator must refuse: a tie prior of 1/2 exactly (1 - pi is the answer),
    a repeated word with the same probability in both classes (counting it once changes
    nothing), and an answer too close to the labelled share 3/5 for a clear prediction."""
    namespace = _namespace()
    exec(_cells("12.1")["data"][0], namespace)  # noqa: S102
    apart = namespace["_answers_apart_121"]
    assert not apart(np.array([[2, 6, 1], [1, 6, 2]]), np.array([1, 0, 1]))
    assert not apart(np.array([[1, 4, 3], [1, 5, 2]]), np.array([2, 0, 1]))
    assert not apart(np.array([[1, 1, 1], [1, 5, 1]]), np.array([2, 1, 0]))  # 0.607
    assert apart(np.array([[4, 1, 3], [1, 5, 2]]), np.array([2, 1, 0]))


def test_variants_differ_from_the_book_and_between_students():
    for exercise, make in EXERCISES.items():
        answers = set()
        for seed in SEEDS[:20]:
            namespace = _namespace()
            exercises.use_variant(seed)
            try:
                exec(_cells(exercise)["data"][0], namespace)  # noqa: S102
            finally:
                exercises.use_variant(None)
            answers.add(round(float(make(namespace)[1]), 9))
        assert len(answers) > 5, exercise


def test_12_4_is_not_one_call_of_semisupervisednb_and_l_does_not_fall():
    """No objective that SemiSupervisedNB reports is the graded value: one iteration from the
    labelled fit with its own prior, or with prior_124 held fixed as the wrapped model's
    class_prior (it stays fixed in the M-step), gets a hint.
    And the graded value is at least l at the starting parameters (EM's monotonicity from
    parameters it never visits)."""
    for seed in SEEDS[:10]:
        namespace = _namespace()
        exercises.use_variant(seed)
        try:
            exec(_cells("12.4")["data"][0], namespace)  # noqa: S102
        finally:
            exercises.use_variant(None)
        _, right, mistakes = _ex124(namespace)
        before = mistakes["that is l at the parameters you started from"]
        assert right >= before - 1e-12 * abs(right)
        for prior, fragment in [
            (None, "own prior"),
            (namespace["prior_124"], "re-estimates the class prior"),
        ]:
            model = nbcore.SemiSupervisedNB(
                nbcore.MultinomialNB(alpha=namespace["alpha_124"], class_prior=prior),
                lambda_=namespace["lambda_124"],
                max_iter=1,
                tol=0,
            ).fit(namespace["X_124"], namespace["y_124"])
            verdict = _run(
                "12.4", seed, lambda ns, m=model: ("objective_after", m.log_likelihood_[1])
            )
            assert "not yet" in verdict and fragment in verdict, (seed, verdict)
