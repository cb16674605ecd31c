"""The 210 heights and weights of probml/pyprobml ship with their MIT notice, load exactly,
and are the source of the table of parameters printed in Murphy's notes (chapter 5).

The expected facts are read from the raw file line by line, independently of pandas.
"""

import fnmatch
import hashlib
import tomllib
from importlib import resources
from pathlib import Path

import numpy as np

from nbcore.datasets import load_height_weight, load_height_weight_full

ROOT = Path(__file__).resolve().parents[1]
DATA = resources.files("nbcore.data")
# the table under the training rows of Murphy's notes: (mean, sd) of height and weight
PRINTED = {
    ("m", "height"): (71.66, 3.13),
    ("m", "weight"): (175.62, 32.40),
    ("f", "height"): (65.07, 3.19),
    ("f", "weight"): (129.69, 18.67),
}


def raw_records():
    text = DATA.joinpath("heightWeightData.txt").read_text(encoding="ascii")
    assert text.endswith("\n")
    return [tuple(int(v) for v in line.split(",")) for line in text[:-1].split("\n")]


def test_the_file_is_the_one_of_the_stated_commit():
    raw = DATA.joinpath("heightWeightData.txt").read_bytes()
    assert len(raw) == 1887  # the size of the file at the commit the README names
    digest = hashlib.sha256(raw).hexdigest()
    assert digest == "4f84a511b207e44e3abfe4045d04b31607cd4dd748e000792f1b59fefe677a00"


def test_loader_reads_every_record_in_order():
    records = raw_records()
    full = load_height_weight_full()
    assert list(full.columns) == ["height", "weight", "sex"]
    assert full.shape == (210, 3) and len(records) == 210
    assert all(len(r) == 3 and r[0] in (1, 2) for r in records)
    assert full["sex"].tolist() == ["m" if r[0] == 1 else "f" for r in records]
    assert full["height"].tolist() == [r[1] for r in records]
    assert full["weight"].tolist() == [r[2] for r in records]
    assert full["sex"].value_counts().to_dict() == {"f": 137, "m": 73}


def test_the_six_rows_of_the_notes_come_from_the_file_but_one_weight():
    full, six = load_height_weight_full(), load_height_weight()
    for c in ["m", "f"]:
        first = full[full.sex == c].head(3).reset_index(drop=True)
        rows = six[six.sex == c].reset_index(drop=True)
        assert first["height"].tolist() == rows["height"].tolist()
        differ = first["weight"] != rows["weight"]
        if c == "m":
            assert not differ.any()
        else:
            assert differ.tolist() == [False, False, True]
            assert (first["weight"].iloc[2], rows["weight"].iloc[2]) == (110, 120)


def test_the_printed_table_is_the_files_means_and_unbiased_sds():
    """Every printed number rounds from the 210 records: the means, and the standard
    deviations with 1/(N_c - 1); the 1/N_c ones miss every printed sd."""
    full = load_height_weight_full()
    for (c, f), (mean, sd) in PRINTED.items():
        values = full.loc[full.sex == c, f].to_numpy(dtype=float)
        assert round(values.mean(), 2) == mean, (c, f)
        assert round(values.std(ddof=1), 2) == sd, (c, f)
        assert round(values.std(ddof=0), 2) != sd, (c, f)
    six = load_height_weight()
    for (c, f), (mean, _) in PRINTED.items():
        assert not np.isclose(six.loc[six.sex == c, f].mean(), mean, atol=0.005)


def test_the_notice_ships_next_to_the_data():
    note = DATA.joinpath("heightWeightData.README.md").read_text(encoding="utf-8")
    for fact in [
        "probml/pyprobml",
        "74d7cfc77b96261b56bb554ea3be015711d9f927",
        "MIT",
        "Copyright (c) 2016 Kevin Murphy",
        "Permission is hereby granted, free of charge",
        "110 pounds in the file and 120 in the notes",
        "210 records",
    ]:
        assert fact in note, fact
    assert "heightWeightData.README.md" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_package_data_includes_the_file_and_its_note():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["nbcore"]
    for name in ["data/heightWeightData.txt", "data/heightWeightData.README.md"]:
        assert any(fnmatch.fnmatch(name, p) for p in patterns), name
