"""Re-checking a certificate's report against this bgconf's bundled suite (``bgconf certify
--verify CERT.jsonl``), and comparing it with a fresh run of the engine (``--rerun``).

What ``verify_report`` checks, from the report alone: the same suite version and content hash,
a full selection, every case of the profile present once, in every scenario that applies to it
(colours swapped, dice reversed, each position form the header's engine declares), the case
levels of the suite, footer counts equal to the case lines, a complete run, every ``unsupported``
reason one the header's engine description gives (a capability it does not declare that the case
needs, a rule option value of the case it does not offer), and a certified verdict. With the
description of the engine ``--engine`` names, that the header describes that engine. What it
cannot check is that the engine gives these answers: only a run does (``asked_for`` and
``difference``, used by ``certify --verify --rerun``).
"""

from __future__ import annotations

import json
import re
from collections import Counter

from conformance import __version__

from conformance.cases import Case, load_suite
from conformance.engines.interface import CAPABILITY_UNSUPPORTED, NOTATION_UNSUPPORTED, OPTION_UNSUPPORTED
from conformance.harness.derived import is_derived
from conformance.harness.profiles import ALL_PROFILES as PROFILES, in_profile
from conformance.harness.runner import CaseResult, unsupported_reason
from conformance.harness.scenarios import forms
from conformance.harness.selection import asked, choose
from conformance.harness.shard import Shard
from conformance.reports import render

#: statuses that differ only by an expectations file: the engine's answer is the same
SAME_ANSWER = {"xfail": "fail", "xpass": "pass"}
_OPTION = re.compile(r"(\w+)=(\S+)")
SHOWN = 5


class NotACertificate(ValueError):
    """A report --verify cannot judge: a replay report, no header line, an unknown profile."""


def key(line: dict) -> tuple[str, str]:
    """A case line's name in a report: ``(id, scenario)``."""
    return line["id"], line.get("scenario") or ""


def name(k: tuple[str, str]) -> str:
    """``bg-7Q3K`` or ``bg-7Q3K[dice-reversed]`` for the key ``(id, scenario)``."""
    return render.case_name({"id": k[0], "scenario": k[1]})


def _some(keys, n: int = SHOWN) -> str:
    keys = list(keys)
    return ", ".join(name(k) if isinstance(k, tuple) else k for k in keys[:n]) + (", ..." if len(keys) > n else "")


def _asked(suite_cases: list[Case], info: dict, *, profile: str | None, ids=None, tags=None, spec=None,
           shard: str | None = None, scenarios: bool = True, play_checks: bool = True) -> list[Case]:
    _matched, chosen = choose(suite_cases, ids, tags, spec, profile, Shard.parse(shard) if shard else None)
    return asked(chosen, info, scenarios, profile, play_checks=play_checks)


def asked_for(head: dict, suite) -> list[Case]:
    """The cases a run with this report header asked of its engine, in the order asked: the
    header's selection (``case``, ``tag``, ``spec``, ``profile``, ``shard``) of ``suite`` (the
    bundled suite's ``Suite``), in the scenarios it records, with the chosen-play forms when the
    header's engine declares chosen-play. Raises NotACertificate for a run of other case files
    (``--cases``) and KeyError, TypeError or ValueError for a header of the wrong shape."""
    picked = head["selection"]
    if picked.get("cases"):
        raise NotACertificate("the run was of other case files (--cases " + ", ".join(picked["cases"])
                              + "); only a report of the bundled suite can be run again")
    return _asked(suite.cases, head["engine"], profile=picked.get("profile"), ids=picked.get("case"),
                  tags=picked.get("tag"), spec=picked.get("spec"), shard=picked.get("shard"),
                  scenarios=bool(picked.get("scenarios")), play_checks=bool(picked.get("play_checks", False)))


def engine_differences(recorded: dict, info: dict) -> list[str]:
    """How the engine description ``info`` (its ``describe()``) differs from the one a report
    header records (``recorded``), field by field: ``["name 'pgx' in the report, 'gnubg' here",
    ...]``; ``[]`` when they are the same (compared as JSON, as the header stores it)."""
    info = json.loads(json.dumps(info, default=str))
    out = []
    for field in dict.fromkeys([*recorded, *info]):
        if recorded.get(field) != info.get(field):
            out.append(f"{field} {json.dumps(recorded.get(field))} in the report, {json.dumps(info.get(field))} here")
    return out


def _unsupported_problem(line: dict, case: Case, info: dict) -> str | None:
    """Why an ``unsupported`` line (or a line that should be one) contradicts the header's
    engine description ``info``, or None."""
    why = unsupported_reason(case, info)
    status, message = line.get("status"), str(line.get("message", ""))
    if why is not None:
        if status != "unsupported":
            return f"{name(key(line))} is {status}, but the header's engine cannot be asked it ({why})"
        if message != why:
            return f"{name(key(line))} is unsupported with {message!r}; the header's engine gives {why!r}"
        return None
    if status != "unsupported":
        return None
    if message.startswith(CAPABILITY_UNSUPPORTED):
        return (f"{name(key(line))} is unsupported with {message!r}, but the header's engine declares every"
                f" capability the case needs ({', '.join(case.requires) or 'none'})")
    if message.startswith(NOTATION_UNSUPPORTED):
        return (f"{name(key(line))} is unsupported with {message!r}, but the header's engine reads hit marks or"
                " the play as written cannot hit on the way unsaid")
    if message.startswith(OPTION_UNSUPPORTED):
        match = _OPTION.match(message[len(OPTION_UNSUPPORTED):].strip())
        if match is None or match.group(1) not in case.effective_rules \
                or repr(case.effective_rules[match.group(1)]) != match.group(2):
            rules = ", ".join(f"{k}={v!r}" for k, v in sorted(case.effective_rules.items()))
            return f"{name(key(line))} is unsupported with {message!r}, which is not a rule option value of the case ({rules})"
    return None


def verify_report(lines: list[dict], engine_info: dict | None = None) -> dict:
    """The re-check of a report's lines (as ``render.read_jsonl`` gives them) against the
    bundled suite (what a certificate is: README.md, "Certification")::

        {"problems": [str, ...], "who": "NAME VERSION", "profile": str, "cases": n,
         "asked": n, "derived": n, "scenarios": [str, ...], "content_hash": str, "why": str}

    ``problems`` is empty when the certificate holds; ``cases`` counts the cases of the
    profile, ``asked`` the case lines a certificate of it has (every scenario, the chosen-play
    forms), ``derived`` how many of those are derived play checks, ``scenarios`` the scenarios covered, ``why`` is the verdict's reason.
    ``engine_info``: the ``describe()`` of the engine the user named; every field must equal
    the header's. Raises NotACertificate (the message says why) and KeyError, TypeError,
    AttributeError or ValueError for a report of the wrong shape."""
    head, cases, foot = render._parts(lines)
    problems = []
    if lines and isinstance(lines[0], dict) and lines[0].get("type") == "replay-header":
        raise NotACertificate("a bgconf replay report; --verify reads the report of a certify or run")
    if not head:
        raise NotACertificate("no header line: not a bgconf report")
    picked = head.get("selection") or {}
    profile = picked.get("profile") or "complete"
    info = head.get("engine") or {}
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
    if engine_info is not None:
        differ = engine_differences(info, engine_info)
        if differ:
            problems.append("the report's header does not describe the engine --engine names: " + "; ".join(differ))
    levels = {c.id: c.level for c in suite.cases}
    relevelled = sorted(c["id"] for c in cases if c["id"] in levels and c.get("level", "must") != levels[c["id"]])
    if relevelled:
        problems.append(f"case level(s) differ from the suite's: {', '.join(relevelled[:SHOWN])}")
    if foot and (foot.get("interrupted") or foot.get("given_up")) and not foot.get("incomplete"):
        problems.append("the footer says interrupted or given up but not incomplete")

    # coverage: every case of the profile, in every scenario that applies, once
    want = {c.id for c in suite.cases if in_profile(c, profile)}
    expected = {(c.id, c.scenario): c for c in _asked(suite.cases, info, profile=profile)}
    seen = Counter(key(c) for c in cases)
    missing = [k for k in expected if k not in seen]
    plain = [k for k in missing if not k[1]]
    if plain:
        problems.append(f"{len(plain)} case(s) of profile {profile} are not in the report ({_some(plain)})")
    scenario = [k for k in missing if k[1]]
    if scenario:
        problems.append(f"{len(scenario)} scenario case(s) of profile {profile} are not in the report: a certificate"
                        f" covers {', '.join(forms(info))} ({_some(scenario)})")
    covered = render.covered_scenarios(head)
    if covered != forms(info):
        problems.append(f"the header records {'the scenarios ' + ', '.join(covered) if covered else 'no scenario'};"
                        f" a certificate for this engine covers {', '.join(forms(info))}")
    twice = sorted(k for k, n in seen.items() if n > 1)
    if twice:
        problems.append(f"case(s) reported more than once: {_some(twice)}")
    extra = [k for k in seen if k not in expected]
    outside = sorted(k[0] for k in extra if k[0] not in want)
    if outside:
        problems.append(f"case(s) not in profile {profile}: {_some(sorted(set(outside)))}")
    odd = [k for k in extra if k[0] in want]
    if odd:
        problems.append(f"scenario case(s) that this engine is not asked: {_some(odd)}")

    # the footer's counts are the case lines' counts
    if foot:
        counted = Counter(c.get("status") for c in cases)
        recorded = foot.get("counts") or {}
        wrong = [s for s in dict.fromkeys([*recorded, *counted]) if recorded.get(s, 0) != counted.get(s, 0)]
        if wrong:
            problems.append("the footer's counts contradict the case lines: "
                            + ", ".join(f"{s} {recorded.get(s, 0)} in the footer, {counted.get(s, 0)} case lines"
                                        for s in wrong))
        if foot.get("total") != len(cases):
            problems.append(f"the footer's total is {foot.get('total')}, the report has {len(cases)} case lines")
        elif not foot.get("incomplete") and foot.get("selected") != len(cases):
            problems.append(f"the footer says {foot.get('selected')} cases were selected and the run complete,"
                            f" the report has {len(cases)} case lines")

    # every unsupported reason is one the header's engine description gives
    contradictions = [p for c in cases if key(c) in expected
                      for p in [_unsupported_problem(c, expected[key(c)], info)] if p]
    problems += contradictions[:SHOWN]
    if len(contradictions) > SHOWN:
        problems.append(f"... and {len(contradictions) - SHOWN} more unsupported verdict(s) the header contradicts")

    if not foot:
        problems.append("no footer: the run did not finish")
    elif foot.get("incomplete"):
        problems.append("the run is incomplete" + (f" ({foot.get('given_up')})" if foot.get("given_up") else ""))
    v = render.verdict(lines, profile)
    who = f"{info.get('name', '?')} {info.get('version', '')}".strip()
    if not problems and not v["certified"]:
        problems.append(f"the verdict is not certified: {v['why']}")
    return {"problems": problems, "who": who, "profile": profile, "cases": len(want), "asked": len(expected),
            "derived": sum(is_derived(k[1]) for k in expected),
            "scenarios": forms(info), "content_hash": suite.content_hash, "why": v["why"]}


def difference(line: dict | None, result: CaseResult) -> str | None:
    """How a fresh answer (``result``) differs from the report's verdict on the same case
    (``line``; None: the report has no line for it), or None when the verdicts agree. xfail
    and fail, xpass and pass agree (an expectations file relabels, the answer is the same)."""
    now = SAME_ANSWER.get(result.status, result.status)
    said = None if line is None else SAME_ANSWER.get(line.get("status"), line.get("status"))
    if said == now:
        return None
    k = (result.case.id, result.case.scenario)
    answer = f"{result.status}" + (f" ({result.outcome.message})" if result.outcome.message else "")
    if line is None:
        return f"{name(k)}: not in the report; the engine answers {answer}"
    return f"{name(k)}: the report says {line.get('status')}, the engine answers {answer}"
