"""Where the bundled suite lives: ``cases/`` and ``spec/``.

An installed wheel carries them as ``conformance/_data/{cases,spec}``; a source
checkout (editable install, or running from the repository) uses the
repository's own ``cases/`` and ``spec/`` next to the ``conformance`` package.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # the conformance package


@functools.lru_cache(maxsize=None)
def data_root() -> Path:
    """Directory holding ``cases/`` and ``spec/`` (Path). Raises FileNotFoundError."""
    for root in (_PACKAGE / "_data", _PACKAGE.parent):
        if (root / "cases").is_dir() and (root / "spec" / "schema").is_dir():
            return root
    raise FileNotFoundError("the bundled cases/ and spec/ were not found next to the conformance package")


def cases_dir() -> Path:
    """The bundled ``cases/`` directory."""
    return data_root() / "cases"


def spec_dir() -> Path:
    """The bundled ``spec/`` directory."""
    return data_root() / "spec"


def releases_dir() -> Path:
    """The directory of the frozen release manifests (``releases/VERSION.json``)."""
    return data_root() / "releases"


@functools.lru_cache(maxsize=None)
def case_schema() -> dict:
    """The case file JSON Schema (draft 2020-12) as a dict."""
    return json.loads((spec_dir() / "schema" / "case.schema.json").read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def report_schema() -> dict:
    """The JSON Lines report's JSON Schema (draft 2020-12, one line per instance) as a dict."""
    return json.loads((spec_dir() / "schema" / "report.schema.json").read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def spec_clauses(limit: int | None = 240) -> dict[str, str]:
    """Anchor -> one-line clause text, read from ``spec/rules.md``.

    An anchor is a line ``<a id="move.larger-die"></a>``; its text is the first
    paragraph after the heading, cut to about ``limit`` characters (None: whole; Markdown
    kept as is).
    """
    path = spec_dir() / "rules.md"
    if not path.exists():
        return {}
    clauses: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        m = re.search(r'<a id="([^"]+)"></a>', line)
        if not m:
            continue
        paragraph: list[str] = []
        for follow in lines[i + 1:]:
            s = follow.strip()
            if s.startswith("<a id=") or (paragraph and not s):
                break
            if s and not s.startswith("#"):
                paragraph.append(s)
        text = " ".join(paragraph)
        cut = limit is not None and len(text) > limit
        clauses[m.group(1)] = text[:limit - 3].rsplit(" ", 1)[0] + " ..." if cut else text
    return clauses


@functools.lru_cache(maxsize=None)
def registered_tags() -> frozenset[str]:
    """The tag names registered in ``cases/tags.yaml``."""
    import yaml

    path = cases_dir() / "tags.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    return frozenset(data or {})


@functools.lru_cache(maxsize=None)
def retired_ids() -> frozenset[str]:
    """Case ids listed in ``cases/RETIRED`` (never to be reused)."""
    path = cases_dir() / "RETIRED"
    if not path.exists():
        return frozenset()
    return frozenset(line.split("#")[0].strip() for line in path.read_text().splitlines()
                     if line.split("#")[0].strip())
