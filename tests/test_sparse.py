"""Sparse input: the count models take scipy.sparse matrices and arrays without densifying them.

MultinomialNB, BernoulliNB and ComplementNB are checked against scikit-learn (the oracle) and
against their own dense path on random sparse matrices of every format, to 1e-10. The other
models refuse sparse input with a message that names X. A 100,000 x 50,000 matrix, 37 GiB if
dense, is fitted under a memory bound measured with tracemalloc.
"""

import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
import sklearn.naive_bayes as sk
from scipy import sparse

import nbcore

RTOL = ATOL = 1e-10
COUNT_MODELS = ["MultinomialNB", "BernoulliNB", "ComplementNB"]
FORMATS = {
    "csr_matrix": sparse.csr_matrix,
    "csc_matrix": sparse.csc_matrix,
    "coo_matrix": sparse.coo_matrix,
    "csr_array": sparse.csr_array,
    "csc_array": sparse.csc_array,
    "coo_array": sparse.coo_array,
}
PREDICTIONS = ("predict_joint_log_proba", "predict_log_proba", "predict_proba")


def random_counts(seed, n=300, d=80, density=0.05, n_classes=4):
    """Seeded sparse word counts (CSR) with some empty rows, and labels."""
    rng = np.random.default_rng(seed)
    X = sparse.random(n, d, density=density, format="csr", random_state=rng)
    X.data = np.ceil(X.data * 5)  # counts 1..5
    keep = np.ones(n)
    keep[rng.choice(n, 10, replace=False)] = 0  # documents without any word
    X = sparse.csr_matrix(sparse.diags(keep) @ X)
    X.eliminate_zeros()
    y = rng.integers(0, n_classes, n)
    return X, y


def assert_same_model(ours, theirs, X_ours, X_theirs):
    """Fitted attributes and every prediction agree to 1e-10 (labels exactly)."""
    for name in ("class_count_", "feature_count_", "class_log_prior_", "feature_log_prob_"):
        np.testing.assert_allclose(
            getattr(ours, name), getattr(theirs, name), rtol=RTOL, atol=ATOL, err_msg=name
        )
    for method in PREDICTIONS:
        np.testing.assert_allclose(
            getattr(ours, method)(X_ours),
            getattr(theirs, method)(X_theirs),
            rtol=RTOL,
            atol=ATOL,
            err_msg=method,
        )
    np.testing.assert_array_equal(ours.predict(X_ours), theirs.predict(X_theirs))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", COUNT_MODELS)
def test_fit_on_sparse_equals_scikit_learn_and_the_dense_path(name, fmt):
    X, y = random_counts(seed=len(fmt) + len(name))
    X_fmt = FORMATS[fmt](X)
    ours = getattr(nbcore, name)().fit(X_fmt, y)
    assert_same_model(ours, getattr(sk, name)().fit(X, y), X_fmt, X)
    assert_same_model(ours, getattr(nbcore, name)().fit(X.toarray(), y), X_fmt, X.toarray())
    assert ours.score(X_fmt, y) == pytest.approx(ours.score(X.toarray(), y), abs=1e-12)


@pytest.mark.parametrize("fmt", ["csr_matrix", "csc_array", "coo_matrix"])
@pytest.mark.parametrize("name", COUNT_MODELS)
def test_partial_fit_on_sparse_batches_equals_scikit_learn(name, fmt):
    X, y = random_counts(seed=3)
    ours, theirs = getattr(nbcore, name)(), getattr(sk, name)()
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        batch = FORMATS[fmt](X[rows])
        ours.partial_fit(batch, y[rows], classes=np.arange(4))
        theirs.partial_fit(X[rows], y[rows], classes=np.arange(4))
    assert_same_model(ours, theirs, FORMATS[fmt](X), X)


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_sparse_and_dense_batches_mix(name):
    X, y = random_counts(seed=4)
    mixed = getattr(nbcore, name)().partial_fit(X[:150], y[:150], classes=np.arange(4))
    mixed.partial_fit(X[150:].toarray(), y[150:])
    whole = getattr(nbcore, name)().fit(X, y)
    assert_same_model(mixed, whole, X.toarray(), X)


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_integer_sparse_matrix(name):
    X, y = random_counts(seed=5)
    X_int = X.astype(np.int32)
    ours = getattr(nbcore, name)().fit(X_int, y)
    assert ours.feature_count_.dtype == np.float64
    assert_same_model(ours, getattr(sk, name)().fit(X, y), X_int, X)


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_empty_rows_and_an_all_empty_matrix(name):
    X, y = random_counts(seed=6)
    empty = np.flatnonzero(np.diff(X.indptr) == 0)
    assert len(empty) >= 10
    model = getattr(nbcore, name)().fit(X, y)
    dense = model.predict_proba(X.toarray()[empty])
    np.testing.assert_allclose(model.predict_proba(X[empty]), dense, rtol=RTOL, atol=ATOL)
    # no word at all: every score is the prior (Bernoulli: the prior and every word absent)
    nothing = sparse.csr_matrix((5, X.shape[1]))
    np.testing.assert_allclose(
        model.predict_joint_log_proba(nothing),
        model.predict_joint_log_proba(np.zeros((5, X.shape[1]))),
        rtol=RTOL,
        atol=ATOL,
    )


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_sample_weight_with_sparse_input(name):
    X, y = random_counts(seed=7)
    w = np.random.default_rng(7).uniform(0.1, 3.0, X.shape[0])
    ours = getattr(nbcore, name)().fit(X, y, sample_weight=w)
    assert_same_model(ours, getattr(sk, name)().fit(X, y, sample_weight=w), X, X)


@pytest.mark.parametrize("binarize", [0.0, 2.5, None])
def test_bernoulli_binarizes_the_stored_values_only(binarize):
    X, y = random_counts(seed=8)
    if binarize is None:
        X.data[:] = 1.0
    before = X.copy()
    ours = nbcore.BernoulliNB(binarize=binarize).fit(X, y)
    theirs = sk.BernoulliNB(binarize=binarize).fit(X, y)
    assert_same_model(ours, theirs, X, X)
    # the caller's matrix is left as it was
    assert (X != before).nnz == 0


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "ComplementNB"])
def test_zero_smoothing_with_impossible_features_matches_the_dense_path(name):
    # alpha=0 gives probabilities 0 and 1 (log -inf): the 0 log 0 = 0 rule on sparse input
    X = sparse.csr_matrix([[1, 0, 2, 0], [2, 0, 1, 0], [0, 3, 0, 1], [0, 1, 0, 2]])
    y = [0, 0, 1, 1]
    test = sparse.csr_matrix([[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]])
    model = getattr(nbcore, name)(alpha=0).fit(X, y)
    dense = getattr(nbcore, name)(alpha=0).fit(X.toarray(), y)
    np.testing.assert_array_equal(
        model.predict_joint_log_proba(test), dense.predict_joint_log_proba(test.toarray())
    )


def test_bernoulli_zero_smoothing_without_binarize_matches_the_dense_path():
    # binarize=None takes X as given; an absent feature with P(absent) = 0 rules a class out
    X = sparse.csr_matrix([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]], dtype=float)
    model = nbcore.BernoulliNB(alpha=0, binarize=None).fit(X, [0, 0, 1, 1])
    test = sparse.csr_matrix([[1, 0, 0], [0, 1, 1], [1, 1, 1], [0, 0, 0]], dtype=float)
    expected = nbcore.BernoulliNB(alpha=0, binarize=None).fit(X.toarray(), [0, 0, 1, 1])
    np.testing.assert_array_equal(
        model.predict_joint_log_proba(test), expected.predict_joint_log_proba(test.toarray())
    )
    assert np.isneginf(model.predict_joint_log_proba(test)[3]).tolist() == [True, True]


# ---------------------------------------------------------------------------------------------
# Bad sparse input


@pytest.mark.parametrize("fmt", ["csr_matrix", "coo_array"])
@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
def test_negative_stored_value_is_refused_with_its_position(name, fmt):
    X = sparse.csr_matrix(([1.0, -2.0, 3.0], ([0, 2, 3], [1, 4, 0])), shape=(5, 6))
    with pytest.raises(ValueError, match=r"Negative values .*input X.*row 2, column 4"):
        getattr(nbcore, name)().fit(FORMATS[fmt](X), [0, 1, 0, 1, 0])


@pytest.mark.parametrize("value, what", [(np.nan, "NaN"), (np.inf, "infinity")])
@pytest.mark.parametrize("name", COUNT_MODELS)
def test_non_finite_stored_value_is_refused(name, value, what):
    X = sparse.csr_matrix(([1.0, value], ([1, 3], [2, 0])), shape=(4, 3))
    model = getattr(nbcore, name)().fit(sparse.csr_matrix(np.eye(4, 3)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match=rf"Input X contains {what} \(first at row 3, column 0\)"):
        model.predict(X)


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_sparse_input_of_the_wrong_width_is_refused(name):
    model = getattr(nbcore, name)().fit(sparse.csr_matrix(np.eye(4)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="X has 3 features, but .* is expecting 4"):
        model.predict(sparse.csr_matrix(np.eye(3)))


@pytest.mark.parametrize("name", ["GaussianNB", "CategoricalNB", "MixedNB"])
def test_models_that_need_dense_columns_refuse_sparse_input(name):
    X = sparse.csr_matrix(np.eye(4))
    with pytest.raises(TypeError, match=r"X must be dense for .*got a sparse csr_matrix"):
        getattr(nbcore, name)().fit(X, [0, 1, 0, 1])
    model = getattr(nbcore, name)().fit(np.eye(4) + np.arange(4), [0, 1, 0, 1])
    with pytest.raises(TypeError, match=r"X must be dense .*got a sparse csr_array"):
        model.predict(sparse.csr_array(np.eye(4)))


# ---------------------------------------------------------------------------------------------
# Memory and imports


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_a_huge_sparse_matrix_is_never_made_dense(name):
    """100,000 x 50,000 is 37 GiB dense; fit and predict_proba stay far below that."""
    rng = np.random.default_rng(11)
    n, d, nnz = 100_000, 50_000, 300_000
    X = sparse.coo_matrix(
        (rng.integers(1, 4, nnz).astype(float), (rng.integers(0, n, nnz), rng.integers(0, d, nnz))),
        shape=(n, d),
    )
    y = rng.integers(0, 5, n)
    tracemalloc.start()
    try:
        model = getattr(nbcore, name)().fit(X, y)
        proba = model.predict_proba(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert proba.shape == (n, 5)
    # what must exist: the CSR copy of the entries (3.6 MB), the one-hot labels and the
    # (n, 5) scores (4 MB each), the (5, d) statistics; one dense row block would be 400 KB x n
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_scipy_is_not_imported_for_dense_input():
    code = (
        "import sys, numpy as np, nbcore\n"
        "for name in ['MultinomialNB', 'BernoulliNB', 'ComplementNB', 'GaussianNB']:\n"
        "    getattr(nbcore, name)().fit(np.eye(3), [0, 1, 2]).predict_proba(np.eye(3))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
