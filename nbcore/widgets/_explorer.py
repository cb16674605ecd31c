"""One way to build an explorer: controls described as data, and a pure ``show`` function.

An explorer is

* a list of controls (:class:`Slider`, :class:`Steps`, :class:`Toggle`, :class:`Choice`,
  :class:`Text`), each with the keyword it sets, the label a reader sees and a screen reader
  announces, its range and its step;
* a function ``show(**values) -> str`` that computes one setting by calling nbcore and returns
  it as HTML (tables, and figures through :func:`nbcore.plotting.figure_html`).

:func:`explorer` turns the two into ipywidgets that recompute the panel on every move;
:func:`twin` renders the same panel at chosen settings, for the places that have no kernel
(the HTML and printed book). A chapter's explorer is then a few lines::

    CONTROLS = (
        Slider("alpha", "smoothing alpha", -3, 3, 0.25, log=True, fmt=".3g"),
        Toggle("shared", "shared variance"),
    )

    def show(alpha, shared):
        return f"<p>...</p>"

    def my_explorer(alpha=1.0, shared=False):
        return explorer(CONTROLS, show, alpha=alpha, shared=shared)
"""

import html
import math
from dataclasses import dataclass

from nbcore._validation import check_bool, check_choice, check_real

__all__ = ["Slider", "Steps", "Toggle", "Choice", "Text", "explorer", "twin", "setting_text"]

_STYLE = {"description_width": "14em"}


@dataclass(frozen=True)
class Slider:
    """A number on a grid: low, low + step, ..., high.

    With ``log=True`` the grid is of exponents: the value is 10**e for e on that grid (a
    FloatLogSlider), for a parameter that spans orders of magnitude. With ``integer=True`` the
    value is an int.
    """

    name: str
    label: str
    low: float
    high: float
    step: float
    fmt: str = ".2f"
    log: bool = False
    integer: bool = False

    def snap(self, value):
        """The grid value nearest to ``value``; a clear error if it is not a number in range.

        A value already on the grid (to 1e-9 of a step) is kept as given, so that a grid of
        28ths starts exactly at 9/14, not at the grid point rounded to 10 digits.
        """
        low, high = (10.0**self.low, 10.0**self.high) if self.log else (self.low, self.high)
        value = check_real(self.name, value, low, high)
        position = math.log10(value) if self.log else value
        on_grid = self.low + round((position - self.low) / self.step) * self.step
        snapped = round(min(max(on_grid, self.low), self.high), 10)
        if self.integer:
            return int(snapped)
        if abs(position - on_grid) <= 1e-9 * self.step:
            return value
        return 10.0**snapped if self.log else snapped

    def widget(self, value):
        import ipywidgets as w

        common = dict(description=self.label, style=_STYLE, layout=w.Layout(width="36em"))
        if self.integer:
            return w.IntSlider(value=value, min=self.low, max=self.high, step=self.step, **common)
        kind = w.FloatLogSlider if self.log else w.FloatSlider
        extra = {"base": 10} if self.log else {}
        return kind(
            value=value,
            min=self.low,
            max=self.high,
            step=self.step,
            readout_format=self.fmt,
            **extra,
            **common,
        )

    def text(self, value):
        return f"{self.label} = {value:{'d' if self.integer else self.fmt}}"


@dataclass(frozen=True)
class Toggle:
    """On or off: two buttons, labelled by ``off`` and ``on``."""

    name: str
    label: str
    off: str = "off"
    on: str = "on"

    def snap(self, value):
        return check_bool(self.name, value)

    def widget(self, value):
        import ipywidgets as w

        options = [(self.off, False), (self.on, True)]
        return w.ToggleButtons(options=options, value=value, description=self.label, style=_STYLE)

    def text(self, value):
        return f"{self.label}: {self.on if value else self.off}"


@dataclass(frozen=True)
class Choice:
    """One of a few named options (strings)."""

    name: str
    label: str
    options: tuple

    def snap(self, value):
        check_choice(self.name, value, self.options)
        return value

    def widget(self, value):
        import ipywidgets as w

        return w.Dropdown(
            options=list(self.options), value=value, description=self.label, style=_STYLE
        )

    def text(self, value):
        return f"{self.label}: {value}"


@dataclass(frozen=True)
class Text(Choice):
    """Free text, with optional suggestions to pick from; read when the reader presses Enter."""

    options: tuple = ()
    placeholder: str = ""

    def snap(self, value):
        if not isinstance(value, str):
            raise TypeError(f"{self.name} must be a str, got {type(value).__name__}")
        return value

    def widget(self, value):
        import ipywidgets as w

        return w.Combobox(
            value=value,
            options=list(self.options),
            ensure_option=False,
            placeholder=self.placeholder,
            description=self.label,
            continuous_update=False,
            style=_STYLE,
            layout=w.Layout(width="36em"),
        )

    def text(self, value):
        return f"{self.label}: {value!r}"


class Steps(Choice):
    """One of a few given numbers on a slider, for values not on an even grid (10, 30, 100)."""

    def snap(self, value):
        check_real(self.name, value)
        if value not in self.options:
            raise ValueError(f"{self.name} must be one of {self.options}, got {value!r}")
        return value

    def widget(self, value):
        import ipywidgets as w

        return w.SelectionSlider(
            options=[(f"{v:,}", v) for v in self.options],
            value=value,
            description=self.label,
            style=_STYLE,
            layout=w.Layout(width="36em"),
        )

    def text(self, value):
        return f"{self.label} = {value:,}"


def _start(controls, values):
    """Every control's starting value, checked and put on its grid."""
    missing = [c.name for c in controls if c.name not in values]
    unknown = sorted(set(values) - {c.name for c in controls})
    if missing or unknown:
        raise TypeError(f"explorer needs a value for {missing} and takes no {unknown}")
    return {c.name: c.snap(values[c.name]) for c in controls}


def explorer(controls, show, **start):
    """The live explorer: one widget per control above a panel that ``show`` fills.

    Parameters
    ----------
    controls : sequence of Slider, Toggle or Choice
    show : callable
        ``show(**values)`` returns the panel's HTML for one setting.
    **start
        The starting value of every control, by name (snapped to its grid).

    Returns
    -------
    ipywidgets.VBox
        The controls, then the panel. Each move of a control recomputes the panel.
    """
    import ipywidgets as w

    values = _start(controls, start)
    widgets = {c.name: c.widget(values[c.name]) for c in controls}
    panel = w.HTML()

    def update(_change=None):
        panel.value = show(**{name: widget.value for name, widget in widgets.items()})

    for widget in widgets.values():
        widget.observe(update, names="value")
    update()
    return w.VBox([*widgets.values(), panel])


def setting_text(controls, values):
    """One setting in words: "smoothing alpha = 1.00, shared variance: on"."""
    return ", ".join(c.text(values[c.name]) for c in controls)


def twin(controls, show, settings):
    """The static twin: the panel at each setting, headed by the setting in words.

    Parameters
    ----------
    controls, show
        As for :func:`explorer`.
    settings : sequence of dict
        Each a value for every control.

    Returns
    -------
    str
        HTML; display it with ``IPython.display.HTML``.
    """
    parts = []
    for setting in settings:
        values = _start(controls, setting)
        heading = html.escape(setting_text(controls, values))
        parts.append(f"<section><h4>{heading}</h4>{show(**values)}</section>")
    return "".join(parts)
