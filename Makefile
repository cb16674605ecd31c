# The two commands a fresh clone needs: `make book` and `make test`.
# Each installs first: the missing system packages (tools/setup_system.sh: npm, Chromium and its
# driver; bubblewrap too for `make test` and `make grade`, which sandbox student code; with
# apt-get as root or password-less sudo, otherwise it stops and prints
# the command to run), then .venv with the pinned environment (once; again when the pins change).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# book pipeline: vendored offline JS (see tools/vendor_js.py) and the nbval options
JS_STAMP := book-assets/static/offline-js/pins.json
NBVAL    := --nbval --nbval-current-env --nbval-sanitize-with book/sanitize.cfg

.PHONY: help install system system-grading book pdf test lint lab student grade bench clean execute book-html test-notebooks

help:
	@echo "make book     build the HTML course book into _build/html, with its PDF"
	@echo "make pdf      print the book to _build/pdf/book.pdf (Chromium, no TeX)"
	@echo "make test     run every test (unit tests, notebooks, book build checks)"
	@echo "make lab      start JupyterLab on the book"
	@echo "make student  write student copies of the chapters into _build/student"
	@echo "make grade NB=path   grade one submitted notebook or a folder of them"
	@echo "make bench    time nbcore against scikit-learn, and grading 50 copies"

install: system $(STAMP) $(JS_STAMP)

# Checked on every make that installs (a few `command -v`); installs only what is missing.
system:
	@PYTHON=$(PYTHON) sh tools/setup_system.sh

# Grading runs student code in a bubblewrap sandbox (Linux): only `make grade` and `make test`
# need it; the book, `make lab` and `make student` do not.
system-grading:
	@PYTHON=$(PYTHON) sh tools/setup_system.sh --grading

$(STAMP): pyproject.toml constraints.txt | system
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[dev]"
	touch $(STAMP)

test: system-grading system $(STAMP) $(JS_STAMP)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory book-html
	$(MAKE) --no-print-directory pdf
	$(BIN)/python -m pytest -n 2 --dist loadscope tests
	$(MAKE) --no-print-directory test-notebooks

lint: $(STAMP)
	$(BIN)/ruff check nbcore tests benchmarks tools
	$(BIN)/ruff format --check nbcore tests benchmarks tools

# Estimators against scikit-learn (time and peak memory ratios), then the time to grade 50
# filled copies of one chapter in the sandbox (benchmarks/grading.py).
bench: $(STAMP)
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/grading.py --copies 50

clean:
	rm -rf _build

# --- book pipeline: JS vendoring, book, lab, execute, notebook tests -------------------------
# The HTML book works offline: the ipywidgets HTML manager and require.js are fetched from the
# npm registry once, at install time, checked against pinned SHA-512 hashes, and copied into
# book-assets/static/ (served as _build/html/_static/offline-js/).

$(JS_STAMP): tools/vendor_js.py | system $(STAMP)
	$(BIN)/python tools/vendor_js.py

# Every notebook is executed (execute_notebooks: inline: the prose's {eval} expressions are
# evaluated in the run, in order), warnings are errors.
book-html: system $(STAMP) $(JS_STAMP)
	$(BIN)/jupyter-book build -W -n --keep-going --all .

# The HTML book links its printed edition: make pdf copies book.pdf into _build/html.
book: book-html
	$(MAKE) --no-print-directory pdf
	@echo "The book is at $(CURDIR)/_build/html/index.html"

# The printed edition: a single-page build from the notebooks' stored outputs, printed by
# headless Chromium once MathJax has typeset (tools/build_pdf.py; no TeX needed).
pdf: system $(STAMP) $(JS_STAMP)
	$(BIN)/python tools/build_pdf.py

# Sync each book/NN_slug.md with its .ipynb and store the outputs of a real run in the .ipynb.
execute: $(STAMP)
	$(BIN)/python tools/execute.py

# Every cell of every chapter notebook runs; its output must equal the stored one.
test-notebooks: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadscope $(NBVAL) book

# JupyterLab on the book with the .venv kernel (the env's kernels win over user ones); MyST .md
# chapters open as notebooks (book-assets/jupyter/labconfig). Nothing is fetched from the web:
# no extension manager listings, no news feed, no update check. Its workspaces (open tabs,
# layout) are the project's own, in _build/lab-workspaces, not ~/.jupyter/lab/workspaces;
# kernels talk to the server over CurveZMQ-encrypted sockets, not plain TCP.
LAB_WORKSPACES := $(CURDIR)/_build/lab-workspaces

lab: system $(STAMP)
	mkdir -p $(LAB_WORKSPACES)
	JUPYTER_PREFER_ENV_PATH=1 JUPYTER_CONFIG_PATH=$(CURDIR)/book-assets/jupyter \
		$(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) --LabApp.default_url=/lab/tree/book \
		--LabApp.workspaces_dir=$(LAB_WORKSPACES) --KernelManager.transport_encryption=auto \
		--LabApp.extension_manager=readonly --LabApp.news_url=None \
		--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# --- classroom: student copies and grading (nbcore/classroom, format in CONTRIBUTING.md) --
# Student copies of every chapter: solutions and expected values removed, answer cells in
# their place. ROSTER=roster.csv: one copy per student, on the student's own variant (needs the
# course secret: NBCORE_COURSE_SECRET, or SECRET_FILE=path).
# CHAPTERS=path/: a folder of chapters of your own (private exercises) instead of book/.
CHAPTERS ?= book

student: $(STAMP)
	$(BIN)/python -m nbcore.classroom student '$(CHAPTERS)' --out _build/student \
		$(if $(ROSTER),--roster '$(ROSTER)') $(if $(SECRET_FILE),--secret-file '$(SECRET_FILE)')

# Grade one returned notebook or a folder of them (a folder also gets gradebook_<chapter>.csv
# and gradebook_details.csv). Student code runs in a bubblewrap sandbox. SECRET_FILE=path: the
# course secret of roster copies (else NBCORE_COURSE_SECRET); CHAPTERS=path/: the chapters the
# copies were made from. Options: GRADEFLAGS="--jobs 2 --timeout 30 --budget 600 --out grades".
grade: system-grading $(STAMP)
	@test -n "$(NB)" || { echo "usage: make grade NB=path/to/notebook-or-folder" >&2; exit 2; }
	$(BIN)/python -m nbcore.classroom grade '$(NB)' --solutions '$(CHAPTERS)' \
		$(if $(SECRET_FILE),--secret-file '$(SECRET_FILE)') $(GRADEFLAGS)
