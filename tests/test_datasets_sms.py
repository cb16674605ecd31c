"""The SMS Spam Collection ships with the package, with its attribution, and loads exactly.

Expected counts are those of the collection's documentation (UCI; Almeida, Gómez Hidalgo and
Yamakami 2011), checked here against the raw file read line by line, independently of pandas.
"""

import fnmatch
import tomllib
from importlib import resources
from pathlib import Path

from nbcore.datasets import SMS_SPAM_CITATION, SMS_SPAM_LICENCE, load_sms_spam

ROOT = Path(__file__).resolve().parents[1]
DATA = resources.files("nbcore.data")


def raw_lines():
    text = DATA.joinpath("SMSSpamCollection").read_text(encoding="utf-8")
    assert text.endswith("\n")
    return text[:-1].split("\n")


def test_shape_columns_and_label_counts():
    sms = load_sms_spam()
    assert list(sms.columns) == ["label", "text"]
    assert sms.shape == (5574, 2)
    assert sms["label"].value_counts().to_dict() == {"ham": 4827, "spam": 747}


def test_duplicates_are_kept_and_counted():
    sms = load_sms_spam()
    assert len(sms.drop_duplicates()) == 5171  # distinct lines, label and text
    assert sms["text"].nunique() == 5171  # no message carries both labels
    repeated = sms.value_counts(["label", "text"])
    assert int((repeated > 1).sum()) == 281
    assert int((repeated - 1).sum()) == 403


def test_rows_equal_the_raw_lines_verbatim():
    lines = raw_lines()
    sms = load_sms_spam()
    assert len(lines) == len(sms)
    fields = [line.split("\t") for line in lines]
    assert all(len(f) == 2 for f in fields)
    assert sms["label"].tolist() == [f[0] for f in fields]
    # quotes, leading spaces and "NA"-like texts stay as they are in the file
    assert sms["text"].tolist() == [f[1] for f in fields]
    assert sms["text"].str.contains('"', regex=False).any()
    assert sms["text"].iloc[0].startswith("Go until jurong point")
    assert sms["text"].iloc[-1] == "Rofl. Its true to its name"


def test_loader_returns_a_fresh_frame():
    a = load_sms_spam()
    a.loc[0, "text"] = "changed"
    assert load_sms_spam().loc[0, "text"] != "changed"


def test_attribution_ships_next_to_the_data():
    note = DATA.joinpath("SMSSpamCollection.README.md").read_text(encoding="utf-8")
    for fact in [
        "CC BY 4.0",
        "Almeida",
        "Gómez Hidalgo",
        "Yamakami",
        "DocEng'11",
        "UCI Machine Learning Repository",
        "5,574",
        "5,171",
    ]:
        assert fact in note, fact
    # the constants the book cites say what the note says
    assert " ".join(SMS_SPAM_CITATION.replace("*", "").split()) in " ".join(
        note.replace("> ", "").split()
    )
    assert "CC BY 4.0" in SMS_SPAM_LICENCE and "Attribution 4.0 International" in note


def test_package_data_includes_the_corpus_and_its_note():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["nbcore"]
    for name in ["data/SMSSpamCollection", "data/SMSSpamCollection.README.md"]:
        assert any(fnmatch.fnmatch(name, p) for p in patterns), name
