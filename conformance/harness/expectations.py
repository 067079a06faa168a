"""Expectations files: an engine's known failures, strict (README, Your own engine).

Format (YAML)::

    format: 1
    engine: gym-backgammon
    xfail:
      bg-7Q3K: {reason: "plays the smaller die when only one can be played",
                link: "https://example.org/acme-bg/issues/12"}
      bg-4UEK[chosen-play]: {reason: "chooses a one-die play when both dice can be played"}

An id with a bracket (``bg-4UEK[chosen-play]``) names one form of a case; a bare id names
all its forms. A listed case that fails is ``xfail``; a listed case that passes is ``xpass``
and fails the run, except under an entry with ``varies: true``: the engine's answer to that
form changes from run to run (a computer player that picks at random among the plays it takes
for legal), so a pass stays a pass and a failure is ``xfail``; an id that is not in the suite fails the run too (stale). An entry's
optional ``link`` (an http or https URL: the engine's bug report) is carried on the case's
report line and shown by every rendering.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from conformance.harness.derived import is_derived
from conformance.harness.compare import Outcome
from conformance.harness.runner import CaseResult


class ExpectationsError(ValueError):
    """An expectations file that cannot be read (message names file and problem)."""


@dataclass
class Expectations:
    """``engine`` name, ``xfail`` (case id -> reason), ``links`` (case id -> bug report URL) and
    ``kinds`` (case id -> one of ``KINDS``, for the entries that give one)."""

    engine: str
    xfail: dict[str, str]
    path: str = ""
    links: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    varies: set[str] = field(default_factory=set)

    def kind(self, name: str) -> str:
        """The kind of the entry for a case name (``bg-4UEK[chosen-play]``, else its bare id):
        ``KINDS[0]`` when the entry gives none or there is no entry."""
        return self.kinds.get(name, self.kinds.get(name.split("[", 1)[0], KINDS[0]))


#: what an entry's disagreement is (``kind``): the default first; ``unreviewed``: a known failure
#: not yet told apart from a notation or interface difference
KINDS = ("rule bug", "notation", "unreviewed")


def load(path: str | Path) -> Expectations:
    """Read an expectations file. Raises ExpectationsError."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ExpectationsError(f"{path}: cannot read expectations: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict) or data.get("format") != 1 or not isinstance(data.get("xfail", {}), dict):
        raise ExpectationsError(f"{path}: an expectations file is a mapping with format: 1, engine and xfail")
    xfail, links, kinds, varies = {}, {}, {}, set()
    for cid, entry in (data.get("xfail") or {}).items():
        reason = entry.get("reason") if isinstance(entry, dict) else None
        if not reason:
            raise ExpectationsError(f"{path}: xfail {cid} needs a reason")
        xfail[str(cid)] = str(reason)
        link = entry.get("link")
        if link is not None:
            if not isinstance(link, str) or not link.startswith(("https://", "http://")) or any(c.isspace() for c in link):
                raise ExpectationsError(f"{path}: xfail {cid}: link must be an http(s) URL (the engine's bug"
                                        f" report), not {link!r}")
            links[str(cid)] = link
        kind = entry.get("kind")
        if kind is not None:
            if kind not in KINDS:
                raise ExpectationsError(f"{path}: xfail {cid}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
            kinds[str(cid)] = kind
        if entry.get("varies", False) is not False:
            if entry["varies"] is not True:
                raise ExpectationsError(f"{path}: xfail {cid}: varies must be true or false, not {entry['varies']!r}")
            varies.add(str(cid))
    return Expectations(str(data.get("engine", "")), xfail, str(path), links, kinds, varies)


def apply_one(result: CaseResult, expectations: Expectations) -> None:
    """Turn a listed failure into ``xfail`` and a listed pass into ``xpass`` (in place). An entry
    by id covers every form of the case; a derived play check (``bg-7Q3K[check 3]``) that passes
    under an entry by id alone stays a pass: the entry lists the root case's bug, which shows
    in some of the plays derived from it, not in every one."""
    reason = expectations.xfail.get(result.case.name, expectations.xfail.get(result.case.id))
    if reason is None:
        return
    if result.status == "pass" and is_derived(result.case.scenario) and result.case.name not in expectations.xfail:
        return
    if result.status == "pass" and (result.case.name if result.case.name in expectations.xfail
                                    else result.case.id) in expectations.varies:
        return  # an answer that changes between runs, and was right this time
    r = result
    r.link = expectations.links.get(r.case.name, expectations.links.get(r.case.id))
    if r.status in ("fail", "errored", "timeout"):
        r.outcome = Outcome("xfail", f"expected failure ({reason}): {r.outcome.message}",
                            r.outcome.missing, r.outcome.extra, r.outcome.got, r.outcome.duplicates)
    elif r.status == "pass":
        r.outcome = Outcome("xpass", f"listed as a known failure ({reason}) but passes: remove it from"
                                     f" {expectations.path}")


def stale(expectations: Expectations, suite_ids: set[str]) -> list[str]:
    """The entries whose ids are not in the suite, as messages."""
    return [f"{expectations.path}: {cid} is not a case of the suite (stale entry; remove it)"
            for cid in sorted(set(expectations.xfail)) if cid.split("[", 1)[0] not in suite_ids]


def apply(results: list[CaseResult], expectations: Expectations, suite_ids: set[str]) -> list[str]:
    """``apply_one`` on every result; returns the stale entries (ids not in the suite)."""
    for r in results:
        apply_one(r, expectations)
    return stale(expectations, suite_ids)


def from_report(lines: list[dict]) -> str:
    """An expectations file (YAML text) listing every failed, errored or timed-out
    case of a JSON Lines report, with its message as the reason."""
    header = next((x for x in lines if x.get("type") == "header"), {})
    failing = [x for x in lines if x.get("type") == "case" and x["status"] in ("fail", "errored", "timeout", "xfail")]
    out = {"format": 1, "engine": header.get("engine", {}).get("name", ""),
           "xfail": {x["id"]: {"reason": f"{x['status']}: {x.get('message', '')}"[:300]}
                     for x in sorted(failing, key=lambda x: x["id"])}}
    return yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=100)
