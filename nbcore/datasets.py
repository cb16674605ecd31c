"""Datasets of the book, shipped with the package (nothing is downloaded).

Each loader returns a fresh pandas DataFrame, one row per record. The small tables have the
class label in the last column; the SMS Spam Collection keeps the column order of its file,
label first.
"""

import csv
from importlib import resources

import pandas as pd

__all__ = [
    "load_weather",
    "load_weather_numeric",
    "load_height_weight",
    "load_height_weight_full",
    "load_messages",
    "load_sms_spam",
]

#: How to cite the SMS Spam Collection (the creators ask for this reference).
SMS_SPAM_CITATION = (
    "Almeida, T. A., Gómez Hidalgo, J. M., and Yamakami, A. (2011). Contributions to the "
    "Study of SMS Spam Filtering: New Collection and Results. Proceedings of the 2011 ACM "
    "Symposium on Document Engineering (DocEng'11), Mountain View, CA, USA."
)
#: The licence under which the UCI Machine Learning Repository publishes it.
SMS_SPAM_LICENCE = "Creative Commons Attribution 4.0 International (CC BY 4.0)"


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


def load_height_weight_full():
    """The 210 adults (73 men, 137 women) from which the six of ``load_height_weight`` come.

    The file ``heightWeightData.txt`` of the repository probml/pyprobml (Kevin P. Murphy and
    contributors, MIT licence), shipped unchanged with its notice
    (``nbcore/data/heightWeightData.README.md``): one record per line, the class (1 male,
    2 female), the height in inches and the weight in pounds. Its first three men and first
    three women are the six rows of Murphy's notes, except that the third woman weighs 110
    pounds here and 120 there.

    Returns
    -------
    DataFrame of shape (210, 3)
        Columns ``height`` and ``weight`` (int) and ``sex`` ("m" or "f"), in the file's order.
    """
    full = _read("heightWeightData.txt", header=None, names=["class", "height", "weight"])
    sex = full.pop("class").map({1: "m", 2: "f"})
    return full.assign(sex=sex)


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


def load_sms_spam():
    """The SMS Spam Collection v.1: 5,574 real English text messages labelled spam or ham.

    Collected by Tiago A. Almeida and José María Gómez Hidalgo and published in the UCI
    Machine Learning Repository under CC BY 4.0; cite Almeida, Gómez Hidalgo and Yamakami,
    "Contributions to the Study of SMS Spam Filtering: New Collection and Results", DocEng
    2011. The file ships unchanged with its attribution (``nbcore/data/SMSSpamCollection`` and
    ``SMSSpamCollection.README.md`` beside it).

    The rows are the file's lines, duplicates included: only 5,171 of the 5,574 messages are
    distinct. Deduplicate (``drop_duplicates("text")``) before splitting into training and
    test sets, or copies of test messages sit in the training set.

    Returns
    -------
    DataFrame of shape (5574, 2)
        Columns ``label`` (the class, "ham" 4,827 times or "spam" 747 times) and ``text``
        (str, the message exactly as in the file).
    """
    with (
        resources.files("nbcore.data")
        .joinpath("SMSSpamCollection")
        .open("r", encoding="utf-8", newline="") as f
    ):
        # one message per line, label<TAB>text; quotes are part of the text, never quoting
        return pd.read_csv(
            f,
            sep="\t",
            header=None,
            names=["label", "text"],
            dtype=str,
            quoting=csv.QUOTE_NONE,
            keep_default_na=False,
        )
