"""Every hint of the exercises of chapters 4 to 6 can fire, in the book and in a variant.

Each chapter is run once in this process (an IPython shell, as a kernel would run it). Every
check the chapter makes is recorded with its expected value and the wrong answers its
mistakes compute. Then each wrong answer is fed back to the same check: it must get its own
hint (not "correct", not another mistake's hint), and the expected value must get "correct".
The same is done after the exercises are run again on a student's variant (data, solution
and check cells, in that order, as the grader does), so that a hint that only fires on the
book's numbers, or a variant whose mistakes coincide with the answer, is caught. Finally the
self-checks of a student's own copy (made with a roster and a secret, so on that student's
variant) are given the same wrong answers: each must print its hint there too.
"""

import contextlib
import io
import itertools
import math
from pathlib import Path

import jupytext
import numpy as np
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from nbcore import exercises
from nbcore.classroom.student import make_student_copies
from nbcore.classroom.variants import student_seed

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTERS = ["04_smoothing", "05_height_weight", "06_weather"]
SECRET = b"a course secret of the hint tests, long enough"
STUDENT = "ana"
VARIANT_SEEDS = [student_seed(SECRET, STUDENT), 7]


def _source(cell):
    # no magics outside a kernel: the set-up cell's %matplotlib line is the only one
    return "\n".join(line for line in cell.source.splitlines() if not line.startswith("%"))


def _run(shell, cell):
    result = shell.run_cell(_source(cell), silent=True)
    if not result.success:
        raise AssertionError(f"cell failed:\n{cell.source[:400]}") from (
            result.error_in_exec or result.error_before_exec
        )


@contextlib.contextmanager
def _recording(records):
    """Collect (exercise, kind, points, expected, mistakes, rtol, atol, line) of each check."""
    original = exercises._record

    def record(exercise, kind, points, expected, mistakes, rtol, atol, line, info):
        records.append(
            {
                "exercise": exercise,
                "kind": kind,
                "points": points,
                "expected": expected,
                "mistakes": list(mistakes),
                "rtol": rtol,
                "atol": atol,
                "line": line,
            }
        )

    exercises._record = record
    try:
        yield records
    finally:
        exercises._record = original


def _exercise_cells(nb):
    """{exercise: [data, solution and check cells, in order]}."""
    cells = {}
    for cell in nb.cells:
        exercise = cell.metadata.get("exercise")
        if cell.cell_type == "code" and exercise:
            cells.setdefault(exercise, []).append(cell)
    return cells


@pytest.fixture(scope="module", params=CHAPTERS)
def chapter_records(request):
    """The checks of one chapter: {"book": [...], seed: [...]} for each variant seed."""
    import matplotlib

    matplotlib.use("Agg")
    nb = jupytext.read(BOOK / f"{request.param}.md")
    shell = InteractiveShell.instance()
    shell.reset(new_session=True)
    runs = {}
    try:
        exercises.use_variant(None)
        with _recording(runs.setdefault("book", [])):
            for cell in nb.cells:
                tags = cell.metadata.get("tags", [])
                if cell.cell_type == "code" and "nbval-ignore-output" not in tags:
                    _run(shell, cell)
        for seed in VARIANT_SEEDS:
            exercises.use_variant(seed)
            with _recording(runs.setdefault(seed, [])):
                for cells in _exercise_cells(nb).values():
                    for cell in cells:
                        _run(shell, cell)
    finally:
        exercises.use_variant(None)
        shell.reset(new_session=True)
    return request.param, runs


def _verdict(record, answer):
    check = getattr(exercises, f"check_{record['kind']}")
    kwargs = {"points": record["points"], "mistakes": dict(record["mistakes"])}
    if record["kind"] != "label":
        kwargs.update(rtol=record["rtol"], atol=record["atol"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        check(record["exercise"], answer, record["expected"], **kwargs)
    return out.getvalue().strip()


def test_every_check_of_the_chapter_is_recorded(chapter_records):
    slug, runs = chapter_records
    number = slug[:2].lstrip("0")
    found = {r["exercise"] for r in runs["book"] if r["exercise"].startswith(number + ".")}
    assert len(found) >= 3, f"{slug}: checks found {sorted(found)}"
    for seed in VARIANT_SEEDS:
        assert {r["exercise"] for r in runs[seed]} == found


def test_the_solutions_are_correct_in_the_book_and_in_variants(chapter_records):
    _, runs = chapter_records
    for run, records in runs.items():
        for record in records:
            assert ": correct (" in record["line"], (run, record["line"])


def test_each_hint_fires_on_its_own_mistake(chapter_records):
    slug, runs = chapter_records
    for run, records in runs.items():
        for record in records:
            assert record["mistakes"], f"{slug} {record['exercise']}: no mistakes to hint at"
            right = _verdict(record, record["expected"])
            assert ": correct (" in right, (run, right)
            for hint, wrong in record["mistakes"]:
                line = _verdict(record, wrong)
                assert line.endswith("hint: " + " ".join(hint.split())), (
                    f"{slug} {record['exercise']} ({run}): the mistake of {hint!r} got {line!r}"
                )


def test_variants_change_the_numbers(chapter_records):
    """Each exercise with a data cell grades a variant on numbers of its own."""
    slug, runs = chapter_records
    nb = jupytext.read(BOOK / f"{slug}.md")
    with_data = {
        e
        for e, cells in _exercise_cells(nb).items()
        if any(c.metadata.get("role") == "data" for c in cells)
    }
    checked = {r["exercise"] for r in runs["book"]}
    assert with_data == checked, f"{slug}: exercises without a data cell: {checked - with_data}"
    book = {r["exercise"]: np.asarray(r["expected"], dtype=float) for r in runs["book"]}
    for exercise in sorted(with_data):
        assert any(
            # a variant may have another shape (more classes) than the book: different too
            np.shape(r["expected"]) != book[exercise].shape
            or not np.allclose(np.asarray(r["expected"], dtype=float), book[exercise])
            for seed in VARIANT_SEEDS
            for r in runs[seed]
            if r["exercise"] == exercise
        ), f"{slug} {exercise}: the variants grade the book's value"


def _self_check_cells(copy):
    """{exercise: the source of its self-check cell} of a student copy."""
    import nbformat

    nb = nbformat.read(copy, as_version=4)
    return {
        c.metadata["exercise"]: c.source
        for c in nb.cells
        if c.cell_type == "code" and c.metadata.get("role") == "check"
    }


def test_the_student_copy_hints_each_mistake(chapter_records, tmp_path):
    """A student's copy holds fingerprints only; each wrong answer that is not a single number
    still gets its hint there."""
    import ast

    slug, runs = chapter_records
    roster = tmp_path / "roster.csv"
    roster.write_text(f"student\n{STUDENT}\n")
    make_student_copies(
        [BOOK / f"{slug}.ipynb"],
        tmp_path / "copies",
        roster=roster,
        secret=SECRET,
        log=lambda *a, **k: None,
    )
    checks = _self_check_cells(tmp_path / "copies" / STUDENT / f"{slug}.ipynb")
    records = {r["exercise"]: r for r in runs[VARIANT_SEEDS[0]]}
    assert set(checks) == set(records)
    for exercise, source in checks.items():
        call = ast.parse(source).body[0].value
        name = call.args[1].body.id  # lambda: NAME
        record = records[exercise]

        def run(answer, source=source, name=name):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(source, {"exercises": exercises, name: answer})
            return out.getvalue().strip()

        assert "looks plausible" in run(record["expected"]), exercise
        # an answer with few possible values at its precision (a single number, a pair of
        # probabilities) is enumerable: its copy carries no mistake fingerprints, which would
        # give the answer away to a search, and a wrong answer is only "plausible" there
        enumerable = "mistakes=" not in source
        for hint, wrong in record["mistakes"]:
            if enumerable:
                # no fingerprint to name the mistake; the form checks may still catch it
                verdict = run(wrong)
                assert "looks plausible" in verdict or "not yet" in verdict, (slug, exercise)
            else:
                assert run(wrong).endswith("hint: " + " ".join(hint.split())), (
                    slug,
                    exercise,
                    hint,
                )


def test_6_4_the_odds_factor_is_the_likelihood_ratio_whatever_the_outlook():
    """For every pair and smoothing a student may get, the answer computed by hand from the
    weather table (counts of the second feature's value in each class, smoothed by alpha with
    alpha K_d added to each total) is correct and does not depend on the outlook; the odds
    after both features, the unsmoothed ratio and the total grown by alpha once are refused
    with their hints."""
    from fractions import Fraction

    from test_exercises_text_numerics import Chapter

    ch = Chapter("06_weather")
    weather = ch.ns["weather"]
    yes, no = weather[weather["play"] == "yes"], weather[weather["play"] == "no"]
    seconds = [("windy", True), ("windy", False), ("humidity", "high"), ("humidity", "normal")]
    seconds += [("temperature", "hot"), ("temperature", "mild"), ("temperature", "cool")]

    def theta(days, feature, value, alpha, added):
        return (int((days[feature] == value).sum()) + alpha) / (len(days) + added)

    for alpha in (Fraction(0), Fraction(3, 2), Fraction(4)):
        for outlook in ("sunny", "overcast", "rainy") if alpha else ("sunny", "rainy"):
            for feature, value in seconds:
                known = {"outlook": outlook, feature: value}
                names = {"known_64": known, "alpha_64": float(alpha)}
                k = weather[feature].nunique()
                ratio = theta(yes, feature, value, alpha, alpha * k) / theta(
                    no, feature, value, alpha, alpha * k
                )
                assert ": correct (" in ch.verdict("6.4", float(ratio), **names)
                k_outlook = weather["outlook"].nunique()
                odds = (
                    Fraction(len(yes), len(no))
                    * theta(yes, "outlook", outlook, alpha, alpha * k_outlook)
                    / theta(no, "outlook", outlook, alpha, alpha * k_outlook)
                    * ratio
                )
                line = ch.verdict("6.4", float(odds), **names)
                assert "odds once both are known" in line, (known, line)
                if alpha:
                    plain = theta(yes, feature, value, 0, 0) / theta(no, feature, value, 0, 0)
                    line = ch.verdict("6.4", float(plain), **names)
                    assert "ratio of the unsmoothed tables" in line, (known, alpha, line)
                    once = theta(yes, feature, value, alpha, alpha) / theta(
                        no, feature, value, alpha, alpha
                    )
                    line = ch.verdict("6.4", float(once), **names)
                    assert "only once" in line, (known, alpha, line)
    exercises.use_variant(None)


def test_6_4_variants_grade_no_printed_ratio_and_every_hint_fires(weather_chapter):
    """No student's answer is one of the likelihood ratios the chapter prints for the test
    day, nor the book's answer; every hint fires; sixty students get many answers."""
    from test_exercises_text_numerics import assert_every_hint_fires

    ch = weather_chapter
    printed = [float(v) for v in ch.ns["odds_factors"].values()]
    answers = set()
    try:
        ch.redraw(None)
        book = float(ch.answer("6.4"))
        assert_every_hint_fires(ch, "6.4")
        for seed in range(60):
            ch.redraw(seed)
            answer = float(ch.answer("6.4"))
            assert all(abs(answer - v) > 1e-9 for v in [*printed, book]), (seed, answer)
            assert_every_hint_fires(ch, "6.4")
            assert len(ch.mistakes("6.4")) >= 6, seed
            answers.add(round(answer, 6))
    finally:
        ch.redraw(None)
    assert len(answers) > 20, len(answers)


def test_4_1_and_4_2_answers_derived_by_hand_in_many_variants():
    """4.1: the alpha that gives the reported estimate, solved from (N_cd + a) / (N_c + 2a) in
    exact arithmetic; 4.2: a = N / 2, from the posterior mean's weight on the data. For the
    book and 60 variants each is correct and each mistake gets its own hint."""
    from fractions import Fraction

    from test_exercises_text_numerics import Chapter

    ch = Chapter("04_smoothing")
    seen_alphas, seen_a = set(), set()
    try:
        for seed in [None, *range(60)]:
            ch.redraw(seed)
            report = ch.ns["windy_report"]
            theta = Fraction(report["reported"]).limit_denominator(10**6)
            n_cd, n_c, n = report["windy_no"], report["days_no"], report["days"]
            alpha = (n_cd - theta * n_c) / (2 * theta - 1)
            assert alpha > 0 and (n_cd + alpha) / (n_c + 2 * alpha) == theta
            seen_alphas.add(alpha)
            assert ": correct (" in ch.verdict("4.1", float(alpha)), seed
            wrong = {
                "grows by 2 alpha": (n_cd - theta * n_c) / (theta - 1),
                "not by all the days": (n_cd - theta * n) / (2 * theta - 1),
                "check the sign": -alpha,
            }
            for hint, value in wrong.items():
                assert hint in ch.verdict("4.1", float(value)), (seed, hint)
            counts = ch.ns["play_counts"]
            total, yes = int(counts.sum()), int(counts[1])
            a = Fraction(total, 2)
            mle, mean = Fraction(yes, total), (yes + a) / (total + 2 * a)
            assert mean - mle == Fraction(1, 2) - mean  # halfway
            seen_a.add(a)
            assert ": correct (" in ch.verdict("4.2", float(a)), seed
            assert "weighs as much" in ch.verdict("4.2", float(total)), seed
            assert "posterior mean itself" in ch.verdict("4.2", float(mean)), seed
    finally:
        exercises.use_variant(None)
    assert {0.25, 0.5, 2, 3, 5} <= {float(x) for x in seen_alphas}
    assert len(seen_a) > 5


def _fires_or_coincides(verdict, hint, value, others, rtol):
    """A wrong answer gets its hint, unless it equals the answer or an earlier slip (the check
    then drops that slip for this variant). Returns whether the hint fired."""
    if hint in verdict:
        return True
    assert any(np.allclose(value, o, rtol=rtol) for o in others), (hint, verdict)
    return False


def test_4_3_to_4_5_answers_derived_independently_in_many_variants():
    """4.3: alpha and D solved numerically from the two reported estimates; 4.4: the
    integrals of 3 theta^2 (1 - theta) and of (1 - theta)^3 over the Beta posterior, by
    quadrature; 4.5: the Dirichlet mode found by a constrained optimiser. For the book and 60
    variants each answer is correct, each slip gets its own hint (or coincides, for that
    variant, with another value), every hint fires in most variants, and the answers differ
    from student to student."""
    from scipy import integrate, optimize, stats
    from test_exercises_text_numerics import Chapter

    ch = Chapter("04_smoothing")
    answers = {"4.3": set(), "4.4": set(), "4.5": set()}
    fired = {}
    seeds = [None, *range(60)]
    try:
        for seed in seeds:
            ch.redraw(seed)
            # 4.3: theta = (count + alpha) / (tokens + D alpha), two words, alpha and D unknown
            rep = ch.ns["vocab_report"]
            ratio = rep["theta_word"] / rep["theta_unseen"]
            alpha = optimize.brentq(
                lambda a, k, r: (k + a) / a - r, 1e-6, 1e6, args=(rep["k_word"], ratio), xtol=1e-14
            )
            vocab = optimize.brentq(
                lambda d, al, m, t0: al / (m + d * al) - t0,
                0,
                1e9,
                args=(alpha, rep["tokens"], rep["theta_unseen"]),
                xtol=1e-9,
            )
            assert abs(vocab - round(vocab)) < 1e-4  # a vocabulary has a whole number of words
            assert ": correct (" in ch.verdict("4.3", float(vocab)), seed
            answers["4.3"].add(round(vocab))
            slips = {
                "need not be 1": 1 / rep["theta_unseen"] - rep["tokens"],
                "dividing the tokens by alpha": alpha * vocab,
                "not its documents": 1 / rep["theta_unseen"] - rep["documents"] / alpha,
                "as well as the D alpha": 1 / rep["theta_unseen"],
            }
            seen = [vocab]
            for hint, value in slips.items():
                got = _fires_or_coincides(ch.verdict("4.3", float(value)), hint, value, seen, 1e-5)
                fired[("4.3", hint)] = fired.get(("4.3", hint), 0) + got
                seen.append(value)
            # 4.4: P(exactly two of three on | at least one on), each a Beta integral:
            # integral of 3 t^2 (1 - t) Beta(t | a, b) dt over 1 - integral of (1 - t)^3 ...
            px = ch.ns["pixel_counts"]
            a = px["on"] + px["alpha"]
            b = px["records"] - px["on"] + px["alpha"]

            def moment(f, a=a, b=b):
                value, _ = integrate.quad(
                    lambda t: f(t) * stats.beta.pdf(t, a, b), 0, 1, epsabs=1e-14, epsrel=1e-12
                )
                return value

            two = moment(lambda t: 3 * t**2 * (1 - t))
            none = moment(lambda t: (1 - t) ** 3)
            three = moment(lambda t: t**3)
            exact = two / (1 - none)
            assert ": correct (" in ch.verdict("4.4", exact), seed
            answers["4.4"].add(round(exact, 8))
            p = a / (a + b)
            mle = px["on"] / px["records"]
            assert 2 * px["on"] != px["records"], seed  # else the MLE slip is the plug-in's
            assert not np.isclose(
                3 * p**2 * (1 - p) / (1 - (1 - p) ** 3),
                3 * mle**2 * (1 - mle) / (1 - (1 - mle) ** 3),
                rtol=1e-5,
            ), seed  # nor another frequency with the same value of that slip
            slips = {
                "before you are told": two,
                "independent given the plug-in": 3 * p**2 * (1 - p) / (1 - (1 - p) ** 3),
                "P(none on) is not": two / (1 - (1 - p) ** 3),
                "conditions on the first image": two * 2 / 3 / p,  # E[2 t^2 (1 - t)] / E[t]
                "one order of the three": exact / 3,
                "that counts three images on": (two + three) / (1 - none),
                "unsmoothed frequency": 3 * mle**2 * (1 - mle) / (1 - (1 - mle) ** 3),
            }
            seen = [exact]
            for hint, value in slips.items():
                got = _fires_or_coincides(ch.verdict("4.4", value), hint, value, seen, 1e-5)
                fired[("4.4", hint)] = fired.get(("4.4", hint), 0) + got
                seen.append(value)
            # 4.5: maximise sum_c (N_c + beta - 1) log pi_c on the simplex, numerically
            data = ch.ns["map_data"]
            n, beta = np.asarray(data["counts"], dtype=float), data["beta"]
            result = optimize.minimize(
                lambda pi, n, beta: -np.sum((n + beta - 1) * np.log(pi)),
                np.full(len(n), 1 / len(n)),
                args=(n, beta),
                method="SLSQP",
                bounds=[(1e-9, 1)] * len(n),
                constraints=[{"type": "eq", "fun": lambda pi: pi.sum() - 1}],
                options={"ftol": 1e-15, "maxiter": 500},
            )
            assert result.success, seed
            mode = result.x / result.x.sum()
            right = ch.answer("4.5")
            np.testing.assert_allclose(right, mode, rtol=1e-5)
            assert ": correct (" in ch.verdict("4.5", right), seed
            answers["4.5"].add(tuple(np.round(right, 6)))
            slips = {
                "that is the posterior mean": (n + beta) / (n.sum() + len(n) * beta),
                "maximum-likelihood": n / n.sum(),
                "the Beta MAP of two outcomes": (n + beta - 1) / (n.sum() + 2 * (beta - 1)),
                "wrong order": right[::-1],
            }
            seen = [right]
            for hint, value in slips.items():
                got = _fires_or_coincides(ch.verdict("4.5", value), hint, value, seen, 1e-4)
                fired[("4.5", hint)] = fired.get(("4.5", hint), 0) + got
                seen.append(value)
            assert len(n) >= 3 or seed is None, seed  # C = 2 would hide the C (beta - 1)
    finally:
        exercises.use_variant(None)
    for key, count in fired.items():
        assert count >= len(seeds) // 2, (key, count)
    for exercise, distinct in answers.items():
        assert len(distinct) > 40, (exercise, len(distinct))


def test_4_3_and_4_4_slips_that_differ_get_their_own_hint_in_300_variants():
    """Two slips that differ by more than the check's tolerance are both kept. 4.3: a student
    who put documents for tokens gets that hint, also where it was within 1e-3 of the alpha = 1
    slip (variants 43, 152 and 280, with alpha = 0.01); 4.4: the unsmoothed frequency gets its
    hint, so no variant has N_cd = N_c / 2 (where the MLE is the plug-in posterior mean) or a
    frequency whose slip equals the plug-in's (2 of 3 with alpha = 1: 0.6 and 2/3 both give
    6/13)."""
    from test_exercises_text_numerics import Chapter

    ch = Chapter("04_smoothing")
    try:
        for seed in range(300):
            ch.redraw(seed)
            rep = ch.ns["vocab_report"]
            ratio = rep["theta_word"] / rep["theta_unseen"]
            alpha = rep["k_word"] / (ratio - 1)
            documents_slip = 1 / rep["theta_unseen"] - rep["documents"] / alpha
            verdict = ch.verdict("4.3", documents_slip)
            assert "not its documents" in verdict, (seed, verdict)
            px = ch.ns["pixel_counts"]
            mle = px["on"] / px["records"]
            mle_slip = 3 * mle**2 * (1 - mle) / (1 - (1 - mle) ** 3)
            verdict = ch.verdict("4.4", mle_slip)
            assert "unsmoothed frequency" in verdict, (seed, verdict)
    finally:
        exercises.use_variant(None)


def _weight_5_1(weights):
    """The heavier weight that leaves the 1/N standard deviation unchanged, found without the
    closed form: the 1/N variance of the four, minus that of the three, as a function of the
    new weight, is a quadratic; solve it from three of its values."""
    from fractions import Fraction

    three = [Fraction(w) for w in weights]

    def variance(values):
        mean = sum(values) / len(values)
        return sum((v - mean) ** 2 for v in values) / len(values)

    def gap(w):
        return variance([*three, Fraction(w)]) - variance(three)

    g0, g1, g2 = gap(0), gap(1), gap(2)  # g(w) = a w^2 + b w + c
    a = (g2 - 2 * g1 + g0) / 2
    b = g1 - g0 - a
    c = g0
    return (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a), (-b - math.sqrt(b * b - 4 * a * c)) / (
        2 * a
    )


def test_5_1_the_weight_that_keeps_the_sd_and_the_stated_tolerance():
    """For the book and several students: the answer, found from the variances without the
    closed form, is correct and keeps np.std unchanged; the lighter root, a weight one sigma
    away, the 1/(N - 1) answer and a weight rounded to the pound are refused with their
    hints; and the task's claims about the tolerance hold for every variant (weights under
    two hundred pounds, slips at least a pound apart)."""
    from test_exercises_text_numerics import Chapter

    ch = Chapter("05_height_weight")
    for seed in [None, 1, 7, 2024, 987654321]:
        ch.redraw(seed)
        weights = ch.ns["weights_f"]
        heavier, lighter = _weight_5_1(weights)
        assert np.std([*weights, heavier]) == pytest.approx(np.std(weights), rel=1e-12)
        assert ": correct (2 points)" in ch.verdict("5.1", heavier)
        assert ": correct (" in ch.verdict("5.1", round(heavier, 2))
        # the tolerance the task states: |a - w| <= 1e-4 max(a, w), on either side
        for side in (1, -1):
            assert ": correct (" in ch.verdict("5.1", heavier * (1 + side * 0.99e-4))
            assert "not yet" in ch.verdict("5.1", heavier * (1 + side * 1.01e-4))
        assert "do not round" in ch.verdict("5.1", float(round(heavier)))
        assert "lighter of the two" in ch.verdict("5.1", lighter)
        mean, sd = float(np.mean(weights)), float(np.std(weights))
        assert "account for the new mean" in ch.verdict("5.1", mean + sd)
        unbiased = mean + np.sqrt(4 / 3) * float(np.std(weights, ddof=1))
        assert "1/(N_c - 1) standard deviation" in ch.verdict("5.1", unbiased)
        murphy = "Murphy's notes" in ch.verdict("5.1", mean + np.sqrt(4 / 3) * 18.67)
        assert murphy == (seed is None)
    exercises.use_variant(None)
    # every triple the data cell can draw: integers 100 to 180 with a spread of twenty or more
    grid = np.array(list(itertools.product(range(100, 181), repeat=3)), dtype=float)
    grid = grid[grid.max(axis=1) - grid.min(axis=1) >= 20]
    mean, sd, s = grid.mean(axis=1), grid.std(axis=1), grid.std(axis=1, ddof=1)
    k = np.sqrt(4 / 3)
    answer = mean + k * sd
    assert answer.max() < 200  # 1e-4 of it is under two hundredths of a pound
    values = np.stack([answer, mean + k * s, mean + sd, mean + sd / k, mean - k * sd], axis=1)
    gaps = np.abs(values[:, :, None] - values[:, None, :])
    gaps[:, np.arange(5), np.arange(5)] = np.inf
    assert gaps.min() >= 1.0  # a pound apart, fifty times the tolerance
    nearest = np.abs(values[:, 1:] - answer[:, None]).min(axis=1) / sd
    assert np.allclose(nearest, k - 1)  # about 0.15 sigma


def _relative_gaps(values):
    """Smallest relative gap |a - b| / max(|a|, |b|) between any two of the values."""
    v = np.asarray(values, dtype=float)
    gaps = np.abs(v[:, None] - v[None, :]) / np.maximum(np.abs(v[:, None]), np.abs(v[None, :]))
    gaps[np.arange(len(v)), np.arange(len(v))] = np.inf
    return gaps.min()


def _height_weight_log_ratio(people, x, ddof=0, normalised=True):
    """log p(x | m) - log p(x | f) of Gaussian naive Bayes, from scipy's normal density."""
    from scipy import stats

    log_l = {}
    for c in ["m", "f"]:
        rows = people.loc[people.sex == c, ["height", "weight"]].to_numpy(dtype=float)
        mu, sd = rows.mean(axis=0), rows.std(axis=0, ddof=ddof)
        log_l[c] = float(
            np.sum(
                stats.norm.logpdf(x, mu, sd)
                + (0 if normalised else np.log(sd * np.sqrt(2 * np.pi)))
            )
        )
    return log_l["m"] - log_l["f"]


def _slips_5_2(people, x, p):
    """The prior that makes P(m | x) = p, and the seven slips the hints name."""
    sigmoid = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    logit, lr = np.log(p / (1 - p)), _height_weight_log_ratio(people, x)
    answer = sigmoid(logit - lr)
    return answer, [
        1 - answer,
        sigmoid(logit + lr),
        sigmoid(-lr),
        answer / (1 - answer),
        sigmoid(logit - _height_weight_log_ratio(people, x, ddof=1)),
        p,
        sigmoid(logit - _height_weight_log_ratio(people, x, normalised=False)),
    ]


def test_5_2_prior_found_by_bisection_and_every_hint_fires():
    """The prior that gives the target posterior, found by bisection on GaussianNB's own
    posterior (var_smoothing=0, and the default), is judged correct for the book and 12
    students, as is a prior carried to six significant digits; the stated tolerance holds on
    either side; every hint fires on its own wrong answer; the answers differ between
    students."""
    from test_exercises_text_numerics import Chapter, assert_every_hint_fires

    import nbcore

    ch = Chapter("05_height_weight")
    X, y = ch.ns["people"][["height", "weight"]], ch.ns["people"]["sex"]
    answers = set()
    try:
        for seed in [None, *range(12)]:
            ch.redraw(seed)
            x, target = ch.ns["x_52"], ch.ns["target_52"]
            for smoothing in (0, 1e-9):

                def gap(pi, x=x, target=target, smoothing=smoothing):
                    model = nbcore.GaussianNB(priors=[1 - pi, pi], var_smoothing=smoothing)
                    proba = model.fit(X, y).predict_proba(pd.DataFrame([x], columns=X.columns))
                    return proba[0, list(model.classes_).index("m")] - target

                prior = _bisect(gap, 1e-12, 1 - 1e-12)
                assert ": correct (2 points)" in ch.verdict("5.2", prior), (seed, smoothing)
            assert ": correct (" in ch.verdict("5.2", float(f"{prior:.6g}"))
            for side in (1, -1):
                assert ": correct (" in ch.verdict("5.2", prior * (1 + side * 0.99 * 5e-5))
                assert "not yet" in ch.verdict("5.2", prior * (1 + side * 1.01 * 5e-5))
            # the prediction the task asks for: this person leans f, so the prior lies above
            assert prior > target
            answers.add(round(prior, 6))
            assert_every_hint_fires(ch, "5.2")
            assert len(ch.mistakes("5.2")) == 7, seed
    finally:
        ch.redraw(None)
    assert len(answers) > 8


def test_5_2_every_variant_keeps_the_slips_a_third_of_a_percent_apart():
    """Over every person and target the data cell can draw (computed independently with
    scipy), and over 2000 students' variants as the check computes them, the answer and the
    seven slips lie at least a third of a percent apart, over sixty times the tolerance of
    5e-5 the task states."""
    from test_exercises_text_numerics import Chapter

    ch = Chapter("05_height_weight")
    people, draw = ch.ns["people"], ch.ns["exercise_person"]
    targets = [0.25, 0.3, 0.35, 0.4, 0.45]
    for h, w, p in itertools.product(range(58, 65), range(118, 143), targets):
        answer, slips = _slips_5_2(people, np.array([h, w], dtype=float), p)
        assert _relative_gaps([answer, *slips]) >= 1 / 300, (h, w, p)
    seen = set()
    try:
        for seed in range(2000):
            rng = np.random.default_rng(seed)
            x, p = draw(rng)
            assert 58 <= x[0] <= 64 and 118 <= x[1] <= 142 and p in targets
            seen.add((*x, p))
        for seed in range(0, 2000, 10):  # the check's own numbers, for 200 students
            ch.redraw(seed)
            expected = ch.answer("5.2")
            wrong = [value for _, value in ch.mistakes("5.2")]
            assert len(wrong) == 7
            assert _relative_gaps([expected, *wrong]) >= 1 / 300 > 60 * 5e-5, seed
    finally:
        ch.redraw(None)
    assert len(seen) > 300  # the variants cover most of the grid


def test_5_2_and_5_3_the_predictions_the_solutions_state():
    """5.2: for every person a copy can draw, the likelihoods favour f, so the prior of m that
    gives the target lies above it. 5.3: the new woman raises the shared variance exactly when
    N_f / (N_f + 1) d^2 exceeds the old S / N; in the book she raises it (331.6 to 341.5), and
    over 2000 students both outcomes occur, as the solution says."""
    from test_exercises_text_numerics import Chapter

    ch = Chapter("05_height_weight")
    people = ch.ns["people"]
    for h, w in itertools.product(range(58, 65), range(118, 143)):
        x = np.array([h, w], dtype=float)
        assert _height_weight_log_ratio(people, x) < 0, (h, w)
        for target in [0.25, 0.3, 0.35, 0.4, 0.45]:
            assert _slips_5_2(people, x, target)[0] > target, (h, w, target)
    outcomes = set()
    try:
        for seed in [None, *range(2000)]:
            ch.redraw(seed)
            survey, new_weight = ch.ns["survey_53"], ch.ns["new_weight_53"]
            n = survey["N_c"].astype(float)
            old = float(((n - 1) * survey["sd, 1/(N_c - 1)"] ** 2).sum() / n.sum())
            d = new_weight - survey.loc["f", "mean weight"]
            raises = n["f"] / (n["f"] + 1) * d**2 > old
            new = ch.answer("5.3")
            assert (new > old) == raises, seed
            outcomes.add(bool(raises))
            if seed is None:
                assert (round(old, 1), round(new, 1)) == (331.6, 341.5)
    finally:
        ch.redraw(None)
    assert outcomes == {True, False}


def _shared_variance_from_records(survey, new_weight, rng):
    """Make records with exactly the survey's counts, means and 1/(N_c - 1) sds, add the new
    woman, and average every record's squared deviation from its own class mean."""
    deviations = []
    for c in ["m", "f"]:
        n, mean, sd = survey.loc[c, ["N_c", "mean weight", "sd, 1/(N_c - 1)"]]
        z = rng.normal(size=int(n))
        z = (z - z.mean()) / z.std(ddof=1)
        records = mean + sd * z
        if c == "f":
            records = np.append(records, new_weight)
        deviations.append(records - records.mean())
    squares = np.concatenate(deviations) ** 2
    return squares.mean()


def test_5_3_answer_from_records_and_slips_apart_in_2000_variants():
    """For the book and 2000 students: the check's expected value is the shared
    maximum-likelihood variance of records built to have the survey's summary (the new woman
    added); every slip lies at least a tenth of a percent from it (twenty times the stated
    tolerance); each of the seven slips keeps its own value and its hint also names every slip
    within twice the tolerance of it. Where two slips are that close (in the variants of the
    loop and in two known ones, where the second slip once went unrecognised), each slip's own
    number gets a hint naming it. For the book and 12 students, each hint fires and an answer
    carried to six significant digits is correct."""
    from test_exercises_text_numerics import Chapter, assert_every_hint_fires, hint_of

    ch = Chapter("05_height_weight")
    rng = np.random.default_rng(0)
    answers, merged = set(), 0
    try:
        for seed in [None, *range(2000), 8802, 13778]:
            ch.redraw(seed)
            survey, new_weight = ch.ns["survey_53"], ch.ns["new_weight_53"]
            expected = ch.answer("5.3")
            assert expected == pytest.approx(
                _shared_variance_from_records(survey, new_weight, rng), rel=1e-12
            )
            pairs = ch.mistakes("5.3")
            wrong = [value for _, value in pairs]
            assert min(abs(v - expected) / max(v, expected) for v in wrong) >= 1e-3  # 20 x 5e-5
            names = [hint.split("; or ")[0] for hint, _ in pairs]
            assert len(set(names)) == 7, seed
            for i, j in itertools.permutations(range(7), 2):
                near = abs(wrong[i] - wrong[j]) <= 1e-4 * max(wrong[i], wrong[j])
                assert near == (names[j] in pairs[i][0].split("; or ")), seed
            if any("; or " in hint for hint, _ in pairs):
                merged += 1
                for (hint, value), name in zip(pairs, names, strict=True):
                    named = hint_of(ch.verdict("5.3", value)).split("; or ")
                    assert " ".join(name.split()) in named, (seed, name)
                    # and the hint itself can fire: at the slip, or just beyond it
                    fired = {
                        hint_of(ch.verdict("5.3", value * (1 + side * 0.9 * 5e-5)))
                        for side in (0, 1, -1)
                    }
                    assert " ".join(hint.split()) in fired, (seed, hint)
            answers.add(round(expected, 6))
            if seed is None or seed < 12:
                assert_every_hint_fires(ch, "5.3")
                assert ": correct (" in ch.verdict("5.3", float(f"{expected:.6g}"))
                for side in (1, -1):
                    assert ": correct (" in ch.verdict("5.3", expected * (1 + side * 0.99 * 5e-5))
                    assert "not yet" in ch.verdict("5.3", expected * (1 + side * 1.01 * 5e-5))
                line = ch.verdict("5.3", pairs[0][1])
                assert hint_of(line) == " ".join(pairs[0][0].split())
    finally:
        ch.redraw(None)
    assert len(answers) > 1500
    assert 2 <= merged < 100  # a shared hint is rare, but the two known variants have one


@pytest.fixture(scope="module")
def weather_chapter():
    from test_exercises_text_numerics import Chapter

    chapter = Chapter("06_weather")
    yield chapter
    exercises.use_variant(None)


def _bisect(f, low, high, steps=55):
    """The x in [low, high] where the increasing or decreasing f crosses zero."""
    f_low = f(low)
    for _ in range(steps):
        mid = (low + high) / 2
        if (f(mid) > 0) == (f_low > 0):
            low = mid
        else:
            high = mid
    return (low + high) / 2


WEATHER_SEEDS = [None, *range(12)]


def test_6_2_prior_found_by_bisection_and_every_hint_fires(weather_chapter):
    """The prior that gives the target posterior, found by bisection on the model's own
    posterior (CategoricalNB with that class prior), is judged correct for the book and 12
    students; every hint fires on its own wrong answer; the answers differ between students."""
    from test_exercises_text_numerics import assert_every_hint_fires

    import nbcore

    ch = weather_chapter
    X, y = ch.ns["X"], ch.ns["y"]
    answers = set()
    try:
        for seed in WEATHER_SEEDS:
            ch.redraw(seed)
            day, target = pd.DataFrame([ch.ns["day_62"]]), ch.ns["target_62"]

            def gap(pi, day=day, target=target):
                model = nbcore.CategoricalNB(alpha=1.0, class_prior=[1 - pi, pi]).fit(X, y)
                return model.predict_proba(day)[0, list(model.classes_).index("yes")] - target

            prior = _bisect(gap, 1e-12, 1 - 1e-12)
            assert ": correct (" in ch.verdict("6.2", prior), seed
            answers.add(round(prior, 6))
            assert_every_hint_fires(ch, "6.2")
            assert len(ch.mistakes("6.2")) >= 5, seed
    finally:
        ch.redraw(None)
    assert len(answers) > 8


def test_6_5_humidity_found_by_scanning_the_model_and_every_hint_fires(weather_chapter):
    """The lowest humidity at which MixedNB predicts "no", found by scanning its posterior
    and bisecting, is judged correct for the book and 12 students; the upper crossing gets
    its hint; every hint fires; the answers differ between students."""
    from test_exercises_text_numerics import assert_every_hint_fires

    ch = weather_chapter
    mixed, columns = ch.ns["mixed"], list(ch.ns["Xn"].columns)
    answers = set()
    try:
        for seed in WEATHER_SEEDS:
            ch.redraw(seed)
            day = ch.ns["day_65"]

            def p_no_minus_half(h, day=day):
                row = pd.DataFrame([{**day, "humidity": float(h)}])[columns]
                return mixed.predict_proba(row)[0, list(mixed.classes_).index("no")] - 0.5

            grid = np.arange(0.0, 250.0, 0.5)
            rows = pd.DataFrame([{**day, "humidity": h} for h in grid])[columns]
            signs = mixed.predict_proba(rows)[:, list(mixed.classes_).index("no")] > 0.5
            flips = np.flatnonzero(signs[1:] != signs[:-1])
            assert len(flips) == 2 and not signs[0], (seed, day)  # yes, then no, then yes
            lower = _bisect(p_no_minus_half, grid[flips[0]], grid[flips[0] + 1])
            upper = _bisect(p_no_minus_half, grid[flips[1]], grid[flips[1] + 1])
            assert ": correct (" in ch.verdict("6.5", lower), seed
            assert "upper root" in ch.verdict("6.5", upper), seed
            answers.add(round(lower, 4))
            assert_every_hint_fires(ch, "6.5")
            assert len(ch.mistakes("6.5")) >= 4, seed
    finally:
        ch.redraw(None)
    assert len(answers) > 8


def test_6_6_posterior_found_by_integrating_the_model_and_every_hint_fires(weather_chapter):
    """P(yes | outlook, humidity above h0), found by integrating the joint density of a
    model fitted without the unknown columns over h > h0 (trapezoid rule), is judged correct
    for the book and 12 students; the density at the threshold gets its hint; every hint
    fires; the answers differ between students."""
    from test_exercises_text_numerics import assert_every_hint_fires

    import nbcore

    ch = weather_chapter
    Xn, yn = ch.ns["Xn"], ch.ns["yn"]
    known = nbcore.MixedNB(alpha=0, var_smoothing=0).fit(Xn[["outlook", "humidity"]], yn)
    yes = list(known.classes_).index("yes")
    answers = set()
    try:
        for seed in WEATHER_SEEDS:
            ch.redraw(seed)
            forecast = ch.ns["forecast_66"]
            grid = np.linspace(forecast["humidity_above"], forecast["humidity_above"] + 150, 60001)
            days = pd.DataFrame({"outlook": forecast["outlook"], "humidity": grid})
            joint = np.exp(known.predict_joint_log_proba(days))
            mass = np.trapezoid(joint, grid, axis=0)
            p_yes = mass[yes] / mass.sum()
            assert ": correct (" in ch.verdict("6.6", p_yes), seed
            at_threshold = known.predict_proba(days.iloc[[0]])[0, yes]
            assert "density at the threshold" in ch.verdict("6.6", at_threshold), seed
            # a student who stops the interval at 100 % (humidity cannot exceed it) is told
            # that the model's Gaussian has no upper bound
            bounded = np.linspace(forecast["humidity_above"], 100, 60001)
            days = pd.DataFrame({"outlook": forecast["outlook"], "humidity": bounded})
            mass = np.trapezoid(np.exp(known.predict_joint_log_proba(days)), bounded, axis=0)
            assert "only up to a hundred" in ch.verdict("6.6", mass[yes] / mass.sum()), seed
            answers.add(round(p_yes, 6))
            assert_every_hint_fires(ch, "6.6")
            assert len(ch.mistakes("6.6")) >= 4, seed
    finally:
        ch.redraw(None)
    assert len(answers) > 8


def test_6_2_6_5_6_6_variants_have_many_distinct_answers(weather_chapter):
    """Over sixty students, the solutions of the re-posed exercises take many values, so a
    neighbour's number is no answer."""
    ch = weather_chapter
    answers = {"6.2": set(), "6.5": set(), "6.6": set()}
    try:
        for seed in range(60):
            ch.redraw(seed)
            for exercise, seen in answers.items():
                seen.add(round(float(ch.answer(exercise)), 6))
    finally:
        ch.redraw(None)
    assert {exercise: len(seen) > 30 for exercise, seen in answers.items()} == {
        "6.2": True,
        "6.5": True,
        "6.6": True,
    }, {exercise: len(seen) for exercise, seen in answers.items()}
