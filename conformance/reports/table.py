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
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from conformance.cases import load_suite
from conformance.engines.registry import BUILTIN, get_engine
from conformance.harness.runner import run_cases
from conformance.harness.selection import asked
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


def engine_row(name: str, suite) -> tuple[str, dict | None, dict]:
    """One engine's row over ``suite`` (a loaded ``Suite``): (Markdown row, its ``describe()``
    or None when it could not start, the counts {"cases", "pass", "fail", "errored",
    "unsupported"}). An engine that cannot start is a row saying "not installed" and why; an
    engine's failure while running raises as it came."""
    from conformance.reports import render
    from conformance.harness.profiles import CHOSEN_ONLY, REQUIRED, in_profile

    try:
        engine = get_engine(name)
        info = engine.describe()
    except Exception as exc:  # not installed here: say so rather than guess
        why = (str(exc).splitlines() or [type(exc).__name__])[0].replace("|", "\\|")
        return f"| {name} | not installed ({why}) |" + " |" * (5 + len(COLUMNS)), None, {}
    written = {c.name for c in asked(suite.cases, info, scenarios=False)}  # what the counts count
    try:  # each case also in every scenario the engine is certified on, as bgconf certify asks it
        results = run_cases(engine, asked(suite.cases, info, scenarios=True))
    finally:
        engine.close()
    lines = ([header(info, suite.content_hash)] + [case_line(r, name) for r in results]
             + [footer(results, 0.0, given_up=getattr(engine, "given_up", None), engine_name=name)])
    results = [r for r in results if r.case.name in written]
    counts = {k: sum(r.status == k for r in results) for k in ("pass", "fail", "errored", "unsupported")}
    verdicts = []
    for profile in COLUMNS:
        chosen = {c.id for c in suite.cases if in_profile(c, profile)}
        kinds = ("chosen_play",) if profile in CHOSEN_ONLY else None  # bot: judged on the chosen plays alone
        if kinds and not REQUIRED[profile] <= set(info.get("capabilities", [])):
            verdicts.append("n/a")  # an engine that does not choose plays is no bot
            continue
        v = render.verdict([x for x in lines if x.get("type") != "case"
                            or (x["id"] in chosen and (kinds is None or x["kind"] in kinds))], profile)
        verdicts.append("certified" if v["certified"] else f"no ({v['must_passed']}/{v['must']})")
    row = (f"| {name} | {info.get('version', '')} | {len(results)} | {counts['pass']} | {counts['fail']} |"
           f" {counts['errored']} | {counts['unsupported']} | " + " | ".join(verdicts) + " |")
    return row, info, {"cases": len(results), **counts}


def certification_table(engines: list[str],
                        progress: Callable[[int, int, str, dict | None], None] | None = None) -> str:
    """The README's certification table: each engine's counts over the whole suite and its
    verdict per profile (certified when every must case passes), as Markdown (a header row, a
    rule, one row per engine of ``engines`` in the order of the module docstring, a final
    newline). ``progress(done, total, name, counts)`` is called before each engine (counts
    None) and after it (its counts; {} when it could not start)."""
    suite = load_suite()
    rows: list[tuple[int, int, str]] = []
    for i, name in enumerate(engines):
        if progress:
            progress(i, len(engines), name, None)
        row, info, counts = engine_row(name, suite)
        rows.append((row_order(name, info), i, row))
        if progress:
            progress(i + 1, len(engines), name, counts)
    return "\n".join(HEAD + [row for _group, _i, row in sorted(rows)]) + "\n"


def readme_rows(text: str) -> list[str]:
    """The table rows between the markers (``START``, ``END``) of a README's text (the header
    and rule left out). Raises IndexError when the text has no markers."""
    table = text.split(START, 1)[1].split(END, 1)[0]
    return [line for line in table.strip().splitlines() if line not in HEAD]
