"""Fault injection through ``bgconf run --engine cmd:...``: each engine fault errors only
the case in flight (``timeout`` for a hang), kills the engine's whole process group and
goes on with a fresh process; the report is one valid line per case; nothing survives.

The engine is tests/fault_engine.py (see its docstring); tests/fault_cases.bgcase.yaml is
seven cases of different kinds copied from the bundled suite.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.cases import resources

HERE = Path(__file__).parent
CASES = HERE / "fault_cases.bgcase.yaml"
IDS = [c["id"] for c in yaml.safe_load(CASES.read_text())["cases"]]
AT = {"first": IDS[0], "middle": IDS[len(IDS) // 2], "last": IDS[-1]}
ENGINE = HERE / "fault_engine.py"
WRAPPER = HERE / "fault_engine_wrapper.sh"
BAD_OUTPUT = ("Traceback", "Exception in thread")
HANG_TIMEOUT = "0.5"
#: the timeout of runs whose engine never hangs (only reached if the harness itself stalls)
TIMEOUT = "5"


def _validator():
    schema = json.loads((resources.spec_dir() / "schema" / "report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


VALIDATOR = _validator()


# -- running bgconf -----------------------------------------------------------------
def engine_command(fault: str, log: Path, *extra: str, wrapper: bool = False) -> str:
    program = [str(WRAPPER)] if wrapper else [sys.executable, str(ENGINE)]
    return "cmd:" + shlex.join([*program, "--fault", fault, "--log", str(log), *extra])


def bgconf_argv(engine: str, report: Path, *args: str) -> list[str]:
    # the fault cases as written, one request each (the derived play checks are tested elsewhere)
    return [sys.executable, "-m", "conformance.cli", "run", "--engine", engine, "--cases", str(CASES),
            "--no-play-checks", "--report", str(report), *args]


def env() -> dict:
    return dict(os.environ, FAULT_PYTHON=sys.executable,
                PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))


@dataclass
class Run:
    proc: subprocess.CompletedProcess
    report: Path
    log: Path
    lines: list = field(default_factory=list)

    @property
    def output(self) -> str:
        return self.proc.stdout + self.proc.stderr

    @property
    def cases(self) -> list[dict]:
        return [x for x in self.lines if x.get("type") == "case"]

    @property
    def footer(self) -> dict:
        return self.lines[-1]

    @property
    def status(self) -> dict[str, str]:
        return {x["id"]: x["status"] for x in self.cases}

    def row(self, case_id: str) -> dict:
        return next(x for x in self.cases if x["id"] == case_id)

    @property
    def events(self) -> list[dict]:
        return read_log(self.log)


def read_log(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def run_bgconf(tmp_path: Path, engine: str, *args: str, log: Path) -> Run:
    report = tmp_path / "report.jsonl"
    proc = subprocess.run(bgconf_argv(engine, report, *args), capture_output=True, text=True, env=env(),
                          timeout=120, start_new_session=True)
    run = Run(proc, report, log)
    run.lines = read_report(report, run.output)
    return run


def read_report(report: Path, output: str) -> list[dict]:
    assert report.exists(), f"no report written; output:\n{output[-3000:]}"
    return [json.loads(x) for x in report.read_text().splitlines()]


# -- what every run must satisfy ------------------------------------------------------
def check_report(lines: list[dict], selected: int | None = len(IDS)) -> None:
    """Header first, footer last, case lines between; every line valid; counts agree."""
    assert lines, "the report is empty"
    for line in lines:
        errors = sorted(VALIDATOR.iter_errors(line), key=lambda e: list(e.path))
        assert not errors, f"{line.get('type')} line against report.schema.json: " + "; ".join(
            f"{'/'.join(map(str, e.path)) or '(line)'}: {e.message}" for e in errors)
    assert [x["type"] for x in lines] == ["header"] + ["case"] * (len(lines) - 2) + ["footer"]
    cases, foot = lines[1:-1], lines[-1]
    counts = Counter(x["status"] for x in cases)
    assert foot["counts"] == {s: counts.get(s, 0) for s in foot["counts"]}, "footer counts != case lines"
    assert foot["total"] == len(cases)
    if selected is not None:
        assert foot["selected"] == selected


def check_clean_output(output: str) -> None:
    for bad in BAD_OUTPUT:
        assert bad not in output, f"{bad!r} in bgconf's output:\n{output[-3000:]}"


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _is_zombie(pid)


def _group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of group ``pgid``; [] when os.killpg finds none."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []
    except PermissionError:
        pass
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def engine_processes(events: list[dict], parents: bool = False) -> tuple[set[int], set[int]]:
    """The pids (with the wrapper shells when ``parents``) and process groups in a log."""
    pids = {e["pid"] for e in events}
    if parents:
        pids |= {e["ppid"] for e in events if e["event"] == "started"}
    return pids, {e["pgid"] for e in events}


def check_nothing_survives(events: list[dict], parents: bool = False, wait: float = 5.0) -> None:
    pids, groups = engine_processes(events, parents)
    assert pids, "the engine log is empty"
    deadline = time.monotonic() + wait
    while True:
        left = sorted(p for p in pids if _alive(p))
        left_groups = {g: m for g in groups if (m := _group_members(g))}
        if not left and not left_groups:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"engine processes survive the run: pids {left}, groups {left_groups}")
        time.sleep(0.05)


def check_own_groups(events: list[dict], wrapper: bool = False) -> None:
    """Each engine process was started as the leader of its own process group."""
    for e in events:
        if e["event"] == "started":
            leader = e["ppid"] if wrapper else e["pid"]
            assert e["pgid"] == leader, f"engine {e} is not in a process group of its own"
            assert e["pgid"] != os.getpgrp()


@pytest.fixture(autouse=True)
def no_leftovers(tmp_path):
    """After each test, kill (by pid) any engine process a broken harness left behind."""
    yield
    for log in tmp_path.rglob("*.log"):
        for pid in engine_processes(read_log(log), parents=True)[0]:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"fault_engine" in cmdline or b"time.sleep(3600)" in cmdline:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


def by_case(events: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for e in events:
        if e["case"] is not None:
            out.setdefault(e["case"], []).append(e)
    return out


def starts(events: list[dict]) -> int:
    return sum(e["event"] == "started" for e in events)


# -- one fault at the first, a middle and the last case -----------------------------------
#: fault -> (status of the case in flight, fragments its message must contain)
FAULTS = {
    "crash": ("errored", ["engine crashed", "exited with code 7"]),
    "hang": ("timeout", []),
    "garbage": ("errored", ["not JSON"]),
    "not-object": ("errored", []),
    "wrong-seq": ("errored", ["answered seq"]),
    "no-kind": ("errored", []),
    "close-stdout": ("errored", []),
    "node-like-error": ("errored", ["Cannot find module '/x.js'", "Node.js v20.11.0"]),
}


def check_one_fault(run: Run, target: str, status: str, fragments: list[str], wrapper: bool = False) -> None:
    check_clean_output(run.output)
    check_report(run.lines)
    assert [x["id"] for x in run.cases] == IDS, "one case line per case, in order"
    want = {i: (status if i == target else "pass") for i in IDS}
    assert run.status == want, run.output[-3000:]
    message = run.row(target).get("message", "")
    assert message, "the faulted case says why"
    for fragment in fragments:
        assert fragment in message
    assert run.proc.returncode == 1
    foot = run.footer
    assert foot["incomplete"] is False and foot["given_up"] is None and foot["interrupted"] is False
    events = run.events
    assert foot["restarts"] == starts(events) - 1, "restarts: the processes started after the first"
    check_own_groups(events, wrapper)
    cases = by_case(events)
    faulted_pid = next(e["pid"] for e in cases[target] if e["event"].startswith("fault:"))
    for i in IDS:
        if i != target:
            assert [e["event"] for e in cases[i]] == ["answered-correctly"], i
    after = IDS[IDS.index(target) + 1:]
    assert all(cases[i][0]["pid"] != faulted_pid for i in after), "the next case gets a fresh process"
    check_nothing_survives(events, parents=wrapper)


@pytest.mark.parametrize("at", AT)
@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_errors_only_the_case_in_flight(tmp_path, fault, at):
    status, fragments = FAULTS[fault]
    log = tmp_path / "engine.log"
    timeout = HANG_TIMEOUT if fault in ("hang",) else TIMEOUT
    run = run_bgconf(tmp_path, engine_command(fault, log, "--case-id", AT[at]), "--timeout", timeout, log=log)
    check_one_fault(run, AT[at], status, fragments)


def test_a_hang_behind_a_shell_leaves_no_process(tmp_path):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("hang", log, "--case-id", AT["middle"], wrapper=True),
                     "--timeout", HANG_TIMEOUT, log=log)
    check_one_fault(run, AT["middle"], "timeout", [], wrapper=True)


def test_a_hang_leaves_no_helper_process(tmp_path):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("hang", log, "--case-id", AT["middle"], "--helper"),
                     "--timeout", HANG_TIMEOUT, log=log)
    assert sum(e["event"] == "helper" for e in run.events) == starts(run.events) == 2
    check_one_fault(run, AT["middle"], "timeout", [])


def test_a_crash_behind_a_shell_is_one_errored_case(tmp_path):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("crash", log, "--case-id", AT["first"], wrapper=True),
                     "--timeout", TIMEOUT, log=log)
    check_one_fault(run, AT["first"], "errored", ["exited with code 7"], wrapper=True)


def test_a_crash_after_earlier_answers_is_asked_again_of_a_fresh_process(tmp_path):
    # --at counts requests over every process: the process that answered the first case
    # crashes on the second request, once. It may have been dying anyway, so the request is
    # asked again of a fresh process (spec/protocol.md, crash policy); that one answers, so
    # the case passes and the crash is a warning, and no case is errored
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("crash", log, "--at", "2"), "--timeout", TIMEOUT, log=log)
    check_clean_output(run.output)
    check_report(run.lines)
    assert run.status == {i: "pass" for i in IDS}, run.output[-3000:]
    assert any(IDS[1] in w and "exited with code 7" in w and "a new process answered" in w
               for w in run.footer["warnings"]), run.footer["warnings"]
    events = run.events
    assert [e["event"] for e in events if e["case"] == IDS[1] and e["event"] != "started"] == \
        ["fault:crash", "answered-correctly"]
    assert run.footer["restarts"] == starts(events) - 1 == 1
    # the case passes, and the crash is still a defect: counted, listed, exit 1
    assert run.footer["crashes"] == 1 and [x["case"] for x in run.footer["incidents"]] == [IDS[1]]
    assert run.proc.returncode == 1
    check_nothing_survives(events)


# -- not faults: the run goes on in the same process --------------------------------------
def check_same_process(run: Run) -> None:
    events = run.events
    assert starts(events) == 1, "no restart"
    assert len({e["pid"] for e in events}) == 1
    assert run.footer["restarts"] == 0
    check_own_groups(events)
    check_nothing_survives(events)


def check_all_pass(run: Run) -> None:
    check_clean_output(run.output)
    check_report(run.lines)
    assert run.status == {i: "pass" for i in IDS}, run.output[-3000:]
    assert run.proc.returncode == 0
    foot = run.footer
    assert foot["incomplete"] is False and foot["given_up"] is None and foot["interrupted"] is False


@pytest.mark.parametrize("at", AT)
def test_a_reply_sent_twice_is_ignored_with_a_warning(tmp_path, at):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("twice", log, "--case-id", AT[at]), "--timeout", TIMEOUT, log=log)
    check_all_pass(run)
    warnings = run.footer["warnings"]
    assert warnings, "the duplicate reply is recorded in the footer's warnings"
    assert all(w in run.proc.stderr for w in warnings), "and printed to stderr"
    check_same_process(run)


@pytest.mark.parametrize("at", AT)
def test_the_engines_own_errored_reply_is_not_a_fault(tmp_path, at):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("errored-reply", log, "--case-id", AT[at]), "--timeout", TIMEOUT,
                     log=log)
    check_clean_output(run.output)
    check_report(run.lines)
    assert run.status == {i: ("errored" if i == AT[at] else "pass") for i in IDS}
    assert "the engine's own error" in run.row(AT[at])["message"]
    assert run.proc.returncode == 1
    assert run.footer["incomplete"] is False
    check_same_process(run)


@pytest.mark.parametrize("at", AT)
def test_a_10_mb_reply_line_is_accepted(tmp_path, at):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("long-line", log, "--case-id", AT[at]), "--timeout", TIMEOUT,
                     log=log)
    check_all_pass(run)
    check_same_process(run)


def test_an_engine_flooding_stderr_passes_every_case(tmp_path):
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("stderr-flood", log, "--every"), "--timeout", TIMEOUT, log=log)
    assert sum(e["event"] == "fault:stderr-flood" for e in run.events) == len(IDS)
    check_all_pass(run)
    check_same_process(run)


# -- the crash policy -------------------------------------------------------------------
@pytest.mark.parametrize("max_restarts", [None, 1])
def test_an_engine_that_exits_after_each_answer_is_given_up(tmp_path, max_restarts):
    log = tmp_path / "engine.log"
    args = ["--timeout", TIMEOUT] + (["--max-restarts", str(max_restarts)] if max_restarts else [])
    run = run_bgconf(tmp_path, engine_command("exit-after-each", log), *args, log=log)
    answered = max_restarts or 3
    check_clean_output(run.output)
    check_report(run.lines)
    assert [x["id"] for x in run.cases] == IDS
    assert [x["status"] for x in run.cases] == ["pass"] * answered + ["errored"] * (len(IDS) - answered), \
        run.output[-3000:]
    for row in run.cases[answered:]:
        assert "given up" in row.get("message", ""), row
    foot = run.footer
    assert foot["incomplete"] is True and isinstance(foot["given_up"], str) and foot["given_up"]
    assert run.proc.returncode == 1
    events = run.events
    correct = [e for e in events if e["event"] == "answered-correctly"]
    assert [e["case"] for e in correct] == IDS[:answered]
    assert len({e["pid"] for e in correct}) == answered
    check_own_groups(events)
    check_nothing_survives(events)


def test_processes_that_each_die_on_their_second_request_are_given_up(tmp_path):
    # each process answers one request and crashes on its second: every crash is asked again
    # of a fresh process, which answers, but no process ever answers two requests, so the
    # failures add up and the third gives the engine up (spec/protocol.md, crash policy)
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("crash-second", log), "--timeout", TIMEOUT, log=log)
    check_clean_output(run.output)
    check_report(run.lines)
    assert [x["status"] for x in run.cases] == ["pass"] * 3 + ["errored"] * (len(IDS) - 3), run.output[-3000:]
    assert all("given up after 3 consecutive failures" in x["message"] for x in run.cases[3:])
    foot = run.footer
    assert foot["given_up"] and foot["incomplete"] is True
    assert run.proc.returncode == 1
    events = run.events
    assert foot["restarts"] == starts(events) - 1
    check_own_groups(events)
    check_nothing_survives(events)


def test_the_failure_count_restarts_once_a_process_answers_twice(tmp_path):
    # two crashes apart, each on a case of its own, with sound processes between: the count
    # starts again after a process answers two requests, so the engine is never given up
    log = tmp_path / "engine.log"
    run = run_bgconf(tmp_path, engine_command("crash", log, "--case-id", IDS[0], "--case-id", IDS[3],
                                              "--case-id", IDS[6]), "--timeout", TIMEOUT, log=log)
    check_clean_output(run.output)
    statuses = {i: ("errored" if i in (IDS[0], IDS[3], IDS[6]) else "pass") for i in IDS}
    assert run.status == statuses, run.output[-3000:]
    assert run.footer["given_up"] is None and run.footer["incomplete"] is False
    check_nothing_survives(run.events)


def test_an_engine_that_cannot_start_shows_its_error_line(tmp_path):
    log = tmp_path / "engine.log"
    run = subprocess.run(bgconf_argv(engine_command("node-like-error", log, "--at", "0"), tmp_path / "r.jsonl",
                                     "--timeout", TIMEOUT),
                         capture_output=True, text=True, env=env(), timeout=120, start_new_session=True)
    assert run.returncode == 4, run.stdout + run.stderr
    assert "Cannot find module '/x.js'" in run.stderr
    check_clean_output(run.stdout + run.stderr)
    check_nothing_survives(read_log(log))


# -- interrupted runs -----------------------------------------------------------------------
@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_keeps_its_answers(tmp_path, signum, code):
    log = tmp_path / "engine.log"
    report = tmp_path / "report.jsonl"
    target = AT["middle"]
    answered = IDS[:IDS.index(target)]
    out, err = (tmp_path / "stdout").open("w+"), (tmp_path / "stderr").open("w+")
    proc = subprocess.Popen(bgconf_argv(engine_command("hang", log, "--case-id", target), report,
                                        "--timeout", "60"),
                            stdout=out, stderr=err, text=True, env=env(), start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not any(e["event"] == "fault:hang" for e in read_log(log)):
            assert proc.poll() is None, "bgconf ended before the engine hung"
            assert time.monotonic() < deadline, "the engine never reached the hanging case"
            time.sleep(0.05)
        deadline = time.monotonic() + 30  # the report is written case by case, beside its target
        while True:
            partial = list(tmp_path.glob(".report.jsonl.*.partial"))
            if partial and partial[0].read_text().count('"type": "case"') >= len(answered):
                break
            assert not report.exists(), "the report is moved into place only when the run ends"
            assert time.monotonic() < deadline, "the partial report never held the answered cases"
            time.sleep(0.05)
        proc.send_signal(signum)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError(f"bgconf did not stop on {signum.name}") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out.seek(0)
    err.seek(0)
    stdout, stderr = out.read(), err.read()
    check_clean_output(stdout + stderr)
    assert proc.returncode == code, stdout[-2000:] + stderr[-2000:]
    lines = read_report(report, stdout + stderr)
    check_report(lines)
    assert [(x["id"], x["status"]) for x in lines[1:-1]] == [(i, "pass") for i in answered]
    foot = lines[-1]
    assert foot["interrupted"] == signum.name and foot["incomplete"] is True
    assert f"{len(answered)} pass" in stdout, "a summary is printed"
    check_nothing_survives(read_log(log))


# -- chaos --------------------------------------------------------------------------------
NOT_ANSWERING = {"fault:crash": "errored", "fault:hang": "timeout", "fault:garbage": "errored",
                 "fault:wrong-seq": "errored", "fault:no-kind": "errored"}


@settings(max_examples=8, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2 ** 32 - 1), rate=st.floats(0.1, 0.7))
def test_chaos_keeps_the_invariants(seed, rate):
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        log = tmp_path / "engine.log"
        try:
            run = run_bgconf(tmp_path, engine_command("chaos", log, "--seed", str(seed), "--rate", str(rate)),
                             "--timeout", HANG_TIMEOUT, "--max-restarts", "100", log=log)
            _check_chaos(run)
        finally:
            _kill_leftovers(log)


def _kill_leftovers(log: Path) -> None:
    for pid in engine_processes(read_log(log), parents=True)[0]:
        try:
            if b"fault_engine" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _check_chaos(run: Run) -> None:
    check_clean_output(run.output)
    check_report(run.lines)
    assert [x["id"] for x in run.cases] == IDS, "every case reported exactly once, in order"
    foot = run.footer
    assert foot["given_up"] is None and foot["incomplete"] is False and foot["interrupted"] is False
    events = run.events
    cases = by_case(events)
    for case_id, status in run.status.items():
        got = cases.get(case_id, [])
        kinds = [e["event"] for e in got]
        pids = list(dict.fromkeys(e["pid"] for e in got))
        # sent again to a fresh process only after the first one crashed on it without answering
        assert len(pids) <= 2, f"{case_id} was sent to {len(pids)} processes"
        if len(pids) == 2:
            first = [e["event"] for e in got if e["pid"] == pids[0]]
            assert first == ["fault:crash"], f"{case_id} sent again after {first}"
        if "answered-correctly" in kinds:
            # a correct reply, even one followed by a duplicate or by the engine's exit
            assert status == "pass", (case_id, kinds, run.row(case_id))
        elif faults := [k for k in kinds if k in NOT_ANSWERING]:
            assert status == NOT_ANSWERING[faults[0]], (case_id, kinds, run.row(case_id))
        else:  # sent to a process that was already exiting: never read by any engine
            assert status == "errored", (case_id, kinds, run.row(case_id))
    assert foot["restarts"] == starts(events) - 1, "restarts: the processes started after the first"
    # every crash and hang counts (spec/protocol.md, Crashes, hangs and restarts): a hang is
    # never retried; a crash is, and the retry crashes again (the draw depends on the case)
    hung = [e["case"] for e in events if e["event"] == "fault:hang"]
    assert [x["case"] for x in foot["incidents"] if x["kind"] == "hang"] == hung and foot["hangs"] == len(hung)
    crashed = [e["case"] for e in events if e["event"] == "fault:crash"]
    listed = [x["case"] for x in foot["incidents"] if x["kind"] == "crash"]
    assert foot["crashes"] == len(listed) >= len(crashed) and not Counter(crashed) - Counter(listed)
    clean = set(run.status.values()) == {"pass"} and not foot["crashes"] and not foot["hangs"]
    assert run.proc.returncode == (0 if clean else 1)
    check_own_groups(events)
    check_nothing_survives(events)


# -- the report schema on real runs ---------------------------------------------------------
def _reference_run(tmp_path, *args, engine="reference", cases=()):
    report = tmp_path / "r.jsonl"
    argv = [sys.executable, "-m", "conformance.cli", "run", "--engine", engine, "--report", str(report), *args]
    for c in cases:
        argv += ["--cases", str(c)]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env(), timeout=300)
    return proc, read_report(report, proc.stdout + proc.stderr)


def test_the_whole_suite_report_validates(tmp_path):
    proc, lines = _reference_run(tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    check_report(lines, selected=None)
    assert lines[-1]["selected"] == lines[-1]["total"] == lines[-1]["counts"]["pass"] > 100
    assert lines[0]["selection"] == {"full": True, "cases": None, "case": None, "tag": None, "spec": None,
                                     "profile": None, "scenarios": False, "scenario_forms": [], "play_checks": True,
                                     "shard": None}
    assert lines[-1]["restarts"] == 0 and lines[-1]["warnings"] == [] and lines[-1]["incomplete"] is False


def test_a_narrowed_run_with_scenarios_validates(tmp_path):
    proc, lines = _reference_run(tmp_path, "--tag", "bar", "--scenarios")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    check_report(lines, selected=None)
    sel = lines[0]["selection"]
    assert sel["full"] is False and sel["tag"] == ["bar"] and sel["scenarios"] is True
    assert sel["scenario_forms"] == ["swapped", "dice-reversed", "gnubg-id", "xgid", "fibs-board"]
    assert {x["scenario"] for x in lines[1:-1]} > {""}


def test_a_failing_engines_report_validates(tmp_path):
    # the no-larger-die mutant fails both cases: their lines carry title, clauses, diagram, repro...
    from test_cli import CASE

    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASE)
    proc, lines = _reference_run(tmp_path, engine="python:engines_for_tests:no_larger_die", cases=[path])
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    check_report(lines, selected=16)  # the two cases and the 14 play checks derived from bg-GQQD
    failed = [x for x in lines[1:-1] if x["status"] == "fail"]
    assert failed and all({"title", "clauses", "repro"} <= set(x) for x in failed)
