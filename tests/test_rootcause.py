"""One bug, one line (conformance.reports.rootcause): the forms of a case that fail where the case
as written fails are one root cause; a form that fails where the case as written passes is its
own; the count reads "N rule bugs in M cases". Checked on hand-made lines, by property over any
run."""

import json

from hypothesis import given, strategies as st

from conformance.cases import case_name
from conformance.reports import rootcause


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
