"""The suite as one JSON document, for use without the harness (``bgconf export``).

Every case resolved (schema: ``spec/schema/export.schema.json``): its position in board
form, as a GNU Backgammon Position ID and as an XGID (none for hypergammon: spec:
variant.codecs); the dice, play and rule options;
the expected value as written and resolved (for ``legal_plays`` every expected play as
notation and as a resulting position); the text of each spec clause it names; and the
exact request bgconf sends an engine for it (spec/protocol.md, ``run``). The versions it
belongs to head the document (docs/versions.md).
"""

from __future__ import annotations

import json

from conformance import __version__

from conformance.cases import resources
from conformance.model import Position, encode_position_id, encode_xgid

#: the version of the export document's own layout (spec/schema/export.schema.json)
EXPORT_FORMAT = 1


def _position(position: Position) -> dict:
    """The forms of a position; ``xgid`` is None for a hypergammon position (an XGID cannot say
    how many checkers a side has: spec: variant.codecs; its Position ID is read with the case's
    variant, which ``rules`` gives)."""
    return {"board": position.to_wire(), "gnubg_id": encode_position_id(position),
            "xgid": encode_xgid(position) if position.checkers == 15 else None, "on_roll": position.on_roll}


def _plays(mapping: dict) -> list[dict]:
    """position -> notation, as a list of plays sorted by notation."""
    return sorted(({"notation": notation, **_position(result)} for result, notation in mapping.items()),
                  key=lambda p: p["notation"])


def _expected(case) -> object:
    """The parsed expectation in JSON form (see the schema's ``expected``)."""
    from conformance.cases import ExpectedPlays, ExpectedRecord

    value = case.expected
    if isinstance(value, ExpectedPlays):
        if value.exact is not None:
            return {"plays": _plays(value.exact)}
        return {"count": value.count, "includes": _plays(value.includes), "excludes": _plays(value.excludes)}
    if isinstance(value, Position):
        return {"position": _position(value)}
    if case.kind == "play_check":
        legal, reason = value
        return {"legal": legal, "reason": reason}
    if case.kind == "codec" and isinstance(value, tuple):  # ("refused", reason): the input must be refused
        return {"refused": value[1]}
    if isinstance(value, ExpectedRecord):
        state = lambda s: None if s is None else {k: _position(v) if isinstance(v, Position) else v  # noqa: E731
                                                  for k, v in s.items()}
        return {"events": [{"refused": r, "state": state(st)} for r, st in zip(value.refused, value.states)],
                "final": state(value.final)}
    return value


def _jsonable(value):
    """YAML values as JSON carries them (integer keys become strings)."""
    return json.loads(json.dumps(value, default=list))


def export_case(case, clauses: dict[str, str]) -> dict:
    """One case resolved (the schema's ``case``)."""
    return _jsonable({
        "id": case.id, "title": case.title, "kind": case.kind, "level": case.level,
        "spec": [{"anchor": a, "text": clauses.get(a, "")} for a in case.spec],
        "tags": list(case.tags), "requires": list(case.requires), "file": case.file, "line": case.line,
        "rules": dict(case.effective_rules),
        "position": _position(case.position) if case.position is not None else None,
        "dice": list(case.dice) if case.dice else None, "play": case.play,
        "steps": [list(s) for s in case.steps] if case.steps else None,
        "expect": case.expect, "expected": _expected(case),
        "request": case.request(), "provenance": case.provenance, "written": case.raw,
    })


def export_suite(suite) -> dict:
    """The whole document: versions, content hash, files and every case."""
    from conformance.engines.protocol import PROTOCOL

    clauses = resources.spec_clauses(limit=None)
    return {
        "bgconf_export": EXPORT_FORMAT, "suite_version": __version__, "spec_version": spec_version(),
        "protocol_version": PROTOCOL, "case_format": case_format(), "content_hash": suite.content_hash,
        "files": list(suite.files), "cases": [export_case(c, clauses) for c in suite.cases],
    }


def case_format() -> int:
    """The case file format version this bgconf reads (``format:``, from the case schema)."""
    return resources.case_schema()["properties"]["format"]["const"]


def spec_version() -> str:
    """The rules spec's version (SemVer), from ``spec/VERSION``."""
    return (resources.spec_dir() / "VERSION").read_text(encoding="utf-8").strip()
