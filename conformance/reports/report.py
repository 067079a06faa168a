"""Reports: the JSON Lines report of record and the terminal rendering.

JSON Lines (schema: ``spec/schema/report.schema.json``): a ``header`` line (suite
version and content hash, engine identity and capabilities, the selection of cases),
one ``case`` line per case answered, written and flushed as each answer arrives, and
a ``footer`` line with the counts, wall time, ``incomplete`` (the engine was given
up, or the run was interrupted), ``interrupted`` (false, "SIGINT" or "SIGTERM"),
restarts, warnings, and the engine's ``crashes`` and ``hangs`` with each one listed in
``incidents`` (spec/protocol.md, Crashes, hangs and restarts).
"""

from __future__ import annotations

import functools
import json
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from conformance import __version__

from conformance.cases import case_name, resources
from conformance.harness.compare import STATUSES
from conformance.harness.diagram import board_diagram
from conformance.harness.runner import CaseResult, engine_faults


def repro(case, engine_name: str) -> str:
    """The one-line command that re-runs just this case."""
    import shlex

    cmd = f"bgconf run --engine {shlex.quote(engine_name)} --case {case.id}"
    if not case.file.startswith("cases/"):
        cmd += f" --cases {shlex.quote(case.file)}"
    # chosen-play forms are asked of every engine that declares chosen-play, without --scenarios
    scenario = case.scenario.removeprefix("chosen-play").lstrip("+")
    return cmd + (" --scenarios" if scenario else "")


def selection(cases: list[str] | None = None, ids: list[str] | None = None, tags: list[str] | None = None,
              spec: list[str] | None = None, profile: str | None = None, scenarios: bool = False,
              shard=None, forms: list[str] | None = None, play_checks: bool = True) -> dict:
    """What a run asked for. ``full`` is true only for the bundled suite with no
    narrowing by id, tag or anchor (a profile does not narrow: it is what a
    certificate covers) and not one shard of it; only a full selection can certify.
    ``shard`` is a ``shard.Shard`` (recorded as ``"K/N"``; None or 1/1: the whole).
    ``forms``: the scenarios asked (``scenarios.forms``), recorded as ``scenario_forms``
    (``[]`` when ``scenarios`` is false). ``play_checks``: whether the derived play checks were
    asked of an engine that declares play-check (``harness.derived``; ``run --no-play-checks``)."""
    part = str(shard) if shard is not None and shard.n > 1 else None
    return {"full": not (cases or ids or tags or spec or part), "cases": cases or None, "case": ids or None,
            "tag": tags or None, "spec": spec or None, "profile": profile, "scenarios": bool(scenarios),
            "scenario_forms": list(forms or []) if scenarios else [], "play_checks": bool(play_checks),
            "shard": part}


def header(engine_info: dict, content_hash: str, argv: list[str] | None = None,
           chosen: dict | None = None) -> dict:
    """The report's first line; ``chosen`` is ``selection(...)`` (default: the whole suite)."""
    return {"type": "header", "suite_version": __version__, "content_hash": content_hash,
            "engine": engine_info, "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "argv": argv or [], "selection": chosen or selection()}


def case_line(r: CaseResult, engine_name: str = "") -> dict:
    """One case's line; a case that did not pass also carries what a reader needs
    to act on it: title, clause texts, board diagram and the re-run command."""
    line = {"type": "case", "id": r.case.id, "scenario": r.case.scenario, "file": r.case.file, "kind": r.case.kind,
            "spec": list(r.case.spec), "level": r.case.level, "status": r.status,
            "ms": round(r.ms, 3)}
    if r.status not in ("pass", "unsupported"):
        clauses = resources.spec_clauses()
        line["title"] = r.case.title
        line["clauses"] = {a: clauses.get(a, "") for a in r.case.spec}
        if r.case.position is not None:
            line["diagram"] = board_diagram(r.case.position, r.case.dice)
        line["repro"] = repro(r.case, engine_name)
    if r.outcome.message:
        line["message"] = r.outcome.message
    if r.link:
        line["link"] = r.link
    if r.outcome.missing:
        line["missing"] = r.outcome.missing
    if r.outcome.extra:
        line["extra"] = r.outcome.extra
    if r.outcome.duplicates:
        line["duplicates"] = r.outcome.duplicates
    return line


def incidents(results: list[CaseResult], engine_name: str = "") -> list[dict]:
    """The crashes and hangs of a run, in order, as the footer lists them: one dict per
    incident with ``kind`` ("crash" or "hang"), ``case`` (id), ``scenario``, ``message``
    (one line), ``repro`` (the ``bgconf run`` command that asks that case again) and
    ``send`` (a shell command that sends the engine that exact request alone, or None
    when the engine is not a protocol engine)."""
    out = []
    for r in results:
        for x in r.incidents:
            out.append({"kind": x["kind"], "case": r.case.id, "scenario": r.case.scenario,
                        "message": str(x.get("message", ""))[:500], "repro": repro(r.case, engine_name),
                        "send": x.get("send")})
    return out


def footer(results: list[CaseResult], wall_s: float, incomplete: bool = False, *, selected: int | None = None,
           interrupted: str | bool = False, restarts: int = 0, given_up: str | None = None,
           warnings: list[str] | None = None, engine_name: str = "") -> dict:
    """The report's last line. ``incomplete`` is forced true when the run was
    interrupted, the engine given up, or fewer cases answered than ``selected``.
    ``crashes`` and ``hangs`` count the ``incidents`` of the results (see ``incidents``;
    ``engine_name`` goes into their re-run commands)."""
    counts = Counter(r.status for r in results)
    selected = len(results) if selected is None else selected
    listed = incidents(results, engine_name)
    return {"type": "footer", "counts": {s: counts.get(s, 0) for s in STATUSES},
            "total": len(results), "selected": selected, "wall_s": round(wall_s, 3),
            "incomplete": bool(incomplete or interrupted or given_up or len(results) < selected),
            "interrupted": interrupted or False, "restarts": restarts, "given_up": given_up,
            "warnings": list(warnings or []),
            "crashes": sum(x["kind"] == "crash" for x in listed), "hangs": sum(x["kind"] == "hang" for x in listed),
            "incidents": listed}


def incidents_text(foot: dict, limit: int | None = None) -> str:
    """The crashes and hangs of a footer, one block each: what happened, the case being
    asked, the ``bgconf run`` command that asks it again, and the command that sends the
    engine that exact request (empty when there was none); ``limit``: at most that many
    (None: all)."""
    listed = foot.get("incidents") or []
    if not listed:
        return ""
    lines = [f"the engine crashed or hung {len(listed)} time(s) ({engine_faults(foot)}); each case below was"
             " asked again of a fresh process where the policy allows (spec/protocol.md, Crashes, hangs and"
             " restarts):"]
    for x in listed[:limit]:
        name = case_name(x["case"], x.get("scenario") or "")
        lines.append(f"  {x['kind'].upper()} while asking {name}: {x['message']}")
        lines.append(f"    re-run: {x['repro']}")
        if x.get("send"):
            lines.append(f"    request alone: {x['send']}")
    if limit is not None and len(listed) > limit:
        lines.append(f"  ... {len(listed) - limit} more in the report's footer (incidents)")
    return "\n".join(lines)


class ReportError(ValueError):
    """A file that is not a readable bgconf report; the message names the file and line."""


def load_report(path: str | Path) -> list[dict]:
    """The lines of a JSON Lines report, each checked against
    ``spec/schema/report.schema.json``: a header first, then case lines, then (for a run
    that finished) a footer. Raises ReportError ``"FILE:LINE: what is wrong"``."""
    import jsonschema

    validator = _report_validator()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read the report: {getattr(exc, 'strerror', None) or exc}") from None
    lines: list[dict] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError) as exc:  # also nesting too deep, a number too long
            raise ReportError(f"{path}:{number}: not JSON ({getattr(exc, 'msg', None) or exc})") from None
        if not lines and isinstance(line, dict) and line.get("type") == "replay-header":
            raise ReportError(f"{path}:{number}: a bgconf replay report; this command reads the reports of"
                              " bgconf run --report")
        error = jsonschema.exceptions.best_match(validator.iter_errors(line))
        if error is not None:
            where = "/".join(str(x) for x in error.absolute_path)
            raise ReportError(f"{path}:{number}: not a report line{' at ' + where if where else ''}: "
                              f"{error.message[:200]}")
        kind = line["type"]
        if (kind == "header") != (not lines):
            raise ReportError(f"{path}:{number}: " + ("the first line must be the header" if not lines
                                                      else "a second header line"))
        if lines and lines[-1]["type"] == "footer":
            raise ReportError(f"{path}:{number}: a line after the footer")
        lines.append(line)
    if not lines:
        raise ReportError(f"{path}: empty: not a bgconf report")
    return lines


@functools.lru_cache(maxsize=None)
def _report_validator():
    import jsonschema

    return jsonschema.Draft202012Validator(resources.report_schema())


class ReportWriter:
    """The JSON Lines report, written as the run goes: the header, then each case line
    as soon as its answer is judged (flushed), then the footer. ``file`` is an open text
    file (``reports.files.OutputSet.stream``: the file beside the report's target, moved
    into place when the command ends); None keeps the lines in memory only."""

    def __init__(self, file: IO[str] | None):
        self.lines: list[dict] = []
        self.error: str | None = None
        self._file: IO[str] | None = file

    def write(self, line: dict) -> None:
        """Keep and write one line; a write that fails (a full disk) is kept in ``error``
        and later lines stay in memory only."""
        self.lines.append(line)
        if self._file is not None:
            try:
                self._file.write(json.dumps(line) + "\n")
                self._file.flush()
            except OSError as exc:
                self.error = exc.strerror or str(exc)
                self.close()

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:
                self.error = self.error or exc.strerror or str(exc)
            self._file = None


def section_table(results: list[CaseResult]) -> str:
    """Counts per spec section (a case counts in every section its anchors name)."""
    table: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        for section in dict.fromkeys(a.split(".", 1)[0] for a in r.case.spec):
            table[section][r.status] += 1
    shown = [s for s in ("pass", "fail", "errored", "unsupported", "timeout", "xfail", "xpass")
             if any(c[s] for c in table.values())] or ["pass"]
    width = max([len(s) for s in table] + [7])
    lines = [f"  {'section':<{width}} " + " ".join(f"{s:>11}" for s in shown)]
    for section in sorted(table):
        lines.append(f"  {section:<{width}} " + " ".join(f"{table[section][s]:>11}" for s in shown))
    return "\n".join(lines)


def failure_text(r: CaseResult, engine_name: str) -> str:
    """What a user needs to act on one failure: case, rule, board, dice, missing and
    extra plays, and the command that re-runs it."""
    case = r.case
    clauses = resources.spec_clauses()
    lines = [f"{r.status.upper()} {case.nodeid} {case.title}"]
    for anchor in case.spec:
        lines.append(f"  spec {anchor}: {clauses.get(anchor, '')}".rstrip())
    if case.position is not None:
        lines.append(board_diagram(case.position, case.dice))
    for key in ("cube", "match", "on_roll", "moment", "action", "throws", "result"):
        if key in case.raw:
            lines.append(f"  {key}: {case.raw[key]}")
    if case.kind not in ("legal_plays",):
        lines.append(f"  expected: {case.expect}")
        if r.outcome.got is not None:
            lines.append(f"  got:      {r.outcome.got}")
    if case.play:
        lines.append(f"  play: {case.play}")
    if r.outcome.missing:
        lines.append("  missing plays (legal, not returned): " + ", ".join(r.outcome.missing))
    if r.outcome.extra:
        lines.append("  extra plays (returned, not legal):   " + ", ".join(r.outcome.extra))
    if r.outcome.duplicates:
        lines.append("  plays returned more than once:       " + ", ".join(r.outcome.duplicates))
    if r.outcome.message:
        lines.append(f"  {r.outcome.message}")
    if r.link:
        lines.append(f"  bug report: {r.link}")
    lines.append(f"  re-run: {repro(case, engine_name)}")
    return "\n".join(lines)


def summary_line(results: list[CaseResult], wall_s: float) -> str:
    """``N cases: 3 pass, 1 fail in 0.12 s``, and ``; the engine: 25 crashes, 1 hang`` when
    it crashed or hung while cases were asked."""
    counts = Counter(r.status for r in results)
    parts = [f"{counts[s]} {s}" for s in STATUSES if counts[s]]
    kinds = Counter(x["kind"] for r in results for x in r.incidents)
    faults = engine_faults({"crashes": kinds["crash"], "hangs": kinds["hang"]})
    return (f"{len(results)} cases: " + (", ".join(parts) or "none") + f" in {wall_s:.2f} s"
            + (f"; the engine: {faults}" if faults else ""))
