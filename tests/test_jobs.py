"""--jobs N: a campaign answered by N worker processes gives the output of --jobs 1 (timings
aside), a crash of one worker costs only the item it was answering, and Ctrl-C stops every
worker and keeps what was answered (conformance/harness/jobs.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import Callable

import pytest

from conformance.cases import load_suite
from conformance.cli import main
from conformance.engines.adapters.reference import ReferenceEngine
from conformance.harness.jobs import cores, deal, job_count
from conformance.harness.runner import run_cases, run_cases_jobs
from conformance.harness.runner import select as select_cases
from conformance.harness.shard import Shard
from conformance.reports import files as outfiles

from engines_for_tests import dies_on
from test_faults import CASES, IDS, check_nothing_survives, engine_command, env, read_log

HERE = Path(__file__).parent
ROOT = HERE.parent

#: the fields of a report that are timings (or the command line), left out when two runs are compared
TIMINGS = ("ms", "wall_s", "started", "argv", "engine_s", "reference_s")


def without_timings(path: Path) -> list[dict]:
    lines = []
    for text in path.read_text().splitlines():
        line = json.loads(text)
        for key in TIMINGS:
            line.pop(key, None)
        lines.append(line)
    return lines


def bgconf(*args: str, cwd: Path = ROOT, extra_path: str = "", timeout: float = 600) -> subprocess.CompletedProcess:
    environment = env()
    if extra_path:
        environment["PYTHONPATH"] = extra_path + os.pathsep + environment["PYTHONPATH"]
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=environment, timeout=timeout)


def sigint_once(proc: subprocess.Popen, ready: Callable[[], None]) -> tuple[str, str]:
    """Send ``proc`` SIGINT once ``ready()`` returns (it asserts what must hold before), and
    return its (stdout, stderr) when it ends; killed if anything fails meanwhile."""
    try:
        ready()
        proc.send_signal(signal.SIGINT)
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def untimed(text: str) -> str:
    """``text`` with its durations (``0.91 s``) made ``T s``."""
    import re

    return re.sub(r"[0-9]+\.[0-9]+ s\b", "T s", text)


def same_with_1_and_2_jobs(tmp_path: Path, *args: str, extra_path: str = "", codes=(0, 1)) -> tuple[list, str]:
    """Run ``bgconf ARGS --report`` with --jobs 1 and --jobs 2; assert the reports (timings
    aside) and the standard outputs (the timing line aside) are the same; return the report and
    the output."""
    outs, reports = [], []
    for jobs in ("1", "2"):
        report = tmp_path / f"jobs-{jobs}.jsonl"
        run = bgconf(*args, "--report", str(report), "--jobs", jobs, extra_path=extra_path)
        assert run.returncode in codes, run.stdout[-2000:] + run.stderr[-2000:]
        assert "Traceback" not in run.stderr
        outs.append(run.stdout)
        reports.append(without_timings(report))
    assert reports[0] == reports[1]
    assert untimed(outs[0]) == untimed(outs[1])
    return reports[0], outs[0]


# -- the deal -------------------------------------------------------------------------------------
@pytest.mark.parametrize("count,jobs", [(0, 2), (1, 3), (10, 1), (10, 3), (17, 4)])
def test_items_are_dealt_as_shards_deal_them(count, jobs):
    shares = deal(count, jobs)
    assert sorted(i for share in shares for i in share) == list(range(count))
    for j, share in enumerate(shares):
        assert share == [i for i in range(count) if Shard(j + 1, jobs).owns(i)]


def test_jobs_0_is_one_per_core_and_a_negative_count_is_a_usage_error(capsys):
    assert job_count(0) == cores() >= 1
    assert job_count(3) == 3 and job_count(None) == 1
    if hasattr(os, "sched_getaffinity"):
        assert cores() == len(os.sched_getaffinity(0))
    with pytest.raises(SystemExit) as stop:
        main(["run", "--engine", "reference", "--jobs", "-1"])
    assert stop.value.code == 2
    assert "argument --jobs" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "certify", "fuzz", "playout", "replay", "table"])
def test_help_documents_jobs_with_an_example(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--jobs N" in text and "0 = one per core" in text
    assert f"bgconf {command} " in text.split("--jobs N", 1)[1], "the option's help gives an example"


# -- run: the same report with 1 and 2 jobs --------------------------------------------------------
def test_reference_run_is_the_same_with_two_jobs(tmp_path):
    lines, _out = same_with_1_and_2_jobs(tmp_path, "run", "--engine", "reference", "--spec", "bearoff",
                                         "--spec", "bar", "--scenarios")
    assert lines[-1]["total"] == lines[-1]["selected"] > 100


def test_a_python_engine_with_failures_is_the_same_with_two_jobs(tmp_path):
    lines, out = same_with_1_and_2_jobs(tmp_path, "run", "--engine", "python:engines_for_tests:no_larger_die",
                                        "--spec", "move", extra_path=str(HERE))
    assert lines[-1]["counts"]["fail"] > 0 and "FAIL" in out


def test_the_python_example_engine_is_the_same_with_two_jobs(tmp_path):
    lines, _out = same_with_1_and_2_jobs(tmp_path, "run", "--engine", "python:my_engine:MyEngine",
                                         "--spec", "move", extra_path=str(ROOT / "examples" / "python"))
    assert lines[-1]["total"] > 0


@pytest.mark.parametrize("name,require", [("gnubg", "BGCONF_REQUIRE_GNUBG"),
                                           ("bsd-backgammon", "BGCONF_REQUIRE_BSD_BACKGAMMON")])
def test_a_process_engine_is_the_same_with_two_jobs(tmp_path, name, require):
    """One engine process a worker. BSD backgammon's computer player does not always choose the
    same play (expectations/bsd-backgammon.yaml: varies), so its chosen plays are left out
    of the comparison (and the footer's counts with them)."""
    from conformance.harness.runner import EngineStarter

    try:
        EngineStarter(name)().close()
    except Exception as exc:
        if os.environ.get(require) == "1":
            pytest.fail(f"{name} is required here ({require}=1): {exc}")
        pytest.skip(f"{name} not installed: {exc}")
    reports = []
    for jobs in ("1", "2"):
        report = tmp_path / f"jobs-{jobs}.jsonl"
        run = bgconf("run", "--engine", name, "--spec", "bearoff.higher-die", "--spec", "move.larger-die",
                     "--report", str(report), "--jobs", jobs)
        assert run.returncode in (0, 1), run.stdout[-2000:] + run.stderr[-2000:]
        assert "Traceback" not in run.stderr
        lines = without_timings(report)
        if name == "bsd-backgammon":
            lines = [x for x in lines if "chosen-play" not in (x.get("scenario") or "")]
            for key in ("counts", "total"):
                lines[-1].pop(key)
        reports.append(lines)
    assert reports[0] == reports[1]
    assert reports[0][-1]["selected"] > 0 and not reports[0][-1]["incomplete"]


def test_an_engine_that_crashes_is_the_same_with_two_jobs(tmp_path):
    # a process engine that exits on one case: the worker's engine is restarted, as with one job
    log = tmp_path / "engine.log"
    lines, _out = same_with_1_and_2_jobs(tmp_path, "run", "--engine", engine_command("crash", log, "--case-id",
                                                                                     IDS[3]),
                                         "--cases", str(CASES), "--no-play-checks", "--timeout", "60")
    foot = lines[-1]
    assert foot["crashes"] >= 1 and foot["total"] == len(IDS)


# -- a worker that dies -----------------------------------------------------------------------------
def test_a_worker_that_dies_costs_only_the_case_it_was_answering():
    cases = select_cases(load_suite().cases, spec=["bearoff"])[:12]
    victim = cases[5]
    serial = run_cases(ReferenceEngine(), cases)
    seen = []
    results = run_cases_jobs(partial(dies_on, victim.id), ReferenceEngine().describe(), cases, 2,
                             progress=seen.append)
    assert [r.case.name for r in results] == [r.case.name for r in seen] == [c.name for c in cases]
    for mine, theirs in zip(results, serial):
        if mine.case.id == victim.id:
            assert mine.status == "errored" and "exit code 3" in mine.outcome.message
            assert [x["kind"] for x in mine.incidents] == ["crash"]
        else:
            assert mine.status == theirs.status == "pass", mine.outcome.message


# -- Ctrl-C ---------------------------------------------------------------------------------------
def test_ctrl_c_stops_every_worker_and_keeps_what_was_answered(tmp_path):
    """Two workers: worker 2 hangs on IDS[5] (its third case); worker 1 answers IDS 0, 2, 4, 6.
    SIGINT then: the report keeps every answered case in the serial order, says interrupted,
    and no engine process survives."""
    log, report = tmp_path / "engine.log", tmp_path / "r.jsonl"
    target = IDS[5]
    argv = [sys.executable, "-m", "conformance.cli", "run", "--engine",
            engine_command("hang", log, "--case-id", target), "--cases", str(CASES), "--no-play-checks",
            "--report", str(report), "--timeout", "60", "--jobs", "2"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=tmp_path,
                            start_new_session=True)

    def answered_elsewhere() -> bool:
        events = read_log(log)
        return (any(e["event"] == "fault:hang" for e in events)
                and any(e.get("case") == IDS[6] and e["event"] == "answered-correctly" for e in events))

    def hung_and_answered_elsewhere() -> None:
        deadline = time.monotonic() + 120
        while not answered_elsewhere():
            assert proc.poll() is None, "bgconf ended before the hang"
            assert time.monotonic() < deadline, "the engines never got there"
            time.sleep(0.05)
        time.sleep(0.5)
        partial_files = list(tmp_path.glob(".r.jsonl.*" + outfiles.PARTIAL_SUFFIX))
        assert partial_files and not report.exists(), "the report grows beside its target while the run goes on"

    out, err = sigint_once(proc, hung_and_answered_elsewhere)
    assert proc.returncode == 130, out[-2000:] + err[-2000:]
    assert "Traceback" not in out + err
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert [x["id"] for x in lines[1:-1]] == IDS[:5] + [IDS[6]]
    foot = lines[-1]
    assert foot["type"] == "footer" and foot["interrupted"] == "SIGINT" and foot["incomplete"]
    assert foot["total"] == 6 and foot["selected"] == len(IDS)
    assert not list(tmp_path.glob("*" + outfiles.PARTIAL_SUFFIX)) and not list(tmp_path.glob(".*.partial"))
    check_nothing_survives(read_log(log))


# -- the other commands -------------------------------------------------------------------------------
def test_fuzz_finds_the_same_with_two_jobs():
    outs = []
    for jobs in ("1", "2", "3"):
        run = bgconf("fuzz", "--engine", "python:engines_for_tests:no_larger_die", "--examples", "700",
                     "--batch", "50", "--seed", "5", "--max-mismatches", "2", "--jobs", jobs, extra_path=str(HERE))
        assert run.returncode == 1, run.stderr[-2000:]
        # the timings (search seconds, positions a second, shrink seconds) aside
        import re

        outs.append(re.sub(r"in [0-9.]+ s \([0-9,]+ positions/s\)|\([0-9.]+ s\)", "", run.stdout))
    assert "MISMATCH 1" in outs[0]
    assert outs[0] == outs[1] == outs[2]


def test_fuzz_search_folds_the_batches_as_one_process_does():
    from conformance.harness.fuzz import Oracle, search
    from conformance.harness.runner import EngineStarter

    for shard in (Shard(1, 1), Shard(2, 3)):
        camp, groups = search(ReferenceEngine(), Oracle(), "play_check", 900, 11, batch=40, shard=shard)
        jobs_camp, jobs_groups = search(None, Oracle(), "play_check", 900, 11, batch=40, shard=shard, jobs=3,
                                        starter=EngineStarter("reference"))
        assert (camp.positions, camp.mismatched, camp.unsupported) == \
            (jobs_camp.positions, jobs_camp.mismatched, jobs_camp.unsupported)
        assert camp.positions > 0 and groups == jobs_groups == []


def test_replay_is_the_same_with_two_jobs(tmp_path):
    lines, _out = same_with_1_and_2_jobs(tmp_path, "replay", str(ROOT / "tests" / "data" / "matches"),
                                         str(ROOT / "cases" / "replays"), codes=(1,))
    assert lines[-1]["files"] > 20 and lines[-1]["illegal"] > 0


def test_replay_workers_start_before_the_files_are_listed_and_end_with_the_command(tmp_path, monkeypatch):
    """``bgconf replay --jobs 2`` (no engine) starts its two workers before it lists the record
    files, so that their start overlaps the listing; they end with the command, also when it
    stops before any file is handed out (an output that is an input: exit 2)."""
    import multiprocessing

    import conformance.commands.replay as replay_command

    seen: list[int] = []
    listed = replay_command.record_files

    def listing(paths):
        seen.append(len(multiprocessing.active_children()))
        return listed(paths)

    monkeypatch.setattr(replay_command, "record_files", listing)
    records = ROOT / "cases" / "replays"
    assert main(["replay", "--quiet", "--jobs", "2", "--report", str(tmp_path / "r.jsonl"), str(records)]) == 1
    assert seen == [2] and not multiprocessing.active_children()
    assert json.loads((tmp_path / "r.jsonl").read_text().splitlines()[-1])["files"] == len(list(records.glob("*.mat")))
    clash = records / "legal-server-export.mat"
    before = clash.read_bytes()
    assert main(["replay", "--quiet", "--jobs", "2", "--report", str(clash), str(clash)]) == 2
    assert seen == [2, 2] and not multiprocessing.active_children() and clash.read_bytes() == before


def test_playout_is_the_same_with_two_jobs(tmp_path):
    pytest.importorskip("pyspiel")
    lines, out = same_with_1_and_2_jobs(tmp_path, "playout", "--engine", "openspiel", "--games", "5", "--seed", "3",
                                        "-v", codes=(0,))
    assert [x["game"] for x in lines if x["type"] == "game"] == [1, 2, 3, 4, 5]
    assert out.count("\ngame ") + out.startswith("game ") == 5


def test_table_rows_are_the_same_with_two_jobs():
    from conformance.reports.table import engine_run

    suite = load_suite()
    info, serial, _ = engine_run("reference", suite)
    info2, parallel, _ = engine_run("reference", suite, jobs=2)
    strip = lambda lines: [{k: v for k, v in x.items() if k not in TIMINGS} for x in lines]  # noqa: E731
    assert info == info2 and strip(serial) == strip(parallel)


def test_a_worker_whose_engine_cannot_start_errors_its_cases_and_the_run_goes_on():
    from conformance.harness.runner import EngineStarter

    cases = select_cases(load_suite().cases, spec=["bearoff"])[:10]
    results = run_cases_jobs(EngineStarter("cmd:/nonexistent/bg-engine"), ReferenceEngine().describe(), cases, 2)
    assert [r.case.name for r in results] == [c.name for c in cases]
    assert all(r.status == "errored" and "could not start" in r.outcome.message for r in results)
    # three starts in a row fail: each costs one case, then the worker's other cases are not asked
    assert sum("3 times in a row" in r.outcome.message for r in results) == 4
    # a crash incident for each failed start (3 a worker), none for the cases never asked
    assert sum(bool(r.incidents) for r in results) == 6


# -- workers started before the cases are made ---------------------------------------------------------
def test_workers_never_given_cases_close_their_engines(tmp_path):
    """Workers started early (``ask_workers``) whose run never comes (the command's own engine
    failed to start, a bad selection, an interruption) are ended so that each closes its engine:
    no engine process, nor the child each engine started, outlives ``close``."""
    from conformance.harness.runner import EngineStarter, ask_workers

    log = tmp_path / "engine.log"
    workers = ask_workers(EngineStarter(engine_command("none", log, "--helper")), 2)
    try:
        deadline = time.monotonic() + 60
        while sum(e["event"] == "helper" for e in read_log(log)) < 2:
            assert time.monotonic() < deadline, "the workers' engines never started"
            time.sleep(0.05)
    finally:
        workers.close()
    events = read_log(log)
    assert sum(e["event"] == "started" for e in events) == 2
    check_nothing_survives(events)


@pytest.mark.parametrize("where", ["protocol", "gnubg-driver"])
def test_an_interruption_while_an_engine_is_asked_to_stop_still_kills_its_group(tmp_path, where):
    """The race behind a worker's left-over helper: ``Jobs.close`` ends the share (the worker's
    task wakes and closes its engine) and sends SIGINT, which can land while ``close`` waits for
    the engine to leave after ``stop``. The engine's group is killed all the same, and the
    interruption goes on."""
    from conformance.engines.adapters.gnubg.program import GnubgProcess
    from conformance.engines.registry import start_engine

    log = tmp_path / "engine.log"
    if where == "protocol":
        engine, _info = start_engine(engine_command("none", log, "--helper"))
        proc = engine._proc
        target = engine
    else:  # the gnubg adapter's process, stopped the same way: its stop() run on the fault engine,
        # which leaves at "stop" as gnubg's driver does, and has a helper that only a group kill ends
        from conformance.engines.process import EngineProcess

        proc = GnubgProcess.__new__(GnubgProcess)
        EngineProcess.__init__(proc, [sys.executable, str(HERE / "fault_engine.py"), "--fault", "none",
                                      "--log", str(log), "--helper"])
        target = None
    deadline = time.monotonic() + 30
    while not any(e["event"] == "helper" for e in read_log(log)):
        assert time.monotonic() < deadline, "the engine's helper never started"
        time.sleep(0.05)

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt("SIGINT")

    proc.popen.wait = interrupted  # the interruption comes while close waits for the engine
    with pytest.raises(KeyboardInterrupt):
        if target is not None:
            target.close()
        else:
            proc.stop()
    check_nothing_survives(read_log(log))


def test_a_stop_signal_during_a_held_block_interrupts_after_it():
    """``stop_signals_held``: SIGINT sent inside the block does not cut it short; it interrupts
    as the block ends, and the signals are not left blocked."""
    from conformance.engines.process import stop_signals_held

    done = []
    with pytest.raises(KeyboardInterrupt):
        with stop_signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
            done.append("the block ran to its end")
        done.append("not reached")
    assert done == ["the block ran to its end"]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_no_more_workers_than_cases(tmp_path):
    """``--jobs 4`` with one case asks it in one process: no worker starts an engine for nothing."""
    log = tmp_path / "engine.log"
    run = bgconf("run", "--engine", engine_command("none", log), "--cases", str(CASES), "--case", IDS[0],
                 "--no-play-checks", "--jobs", "4")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert sum(e["event"] == "started" for e in read_log(log)) == 1


def _echo(share, emit, stats):
    for index, item in share:
        emit(index, item)


def _leaves_a_sleeper(share, emit, stats):
    """A task that starts a program in a session of its own, with a child of its own, and never
    ends it: a task whose engine close an interruption cut short."""
    for index, _item in share:
        sleeper = subprocess.Popen(["sh", "-c", "sleep 300 & echo $!; wait"], stdout=subprocess.PIPE,
                                   start_new_session=True, text=True)
        emit(index, [sleeper.pid, int(sleeper.stdout.readline())])


def test_nothing_a_worker_started_outlives_it():
    """What a worker's task started and did not end (its own session, and a child in it) is
    killed as the worker ends: the safety net under an engine close cut short by the stop."""
    from conformance.harness.jobs import Jobs

    pids: list[int] = []
    Jobs(_leaves_a_sleeper, 2, deliver=lambda _k, answer: pids.extend(answer)).run([1, 2])
    assert len(pids) == 4
    deadline = time.monotonic() + 5
    while (left := [p for p in pids if _running(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, f"processes started by the workers survive them: {left}"


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_signal_while_a_worker_starts_is_held_back_not_lost(monkeypatch):
    """SIGINT arriving while a worker process is being started (a few milliseconds) is delivered
    once it has started, to a parent that knows the worker and so can stop it; it is neither lost
    nor raised half-way through the start."""
    import multiprocessing
    from collections import deque
    from multiprocessing.context import SpawnProcess

    from conformance.harness.jobs import Jobs, _Worker

    start = SpawnProcess.start

    def signalled_on_start(process):
        os.kill(os.getpid(), signal.SIGINT)
        start(process)

    monkeypatch.setattr(SpawnProcess, "start", signalled_on_start)
    run = Jobs(_echo, 1)
    run._ctx = multiprocessing.get_context("spawn")
    worker = _Worker(0, deque())
    run._workers = [worker]
    try:
        with pytest.raises(KeyboardInterrupt):
            run._spawn(worker)
        assert worker.conn is not None and worker.process.is_alive()
    finally:
        run._kill_all()


# -- forked early workers ---------------------------------------------------------------------------
FORK_PROBE = """
import json, sys, threading, time
import conformance.harness.jobs as jobs_module
from conformance.harness.jobs import Jobs, single_threaded

def task(share, emit, stats):
    import conformance.harness.jobs as mine
    for index, item in share:
        emit(index, [item * 2, getattr(mine, "MARK", None)])

def campaign():
    got = {}
    jobs = Jobs(task, 2, deliver=lambda k, answer: got.__setitem__(k, answer))
    jobs.start(fork=True)
    jobs.run(list(range(7)))
    return got

if __name__ == "__main__":
    jobs_module.MARK = "set in the parent after its imports"
    alone = single_threaded()
    forked = campaign()
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
    print(json.dumps([alone, forked, single_threaded(), campaign()]))
"""


def test_early_workers_are_forked_from_a_single_threaded_parent_and_spawned_otherwise(tmp_path):
    """``Jobs.start(fork=True)``: from a parent with one thread, the workers are forked (they see
    what the parent set after its imports); once the parent runs a second thread, they are fresh
    processes (they do not). The answers are the same either way, in order."""
    script = tmp_path / "probe.py"
    script.write_text(FORK_PROBE)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env(), timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    alone, forked, alone_later, spawned = json.loads(run.stdout)
    assert alone is True and alone_later is False
    mark = "set in the parent after its imports"
    assert forked == {str(k): [2 * k, mark] for k in range(7)}
    assert spawned == {str(k): [2 * k, None] for k in range(7)}


EOF_PROBE = """
import json, sys
from conformance.harness.jobs import Jobs, single_threaded

def echo(share, emit, stats):
    for index, item in share:
        emit(index, item)

if __name__ == "__main__":
    assert single_threaded()
    jobs = Jobs(echo, 2)
    jobs.start(fork=True)
    workers = list(jobs._early)
    for w in workers:
        w.sender.close()
        w.sender = None
    for w in workers:
        w.process.join(timeout=20)
    print(json.dumps([w.process.is_alive() for w in workers]))
    jobs.close()
"""


def test_a_forked_worker_sees_the_end_of_its_share_although_it_was_forked_with_the_parents_pipe_ends(tmp_path):
    """Each forked worker closes the copies it got of the parent's pipe ends (its own share's
    sender, the other workers'): when the parent closes a worker's share without sending it, that
    worker sees the end at once and ends, with no signal. Were a copy left open anywhere, the
    worker would wait for its share for ever (here: 20 s, then still alive)."""
    script = tmp_path / "probe.py"
    script.write_text(EOF_PROBE)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env(), timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout) == [False, False]


def test_ctrl_c_stops_a_replay_with_forked_workers_and_keeps_what_was_judged(tmp_path):
    """``bgconf replay --jobs 2`` (its workers forked) on a thousand record files, stopped by
    SIGINT once files are judged: exit 130; the report holds the files judged, in the order
    named (one a worker was still judging is left out, those after it that the other had
    judged are kept), each whole, with a footer that counts them and says so; and no process
    of the command's group survives it."""
    import shutil

    sources = sorted((ROOT / "tests" / "data" / "matches").glob("*.mat"))
    records = tmp_path / "records"
    records.mkdir()
    for i in range(1000):
        shutil.copyfile(sources[i % len(sources)], records / f"{i:04d}.mat")
    report = tmp_path / "r.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "conformance.cli", "replay", "--jobs", "2", "--report",
                             str(report), str(records)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env(), cwd=tmp_path, start_new_session=True)
    def twenty_lines_out() -> None:
        for _ in range(20):
            assert proc.stdout.readline(), "bgconf ended before 20 files were judged"

    out, err = sigint_once(proc, twenty_lines_out)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in out + err
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    judged = [Path(x["file"]).name for x in lines if x["type"] == "file"]
    assert 2 <= len(judged) < 1000 and judged == sorted(set(judged)) and judged[:2] == ["0000.mat", "0001.mat"]
    assert {x["file"] for x in lines if x["type"] == "event"} <= {x["file"] for x in lines if x["type"] == "file"}
    assert lines[-1]["type"] == "footer" and lines[-1]["interrupted"] == "SIGINT"
    assert lines[-1]["files"] == len(judged)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("a process of bgconf's group outlives it")


# -- the engine's description comes from a worker -------------------------------------------------
def test_a_run_with_two_jobs_starts_two_engines_and_describes_the_engine_from_the_first(tmp_path):
    """With --jobs 2, the first worker's engine describes the engine (the report's header is that
    of --jobs 1): two engine processes in all, not a third one in the parent for describe()."""
    log = tmp_path / "engine.log"
    lines, _out = same_with_1_and_2_jobs(tmp_path, "run", "--engine", engine_command("none", log),
                                         "--cases", str(CASES), "--no-play-checks")
    assert lines[-1]["total"] == len(IDS)
    started = [e for e in read_log(log) if e["event"] == "started"]
    # --jobs 1: one engine; --jobs 2: one per worker
    assert len(started) == 1 + 2, started
    assert len({e["pid"] for e in started}) == 3


def test_an_engine_that_cannot_start_with_two_jobs_exits_4_with_its_error_line(tmp_path):
    log = tmp_path / "engine.log"
    run = bgconf("run", "--engine", engine_command("node-like-error", log, "--at", "0"), "--cases", str(CASES),
                 "--report", str(tmp_path / "r.jsonl"), "--jobs", "2")
    assert run.returncode == 4, run.stdout + run.stderr
    assert "Cannot find module '/x.js'" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "r.jsonl").exists()


def test_workers_started_before_one_that_cannot_start_are_ended(monkeypatch):
    """``Jobs.start`` whose third worker cannot start (here: EMFILE, as under a low ``ulimit -n``)
    ends the two already started and raises the error: nobody is left waiting for a share that
    never comes (the command would otherwise hang at exit, joining them)."""
    import multiprocessing

    from conformance.harness.jobs import Jobs

    spawn = Jobs._spawn
    started: list[int] = []

    def third_fails(self, w, forked=None):
        if len(started) == 2:
            raise OSError(24, "Too many open files")
        started.append(w.number)
        spawn(self, w, forked)

    monkeypatch.setattr(Jobs, "_spawn", third_fails)
    jobs = Jobs(_echo, 4)  # kept: its pipe ends stay open, as in a command that goes on to report
    with pytest.raises(OSError, match="Too many open files"):
        jobs.start(fork=True)
    assert started == [0, 1]
    deadline = time.monotonic() + 15
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children()
    jobs.close()
