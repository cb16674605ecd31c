"""The scale chapter's explorer: streamed variances against exact rational arithmetic."""

import math

import numpy as np
import pytest

from nbcore import GaussianNB
from nbcore.widgets import scale as explorer


def test_correct_digits():
    assert explorer.correct_digits(2.0, 2.0) == 16.0
    assert explorer.correct_digits(1.1, 1.0) == pytest.approx(1.0)
    assert explorer.correct_digits(1.0 + 1e-9, 1.0) == pytest.approx(9.0, abs=1e-6)
    assert explorer.correct_digits(-5.0, 1.0) == 0.0
    assert explorer.correct_digits(math.nan, 1.0) == 0.0
    with pytest.raises(ValueError, match="exact must not be 0"):
        explorer.correct_digits(1.0, 0.0)


@pytest.mark.parametrize("log10_offset", [0.0, 3.0, 8.0])
def test_exact_variance_is_that_of_the_stored_values(log10_offset):
    result = explorer.streamed_variances(log10_offset, n_chunks=7, n_values=500, seed=3)
    x = 10.0**log10_offset + np.random.default_rng(3).normal(size=500)
    # the two-pass variance (mean first, then squared deviations) is accurate here
    assert result["exact"] == pytest.approx(np.var(x), rel=1e-10)


def test_one_chunk_pairwise_is_the_two_pass_variance():
    result = explorer.streamed_variances(6.0, n_chunks=1, n_values=300, seed=1)
    x = 1e6 + np.random.default_rng(1).normal(size=300)
    assert result["pairwise"] == np.var(x)


@pytest.mark.parametrize("n_chunks", [1, 2, 10, 50])
def test_pairwise_keeps_its_digits_and_running_sums_lose_them(n_chunks):
    for log10_offset, running_at_most, pairwise_at_least in [
        (0.0, 16, 13),
        (4.0, 9, 10),
        (6.0, 5, 8),
        (8.0, 1, 6),
    ]:
        table = explorer.variance_table(log10_offset, n_chunks)["correct digits"]
        assert table["running sums"] <= running_at_most, (log10_offset, n_chunks)
        assert table["pairwise (Chan et al.)"] >= pairwise_at_least, (log10_offset, n_chunks)
        assert table["exact"] == 16.0


def test_table_sweep_and_html():
    table = explorer.variance_table(2.0, 5, n_values=200)
    assert list(table.index) == ["exact", "running sums", "pairwise (Chan et al.)"]
    assert list(table.columns) == ["variance", "relative error", "correct digits"]
    assert table.loc["exact", "relative error"] == 0
    sweep = explorer.variance_sweep([0.0, 4.0, 8.0], n_chunks=5, n_values=200)
    assert sweep.index.name == "log10 offset" and list(sweep.index) == [0.0, 4.0, 8.0]
    assert sweep["running sums"].is_monotonic_decreasing
    assert sweep.loc[4.0, "pairwise (Chan et al.)"] == pytest.approx(
        explorer.variance_table(4.0, 5, n_values=200).loc[
            "pairwise (Chan et al.)", "correct digits"
        ]
    )
    page = explorer.variance_panel(2.0, 5, n_values=200)
    assert "10^2 + standard normal noise, read in 5 chunks" in page
    assert f"{table.loc['exact', 'variance']:.10g}" in page
    flagged = explorer.variance_panel(8.0, 1, n_values=200)
    assert flagged.count("font-weight:bold") == 1  # the running sums, not pairwise or exact
    assert "read in 1 chunk<" in flagged
    with pytest.raises(TypeError, match="log10_offsets must be a non-empty sequence"):
        explorer.variance_sweep([])
    with pytest.raises(TypeError, match="log10_offsets"):
        explorer.variance_sweep(4.0)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"log10_offset": "big"}, TypeError, "log10_offset"),
        ({"log10_offset": 13.0}, ValueError, "log10_offset"),
        ({"log10_offset": 2.0, "n_chunks": 0}, ValueError, "n_chunks"),
        ({"log10_offset": 2.0, "n_chunks": 2.0}, TypeError, "n_chunks"),
        ({"log10_offset": 2.0, "n_values": 1}, ValueError, "n_values"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        explorer.streamed_variances(**kwargs)


def test_explorer_recomputes_when_a_slider_moves():
    box = explorer.variance_explorer(log10_offset=0.0, n_chunks=10, n_values=200)
    offset_slider, chunk_slider, panel = box.children
    assert [w.description for w in box.children[:2]] == [c.label for c in explorer.CONTROLS]
    assert panel.value == explorer.variance_panel(0.0, 10, n_values=200)
    for offset, chunks in [(8.0, 10), (8.0, 3), (2.5, 50)]:
        offset_slider.value, chunk_slider.value = offset, chunks
        assert panel.value == explorer.variance_panel(offset, chunks, n_values=200)
    with pytest.raises(ValueError, match="log10_offset"):
        explorer.variance_explorer(log10_offset=11.0)
    with pytest.raises(ValueError, match="n_chunks"):
        explorer.variance_explorer(n_chunks=51)
    with pytest.raises(ValueError, match="n_values"):
        explorer.variance_explorer(n_values=20)


@pytest.mark.parametrize(("log10_offset", "n_chunks"), [(0.0, 1), (4.0, 7), (8.0, 20)])
def test_pairwise_is_gaussian_nb_streamed_over_the_same_chunks(log10_offset, n_chunks):
    """nbcore's GaussianNB.partial_fit pools chunks the same way: the same variance."""
    x = 10.0**log10_offset + np.random.default_rng(0).normal(size=2000)
    model = GaussianNB(var_smoothing=0)
    for chunk in np.array_split(x, n_chunks):
        model.partial_fit(chunk[:, None], np.zeros(len(chunk), dtype=int), classes=[0])
    result = explorer.streamed_variances(log10_offset, n_chunks)
    assert result["pairwise"] == pytest.approx(model.var_[0, 0], rel=1e-9)
    assert result["exact"] == pytest.approx(model.var_[0, 0], rel=1e-6)
