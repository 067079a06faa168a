"""The variants (spec/rules.md section 11): nackgammon and 1-, 2- and 3-checker hypergammon.

The model's validity per variant, the case loader's, the reference's answers, GNU Backgammon's
agreement on every variant case (skipped without gnubg unless BGCONF_REQUIRE_GNUBG=1), the
commands' --variant (perft, fuzz, certify, run, playout, table) and OpenSpiel's hyper_backgammon
along random games (skipped without pyspiel).
"""

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.cases import load_suite
from conformance.cli import main
from conformance.engines.adapters.reference import ReferenceEngine
from conformance.harness.profiles import ALL_PROFILES, in_profile, split_profile, variant_profile
from conformance.harness.runner import run_cases
from conformance.harness.strategies import POSITION_BYTES, decode_example, decode_position
from conformance.model import (
    RULE_DEFAULTS, VARIANT_CHECKERS, VARIANTS, CodecError, GameStateError, ModelError, Position, PositionError,
    check_variant, decode_position_id, effective_rules, encode_position_id, read_position, read_position_text,
)
from reference_impl.perft import perft

ROOT = Path(__file__).resolve().parents[1]
VARIANT_CASES = sorted((ROOT / "cases" / "variants").glob("*.yaml"))
HYPER = [v for v in VARIANTS if v.startswith("hypergammon")]


# -- the model ---------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_each_variants_start_has_its_checker_count_and_is_valid_only_in_it(variant):
    start = Position.start(variant=variant)
    assert start.checkers == VARIANT_CHECKERS[variant]
    assert start.x[0] == start.o[0] == 0  # nothing borne off at the start
    check_variant(start, variant)
    for other in VARIANTS:
        if VARIANT_CHECKERS[other] != VARIANT_CHECKERS[variant]:
            with pytest.raises(PositionError, match=f"{variant.split('-')[0]}|{other}"):
                check_variant(start, other)


def test_the_starting_positions_are_the_spec_clauses():
    assert Position.start(variant="nackgammon").to_dict()["x"]["points"] == {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}
    assert Position.start(variant="hypergammon-3").to_dict()["o"]["points"] == {24: 1, 23: 1, 22: 1}
    assert Position.start(variant="hypergammon-2").to_dict()["x"]["points"] == {24: 1, 23: 1}
    assert Position.start(variant="hypergammon-1").to_dict()["x"]["points"] == {24: 1}


def test_an_omitted_off_is_the_variants_count_minus_the_board():
    form = {"on_roll": "x", "x": {"points": {2: 1}}, "o": {"points": {20: 2}}}
    assert Position.from_dict(form, "hypergammon-3").x[0] == 2
    assert Position.from_dict(form, "hypergammon-3").o[0] == 1
    assert Position.from_dict(form).x[0] == 14  # the standard game: 15 a side
    with pytest.raises(PositionError):
        check_variant(Position.from_dict(form), "hypergammon-3")


def test_sides_of_different_counts_and_counts_no_variant_has_are_refused():
    with pytest.raises(PositionError, match="same number"):
        Position.from_dict({"on_roll": "x", "x": {"points": {2: 1}, "off": 2}, "o": {"points": {20: 1}, "off": 0}})
    with pytest.raises(PositionError, match="hypergammon"):
        Position.from_dict({"on_roll": "x", "x": {"points": {2: 1}, "off": 3}, "o": {"points": {20: 1}, "off": 3}})
    with pytest.raises(PositionError, match="at most 3"):
        Position.from_dict({"on_roll": "x", "x": {"points": {2: 4}}, "o": {"points": {20: 1}}}, "hypergammon-3")


def test_variant_is_a_rule_option_with_standard_as_its_default():
    assert RULE_DEFAULTS["variant"] == "standard"
    assert effective_rules({"variant": "hypergammon-2"})["variant"] == "hypergammon-2"
    with pytest.raises(GameStateError, match="variant"):
        effective_rules({"variant": "hypergammon-4"})


@pytest.mark.parametrize("variant, ident", [("hypergammon-3", "AACgAgAAKgAAAA"), ("hypergammon-2", "AABAAQAACgAAAA"),
                                            ("hypergammon-1", "AACAAAAAAgAAAA"), ("nackgammon", "4Dl4ADbgOXgANg")])
def test_position_ids_are_read_with_the_variants_count(variant, ident):
    start = Position.start(variant=variant)
    assert encode_position_id(start) == ident
    assert decode_position_id(ident, checkers=VARIANT_CHECKERS[variant]) == start
    assert read_position({"gnubg_id": ident}, variant) == start
    assert read_position_text(ident, variant)[0] == start
    assert read_position("start", variant) == start


def test_a_board_above_the_variants_count_is_refused_by_the_id_reader():
    with pytest.raises(CodecError, match="at most 3"):
        decode_position_id("4HPwATDgc/ABMA", checkers=3)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=POSITION_BYTES, max_size=POSITION_BYTES), st.sampled_from(VARIANTS))
def test_fuzz_positions_have_the_variants_count_and_survive_the_id(data, variant):
    n = VARIANT_CHECKERS[variant]
    position, _scenario = decode_position(data, checkers=n)
    check_variant(position, variant)
    assert Position(position.on_roll, position.x, position.o) == position  # valid
    assert decode_position_id(encode_position_id(position), position.on_roll, n) == position
    assert position.swap_colours().checkers == n


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=64, max_size=64), st.sampled_from(HYPER))
def test_finished_games_of_hypergammon_are_scored_with_n_checkers(data, variant):
    n = VARIANT_CHECKERS[variant]
    question = decode_example("game_result", data, {}, variant)
    assert question.rules["variant"] == variant
    assert question.position.checkers == n
    result = ReferenceEngine().game_result(question.request())
    loser = question.position.side("o" if result["winner"] == "x" else "x")
    assert (result["result"] == "single") == (loser[0] > 0)
    if n == 1:  # spec: variant.hypergammon-scoring: no single game with one checker
        assert result["result"] != "single"


# -- the reference -----------------------------------------------------------------------
def _request(kind, variant, position, **more):
    return {"kind": kind, "rules": {**RULE_DEFAULTS, "variant": variant}, "position": position, **more}


def test_the_reference_refuses_a_position_of_another_variant():
    ref = ReferenceEngine()
    with pytest.raises(PositionError):
        ref.legal_plays(_request("legal_plays", "hypergammon-3", Position.start().to_wire(), dice=[3, 1]))
    with pytest.raises(PositionError):
        ref.legal_plays(_request("legal_plays", "standard", Position.start(variant="hypergammon-3").to_wire(),
                                 dice=[3, 1]))


def test_the_reference_scores_hypergammon_with_the_variants_checkers():
    ref = ReferenceEngine()
    finished = {"on_roll": "o", "x": {"points": {}, "off": 3}, "o": {"points": {20: 1, 5: 2}, "off": 0}}
    assert ref.game_result(_request("game_result", "hypergammon-3", finished, cube={"value": 2, "owner": "x"})) \
        == {"winner": "x", "result": "backgammon", "points": 6}


def test_perft_counts_of_each_variants_start_are_spec_perft_md():
    table = (ROOT / "spec" / "perft.md").read_text()
    for variant, counts in (("hypergammon-1", (21, 426, 9026)), ("hypergammon-2", (81, 6616)),
                            ("hypergammon-3", (195, 38017)), ("nackgammon", (547,))):
        got = tuple(perft(Position.start(variant=variant), d) for d in range(1, len(counts) + 1))
        assert got == counts
        row = next(line for line in table.splitlines() if line.startswith(f"| {variant} |"))
        assert all(f"{n:,}" in row for n in got), row


# -- the cases and the profiles -----------------------------------------------------------
@pytest.fixture(scope="module")
def variant_suite():
    return load_suite(VARIANT_CASES)


def test_at_least_sixty_variant_cases_with_each_variant_and_twins(variant_suite):
    cases = variant_suite.cases
    assert len(cases) >= 60
    by_variant = {v: [c for c in cases if c.effective_rules["variant"] == v] for v in VARIANTS}
    assert not by_variant["standard"]
    assert all(len(by_variant[v]) >= 8 for v in VARIANTS if v != "standard")
    assert sum("colour-swap" in c.tags for c in cases) >= 30
    kinds = {c.kind for c in cases}
    assert {"legal_plays", "play_check", "apply_play", "codec", "game_result", "cube_action",
            "match_transition", "opening_roll", "perft"} <= kinds


def test_every_variant_case_passes_on_the_reference(variant_suite):
    results = run_cases(ReferenceEngine(), variant_suite.cases)
    assert {r.status for r in results} == {"pass"}, [(r.case.id, r.message) for r in results if r.status != "pass"]


class StandardOnly(ReferenceEngine):
    """The reference, declaring no variant (the standard game only)."""

    def describe(self):
        info = super().describe()
        info["rule_options"] = {k: v for k, v in info["rule_options"].items() if k != "variant"}
        return info


def standard_only():
    return StandardOnly()


def test_an_engine_that_declares_no_variant_is_not_asked_the_variant_cases(variant_suite):
    results = run_cases(StandardOnly(), variant_suite.cases)
    assert {r.status for r in results} == {"unsupported"}


def test_a_variant_case_with_a_position_of_another_count_is_refused(tmp_path):
    bad = tmp_path / "bad.bgcase.yaml"
    bad.write_text(
        "format: 1\ncases:\n  - id: bg-2222\n    title: a standard position under hypergammon-3\n"
        "    kind: legal_plays\n    spec: [variant.checkers]\n    rules: {variant: hypergammon-3}\n"
        "    position: {on_roll: x, x: {points: {24: 2, 13: 5, 8: 3, 6: 5}}, o: {points: {24: 2, 13: 5, 8: 3, 6: 5}}}\n"
        "    dice: [3, 1]\n    expect: {plays: ['8/5 6/5']}\n"
        "    provenance: {source: test, verified_by: [reference]}\n")
    assert main(["validate", str(bad), "--no-reference"]) == 3


def test_profiles_split_by_variant(variant_suite):
    assert split_profile("movement") == ("movement", "standard")
    assert split_profile("movement-hypergammon-3") == ("movement", "hypergammon-3")
    assert variant_profile("match", "nackgammon") == "match-nackgammon"
    with pytest.raises(KeyError):
        variant_profile("bot", "hypergammon-3")
    for case in variant_suite.cases:
        variant = case.effective_rules["variant"]
        assert not in_profile(case, "complete")  # the standard game's profiles hold no variant case
        assert in_profile(case, f"complete-{variant}")
    assert all(p in ALL_PROFILES for p in ("movement-nackgammon", "codec-hypergammon-1"))


# -- the commands -------------------------------------------------------------------------
def test_perft_variant_on_the_command_line(capsys):
    assert main(["perft", "start", "--variant", "hypergammon-1", "--depth", "2"]) == 0
    assert capsys.readouterr().out.split("\n")[:2] == ["perft 1 21", "perft 2 426"]
    assert main(["perft", "4HPwATDgc/ABMA", "--variant", "hypergammon-3"]) == 2  # 15 checkers: not hypergammon


def test_fuzz_variant_on_the_command_line(capsys):
    assert main(["fuzz", "--engine", "reference", "--variant", "hypergammon-2", "--kind", "all",
                 "--examples", "60", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert out.count("hypergammon-2") >= 3 and "no mismatch" in out


def test_fuzz_refuses_a_variant_the_engine_does_not_declare(capsys, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))  # for the engine's process
    engine = "python:test_variants:standard_only"
    assert main(["fuzz", "--engine", engine, "--variant", "nackgammon"]) == 2
    assert "does not declare the variant nackgammon" in capsys.readouterr().err


def test_certify_variant_writes_the_variants_certificate(tmp_path, capsys):
    assert main(["certify", "--engine", "reference", "--profile", "movement", "--variant", "hypergammon-3",
                 "--out", str(tmp_path)]) == 0
    cert = tmp_path / "reference-movement-hypergammon-3.jsonl"
    header = json.loads(cert.read_text().splitlines()[0])
    assert "movement-hypergammon-3" in json.dumps(header)
    assert main(["certify", "--verify", str(cert)]) == 0
    assert main(["certify", "--engine", "reference", "--profile", "bot", "--variant", "hypergammon-3",
                 "--out", str(tmp_path)]) == 2
    assert main(["run", "--engine", "reference", "--variant", "nackgammon"]) == 2  # --variant needs --profile


def test_playout_refuses_a_variant_the_engine_does_not_play(capsys):
    assert main(["playout", "--engine", "pgx", "--variant", "hypergammon-3", "--games", "1"]) == 2
    assert main(["playout", "--engine", "openspiel", "--variant", "nackgammon", "--games", "1"]) == 2
    assert "does not play nackgammon" in capsys.readouterr().err


def test_the_variant_table_has_a_row_per_declared_variant():
    from conformance.reports.table import VARIANTS_HEAD, engine_run, variant_rows

    suite = load_suite()
    rows = variant_rows("reference", suite, engine_run("reference", suite))
    assert [r.split(" | ")[2] for r in rows] == [v for v in VARIANTS if v != "standard"]
    assert all(r.endswith("| certified | certified | certified |") for r in rows)
    assert len(VARIANTS_HEAD[0].split("|")) == len(rows[0].split("|"))


# -- GNU Backgammon -----------------------------------------------------------------------
def test_gnubg_declares_and_plays_every_variant(gnubg):
    assert set(gnubg.describe()["rule_options"]["variant"]) == set(VARIANTS)


def test_gnubg_agrees_on_every_variant_case(gnubg, variant_suite):
    """Every variant case but perft (gnubg has no perft of its own): GNU Backgammon, put in the
    case's variant with `set variation`, gives the expected answer."""
    cases = [c for c in variant_suite.cases if c.kind != "perft"]
    results = run_cases(gnubg, cases)
    assert {r.status for r in results} == {"pass"}, [(r.case.id, r.message) for r in results if r.status != "pass"]


def test_gnubg_scores_a_hypergammon_game_it_sees_end_and_refuses_a_standard_count(gnubg):
    one = {"on_roll": "o", "x": {"points": {}, "off": 1}, "o": {"points": {3: 1}, "off": 0}}
    reply = gnubg.run(_request("game_result", "hypergammon-1", one))
    assert reply["result"]["result"] == "gammon" and reply["result"]["points"] == 2
    assert "errored" in gnubg.run(_request("legal_plays", "hypergammon-2", Position.start().to_wire(), dice=[2, 1]))


def test_gnubg_perft_of_hypergammon_1_is_the_references(gnubg):
    from conformance.harness.perft import engine_perft

    assert engine_perft(gnubg, Position.start(variant="hypergammon-1"), 2, variant="hypergammon-1") == [21, 426]


# -- OpenSpiel ----------------------------------------------------------------------------
def test_openspiel_hyper_backgammon_plays_agree_with_the_reference():
    pytest.importorskip("pyspiel")
    from conformance.harness import playout
    from conformance.harness.openspiel import read_position

    game, _version = playout.load_openspiel("hypergammon-3")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    start = read_position(state, "x")
    assert (start.x, start.o) == (Position.start(variant="hypergammon-3").x,) * 2
    totals = playout.Totals()
    for number in range(1, 11):
        playout.play_game(game, 3, number, totals)
    plays = [m for m in totals.mismatches if m.kind == "legal_plays"]
    assert totals.positions > 100 and not plays
    # every finished game is compared with the reference in hypergammon-3 (3 checkers borne off)
    for record in totals.games:
        if record.status != "truncated":
            assert record.reference["winner"] in ("x", "o")


def test_openspiel_hypergammon_playout_report_names_its_game(tmp_path, capsys):
    """The report of a hypergammon playout says which game was played (the variant and OpenSpiel's
    hyper_backgammon parameter), so it cannot be read as the standard game's; OpenSpiel 2.0.2's
    returns of 0 to both sides at every end are game_result mismatches, its plays none."""
    pytest.importorskip("pyspiel")
    report = tmp_path / "hyper.jsonl"
    code = main(["playout", "--engine", "openspiel", "--variant", "hypergammon-3", "--games", "4", "--seed", "1",
                 "--report", str(report)])
    lines = [json.loads(x) for x in report.read_text(encoding="utf-8").splitlines()]
    header, footer = lines[0], lines[-1]
    assert header["variant"] == "hypergammon-3"
    assert header["engine"]["parameters"] == {"scoring_type": "full_scoring", "hyper_backgammon": True}
    kinds = {x["kind"] for x in lines if x["type"] == "mismatch"}
    finished = [x for x in lines if x["type"] == "game" and x["status"] != "truncated"]
    assert kinds <= {"game_result"}
    assert footer["mismatches"] == len(finished) == 4 and code == 1
    assert all(x["engine"]["points"] == 0 and x["reference"]["points"] in (1, 2, 3) for x in finished)
    capsys.readouterr()


@pytest.mark.parametrize("command", ["perft", "bisect"])
def test_perft_and_bisect_refuse_a_variant_the_engine_does_not_declare(command, capsys, monkeypatch, tmp_path):
    """An engine is asked only about the variants it declares (spec/protocol.md, rule options):
    the reference, declaring the standard game alone, is refused hypergammon-3, exit 2, before
    anything is asked."""
    from conformance.cli import main

    (tmp_path / "standard_only.py").write_text(
        "from conformance.engines.adapters.reference import ReferenceEngine\n\n\n"
        "class StandardOnly(ReferenceEngine):\n"
        "    def describe(self):\n"
        "        info = super().describe()\n"
        "        options = {k: v for k, v in info.get('rule_options', {}).items() if k != 'variant'}\n"
        "        return dict(info, name='standard-only', rule_options=options)\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    code = main([command, "--engine", "python:standard_only:StandardOnly", "start", "--variant", "hypergammon-3",
                 "--depth", "1"])
    assert code == 2
    assert "does not declare the variant hypergammon-3" in capsys.readouterr().err
