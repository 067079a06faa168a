"""Renderings of the JSON Lines report of record: JUnit XML, a Markdown summary,
a self-contained HTML certificate, and a badge (shields.io endpoint JSON).

Every function takes the report's lines (dicts, as ``report.read_jsonl`` gives).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import jinja2
import junitparser

from conformance.cases import case_name as _named
from conformance.engines.interface import CAPABILITY_UNSUPPORTED, NOTATION_UNSUPPORTED, OPTION_UNSUPPORTED
from conformance.harness.runner import engine_faults
from conformance.model import Position, play_text
from conformance.reports import rootcause
from conformance.reports.board import drawable_moves, render_board

TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("conformance.reports", "templates"),
                                autoescape=jinja2.select_autoescape(["html"]), trim_blocks=True,
                                lstrip_blocks=True)
BAD = rootcause.SHOWN  # the statuses of a failure: fail, errored, timeout, xpass

def read_jsonl(path: str | Path) -> list:
    """The lines of a JSON Lines report, as parsed (not checked against the schema:
    ``report.load_report`` does that). Raises OSError when the file cannot be read and
    ValueError ``"FILE:LINE: not JSON (why)"`` for a line that is not JSON (also one nested
    too deep or holding a number too long to read)."""
    lines = []
    for number, raw in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if raw.strip():
            try:
                lines.append(json.loads(raw))
            except (ValueError, RecursionError) as exc:
                raise ValueError(f"{path}:{number}: not JSON ({getattr(exc, 'msg', None) or exc})") from None
    return lines


def case_name(line: dict) -> str:
    """A case line's name: ``bg-7Q3K``, or ``bg-7Q3K[dice-reversed]`` for a scenario's."""
    return _named(line["id"], line.get("scenario") or "")


def _parts(lines: list[dict]):
    header = next((x for x in lines if x.get("type") == "header"), {})
    footer = next((x for x in lines if x.get("type") == "footer"), {})
    cases = [x for x in lines if x.get("type") == "case"]
    return header, cases, footer


def verdict(lines: list[dict], profile: str = "complete") -> dict:
    """``{"certified": bool, "why": str, "must": n, "must_passed": n}``: certified iff
    every ``must`` case counted passed (no failure, error, missing required
    capability or expected failure), the run is complete, and the engine neither
    crashed nor hung during it (footer ``crashes``, ``hangs``; spec/protocol.md,
    Crashes, hangs and restarts). ``faults`` is ``"25 crashes, 1 hang"`` or "". Not counted, and listed
    on the certificate as not covered: cases of rule option values the engine does
    not offer, plays its input cannot express (``NOTATION_UNSUPPORTED``), and cases needing a capability the profile does not require
    (``profiles.REQUIRED``: e.g. movement needs legal-plays; play checks and applied
    plays count only for engines that declare them)."""
    from conformance.harness.profiles import REQUIRED

    header, cases, footer = _parts(lines)
    required = REQUIRED.get(profile)
    partial = coverage_problem(header, profile)

    def counted(c: dict) -> bool:
        if c.get("level", "must") != "must":
            return False
        if c["status"] != "unsupported":
            return True
        message = str(c.get("message", ""))
        if message.startswith(OPTION_UNSUPPORTED):
            # a value the engine does not offer is left out, unless it is the standard rule
            # (the option's default): an engine must play by the standard rules to certify
            return _is_default_value(message[len(OPTION_UNSUPPORTED):].strip())
        if message.startswith(NOTATION_UNSUPPORTED):
            return False  # a play its input cannot express: not the engine's verdict (spec/protocol.md, Hit marks)
        if required is not None and message.startswith(CAPABILITY_UNSUPPORTED):
            caps = message[len(CAPABILITY_UNSUPPORTED):].strip().split(", ")
            return any(cap in required for cap in caps)
        return True

    must = [c for c in cases if counted(c)]
    passed = sum(c["status"] == "pass" for c in must)
    counts = Counter(c["status"] for c in must)
    faults = engine_faults(footer)
    if partial:
        why = f"{partial}: a partial run is not a certificate"
    elif footer.get("interrupted"):
        why = f"the run was interrupted ({footer['interrupted']})"
    elif footer.get("given_up"):
        why = f"the run is incomplete: {footer['given_up']}"
    elif footer.get("incomplete") or not footer:
        why = "the run was cut short"
    elif faults:
        why = (f"the engine crashed or hung during the run ({faults}; the cases were asked again of a fresh"
               " process, and a certificate needs none)")
    elif passed == len(must) and must:
        why = f"all {len(must)} must cases pass"
    elif not must:
        why = "no must case in the profile"
    else:
        why = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()) if s != "pass") + " of the must cases"
    complete = bool(footer) and not (footer.get("incomplete") or footer.get("interrupted") or footer.get("given_up"))
    return {"certified": bool(must) and passed == len(must) and complete and not partial and not faults,
            "partial": bool(partial), "why": why, "must": len(must), "must_passed": passed, "faults": faults}


def profile_lines(lines: list[dict], cases, profile: str) -> list[dict] | None:
    """The lines of a report that ``bgconf certify`` judges for ``profile`` (one of
    ``harness.profiles.PROFILES``; raises KeyError for another): the header, the footer and the
    case lines of the cases in the profile (``in_profile``, read from ``cases``: the ``Case``
    objects of the suite the report ran; a line whose id is not among them is left out), for
    ``bot`` only the chosen-play lines. None when the profile does not apply to the report's
    engine (a profile in ``CHOSEN_ONLY`` for an engine whose header does not declare its
    required capabilities)."""
    from conformance.harness.profiles import ALL_PROFILES as PROFILES, CHOSEN_ONLY, REQUIRED, in_profile

    if profile not in PROFILES:
        raise KeyError(f"unknown profile {profile!r}; profiles: {', '.join(PROFILES)}")
    header, _cases, _footer = _parts(lines)
    kinds = ("chosen_play",) if profile in CHOSEN_ONLY else None
    if kinds and not REQUIRED[profile] <= set((header.get("engine") or {}).get("capabilities") or []):
        return None
    chosen = {c.id for c in cases if in_profile(c, profile)}
    return [x for x in lines if x.get("type") != "case"
            or (x["id"] in chosen and (kinds is None or x["kind"] in kinds))]


def _is_default_value(setting: str) -> bool:
    """Whether ``name=value`` (as the runner writes it) sets a rule option to its default."""
    from conformance.model import RULE_DEFAULTS

    name, _, value = setting.partition("=")
    return name in RULE_DEFAULTS and value == repr(RULE_DEFAULTS[name])


def narrowing(selection: dict) -> str:
    """The options that narrowed a run, as written: ``--case bg-C3Z8, --cases my.yaml``."""
    parts = []
    for key in ("case", "tag", "spec", "cases"):
        for value in selection.get(key) or []:
            parts.append(f"--{key} {value}")
    if selection.get("shard"):
        parts.append(f"--shard {selection['shard']}")
    return ", ".join(parts)


def coverage_problem(header: dict, profile: str) -> str | None:
    """Why a report cannot certify ``profile`` whatever its cases say (a narrowed
    selection, another profile, no recorded selection), or None."""
    picked = header.get("selection")
    if not isinstance(picked, dict):
        return "the report does not record what was selected"
    if not picked.get("full"):
        return f"selected with {narrowing(picked) or 'a narrowed selection'}"
    ran = picked.get("profile") or "complete"
    if ran not in (profile, "complete"):
        return f"the run covered profile {ran}, not {profile}"
    return None


#: how the renderings name each scenario (``harness.scenarios.SCENARIOS``)
SCENARIO_TEXT = {"swapped": "colours swapped", "dice-reversed": "dice reversed", "gnubg-id": "as a Position ID",
                 "xgid": "as an XGID", "fibs-board": "as a FIBS board"}


def covered_scenarios(header: dict) -> list[str]:
    """The scenario names a report's run asked (``selection.scenario_forms``; for a report
    that does not record them but asked scenarios, the forms its engine declares), in
    ``harness.scenarios.SCENARIOS`` order; ``[]`` when the run asked none."""
    from conformance.harness.scenarios import forms

    picked = header.get("selection") if isinstance(header.get("selection"), dict) else {}
    if not picked.get("scenarios"):
        return []
    recorded = picked.get("scenario_forms")
    return list(recorded) if recorded is not None else forms(header.get("engine") or {})


def scenario_sentence(header: dict) -> str:
    """``"Scenarios: colours swapped, dice reversed, as an XGID."``, or that none was asked."""
    names = covered_scenarios(header)
    if not names:
        return "Scenarios: none (each case asked once, as written)."
    return "Scenarios: " + ", ".join(SCENARIO_TEXT.get(n, n) for n in names) + "."


def section_matrix(cases: list[dict]) -> dict[str, Counter]:
    table: dict[str, Counter] = defaultdict(Counter)
    for c in cases:
        for section in dict.fromkeys(a.split(".", 1)[0] for a in c["spec"]):
            table[section][c["status"]] += 1
    return dict(sorted(table.items()))


#: the characters XML 1.0 cannot carry (production Char), lone surrogates included
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text) -> str:
    """``text`` (any value, made a str) with every character XML 1.0 cannot carry written
    visibly as a Python escape: NUL as ``\\x00``, ESC as ``\\x1b``, a lone surrogate as
    ``\\udc80``, U+FFFE as ``\\ufffe`` (a backslash already there stays as it is)."""
    def visible(m: re.Match) -> str:
        code = ord(m.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _NOT_XML.sub(visible, str(text))


def junit_xml(lines: list[dict]) -> str:
    """JUnit XML: one testsuite per case file, one testcase per case. Always well-formed
    XML 1.0, whatever an engine answered: every text goes through ``xml_text``."""
    header, cases, _footer = _parts(lines)
    x = xml_text
    xml = junitparser.JUnitXml(name=x(f"bgconf {header.get('suite_version', '')}"))
    suites: dict[str, junitparser.TestSuite] = {}
    for c in cases:
        suite = suites.setdefault(c["file"], junitparser.TestSuite(x(c["file"])))
        case = junitparser.TestCase(x(case_name(c)), classname=x(c["file"].replace("/", ".").removesuffix(".yaml")),
                                    time=c.get("ms", 0) / 1000)
        text = x("\n".join(filter(None, [c.get("message"), c.get("link") and f"bug report: {c['link']}",
                                          c.get("diagram"), c.get("repro")])))
        message = x(c.get("message", c["status"]))
        if c["status"] in ("fail", "xpass"):
            case.result = [junitparser.Failure(message, type_=c["status"])]
            case.result[0].text = text
        elif c["status"] in ("errored", "timeout"):
            case.result = [junitparser.Error(message, type_=c["status"])]
            case.result[0].text = text
        elif c["status"] in ("unsupported", "xfail"):
            case.result = [junitparser.Skipped(message)]
        suite.add_testcase(case)
    for suite in suites.values():
        suite.update_statistics()
        xml.add_testsuite(suite)
    xml.update_statistics()
    return xml.tostring().decode("utf-8") if isinstance(xml.tostring(), bytes) else xml.tostring()


def markdown(lines: list[dict], profile: str = "") -> str:
    """A Markdown summary fit for a CI step summary."""
    header, cases, footer = _parts(lines)
    v = verdict(lines, profile or "complete")
    engine = header.get("engine", {})
    out = [f"## bgconf {header.get('suite_version', '')}: {engine.get('name', '?')} {engine.get('version', '')}",
           "", f"**{'Certified' if v['certified'] else 'PARTIAL RUN, NOT A CERTIFICATE' if v['partial'] else 'Not certified'}**"
           + (f" for profile `{profile}`" if profile else "") + f": {v['why']}.", "", scenario_sentence(header), "",
           "| section | " + " | ".join(("pass", "fail", "errored", "unsupported", "xfail")) + " |",
           "|---|" + "---|" * 5]
    for section, counts in section_matrix(cases).items():
        out.append(f"| {section} | " + " | ".join(str(counts.get(s, 0))
                                                   for s in ("pass", "fail", "errored", "unsupported", "xfail")) + " |")
    bad = rootcause.group(cases, rootcause.line_key, BAD)
    if bad:
        out += ["", f"### Failures: {rootcause.count_text(bad)}", ""]
        out += _cause_items(bad, True)
    known = rootcause.group(cases, rootcause.line_key, ("xfail",))
    if known:
        out += ["", f"### Known failures (xfail): {rootcause.count_text(known)}", ""]
        out += _cause_items(known, False)
    listed = footer.get("incidents") or []
    if listed:
        out += ["", f"### The engine crashed or hung ({v['faults']})", ""]
        for x in listed[:50]:
            name = _named(x["case"], x.get("scenario") or "")
            out.append(f"- {x['kind']} while asking `{name}`: {x['message']} (re-run: `{x['repro']}`)")
        if len(listed) > 50:
            out.append(f"- ... {len(listed) - 50} more in the report's footer")
    counts = footer.get("counts", {})
    out += ["", " ".join(f"{n} {s}," for s, n in counts.items() if n).rstrip(",")
            + f" in {footer.get('wall_s', 0)} s" + (" (incomplete)" if footer.get("incomplete") else "")
            + (f"; the engine: {v['faults']}" if v["faults"] else "")]
    return "\n".join(out) + "\n"


def _cause_items(causes: list, with_status: bool, limit: int = 50) -> list[str]:
    """The Markdown list items of root causes (``rootcause.group`` of report lines): each lead
    with its status (``with_status``), clauses, message and bug link, and the forms under it."""
    out = []
    for cause in causes[:limit]:
        c, also = cause.lead, rootcause.also_text(cause, rootcause.line_key)
        out.append(f"- `{case_name(c)}` ({c['status'] + ', ' if with_status else ''}{', '.join(c['spec'])}):"
                   f" {c.get('message', '')}" + (f" ([bug report]({c['link']}))" if c.get("link") else "")
                   + (f"; also fails as {also}" if also else ""))
    if len(causes) > limit:
        out.append(f"- ... {len(causes) - limit} more root causes in the report")
    return out


#: the width in CSS pixels of a case's board on a page, and of the small boards of its plays
BOARD_WIDTH, PLAY_WIDTH = 520, 300


def play_boards(position: Position, dice, plays: list[str], ident: str) -> list[dict]:
    """Each play of ``plays`` (notation, the mover's numbering) drawn as arrows on a small
    board of ``position`` with ``dice``: ``[{"play": text, "svg": SVG text, or None when its
    moves cannot be made on that board (``board.drawable_moves``)}]``, the SVG ids prefixed
    ``ident-1``, ``ident-2``..."""
    out = []
    for n, text in enumerate(plays, 1):
        steps = drawable_moves(position, text)
        svg = None if steps is None else render_board(position, dice=dice, play=steps, width=PLAY_WIDTH,
                                                      ident=f"{ident}-{n}")
        out.append({"play": text, "svg": svg})
    return out


def position_board(position: Position, ident: str, *, dice=None, cube=None, score=None, play=None,
                   label: str | None = None) -> dict:
    """A position drawn for a page: ``{"svg": render_board's SVG (ids prefixed ``ident``), with
    ``play`` (notation or ``(from, to)`` pairs, mover's numbering; None: no play) as arrows when
    its moves can be made on this board, "play": ``label`` or the play's notation, or None,
    "play_drawn": bool (False: the moves cannot be made, so no arrow is drawn)}``."""
    steps = None if play is None else drawable_moves(position, play)
    if play is not None and label is None:
        label = play if isinstance(play, str) else play_text(position, play)
    return {"svg": render_board(position, dice=dice, cube=cube, score=score, play=steps, width=BOARD_WIDTH,
                                ident=ident),
            "play": label, "play_drawn": steps is not None}


def case_board(case, ident: str) -> dict | None:
    """The board of a case form (a ``Case``, as ``harness.selection.form_finder`` finds it):
    None for a case without a position; else ``position_board`` of its position, dice, cube and
    score, with the play of a play_check or apply_play case."""
    if case is None or case.position is None:
        return None
    play = None
    if case.kind in ("play_check", "apply_play") and (case.play or case.steps is not None):
        play = case.steps if case.steps is not None else case.play
    return position_board(case.position, ident, dice=case.dice, cube=case.cube, score=case.match, play=play,
                          label=case.play)


def answer_boards(case, line: dict, ident: str) -> dict:
    """The missing and extra plays of an engine's answer (``line``: its report line, with
    ``missing``/``extra`` in notation) drawn on small boards of the case form's position:
    ``{"missing": play_boards(...), "extra": play_boards(...)}``, both ``[]`` for a case form
    without a position or an answer without them."""
    if case is None or case.position is None:
        return {"missing": [], "extra": []}
    return {kind: play_boards(case.position, case.dice, [str(p) for p in line.get(kind) or []], f"{ident}-{kind}")
            for kind in ("missing", "extra")}


def html_certificate(lines: list[dict], profile: str, suite=None) -> str:
    """A self-contained HTML page: verdict, matrix per spec section, unsupported
    options and capabilities, and every failure, one per root cause (``rootcause``: the forms
    under it named), with its board and re-run command. ``suite``: the ``Suite`` the run
    asked (a failure's board is its case form's position and dice, with the play of a play
    check and the missing and extra plays as arrows; ``case_board``, ``answer_boards``); None,
    or a suite whose content hash is not the report's, draws no board."""
    from conformance.harness.selection import form_finder

    header, cases, footer = _parts(lines)
    unsupported = sorted({c.get("message", "") for c in cases if c["status"] == "unsupported"})
    causes = rootcause.group(cases, rootcause.line_key, BAD + ("xfail",))
    same = suite is not None and suite.content_hash == header.get("content_hash")
    find = form_finder(suite.cases if same else ())
    failures = []
    for n, x in enumerate(causes, 1):
        form = find(x.lead["id"], x.lead.get("scenario") or "")
        failures.append({"lead": x.lead, "also": rootcause.also_text(x, rootcause.line_key),
                         "board": case_board(form, f"f{n}"), "answer": answer_boards(form, x.lead, f"f{n}")})
    return TEMPLATES.get_template("certificate.html.j2").render(
        header=header, footer=footer, profile=profile, verdict=verdict(lines, profile),
        scenarios=scenario_sentence(header),
        matrix=section_matrix(cases), statuses=("pass", "fail", "errored", "timeout", "unsupported", "xfail", "xpass"),
        failures=failures, counted=rootcause.count_text(causes), unsupported=unsupported,
        duplicated=[c for c in cases if c.get("duplicates") and c["status"] not in BAD])


def html_replay(lines: list[dict]) -> str:
    """One self-contained HTML page of a ``bgconf replay`` run (``--html``), from its report's
    lines (``replay-header``, ``event``, ``file``, ``footer``): per record file a section with
    its counts; each illegal event with where it is, its message and clause, the board before
    it with the dice, the recorded play drawn as arrows (when its moves can be made on that
    board) and the legal plays nearest to it each on a small board; record errors and notes as
    text. Raises ModelError for an event whose position does not read (``model.read_position``)."""
    from conformance.cases import resources
    from conformance.model import read_position

    header = next((x for x in lines if x.get("type") == "replay-header"), {})
    footer = next((x for x in lines if x.get("type") == "footer"), {})
    files: dict[str, dict] = {}
    for x in lines:
        if x.get("type") not in ("event", "file"):
            continue
        section = files.setdefault(x["file"], {"file": x["file"], "counts": None, "events": []})
        if x["type"] == "file":
            section["counts"] = x
            continue
        event = {"line": x, "board": None, "nearest": []}
        if x.get("position") is not None and x["level"] == "illegal":
            position, dice = read_position(x["position"]), tuple(x["dice"]) if x.get("dice") else None
            ident = f"e{len(files)}-{len(section['events']) + 1}"
            played = x.get("recorded") if x.get("kind") == "play" else None
            event["board"] = position_board(position, ident, dice=dice, play=played)
            event["nearest"] = play_boards(position, dice, list(x.get("nearest_legal") or []), f"{ident}-nearest")
        section["events"].append(event)
    return TEMPLATES.get_template("replay.html.j2").render(
        header=header, footer=footer, files=list(files.values()), clauses=resources.spec_clauses())


def badge(lines: list[dict], profile: str) -> dict:
    """shields.io endpoint JSON for the profile's verdict, ``{"schemaVersion": 1, "label",
    "message", "color"}``: ``certified (swapped, dice-reversed, ...)`` naming the scenarios it
    covers; ``partial, not a certificate`` (``partial, interrupted: 3 of 7``); ``interrupted: 40
    of 102`` or ``incomplete: 40 of 102`` (cases answered of cases selected); ``not certified:
    25 crashes`` (every must case passed but the engine crashed or hung); else ``280/286 must``
    (must cases passed of counted), with the crashes and hangs when there were any."""
    v = verdict(lines, profile)
    _header, _cases, footer = _parts(lines)
    answered = f"{footer.get('total', len(_cases))} of {footer.get('selected', len(_cases))}"
    if v["partial"]:
        return {"schemaVersion": 1, "label": f"bgconf {profile}",
                "message": f"partial, interrupted: {answered}" if footer.get("interrupted")
                else "partial, not a certificate", "color": "lightgrey"}
    if v["certified"]:
        names = covered_scenarios(_header)
        message = f"certified ({', '.join(names)})" if names else "certified (no scenarios)"
    elif footer.get("interrupted"):
        message = f"interrupted: {answered}"
    elif footer.get("incomplete") or not footer:
        message = f"incomplete: {answered}"
    elif v["faults"] and v["must_passed"] == v["must"]:
        message = f"not certified: {v['faults']}"
    else:
        message = f"{v['must_passed']}/{v['must']} must" + (f", {v['faults']}" if v["faults"] else "")
    return {"schemaVersion": 1, "label": f"bgconf {profile}", "message": message,
            "color": "brightgreen" if v["certified"] else "red"}
