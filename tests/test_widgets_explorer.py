"""The explorer builder: controls as data, a live widget and a static twin from the same specs."""

import pytest

from nbcore.widgets._explorer import (
    Choice,
    Slider,
    Steps,
    Text,
    Toggle,
    explorer,
    setting_text,
    twin,
)

CONTROLS = (
    Slider("alpha", "smoothing alpha", -3.0, 3.0, 0.5, fmt=".3g", log=True),
    Slider("k", "test image", 0, 9, 1, integer=True),
    Toggle("shared", "variances", off="per class", on="shared"),
    Choice("model", "model", ("Bernoulli", "multinomial")),
)


def show(alpha, k, shared, model):
    return f"<p>{alpha:.4g}|{k}|{shared}|{model}</p>"


def test_sliders_snap_to_their_grid():
    assert CONTROLS[0].snap(1.2) == pytest.approx(1.0)
    assert CONTROLS[0].snap(2.5) == pytest.approx(10**0.5)
    assert CONTROLS[1].snap(3.4) == 3 and isinstance(CONTROLS[1].snap(3.4), int)
    assert Slider("p", "prior", 0.05, 0.95, 0.05).snap(0.642) == pytest.approx(0.65)


def test_a_value_on_the_grid_is_kept_exactly():
    sevenths = Slider("p", "prior", 1 / 28, 27 / 28, 1 / 28)
    assert round(1 / 28 + 17 * (1 / 28), 10) != 9 / 14  # the rounded grid point misses 9/14
    assert sevenths.snap(9 / 14) == 9 / 14
    assert sevenths.snap(0.3) == pytest.approx(8 / 28, abs=1e-10)  # off the grid: snapped
    assert CONTROLS[0].snap(100.0) == 100.0 and CONTROLS[1].snap(4) == 4


def test_widget_recomputes_on_every_control():
    box = explorer(CONTROLS, show, alpha=1.0, k=2, shared=False, model="Bernoulli")
    alpha, k, shared, model, panel = box.children
    assert panel.value == "<p>1|2|False|Bernoulli</p>"
    assert [c.description for c in box.children[:4]] == [c.label for c in CONTROLS]
    alpha.value, k.value, shared.value, model.value = 10.0, 5, True, "multinomial"
    assert panel.value == "<p>10|5|True|multinomial</p>"


def test_twin_renders_the_same_panel_with_the_setting_in_words():
    page = twin(CONTROLS, show, [dict(alpha=0.1, k=0, shared=True, model="multinomial")])
    assert "<p>0.1|0|True|multinomial</p>" in page
    assert "smoothing alpha = 0.1, test image = 0, variances: shared, model: multinomial" in page
    values = dict(alpha=1.0, k=1, shared=False, model="Bernoulli")
    assert setting_text(CONTROLS, values).startswith("smoothing alpha = 1,")


@pytest.mark.parametrize(
    ("start", "error", "words"),
    [
        (dict(alpha="big", k=1, shared=False, model="Bernoulli"), TypeError, "alpha"),
        (dict(alpha=1e4, k=1, shared=False, model="Bernoulli"), ValueError, "alpha"),
        (dict(alpha=1.0, k=10, shared=False, model="Bernoulli"), ValueError, "k"),
        (dict(alpha=1.0, k=1, shared=1, model="Bernoulli"), TypeError, "shared"),
        (dict(alpha=1.0, k=1, shared=False, model="Poisson"), ValueError, "model"),
        (dict(alpha=1.0, k=1, shared=False), TypeError, "model"),
        (dict(alpha=1.0, k=1, shared=False, model="Bernoulli", beta=2), TypeError, "beta"),
    ],
)
def test_bad_start_names_the_control(start, error, words):
    with pytest.raises(error, match=words):
        explorer(CONTROLS, show, **start)


def test_text_takes_any_string_and_offers_its_options():
    controls = (Text("message", "message", ("free prize", "lunch?"), "type one"),)
    box = explorer(controls, lambda message: f"<p>{len(message)}</p>", message="free prize")
    field, panel = box.children
    assert field.options == ("free prize", "lunch?") and field.placeholder == "type one"
    assert field.description == "message" and panel.value == "<p>10</p>"
    field.value = "anything at all"
    assert panel.value == "<p>15</p>"
    page = twin(controls, lambda message: message.upper(), [dict(message="it's")])
    assert "message: &quot;it&#x27;s&quot;" in page and "IT'S" in page
    with pytest.raises(TypeError, match="message must be a str"):
        explorer(controls, str, message=3)


def test_steps_slide_over_given_numbers_only():
    sizes = Steps("n", "training records N", (10, 30, 100, 1_000))
    assert sizes.snap(30) == 30 and sizes.text(1_000) == "training records N = 1,000"
    with pytest.raises(ValueError, match="n must be one of"):
        sizes.snap(31)
    with pytest.raises(TypeError, match="n must be a real number"):
        sizes.snap("30")
    box = explorer((sizes,), lambda n: f"<p>{n}</p>", n=100)
    slider, panel = box.children
    assert (slider.description, panel.value) == ("training records N", "<p>100</p>")
    slider.value = 1_000
    assert panel.value == "<p>1000</p>"
    assert "training records N = 10</h4>" in twin((sizes,), lambda n: str(n), [dict(n=10)])
