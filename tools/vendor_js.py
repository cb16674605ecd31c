"""Vendor the JavaScript the offline book and its tests need, from pinned npm tarballs.

The HTML book shows saved widget state with ``@jupyter-widgets/html-manager`` (its
``embed-amd.js`` bundle, loaded through ``requirejs``). By default myst-nb loads both from
CDNs; the book must work offline, so this script fetches the pinned tarballs from the
npm registry at install time (``npm pack``), checks each against the registry integrity
hash (SHA-512) committed below, and copies the files the page needs into
``book-assets/static/offline-js/``. Sphinx copies that folder into ``_build/html/_static/``
(``html_static_path`` in ``_config.yml``) and ``nb_ipywidgets_js`` points at it.

The accessibility audit's engine, ``axe-core``, is vendored the same way into
``book-assets/test-js/``, which the book does not ship: the browser test injects it.

Usage: ``python tools/vendor_js.py [--check]``. Runs ``npm`` only when the vendored files are
missing or were made from other pins; ``--check`` only verifies what is there.
"""

import argparse
import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "book-assets" / "static" / "offline-js"
TEST_DEST = ROOT / "book-assets" / "test-js"  # used by tests only, not copied into the book
STAMP = DEST / "pins.json"

# name -> (version, npm registry integrity of the tarball, target folder, files to copy, and
# optionally "dest": "test" for TEST_DEST instead of DEST).
# Files are globs relative to the package root inside the tarball.
PINS = {
    "@jupyter-widgets/html-manager": {
        "version": "1.0.15",
        "integrity": (
            "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//"
            "SABeNz1yp47bCrJ3CQA=="
        ),
        "folder": "html-manager",
        # embed-amd.js loads its icon fonts from its own folder (webpack public path).
        "files": [
            "dist/embed-amd.js",
            "dist/*.woff",
            "dist/*.woff2",
            "dist/*.ttf",
            "dist/*.eot",
            "dist/*.svg",
            "LICENSE",
            "package.json",
        ],
    },
    "requirejs": {
        "version": "2.3.8",
        "integrity": (
            "sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIon"
            "FlyQXSowL6Mw=="
        ),
        "folder": "requirejs",
        "files": ["require.js", "package.json"],
    },
    "axe-core": {
        "version": "4.14.1",
        "integrity": (
            "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJp"
            "Ze37OgudVGtQ=="
        ),
        "folder": "axe-core",
        "dest": "test",
        "files": ["axe.min.js", "LICENSE", "package.json"],
    },
}

# The files the book's pages reference (nb_ipywidgets_js in _config.yml), and the audit script.
ENTRY_POINTS = [
    DEST / "requirejs" / "require.js",
    DEST / "html-manager" / "embed-amd.js",
    TEST_DEST / "axe-core" / "axe.min.js",
]


def target_of(spec):
    """The folder a package's files are copied into."""
    return (TEST_DEST if spec.get("dest") == "test" else DEST) / spec["folder"]


def sri_sha512(path):
    """The Subresource-Integrity style hash npm records: 'sha512-' + base64(SHA-512)."""
    digest = hashlib.sha512(Path(path).read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode("ascii")


def npm_pack(name, version, workdir):
    """Download one package tarball from the npm registry; return its path."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit(
            "npm is needed once, at install time, to fetch the widget manager for the offline "
            "book. Install Node.js and npm (Debian: sudo apt-get install nodejs npm)."
        )
    result = subprocess.run(
        [npm, "pack", "--json", "--ignore-scripts", f"{name}@{version}"],
        cwd=workdir,
        check=True,
        capture_output=True,
        text=True,
    )
    info = json.loads(result.stdout)[0]
    return Path(workdir) / info["filename"]


def extract(tarball, spec, target):
    """Copy the files matching spec['files'] out of the tarball's package/ folder."""
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(tarball, "r:gz") as tar:
            tar.extractall(tmp, filter="data")
        package = Path(tmp) / "package"
        meta = json.loads((package / "package.json").read_text(encoding="utf-8"))
        if meta.get("version") != spec["version"]:
            raise SystemExit(
                f"{tarball.name}: expected version {spec['version']}, found {meta.get('version')}"
            )
        copied = 0
        for pattern in spec["files"]:
            for src in sorted(package.glob(pattern)):
                dst = target / src.name
                shutil.copyfile(src, dst)
                copied += 1
        if copied == 0:
            raise SystemExit(f"{tarball.name}: none of {spec['files']} found")


def vendored_ok():
    if not STAMP.is_file():
        return False
    try:
        stamp = json.loads(STAMP.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return False
    pins = {name: (spec["version"], spec["integrity"]) for name, spec in PINS.items()}
    recorded = {name: tuple(v) for name, v in stamp.items()}
    return recorded == pins and all(entry.is_file() for entry in ENTRY_POINTS)


def vendor():
    for folder in (DEST, TEST_DEST):
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as work:
        for name, spec in PINS.items():
            tarball = npm_pack(name, spec["version"], work)
            actual = sri_sha512(tarball)
            if actual != spec["integrity"]:
                shutil.rmtree(DEST)
                shutil.rmtree(TEST_DEST)
                raise SystemExit(
                    f"{name}@{spec['version']}: integrity mismatch\n"
                    f"  expected {spec['integrity']}\n  got      {actual}"
                )
            target = target_of(spec)
            target.mkdir()
            extract(tarball, spec, target)
            print(f"vendored {name}@{spec['version']} into {target.relative_to(ROOT)}")
    stamp = {name: [spec["version"], spec["integrity"]] for name, spec in PINS.items()}
    STAMP.write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="only check the vendored files, fetch nothing"
    )
    args = parser.parse_args(argv)
    if vendored_ok():
        STAMP.touch()  # newer than this script: make does not ask again
        print(f"vendored JavaScript is up to date in {DEST.relative_to(ROOT)}")
        return 0
    if args.check:
        print(f"vendored JavaScript missing or stale in {DEST}: run `make install`")
        return 1
    vendor()
    return 0


if __name__ == "__main__":
    sys.exit(main())
