"""The records with known verdicts (cases/replays/): bgconf replay reproduces every one, and
``verdict_differences``, the check a mutation run calls, finds every departure from them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from conformance.cli import main
from conformance.harness.replay_verdicts import (
    SUMMARY, VERDICT_SUFFIX, compare_verdict, replays_dir, verdict_differences,
)

ROOT = replays_dir()


def test_every_record_has_a_verdict_and_the_reference_reproduces_each():
    records = sorted(p.stem for p in ROOT.glob("*.mat"))
    verdicts = sorted(p.name[:-len(VERDICT_SUFFIX)] for p in ROOT.glob("*" + VERDICT_SUFFIX))
    assert records == verdicts and len(records) >= 18
    assert verdict_differences() == []


def test_the_verdicts_cover_each_kind_of_illegal_event_and_file_problem():
    kinds, clauses, counts = set(), set(), {k: 0 for k in SUMMARY}
    for p in ROOT.glob("*" + VERDICT_SUFFIX):
        v = yaml.safe_load(p.read_text(encoding="utf-8"))
        kinds |= {e["kind"] for e in v["illegal"]}
        clauses |= {e["spec"] for e in v["illegal"]}
        for k in SUMMARY:
            counts[k] += v["summary"][k]
    assert {"play", "no-play", "cube", "result", "score"} <= kinds
    assert {"move.separate-dice", "move.maximum-dice", "move.direction", "move.open-point", "bar.enter-first",
            "bearoff.all-home", "record.events", "cube.crawford", "cube.take", "score.drop", "score.end",
            "match.score"} <= clauses
    assert counts["errors"] >= 3 and counts["unjudged"] >= 3


def test_bgconf_replay_reports_every_expected_verdict(tmp_path):
    report = tmp_path / "r.jsonl"
    assert main(["replay", "--quiet", "--report", str(report), str(ROOT)]) == 1
    lines = [json.loads(ln) for ln in report.read_text(encoding="utf-8").splitlines()]
    seen = 0
    for line in (x for x in lines if x["type"] == "file"):
        events = [x for x in lines if x["type"] == "event" and x["file"] == line["file"]]
        got = {"summary": {k: line[k] for k in SUMMARY},
               "illegal": [{"game": e["game"], "move": e["move"], "side": e["side"], "kind": e["kind"],
                            "spec": e["spec"]} for e in events if e["level"] == "illegal"],
               "errors": [{"line": e["line"], "game": e["game"]} for e in events if e["level"] == "error"]}
        name = Path(line["file"]).name
        expected = yaml.safe_load((ROOT / (name[:-4] + VERDICT_SUFFIX)).read_text(encoding="utf-8"))
        assert compare_verdict(expected, got, name) == []
        seen += 1
    assert seen == len(list(ROOT.glob("*.mat")))


def test_a_changed_or_missing_verdict_is_a_difference(tmp_path):
    copy = tmp_path / "replays"
    shutil.copytree(ROOT, copy)
    v = copy / ("illegal-bar-first" + VERDICT_SUFFIX)
    data = yaml.safe_load(v.read_text(encoding="utf-8"))
    data["illegal"][0]["side"] = "o"
    data["summary"]["plays"] += 1
    v.write_text(yaml.safe_dump(data), encoding="utf-8")
    (copy / ("result-wrong-points" + VERDICT_SUFFIX)).unlink()
    (copy / ("error-truncated" + VERDICT_SUFFIX)).write_text("summary: [", encoding="utf-8")
    diffs = verdict_differences(copy)
    assert any("illegal-bar-first.mat: plays expected" in d for d in diffs)
    assert any("illegal-bar-first.mat: illegal events differ" in d for d in diffs)
    assert any("result-wrong-points.mat: a record without its verdict" in d for d in diffs)
    assert any("error-truncated" in d and "cannot be read" in d for d in diffs)
    assert len(diffs) == 4
    assert verdict_differences(tmp_path / "none") == [f"{tmp_path / 'none'}: no such directory"]


def test_a_mutant_of_the_rules_is_killed(monkeypatch):
    import reference_impl.record as record
    from reference_impl.check import Verdict

    # a reference that lets a checker on the bar wait: bar-first is never refused
    real = record.recorded_play

    def lenient(position, dice, segments):
        judged = real(position, dice, segments)
        if judged.verdict.reason == "bar-first":
            return record.RecordedPlay(Verdict(True), judged.result)
        return judged

    monkeypatch.setattr(record, "recorded_play", lenient)
    diffs = verdict_differences()
    assert diffs and all("illegal-bar-first.mat" in d for d in diffs)
