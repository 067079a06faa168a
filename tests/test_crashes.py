"""A crash is a defect, not a footnote (spec/protocol.md, Crashes, hangs and restarts): a
crashed request is asked again of a fresh process, but the run exits 1, the summary counts
crashes and hangs, each is listed with its case and commands that reproduce it (in the
output and in the report's footer), and certify awards no certificate. Also: every
descendant of an engine is ended with it (setsid included), the JUnit file is well-formed
XML whatever an engine answers, an interrupted run's badge says answered of selected, and
an answer that arrives just after Ctrl-C is recorded.

The engine is tests/fault_engine.py; the cases are tests/fault_cases.bgcase.yaml (seven).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_faults import (AT, CASES, IDS, TIMEOUT, HANG_TIMEOUT, _alive, check_clean_output,
                         check_nothing_survives, check_report, engine_command, env, read_log, read_report,
                         run_bgconf, starts)

from conformance.reports import render

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process tests need Linux /proc")


# -- item: crashes and hangs count ----------------------------------------------------------------
def test_an_engine_that_exits_on_every_third_request_passes_every_case_and_fails_the_run(tmp_path):
    # every process reads three requests and exits on the third without answering: that
    # request is asked again of a fresh process, which answers it: every case passes, and
    # still the run is not clean
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("exit", log, "--every", "3"), "--timeout", TIMEOUT, log=log)
    check_clean_output(run.output)
    check_report(run.lines)
    assert run.status == {i: "pass" for i in IDS}, run.output[-3000:]
    foot = run.footer
    crashed = [e["case"] for e in run.events if e["event"] == "fault:exit"]
    assert crashed == [IDS[2], IDS[4], IDS[6]], crashed
    assert run.proc.returncode == 1, run.output[-3000:]
    assert foot["crashes"] == 3 and foot["hangs"] == 0
    assert [x["case"] for x in foot["incidents"]] == crashed
    assert {x["kind"] for x in foot["incidents"]} == {"crash"}
    assert all("exited with code 0" in x["message"] for x in foot["incidents"])
    # existing footer fields keep their meaning
    assert foot["restarts"] == starts(run.events) - 1 == 3 and foot["incomplete"] is False
    summary = run.proc.stdout.strip().splitlines()[-1]
    assert summary.startswith("7 cases: 7 pass") and summary.endswith("; the engine: 3 crashes"), summary
    for x in foot["incidents"]:
        assert x["repro"].startswith("bgconf run --engine ") and x["repro"].endswith(f"--case {x['case']}"
                                                                                      f" --cases {x['repro'].split(' --cases ')[1]}")
        assert f"CRASH while asking {x['case']}: engine crashed" in run.proc.stdout
        assert x["repro"] in run.proc.stdout and x["send"] in run.proc.stdout
    check_nothing_survives(run.events)


def test_the_request_alone_command_sends_the_exact_request(tmp_path):
    # the case crashes whichever process is asked: the incident's "send" command runs the
    # engine alone on that request and the engine crashes again (exit code 7, no answer);
    # the same command with a sound engine gets the answer to that seq
    log = tmp_path / "engine.log"
    target = AT["middle"]
    run = run_bgconf(tmp_path, engine_command("crash", log, "--case-id", target), "--timeout", TIMEOUT, log=log)
    foot = run.footer
    # the process that had answered is given the benefit of the doubt, then a fresh one
    # crashes on the request too: two crashes, the case errored
    assert run.proc.returncode == 1 and foot["crashes"] == 2 and foot["hangs"] == 0, run.output[-3000:]
    assert run.status[target] == "errored"
    assert [x["case"] for x in foot["incidents"]] == [target, target]
    incident = foot["incidents"][0]
    assert incident["scenario"] == "" and incident["send"] == foot["incidents"][1]["send"]
    alone = subprocess.run(incident["send"], shell=True, capture_output=True, text=True, env=env(), timeout=60)
    assert alone.returncode == 7, alone.stdout + alone.stderr
    assert json.loads(alone.stdout.splitlines()[0])["protocol"] == 1 and len(alone.stdout.splitlines()) == 1
    assert [e["event"] for e in read_log(log) if e["case"] == target][-1] == "fault:crash"
    sound = incident["send"].replace("--fault crash", "--fault none")
    answer = subprocess.run(sound, shell=True, capture_output=True, text=True, env=env(), timeout=60)
    reply = json.loads(answer.stdout.splitlines()[1])
    assert reply["seq"] == 1 and "result" in reply, answer.stdout


def test_a_hang_is_counted_and_listed(tmp_path):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("hang", log, "--case-id", AT["last"]), "--timeout", HANG_TIMEOUT,
                     log=log)
    check_report(run.lines)
    foot = run.footer
    assert run.proc.returncode == 1
    assert foot["hangs"] == 1 and foot["crashes"] == 0
    assert [(x["kind"], x["case"]) for x in foot["incidents"]] == [("hang", AT["last"])]
    assert "no answer within" in foot["incidents"][0]["message"]
    assert run.proc.stdout.strip().splitlines()[-1].endswith("; the engine: 1 hang")
    assert f"HANG while asking {AT['last']}" in run.proc.stdout


def test_a_sound_engine_has_no_incident(tmp_path):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("none", log), "--timeout", TIMEOUT, log=log)
    assert run.proc.returncode == 0, run.output[-3000:]
    assert run.footer["crashes"] == run.footer["hangs"] == 0 and run.footer["incidents"] == []
    assert "the engine:" not in run.proc.stdout and "CRASH" not in run.proc.stdout


def _certify(tmp_path, engine: str) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path / "cert"
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "certify", "--engine", engine, "--profile",
                           "movement", "--out", str(out), "--timeout", TIMEOUT],
                          capture_output=True, text=True, env=env(), timeout=600, start_new_session=True)
    return proc, out


def test_certify_awards_no_certificate_to_an_engine_that_crashed(tmp_path):
    # one crash, on the 5th request of the whole run, after the process had answered: the
    # request is asked again and every case passes; the certificate is still refused
    log = tmp_path / "engine.log"
    proc, out = _certify(tmp_path, engine_command("crash", log, "--at", "5"))
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    (report,) = out.glob("*.jsonl")
    lines = read_report(report, proc.stdout + proc.stderr)
    check_report(lines, selected=None)
    foot = lines[-1]
    assert foot["crashes"] == 1 and foot["counts"]["pass"] == foot["total"]
    badge = json.loads(next(out.glob("*.badge.json")).read_text())
    assert badge["message"] == "not certified: 1 crash" and badge["color"] == "red"
    md = next(out.glob("*.md")).read_text()
    assert "**Not certified** for profile `movement`: the engine crashed or hung during the run (1 crash" in md
    assert f"crash while asking `{foot['incidents'][0]['case']}" in md
    html = next(out.glob("*.html")).read_text()
    assert "Not certified: the engine crashed or hung during the run (1 crash" in html
    assert "The engine crashed or hung (1 crash)" in html
    # --verify reads the report (exit 1, not 2) and refuses it
    verify = subprocess.run([sys.executable, "-m", "conformance.cli", "certify", "--verify", str(report)],
                            capture_output=True, text=True, env=env(), timeout=300)
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert "crashed or hung" in verify.stdout


def test_certify_still_certifies_and_verifies_a_sound_protocol_engine(tmp_path):
    log = tmp_path / "engine.log"
    proc, out = _certify(tmp_path, engine_command("none", log))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert json.loads(next(out.glob("*.badge.json")).read_text())["message"].startswith("certified (")
    verify = subprocess.run([sys.executable, "-m", "conformance.cli", "certify", "--verify",
                             str(next(out.glob("*.jsonl")))], capture_output=True, text=True, env=env(), timeout=300)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_the_verdict_counts_crashes_and_hangs_from_the_footer():
    from test_verdicts import lines_with

    ok = ("pass", "")
    clean = lines_with(ok, ok)
    assert render.verdict(clean, "movement")["certified"]
    for crashes, hangs, said in ((25, 0, "25 crashes"), (0, 1, "1 hang"), (1, 2, "1 crash, 2 hangs")):
        lines = [*clean[:-1], {**clean[-1], "crashes": crashes, "hangs": hangs, "incidents": []}]
        v = render.verdict(lines, "movement")
        assert not v["certified"] and v["faults"] == said
        assert render.badge(lines, "movement")["message"] == f"not certified: {said}"
        failing = lines_with(ok, ("fail", "wrong"))
        failing[-1].update(crashes=crashes, hangs=hangs, incidents=[])
        assert render.badge(failing, "movement")["message"] == f"1/2 must, {said}"


# -- 9 (a): every descendant ends with the engine ---------------------------------------------
@pytest.mark.parametrize("how", ["child", "grandchild"])
def test_a_descendant_that_calls_setsid_does_not_survive_the_run(tmp_path, how):
    # "child": the engine's child leaves its session; "grandchild": a child starts it and
    # exits at once (a daemon's double fork), so it is an orphan in a session of its own
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("none", log, "--setsid-helper", how), "--timeout", TIMEOUT, log=log)
    assert run.proc.returncode == 0, run.output[-3000:]
    (helper,) = [e for e in run.events if e["event"] == "helper"]
    engine = next(e for e in run.events if e["event"] == "started")
    assert helper["sid"] == helper["pid"] != engine["sid"], "the helper has a session of its own"
    try:
        check_nothing_survives(run.events)
    finally:
        if _alive(helper["pid"]):
            os.kill(helper["pid"], signal.SIGKILL)


def test_a_setsid_descendant_of_a_restarted_engine_does_not_survive_either(tmp_path):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("crash", log, "--case-id", AT["middle"], "--setsid-helper",
                                              "grandchild"), "--timeout", TIMEOUT, log=log)
    helpers = [e["pid"] for e in run.events if e["event"] == "helper"]
    assert len(helpers) == starts(run.events) == 3  # the middle case crashes two processes
    try:
        check_nothing_survives(run.events)
    finally:
        for pid in helpers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


# -- 9 (b): the JUnit file is well-formed XML ---------------------------------------------------
def test_characters_xml_cannot_carry_reach_the_junit_file_escaped(tmp_path):
    from fault_engine import BAD_CHARS

    log = tmp_path / "engine.log"
    junit = tmp_path / "r.xml"
    run = run_bgconf(tmp_path, engine_command("bad-chars", log, "--case-id", AT["first"]), "--timeout", TIMEOUT,
                     "--junit", str(junit), log=log)
    assert run.proc.returncode == 1, run.output[-3000:]
    assert run.row(AT["first"])["message"] == BAD_CHARS, "the report keeps the engine's words exactly"
    tree = ElementTree.parse(junit)  # raises on XML that is not well-formed
    (error,) = list(tree.iter("error"))
    assert error.get("message") == r"nul \x00 esc \x1b[31m lone \udc80 ff \x0c end"
    assert r"\x00" in error.text


def test_xml_text_keeps_what_xml_can_carry():
    text = "tab\t nl\n cr\r é 😀 \ue000 \ufffd"
    assert render.xml_text(text) == text
    assert render.xml_text("\x00\x08\x0b\x1f\ud800\udfff\ufffe\uffff") == r"\x00\x08\x0b\x1f\ud800\udfff\ufffe\uffff"


# -- 9 (c), (d): interrupted runs ------------------------------------------------------------
def _interrupt_when(tmp_path, engine: str, event: str, *args: str, cases: Path | None = CASES,
                    profile: str | None = None):
    """Run bgconf on ``cases`` (None: the bundled suite; ``profile``: its --profile), send
    SIGINT as soon as the engine logs ``event``; return (returncode, stdout, stderr, report
    lines, engine log events)."""
    log = Path(shlex.split(engine)[shlex.split(engine).index("--log") + 1])
    report = tmp_path / "report.jsonl"
    # the cases as written, one request each (the derived play checks are tested elsewhere)
    argv = [sys.executable, "-m", "conformance.cli", "run", "--engine", engine, "--report", str(report),
            "--timeout", "60", "--no-play-checks", *args]
    argv += ["--cases", str(cases)] if cases else []
    argv += ["--profile", profile] if profile else []
    out, err = (tmp_path / "stdout").open("w+"), (tmp_path / "stderr").open("w+")
    proc = subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=env(), start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not any(e["event"] == event for e in read_log(log)):
            assert proc.poll() is None, "bgconf ended before the engine got there"
            assert time.monotonic() < deadline, f"the engine never logged {event}"
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out.seek(0)
    err.seek(0)
    stdout, stderr = out.read(), err.read()
    return proc.returncode, stdout, stderr, read_report(report, stdout + stderr), read_log(log)


def test_an_interrupted_runs_badge_says_answered_of_selected(tmp_path):
    # a whole profile, interrupted while the 40th request hangs
    log = tmp_path / "engine.log"
    badge = tmp_path / "b.json"
    code, stdout, stderr, lines, events = _interrupt_when(
        tmp_path, engine_command("hang", log, "--at", "40"), "fault:hang", "--badge", str(badge),
        cases=None, profile="movement")
    assert code == 130, stdout[-2000:] + stderr[-2000:]
    foot = lines[-1]
    assert foot["interrupted"] == "SIGINT" and foot["total"] == len(lines) - 2 == 39 < foot["selected"]
    assert json.loads(badge.read_text()) == {"schemaVersion": 1, "label": "bgconf movement",
                                             "message": f"interrupted: 39 of {foot['selected']}", "color": "red"}
    check_nothing_survives(events)


def test_an_interrupted_partial_runs_badge_says_answered_of_selected(tmp_path):
    log = tmp_path / "engine.log"
    badge = tmp_path / "b.json"
    code, stdout, stderr, lines, events = _interrupt_when(
        tmp_path, engine_command("hang", log, "--case-id", IDS[3]), "fault:hang", "--badge", str(badge))
    assert code == 130, stdout[-2000:] + stderr[-2000:]
    foot = lines[-1]
    assert foot["interrupted"] == "SIGINT" and foot["total"] == 3 and foot["selected"] == len(IDS)
    assert json.loads(badge.read_text())["message"] == f"partial, interrupted: 3 of {len(IDS)}"
    check_nothing_survives(events)


def test_an_answer_that_arrives_just_after_ctrl_c_is_recorded(tmp_path):
    # the engine logs fault:slow when it has read the request, then answers 0.1 s later;
    # SIGINT is sent as soon as the log says so: the answer comes within the grace and is
    # judged and recorded before the engine is stopped
    log = tmp_path / "engine.log"
    target = IDS[2]
    code, stdout, stderr, lines, events = _interrupt_when(
        tmp_path, engine_command("slow", log, "--case-id", target, "--delay", "0.1"), "fault:slow")
    assert code == 130, stdout[-2000:] + stderr[-2000:]
    check_clean_output(stdout + stderr)
    check_report(lines)
    assert [(x["id"], x["status"]) for x in lines[1:-1]] == [(i, "pass") for i in IDS[:3]]
    assert lines[-1]["interrupted"] == "SIGINT" and lines[-1]["total"] == 3
    assert lines[-1]["crashes"] == 0 and lines[-1]["hangs"] == 0, "an interruption is not a crash"
    check_nothing_survives(events)


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=())))
def test_any_engine_message_makes_well_formed_junit(text):
    # any characters at all, lone surrogates included, in the message of an errored case
    from test_verdicts import lines_with

    lines = lines_with(("errored", text))
    lines[1].update(file="cases/x.yaml", ms=1.0)
    root = ElementTree.fromstring(render.junit_xml(lines))
    (error,) = list(root.iter("error"))
    assert (error.get("message") or "") == render.xml_text(text)
    if not render._NOT_XML.search(text):
        assert render.xml_text(text) == text
