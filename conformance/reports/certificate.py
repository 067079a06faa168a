"""Re-checking a certificate's report against this bgconf's bundled suite (``bgconf certify
--verify CERT.jsonl``): the same suite version and content hash, a full selection, every case of
the profile present once and judged, a complete run, and a certified verdict.
"""

from __future__ import annotations

from collections import Counter

from conformance import __version__

from conformance.cases import load_suite
from conformance.harness.profiles import PROFILES, in_profile
from conformance.reports import render


class NotACertificate(ValueError):
    """A report --verify cannot judge: a replay report, no header line, an unknown profile."""


def verify_report(lines: list[dict]) -> dict:
    """The re-check of a report's lines (as ``render.read_jsonl`` gives them) against the
    bundled suite (what a certificate is: README.md, "Certification")::

        {"problems": [str, ...], "who": "NAME VERSION", "profile": str, "cases": n,
         "content_hash": str, "why": str}

    ``problems`` is empty when the certificate holds; ``cases`` counts the cases of the
    profile, ``why`` is the verdict's reason. Raises NotACertificate (the message says why)
    and KeyError, TypeError, AttributeError or ValueError for a report of the wrong shape."""
    head, cases, foot = render._parts(lines)
    problems = []
    if lines and isinstance(lines[0], dict) and lines[0].get("type") == "replay-header":
        raise NotACertificate("a bgconf replay report; --verify reads the report of a certify or run")
    if not head:
        raise NotACertificate("no header line: not a bgconf report")
    picked = head.get("selection") or {}
    profile = picked.get("profile") or "complete"
    suite = load_suite()
    if head.get("suite_version") != __version__:
        problems.append(f"suite version {head.get('suite_version')!r}, this bgconf has {__version__}")
    if head.get("content_hash") != suite.content_hash:
        problems.append("the suite's content hash differs from this bgconf's bundled suite: the cases were not"
                        " the released ones")
    if not picked.get("full"):
        problems.append(f"the run was narrowed ({render.narrowing(picked) or 'selection not recorded'})")
    if profile not in PROFILES:
        raise NotACertificate(f"profile {profile!r} is not one of {', '.join(PROFILES)}")
    levels = {c.id: c.level for c in suite.cases}
    relevelled = sorted(c["id"] for c in cases if c["id"] in levels and c.get("level", "must") != levels[c["id"]])
    if relevelled:
        problems.append(f"case level(s) differ from the suite's: {', '.join(relevelled[:5])}")
    if foot and (foot.get("interrupted") or foot.get("given_up")) and not foot.get("incomplete"):
        problems.append("the footer says interrupted or given up but not incomplete")
    want = {c.id for c in suite.cases if in_profile(c, profile)}
    seen = Counter(c["id"] for c in cases if not c.get("scenario"))
    missing = sorted(want - set(seen))
    if missing:
        problems.append(f"{len(missing)} case(s) of profile {profile} are not in the report"
                        f" ({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''})")
    twice = sorted(cid for cid, n in seen.items() if n > 1)
    if twice:
        problems.append(f"case(s) reported more than once: {', '.join(twice[:5])}")
    extra = sorted(set(seen) - want)
    if extra:
        problems.append(f"case(s) not in profile {profile}: {', '.join(extra[:5])}")
    if not foot:
        problems.append("no footer: the run did not finish")
    elif foot.get("incomplete"):
        problems.append("the run is incomplete" + (f" ({foot.get('given_up')})" if foot.get("given_up") else ""))
    v = render.verdict(lines, profile)
    engine = head.get("engine", {})
    who = f"{engine.get('name', '?')} {engine.get('version', '')}".strip()
    if not problems and not v["certified"]:
        problems.append(f"the verdict is not certified: {v['why']}")
    return {"problems": problems, "who": who, "profile": profile, "cases": len(want),
            "content_hash": suite.content_hash, "why": v["why"]}
