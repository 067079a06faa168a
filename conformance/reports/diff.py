"""What changed between two runs: two reports matched case by case (``bgconf diff``).

Two reports (two versions of one engine, two engines, two suite versions) are matched
case by case on the case name (``bg-7Q3K``, ``bg-7Q3K[swapped]`` for a scenario). Each
case that differs is one change:

- ``regressed``: did not fail before (pass, xfail, unsupported) and now fails, errors,
  times out or passes unexpectedly (xpass);
- ``fixed``: failed before (fail, errored, timeout, xpass) and now passes;
- ``changed``: any other change of status (fail -> errored, pass -> unsupported, ...);
- ``appeared`` / ``disappeared``: in only the new / only the old report.

Changes are grouped by the spec section of each case's first anchor; ``diff_reports`` gives
them as data, ``text``, ``markdown`` and ``json_text`` render them (``FORMATS``).

A diff is *partial* (``gaps``) when cases disappeared or either report is incomplete (no
footer, interrupted, the engine given up, fewer cases answered than selected): what is
absent was not compared, so a partial diff can hide regressions and ``bgconf diff`` does
not exit 0 on it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

from conformance.reports.render import BAD, case_name

CHANGES = ("regressed", "fixed", "changed", "appeared", "disappeared")


def side(lines: list[dict], path: str = "") -> dict:
    """What one report says about itself: engine, versions, counts, completeness."""
    head = lines[0]
    foot = lines[-1] if lines[-1]["type"] == "footer" else {}
    engine = head.get("engine", {})
    return {"path": path, "engine": engine.get("name", ""), "engine_version": engine.get("version", ""),
            "suite_version": head.get("suite_version", ""), "content_hash": head.get("content_hash", ""),
            "counts": foot.get("counts") or dict(Counter(c["status"] for c in lines if c["type"] == "case")),
            "complete": bool(foot) and not foot.get("incomplete"),
            "why_incomplete": _why_incomplete(foot)}


def _why_incomplete(foot: dict) -> str:
    """Why a report is incomplete ("" when it is complete), from its footer ({} when it has
    none: the run did not finish)."""
    if not foot:
        return "no footer: the run did not finish"
    if foot.get("interrupted"):
        how = foot["interrupted"] if isinstance(foot["interrupted"], str) else "a signal"
        return f"interrupted by {how} after {foot.get('total', 0)} of {foot.get('selected', '?')} cases"
    if foot.get("given_up"):
        return f"the engine was given up ({foot['given_up']})"
    if foot.get("incomplete"):
        return f"{foot.get('total', 0)} of {foot.get('selected', '?')} cases answered"
    return ""


def change_of(old: str | None, new: str | None) -> str | None:
    """The change from status ``old`` to ``new`` (None = absent), or None when equal."""
    if old == new:
        return None
    if old is None:
        return "appeared"
    if new is None:
        return "disappeared"
    if old not in BAD and new in BAD:
        return "regressed"
    if old in BAD and new == "pass":
        return "fixed"
    return "changed"


def _by_name(lines: list[dict]) -> dict[str, dict]:
    return {case_name(c): c for c in lines if c["type"] == "case"}


def diff_reports(old_lines: list[dict], new_lines: list[dict], old_path: str = "", new_path: str = "") -> dict:
    """The diff of two reports' lines (as ``report.load_report`` gives them)::

        {"old": side, "new": side, "same_suite": bool, "counts": {change: n}, "unchanged": n,
         "changes": [{"case", "section", "spec", "title", "file", "old", "new", "change",
                      "message", "link"}, ...]}   # sorted by section, then case

    ``old``/``new`` in a change are statuses or None (absent); ``message`` is the new
    side's message and bug report link (the old side's for a case that disappeared)."""
    old_cases, new_cases = _by_name(old_lines), _by_name(new_lines)
    changes, unchanged = [], 0
    for name in sorted(set(old_cases) | set(new_cases)):
        before, after = old_cases.get(name), new_cases.get(name)
        kind = change_of(before and before["status"], after and after["status"])
        if kind is None:
            unchanged += 1
            continue
        line = after or before
        changes.append({"case": name, "section": line["spec"][0].split(".", 1)[0], "spec": line["spec"],
                        "title": (after or {}).get("title") or (before or {}).get("title") or "",
                        "file": line["file"], "old": before and before["status"],
                        "new": after and after["status"], "change": kind,
                        "message": line.get("message", ""), "link": line.get("link")})
    changes.sort(key=lambda c: (c["section"], c["case"]))
    old_side, new_side = side(old_lines, old_path), side(new_lines, new_path)
    counts = Counter(c["change"] for c in changes)
    gaps = [f"{label} {s['path']} is incomplete: {s['why_incomplete']}".replace("  ", " ")
            for label, s in (("OLD", old_side), ("NEW", new_side)) if not s["complete"]]
    if counts.get("disappeared"):
        gaps.append(f"{counts['disappeared']} cases of OLD are not in NEW (disappeared): they were not compared")
    return {"old": old_side, "new": new_side,
            "same_suite": old_side["content_hash"] == new_side["content_hash"],
            "counts": {k: counts.get(k, 0) for k in CHANGES}, "unchanged": unchanged, "changes": changes,
            "gaps": gaps}


def verdict(d: dict) -> str:
    """The diff's one-line verdict, as ``bgconf diff`` prints it last: ``regressed`` (exit 1),
    ``partial`` (cases disappeared or a report is incomplete: exit 1), or ``no regression``."""
    if d["counts"]["regressed"]:
        return f"verdict: {d['counts']['regressed']} regressed" + (" (and the diff is partial)" if d["gaps"] else "")
    if d["gaps"]:
        return "verdict: partial, not a full comparison: " + "; ".join(d["gaps"])
    return "verdict: no regression"


def _who(s: dict) -> str:
    return (f"{s['engine']} {s['engine_version']}".strip() + f", suite {s['suite_version']}"
            f" (content {s['content_hash'][:12]})" + ("" if s["complete"] else ", INCOMPLETE run"))


def _summary(d: dict) -> str:
    return ", ".join(f"{d['counts'][k]} {k}" for k in CHANGES) + f" ({d['unchanged']} unchanged)"


def _grouped(d: dict) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for c in d["changes"]:
        groups[c["section"]].append(c)
    return groups


def _status(s: str | None) -> str:
    return s or "absent"


def text(d: dict) -> str:
    """The terminal rendering."""
    out = [f"old: {_who(d['old'])}  {d['old']['path']}".rstrip(),
           f"new: {_who(d['new'])}  {d['new']['path']}".rstrip()]
    if not d["same_suite"]:
        out.append("note: the two runs used different suites (content hashes differ): cases that appeared or"
                   " disappeared may be new or retired cases, not engine changes")
    out.append(_summary(d))
    out += [f"partial: {gap}" for gap in d["gaps"]]
    width = max([len(c["case"]) for c in d["changes"]] + [7])
    for section, changes in _grouped(d).items():
        out += ["", section]
        for c in changes:
            out.append(f"  {c['change'].upper():<11} {c['case']:<{width}} {_status(c['old']):>11} ->"
                       f" {_status(c['new']):<11} {c['title']}".rstrip())
            if c["message"] and c["change"] in ("regressed", "changed"):
                out.append(f"  {'':<11} {c['message'][:200]}")
            if c["link"]:
                out.append(f"  {'':<11} bug report: {c['link']}")
    out += ["", verdict(d)]
    return "\n".join(out) + "\n"


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def markdown(d: dict) -> str:
    """The Markdown rendering (a CI step summary)."""
    out = ["## bgconf diff", "",
           f"- old: {_cell(_who(d['old']))}", f"- new: {_cell(_who(d['new']))}", ""]
    if not d["same_suite"]:
        out += [("> The two runs used different suites: cases that appeared or disappeared may be new or"
                 " retired cases."), ""]
    if d["gaps"]:
        out += ["> **Partial, not a full comparison:** " + _cell("; ".join(d["gaps"])), ""]
    out += ["| " + " | ".join(CHANGES) + " | unchanged |", "|" + "---|" * (len(CHANGES) + 1),
            "| " + " | ".join(str(d["counts"][k]) for k in CHANGES) + f" | {d['unchanged']} |"]
    for section, changes in _grouped(d).items():
        out += ["", f"### {section}", "", "| change | case | old | new | title |", "|---|---|---|---|---|"]
        for c in changes:
            link = f" ([bug report]({c['link']}))" if c["link"] else ""
            out.append(f"| {'**regressed**' if c['change'] == 'regressed' else c['change']} | `{c['case']}` |"
                       f" {_status(c['old'])} | {_status(c['new'])} | {_cell(c['title'])}{link} |")
    return "\n".join(out) + "\n"


def json_text(d: dict) -> str:
    """The JSON rendering (the dict of ``diff_reports``, indented)."""
    return json.dumps(d, indent=2) + "\n"


FORMATS = {"text": text, "markdown": markdown, "json": json_text}
