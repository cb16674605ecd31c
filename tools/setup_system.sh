#!/bin/sh
# The system packages `make install` needs besides Python, installed when they are missing.
#
#   python3 -m venv   python3-venv   creates .venv (Debian ships ensurepip separately)
#   npm               npm            fetches the pinned widget manager once (tools/vendor_js.py)
#   chromium          chromium       the browser test, the accessibility audit, `make pdf`
#   chromedriver      chromium-driver  lets the tests drive Chromium (selenium)
#   bwrap             bubblewrap     the grader's sandbox for student code (with --grading only)
#
# What it does when something is missing:
#   * as root, or with sudo that needs no password (`sudo -n true`), it runs
#     apt-get update && apt-get install -y PACKAGES (through sudo when not root);
#   * otherwise it prints the exact command to run and exits with status 1, at once;
#   * without apt-get it names what is missing and exits with status 1.
#
# Usage: tools/setup_system.sh [--dry-run] [--grading]
#   --dry-run  print what it would do (the missing packages and the command), change nothing.
#   --grading  also bubblewrap: only grading needs it (`make grade`, `make test`); reading the
#              book, `make lab` and `make student` work without it (on macOS too).
#   PYTHON=... the interpreter that will create .venv (default python3), as in the Makefile.
set -eu

dry_run=0
grading=0
for argument in "$@"; do
  case "$argument" in
    --dry-run) dry_run=1 ;;
    --grading) grading=1 ;;
    *) echo "usage: $0 [--dry-run] [--grading]" >&2; exit 2 ;;
  esac
done
PYTHON="${PYTHON:-python3}"

have() { command -v "$1" >/dev/null 2>&1; }

missing=""
need() { missing="${missing:+$missing }$1"; }

# python3-venv: `python -m venv` needs ensurepip, which Debian packages on its own.
if ! have "$PYTHON"; then
  need python3
  need python3-venv
elif ! "$PYTHON" -c "import ensurepip, venv" >/dev/null 2>&1; then
  need python3-venv
fi
have npm || need npm
have chromium || have chromium-browser || need chromium
have chromedriver || need chromium-driver
[ "$grading" = 0 ] || have bwrap || need bubblewrap

if [ -z "$missing" ]; then
  [ "$dry_run" = 0 ] || echo "system packages: all present"
  exit 0
fi

echo "system packages missing: $missing"

if ! have apt-get; then
  echo "No apt-get here: install these with your system's package manager, then run make again:" >&2
  echo "    $missing" >&2
  echo "(Node.js npm, Chromium and its ChromeDriver, bubblewrap, Python's venv module)" >&2
  exit 1
fi

if [ "$(id -u)" = 0 ]; then
  sudo=""
elif have sudo && sudo -n true >/dev/null 2>&1; then
  sudo="sudo "
else
  echo "Installing them needs root. Run this, then run make again:" >&2
  echo "    sudo apt-get update && sudo apt-get install -y $missing" >&2
  exit 1
fi

install="env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq"
command="${sudo}apt-get update -qq && ${sudo}$install $missing"
if [ "$dry_run" = 1 ]; then
  echo "would run: $command"
  exit 0
fi
echo "running: $command"
${sudo}apt-get update -qq
# shellcheck disable=SC2086 # $install and $missing are lists of words
${sudo}$install $missing
