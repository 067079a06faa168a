"""Certificates that hold up: certify asks every scenario, and certify --verify refuses every
report that contradicts itself, the suite or the engine it names; --rerun runs the engine
again and compares verdict by verdict. Each forgery is built from a real certificate."""

import json
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from conformance.harness.derived import is_derived
from hypothesis import given, settings, strategies as st

from conformance.cli import main
from conformance.engines.interface import CAPABILITY_UNSUPPORTED, OPTION_UNSUPPORTED
from conformance.reports.certificate import verify_report

from test_cli import bgconf

FAILING = "python:engines_for_tests:no_larger_die"
ALL_FORMS = ["swapped", "dice-reversed", "gnubg-id", "xgid", "fibs-board"]
BAD = ("fail", "errored", "timeout")


def read(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def write(path, lines, *, recount=True):
    """Write a forged report; ``recount``: make the footer agree with the case lines, as a
    careful forger would, so that only the check under test can catch it."""
    if recount:
        cases = [x for x in lines if x["type"] == "case"]
        counts = Counter(x["status"] for x in cases)
        foot = lines[-1]
        lines = lines[:-1] + [dict(foot, counts={s: counts.get(s, 0) for s in foot["counts"]},
                                   total=len(cases), selected=len(cases))]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def verify(capsys, *args):
    capsys.readouterr()
    code = main(["certify", "--verify", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
    """The reference engine's movement certificate (certified)."""
    out = tmp_path_factory.mktemp("genuine")
    assert main(["certify", "--engine", "reference", "--profile", "movement", "--out", str(out)]) == 0
    return out / "reference-movement.jsonl"


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """The movement report of an engine that forgets the larger-die rule (not certified)."""
    out = tmp_path_factory.mktemp("failing")
    proc = bgconf("certify", "--engine", FAILING, "--profile", "movement", "--out", str(out))
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    path = out / "python_engines_for_tests_no_larger_die-movement.jsonl"
    assert any(x.get("status") == "fail" for x in read(path))
    return path


# -- item 4: a certificate covers the scenarios ------------------------------------------------
def test_certify_asks_every_scenario_by_default_and_every_rendering_names_them(genuine):
    lines = read(genuine)
    assert {x["scenario"] for x in lines[1:-1] if not is_derived(x["scenario"])} == {"", *ALL_FORMS}
    assert any(is_derived(x["scenario"]) for x in lines[1:-1])  # and the play checks derived from legal plays
    plain = [x["id"] for x in lines[1:-1] if not x["scenario"]]
    assert {x["id"] for x in lines[1:-1] if x["scenario"] == "dice-reversed"} < set(plain)
    assert lines[0]["selection"]["scenarios"] is True and lines[0]["selection"]["scenario_forms"] == ALL_FORMS
    stem = genuine.with_suffix("")
    sentence = "Scenarios: colours swapped, dice reversed, as a Position ID, as an XGID, as a FIBS board."
    assert sentence in stem.with_suffix(".html").read_text()
    assert sentence in stem.with_suffix(".md").read_text()
    badge = json.loads(stem.with_suffix(".badge.json").read_text())
    assert badge["message"] == "certified (swapped, dice-reversed, gnubg-id, xgid, fibs-board)"


def test_an_engine_whose_verdict_depends_on_the_order_of_the_dice_is_not_certified(tmp_path):
    proc = bgconf("certify", "--engine", "python:engines_for_tests:dice_order", "--profile", "movement",
                  "--out", str(tmp_path))
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = read(tmp_path / "python_engines_for_tests_dice_order-movement.jsonl")
    bad = [(x["id"], x["scenario"]) for x in lines[1:-1] if x["status"] != "pass"]
    assert bad == [("bg-JG27", "dice-reversed")]
    assert "**Not certified**" in proc.stdout and "- `bg-JG27[dice-reversed]` (fail" in proc.stdout
    stem = tmp_path / "python_engines_for_tests_dice_order-movement"
    assert "<code>bg-JG27[dice-reversed]</code> fail" in stem.with_suffix(".html").read_text()
    junit = ET.fromstring((tmp_path / (stem.name + ".junit.xml")).read_text())
    failed = [t.get("name") for t in junit.iter("testcase") if t.find("failure") is not None]
    assert failed == ["bg-JG27[dice-reversed]"]


def test_verify_refuses_a_certificate_without_the_scenarios(genuine, tmp_path, capsys):
    lines = read(genuine)
    head = dict(lines[0], selection=dict(lines[0]["selection"], scenarios=False, scenario_forms=[]))
    bare = write(tmp_path / "bare.jsonl", [head] + [x for x in lines[1:-1] if not x["scenario"]] + lines[-1:])
    code, out = verify(capsys, bare)
    assert code == 1, out
    assert "scenario case(s) of profile movement are not in the report" in out and "bg-" in out
    assert "the header records no scenario" in out
    # the header alone claiming them is not enough: the lines must be there
    claimed = write(tmp_path / "claimed.jsonl", [lines[0]] + [x for x in lines[1:-1] if x["scenario"] != "xgid"]
                    + lines[-1:])
    code, out = verify(capsys, claimed)
    assert code == 1 and "[xgid]" in out, out


# -- item 5: the forgeries measured on the old tree ----------------------------------------------
def test_verify_refuses_case_lines_edited_from_fail_to_pass(failing, tmp_path, capsys):
    lines = read(failing)
    failed = sum(x.get("status") == "fail" for x in lines)
    forged = [dict(x, status="pass") if x.get("status") in BAD else x for x in lines]
    path = write(tmp_path / "forged.jsonl", forged, recount=False)  # the footer still counts the failures
    code, out = verify(capsys, path)
    assert code == 1, out
    assert f"fail {failed} in the footer, 0 case lines" in out and "the footer's counts contradict" in out


def test_verify_refuses_a_report_relabelled_as_another_engine(tmp_path, capsys):
    # a genuine certificate of an engine that declares only legal-plays, relabelled as the reference
    proc = bgconf("certify", "--engine", "python:engines_for_tests:moves_only", "--profile", "movement",
                  "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = read(tmp_path / "python_engines_for_tests_moves_only-movement.jsonl")
    assert lines[0]["engine"]["capabilities"] == ["legal-plays"]
    path = write(tmp_path / "relabelled.jsonl", [dict(lines[0], engine=dict(lines[0]["engine"], name="reference"))]
                 + lines[1:], recount=False)
    code, out = verify(capsys, path)
    assert code == 0, out  # consistent in itself: only the engine can tell
    assert "only --rerun --engine E shows" in out
    code, out = verify(capsys, path, "--engine", "reference")
    assert code == 1, out
    assert "the report's header does not describe the engine --engine names" in out
    assert 'capabilities ["legal-plays"] in the report' in out


def test_verify_accepts_the_engine_the_header_describes(genuine, capsys):
    code, out = verify(capsys, genuine, "--engine", "reference")
    assert code == 0 and "is certified for profile movement" in out, out


@pytest.mark.parametrize("reason, problem", [
    (f"{CAPABILITY_UNSUPPORTED} cube", "declares every capability the case needs"),
    (f"{OPTION_UNSUPPORTED} jacoby=True", "which is not a rule option value of the case"),
    (f"{OPTION_UNSUPPORTED} max_cube", "which is not a rule option value of the case"),
])
def test_verify_refuses_failing_cases_relabelled_unsupported(failing, tmp_path, capsys, reason, problem):
    lines = read(failing)
    failed = [x["id"] for x in lines if x.get("status") in BAD]
    forged = [dict(x, status="unsupported", message=reason) if x.get("status") in BAD else x for x in lines]
    path = write(tmp_path / "forged.jsonl", forged)
    code, out = verify(capsys, path)
    assert code == 1, out
    assert problem in out and failed[0] in out and reason in out
    assert "the verdict is not certified" not in out  # the forgery would certify but for the check


def test_verify_refuses_an_unsupported_verdict_where_the_engine_is_asked(genuine, tmp_path, capsys):
    # the reference declares apply-play: an applied play cannot be unsupported for want of it
    lines = read(genuine)
    target = next(x for x in lines if x.get("kind") == "apply_play" and not x["scenario"])
    reason = f"{CAPABILITY_UNSUPPORTED} apply-play"
    forged = [dict(x, status="unsupported", message=reason) if x is target else x for x in lines]
    code, out = verify(capsys, write(tmp_path / "forged.jsonl", forged))
    assert code == 1 and target["id"] in out and "declares every capability" in out, out


@settings(max_examples=15)
@given(data=st.data())
def test_any_status_edited_without_the_footer_is_refused(genuine, data):
    lines = read(genuine)
    i = data.draw(st.integers(1, len(lines) - 2), label="line")
    status = data.draw(st.sampled_from([s for s in ("fail", "errored", "timeout", "xfail", "unsupported", "xpass")]),
                       label="status")
    lines[i] = dict(lines[i], status=status)
    checked = verify_report(lines)
    assert any("the footer's counts contradict the case lines" in p for p in checked["problems"])


# -- --rerun: what only a run shows ----------------------------------------------------------------
def test_rerun_confirms_a_genuine_certificate(genuine, capsys):
    code, out = verify(capsys, genuine, "--rerun", "--engine", "reference")
    assert code == 0, out
    assert "confirmed" in out and "DIFFERS" not in out


def test_rerun_names_each_verdict_the_engine_does_not_give(failing, tmp_path):
    # consistent in every way the report can show: the footer recounted, the engine's own header
    lines = read(failing)
    failed = [(x["id"], x["scenario"]) for x in lines if x.get("status") in BAD]
    forged = write(tmp_path / "forged.jsonl", [dict(x, status="pass") if x.get("status") in BAD else x
                                               for x in lines])
    proc = bgconf("certify", "--verify", str(forged))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = bgconf("certify", "--verify", str(forged), "--rerun", "--engine", FAILING)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    differs = [x for x in proc.stdout.splitlines() if x.strip().startswith("DIFFERS")]
    assert len(differs) == len(failed)
    first = f"{failed[0][0]}[{failed[0][1]}]" if failed[0][1] else failed[0][0]
    assert f"DIFFERS {first}: the report says pass, the engine answers fail" in proc.stdout
    assert f"NOT CONFIRMED {forged}: {len(failed)} of" in proc.stdout


def test_rerun_names_an_edited_case(genuine, tmp_path, capsys):
    lines = read(genuine)
    target = next(x for x in lines if x.get("scenario") == "dice-reversed")
    edited = write(tmp_path / "edited.jsonl", [dict(x, status="fail") if x is target else x for x in lines])
    code, out = verify(capsys, edited, "--rerun", "--engine", "reference")
    assert code == 1, out
    assert f"DIFFERS {target['id']}[dice-reversed]: the report says fail, the engine answers pass" in out


@pytest.mark.parametrize("argv, needle", [
    (["certify", "--verify", "CERT", "--rerun"], "--rerun: name the engine to run with --engine E"),
    (["certify", "--rerun", "--engine", "reference", "--profile", "movement"], "--rerun goes with --verify"),
])
def test_rerun_needs_verify_and_an_engine(genuine, capsys, argv, needle):
    argv = [str(genuine) if a == "CERT" else a for a in argv]
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


def test_verify_with_an_engine_that_is_not_installed_exits_4(genuine, capsys):
    code, out = verify(capsys, genuine, "--engine", "cmd:/nonexistent/engine")
    assert code == 4 and "Traceback" not in out, out


def test_an_adapters_own_unsupported_option_wording_is_accepted(genuine):
    # gnubg's adapter declines a max_cube it has no setting for, naming the case's value
    lines = read(genuine)
    target = next(x for x in lines if x.get("kind") == "legal_plays" and not x["scenario"])
    note = f"{OPTION_UNSUPPORTED} max_cube=64 here: gnubg has no max_cube setting (its cube stops at 4096)"
    problems = verify_report([dict(x, status="unsupported", message=note) if x is target else x
                              for x in lines])["problems"]
    assert not [p for p in problems if target["id"] in p], problems
    wrong = note.replace("max_cube=64", "max_cube=8")
    problems = verify_report([dict(x, status="unsupported", message=wrong) if x is target else x
                              for x in lines])["problems"]
    assert any(target["id"] in p and "not a rule option value of the case" in p for p in problems), problems


def test_a_certificate_failure_shows_its_board_in_a_browser(failing, tmp_path):
    """Each failure of the HTML certificate has its board: the position of the case form that
    failed, and the answer's extra (or missing) plays as arrows, read back from chromium's DOM."""
    from selenium.webdriver.common.by import By

    from browser import board_in_dom, chromium
    from conformance.cases import case_name, load_suite
    from conformance.harness.selection import form_finder
    from conformance.model import notation_to_position, written_moves
    from test_board import expected
    from test_matrix import _to_x

    lines = read(failing)
    failures = [x for x in lines if x["type"] == "case" and x["status"] == "fail" and x.get("extra")]
    find = form_finder(load_suite().cases)
    with chromium(tmp_path / "profile") as browser:
        browser.set_window_size(1400, 2400)
        browser.get(failing.with_suffix(".html").as_uri())
        shown = browser.find_elements(By.CSS_SELECTOR, "div.case[data-case]")
        names = {case_name(x["id"], x["scenario"]): x for x in failures}
        block = next(b for b in shown if b.get_attribute("data-case") in names)
        line = names[block.get_attribute("data-case")]
        case = find(line["id"], line["scenario"])
        want = expected(case.position)
        board = board_in_dom(block.find_element(By.CSS_SELECTOR, "figure.board"))
        assert {k: board[k] for k in ("points", "bar", "off")} == {k: want[k] for k in ("points", "bar", "off")}
        figures = block.find_elements(By.CSS_SELECTOR, "[data-plays='extra'] figure.play")
        assert [f.get_attribute("data-play") for f in figures] == line["extra"]
        for figure, play in zip(figures, line["extra"]):
            arrows = board_in_dom(figure)["arrows"]
            assert sorted(arrows) == sorted(_to_x(case.position.on_roll, written_moves(play)))
            assert notation_to_position(case.position, play)  # a play that can be made is drawn
        assert len(browser.find_elements(By.CSS_SELECTOR, "div.case figure.board")) == len(shown)
        block.location_once_scrolled_into_view
        screenshot = tmp_path / "certificate.png"
        browser.save_screenshot(str(screenshot))
        print(f"screenshot: {screenshot}")
        assert screenshot.stat().st_size > 10_000
