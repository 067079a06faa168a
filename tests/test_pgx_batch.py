"""pgx asked in batches answers as pgx asked one state at a time (``BGCONF_PGX_SERIAL=1``): the
whole suite's report, a fuzz campaign's answers and verdicts for every kind pgx declares, and a
playout game."""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pgx", reason="pgx not installed (pip install 'bgconf[pgx]')")

from conformance.engines.adapters import jax_cache, pgx  # noqa: E402
from conformance.harness.fuzz import Oracle, search  # noqa: E402
from conformance.harness.strategies import decode_example, example_size  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def serial(monkeypatch):
    """Switch the adapter's path: serial(True) is the one-state path, serial(False) the batches."""
    def choose(on: bool) -> None:
        if on:
            monkeypatch.setenv(pgx.SERIAL_ENV, "1")
        else:
            monkeypatch.delenv(pgx.SERIAL_ENV, raising=False)
    return choose


def _cases(report: Path) -> list[dict]:
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    # everything the report says of each case but its timing
    return [{k: v for k, v in row.items() if k not in ("ms", "elapsed_ms", "time_ms")}
            for row in rows if row.get("type") == "case"]


def test_the_whole_suite_gets_the_same_report_batched_and_one_state_at_a_time(tmp_path):
    reports = {}
    for label, env_value in (("serial", "1"), ("batched", None)):
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.pop(pgx.SERIAL_ENV, None)
        if env_value:
            env[pgx.SERIAL_ENV] = env_value
        reports[label] = tmp_path / f"{label}.jsonl"
        proc = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--engine", "pgx",
                               "--report", str(reports[label])], capture_output=True, text=True, env=env, timeout=1800)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    header = json.loads(reports["batched"].read_text().splitlines()[0])
    assert header["engine"].get("batch") is True  # the batched run was sent batches
    serial_cases, batched_cases = _cases(reports["serial"]), _cases(reports["batched"])
    assert len(batched_cases) > 100
    assert batched_cases == serial_cases
    assert {c["status"] for c in batched_cases} >= {"pass", "fail"}  # pgx's known bugs are found both ways


@pytest.mark.parametrize("kind", ["legal_plays", "play_check", "game_result"])
def test_a_fuzz_campaign_gets_the_same_answers_and_verdicts(kind, serial):
    """300 examples of each kind pgx declares, drawn as a campaign draws them: every reply is the
    same, hence every verdict, and the search counts the same mismatches."""
    adapter = pgx.Adapter()
    rng = random.Random(24)
    examples = [decode_example(kind, rng.randbytes(example_size(kind))) for _ in range(300)]
    requests = [ex.request() for ex in examples]
    serial(True)
    one_at_a_time = [adapter.run(r) for r in requests]
    serial(False)
    batched = [reply for start in range(0, len(requests), 100) for reply in adapter.run_batch(requests[start:start + 100])]
    assert batched == one_at_a_time
    oracle = Oracle()
    verdicts = [oracle.judge(ex, reply) for ex, reply in zip(examples, batched)]
    assert any(v is None for v in verdicts)

    counts = {}
    for on in (True, False):
        serial(on)
        camp, groups = search(adapter, oracle, kind, 200, 3, batch=50, max_groups=10 ** 6)
        counts[on] = (camp.positions, camp.mismatched, camp.unsupported,
                      [(count, first[3].category, first[3].message, first[4]) for first, count in groups])
    assert counts[True] == counts[False]


def test_a_request_pgx_cannot_read_is_its_own_reply_in_a_batch(serial):
    """A batch with requests that cannot be answered: each gets the reply it gets alone, and the
    other requests of the batch are answered."""
    adapter = pgx.Adapter()
    good = {"kind": "legal_plays", "case": "a", "rules": {}, "position": "start", "dice": [3, 1]}
    requests = [good,
                {**good, "case": "b", "dice": [7, 1]},
                {**good, "case": "c", "position": {"on_roll": "x", "x": {"points": {"6": 16}}, "o": {"points": {}}}},
                {**good, "case": "d", "kind": "game_result"},
                {**good, "case": "e", "kind": "play_check", "play": "8/5 6/5", "steps": [[8, 5], [6, 5]]},
                {**good, "case": "f", "kind": "codec"}]
    serial(True)
    alone = [adapter.run(r) for r in requests]
    serial(False)
    assert adapter.run_batch(requests) == alone
    assert len(alone[0]["result"]["plays"]) == 16 and alone[4]["result"] == {"legal": True}
    assert "errored" in alone[1] and "errored" in alone[2] and "unsupported" in alone[3]


def test_a_playout_game_is_the_same_batched_and_one_state_at_a_time(serial):
    from conformance.harness import playout

    engine = pgx.load_engine()
    records = {}
    for on in (True, False):
        serial(on)
        totals = playout.Totals()
        record = playout.play_game_pgx(engine, 5, 1, totals)
        records[on] = (record.plies, record.positions, record.status, record.winner, record.engine_points,
                       [(m.ply, m.kind, str(m.position), m.dice, m.missing, m.extra) for m in totals.mismatches])
    assert records[True] == records[False]
    assert records[False][0] > 20


# -- what JAX compiled for pgx, kept between processes ---------------------------------------
def test_the_compile_cache_directory_is_chosen_by_the_environment(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv(jax_cache.CACHE_ENV, raising=False)
    assert jax_cache.compile_cache() == tmp_path / "xdg" / "bgconf" / "jax"  # platformdirs' user cache, made
    assert (tmp_path / "xdg" / "bgconf" / "jax").is_dir()
    monkeypatch.setenv(jax_cache.CACHE_ENV, str(tmp_path / "mine"))
    assert jax_cache.compile_cache() == tmp_path / "mine"
    monkeypatch.setenv(jax_cache.CACHE_ENV, "off")
    assert jax_cache.compile_cache() is None
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    monkeypatch.setenv(jax_cache.CACHE_ENV, str(blocker / "jax"))
    assert jax_cache.compile_cache() is None  # cannot be made: no cache, no error, one warning line
    assert jax_cache.compile_cache() is None
    told = capsys.readouterr().err.splitlines()
    assert len(told) == 1 and f"BGCONF_PGX_CACHE={blocker / 'jax'}:" in told[0] and "again in every process" in told[0]
    monkeypatch.setenv(jax_cache.CACHE_ENV, str(tmp_path / "mine"))
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(tmp_path / "jax-own"))
    assert jax_cache.compile_cache() is None  # the user's own JAX setting is left to JAX


def test_a_second_process_loads_what_the_first_compiled_and_answers_the_same(tmp_path):
    from conformance.cases import load_suite

    ids = [c.id for c in load_suite().cases
           if c.kind in ("legal_plays", "game_result") and "variant" not in (c.rules or {})][:6]
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop(pgx.SERIAL_ENV, None)
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    reports = []
    for label, where in (("cold", str(cache)), ("warm", str(cache)), ("none", "off")):
        report = tmp_path / f"{label}.jsonl"
        argv = [sys.executable, "-m", "conformance.cli", "run", "--engine", "pgx", "--report", str(report)]
        for case_id in ids:
            argv += ["--case", case_id]
        proc = subprocess.run(argv, capture_output=True, text=True, env={**env, jax_cache.CACHE_ENV: where}, timeout=900)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        reports.append(_cases(report))
        if label == "cold":
            kept = sorted(p.name for p in cache.rglob("*") if p.is_file())
            assert kept, "nothing was kept in the compile cache"
    assert sorted(p.name for p in cache.rglob("*") if p.is_file()) == kept  # the warm run compiled nothing new
    assert len(reports[0]) == len(ids)
    assert reports[0] == reports[1] == reports[2]
