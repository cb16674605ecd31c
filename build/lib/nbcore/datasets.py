"""Small datasets of the book, shipped with the package (nothing is downloaded).

Each loader returns a fresh pandas DataFrame, one row per record, the class label in the
last column.
"""

from importlib import resources

import pandas as pd

__all__ = ["load_weather", "load_weather_numeric", "load_height_weight", "load_messages"]


def _read(name, **kwargs):
    with resources.files("nbcore.data").joinpath(name).open("r", encoding="utf-8") as f:
        return pd.read_csv(f, **kwargs)


def load_weather():
    """The nominal weather data of Witten & Frank: 14 days, four features, ``play`` yes/no.

    Returns
    -------
    DataFrame of shape (14, 5)
        Columns ``outlook``, ``temperature``, ``humidity`` (strings), ``windy`` (bool) and
        ``play`` (the class, "yes" or "no").
    """
    return _read("weather.csv", dtype={"windy": bool})


def load_weather_numeric():
    """The weather data with numeric ``temperature`` and ``humidity`` (degrees F, percent).

    Returns
    -------
    DataFrame of shape (14, 5)
        Columns ``outlook`` (str), ``temperature`` and ``humidity`` (int), ``windy`` (bool),
        ``play`` (the class, "yes" or "no").
    """
    return _read("weather_numeric.csv", dtype={"windy": bool})


def load_height_weight():
    """Six adults' height (inches) and weight (pounds) with their sex, "m" or "f".

    Returns
    -------
    DataFrame of shape (6, 3)
        Columns ``height`` and ``weight`` (int) and ``sex`` (the class).
    """
    return _read("height_weight.csv")


def load_messages():
    """Short text messages labelled spam or ham (not spam), written for this book.

    The messages are invented for teaching: plain English, no real people, brands, numbers
    to call or web addresses. They are short enough to read whole, and a few words are
    deliberately shared between the classes (``free``, ``call``, ``won``), so that no single
    word decides a message.

    Returns
    -------
    DataFrame of shape (52, 2)
        Columns ``text`` (str, one message) and ``label`` (the class, "spam" or "ham").
    """
    return _read("messages.csv", dtype={"text": str, "label": str})
