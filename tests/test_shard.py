"""Campaigns larger than one machine: --shard K/N partitions a run's cases, a fuzz
campaign's batches and a playout's games; bgconf merge joins shard reports into one that
diff, matrix and certify --verify read."""

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.harness.fuzz import run_campaign
from conformance.harness.mutants import mutant
from conformance.reports.report import load_report
from conformance.harness.shard import Shard

HERE = Path(__file__).parent


def cases(path):
    return [c["id"] + (f"[{c['scenario']}]" if c["scenario"] else "") for c in load_report(path) if c["type"] == "case"]


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_every_index_belongs_to_exactly_one_shard(n):
    for i in range(50):
        assert sum(Shard(k, n).owns(i) for k in range(1, n + 1)) == 1


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", ""])
def test_a_shard_that_is_not_k_of_n_is_a_usage_error(capsys, text):
    with pytest.raises(SystemExit) as stop:
        main(["run", "--engine", "reference", "--shard", text])
    assert stop.value.code == 2
    assert "argument --shard" in capsys.readouterr().err


def test_a_shard_left_without_a_case_says_so_naming_shard_exit_2(capsys, tmp_path):
    code = main(["run", "--engine", "reference", "--case", "bg-27HQ", "--shard", "2/2",
                 "--report", str(tmp_path / "r.jsonl")])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["bgconf: --shard 2/2: this shard has no case: the selection has 1 case(s); give N at most 1"], err
    assert not (tmp_path / "r.jsonl").exists()


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("shards")
    whole = out / "whole.jsonl"
    # the scenarios too: a certificate covers them (certify --verify refuses a merged report without them)
    assert main(["run", "--engine", "reference", "--profile", "movement", "--scenarios", "--report", str(whole),
                 "--max-failures", "0"]) == 0
    parts = []
    for k in (1, 2, 3):
        parts.append(out / f"part-{k}.jsonl")
        assert main(["run", "--engine", "reference", "--profile", "movement", "--scenarios", "--shard", f"{k}/3",
                     "--report", str(parts[-1]), "--max-failures", "0"]) == 0
    return out, whole, parts


def test_the_shards_of_a_run_are_a_partition_of_its_cases(shards):
    _out, whole, parts = shards
    ids = [cases(p) for p in parts]
    assert sorted(sum(ids, [])) == sorted(cases(whole))
    plain = [[c["id"] for c in load_report(p) if c["type"] == "case" and not c["scenario"]] for p in [whole, *parts]]
    assert plain[0][1::3] == plain[2]
    assert all(load_report(p)[0]["selection"]["shard"] == f"{k}/3" for k, p in enumerate(parts, 1))
    assert all(load_report(p)[0]["selection"]["full"] is False for p in parts)


def test_merged_shards_are_the_whole_run_and_certify_verify_accepts_them(shards, capsys):
    out, whole, parts = shards
    merged = out / "merged.jsonl"
    assert main(["merge", *map(str, reversed(parts)), "--out", str(merged)]) == 0
    assert cases(merged) == cases(whole)
    head, foot = load_report(merged)[0], load_report(merged)[-1]
    assert head["selection"] == load_report(whole)[0]["selection"]
    assert foot["counts"] == load_report(whole)[-1]["counts"] and not foot["incomplete"]
    capsys.readouterr()
    assert main(["certify", "--verify", str(merged)]) == 0
    assert "is certified for profile movement" in capsys.readouterr().out
    assert main(["certify", "--verify", str(parts[0])]) == 1
    assert "--shard 1/3" in capsys.readouterr().out
    assert main(["diff", str(whole), str(merged)]) == 0
    assert "0 regressed, 0 fixed, 0 changed, 0 appeared, 0 disappeared" in capsys.readouterr().out
    assert main(["matrix", str(merged), str(whole), "--out", str(out / "site")]) == 0
    data = json.loads((out / "site" / "matrix.json").read_text())
    assert data["engines"][0]["counts"] == data["engines"][1]["counts"]


def test_certify_refuses_a_shard(capsys, tmp_path):
    assert main(["certify", "--engine", "reference", "--profile", "movement", "--shard", "1/2",
                 "--out", str(tmp_path)]) == 2
    assert "--shard" in capsys.readouterr().err


@pytest.mark.parametrize("which, message", [
    ([1, 3], "shards of 3: 2/3 missing"),
    ([1, 1, 2, 3], "1/3 given twice"),
])
def test_merge_refuses_missing_or_doubled_shards(shards, capsys, which, message, tmp_path):
    _out, _whole, parts = shards
    assert main(["merge", *[str(parts[k - 1]) for k in which], "--out", str(tmp_path / "m.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_merge_refuses_another_engine_or_overlapping_parts(shards, capsys, tmp_path):
    _out, whole, parts = shards
    other = tmp_path / "other.jsonl"
    lines = load_report(parts[1])
    lines[0]["engine"]["version"] = "9.9"
    other.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["merge", str(parts[0]), str(other), str(parts[2]), "--out", str(tmp_path / "m.jsonl")]) == 2
    assert "the reports differ in engine" in capsys.readouterr().err
    assert main(["merge", str(whole), str(whole), "--out", str(tmp_path / "m.jsonl")]) == 2
    assert "the parts overlap" in capsys.readouterr().err


def test_disjoint_runs_merge_into_a_narrowed_report(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    main(["run", "--engine", "reference", "--spec", "bar", "--report", str(a), "--max-failures", "0"])
    main(["run", "--engine", "reference", "--spec", "hit", "--report", str(b), "--max-failures", "0"])
    overlap = set(cases(a)) & set(cases(b))
    if overlap:  # a case naming both sections: keep the parts disjoint
        pytest.skip(f"cases in both sections: {sorted(overlap)[:3]}")
    merged = tmp_path / "m.jsonl"
    assert main(["merge", str(a), str(b), "--out", str(merged)]) == 0
    head = load_report(merged)[0]
    assert head["selection"]["spec"] == ["bar", "hit"] and head["selection"]["full"] is False
    assert sorted(cases(merged)) == sorted(cases(a) + cases(b))


def test_the_shards_of_a_fuzz_campaign_ask_exactly_its_inputs():
    engine = mutant("no-larger-die")
    whole = run_campaign(engine, "mutant", "legal_plays", 600, 3, batch=50, max_mismatches=100, do_shrink=False)
    parts = [run_campaign(engine, "mutant", "legal_plays", 600, 3, batch=50, max_mismatches=100, do_shrink=False,
                          shard=Shard(k, 3)) for k in (1, 2, 3)]
    assert sum(p.positions for p in parts) == whole.positions == 600
    assert sum(p.mismatched for p in parts) == whole.mismatched > 0
    # each kind of mismatch is first met, at the same place of the whole campaign, in one shard
    assert {f.found_at for f in whole.findings} <= {f.found_at for p in parts for f in p.findings}


def test_the_shards_of_a_playout_play_its_games(tmp_path, capsys):
    pytest.importorskip("pyspiel", reason="OpenSpiel not installed (pip install 'bgconf[openspiel]')")
    games = []
    for k in (1, 2):
        report = tmp_path / f"p{k}.jsonl"
        main(["playout", "--engine", "openspiel", "--games", "5", "--seed", "2", "--shard", f"{k}/2",
              "--report", str(report)])
        lines = [json.loads(x) for x in report.read_text().splitlines()]
        assert lines[0]["shard"] == f"{k}/2"
        games.append([x["game"] for x in lines if x["type"] == "game"])
    assert games == [[1, 3, 5], [2, 4]]


def test_the_shards_of_a_replay_judge_its_files(tmp_path):
    folder = HERE / "data" / "matches"
    seen = []
    for k in (1, 2, 3):
        report = tmp_path / f"r{k}.jsonl"
        main(["replay", str(folder), "--quiet", "--shard", f"{k}/3", "--report", str(report)])
        lines = [json.loads(x) for x in report.read_text().splitlines()]
        assert lines[0]["shard"] == f"{k}/3"
        seen.append([x["file"] for x in lines if x["type"] == "file"])
    whole = tmp_path / "whole.jsonl"
    main(["replay", str(folder), "--quiet", "--report", str(whole)])
    files = [x["file"] for x in map(json.loads, whole.read_text().splitlines()) if x["type"] == "file"]
    assert len(files) > 3 and seen == [files[0::3], files[1::3], files[2::3]]
