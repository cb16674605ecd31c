# The two commands a fresh clone needs: `make book` and `make test`.
# Each creates .venv and installs the pinned environment first (once; again when the pins change).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: help install book test lint lab student grade bench clean

help:
	@echo "make book     build the HTML course book into _build/html"
	@echo "make test     run every test (unit tests, notebooks, book build checks)"
	@echo "make lab      start JupyterLab on the book"
	@echo "make student  write student copies of the chapters into _build/student"
	@echo "make grade NB=path   grade one submitted notebook or a folder of them"
	@echo "make bench    time nbcore against scikit-learn"

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[dev]"
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadscope tests

lint: $(STAMP)
	$(BIN)/ruff check nbcore tests benchmarks
	$(BIN)/ruff format --check nbcore tests benchmarks

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf _build
