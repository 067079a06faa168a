"""Frozen releases of the suite: the manifests of ``bgconf release`` and the check of ``--suite-version V``.

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
    from conformance.reports.export import case_format, spec_version
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


def installed() -> bool:
    """Whether the bundled suite is that of an installed package (``conformance/_data``, as a
    wheel carries it) rather than a source tree's ``cases/`` and ``spec/``."""
    import conformance

    return resources.data_root().resolve() == (Path(conformance.__file__).resolve().parent / "_data")


def default_out(version: str = __version__) -> Path:
    """Where ``bgconf release`` writes without ``--out``: ``releases/VERSION.json`` of the source
    tree it runs from. Raises ReleaseError when bgconf runs from an installed package, whose
    files are the package manager's, never bgconf's to change."""
    if installed():
        raise ReleaseError(f"bgconf runs from an installed package ({resources.data_root()}), whose releases/"
                           " are not to be written into; give --out FILE.json (or run bgconf release from a"
                           " source checkout, which writes its releases/)")
    return resources.releases_dir() / f"{version}.json"


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
