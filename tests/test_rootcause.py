"""One bug, one line (conformance.reports.rootcause): the forms of a case that fail where the case
as written fails are one root cause; a form that fails where the case as written passes is its
own; the count reads "N rule bugs in M cases". Checked on hand-made lines, by property over any
run, and on a real run of a deliberately broken engine through every rendering."""

import json

from hypothesis import given, strategies as st

from conformance.cases import case_name
from conformance.reports import rootcause
from test_cli import bgconf

BROKEN = "python:engines_for_tests:no_larger_die"


def line(cid: str, scenario: str, status: str) -> dict:
    return {"id": cid, "scenario": scenario, "status": status}


def names(causes) -> list[tuple[str, list[str]]]:
    return [(case_name(c.lead["id"], c.lead["scenario"]), [case_name(x["id"], x["scenario"]) for x in c.under])
            for c in causes]


def test_forms_that_fail_with_their_root_case_are_one_line_whatever_the_scenario_string():
    lines = [line("bg-AAAA", "swapped", "fail"), line("bg-AAAA", "", "fail"), line("bg-AAAA", "check 3", "fail"),
             line("bg-AAAA", "chosen-play+swapped", "fail"), line("bg-AAAA", "dice-reversed", "pass")]
    causes = rootcause.group(lines, rootcause.line_key)
    assert names(causes) == [("bg-AAAA", ["bg-AAAA[swapped]", "bg-AAAA[check 3]", "bg-AAAA[chosen-play+swapped]"])]
    assert rootcause.count_text(causes) == "1 rule bug in 4 cases"


def test_a_form_that_fails_where_its_root_case_passes_is_a_line_of_its_own():
    lines = [line("bg-BBBB", "", "pass"), line("bg-BBBB", "swapped", "fail"), line("bg-BBBB", "check 1", "fail")]
    causes = rootcause.group(lines, rootcause.line_key)
    assert names(causes) == [("bg-BBBB[swapped]", []), ("bg-BBBB[check 1]", [])]
    assert rootcause.count_text(causes) == "2 rule bugs in 2 cases"


def test_forms_of_a_root_case_not_answered_are_one_line_led_by_the_first():
    """bsd-backgammon is not asked legal_plays: bg-GHJ4 is unsupported, its chosen-play forms fail."""
    lines = [line("bg-GHJ4", "", "unsupported"), line("bg-GHJ4", "chosen-play", "fail"),
             line("bg-GHJ4", "chosen-play+swapped", "fail"), line("bg-CCCC", "check 2", "xfail")]
    causes = rootcause.group(lines, rootcause.line_key)
    assert names(causes) == [("bg-GHJ4[chosen-play]", ["bg-GHJ4[chosen-play+swapped]"]), ("bg-CCCC[check 2]", [])]


def test_errored_timeout_and_xpass_forms_are_lines_of_their_own_and_not_rule_bugs():
    lines = [line("bg-DDDD", "", "fail"), line("bg-DDDD", "swapped", "errored"), line("bg-DDDD", "dice-reversed", "xfail"),
             line("bg-EEEE", "", "timeout"), line("bg-EEEE", "swapped", "fail"), line("bg-FFFF", "", "xpass")]
    causes = rootcause.group(lines, rootcause.line_key)
    assert names(causes) == [("bg-DDDD", ["bg-DDDD[dice-reversed]"]), ("bg-DDDD[swapped]", []), ("bg-EEEE", []),
                             ("bg-EEEE[swapped]", []), ("bg-FFFF", [])]
    assert rootcause.count(causes) == (2, 3)
    assert rootcause.also_text(causes[0], rootcause.line_key) == "bg-DDDD[dice-reversed] (xfail)"
    assert rootcause.count_text(rootcause.group(lines, rootcause.line_key, rootcause.WRONG)) == "2 rule bugs in 3 cases"


STATUSES = ("pass", "fail", "xfail", "errored", "timeout", "xpass", "unsupported")
SCENARIOS = ("", "swapped", "dice-reversed", "chosen-play", "check 1", "check 12+dice-reversed")


@given(st.lists(st.tuples(st.sampled_from(["bg-AAAA", "bg-BBBB", "bg-CCCC"]), st.sampled_from(SCENARIOS),
                          st.sampled_from(STATUSES)), unique_by=lambda t: t[:2]))
def test_every_failing_form_is_on_exactly_one_line_and_a_line_is_one_case(forms):
    lines = [line(*f) for f in forms]
    causes = rootcause.group(lines, rootcause.line_key)
    shown = [x for c in causes for x in c.forms]
    failing = [x for x in lines if x["status"] in rootcause.SHOWN + ("xfail",)]
    assert sorted(map(rootcause.line_key, shown)) == sorted(map(rootcause.line_key, failing))
    root = {x["id"]: x["status"] for x in lines if not x["scenario"]}
    for c in causes:
        assert {x["id"] for x in c.forms} == {c.case_id} and c.forms[0] is c.lead
        assert c.status == c.lead["status"]
        if root.get(c.case_id) in rootcause.WRONG and c.status in rootcause.WRONG:
            assert c.lead["scenario"] == ""  # the failing root leads every wrong form of its id
        if root.get(c.case_id) == "pass" or c.status not in rootcause.WRONG:
            assert c.under == []
    n, m = rootcause.count(causes)
    assert n <= m == sum(x["status"] in rootcause.WRONG for x in lines)


def test_a_real_run_reads_one_line_per_root_cause_in_every_rendering(tmp_path):
    """The broken engine plays the smaller die: bg-X6DC fails as written and in every scenario
    (colours swapped, dice reversed, as a Position ID...); the terminal, Markdown, HTML and the matrix show it once with its forms under it."""
    out = tmp_path
    proc = bgconf("run", "--engine", BROKEN, "--case", "bg-X6DC", "--case", "bg-C3Z8", "--scenarios",
                  "--report", str(out / "r.jsonl"), "--markdown", str(out / "r.md"), "--html", str(out / "r.html"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = [json.loads(x) for x in (out / "r.jsonl").read_text().splitlines()]
    failing = [case_name(x["id"], x["scenario"]) for x in report if x.get("status") == "fail"]
    # as written, colours swapped, dice reversed and each position form the reference reads
    assert failing[0] == "bg-X6DC" and {"bg-X6DC[swapped]", "bg-X6DC[dice-reversed]"} < set(failing)
    assert {x["status"] for x in report if x.get("id") == "bg-C3Z8"} == {"pass"}
    also, counted = ", ".join(failing[1:]), f"1 rule bug in {len(failing)} cases"
    assert proc.stdout.count("FAIL ") == 1 and f"  also fails as: {also} (the same root case)" in proc.stdout
    assert f"failures by root cause: {counted}" in proc.stdout
    md = (out / "r.md").read_text()
    assert f"### Failures: {counted}" in md and md.count("\n- `bg-X6DC") == 1 and f"also fails as {also}" in md
    html = (out / "r.html").read_text()
    assert f"Failures: {counted}" in html and html.count('<div class="case" ') == 1
    assert f"Also fails as: {also}" in html
    site = out / "site"
    assert bgconf("matrix", str(out / "r.jsonl"), "--out", str(site)).returncode == 0
    data = json.loads((site / "matrix.json").read_text())
    assert data["engines"][0]["rule_bugs"] == counted
    assert [c["name"] for c in data["engines"][0]["causes"]] == ["bg-X6DC"]
    under = {c["name"]: c["answers"][0]["under"] for c in data["cases"]}
    assert under["bg-X6DC"] is None and under["bg-X6DC[swapped]"] == "bg-X6DC" and under["bg-C3Z8"] is None
    assert "Shown under" in (site / "cases" / "bg-X6DC-swapped.html").read_text()
