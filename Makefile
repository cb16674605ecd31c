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

.PHONY: help install system system-grading book pdf test lint lab student grade bench clean \
	execute book-html test-notebooks book-student wheel regrade

help:
	@echo "make book     build the HTML course book into _build/html, with its PDF"
	@echo "make pdf      print the book to _build/pdf/book.pdf (Chromium, no TeX)"
	@echo "make test     run every test (unit tests, notebooks, book build checks)"
	@echo "make lab      start JupyterLab on the book"
	@echo "make student  write student copies of the chapters into _build/student (CHAPTER=03: one;"
	@echo "              COURSE=course.toml: its chapters; ROSTER=roster.csv SECRET_FILE=secret.txt)"
	@echo "make execute  run the chapters, store their outputs in book/*.ipynb (CHAPTER=03: one)"
	@echo "make book-student  the book without unreleased solutions (RELEASED=01,02, or COURSE=)"
	@echo "make wheel    dist/nbcore-<version>-py3-none-any.whl for the students' install"
	@echo "make grade NB=path   grade a submitted notebook, a folder or a ZIP of them (COURSE=,"
	@echo "              ROSTER=, SECRET_FILE=, RELEASED=01,02): gradebooks, LMS files,"
	@echo "              report_<chapter>.html, feedback/<student>/<chapter>.html"
	@echo "make regrade STATE=grades/state   grade the stored submissions again, report changes"
	@echo "make bench    time nbcore against scikit-learn, and grading 10 copies of each chapter"

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
	@# the two builds are independent (the PDF prints the notebooks' stored outputs): one core each
	$(MAKE) --no-print-directory -j2 book-html pdf
	cp _build/pdf/book.pdf _build/html/book.pdf
	$(BIN)/python -m pytest -n 2 --dist loadscope --durations=30 tests
	$(MAKE) --no-print-directory test-notebooks

lint: $(STAMP)
	$(BIN)/ruff check nbcore tests benchmarks tools
	$(BIN)/ruff format --check nbcore tests benchmarks tools

# Estimators against scikit-learn (time and peak memory ratios), then the time to grade 10
# filled copies of every chapter in the sandbox, and the slowest (benchmarks/grading.py).
bench: $(STAMP)
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/grading.py --copies 10 --chapter all

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

# Sync each book/NN_slug.md with its .ipynb (the newer file of the pair gives the cells' text
# to the other) and store the outputs of a real run in the .ipynb. CHAPTER=03 (or 03,05): only
# those chapters.
comma := ,
CHAPTER_NUMBERS := $(subst $(comma), ,$(CHAPTER))
execute: $(STAMP)
	$(BIN)/python tools/execute.py $(CHAPTER_NUMBERS)

# The student edition: the book with the solutions and checks of every chapter not listed in
# RELEASED (RELEASED=01,02), or released by the dates of COURSE=course.toml, left out, built from the stored outputs into
# _build/student-book/html/ and _build/student-book/book.pdf (tools/student_book.py).
book-student: system $(STAMP) $(JS_STAMP)
	$(BIN)/python tools/student_book.py $(if $(RELEASED),--released '$(RELEASED)') \
		$(if $(COURSE),--course '$(COURSE)')

# What students install: dist/nbcore-<version>-py3-none-any.whl, nbcore and the dependencies
# of its course extra; no chapter, no solution (tests/test_wheel.py).
wheel: $(STAMP)
	rm -rf build
	$(BIN)/python -m pip wheel --quiet --disable-pip-version-check --no-deps -w dist .
	rm -rf build
	@ls dist/nbcore-*-py3-none-any.whl

# Every cell of every chapter notebook runs; its output must equal the stored one.
test-notebooks: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadscope $(NBVAL) book

# JupyterLab on copies of the chapters in _build/lab/book (tools/lab.py), so that running a
# chapter never changes the repository's book/: a copy is made again when the book's file
# changes, and a copy edited in Lab is then kept in _build/lab/.replaced/. The file browser
# shows one file per chapter (its MyST .md, which opens as a notebook with the outputs of the
# hidden paired .ipynb). The .venv kernel (the env's kernels win over user ones); the project's
# Lab settings (book-assets/jupyter/labconfig); nothing fetched from the web (no extension
# manager listings, no news feed, no update check); workspaces (open tabs, layout) of its own
# in _build/lab-workspaces; kernels talk to the server over CurveZMQ-encrypted sockets.
# LAB_ARGS="--no-browser --port 8890" passes options to jupyter lab; LAB_FRESH=1 copies anew.
lab: system $(STAMP)
	$(BIN)/python tools/lab.py $(if $(LAB_FRESH),--fresh) $(if $(LAB_ARGS),-- $(LAB_ARGS))

# --- classroom: student copies and grading (nbcore/classroom, format in CONTRIBUTING.md) --
# Student copies of every chapter: solutions and expected values removed, answer cells in
# their place. ROSTER=roster.csv: one copy per student, on the student's own variant (needs the
# course secret: NBCORE_COURSE_SECRET, or SECRET_FILE=path).
# CHAPTERS=path/: a folder of chapters of your own (private exercises) instead of book/.
# CHAPTER=03 (or 03,05): only those chapters of that folder.
CHAPTERS ?= book
# The course file, roster and secret, given the same way to student, grade and regrade.
CLASSFLAGS = $(if $(COURSE),--course '$(COURSE)') $(if $(ROSTER),--roster '$(ROSTER)') \
	$(if $(SECRET_FILE),--secret-file '$(SECRET_FILE)') $(if $(RELEASED),--released '$(RELEASED)')
CHAPTER_FILES = $(foreach n,$(CHAPTER_NUMBERS),$(or $(wildcard $(CHAPTERS)/$(n)_*.ipynb),$(error no chapter $(n) in $(CHAPTERS)/)))
student: $(STAMP)
	$(BIN)/python -m nbcore.classroom student $(if $(CHAPTER),$(CHAPTER_FILES),'$(CHAPTERS)') --out _build/student \
		$(CLASSFLAGS)

# Grade one returned notebook, a folder or a ZIP of them as an LMS hands them out (a folder
# also gets gradebook_<chapter>.csv and gradebook_details.csv, the class report
# report_<chapter>.html and a feedback page per student, feedback/<student>/<chapter>.html,
# with the expected values of the chapters in RELEASED=01,02 or released by COURSE's dates;
# with a roster, canvas_ and moodle_<chapter>.csv; a state/ folder kept for regrading). Student code runs in a bubblewrap
# sandbox. SECRET_FILE=path: the course secret of roster copies (else NBCORE_COURSE_SECRET);
# ROSTER=path or COURSE=course.toml; SUBMITTED=times.csv: when each was handed in (late rule);
# CHAPTERS=path/: the chapters the copies were made from.
# Options: GRADEFLAGS="--jobs 2 --timeout 30 --budget 600 --out grades".
grade: system-grading $(STAMP)
	@test -n "$(NB)" || { echo "usage: make grade NB=path/to/notebook-or-folder" >&2; exit 2; }
	$(BIN)/python -m nbcore.classroom grade '$(NB)' --solutions '$(CHAPTERS)' \
		$(CLASSFLAGS) $(if $(SUBMITTED),--submitted '$(SUBMITTED)') $(GRADEFLAGS)

# Grade the submissions a grading kept (STATE=grades/state) again, with the checks as they
# are now, on the seeds recorded for them; prints every score that changed and rewrites the
# gradebooks and LMS files (overrides.csv applied).
regrade: system-grading $(STAMP)
	@test -n "$(STATE)" || { echo "usage: make regrade STATE=grades/state" >&2; exit 2; }
	$(BIN)/python -m nbcore.classroom regrade '$(STATE)' --solutions '$(CHAPTERS)' $(CLASSFLAGS)
