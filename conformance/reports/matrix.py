"""Every case against every engine, as a static site, from reports (``bgconf matrix``).

The site (no server, no network: open ``DIR/index.html`` from disk):

- ``index.html``: the engines (name, version, report, suite version, counts, and its failures
  by root cause: "N rule bugs in M cases", ``reports.rootcause``), each engine's failures one
  per root cause, the pass rate of each engine per spec section, and every case with its status in each engine
  and in how many engines it fails, with filters by section, kind, tag and status;
- ``cases/NAME.html``: one page per case: its board (the position of the form the reports
  name, with its dice, cube and score, and the play of a play_check or apply_play case drawn
  as arrows; none for a case without a position), its YAML as written, the text of each spec
  clause it names, each engine's status, message, bug link and re-run command, and the missing
  and extra plays of each engine's answer each drawn on a small board;
- ``engines/ENGINE.html``: one page per engine name (``engine_pages``): its reports, newest
  first; its badges; the failures of its newest report one per root cause (``reports.rootcause``),
  grouped by spec section and, within one, by the clause the root case names first, each with the
  board of its case page and a link to it; and its history: what changed, case by case, from each
  of its reports to the next newer one (``reports.diff``), newest first;
- ``badges/ENGINE-PROFILE.json``: per engine name and profile, a shields.io endpoint badge of
  what ``bgconf certify`` says of its newest report for that profile (``badges``);
- ``spec.html``: every clause of spec/rules.md by anchor;
- ``matrix.json``: the data the pages are drawn from (``matrix_data``).

History pairs reports of one engine name only, in version order (``version_key``: the suite
version, then the engine version, then the start time in the header, then the order given), so
two versions of an engine, or one engine run on two suite versions, show what changed from one to
the next. Reports of different suites are one site only with ``--mixed-suites`` (``bgconf
matrix``), and then a history step between two suites says so: a case that appeared or
disappeared there may be a case added to or retired from the suite.

Case details (title, tags, YAML) come from the suite the reports ran (``--cases``, default
the bundled suite); a case a report names that the suite lacks is shown from the report. The
boards are drawn from the suite's cases, and only for the engines whose report ran that very
suite (the same content hash): a board of another suite's case could show a position the
engine was never asked.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from conformance.harness.compare import STATUSES
from conformance.harness.profiles import PROFILES
from conformance.reports import rootcause
from conformance.harness.selection import form_finder
from conformance.reports.diff import diff_reports
from conformance.reports.render import (BAD, TEMPLATES, answer_boards, badge, case_board, case_name,
                                        profile_lines)


def page_name(name: str) -> str:
    """The file name of a case's page: ``bg-7Q3K.html``, ``bg-7Q3K-swapped.html`` (``slug``)."""
    return slug(name) + ".html"


def slug(text: str) -> str:
    """A file name stem from any text: letters, digits and ``-`` (``mutant:no-larger-die`` ->
    ``mutant-no-larger-die``), ``engine`` when none is left."""
    return re.sub(r"[^A-Za-z0-9-]+", "-", text).strip("-") or "engine"


def version_key(text: str) -> tuple:
    """A sort key that orders version strings as people read them: ``1.10`` after ``1.9``,
    ``2026.12.1`` after ``2026.12.0`` (runs of digits compare as numbers, other text as text)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.findall(r"[0-9]+|[^0-9.]+", text))


def engine_pages(reports: list[tuple[str, list[dict]]]) -> list[dict]:
    """The engine pages of a matrix: its reports grouped by engine name (in the order each name
    first appears), each group's reports newest first (``version_key`` of the suite version, then
    of the engine version, then the header's start time, then the order given)::

        [{"name": engine name, "page": "engines/NAME.html", "slug": "NAME",
          "reports": [column index, ...newest first]}, ...]

    Two names that make the same file name get ``-2``, ``-3``... after the second and later."""
    groups: dict[str, list[int]] = {}
    for i, (_path, lines) in enumerate(reports):
        groups.setdefault(lines[0].get("engine", {}).get("name", ""), []).append(i)
    pages, taken = [], set()
    for name, columns in groups.items():
        stem, n = slug(name), 1
        while (stem if n == 1 else f"{stem}-{n}") in taken:
            n += 1
        stem = stem if n == 1 else f"{stem}-{n}"
        taken.add(stem)

        def newest(i: int) -> tuple:
            head = reports[i][1][0]
            return (version_key(head.get("suite_version", "")),
                    version_key(head.get("engine", {}).get("version", "")), head.get("started", ""), i)

        pages.append({"name": name, "page": f"engines/{stem}.html", "slug": stem,
                      "reports": sorted(columns, key=newest, reverse=True)})
    return pages


def badges(lines: list[dict], suite_cases) -> dict[str, dict]:
    """A report's badge per profile: ``{profile: shields.io endpoint JSON}``, each what ``bgconf
    certify`` says of the report for that profile (``render.badge`` of ``render.profile_lines``:
    the same words as certify's ``.badge.json``), the profile's cases read from ``suite_cases``;
    a profile that does not apply to the engine (``bot`` for an engine that does not choose
    plays) has none.

    The endpoint badge schema (https://shields.io/badges/endpoint-badge): ``schemaVersion`` is
    always 1, ``label`` a string (the left text), ``message`` a non-empty string (the right
    text), ``color`` optional (a colour name)."""
    out = {}
    for profile in PROFILES:
        judged = profile_lines(lines, suite_cases, profile)
        if judged is not None:
            out[profile] = badge(judged, profile)
    return out


def history(reports: list[tuple[str, list[dict]]], columns: list[int], labels: list[str]) -> list[dict]:
    """What changed between consecutive reports of one engine, newest first: ``columns`` are
    their indices in ``reports``, newest first (``engine_pages``). One step per pair::

        [{"old": column, "new": column, "old_label", "new_label", "same_suite": bool,
          "counts": {change: n}, "unchanged": n, "gaps": [text, ...],
          "changes": [{"case", "section", "spec", "title", "old", "new", "change", "message",
                       "link"}, ...]}, ...]

    the changes as ``diff.diff_reports`` gives them (sorted by section, then case)."""
    steps = []
    for new, old in zip(columns, columns[1:]):
        d = diff_reports(reports[old][1], reports[new][1], str(reports[old][0]), str(reports[new][0]))
        steps.append({"old": old, "new": new, "old_label": labels[old], "new_label": labels[new],
                      "same_suite": d["same_suite"], "counts": d["counts"], "unchanged": d["unchanged"],
                      "gaps": d["gaps"],
                      "changes": [{k: c[k] for k in ("case", "section", "spec", "title", "old", "new", "change",
                                                     "message", "link")} for c in d["changes"]]})
    return steps


def case_sources(cases) -> dict[str, str]:
    """Case id -> its YAML text as written in its file (from its line to the next case's)."""
    by_file: dict[str, list] = defaultdict(list)
    for c in cases:
        if not c.scenario:
            by_file[c.file].append(c)
    sources = {}
    for file, group in by_file.items():
        path = Path(file)
        if not path.is_absolute() and not path.exists():
            from conformance.cases import resources

            path = resources.data_root() / file
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        group.sort(key=lambda c: c.line)
        for c, after in zip(group, group[1:] + [None]):
            end = after.line - 1 if after else len(lines)
            sources[c.id] = "\n".join(lines[c.line - 1:end]).rstrip()
    return sources


def _labels(reports: list[tuple[str, list[dict]]]) -> list[str]:
    labels = []
    for path, lines in reports:
        engine = lines[0].get("engine", {})
        labels.append(f"{engine.get('name', '?')} {engine.get('version', '')}".strip())
    counts = Counter(labels)
    return [f"{label} ({Path(path).name})" if counts[label] > 1 else label
            for label, (path, _lines) in zip(labels, reports)]


def suite_groups(reports: list[tuple[str, list[dict]]]) -> list[dict]:
    """The reports grouped by the suite they ran (suite version and content hash, from each
    header), in the order they first appear::

        [{"suite_version": "2026.12.0", "content_hash": "<sha256 hex>", "reports": [path, ...]}, ...]

    More than one group means the columns of a matrix are not comparable: a case may differ,
    or be absent, from one suite to the other."""
    groups: dict[tuple[str, str], list[str]] = {}
    for path, lines in reports:
        head = lines[0]
        groups.setdefault((head.get("suite_version", ""), head.get("content_hash", "")), []).append(str(path))
    return [{"suite_version": v, "content_hash": h, "reports": paths} for (v, h), paths in groups.items()]


def mixed_suites_text(groups: list[dict]) -> str:
    """One line naming each suite and its reports (``suite 2026.12.0 (content 1a2b3c4d5e6f): a.jsonl,
    b.jsonl; suite ...``), for the warning of a matrix over reports of different suites."""
    return "; ".join(f"suite {g['suite_version']} (content {g['content_hash'][:12]}): " + ", ".join(g["reports"])
                     for g in groups)


def matrix_data(reports: list[tuple[str, list[dict]]], suite_cases=()) -> dict:
    """The matrix of ``reports`` (path and lines of each, as ``report.load_report`` gives)::

        {"suite_versions": [...], "mixed_suites": [group, ...] (suite_groups; [] when all ran one suite),
         "engines": [{"label", "name", "version", "report", "suite_version",
                      "content_hash", "complete", "counts": {status: n}, "rule_bugs": "N rule bugs in M cases",
                      "causes": [{"name", "id", "scenario", "status", "spec", "message", "also": [name, ...]}, ...],
                      "page": "engines/NAME.html"}],
         "engine_pages": [{"name", "page", "slug", "reports": [column, ...newest first],
                           "badges": {profile: badge} (badges, of the newest report),
                           "history": [step, ...newest first] (history)}],
         "sections": {section: [{"pass": n, "answered": n, "total": n}, ...one per engine]},
         "cases": [{"name", "id", "scenario", "title", "kind", "level", "tags", "file", "line", "spec", "section",
                    "statuses": [status or None per engine], "fails_in": n,
                    "answers": [{"status", "message", "link", "repro", "under", "missing", "extra"}
                                or None per engine]}],
         "clauses": {anchor: text}}

    ``answered`` excludes unsupported cases; a case counts in every section its anchors
    name; ``fails_in`` counts engines whose status is fail, errored, timeout or xpass. An engine's
    ``causes`` are its failures one per root cause (``rootcause.group``, known failures included),
    and an answer's ``under`` names the root cause a failing form is shown under when that is
    another form of the case (else None); ``missing`` and ``extra`` are the plays (notation) the
    report line lists, [] when it lists none. A profile's cases (the badges) are read from
    ``suite_cases``."""
    from conformance.cases import resources

    known = {c.name: c for c in suite_cases}
    engines, by_name = [], defaultdict(lambda: [None] * len(reports))
    under: list[dict[str, str]] = []  # per engine: a form's name -> the name of the line it is under
    for i, ((path, lines), label) in enumerate(zip(reports, _labels(reports))):
        head = lines[0]
        foot = lines[-1] if lines[-1]["type"] == "footer" else {}
        case_lines = [x for x in lines if x["type"] == "case"]
        counted = Counter(c["status"] for c in case_lines)
        causes = rootcause.group(case_lines, rootcause.line_key)
        under.append({case_name(x): case_name(c.lead) for c in causes for x in c.under})
        engines.append({"label": label, "name": head["engine"].get("name", ""),
                        "version": head["engine"].get("version", ""), "report": str(path),
                        "suite_version": head["suite_version"], "content_hash": head["content_hash"],
                        "complete": bool(foot) and not foot.get("incomplete"),
                        "counts": {s: counted.get(s, 0) for s in STATUSES},
                        "rule_bugs": rootcause.count_text(causes),
                        "causes": [{"name": case_name(c.lead), "id": c.lead["id"],
                                    "scenario": c.lead.get("scenario") or "", "status": c.status,
                                    "spec": c.lead["spec"],
                                    "message": c.lead.get("message", ""),
                                    "also": [case_name(x) for x in c.under]} for c in causes]})
        for c in case_lines:
            by_name[case_name(c)][i] = c
    cases, sections = [], defaultdict(lambda: [Counter() for _ in reports])
    for name in sorted(by_name, key=lambda n: (by_name[n][0] is None, n)):
        answers = by_name[name]
        first = next(a for a in answers if a is not None)
        case = known.get(name)
        spec = list(case.spec) if case else first["spec"]
        statuses = [a and a["status"] for a in answers]
        cases.append({
            "name": name, "id": first["id"], "scenario": first.get("scenario") or "", "title": case.title if case else first.get("title", ""),
            "kind": first["kind"], "level": first.get("level", "must"),
            "tags": list(case.tags) if case else [], "file": first["file"], "line": case.line if case else None,
            "spec": spec, "section": spec[0].split(".", 1)[0], "statuses": statuses,
            "fails_in": sum(s in BAD for s in statuses),
            "answers": [a and {"status": a["status"], "message": a.get("message", ""), "link": a.get("link"),
                               "repro": a.get("repro", ""), "under": under[i].get(name),
                               "missing": list(a.get("missing") or []), "extra": list(a.get("extra") or [])}
                        for i, a in enumerate(answers)]})
        for section in dict.fromkeys(a.split(".", 1)[0] for a in spec):
            for i, s in enumerate(statuses):
                if s is not None:
                    sections[section][i][s] += 1
    clauses = resources.spec_clauses(limit=None)
    labels = [e["label"] for e in engines]
    pages = engine_pages(reports)
    for page in pages:
        for i in page["reports"]:
            engines[i]["page"] = page["page"]
        page["badges"] = badges(reports[page["reports"][0]][1], suite_cases)
        page["history"] = history(reports, page["reports"], labels)
    return {
        "suite_versions": sorted({e["suite_version"] for e in engines}),
        "mixed_suites": groups if len(groups := suite_groups(reports)) > 1 else [],
        "engines": engines,
        "sections": {sec: [{"pass": c["pass"], "answered": sum(c.values()) - c["unsupported"],
                            "total": sum(c.values())} for c in per] for sec, per in sorted(sections.items())},
        "cases": cases,
        "engine_pages": pages,
        "clauses": {a: clauses.get(a, "") for a in sorted({a for c in cases for a in c["spec"]})},
    }


#: the site's files beside its folders
SITE_FILES = ("matrix.json", "index.html", "spec.html")
#: the site's folders: a page per case, a page per engine, the badges
SITE_FOLDERS = ("cases", "engines", "badges")


def write_site(data: dict, out: Path, sources: dict[str, str], suite=None) -> list[Path]:
    """Write the site into ``out`` (created): every file beside its target, all moved into
    place together when complete (``reports.files.OutputSet``; other files in ``out`` are
    left alone); returns the files written. ``suite``: the ``Suite`` the case pages draw their
    boards from (None: no board). Raises OSError (``files.OutputError``)."""
    from conformance.cases import resources
    from conformance.reports.files import OutputSet

    kinds = sorted({c["kind"] for c in data["cases"]})
    tags = sorted({t for c in data["cases"] for t in c["tags"]})
    written = []
    with OutputSet() as files:
        _pages(data, out, sources, kinds, tags, files, written, resources, suite)
        files.commit()
    return written


def _pages(data, out, sources, kinds, tags, files, written, resources, suite) -> None:
    def put(path: Path, text: str) -> None:
        files.text("--out", path, text)
        written.append(path)

    put(out / "matrix.json", json.dumps(data, indent=1) + "\n")
    put(out / "index.html", TEMPLATES.get_template("matrix.html.j2").render(
        data=data, statuses=STATUSES, kinds=kinds, tags=tags, page_name=page_name, bad=BAD))
    put(out / "spec.html", TEMPLATES.get_template("matrix_spec.html.j2").render(
        data=data, clauses=resources.spec_clauses(limit=None)))
    find = form_finder(suite.cases if suite is not None else ())
    ran = [suite is not None and e["content_hash"] == suite.content_hash for e in data["engines"]]
    for case in data["cases"]:
        drawn = [a is not None and same for a, same in zip(case["answers"], ran)]
        form = find(case["id"], case["scenario"]) if any(drawn) else None
        answers = [answer_boards(form, a, f"e{i}") if a is not None and drawn[i] else None
                   for i, a in enumerate(case["answers"])]
        put(out / "cases" / page_name(case["name"]), TEMPLATES.get_template("matrix_case.html.j2").render(
            data=data, case=case, source=sources.get(case["id"], ""), bad=BAD, page_name=page_name,
            board=case_board(form, "case"), answers=answers))
    by_name = {c["name"]: c for c in data["cases"]}
    for page in data["engine_pages"]:
        newest = page["reports"][0]
        lines = []
        for n, cause in enumerate(data["engines"][newest]["causes"], 1):
            form = find(cause["id"], cause["scenario"]) if ran[newest] else None
            lines.append({"cause": cause, "board": case_board(form, f"c{n}"),
                          "answer": answer_boards(form, by_name[cause["name"]]["answers"][newest], f"c{n}")})
        put(out / page["page"], TEMPLATES.get_template("matrix_engine.html.j2").render(
            data=data, page=page, engine=data["engines"][newest], groups=clause_groups(lines),
            statuses=STATUSES, page_name=page_name))
        for profile, shield in page["badges"].items():
            put(out / "badges" / f"{page['slug']}-{profile}.json", json.dumps(shield, indent=2) + "\n")


def clause_groups(lines: list[dict]) -> dict[str, dict[str, list[dict]]]:
    """Root-cause lines (each ``{"cause": an engine's cause in matrix_data, ...}``) grouped by
    the spec section, then the clause, of the first anchor their lead names, both sorted:
    ``{section: {anchor: [line, ...in run order]}}``."""
    groups: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for line in lines:
        anchor = line["cause"]["spec"][0] if line["cause"]["spec"] else ""
        groups[anchor.split(".", 1)[0]][anchor].append(line)
    return {section: dict(sorted(by.items())) for section, by in sorted(groups.items())}
