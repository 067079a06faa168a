"""The JSON-lines engine protocol: the whole suite through `bgconf serve`, and
every engine fault turning one case `errored` (or `timeout`) while the run goes on."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli import CASE

HERE = Path(__file__).parent
SERVE = f"cmd:{shlex.quote(sys.executable)} -m conformance.cli serve reference"
# three cases: the faulty one first, so the run must go on after it
CASES = CASE + CASE.split("cases:\n", 1)[1].replace("bg-GQQD", "bg-GQQF").replace("bg-GQQE", "bg-GQQG")


def bgconf(*args):
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_the_whole_suite_passes_through_the_protocol(tmp_path):
    report = tmp_path / "r.jsonl"
    proc = bgconf("run", "--engine", SERVE, "--report", str(report))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert lines[0]["engine"]["name"] == "reference"
    assert lines[-1]["counts"]["pass"] == lines[-1]["total"] > 100


@pytest.mark.parametrize("mode,status,fragment", [
    ("crash", "errored", "engine crashed: exited with code 7"),
    ("hang", "timeout", "no answer within 2 s"),
    ("garbage", "errored", "not JSON: 'this is not json'"),
    ("wrong-seq", "errored", "answered seq"),
    ("bad-play", "errored", "cannot be applied"),
])
@pytest.mark.parametrize("batch", ["", "batch"])
def test_a_fault_errors_one_case_and_the_run_goes_on(tmp_path, mode, status, fragment, batch):
    """One request at a time, or in run_batch messages (the engine declares ``batch``; after a
    fault in a batch, the requests not answered are asked one at a time): the same verdicts."""
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASES)
    report = tmp_path / "r.jsonl"
    engine = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'broken_engine.py'))} {mode} {batch}"
    proc = bgconf("run", "--engine", engine, "--cases", str(path), "--report", str(report), "--timeout", "2")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [r for r in map(json.loads, report.read_text().splitlines()) if r.get("type") == "case"]
    rows = {r["id"]: r for r in lines if not r["scenario"]}  # the cases as written
    assert rows["bg-GQQD"]["status"] == status
    assert fragment in rows["bg-GQQD"]["message"]
    # the engine was restarted and every other case still passed, the derived play checks of
    # bg-GQQD itself included
    assert [rows[i]["status"] for i in ("bg-GQQE", "bg-GQQF", "bg-GQQG")] == ["pass"] * 3
    derived = [r for r in lines if r["scenario"]]
    assert derived and {r["status"] for r in derived} == {"pass"}
    assert any(r["id"] == "bg-GQQD" for r in derived)


def test_an_engine_declaring_batch_is_sent_batches_with_the_same_verdicts(tmp_path):
    """A Python engine whose describe() says ``"batch": true``, served over the protocol: its
    hello declares it, bgconf sends run_batch messages (its run_batch sees more than one request
    at a time), and every case gets the verdict it gets one request at a time."""
    log = tmp_path / "sizes"
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               BGCONF_TEST_BATCH_LOG=str(log))
    reports = {}
    for name, engine in (("batching", "python:engines_for_tests:batching"), ("alone", SERVE)):
        reports[name] = tmp_path / f"{name}.jsonl"
        proc = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--engine", engine,
                               "--report", str(reports[name])], capture_output=True, text=True, env=env, timeout=300)
        assert "Traceback" not in proc.stderr, proc.stderr
    sizes = [int(x) for x in log.read_text().split()]
    assert max(sizes) > 1, sizes

    def verdicts(path):
        return {(r["id"], r["scenario"]): (r["status"], r.get("message")) for r in map(json.loads, path.read_text().splitlines())
                if r.get("type") == "case"}

    batched = verdicts(reports["batching"])
    assert sum(sizes) == sum(1 for status, _ in batched.values() if status != "unsupported")
    assert {status for status, _ in batched.values()} <= {"pass", "unsupported"}
    assert batched == verdicts(reports["alone"])  # the reference served one request at a time


def test_serve_answers_a_run_batch_message_in_order():
    msgs = [{"cmd": "start", "protocol": 1, "suite": "x"},
            {"cmd": "run_batch", "requests": [
                {"seq": 1, "kind": "legal_plays", "case": "a", "rules": {}, "position": "start", "dice": [3, 1]},
                {"seq": 2, "kind": "legal_plays", "case": "b", "rules": {}, "position": "start", "dice": [6, 6]},
                {"seq": 3, "kind": "no_such_kind", "case": "c", "rules": {}}]},
            {"cmd": "run_batch", "requests": "not a list"}, {"cmd": "stop"}]
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "serve", "python:engines_for_tests:batching"],
                          text=True, input="".join(json.dumps(m) + "\n" for m in msgs), capture_output=True,
                          timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    hello, first, second, third, bad = map(json.loads, proc.stdout.splitlines())
    assert hello["batch"] is True and "batch" not in hello["engine"]
    assert (first["seq"], len(first["result"]["plays"])) == (1, 16)
    assert second["seq"] == 2 and len(second["result"]["plays"]) > 1
    assert third["seq"] == 3 and "unsupported" in third
    assert bad["seq"] is None and "run_batch needs requests" in bad["errored"]


def test_an_engine_that_cannot_start_is_exit_code_4(tmp_path):
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASE)
    engine = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'broken_engine.py'))} no-start"
    proc = bgconf("run", "--engine", engine, "--cases", str(path))
    assert proc.returncode == 4
    assert "could not start" in proc.stderr and "exited with code 3" in proc.stderr


def test_serve_answers_the_handshake_and_stops():
    msgs = [{"cmd": "start", "protocol": 1, "suite": "x"},
            {"cmd": "run", "seq": 1, "kind": "legal_plays", "case": "c", "rules": {},
             "position": "start", "dice": [3, 1]},
            {"cmd": "bogus"}, {"cmd": "stop"}]
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "serve", "reference"], text=True,
                          input="".join(json.dumps(m) + "\n" for m in msgs), capture_output=True, timeout=60)
    assert proc.returncode == 0
    hello, run, bogus = map(json.loads, proc.stdout.splitlines())
    assert hello["protocol"] == 1 and "legal-plays" in hello["capabilities"]
    assert run["seq"] == 1 and len(run["result"]["plays"]) == 16
    assert "unknown cmd" in bogus["errored"]


def test_messages_both_ways_match_the_protocol_schema():
    import jsonschema

    from conformance.cases import resources
    from conformance import __version__
    from conformance.cases import load_suite

    schema = json.loads((resources.spec_dir() / "schema" / "protocol.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    suite = load_suite()
    sent = [{"cmd": "start", "protocol": 1, "suite": __version__}]
    sent += [{"cmd": "run", "seq": i, **c.request()} for i, c in enumerate(suite.cases)]
    sent.append({"cmd": "stop"})
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "serve", "reference"], text=True,
                          input="".join(json.dumps(m) + "\n" for m in sent), capture_output=True, timeout=120)
    received = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(received) == len(sent) - 1
    # the same requests in run_batch messages, to an engine that declares batch
    batched = [sent[0], {"cmd": "run_batch", "requests": [{k: v for k, v in m.items() if k != "cmd"} for m in sent[1:-1]]},
               sent[-1]]
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "serve", "python:engines_for_tests:batching"],
                          text=True, input="".join(json.dumps(m) + "\n" for m in batched), capture_output=True,
                          timeout=120, env=env)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert answers[0]["batch"] is True and answers[1:] == received[1:]
    for message in sent + received + batched + answers[:1]:
        errors = list(validator.iter_errors(message))
        assert not errors, (message, [e.message for e in errors])


def test_a_run_cut_short_says_incomplete(tmp_path):
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASES)
    report = tmp_path / "r.jsonl"
    marker = tmp_path / "dead"
    engine = (f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'broken_engine.py'))} "
              f"crash-for-good:{marker}")
    proc = bgconf("run", "--engine", engine, "--cases", str(path), "--report", str(report))
    assert proc.returncode == 1
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert lines[-1]["incomplete"] is True and "(incomplete: the engine was given up" in proc.stdout
    statuses = [x["status"] for x in lines if x.get("type") == "case" and not x["scenario"]]
    assert statuses == ["errored"] * 4  # the cases as written
    assert {x["status"] for x in lines if x.get("type") == "case"} == {"errored"}  # and their derived checks
    assert "given up after 3 consecutive failures" in lines[-2]["message"]
    assert "could not be restarted: engine exited with code 5" in lines[-2]["message"]


def test_a_slow_start_is_allowed_the_start_timeout_only():
    """An engine that takes 2 s to answer start: refused with a 1 s start timeout, started with a
    1 s per-request timeout and the default start timeout (10 s)."""
    from conformance.engines.protocol import CommandEngine, ProtocolError

    script = ("import json, sys, time\nsys.stdin.readline(); time.sleep(2)\n"
              "print(json.dumps({'protocol': 1, 'engine': {'name': 'slow', 'version': '1'},"
              " 'capabilities': ['legal-plays']}), flush=True)\n"
              "for line in sys.stdin:\n"
              "    m = json.loads(line)\n"
              "    if m.get('cmd') == 'run': print(json.dumps({'seq': m['seq'], 'result': {'plays': []}}), flush=True)\n")
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    engine = CommandEngine(command, timeout=1.0, max_failures=1, start_timeout=1.0)
    with pytest.raises(ProtocolError, match="no answer to start within 1 s"):
        engine.describe()
    engine.close()
    engine = CommandEngine(command, timeout=1.0, max_failures=1)
    try:
        assert engine.start_timeout == 10.0
        assert engine.describe()["name"] == "slow"
        reply = engine.run({"kind": "legal_plays", "case": "c", "rules": {}, "position": "start", "dice": [3, 1]})
        assert reply == {"result": {"plays": []}}
    finally:
        engine.close()
