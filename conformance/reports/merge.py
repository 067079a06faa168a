"""Joining the reports of a campaign's parts into one report (``bgconf merge``).

The parts are the N shards of one run (``bgconf run --shard K/N``, all of 1..N present once)
or runs of disjoint selections of one engine (``--spec move`` on one machine, ``--spec
bearoff`` on another). All must name the same engine (name and version) and the same suite
(version and content hash), and no case may be in two of them. The merged report is a report
like any other (``spec/schema/report.schema.json``): ``bgconf diff``, ``bgconf matrix`` and
``bgconf certify --verify`` read it. Merged shards of a full selection form a full selection
again (certify --verify accepts them); the cases are put back in the unsharded order.
"""

from __future__ import annotations

from collections import Counter

from conformance.harness.compare import STATUSES
from conformance.reports.render import case_name
from conformance.harness.derived import is_derived
from conformance.harness.shard import Shard


class MergeError(ValueError):
    """Reports that cannot be merged; the message names the files."""


def _same(reports: list[tuple[str, list[dict]]], what: str, get) -> None:
    values = {path: get(lines[0]) for path, lines in reports}
    if len(set(map(repr, values.values()))) > 1:
        raise MergeError(f"the reports differ in {what}: "
                         + "; ".join(f"{path}: {value}" for path, value in values.items()))


def _unsharded(forms: list[dict], plain: list[dict]) -> list[dict]:
    """The scenario lines of shards in the order the unsharded run asks them: the scenario
    variants case by case, then the derived play checks, then the chosen-play forms of the
    cases, then those of the variants (``selection.asked``); the lines of one case keep their
    order, as they come from one shard."""
    rank = {c["id"]: i for i, c in enumerate(plain)}

    def phase(scenario: str) -> int:
        if is_derived(scenario):
            return 1
        return 2 if scenario == "chosen-play" else 3 if scenario.startswith("chosen-play+") else 0

    return sorted(forms, key=lambda c: (phase(c["scenario"]), rank.get(c["id"], len(rank))))


def merge_reports(reports: list[tuple[str, list[dict]]], argv: list[str] | None = None) -> list[dict]:
    """One report's lines from the reports ``(path, lines)`` of a campaign's parts.
    Raises MergeError."""
    if not reports:
        raise MergeError("nothing to merge")
    _same(reports, "engine", lambda h: {k: h["engine"].get(k) for k in ("name", "version")})
    _same(reports, "suite", lambda h: (h["suite_version"], h["content_hash"]))
    selections = [lines[0]["selection"] for _, lines in reports]
    shards = [s.get("shard") for s in selections]
    if any(shards):
        if not all(shards):
            raise MergeError("some reports are shards (--shard) and some are not: merge the shards of one run")
        _same(reports, "selection (apart from the shard)",
              lambda h: {k: v for k, v in h["selection"].items() if k not in ("shard", "full")})
        parts = [Shard.parse(s) for s in shards]
        sizes = {p.n for p in parts}
        if len(sizes) > 1:
            raise MergeError("the reports are shards of different counts: "
                             + ", ".join(f"{path}: {p}" for (path, _), p in zip(reports, parts)))
        n = sizes.pop()
        seen = Counter(p.k for p in parts)
        twice = sorted(k for k, c in seen.items() if c > 1)
        missing = sorted(set(range(1, n + 1)) - set(seen))
        if twice or missing:
            raise MergeError(f"shards of {n}: " + "; ".join(
                ([f"{', '.join(f'{k}/{n}' for k in twice)} given twice"] if twice else [])
                + ([f"{', '.join(f'{k}/{n}' for k in missing)} missing"] if missing else [])))
        ordered = [lines for _, (_, lines) in sorted(zip(parts, reports), key=lambda x: x[0].k)]
        columns = [[x for x in lines if x["type"] == "case"] for lines in ordered]
        plain = [[c for c in col if not c.get("scenario")] for col in columns]
        cases = [col[j] for j in range(max(map(len, plain))) for col in plain if j < len(col)]
        cases += _unsharded([c for col in columns for c in col if c.get("scenario")], cases)
        selection = dict(selections[0], shard=None)
        selection["full"] = not any(selection.get(k) for k in ("cases", "case", "tag", "spec"))
    else:
        cases = [x for _, lines in reports for x in lines if x["type"] == "case"]
        selection = {"full": False, "profile": None, "scenarios": any(s["scenarios"] for s in selections),
                     "scenario_forms": list(dict.fromkeys(f for s in selections for f in s.get("scenario_forms") or [])),
                     "shard": None}
        for key in ("cases", "case", "tag", "spec"):
            merged = list(dict.fromkeys(v for s in selections for v in (s.get(key) or [])))
            selection[key] = merged or None
        profiles = {s.get("profile") for s in selections}
        selection["profile"] = profiles.pop() if len(profiles) == 1 else None
        if all(s.get("full") for s in selections) and len(reports) == 1:
            selection["full"] = True
    where: dict[str, tuple[int, str]] = {}
    for i, (path, lines) in enumerate(reports):
        for c in lines:
            if c["type"] == "case":
                name = case_name(c)
                if name in where and where[name][0] != i:
                    raise MergeError(f"case {name} is in both {where[name][1]} and {path}: the parts overlap")
                where[name] = (i, path)
    heads = [lines[0] for _, lines in reports]
    feet = [lines[-1] for _, lines in reports if lines[-1]["type"] == "footer"]
    header = dict(heads[0], started=min(h["started"] for h in heads), argv=argv or [], selection=selection)
    counts = Counter(c["status"] for c in cases)
    unfinished = [path for path, lines in reports if lines[-1]["type"] != "footer"]
    interrupted = next((f["interrupted"] for f in feet if f.get("interrupted")), False)
    given_up = "; ".join(f["given_up"] for f in feet if f.get("given_up")) or None
    selected = sum(f["selected"] for f in feet) + sum(
        sum(x["type"] == "case" for x in lines) for path, lines in reports if path in unfinished)
    footer = {"type": "footer", "counts": {s: counts.get(s, 0) for s in STATUSES}, "total": len(cases),
              "selected": selected, "wall_s": max((f["wall_s"] for f in feet), default=0.0),
              "incomplete": bool(unfinished or interrupted or given_up or any(f["incomplete"] for f in feet)
                                 or len(cases) < selected),
              "interrupted": interrupted, "restarts": sum(f["restarts"] for f in feet), "given_up": given_up,
              "warnings": [w for f in feet for w in f["warnings"]]
                          + [f"{path}: no footer (the run did not finish)" for path in unfinished],
              "crashes": sum(f.get("crashes", 0) for f in feet), "hangs": sum(f.get("hangs", 0) for f in feet),
              "incidents": [x for f in feet for x in f.get("incidents", [])]}
    return [header, *cases, footer]
