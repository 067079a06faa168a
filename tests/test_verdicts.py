"""Verdicts cannot be talked into a certificate: an engine's own "unsupported" answer,
an option whose standard value it does not offer, a report without a footer or with a
narrowed selection never certify; the README table certifies an engine that passes."""

import json
import shlex
import sys

from conformance.reports import render
from conformance.cli import main
from conformance.reports.table import certification_table
from conformance.engines.interface import CAPABILITY_UNSUPPORTED, OPTION_UNSUPPORTED
from conformance.reports.report import header, selection


def lines_with(*cases, foot=True, chosen=None):
    out = [header({"name": "e"}, "h", [], chosen or selection(profile="movement"))]
    out += [{"type": "case", "id": f"c{i}", "spec": ["move.x"], "level": "must", "status": s, "message": m}
            for i, (s, m) in enumerate(cases)]
    if foot:
        out.append({"type": "footer", "incomplete": False, "interrupted": False, "given_up": None})
    return out


def test_only_bgconfs_own_reasons_leave_a_case_out():
    ok = ("pass", "")
    assert render.verdict(lines_with(ok, ("unsupported", f"{OPTION_UNSUPPORTED} jacoby=True")), "movement")["certified"]
    # the standard value of an option (its default) is never left out
    assert not render.verdict(lines_with(ok, ("unsupported", f"{OPTION_UNSUPPORTED} crawford=True")),
                              "movement")["certified"]
    # an engine that declines a case it was asked counts against itself
    assert not render.verdict(lines_with(ok, ("unsupported", "the engine declined: engine does not support"
                                                             " rule option jacoby=True")), "movement")["certified"]
    assert not render.verdict(lines_with(ok, foot=False), "movement")["certified"]
    narrowed = selection(ids=["c0"], profile="movement")
    assert render.verdict(lines_with(ok, chosen=narrowed), "movement")["partial"]


def test_an_engine_cannot_spoof_bgconfs_reasons_through_the_protocol(tmp_path):
    engine = tmp_path / "spoof.py"
    engine.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['cmd'] == 'start':\n"
        "        print(json.dumps({'protocol': 1, 'engine': {'name': 'spoof'}, 'capabilities': ['legal-plays']}))\n"
        "    elif m['cmd'] == 'run':\n"
        f"        print(json.dumps({{'seq': m['seq'], 'unsupported': {OPTION_UNSUPPORTED!r} + ' jacoby=True'}}))\n"
        "    else:\n"
        "        break\n"
        "    sys.stdout.flush()\n")
    cmd = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(engine))}"
    assert main(["certify", "--engine", cmd, "--profile", "movement", "--out", str(tmp_path / "out")]) == 1
    report = next((tmp_path / "out").glob("*.jsonl"))
    cases = [json.loads(x) for x in report.read_text().splitlines()][1:-1]
    asked = [c for c in cases if not c["message"].startswith(CAPABILITY_UNSUPPORTED)]
    assert asked and all(c["message"].startswith("the engine declined: ") for c in asked)


def test_a_malformed_hello_is_refused_with_one_line(tmp_path, capsys):
    engine = tmp_path / "nullcaps.py"
    engine.write_text("import json, sys\nsys.stdin.readline()\n"
                      "print(json.dumps({'protocol': 1, 'capabilities': None}), flush=True)\n"
                      "import time\ntime.sleep(60)\n")
    cmd = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(engine))}"
    assert main(["run", "--engine", cmd, "--case", "bg-C3Z8"]) == 4
    err = capsys.readouterr().err
    assert "capabilities is None" in err and "Traceback" not in err


def test_the_readme_table_certifies_an_engine_that_passes():
    row = certification_table(["reference"]).splitlines()[-1]
    assert row.endswith("| certified | certified | certified | n/a |"), row  # the reference chooses no play


def test_a_refusal_case_fails_an_engine_that_decodes_the_input_and_errors_one_that_crashes():
    from conformance.cases import load_suite
    from conformance.harness.compare import compare

    case = load_suite().by_id()["bg-FBQY"]  # an 11-character Match ID
    assert compare(case, {"result": {"refused": "wrong_length", "message": "11 characters"}}).status == "pass"
    assert compare(case, {"result": {"refused": None}}).status == "pass"
    wrong = compare(case, {"result": {"refused": "not_base64"}})
    assert wrong.status == "fail" and "expected 'wrong_length'" in wrong.message
    accepted = compare(case, {"result": {"decoded": {"on_roll": "x"}}})
    assert accepted.status == "fail" and "expected a refusal" in accepted.message
    assert compare(case, {"errored": "ValueError: bad id"}).status == "errored"


def test_a_match_id_answer_is_judged_field_by_field():
    from conformance.cases import load_suite
    from conformance.harness.compare import compare
    from conformance.model import decode_match_id

    case = load_suite().by_id()["bg-7DGK"]  # BGBlitz's QYnoAGAAGAAE, dice written 1 then 2
    state = decode_match_id("QYnoAGAAGAAE").to_dict()
    # gnubg's spelling (higher die first) of the same state passes
    assert compare(case, {"result": {"encoded": "QQnlAGAAGAAE", "decoded": state}}).status == "pass"
    # the cube owner wrong in the engine's own decoding fails, naming the field
    bad = dict(state, cube={"value": 2, "owner": "x"})
    out = compare(case, {"result": {"encoded": "QQnlAGAAGAAE", "decoded": bad}})
    assert out.status == "fail" and "cube is" in out.message
    # an XGID whose cube is written as its value (8) instead of log2 (3) fails on the cube
    xcase = load_suite().by_id()["bg-NMTA"]
    from conformance.engines.adapters.reference import ReferenceEngine

    good = ReferenceEngine().run(xcase.request())["result"]
    assert compare(xcase, {"result": good}).status == "pass"
    as_value = dict(good, encoded=good["encoded"].replace(":3:1:1:", ":8:1:1:"))
    out = compare(xcase, {"result": as_value})
    assert out.status == "fail" and "cube is {'value': 256" in out.message
