"""nbcore.scale: statistics add up, merged models equal the fit on the union, streaming."""

import numpy as np
import pandas as pd
import pytest

import nbcore
from nbcore import scale

CLASSES = np.array(["a", "b", "c"])


@pytest.fixture
def counts():
    rng = np.random.default_rng(10)
    X = rng.poisson(rng.uniform(0.2, 3, size=25), size=(240, 25)).astype(float)
    y = rng.choice(CLASSES, size=240, p=[0.5, 0.3, 0.2])
    return X, y


def shards(X, y, n=3):
    """Uneven, contiguous pieces of (X, y)."""
    cuts = np.linspace(0, len(y), n + 1).astype(int)
    cuts[1] += 7
    return [(X[a:b], y[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]


def fit_shards(make, pieces):
    return [make().partial_fit(X, y, classes=CLASSES) for X, y in pieces]


COUNT_MODELS = [
    lambda: nbcore.MultinomialNB(),
    lambda: nbcore.MultinomialNB(alpha=0.3, fit_prior=False),
    lambda: nbcore.MultinomialNB(alpha=0.0, class_prior=[0.2, 0.3, 0.5]),
    lambda: nbcore.BernoulliNB(binarize=1.5, alpha=0.5),
    lambda: nbcore.BernoulliNB(alpha=np.linspace(0.1, 2, 25)),
    lambda: nbcore.ComplementNB(),
    lambda: nbcore.ComplementNB(alpha=0.7, norm=True),
]


@pytest.mark.parametrize("make", COUNT_MODELS)
def test_merged_count_model_equals_fit_on_the_union(counts, make):
    X, y = counts
    full = make().fit(X, y)
    parts = fit_shards(make, shards(X, y))
    merged = scale.merge(*parts)
    assert type(merged) is type(full) and merged.get_params().keys() == full.get_params().keys()
    # counts are sums of whole numbers: exactly equal; so is everything computed from them
    np.testing.assert_array_equal(merged.classes_, full.classes_)
    np.testing.assert_array_equal(merged.class_count_, full.class_count_)
    np.testing.assert_array_equal(merged.feature_count_, full.feature_count_)
    np.testing.assert_allclose(merged.feature_log_prob_, full.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(merged.class_log_prior_, full.class_log_prior_, rtol=1e-12)
    np.testing.assert_allclose(merged.predict_proba(X), full.predict_proba(X), atol=1e-12)
    assert merged.n_features_in_ == full.n_features_in_


def test_merge_leaves_its_inputs_unchanged(counts):
    X, y = counts
    parts = fit_shards(nbcore.MultinomialNB, shards(X, y))
    before = [(p.class_count_.copy(), p.feature_count_.copy()) for p in parts]
    merged = scale.merge(*parts)
    assert all(merged is not p for p in parts)
    for part, (class_count, feature_count) in zip(parts, before, strict=True):
        np.testing.assert_array_equal(part.class_count_, class_count)
        np.testing.assert_array_equal(part.feature_count_, feature_count)


def test_merge_of_one_model_is_a_copy(counts):
    X, y = counts
    model = nbcore.MultinomialNB().fit(X, y)
    copy = scale.merge(model)
    assert copy is not model
    np.testing.assert_array_equal(copy.feature_log_prob_, model.feature_log_prob_)


def test_merge_with_feature_names_and_weights(counts):
    X, y = counts
    frame = pd.DataFrame(X, columns=[f"w{d}" for d in range(X.shape[1])])
    weights = np.random.default_rng(1).integers(1, 4, size=len(y)).astype(float)
    full = nbcore.MultinomialNB().fit(frame, y, sample_weight=weights)
    parts = [
        nbcore.MultinomialNB().partial_fit(frame.iloc[i::2], y[i::2], CLASSES, weights[i::2])
        for i in range(2)
    ]
    merged = scale.merge(*parts)
    np.testing.assert_array_equal(merged.feature_names_in_, full.feature_names_in_)
    np.testing.assert_array_equal(merged.feature_count_, full.feature_count_)
    np.testing.assert_allclose(merged.predict_proba(frame), full.predict_proba(frame), atol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda: nbcore.GaussianNB(),
        lambda: nbcore.GaussianNB(var_smoothing=0.0),
        lambda: nbcore.GaussianNB(var_smoothing=1e-3, priors=[0.5, 0.25, 0.25]),
    ],
)
@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_merged_gaussian_equals_fit_on_the_union(make, offset):
    rng = np.random.default_rng(11)
    y = rng.choice(CLASSES, size=600)
    X = offset + rng.normal(np.searchsorted(CLASSES, y)[:, None], [1.0, 0.1, 5.0, 2.0])
    full = make().fit(X, y)
    merged = scale.merge(*[make().fit(Xs, ys) for Xs, ys in shards(X, y, 4)])
    np.testing.assert_array_equal(merged.class_count_, full.class_count_)
    np.testing.assert_allclose(merged.theta_, full.theta_, rtol=1e-12)
    np.testing.assert_allclose(merged.var_, full.var_, rtol=1e-12)
    np.testing.assert_allclose(merged.epsilon_, full.epsilon_, rtol=1e-12)
    np.testing.assert_allclose(merged.class_prior_, full.class_prior_, rtol=1e-15)
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-9
    )


def test_merged_gaussian_with_a_class_missing_from_a_shard():
    rng = np.random.default_rng(12)
    y = np.repeat(CLASSES, 40)
    X = rng.normal(size=(120, 3)) + np.searchsorted(CLASSES, y)[:, None]
    full = nbcore.GaussianNB().fit(X, y)
    # shard 0 has only class a; shard 1 classes a, b; shard 2 classes b, c
    cuts = [(0, 30), (30, 70), (70, 120)]
    parts = [nbcore.GaussianNB().partial_fit(X[a:b], y[a:b], classes=CLASSES) for a, b in cuts]
    merged = scale.merge(*parts)
    np.testing.assert_allclose(merged.theta_, full.theta_, rtol=1e-12)
    np.testing.assert_allclose(merged.var_, full.var_, rtol=1e-12)
    np.testing.assert_allclose(merged.epsilon_, full.epsilon_, rtol=1e-12)


def test_merged_gaussian_agrees_with_scikit_learn():
    from sklearn.naive_bayes import GaussianNB as SkGaussianNB

    rng = np.random.default_rng(13)
    y = rng.choice(CLASSES, size=300)
    X = rng.normal(size=(300, 4)) * [1, 10, 0.1, 3] + 50
    merged = scale.merge(*[nbcore.GaussianNB().fit(Xs, ys) for Xs, ys in shards(X, y)])
    oracle = SkGaussianNB().fit(X, y)
    np.testing.assert_allclose(merged.theta_, oracle.theta_, rtol=1e-12)
    np.testing.assert_allclose(merged.var_, oracle.var_, rtol=1e-10)
    np.testing.assert_allclose(merged.predict_proba(X), oracle.predict_proba(X), atol=1e-10)


def categorical_frame(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "outlook": rng.choice(["sunny", "overcast", "rainy"], size=n),
            "windy": rng.choice([True, False], size=n),
            "code": rng.integers(0, 5, size=n),
            "level": pd.Categorical(
                rng.choice(["low", "high"], size=n), categories=["low", "mid", "high"]
            ),
        }
    )


def test_merged_categorical_equals_fit_on_the_union():
    X = categorical_frame(150, 14)
    y = np.random.default_rng(15).choice(CLASSES, size=150)
    # shards that see different categories: no "rainy" and no code 4 in the first
    first = (X.outlook != "rainy") & (X.code != 4)
    X.loc[X.index[:5], "outlook"] = None  # a missing value is not counted
    pieces = [(X[first], y[first]), (X[~first], y[~first])]
    full = nbcore.CategoricalNB(alpha=0.5).fit(X, y)
    parts = [
        nbcore.CategoricalNB(alpha=0.5).partial_fit(Xs, ys, classes=CLASSES) for Xs, ys in pieces
    ]
    assert len(parts[0].categories_[0]) == 2 and len(parts[0].categories_[2]) == 4
    merged = scale.merge(*parts)
    for got, want in zip(merged.categories_, full.categories_, strict=True):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(merged.category_count_, full.category_count_, strict=True):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(merged.feature_log_prob_, full.feature_log_prob_, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(merged.n_categories_, full.n_categories_)
    np.testing.assert_array_equal(merged.feature_names_in_, full.feature_names_in_)
    np.testing.assert_allclose(merged.predict_proba(X), full.predict_proba(X), atol=1e-12)


def test_merged_categorical_of_integer_codes_without_names():
    rng = np.random.default_rng(16)
    X = rng.integers(0, 4, size=(90, 3))
    y = rng.choice(CLASSES, size=90)
    full = nbcore.CategoricalNB().fit(X, y)
    merged = scale.merge(
        *[nbcore.CategoricalNB().partial_fit(X[i::3], y[i::3], CLASSES) for i in range(3)]
    )
    assert not hasattr(merged, "feature_names_in_")
    for got, want in zip(merged.category_count_, full.category_count_, strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(merged.predict_proba(X), full.predict_proba(X), atol=1e-12)


# --------------------------------------------------------------------------- refusals


def test_merge_refuses_models_of_different_kinds(counts):
    X, y = counts
    with pytest.raises(TypeError, match="model 0 is a MultinomialNB, model 1 a BernoulliNB"):
        scale.merge(nbcore.MultinomialNB().fit(X, y), nbcore.BernoulliNB().fit(X, y))


@pytest.mark.parametrize(
    "a, b, parameter",
    [
        (nbcore.MultinomialNB(alpha=1.0), nbcore.MultinomialNB(alpha=0.5), "alpha"),
        (nbcore.MultinomialNB(), nbcore.MultinomialNB(fit_prior=False), "fit_prior"),
        (nbcore.BernoulliNB(), nbcore.BernoulliNB(binarize=1.0), "binarize"),
        (nbcore.BernoulliNB(), nbcore.BernoulliNB(binarize=None), "binarize"),
        (nbcore.ComplementNB(), nbcore.ComplementNB(norm=True), "norm"),
        (
            nbcore.MultinomialNB(alpha=np.ones(25)),
            nbcore.MultinomialNB(alpha=np.full(25, 2.0)),
            "alpha",
        ),
        (
            nbcore.MultinomialNB(),
            nbcore.MultinomialNB(class_prior=[0.2, 0.3, 0.5]),
            "class_prior",
        ),
        (nbcore.GaussianNB(), nbcore.GaussianNB(var_smoothing=1e-3), "var_smoothing"),
        (nbcore.GaussianNB(), nbcore.GaussianNB(priors=[0.2, 0.3, 0.5]), "priors"),
    ],
)
def test_merge_refuses_different_parameters_and_names_them(counts, a, b, parameter):
    X, y = counts
    with pytest.raises(ValueError, match=f"same parameters: {parameter} is"):
        scale.merge(a.fit(X, y), b.fit(X, y))


def test_merge_refuses_different_classes(counts):
    X, y = counts
    two = y != "c"
    with pytest.raises(ValueError, match="same classes_.*classes=") as error:
        scale.merge(nbcore.MultinomialNB().fit(X, y), nbcore.MultinomialNB().fit(X[two], y[two]))
    assert "model 1" in str(error.value)


def test_merge_refuses_different_features(counts):
    X, y = counts
    with pytest.raises(ValueError, match="same n_features_in_"):
        scale.merge(nbcore.MultinomialNB().fit(X, y), nbcore.MultinomialNB().fit(X[:, :5], y))
    named = pd.DataFrame(X, columns=[f"w{d}" for d in range(X.shape[1])])
    renamed = named.rename(columns={"w0": "first"})
    with pytest.raises(ValueError, match="same feature_names_in_"):
        scale.merge(nbcore.MultinomialNB().fit(named, y), nbcore.MultinomialNB().fit(renamed, y))


def test_merge_refuses_unfitted_and_foreign_models(counts):
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

    X, y = counts
    fitted = nbcore.MultinomialNB().fit(X, y)
    with pytest.raises(nbcore.NotFittedError, match="model 1 .* is not fitted"):
        scale.merge(fitted, nbcore.MultinomialNB())
    with pytest.raises(TypeError, match="model 1 must be a fitted nbcore .* got MultinomialNB"):
        scale.merge(fitted, SkMultinomialNB().fit(X, y))
    with pytest.raises(TypeError, match="got MixedNB"):
        scale.merge(nbcore.MixedNB().fit(pd.DataFrame({"x": X[:, 0]}), y))
    with pytest.raises(TypeError, match="got ndarray"):
        scale.merge(X)
    with pytest.raises(TypeError, match="at least one fitted model"):
        scale.merge()


def test_from_statistics_refuses_statistics_of_another_kind(counts):
    X, y = counts
    gaussian = nbcore.GaussianNB().fit(X, y)
    counted = scale.statistics(nbcore.MultinomialNB().fit(X, y))
    with pytest.raises(TypeError, match="stats must be MomentStatistics"):
        scale.from_statistics(gaussian, counted)
    with pytest.raises(ValueError, match="shape"):
        counted + scale.statistics(nbcore.MultinomialNB().fit(X[:, :3], y))


# --------------------------------------------------------------------------- statistics


def test_pool_moments_equals_the_moments_of_the_union():
    rng = np.random.default_rng(17)
    x = rng.normal(1e6, 3.0, size=1000)
    n, mean, var = 0.0, 0.0, 0.0
    for piece in np.array_split(x, [3, 400, 401, 900]):
        n, mean, var = scale.pool_moments(n, mean, var, len(piece), piece.mean(), piece.var())
    assert n == 1000
    assert mean == pytest.approx(x.mean(), rel=1e-15)
    assert var == pytest.approx(x.var(), rel=1e-11)


def test_pool_moments_by_hand():
    # {1, 3} and {5, 7, 9}: means 2 and 7, variances 1 and 8/3; union mean 5, variance 8
    n, mean, var = scale.pool_moments(2, 2.0, 1.0, 3, 7.0, 8 / 3)
    assert (n, mean, var) == (5, pytest.approx(5.0), pytest.approx(8.0))
    # an empty set changes nothing, whatever its mean and variance say
    assert scale.pool_moments(0, np.nan, np.nan, 3, 7.0, 2.0) == (3, 7.0, 2.0)
    assert scale.pool_moments(3, 7.0, 2.0, 0, 0.0, 0.0) == (3, 7.0, 2.0)


def test_statistics_add_with_sum_and_have_a_size(counts):
    X, y = counts
    parts = fit_shards(nbcore.MultinomialNB, shards(X, y))
    total = sum(scale.statistics(p) for p in parts)
    full = nbcore.MultinomialNB().fit(X, y)
    np.testing.assert_array_equal(total.feature_count, full.feature_count_)
    assert total.nbytes == 8 * (3 + 3 * 25)


# --------------------------------------------------------------------------- streaming


def test_shards_round_trip_and_stream_fit_equals_fit(tmp_path, counts):
    X, y = counts
    paths = [scale.write_shard(tmp_path, i, Xs, ys) for i, (Xs, ys) in enumerate(shards(X, y))]
    assert [p.name for p in paths] == ["part-00000.npz", "part-00001.npz", "part-00002.npz"]
    X0, y0 = scale.read_shard(paths[0])
    np.testing.assert_array_equal(X0, shards(X, y)[0][0])
    np.testing.assert_array_equal(y0, shards(X, y)[0][1])
    streamed = scale.stream_fit(nbcore.MultinomialNB(), scale.read_shards(paths), CLASSES)
    full = nbcore.MultinomialNB().fit(X, y)
    np.testing.assert_array_equal(streamed.feature_count_, full.feature_count_)
    np.testing.assert_array_equal(streamed.feature_log_prob_, full.feature_log_prob_)
    stats = [scale.shard_statistics(p, nbcore.MultinomialNB(), CLASSES) for p in paths]
    model = scale.from_statistics(full, sum(stats))
    np.testing.assert_array_equal(model.feature_count_, full.feature_count_)


def test_stream_fit_refuses_no_chunks_and_write_shard_bad_shapes(tmp_path):
    with pytest.raises(ValueError, match="chunks is empty"):
        scale.stream_fit(nbcore.MultinomialNB(), [], CLASSES)
    with pytest.raises(ValueError, match="one label per row"):
        scale.write_shard(tmp_path, 0, np.zeros((3, 2)), ["a", "b"])


def test_merge_is_exported():
    assert nbcore.merge is scale.merge


def test_merged_gaussian_with_a_huge_offset_keeps_the_digits_its_means_have():
    # With x = 1e8 + noise, each shard's mean is known only to about 1e-16 * 1e8 = 1e-8 in
    # absolute terms, and the pooled variance inherits that through the difference of the
    # means; the running sum of squares, by contrast, loses every digit.
    rng = np.random.default_rng(18)
    y = rng.choice(CLASSES, size=600)
    X = 1e8 + rng.normal(size=(600, 2))
    full = nbcore.GaussianNB(var_smoothing=0.0).fit(X, y)
    merged = scale.merge(
        *[nbcore.GaussianNB(var_smoothing=0.0).fit(Xs, ys) for Xs, ys in shards(X, y, 4)]
    )
    np.testing.assert_allclose(merged.var_, full.var_, rtol=1e-6)
    x = X[y == "a", 0]
    naive = (np.sum(x**2) - np.sum(x) ** 2 / len(x)) / len(x)
    assert abs(naive - x.var()) / x.var() > 1e-2


def test_from_statistics_with_an_unfitted_model_and_the_classes(counts):
    X, y = counts
    pieces = shards(X, y)
    stats = sum(scale.statistics(m) for m in fit_shards(nbcore.ComplementNB, pieces))
    model = scale.from_statistics(nbcore.ComplementNB(), stats, classes=["c", "b", "a"])
    full = nbcore.ComplementNB().fit(X, y)
    np.testing.assert_array_equal(model.classes_, full.classes_)
    np.testing.assert_array_equal(model.feature_all_, full.feature_all_)
    np.testing.assert_allclose(model.feature_log_prob_, full.feature_log_prob_, rtol=1e-12)
    named = scale.from_statistics(
        nbcore.MultinomialNB(),
        sum(scale.statistics(m) for m in fit_shards(nbcore.MultinomialNB, pieces)),
        classes=CLASSES,
        feature_names=[f"w{d}" for d in range(X.shape[1])],
    )
    assert list(named.feature_names_in_[:2]) == ["w0", "w1"]
    with pytest.raises(nbcore.NotFittedError, match="give classes="):
        scale.from_statistics(nbcore.MultinomialNB(), stats)
    with pytest.raises(ValueError, match="counts of 3 classes, but classes has 2"):
        scale.from_statistics(nbcore.ComplementNB(), stats, classes=["a", "b"])
    with pytest.raises(ValueError, match="feature_names has 2 names for 25 features"):
        scale.from_statistics(nbcore.ComplementNB(), stats, classes=CLASSES, feature_names="ab")


def test_gaussian_from_summed_shard_statistics(tmp_path):
    rng = np.random.default_rng(19)
    y = rng.choice(CLASSES, size=400)
    X = 1e3 + rng.normal(size=(400, 3))
    paths = [scale.write_shard(tmp_path, i, X[i::4], y[i::4]) for i in range(4)]
    total = sum(scale.shard_statistics(p, nbcore.GaussianNB(), CLASSES) for p in paths)
    model = scale.from_statistics(nbcore.GaussianNB(), total, classes=CLASSES)
    full = nbcore.GaussianNB().fit(X, y)
    np.testing.assert_allclose(model.theta_, full.theta_, rtol=1e-12)
    np.testing.assert_allclose(model.var_, full.var_, rtol=1e-12)
    np.testing.assert_allclose(model.epsilon_, full.epsilon_, rtol=1e-12)


# --------------------------------------------------------------------------- empty shards

EMPTY_CASES = [
    nbcore.MultinomialNB,
    nbcore.BernoulliNB,
    nbcore.ComplementNB,
    nbcore.GaussianNB,
    nbcore.CategoricalNB,
]


@pytest.mark.parametrize("make", EMPTY_CASES, ids=lambda m: m.__name__)
def test_an_empty_shard_adds_nothing(tmp_path, counts, make):
    X, y = counts
    if make is nbcore.CategoricalNB:
        X = np.minimum(X, 3).astype(int)
    pieces = shards(X, y)
    # an empty shard first, one in the middle and one at the end
    with_empty = [(X[:0], y[:0]), pieces[0], (X[:0], y[:0]), *pieces[1:], (X[:0], y[:0])]
    paths = [scale.write_shard(tmp_path, i, Xs, ys) for i, (Xs, ys) in enumerate(with_empty)]
    assert scale.read_shard(paths[0])[0].shape == (0, X.shape[1])
    full = make().fit(X, y)
    streamed = scale.stream_fit(make(), scale.read_shards(paths), CLASSES)
    without = scale.stream_fit(make(), iter(pieces), CLASSES)
    stats = [scale.shard_statistics(p, make(), CLASSES) for p in paths]
    total = sum(stats)
    from_shards = scale.from_statistics(make(), total, classes=CLASSES)
    np.testing.assert_array_equal(
        stats[0].class_count if hasattr(stats[0], "class_count") else stats[0].count, np.zeros(3)
    )
    np.testing.assert_array_equal(streamed.class_count_, full.class_count_)
    np.testing.assert_array_equal(from_shards.class_count_, full.class_count_)
    if make is nbcore.GaussianNB:
        np.testing.assert_array_equal(streamed.var_, without.var_)  # skipped, not pooled
        np.testing.assert_allclose(from_shards.var_, full.var_, rtol=1e-12)
    elif make is nbcore.CategoricalNB:
        for a, b in zip(from_shards.category_count_, full.category_count_, strict=True):
            np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_array_equal(streamed.feature_count_, full.feature_count_)
        np.testing.assert_array_equal(from_shards.feature_count_, full.feature_count_)


def test_empty_shards_only_or_of_the_wrong_shape_are_refused(tmp_path):
    empty = (np.zeros((0, 4)), np.array([], dtype="<U1"))
    with pytest.raises(ValueError, match="chunks is empty"):
        scale.stream_fit(nbcore.MultinomialNB(), [empty, empty], CLASSES)
    path = scale.write_shard(tmp_path, 0, *empty)
    with pytest.raises(ValueError, match="stats has no samples"):
        scale.from_statistics(
            nbcore.GaussianNB(),
            scale.shard_statistics(path, nbcore.GaussianNB(), CLASSES),
            classes=CLASSES,
        )
    with pytest.raises(ValueError, match="stats has no samples"):
        scale.from_statistics(
            nbcore.MultinomialNB(),
            scale.shard_statistics(path, nbcore.MultinomialNB(), CLASSES),
            classes=CLASSES,
        )
    X = np.ones((6, 3))
    y = np.array(["a", "b", "c"] * 2)
    with pytest.raises(ValueError, match="chunk 1 is empty but has 4 columns; the model has 3"):
        scale.stream_fit(nbcore.MultinomialNB(), [(X, y), empty], CLASSES)
    with pytest.raises(ValueError, match="chunk 0 has no rows in X but 2 labels"):
        scale.stream_fit(nbcore.MultinomialNB(), [(np.zeros((0, 3)), ["a", "b"])], CLASSES)


def test_gaussian_partial_fit_pools_with_pool_moments(monkeypatch):
    """One pooling formula: GaussianNB.partial_fit and merge both call pool_moments."""
    import nbcore.gaussian

    assert scale.pool_moments is nbcore.gaussian.pool_moments
    calls = []
    original = nbcore.gaussian.pool_moments

    def counting(*args):
        calls.append(len(args))
        return original(*args)

    monkeypatch.setattr(nbcore.gaussian, "pool_moments", counting)
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(30, 2)), np.array(["a", "b", "c"] * 10)
    model = nbcore.GaussianNB()
    for rows in np.array_split(np.arange(30), 3):
        model.partial_fit(X[rows], y[rows], classes=CLASSES)
    assert len(calls) == 3


def test_pool_moments_refuses_a_negative_count():
    # adding a shard of -n records would "remove" one; the function is for pooling only
    with pytest.raises(ValueError, match="n_a and n_b must be counts >= 0"):
        scale.pool_moments(10, 13.0, 8.6, -4, 10.0, 2.0)


def test_labels_from_pandas_round_trip_through_a_shard(tmp_path):
    X = np.arange(6.0).reshape(3, 2)
    y = pd.Series(["spam", "ham", "spam"]).to_numpy()  # an object array
    path = scale.write_shard(tmp_path, 0, X, y)
    X_back, y_back = scale.read_shard(path)
    assert list(y_back) == ["spam", "ham", "spam"]
    np.testing.assert_array_equal(X_back, X)
    with pytest.raises(TypeError, match="numbers or strings"):
        scale.write_shard(tmp_path, 1, X, np.array(["a", 1, None], dtype=object))


def test_write_shard_refuses_a_sparse_matrix_by_name(tmp_path):
    # np.asarray of a SciPy sparse matrix is a 0-d object array: say what the shard files hold
    from scipy import sparse

    with pytest.raises(TypeError, match="dense.*save_npz"):
        scale.write_shard(tmp_path, 0, sparse.csr_array(np.eye(3, dtype=np.uint8)), [0, 1, 2])
    assert not list(tmp_path.iterdir())
