"""bgconf playout on OpenSpiel: the conversion of OpenSpiel's state, a short deterministic
playout, and that mismatches become valid ready cases.

Outcome established with open-spiel 2.0.2: no disagreement with the reference, neither in
the legal plays at any turn nor in any game's result (seed 1, 200 games: 19137 positions;
seed 2, 1000 games: 99106 positions). Skipped when pyspiel is not installed, except the
tests that need no OpenSpiel (install hint, help, spec anchors).
"""

import json
import sys

import pytest

from conformance.cli import main
from conformance.model import Position, apply_steps

ROLL_COUNTS_FROM_START = 447  # distinct plays over the 21 rolls (perft depth 1 of the start)


def test_without_openspiel_one_line_and_exit_4(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    assert main(["playout", "--engine", "openspiel", "--games", "1"]) == 4
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines() == ["bgconf: OpenSpiel is not installed: pip install 'bgconf[openspiel]'"]


def test_help_teaches(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["playout", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for needle in ("state.board()", "index 100", "two decisions", "--seed", "--write-cases", "exit codes",
                   "pip install 'bgconf[openspiel]'"):
        assert needle in text


def test_spec_anchor_from_the_rule_involved():
    from conformance.harness.playout import anchors_for

    assert anchors_for((6, 5), [], ["must-use-larger-die"], 1) == ["move.larger-die"]
    assert anchors_for((6, 5), [((25, 19), (19, 14))], [], 1) == ["move.maximum-dice", "bar.entry-point"]
    assert anchors_for((4, 4), [((3, 0),)], [], 1) == ["bearoff.higher-die", "move.doubles"]
    assert anchors_for((6, 5), [((13, 7), (7, 2))], [], 2) == ["move.maximum-dice"]  # cannot tell


pyspiel = pytest.importorskip("pyspiel")

from conformance.harness import playout  # noqa: E402
from conformance.cases import load_file  # noqa: E402
from reference_impl import legal_plays  # noqa: E402


@pytest.fixture(scope="module")
def game():
    return playout.load_openspiel()[0]


def _opening(game, outcome):
    state = game.new_initial_state()
    roll = state.action_to_string(pyspiel.PlayerId.CHANCE, outcome)
    state.apply_action(outcome)
    return state, roll


def test_opening_outcomes_decode_to_the_start_for_both_sides(game):
    state = game.new_initial_state()
    outcomes = [a for a, _ in state.chance_outcomes()]
    assert len(outcomes) == 30  # 15 non-double rolls x who starts; no double opens (opening.roll)
    movers = set()
    for outcome in outcomes:
        state, roll = _opening(game, outcome)
        mover = playout.SIDE[state.current_player()]
        movers.add(mover)
        assert playout.read_position(state, mover) == Position.start(mover)
        dice = playout.read_dice(state)
        thrown = roll.split("(roll: ")[1][:2]
        assert dice[0] != dice[1] and sorted(dice) == sorted(int(c) for c in thrown)
    assert movers == {"x", "o"}


def test_21_rolls_give_447_plays_from_the_start_and_match_the_reference(game):
    """The 15 non-double rolls come from OpenSpiel's real opening (both starters). OpenSpiel
    never opens with a double, so for the 6 doubles the test applies the double outcomes of
    its normal roll table (30..35: 1-1 .. 6-6) at the opening chance node; apply_action does
    not restrict chance outcomes. The double's extra turn is then expanded as in a playout."""
    per_roll = {}
    for outcome in range(36):
        state, _ = _opening(game, outcome)
        mover = playout.SIDE[state.current_player()]
        position = playout.read_position(state, mover)
        assert position == Position.start(mover)
        dice = playout.read_dice(state)
        plays = playout.openspiel_plays(state)
        assert set(plays) == set(legal_plays(position, dice)), dice
        assert all(p.on_roll != mover for p in plays)
        per_roll.setdefault(tuple(sorted(dice)), set()).add(len(plays))
    assert len(per_roll) == 21
    assert all(len(counts) == 1 for counts in per_roll.values())  # x and o agree on every roll
    assert sum(min(c) for c in per_roll.values()) == ROLL_COUNTS_FROM_START


def test_a_move_reads_back_in_the_movers_numbering(game):
    state, _ = _opening(game, 0)  # x starts with 1-2
    assert state.current_player() == 0
    plays = playout.openspiel_plays(state)
    start = Position.start("x")
    texts = {playout.format_play(start, p.steps) for p in plays.values()}
    assert "24/23 24/22" in texts and "13/11 6/5" in texts
    for result, p in plays.items():
        assert apply_steps(start, p.steps) == result  # OpenSpiel's own steps, decoded, give its board


def test_openspiel_steps_decode_to_its_own_boards_with_bar_and_off(game, monkeypatch):
    """Each play's OpenSpiel checker moves, decoded (index 100 = bar -> 25, past the last
    point -> off = 0), applied to the position read before the turn give the board OpenSpiel
    reads after it: numbering, bar and off agree between board() and the actions."""
    real = playout.openspiel_plays
    seen = {"bar": 0, "off": 0, "double": 0}

    def checked(state):
        plays = real(state)
        position = playout.read_position(state, playout.SIDE[state.current_player()])
        for result, p in plays.items():
            assert apply_steps(position, p.steps) == result, (position, p.actions)
            seen["bar"] += any(a == 25 for a, _ in p.steps)
            seen["off"] += any(b == 0 for _, b in p.steps)
            seen["double"] += len(p.actions) == 2
        return plays

    monkeypatch.setattr(playout, "openspiel_plays", checked)
    totals = playout.Totals()
    for n in (1, 2):
        playout.play_game(game, 1, n, totals)
    assert totals.mismatches == []
    assert all(seen.values()), seen


def test_short_playout_agrees_with_the_reference_and_is_deterministic(game):
    totals = playout.Totals()
    records = [playout.play_game(game, 1, n, totals) for n in range(1, 21)]
    assert totals.games == records
    assert totals.mismatches == []
    assert all(r.status == "ok" for r in records)
    assert totals.positions == sum(r.plies for r in records) > 1000
    # the conversion met every situation it has to get right: bar, hits, bearing off, doubles
    for situation in ("doubles", "bar", "hit", "bear-off", "pass", "partial-doubles"):
        assert totals.coverage[situation] > 0, situation
    results = {r.reference["result"] for r in records}
    assert results == {"single", "gammon", "backgammon"}
    again = playout.Totals()
    replay = [playout.play_game(game, 1, n, again) for n in (3, 17)]
    assert [(r.plies, r.reference) for r in replay] == [(records[2].plies, records[2].reference),
                                                      (records[16].plies, records[16].reference)]


def test_a_wrong_play_set_becomes_a_valid_ready_case(game, monkeypatch, tmp_path):
    real = playout.openspiel_plays
    done = []

    def faulty(state):
        plays = real(state)
        if not done and len(plays) > 2:
            mover = playout.SIDE[state.current_player()]
            position = playout.read_position(state, mover)
            dropped = sorted(plays, key=str)[0]
            del plays[dropped]  # a legal play goes missing
            plays[position.passed()] = playout.EnginePlay([], ["Pass"])  # and an illegal pass appears
            done.append((position, dropped))
        return plays

    monkeypatch.setattr(playout, "openspiel_plays", faulty)
    totals = playout.Totals()
    playout.play_game(game, 5, 1, totals)
    assert len(totals.mismatches) == 1
    m = totals.mismatches[0]
    assert (m.game, m.ply, m.kind) == (1, 1, "legal_plays")
    assert m.position == done[0][0] and len(m.missing) == 1 and m.extra == ["none"]
    assert m.reasons == ["must-use-more-dice"] and "move.maximum-dice" in m.anchors
    case = playout.make_case(m, 5, next(playout.fresh_ids(5)), "test")
    assert case["provenance"] == {"source": "OpenSpiel playout, seed 5, game 1, ply 1", "verified_by": ["reference"]}
    path = tmp_path / "found.bgcase.yaml"
    path.write_text(playout.cases_yaml([case], 5, "test"), encoding="utf-8")
    cases, errors = load_file(path)
    assert errors == [] and len(cases) == 1
    loaded = cases[0]
    assert loaded.position == m.position and set(loaded.expected.exact) == set(legal_plays(m.position, m.dice))


def test_a_wrong_game_result_becomes_a_valid_ready_case(game, monkeypatch, tmp_path):
    import reference_impl.game as rgame

    real = rgame.game_result
    monkeypatch.setattr(rgame, "game_result", lambda *a: {**real(*a), "points": 99})
    totals = playout.Totals()
    playout.play_game(game, 1, 1, totals)
    assert [m.kind for m in totals.mismatches] == ["game_result"]
    monkeypatch.setattr(rgame, "game_result", real)
    m = totals.mismatches[0]
    m.detail["reference"] = real(m.position, playout.Cube(), playout.Match(), playout.effective_rules({}))
    case = playout.make_case(m, 1, next(playout.fresh_ids(1)), "test")
    path = tmp_path / "end.bgcase.yaml"
    path.write_text(playout.cases_yaml([case], 1, "test"), encoding="utf-8")
    cases, errors = load_file(path)
    assert errors == [] and cases[0].kind == "game_result"


def test_cli_run_report_and_cases(tmp_path, capsys):
    report, written = tmp_path / "os.jsonl", tmp_path / "os.bgcase.yaml"
    code = main(["playout", "--engine", "openspiel", "--games", "3", "--seed", "1",
                 "--report", str(report), "--write-cases", str(written)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "3 games played" in out and "0 mismatches" in out and "positions compared" in out
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert [x["type"] for x in lines] == ["header", "game", "game", "game", "footer"]
    assert lines[-1]["mismatches"] == 0 and lines[-1]["positions"] == sum(x["positions"] for x in lines[1:4])
    cases, errors = load_file(written)
    assert cases == [] and errors == []


# -- pgx ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pgx_engine():
    pytest.importorskip("pgx", reason="pgx not installed (pip install 'bgconf[pgx]')")
    from conformance.engines.adapters.pgx import load_engine

    return load_engine()


def test_pgx_playout_finds_its_mask_bugs_and_replays(pgx_engine, tmp_path):
    """Two pgx games (its own opening and dice): every turn compared; the differences are pgx's
    known ones (plays using fewer dice than the rules require, or the smaller die), each a ready
    case that loads and passes on the reference; a game replays alone to the same end."""
    from conformance.cases import load_file
    from conformance.harness.runner import run_cases
    from conformance.engines.adapters.reference import ReferenceEngine

    totals = playout.Totals()
    records = [playout.play_game_pgx(pgx_engine, 1, n, totals) for n in (1, 2)]
    assert totals.positions == sum(r.plies for r in records) > 100
    assert all(r.reference and r.winner == r.reference["winner"] for r in records)
    assert totals.mismatches, "pgx 2.6.0 accepts under-using first moves; two games meet one"
    for m in totals.mismatches:
        assert m.kind == "legal_plays" and m.extra and not m.missing
        assert set(m.reasons) <= {"must-use-more-dice", "must-use-larger-die"}
        assert {"move.maximum-dice", "move.larger-die"} & set(m.anchors)
    ids = playout.fresh_ids(1)
    cases = [playout.make_case(m, 1, next(ids), "2.6.0") for m in totals.mismatches]
    assert cases[0]["provenance"]["source"].startswith("pgx playout, seed 1, game 1")
    path = tmp_path / "pgx.bgcase.yaml"
    path.write_text(playout.cases_yaml(cases, 1, "2.6.0", "pgx"), encoding="utf-8")
    loaded, errors = load_file(path)
    assert errors == [] and len(loaded) == len(cases)
    assert {r.status for r in run_cases(ReferenceEngine(), loaded)} == {"pass"}
    again = playout.Totals()
    replay = playout.play_game_pgx(pgx_engine, 1, 2, again)
    assert (replay.plies, replay.reference, replay.engine_points) == (
        records[1].plies, records[1].reference, records[1].engine_points)
