"""nbcore.plotting: palette, markers, opaque backgrounds, figure metadata, the book's figures."""

import io

import matplotlib as mpl
import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from PIL import Image

from nbcore import plotting


def test_palette_is_okabe_ito_and_distinct():
    okabe_ito = {c.lower() for c in plotting.OKABE_ITO.values()}
    assert okabe_ito == {
        "#e69f00",
        "#56b4e9",
        "#009e73",
        "#f0e442",
        "#0072b2",
        "#d55e00",
        "#cc79a7",
        "#000000",
    }
    assert {c.lower() for c in plotting.PALETTE} == okabe_ito
    assert len(set(plotting.PALETTE)) == len(plotting.PALETTE)


def test_each_class_has_its_own_colour_marker_and_hatch():
    styles = [plotting.class_style(i) for i in range(len(plotting.PALETTE))]
    for key in ("color", "marker", "hatch"):
        assert len({s[key] for s in styles}) == len(styles), key
    assert plotting.class_style(len(plotting.PALETTE)) == plotting.class_style(0)
    assert plotting.class_style(np.int64(1)) == styles[1]


@pytest.mark.parametrize(
    ("index", "error"), [(-1, ValueError), (1.5, TypeError), (True, TypeError)]
)
def test_class_style_rejects_bad_index(index, error):
    with pytest.raises(error, match="index"):
        plotting.class_style(index)


def _saved_rgba(fig, **kwargs):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", **kwargs)
    buf.seek(0)
    return np.asarray(Image.open(buf).convert("RGBA"))


def test_new_figure_is_opaque_white_on_screen_and_saved():
    fig, axes = plotting.new_figure(2, 3)
    assert axes.shape == (2, 3)
    assert mcolors.to_rgba(fig.get_facecolor()) == (1.0, 1.0, 1.0, 1.0)
    for ax in axes.flat:
        assert mcolors.to_rgba(ax.get_facecolor()) == (1.0, 1.0, 1.0, 1.0)
    # even when rcParams ask for transparency, the saved file stays opaque
    with mpl.rc_context({"savefig.transparent": False, "savefig.facecolor": "auto"}):
        pixels = _saved_rgba(fig)
    assert pixels[..., 3].min() == 255
    assert tuple(pixels[0, 0, :3]) == (255, 255, 255)


def test_new_figure_does_not_touch_pyplot():
    before = plt.get_fignums()
    plotting.new_figure()
    assert plt.get_fignums() == before


def test_use_book_style_sets_opaque_defaults_and_cycle():
    with mpl.rc_context():
        plotting.use_book_style()
        assert mpl.rcParams["savefig.facecolor"] == "white"
        assert mpl.rcParams["figure.facecolor"] == "white"
        assert mpl.rcParams["savefig.transparent"] is False
        cycle = mpl.rcParams["axes.prop_cycle"].by_key()
        assert list(cycle["color"]) == list(plotting.PALETTE)
        assert list(cycle["marker"]) == list(plotting.MARKERS)


def test_figure_cell_metadata():
    meta = plotting.figure_cell_metadata("fig-a", "A caption.", "A bar chart of things.")
    assert meta == {
        "mystnb": {
            "figure": {"name": "fig-a", "caption": "A caption."},
            "image": {"alt": "A bar chart of things."},
        }
    }


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (("fig a", "c", "a"), ValueError, "name must contain only"),
        (("fig-a", "", "a"), ValueError, "caption must be a non-empty text"),
        (("fig-a", "c", "  "), ValueError, "alt must be a non-empty text"),
        (("fig-a", "same", "same"), ValueError, "alt must describe the figure"),
        (("fig-a", "c", None), TypeError, "alt must be a str, got NoneType"),
    ],
)
def test_figure_cell_metadata_rejects_incomplete(args, error, match):
    with pytest.raises(error, match=match):
        plotting.figure_cell_metadata(*args)


@pytest.fixture
def frequencies():
    return {
        "outlook": pd.DataFrame(
            {"yes": [2 / 9, 4 / 9, 3 / 9], "no": [3 / 5, 0.0, 2 / 5]},
            index=["sunny", "overcast", "rainy"],
        ),
        "windy": pd.DataFrame({"yes": [6 / 9, 3 / 9], "no": [2 / 5, 3 / 5]}, index=[False, True]),
        "humidity": pd.DataFrame(
            {"yes": [3 / 9, 6 / 9], "no": [4 / 5, 1 / 5]}, index=["high", "normal"]
        ),
    }


def test_relative_frequency_bars_draws_the_table(frequencies):
    fig = plotting.relative_frequency_bars(frequencies, ["yes", "no"], ncols=2)
    assert isinstance(fig, Figure)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["outlook", "windy", "humidity"]
    ax = visible[0]
    heights = [p.get_height() for p in ax.patches]
    assert heights == pytest.approx([2 / 9, 4 / 9, 3 / 9, 3 / 5, 0.0, 2 / 5])
    # colour and hatch per class, not colour alone
    yes_bar, no_bar = ax.patches[0], ax.patches[3]
    assert mcolors.to_hex(yes_bar.get_facecolor()) == plotting.class_style(0)["color"].lower()
    assert mcolors.to_hex(no_bar.get_facecolor()) == plotting.class_style(1)["color"].lower()
    assert yes_bar.get_hatch() != no_bar.get_hatch()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["sunny", "overcast", "rainy"]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["yes", "no"]
    assert _saved_rgba(fig)[..., 3].min() == 255


def test_relative_frequency_bars_rejects_missing_class(frequencies):
    with pytest.raises(ValueError, match="missing \\['maybe'\\]"):
        plotting.relative_frequency_bars(frequencies, ["yes", "maybe"])
    with pytest.raises(TypeError, match="class_labels"):
        plotting.relative_frequency_bars(frequencies, "yes")
    with pytest.raises(TypeError, match="frequencies"):
        plotting.relative_frequency_bars({}, ["yes"])


def test_posterior_sweep_lines_one_line_per_column_with_markers():
    sweep = pd.DataFrame(
        {"0.30": [0.1, 0.2, 0.3], "0.90": [0.6, 0.7, 0.8]},
        index=pd.Index([0.0, 1.0, 2.0], name="alpha"),
    )
    fig = plotting.posterior_sweep_lines(
        sweep, xlabel="alpha", ylabel="P(yes | x)", legend_title="prior"
    )
    ax = fig.axes[0]
    lines = [line for line in ax.get_lines() if line.get_label() in sweep.columns]
    assert [line.get_label() for line in lines] == ["0.30", "0.90"]
    assert lines[0].get_marker() != lines[1].get_marker()
    assert lines[0].get_color() != lines[1].get_color()
    assert list(lines[1].get_ydata()) == [0.6, 0.7, 0.8]
    assert any(line.get_linestyle() == "--" for line in ax.get_lines())  # decision line
    assert ax.get_xlabel() == "alpha"
    with pytest.raises(TypeError, match="sweep"):
        plotting.posterior_sweep_lines(pd.DataFrame(), xlabel="", ylabel="", legend_title="")


def test_figure_html_is_an_image_with_alt_text():
    import base64

    fig, axes = plotting.new_figure()
    axes[0, 0].plot([0, 1], [0, 1])
    tag = plotting.figure_html(fig, 'a rising "line"')
    assert tag.startswith('<img alt="a rising &quot;line&quot;" src="data:image/png;base64,')
    png = base64.b64decode(tag.split("base64,")[1].rstrip('">'))
    assert png[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="alt must be a non-empty text"):
        plotting.figure_html(fig, "  ")
    with pytest.raises(TypeError, match="fig must be a matplotlib Figure"):
        plotting.figure_html("not a figure", "alt")
