"""The explorer of the chapter on unlabelled text: EM on the SMS Spam Collection, at many
settings. Expected values come from independent computations: scikit-learn's CountVectorizer
for the bag of words, and nbcore's estimators fitted directly for the accuracies."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

import nbcore
from nbcore.datasets import load_sms_spam
from nbcore.widgets import semi


@pytest.fixture(scope="module")
def data():
    return semi.sms_split()


def test_the_split_is_the_distinct_messages_and_countvectorizers_counts(data):
    n_distinct = len(load_sms_spam().drop_duplicates("text"))
    assert data["X_pool"].shape[0] + data["X_test"].shape[0] == n_distinct
    assert data["X_test"].shape[0] == 1200
    vectorizer = CountVectorizer(token_pattern=r"[a-z]+", min_df=2).fit(data["text_pool"])
    assert list(vectorizer.get_feature_names_out()) == data["vocabulary"]
    assert (vectorizer.transform(data["text_pool"]) != data["X_pool"]).nnz == 0
    assert data["X_pool"].format == "csr" and data["X_test"].format == "csr"
    assert set(np.unique(data["y_pool"])) == {0, 1}


def test_the_split_is_seeded_and_cached():
    assert semi.sms_split(n_test=500, seed=3) is semi.sms_split(n_test=500, seed=3)
    a, b = semi.sms_split(n_test=500, seed=3), semi.sms_split(n_test=500, seed=4)
    assert a["X_pool"].shape[0] == b["X_pool"].shape[0]
    assert not np.array_equal(a["y_test"], b["y_test"]) or a["vocabulary"] != b["vocabulary"]


@pytest.mark.parametrize("n", [2, 3, 10, 100])
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_labelled_rows_are_distinct_with_both_classes(n, seed):
    y = np.array([0] * 90 + [1] * 10)
    rows = semi.labelled_rows(y, n, seed)
    assert len(rows) == n == len(set(rows.tolist()))
    assert set(y[rows]) == {0, 1}
    assert np.array_equal(rows, semi.labelled_rows(y, n, seed))


@pytest.mark.parametrize(("n", "lambda_"), [(2, 1.0), (8, 0.01), (8, 1.0), (64, 0.3)])
def test_em_run_agrees_with_the_estimators_fitted_directly(data, n, lambda_):
    run = semi.em_run(n, lambda_, seed=1, data=data)
    rows = semi.labelled_rows(data["y_pool"], n, 1)
    partial = np.full(len(data["y_pool"]), -1)
    partial[rows] = data["y_pool"][rows]
    supervised = nbcore.MultinomialNB().fit(data["X_pool"][rows], data["y_pool"][rows])
    em = nbcore.SemiSupervisedNB(lambda_=lambda_).fit(data["X_pool"], partial)
    assert run["supervised"] == supervised.score(data["X_test"], data["y_test"])
    assert run["em"] == em.score(data["X_test"], data["y_test"])
    assert np.array_equal(run["log_likelihood"], em.log_likelihood_)
    assert run["n_iter"] == em.n_iter_ == len(run["log_likelihood"]) - 1
    assert run["spam_supervised"] == np.mean(supervised.predict(data["X_test"]) == 1)
    assert run["spam_em"] == np.mean(em.predict(data["X_test"]) == 1)
    trace = run["log_likelihood"]
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))


def test_em_run_with_lambda_zero_is_the_labelled_fit(data):
    run = semi.em_run(16, 0.0, seed=2, data=data)
    assert run["em"] == run["supervised"] and run["n_iter"] == 0


def test_em_sweep_has_one_row_per_run(data):
    sweep = semi.em_sweep([4, 8], [0.1, 1.0], 2, data=data)
    assert len(sweep) == 8
    assert list(sweep.columns) == [
        "n_labelled",
        "lambda_",
        "seed",
        "supervised",
        "em",
        "n_iter",
        "spam_supervised",
        "spam_em",
    ]
    row = sweep[(sweep.n_labelled == 8) & (sweep.lambda_ == 0.1) & (sweep.seed == 1)].iloc[0]
    assert row["em"] == semi.em_run(8, 0.1, 1, data=data)["em"]


@pytest.mark.parametrize(("n", "lambda_"), [(2, 0.001), (8, 1.0), (512, 0.1)])
def test_panel_shows_both_accuracies_and_a_described_figure(data, n, lambda_):
    html = semi.em_panel(n, lambda_, repeats=3, data=data)
    assert "labelled messages only" in html and "EM" in html
    assert html.count("<img alt=") == 1 and f"{n} labelled messages" in html
    runs = [semi.em_run(n, lambda_, seed, data=data) for seed in range(3)]
    mean_em = np.mean([run["em"] for run in runs])
    assert f"<td>{mean_em:.3f}</td>" in html
    called = np.mean([run["spam_em"] for run in runs])
    assert f"<td>{called:.1%}</td></tr>" in html
    assert f"Spam is {np.mean(data['y_test'] == 1):.1%} of the test messages" in html


def test_panel_uses_the_chosen_smoothing_for_both_models(data):
    html = semi.em_panel(16, 0.01, alpha=0.1, repeats=2, data=data)
    runs = [semi.em_run(16, 0.01, seed, data=data, alpha=0.1) for seed in range(2)]
    for key in ("supervised", "em"):
        assert f"<td>{np.mean([run[key] for run in runs]):.3f}</td>" in html
    # the smoothing matters here: with alpha = 1, EM at lambda = 0.01 calls almost nothing spam
    heavy = [semi.em_run(16, 0.01, seed, data=data) for seed in range(2)]
    assert np.mean([run["em"] for run in runs]) > np.mean([run["em"] for run in heavy])
    assert "alpha = 0.1" in html


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: semi.labelled_rows([0, 1, 0], 1, 0), "n_labelled"),
        (lambda: semi.labelled_rows([0, 1, 0], 2, -1), "seed"),
        (lambda: semi.em_run(8, -0.5), "lambda_"),
        (lambda: semi.em_run(8, "one"), "lambda_"),
        (lambda: semi.sms_split(n_test=0), "n_test"),
        (lambda: semi.em_sweep([4], [1.0], 0), "repeats"),
        (lambda: semi.em_panel(8, 1.0, repeats=0), "repeats"),
        (lambda: semi.em_panel(8, 1.0, alpha=0.0), "alpha"),
        (lambda: semi.em_panel(8, 1.0, alpha="light"), "alpha"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises((TypeError, ValueError), match=message):
        call()


def test_the_explorer_builds_with_its_controls():
    box = semi.em_explorer(n_labelled=8, lambda_=1.0)
    labels = [child.description for child in box.children[:-1]]
    assert labels == [control.label for control in semi.CONTROLS]
    with pytest.raises(ValueError, match="n_labelled"):
        semi.em_explorer(n_labelled=9)
