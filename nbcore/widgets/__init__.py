"""Interactive explorers of the book, one module per chapter.

Every explorer is the same three parts (:mod:`nbcore.widgets._explorer`): pure functions that
compute what it shows by calling nbcore's estimators and numerics (tested directly at many
settings), a ``CONTROLS`` list of control specs, and a ``*_panel(**values)`` function that
turns one setting into HTML; ``*_explorer`` is then one call to ``explorer(CONTROLS, panel)``.
In the HTML book no kernel runs, so each explorer also has a static twin computed by the same
pure functions. A chapter imports its module: ``from nbcore.widgets import weather``.
"""

from nbcore.widgets.weather import *  # noqa: F403  (the weather chapter's explorer)
from nbcore.widgets.weather import __all__  # noqa: F401
