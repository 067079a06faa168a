"""The README's certification table (``bgconf table``): every engine run on the whole bundled
suite, its counts (the cases as written) and its verdict per profile, judged as ``bgconf
certify`` judges it (every case also in each scenario: colours swapped, dice reversed, each
position form the engine declares; no certificate when the engine crashed or hung), as
Markdown rows.

The rows come in a fixed order, whatever order the engines are given in: first the built-in
engines that list the legal plays (in the order of ``bgconf engines``), then the built-in
engines that only choose a play (capability ``chosen-play``, asked the chosen-play form of each
legal_plays case as well), then the engines given as a command or a Python factory
(``cmd:...``, ``python:...``), such as the JavaScript example ``EXAMPLE_ENGINE``. An engine
that cannot start keeps its place in its group.

The README's bug table (``bgconf table --bugs``) comes from the same runs: one row per root
cause of each engine's rule bugs (``reports.rootcause``: the forms of a case that fail where the
root case fails are one row), in the same order of engines and, within an engine, in the order of
the suite. Each row gives the clause and the case, the other forms that fail with it, and what
the engine does: the reason its expectations file (``expectations/NAME.yaml``) gives for the
case, or else the failure's message; and the row's kind: the entry's ``kind`` (``rule bug``, the
default, or ``notation``), or ``unreviewed`` for a failure no expectations entry lists (no one
has yet told a rule bug from a notation or interface difference there).

The README's variant table (``bgconf table --variants``) comes from the same runs too: for each
engine, one row per variant other than the standard game that it declares in its ``rule_options``
(spec: variant.option), with the counts over that variant's cases and the verdict of the
variant's movement, money and match profiles (``movement-hypergammon-3``, ...). Engines that play
only the standard game have no row.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from conformance.cases import case_name, load_suite
from conformance.engines.registry import BUILTIN, get_engine
from conformance.harness.runner import EngineStarter, run_cases, run_cases_jobs
from conformance.harness.selection import asked
from conformance.reports import rootcause
from conformance.reports.report import case_line, footer, header

#: the JavaScript example engine (examples/js/), a row of the table when bgconf runs from a
#: checkout with node installed; its command is relative to the checkout's root
EXAMPLE_ENGINE = "cmd:node examples/js/engine.js"

#: the lines between which a README holds the table (``bgconf table --write``)
START, END = "<!-- certification:start -->", "<!-- certification:end -->"

HEAD = ["| engine | version | cases | pass | fail | errored | unsupported | movement | money | match | bot |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
#: the profiles with a column, in order
COLUMNS = ("movement", "money", "match", "bot")

#: the lines between which a README holds the bug table (``bgconf table --bugs --write``)
BUGS_START, BUGS_END = "<!-- bugs:start -->", "<!-- bugs:end -->"

BUGS_HEAD = ["| engine | version | kind | rule | case | also fails as | what the engine does |",
             "|---|---|---|---|---|---|---|"]

#: the lines between which a README holds the variant table (``bgconf table --variants --write``)
VARIANTS_START, VARIANTS_END = "<!-- variants:start -->", "<!-- variants:end -->"

VARIANTS_HEAD = ["| engine | version | variant | cases | pass | fail | errored | unsupported | movement | money | match |",
                 "|---|---|---|---|---|---|---|---|---|---|---|"]
#: the profiles with a column in the variant table; each is judged as its variant's profile (PROFILE-VARIANT)
VARIANT_COLUMNS = ("movement", "money", "match")

#: the longest "what the engine does" taken from a failure's message
MESSAGE_CHARS = 200

#: the kind of a bug table row that no expectations entry lists (an entry's kind may say it too)
UNREVIEWED = "unreviewed"


def example_available(cwd: Path | None = None) -> bool:
    """Whether ``EXAMPLE_ENGINE`` can run from ``cwd`` (default: the current directory):
    ``examples/js/engine.js`` is there and ``node`` is on PATH."""
    return (Path(cwd or Path.cwd()) / "examples" / "js" / "engine.js").is_file() and shutil.which("node") is not None


def row_order(name: str, info: dict | None) -> int:
    """The group of an engine's row: 0 a built-in engine that lists legal plays, 1 a built-in
    engine that only chooses a play (``chosen-play``), 2 an engine given as a command or a
    factory. ``info``: its ``describe()`` (None when it could not start)."""
    if name not in BUILTIN:
        return 2
    return 1 if "chosen-play" in (info or {}).get("capabilities", []) else 0


def engine_run(name: str, suite, jobs: int = 1) -> tuple[dict | None, list[dict], str]:
    """Run the whole of ``suite`` (a loaded ``Suite``) on one engine as ``bgconf certify`` asks
    it (each case also in every scenario the engine is certified on, the chosen-play forms):
    (its ``describe()``, the report's lines: header, case lines, footer, ""); for an engine that
    cannot start, (None, [], why: its first line). An engine's failure while running raises as
    it came. ``jobs`` > 1: the cases are answered by that many worker processes, each with its
    own engine (``runner.run_cases_jobs``), with the same lines."""
    try:
        engine = get_engine(name)
        info = engine.describe()
    except Exception as exc:  # not installed here: say so rather than guess
        return None, [], (str(exc).splitlines() or [type(exc).__name__])[0]
    try:
        if jobs > 1:
            engine.close()
            results = run_cases_jobs(EngineStarter(name), info, asked(suite.cases, info, scenarios=True), jobs)
        else:
            results = run_cases(engine, asked(suite.cases, info, scenarios=True))
    finally:
        engine.close()
    lines = ([header(info, suite.content_hash)] + [case_line(r, name) for r in results]
             + [footer(results, 0.0, given_up=getattr(engine, "given_up", None), engine_name=name)])
    return info, lines, ""


def _cell(text: str) -> str:
    """``text`` fit for a Markdown table cell: on one line, ``|`` escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def engine_row(name: str, suite, run: tuple[dict | None, list[dict], str] | None = None
               ) -> tuple[str, dict | None, dict]:
    """One engine's certification row over ``suite`` (a loaded ``Suite``): (Markdown row, its
    ``describe()`` or None when it could not start, the counts {"cases", "pass", "fail",
    "errored", "unsupported"}). ``run``: the engine's ``engine_run`` (default: run it now). An
    engine that cannot start is a row saying "not installed" and why."""
    from conformance.reports import render
    info, lines, why = run or engine_run(name, suite)
    if info is None:
        return f"| {name} | not installed ({_cell(why)}) |" + " |" * (5 + len(COLUMNS)), None, {}
    written = {c.name for c in asked(suite.cases, info, scenarios=False)}  # what the counts count
    cases = [x for x in lines if x["type"] == "case" and render.case_name(x) in written]
    counts = {k: sum(x["status"] == k for x in cases) for k in ("pass", "fail", "errored", "unsupported")}
    verdicts = []
    for profile in COLUMNS:
        judged = render.profile_lines(lines, suite.cases, profile)  # bot: the chosen plays alone
        if judged is None:
            verdicts.append("n/a")  # an engine that does not choose plays is no bot
            continue
        v = render.verdict(judged, profile)
        verdicts.append("certified" if v["certified"] else f"no ({v['must_passed']}/{v['must']})")
    row = (f"| {name} | {info.get('version', '')} | {len(cases)} | {counts['pass']} | {counts['fail']} |"
           f" {counts['errored']} | {counts['unsupported']} | " + " | ".join(verdicts) + " |")
    return row, info, {"cases": len(cases), **counts}


def variant_rows(name: str, suite, run: tuple[dict | None, list[dict], str]) -> list[str]:
    """One engine's rows of the variant table from its ``engine_run``: one per variant other than
    the standard game that it declares (its ``rule_options`` ``variant``; spec: variant.option), in
    ``model.VARIANTS`` order, with the counts over that variant's cases as written and the verdict
    of each of its profiles (``movement-hypergammon-3``, ...: ``harness.profiles``). An engine that
    declares no variant has no row; one that could not start, one row saying so."""
    from conformance.harness.profiles import variant_profile
    from conformance.model import VARIANTS
    from conformance.reports import render

    info, lines, why = run
    if info is None:
        return [f"| {name} | not installed ({_cell(why)}) |" + " |" * 9]
    declared = (info.get("rule_options") or {}).get("variant") or []
    rows = []
    written = {c.name for c in asked(suite.cases, info, scenarios=False)}
    for variant in (v for v in VARIANTS if v != "standard" and v in declared):
        ids = {c.id for c in suite.cases if c.effective_rules.get("variant", "standard") == variant}
        cases = [x for x in lines if x["type"] == "case" and x["id"] in ids and render.case_name(x) in written]
        counts = {k: sum(x["status"] == k for x in cases) for k in ("pass", "fail", "errored", "unsupported")}
        verdicts = []
        for base in VARIANT_COLUMNS:
            profile = variant_profile(base, variant)
            v = render.verdict(render.profile_lines(lines, suite.cases, profile), profile)
            verdicts.append("certified" if v["certified"] else f"no ({v['must_passed']}/{v['must']})")
        rows.append(f"| {name} | {info.get('version', '')} | {variant} | {len(cases)} | {counts['pass']} |"
                    f" {counts['fail']} | {counts['errored']} | {counts['unsupported']} | " + " | ".join(verdicts) + " |")
    return rows


def bug_rows(name: str, run: tuple[dict | None, list[dict], str], notes=None) -> list[str]:
    """One engine's rows of the bug table from its ``engine_run``: one per root cause of its
    rule bugs (``rootcause.group`` over the fail and xfail lines), in run order. ``notes``: the
    engine's ``harness.expectations.Expectations`` (None: none), whose entry for the first form
    of the line it names (or else for the case's id) gives the row's text (a leading ``anchor:`` of the case becomes the row's rule) and kind (a case
    it does not list: ``UNREVIEWED``). An engine that could not start is one row saying so."""
    info, lines, why = run
    if info is None:
        return [f"| {name} | not installed ({_cell(why)}) |" + " |" * 5]
    rows = []
    for cause in rootcause.group([x for x in lines if x["type"] == "case"], rootcause.line_key, rootcause.WRONG):
        lead = cause.lead
        named = case_name(lead["id"], lead.get("scenario") or "")
        rule, text = lead["spec"][0], lead.get("message", "")
        if len(text) > MESSAGE_CHARS:
            text = text[:MESSAGE_CHARS].rstrip() + "..."
        listed = [case_name(x["id"], x.get("scenario") or "") for x in cause.forms]
        entry = next((n for n in listed + [lead["id"]] if notes and n in notes.xfail), None)
        reason = entry and notes.xfail[entry]  # the first form of the line an entry names, else its id
        if reason:
            anchor, sep, rest = reason.partition(": ")
            rule, text = (anchor, rest) if sep and anchor in lead["spec"] else (rule, reason)
        kind = notes.kind(entry) if reason else UNREVIEWED
        also = ", ".join(x.get("scenario") or "as written" for x in cause.under) or "-"
        rows.append(f"| {name} | {info.get('version', '')} | {kind} | `{rule}` | {named} | {_cell(also)} |"
                    f" {_cell(text)} |")
    return rows


def certification_table(engines: list[str],
                        progress: Callable[[int, int, str, dict | None], None] | None = None) -> str:
    """The README's certification table: each engine's counts over the whole suite and its
    verdict per profile (certified when every must case passes), as Markdown (a header row, a
    rule, one row per engine of ``engines`` in the order of the module docstring, a final
    newline). ``progress(done, total, name, counts)`` is called before each engine (counts
    None) and after it (its counts; {} when it could not start)."""
    return tables(engines, progress)[0]


def bug_table(engines: list[str], progress: Callable[[int, int, str, dict | None], None] | None = None,
              notes_dir: Path | None = None) -> str:
    """The README's bug table (module docstring): a header row, a rule, the rows of each engine
    of ``engines`` (``bug_rows``) in the certification table's order of engines, a final
    newline. ``notes_dir``: the folder of the expectations files (``NAME.yaml``; an engine
    without one has its rows from the failures' messages). ``progress`` as for
    ``certification_table``. Raises ``harness.expectations.ExpectationsError`` for an
    expectations file that cannot be read."""
    return tables(engines, progress, notes_dir)[1]


def tables(engines: list[str], progress: Callable[[int, int, str, dict | None], None] | None = None,
           notes_dir: Path | None = None, jobs: int = 1) -> tuple[str, str, str]:
    """(the certification table, the bug table, the variant table) from one run of each engine, as
    ``certification_table``, ``bug_table`` and ``variant_rows`` give them (the variant table: a
    header row, a rule, the variant rows of each engine in the certification table's order);
    ``jobs``: worker processes per engine run (``engine_run``)."""
    from conformance.harness.expectations import load

    notes = {}
    for name in engines:  # read before any engine runs: a bad file stops the command at once
        path = Path(notes_dir) / f"{name}.yaml" if notes_dir is not None else None
        if path is not None and path.is_file():
            notes[name] = load(path)
    suite = load_suite()
    rows: list[tuple[int, int, str, list[str]]] = []
    for i, name in enumerate(engines):
        if progress:
            progress(i, len(engines), name, None)
        run = engine_run(name, suite, jobs)
        row, info, counts = engine_row(name, suite, run)
        rows.append((row_order(name, info), i, row, bug_rows(name, run, notes.get(name)),
                     variant_rows(name, suite, run)))
        if progress:
            progress(i + 1, len(engines), name, counts)
    rows.sort(key=lambda r: r[:2])
    return ("\n".join(HEAD + [row for _g, _i, row, _b, _v in rows]) + "\n",
            "\n".join(BUGS_HEAD + [b for _g, _i, _r, bugs, _v in rows for b in bugs]) + "\n",
            "\n".join(VARIANTS_HEAD + [v for _g, _i, _r, _b, var in rows for v in var]) + "\n")


def readme_rows(text: str, start: str = START, end: str = END, head: list[str] | None = None) -> list[str]:
    """The table rows between the markers (default ``START``, ``END``; ``BUGS_START``,
    ``BUGS_END`` for the bug table) of a README's text, the header and rule (``head``, default
    ``HEAD``) left out. Raises IndexError when the text has no markers."""
    table = text.split(start, 1)[1].split(end, 1)[0]
    return [line for line in table.strip().splitlines() if line not in (head or HEAD)]
