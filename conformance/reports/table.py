"""The README's certification table (``bgconf table``): every engine run on the whole bundled
suite, its counts and its verdict per profile, as Markdown rows."""

from __future__ import annotations

from conformance.cases import load_suite
from conformance.engines.registry import get_engine
from conformance.harness.runner import asked_cases, run_cases
from conformance.reports.report import case_line, footer, header


def certification_table(engines: list[str]) -> str:
    """The README's certification table: each engine's counts over the whole suite
    and its verdict per profile (certified when every must case passes), as Markdown
    (a header row, a rule, one row per engine of ``engines``, a final newline). An
    engine that cannot start is a row saying "not installed" and why; an engine's
    failure while running raises as it came."""
    from conformance.reports import render
    from conformance.harness.profiles import in_profile

    suite = load_suite()
    rows = ["| engine | version | cases | pass | fail | errored | unsupported | movement | money | match |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for name in engines:
        try:
            engine = get_engine(name)
            info = engine.describe()
        except Exception as exc:  # not installed here: say so rather than guess
            why = (str(exc).splitlines() or [type(exc).__name__])[0].replace("|", "\\|")
            rows.append(f"| {name} | not installed ({why}) |" + " |" * 8)
            continue
        try:
            results = run_cases(engine, asked_cases(suite.cases, info))
        finally:
            engine.close()
        lines = ([header(info, suite.content_hash)] + [case_line(r, name) for r in results]
                 + [footer(results, 0.0, given_up=getattr(engine, "given_up", None))])
        counts = {k: sum(r.status == k for r in results) for k in ("pass", "fail", "errored", "unsupported")}
        verdicts = []
        for profile in ("movement", "money", "match"):
            chosen = {c.id for c in suite.cases if in_profile(c, profile)}
            v = render.verdict([x for x in lines if x.get("type") != "case" or x["id"] in chosen], profile)
            verdicts.append("certified" if v["certified"] else f"no ({v['must_passed']}/{v['must']})")
        rows.append(f"| {name} | {info.get('version', '')} | {len(results)} | {counts['pass']} | {counts['fail']} |"
                    f" {counts['errored']} | {counts['unsupported']} | " + " | ".join(verdicts) + " |")
    return "\n".join(rows) + "\n"
