"""Frozen releases of the suite: ``bgconf release`` and ``bgconf run --suite-version V``.

A release manifest (``releases/VERSION.json``, schema ``spec/schema/release.schema.json``)
records the suite version, the spec, protocol and case format versions, the suite's
content hash, every case file with the SHA-256 of its bytes and the ids of its cases,
and the retired ids. ``bgconf run --suite-version V`` (and ``certify``) refuses a suite
whose files differ from release V's, so a pinned result is a result on exactly those
cases (docs/versions.md).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from conformance import __version__

from conformance.cases import resources

#: the version of the manifest's own layout
RELEASE_FORMAT = 1


class ReleaseError(ValueError):
    """A release that cannot be found or read, or a suite that does not match it."""


def file_hashes(paths) -> dict[str, str]:
    """Display path (``cases/movement/bar.yaml``) -> SHA-256 (hex) of each case file."""
    from conformance.cases import display_path

    return {display_path(p): hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in paths}


def manifest(suite, paths) -> dict:
    """The release manifest of a loaded suite (``paths``: its case files, as
    ``cases.case_files`` gives them)."""
    from conformance.commands.export import case_format, spec_version
    from conformance.engines.protocol import PROTOCOL

    ids: dict[str, list[str]] = {}
    for c in suite.cases:
        ids.setdefault(c.file, []).append(c.id)
    return {
        "bgconf_release": RELEASE_FORMAT, "suite_version": __version__, "spec_version": spec_version(),
        "protocol_version": PROTOCOL, "case_format": case_format(), "content_hash": suite.content_hash,
        "files": [{"path": path, "sha256": digest, "cases": sorted(ids.get(path, []))}
                  for path, digest in file_hashes(paths).items()],
        "case_ids": sorted(c.id for c in suite.cases), "retired": sorted(resources.retired_ids()),
    }


def find_release(version: str) -> tuple[Path, dict]:
    """The manifest of release ``version`` (a version of ``releases/`` or a path to a
    manifest file). Raises ReleaseError naming what is known."""
    path = Path(version)
    if not (version.endswith(".json") and path.is_file()):
        path = resources.releases_dir() / f"{version}.json"
    if not path.is_file():
        known = sorted(p.stem for p in resources.releases_dir().glob("*.json"))
        raise ReleaseError(f"no release {version!r}; released: {', '.join(known) or 'none yet'}"
                           " (or give the path of a manifest, FILE.json)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        files = {f["path"]: f["sha256"] for f in data["files"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReleaseError(f"{path}: not a release manifest ({type(exc).__name__}: {exc})") from None
    data["_files"] = files
    return path, data


def check_release(version: str, paths) -> str:
    """Check that the case files ``paths`` are exactly release ``version``'s; returns the
    release's suite version. Raises ReleaseError listing every file that differs."""
    where, release = find_release(version)
    want, have = release["_files"], file_hashes(paths)
    problems = [f"{p}: changed since the release" for p in sorted(want) if p in have and have[p] != want[p]]
    problems += [f"{p}: in the release, missing here" for p in sorted(set(want) - set(have))]
    problems += [f"{p}: not in the release" for p in sorted(set(have) - set(want))]
    if problems:
        raise ReleaseError(f"the suite is not release {release.get('suite_version', version)} ({where}): "
                           + "; ".join(problems[:10]) + (f"; and {len(problems) - 10} more" if len(problems) > 10 else ""))
    return release.get("suite_version", version)


def add_parser(sub) -> None:
    import argparse

    from conformance.commands.common import exit_codes

    p = sub.add_parser(
        "release", help="freeze the suite: write the release manifest releases/VERSION.json",
        description=f"Write the frozen manifest of the suite as it is now (suite version {__version__}): the"
                    " spec, protocol and case format versions, the content hash, each case file's SHA-256 and"
                    " case ids, and the retired ids. An existing manifest of the same version is never"
                    " overwritten with other content: change the suite version first. bgconf run"
                    " --suite-version VERSION then refuses any other content.",
        epilog="examples:\n  bgconf release                       # writes releases/VERSION.json\n"
               "  bgconf run --engine gnubg --suite-version 2026.11.0\n\n" + exit_codes({0: "the manifest is written, or already holds this content", 2: "bad command line, no case file, an --out that cannot be written, or a manifest of this version frozen with other content", 3: "a case file has errors (each printed as file:line: case id: message); nothing is written"}),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", metavar="FILE.json",
                   help=f"where to write (default {__version__}.json in the suite's releases/ directory, where"
                        " run --suite-version looks, whatever the current directory)")
    p.add_argument("--cases", action="append", metavar="PATH",
                   help="case files or directories instead of the bundled suite (repeatable)")
    p.set_defaults(func=cmd_release)


def cmd_release(args) -> int:
    import sys

    from conformance.cases import USER_SUFFIX, case_files, load_suite
    from conformance.commands.common import EXIT_BAD_CASES, EXIT_OK, EXIT_USAGE, check_outputs, err, write_text

    out = Path(args.out) if args.out else resources.releases_dir() / f"{__version__}.json"
    check_outputs({"--out": str(out)})
    paths = case_files([Path(p) for p in args.cases] if args.cases else None)
    if not paths:
        err(f"no case files in {', '.join(args.cases)} (a directory is searched for *{USER_SUFFIX} files)")
        return EXIT_USAGE
    try:
        suite = load_suite(paths)
    except ValueError as exc:
        err(str(exc))
        return EXIT_USAGE
    if suite.errors:
        for e in suite.errors:
            print(f"error: {e}", file=sys.stderr)
        err("a suite with case file errors cannot be released")
        return EXIT_BAD_CASES
    text = json.dumps(manifest(suite, paths), indent=1) + "\n"
    if out.exists():
        if out.read_text(encoding="utf-8") == text:
            print(f"{out}: release {__version__} is already this content ({suite.content_hash[:12]})")
            return EXIT_OK
        err(f"{out}: release {__version__} is frozen with other content; a changed suite needs a new suite"
            " version (conformance/__init__.py, docs/versions.md)")
        return EXIT_USAGE
    if not write_text("--out", out, text):
        return EXIT_USAGE
    print(f"wrote {out}: release {__version__}, {len(suite.cases)} cases in {len(paths)} files,"
          f" content {suite.content_hash[:12]}")
    return EXIT_OK
