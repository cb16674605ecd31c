"""Interactive explorers of the book, one module per chapter.

Every explorer is split in two: pure functions that compute what it shows (tested directly at
many settings) and a thin ``*_explorer`` function that wires ipywidgets sliders to them. In the
HTML book no kernel runs, so each explorer also has a static twin computed by the same pure
functions. A chapter imports its module: ``from nbcore.widgets import weather``.
"""

from nbcore.widgets.weather import *  # noqa: F403  (the weather chapter's explorer)
from nbcore.widgets.weather import __all__  # noqa: F401
