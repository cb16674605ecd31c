"""The text chapter's corpus, tokenizer, counts and explorer, checked at many settings.

Expected values come from independent computations: exact fractions from the counting
formulas on a three-message corpus, and scikit-learn's CountVectorizer, BernoulliNB and
MultinomialNB (test-only oracles) on the chapter's corpus.
"""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from nbcore.datasets import load_messages
from nbcore.widgets import text

TINY = pd.DataFrame(
    {
        "text": ["win cash now", "win win prize", "lunch now"],
        "label": ["spam", "spam", "ham"],
    }
)


# --------------------------------------------------------------------------- the corpus


def test_corpus_has_both_classes_and_plain_text():
    messages = load_messages()
    assert list(messages.columns) == ["text", "label"]
    assert len(messages) == 52
    assert set(messages["label"]) == {"spam", "ham"}
    assert messages["label"].value_counts().min() >= 20
    assert messages["text"].str.len().max() < 100
    for bad in ("http", "www", "@", ".com"):
        assert not messages["text"].str.contains(bad, regex=False).any(), bad
    assert not messages["text"].duplicated().any()


def test_loader_returns_a_fresh_frame():
    a = load_messages()
    a.loc[0, "text"] = "changed"
    assert load_messages().loc[0, "text"] != "changed"


# --------------------------------------------------------------------------- tokens, counts


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("Free, free!", ["free", "free"]),
        ("Don't call me at 10pm", ["don", "t", "call", "me", "at", "pm"]),
        ("  ", []),
        ("WIN a Prize", ["win", "a", "prize"]),
    ],
)
def test_tokenize_lowercases_and_splits_on_non_letters(message, words):
    assert text.tokenize(message) == words


def test_tokenize_rejects_non_text():
    with pytest.raises(TypeError, match="text must be a str"):
        text.tokenize(["a list"])


def test_count_matrix_matches_count_vectorizer():
    messages = load_messages()["text"].tolist()
    counts, vocabulary = text.count_matrix(messages)
    vectorizer = CountVectorizer(lowercase=True, token_pattern=r"[a-z]+")
    expected = vectorizer.fit_transform(messages).toarray()
    assert vocabulary == list(vectorizer.get_feature_names_out())
    np.testing.assert_array_equal(counts, expected)
    # every token is counted once: row sums are message lengths in words
    lengths = [len(text.tokenize(m)) for m in messages]
    np.testing.assert_array_equal(counts.sum(axis=1), lengths)


def test_count_matrix_with_a_given_vocabulary_drops_other_words():
    counts, vocabulary = text.count_matrix(["win win lunch", "cash"], vocabulary=["win", "cash"])
    assert vocabulary == ["win", "cash"]
    np.testing.assert_array_equal(counts, [[2, 0], [0, 1]])
    with pytest.raises(ValueError, match="repeat"):
        text.count_matrix(["a"], vocabulary=["a", "a"])
    with pytest.raises(TypeError, match="texts"):
        text.count_matrix("one string")


# --------------------------------------------------------------------------- contributions


def _tiny_thetas(alpha):
    """Exact smoothed estimates of the three-message corpus, by the counting formulas."""
    vocabulary = ["cash", "lunch", "now", "prize", "win"]
    docs = {"spam": [["win", "cash", "now"], ["win", "win", "prize"]], "ham": [["lunch", "now"]]}
    a = Fraction(alpha)
    bern, mult = {}, {}
    for c, ds in docs.items():
        total = sum(len(d) for d in ds)
        bern[c] = {w: (sum(w in d for d in ds) + a) / (len(ds) + 2 * a) for w in vocabulary}
        mult[c] = {w: (sum(d.count(w) for d in ds) + a) / (total + a * 5) for w in vocabulary}
    return vocabulary, bern, mult


@pytest.mark.parametrize("alpha", ["1", "1/2", "3"])
def test_tiny_corpus_terms_are_the_hand_formulas(alpha):
    vocabulary, bern, mult = _tiny_thetas(alpha)
    state = text.word_contributions("win win lunch", float(Fraction(alpha)), data=TINY)
    table = state["contributions"]
    assert list(table.index) == ["prior", "win", "lunch", "absent words"]
    log = math.log
    prior = log(2 / 3) - log(1 / 3)
    assert table.loc["prior", "Bernoulli"] == pytest.approx(prior, rel=1e-12)
    assert table.loc["prior", "multinomial"] == pytest.approx(prior, rel=1e-12)
    for w in ("win", "lunch"):
        b = log(bern["spam"][w]) - log(bern["ham"][w])
        assert table.loc[w, "Bernoulli"] == pytest.approx(b, rel=1e-12)
    # the multinomial counts "win" twice; the Bernoulli model once
    m_win = 2 * (log(mult["spam"]["win"]) - log(mult["ham"]["win"]))
    m_lunch = log(mult["spam"]["lunch"]) - log(mult["ham"]["lunch"])
    assert table.loc["win", "multinomial"] == pytest.approx(m_win, rel=1e-12)
    assert table.loc["lunch", "multinomial"] == pytest.approx(m_lunch, rel=1e-12)
    absent = sum(
        log(1 - bern["spam"][w]) - log(1 - bern["ham"][w]) for w in ("cash", "now", "prize")
    )
    assert table.loc["absent words", "Bernoulli"] == pytest.approx(absent, rel=1e-12)
    assert table.loc["absent words", "multinomial"] == 0.0
    assert state["unknown"] == []


@pytest.mark.parametrize("alpha", [0.05, 0.3, 1.0, 2.5])
@pytest.mark.parametrize(
    "message",
    [*text.EXAMPLE_MESSAGES, "thanks for lunch, free free free", "zebra quartz", ""],
)
def test_log_odds_match_scikit_learn(message, alpha):
    data = load_messages()
    X, vocabulary = text.count_matrix(data["text"].tolist())
    y = data["label"].to_numpy()
    x, _ = text.count_matrix([message], vocabulary=vocabulary)
    state = text.word_contributions(message, alpha, data=data)
    for name, model in (
        ("Bernoulli", SkBernoulliNB(alpha=alpha)),
        ("multinomial", SkMultinomialNB(alpha=alpha)),
    ):
        model.fit(X, y)
        spam, ham = list(model.classes_).index("spam"), list(model.classes_).index("ham")
        jll = model.predict_joint_log_proba(x)[0]
        assert state["log_odds"][name] == pytest.approx(jll[spam] - jll[ham], rel=1e-10, abs=1e-10)
        assert state["contributions"][name].sum() == pytest.approx(state["log_odds"][name])
        p_spam = model.predict_proba(x)[0, spam]
        assert state["posterior_spam"][name] == pytest.approx(p_spam, rel=1e-10, abs=1e-12)


def test_repeats_scale_the_multinomial_term_but_not_the_bernoulli_term():
    once = text.word_contributions("free", 1.0)["contributions"]
    for k in (2, 5, 20):
        many = text.word_contributions(" ".join(["free"] * k), 1.0)["contributions"]
        assert many.loc["free", "multinomial"] == pytest.approx(k * once.loc["free", "multinomial"])
        assert many.loc["free", "Bernoulli"] == pytest.approx(once.loc["free", "Bernoulli"])
    assert once.loc["free", "multinomial"] > 0  # a spammy word: more of it, more spam


def test_unknown_words_change_nothing():
    base = text.word_contributions("claim your prize", 1.0)
    more = text.word_contributions("claim your prize zebra quartz zebra", 1.0)
    pd.testing.assert_series_equal(base["log_odds"], more["log_odds"])
    assert more["unknown"] == ["zebra", "quartz"]


def test_empty_message_is_the_prior_plus_all_absent_words():
    state = text.word_contributions("", 1.0)
    table = state["contributions"]
    assert list(table.index) == ["prior", "absent words"]
    labels = load_messages()["label"]
    prior = math.log((labels == "spam").sum() / (labels == "ham").sum())
    assert table.loc["prior", "multinomial"] == pytest.approx(prior, rel=1e-12)
    assert state["log_odds"]["multinomial"] == pytest.approx(prior, rel=1e-12)
    # every word of the vocabulary is absent: the Bernoulli row sums all of them
    X, _ = text.count_matrix(load_messages()["text"])
    is_spam = (labels == "spam").to_numpy()
    theta_spam = ((X[is_spam] > 0).sum(axis=0) + 1) / (is_spam.sum() + 2)
    theta_ham = ((X[~is_spam] > 0).sum(axis=0) + 1) / ((~is_spam).sum() + 2)
    absent = np.sum(np.log(1 - theta_spam) - np.log(1 - theta_ham))
    assert table.loc["absent words", "Bernoulli"] == pytest.approx(absent, rel=1e-12)


def test_log_odds_table_is_the_contributions_on_a_grid():
    messages, alphas = text.EXAMPLE_MESSAGES[:2], [0.1, 2.0]
    table = text.log_odds_table(messages, alphas)
    assert table.shape == (4, 4)
    for m in messages:
        for a in alphas:
            state = text.word_contributions(m, a)
            row = table.loc[(m, a)]
            assert row["log-odds (Bernoulli)"] == pytest.approx(state["log_odds"]["Bernoulli"])
            assert row["P(spam) (multinomial)"] == pytest.approx(
                state["posterior_spam"]["multinomial"]
            )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"alpha": 0.0}, ValueError, "alpha"),
        ({"alpha": -1.0}, ValueError, "alpha"),
        ({"alpha": float("nan")}, ValueError, "alpha"),
        ({"alpha": True}, TypeError, "alpha"),
        ({"alpha": "1"}, TypeError, "alpha"),
        ({"message": 3}, TypeError, "message"),
        ({"data": [1, 2]}, TypeError, "data"),
        ({"data": pd.DataFrame({"text": ["a"]})}, ValueError, "label"),
        ({"data": pd.DataFrame({"text": ["a"], "label": ["x"]})}, ValueError, "labels"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    args = {"message": "free prize", "alpha": 1.0, **kwargs}
    with pytest.raises(error, match=match):
        text.word_contributions(args.pop("message"), **args)


def test_grids_reject_bad_values():
    with pytest.raises(ValueError, match="alpha"):
        text.log_odds_table(["a"], [1.0, 0.0])
    with pytest.raises(ValueError, match="at least one"):
        text.log_odds_table([], [1.0])
    with pytest.raises(ValueError, match="at least one"):
        text.contribution_small_multiples([], [1.0])


# --------------------------------------------------------------------------- what is shown


@pytest.mark.parametrize(
    ("message", "alpha"), [("Claim your free prize now, zebra", 1.0), ("see you at lunch", 0.3)]
)
def test_panel_shows_every_term_and_the_totals(message, alpha):
    state = text.word_contributions(message, alpha)
    page = text.text_panel(message, alpha)
    for term in state["contributions"].index:
        assert f">{term}<" in page
        assert term in page.split('alt="')[1].split('"')[0]  # the figure names every term
    for model in ("Bernoulli", "multinomial"):
        assert f"{state['log_odds'][model]:+.2f}" in page
        assert f"{state['posterior_spam'][model]:.3f}" in page
        for value in state["contributions"][model]:
            assert f"{value:+.2f}" in page
    assert f"alpha = {alpha:.2f}" in page
    assert ("zebra" in page) == ("zebra" in message)
    assert "<script" not in page and "http" not in page


def test_small_multiples_have_one_bar_pair_per_term():
    grid = text.contribution_small_multiples(text.EXAMPLE_MESSAGES, (0.1, 1.0))
    assert isinstance(grid, Figure)
    axes = [ax for ax in grid.axes if ax.patches]
    assert len(axes) == 6
    for i, message in enumerate(text.EXAMPLE_MESSAGES):
        n_terms = len(text.word_contributions(message, 1.0)["contributions"])
        assert len(axes[2 * i + 1].patches) == 2 * n_terms
    hatches = {p.get_hatch() for p in axes[0].patches}
    assert len(hatches) == 2  # the models differ by pattern as well as colour


def test_numbers_are_nbcores_estimators():
    import nbcore

    data = load_messages()
    X, vocabulary = text.count_matrix(data["text"].tolist())
    x, _ = text.count_matrix([text.EXAMPLE_MESSAGES[2]], vocabulary)
    for alpha in (0.1, 2.0):
        state = text.word_contributions(text.EXAMPLE_MESSAGES[2], alpha)
        for name, kind in (
            ("Bernoulli", nbcore.BernoulliNB),
            ("multinomial", nbcore.MultinomialNB),
        ):
            model = kind(alpha=alpha).fit(X, data["label"])
            b = model.predict_joint_log_proba(x)[0]
            assert state["log_odds"][name] == b[1] - b[0]
            assert state["posterior_spam"][name] == model.predict_proba(x)[0, 1]
            assert state["contributions"][name].sum() == pytest.approx(b[1] - b[0], abs=1e-12)
        free = vocabulary.index("free")
        log_theta = nbcore.MultinomialNB(alpha=alpha).fit(X, data["label"]).feature_log_prob_
        expected = 3 * (log_theta[1, free] - log_theta[0, free])
        assert state["contributions"].loc["free", "multinomial"] == expected


def test_explorer_recomputes_when_the_message_or_alpha_changes():
    box, slider, panel = text.text_explorer("Claim your free prize now", 1.0).children
    assert [box.description, slider.description] == [c.label for c in text.CONTROLS]
    assert list(box.options) == list(text.EXAMPLE_MESSAGES)
    assert panel.value == text.text_panel("Claim your free prize now", 1.0)
    slider.value = 2.5
    assert panel.value == text.text_panel("Claim your free prize now", 2.5)
    box.value = "see you at lunch"
    assert panel.value == text.text_panel("see you at lunch", 2.5)


def test_explorer_start_must_be_on_the_slider():
    _, slider, _ = text.text_explorer(alpha=1.23).children
    assert slider.value == pytest.approx(1.25)
    for alpha in (50.0, 0.01, -1.0):
        with pytest.raises(ValueError, match="alpha"):
            text.text_explorer(alpha=alpha)
    with pytest.raises(TypeError, match="message"):
        text.text_explorer(message=None)
