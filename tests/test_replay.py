"""bgconf replay: recorded matches judged by the reference (tests/data/matches, real games; NOTICE
there), malformed records, GNU Backgammon's self-play records, and pytest --bg-replay."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st


from conformance.cli import main  # noqa: E402
from conformance.model import Cube, Match, Position, RULE_DEFAULTS  # noqa: E402
from conformance.harness.record_judge import judge_record, replay_files, verdict_differences  # noqa: E402
from conformance.harness.record_reader import read_mat, read_record  # noqa: E402
from conformance.harness.strategies import positions  # noqa: E402
from reference_impl import legal_plays  # noqa: E402
from reference_impl.game import result_points  # noqa: E402
from reference_impl.record import counted_points, crawford_states, recorded_play  # noqa: E402

MATCHES = Path(__file__).parent / "data" / "matches"
KNOWN_ILLEGAL = MATCHES / "5nqfGw9bWG3deTaU.mat"
MONEY = ["B4_SrGcsKAQmoTyHlgJCbM.mat", "C07OQCKyw4Pe-CnjFiAMYO.mat", "Sz-2PgKnvb6aFls69-qFXg.mat"]


def judged(path: Path):
    return judge_record(read_record(path))


def bad(result):
    return [e for e in result.events if e.level in ("illegal", "error")]


# -- the real matches -----------------------------------------------------------------------------
def test_every_bundled_match_is_read_whole():
    files = sorted(MATCHES.glob("*.mat"))
    assert len(files) == 9
    for path in files:
        text = path.read_text(encoding="utf-8")
        r = judged(path)
        # every game header of the file is a game
        assert r.games == sum(1 for ln in text.splitlines() if ln.strip().startswith("Game "))
        assert r.plays > 40 and r.errors == 0, path.name
    assert sum(judged(p).plays for p in files) > 1500


def test_every_bundled_match_gets_its_expected_verdict():
    # each record's NAME.verdict.yaml: counts from the file's own lines, the illegal play NOTICE documents
    assert len(list(MATCHES.glob("*.verdict.yaml"))) == len(list(MATCHES.glob("*.mat")))
    assert verdict_differences(MATCHES) == []


def test_a_verdict_that_differs_is_named(tmp_path):
    for name in (KNOWN_ILLEGAL.name, "baR-U643iUDpvzTC.mat"):
        shutil.copy(MATCHES / name, tmp_path / name)
    known = yaml.safe_load((MATCHES / (KNOWN_ILLEGAL.stem + ".verdict.yaml")).read_text(encoding="utf-8"))
    known["illegal"][0]["spec"] = "move.larger-die"
    known["summary"]["plays"] += 1
    (tmp_path / (KNOWN_ILLEGAL.stem + ".verdict.yaml")).write_text(yaml.safe_dump(known), encoding="utf-8")
    got = verdict_differences(tmp_path)
    assert any(line.startswith(f"{KNOWN_ILLEGAL.name}: plays expected 230, got 229") for line in got)
    assert any(line.startswith(f"{KNOWN_ILLEGAL.name}: illegal expected") for line in got)
    assert len(got) == 3 and "baR-U643iUDpvzTC.verdict.yaml: cannot be read" in got[2]


def test_the_known_illegal_play_is_found_with_game_and_move():
    r = judged(KNOWN_ILLEGAL)
    [e] = bad(r)
    assert (e.level, e.game, e.move, e.line, e.kind) == ("illegal", 1, 11, 25, "play")
    assert e.dice == (1, 3) and e.recorded == "14/10 13/12"
    assert e.reason == "wrong-dice" and e.anchor == "move.separate-dice"
    plays = legal_plays(e.position, e.dice)
    # the nearest legal plays are legal plays of that roll, the recorded one is not among them
    assert e.nearest and all(n in {p for p in _notations(e.position, plays)} for n in e.nearest)
    assert "14/10 13/12" not in _notations(e.position, plays)
    # the rest of the game is still judged from the position the recorded play left
    assert r.plays == 229


def _notations(position, plays):
    from conformance.model import format_play

    return {format_play(position, s) for s in plays.values()}


@pytest.mark.parametrize("name", sorted(p.name for p in MATCHES.glob("*.mat") if p != KNOWN_ILLEGAL))
def test_the_other_matches_are_legal_throughout(name):
    r = judged(MATCHES / name)
    assert bad(r) == [], [e.message for e in bad(r)]
    assert r.cube_actions > 0


def test_each_notation_dialect_is_read():
    # hand transcription: bar/, /off, (2); server export: 25/ for the bar, /0 for off, no hit marks
    hand = KNOWN_ILLEGAL.read_text(encoding="utf-8")
    server = (MATCHES / "eXBNG5wZHS5Alu3P.mat").read_text(encoding="utf-8")
    assert "bar/" in hand and "/off" in hand and "(2)" in hand and "*" in hand
    assert "25/" in server and "/0 " in server and "*" not in server
    for path in (KNOWN_ILLEGAL, MATCHES / "eXBNG5wZHS5Alu3P.mat", MATCHES / "3WNK_g1Z-PLsh_HyvQ5j4a.mat"):
        rec = read_record(path)
        segments = [s for g in rec.games for a in g.actions for s in a.segments]
        assert any(a == 25 for a, _ in segments) and any(b == 0 for _, b in segments)


@pytest.mark.parametrize("name", MONEY)
def test_money_sessions_end_with_an_unfinished_game_noted(name):
    r = judged(MATCHES / name)
    notes = [e for e in r.events if e.kind == "unfinished"]
    assert len(notes) == 1 and notes[0].game == r.games and bad(r) == []


def test_the_crawford_game_comes_from_the_score_history():
    rec = read_record(MATCHES / "3WNK_g1Z-PLsh_HyvQ5j4a.mat")
    rules = {**RULE_DEFAULTS, **rec.rules}
    states = crawford_states(rec.length, [(g.score["x"], g.score["o"]) for g in rec.games], rules)
    crawford = [i for i, m in enumerate(states) if m.crawford]
    assert len(crawford) <= 1
    if crawford:
        first = crawford[0]
        assert max(rec.games[first].score.values()) == rec.length - 1
        assert all(m.post_crawford for m in states[first + 1:])
    assert crawford_states(5, [(0, 0), (4, 2), (4, 3), (4, 4)], RULE_DEFAULTS) == [
        Match(5, {"x": 0, "o": 0}), Match(5, {"x": 4, "o": 2}, crawford=True),
        Match(5, {"x": 4, "o": 3}, post_crawford=True), Match(5, {"x": 4, "o": 4}, post_crawford=True)]
    assert not any(m.crawford for m in crawford_states(5, [(0, 0), (4, 2)], {**RULE_DEFAULTS, "crawford": False}))


# -- edited copies of real records ----------------------------------------------------------------
def _edit(tmp_path: Path, name: str, old: str, new: str, count: int = 1) -> Path:
    text = (MATCHES / name).read_text(encoding="utf-8")
    assert old in text
    out = tmp_path / name
    out.write_text(text.replace(old, new, count), encoding="utf-8")
    return out


def _crawford_game(name: str) -> tuple[int, str]:
    rec = read_record(MATCHES / name)
    rules = {**RULE_DEFAULTS, **rec.rules}
    states = crawford_states(rec.length, [(g.score["x"], g.score["o"]) for g in rec.games], rules)
    return next(i for i, m in enumerate(states) if m.crawford), rec


def test_a_double_in_the_crawford_game_is_illegal(tmp_path):
    name = next(p.name for p in sorted(MATCHES.glob("*.mat")) if read_record(p).length
                and any(m.crawford for m in crawford_states(read_record(p).length, [
                    (g.score["x"], g.score["o"]) for g in read_record(p).games],
                    {**RULE_DEFAULTS, **read_record(p).rules})))
    index, rec = _crawford_game(name)
    game = rec.games[index]
    lines = (MATCHES / name).read_text(encoding="utf-8").splitlines()
    second = next(a for a in game.actions if a.kind == "play" and a.move == 2)
    line = lines[second.line - 1]
    # the mover of that line doubles instead, and the other side takes
    doubled = line.replace(second.text, "Doubles => 2")
    text = "\n".join(lines[:second.line - 1] + [doubled] + lines[second.line:])
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    events = [e for e in bad(judge_record(read_record(path))) if e.game == game.number]
    assert events and events[0].reason == "crawford-game" and events[0].anchor == "cube.crawford"
    assert events[0].line == second.line


def test_a_wrong_result_is_illegal_and_the_next_score_is_checked(tmp_path):
    path = _edit(tmp_path, "5nqfGw9bWG3deTaU.mat", "Wins 2 points", "Wins 3 points")
    events = bad(judged(path))
    kinds = {(e.game, e.kind) for e in events}
    assert (1, "result") in kinds and (2, "score") in kinds
    result = next(e for e in events if e.kind == "result")
    assert "3 point" in result.message and result.anchor.startswith("score.")


def test_a_result_capped_at_the_match_is_recognised():
    # the match-winning game may be written with only the points the winner needed
    m = Match(5, {"x": 4, "o": 1})
    assert counted_points(2, "x", m) == 1 and counted_points(2, "o", m) == 2
    assert counted_points(6, "x", Match()) == 6
    rec = read_mat((MATCHES / "MYdvw1qGuyaRUH__.mat").read_text(encoding="utf-8"), "m.mat")
    assert bad(judge_record(rec)) == []


def test_jacoby_is_applied_where_the_header_says_so(tmp_path):
    # a money game won with a gammon and the cube centred: 1 point under Jacoby, 2 without
    assert result_points("gammon", Cube(), Match(), {**RULE_DEFAULTS, "jacoby": True}) == 1
    assert result_points("gammon", Cube(2, "o"), Match(), {**RULE_DEFAULTS, "jacoby": True}) == 4
    assert result_points("backgammon", Cube(), Match(3, {"x": 0, "o": 0}), {**RULE_DEFAULTS, "jacoby": True}) == 3
    path = _edit(tmp_path, "Sz-2PgKnvb6aFls69-qFXg.mat", '[Jacoby "Off"]', '[Jacoby "On"]')
    assert read_record(path).rules["jacoby"] is True
    assert read_record(MATCHES / "Sz-2PgKnvb6aFls69-qFXg.mat").rules["jacoby"] is False


# -- malformed records ----------------------------------------------------------------------------
def test_a_truncated_record_names_its_last_line_and_keeps_the_other_games(tmp_path):
    lines = KNOWN_ILLEGAL.read_text(encoding="utf-8").splitlines()
    cut = next(i for i, ln in enumerate(lines) if ln.strip() == "Game 3") + 6
    path = tmp_path / "cut.mat"
    path.write_text("\n".join(lines[:cut]) + "\n 6) 3", encoding="utf-8")
    r = judged(path)
    errors = [e for e in r.events if e.level == "error"]
    assert len(errors) == 1 and errors[0].game == 3 and errors[0].line == cut + 1
    assert "truncated" in errors[0].message and "'3'" in errors[0].message
    # cut at a line boundary instead: the game has no end
    path.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
    [e] = [e for e in judged(path).events if e.level == "error"]
    assert e.kind == "truncated" and e.game == 3 and e.line == cut and "truncated" in e.message
    assert [e.game for e in r.events if e.level == "illegal"] == [1]  # games 1 and 2 judged in full


def test_an_unknown_token_is_an_error_at_its_line_and_the_rest_of_its_game_is_unjudged(tmp_path):
    path = _edit(tmp_path, "eXBNG5wZHS5Alu3P.mat", "  2) 16: 13/7 8/7", "  2) 16: 13/7 8/7 jump")
    r = judged(path)
    [e] = [e for e in r.events if e.level == "error"]
    assert e.line == 18 and "'jump'" in e.message and e.game == 1
    assert r.games == 3 and not [x for x in r.events if x.level == "illegal"]
    # every event of game 1 from that line on is counted unjudged, but the unread one itself
    original = read_record(MATCHES / "eXBNG5wZHS5Alu3P.mat").games[0].events
    assert r.unjudged == sum(1 for x in original if x.line >= 18) - 1 > 0
    path = _edit(tmp_path, "eXBNG5wZHS5Alu3P.mat", "  3) 56: 24/18 18/13", "  3) 56: 24/18 18/x3")
    [e] = [e for e in judged(path).events if e.level == "error"]
    assert e.line == 19 and "'x3'" in e.message


def test_cli_errors_name_file_and_line_and_the_other_files_go_on(tmp_path, capsys):
    broken = _edit(tmp_path, "eXBNG5wZHS5Alu3P.mat", "  3) 56: 24/18 18/13", "  3) 56: 24/18 18/x3")
    empty = tmp_path / "empty.mat"
    empty.write_text("; nothing here\n", encoding="utf-8")
    report = tmp_path / "r.jsonl"
    code = main(["replay", "--quiet", "--report", str(report), str(broken), str(empty),
                 str(MATCHES / "MYdvw1qGuyaRUH__.mat"), str(tmp_path / "missing.mat")])
    out, errs = capsys.readouterr()
    assert code == 3
    assert f"{broken}:19" in errs and f"{empty}" in errs and "missing.mat" in errs and "Traceback" not in errs
    assert "MYdvw1qGuyaRUH__.mat: 3 games" in out
    lines = [json.loads(ln) for ln in report.read_text().splitlines()]
    assert lines[0]["type"] == "replay-header" and lines[-1]["type"] == "footer"
    assert [ln["file"] for ln in lines if ln["type"] == "file"] == [str(broken), str(empty),
                                                                    str(MATCHES / "MYdvw1qGuyaRUH__.mat")]
    assert lines[-1]["errors"] == 3 and lines[-1]["interrupted"] is False


def test_cli_exit_1_report_and_cases_for_the_illegal_play(tmp_path, capsys):
    from conformance.cases import load_file
    from conformance.harness.compare import compare
    from conformance.engines.adapters.reference import ReferenceEngine

    report, cases = tmp_path / "r.jsonl", tmp_path / "found.bgcase.yaml"
    code = main(["replay", "--report", str(report), "--write-cases", str(cases), str(MATCHES)])
    out = capsys.readouterr().out
    assert code == 1
    assert "ILLEGAL" in out and "(game 1, move 11)" in out and "nearest legal plays:" in out
    assert "9 files: 43 games" in out
    events = [json.loads(ln) for ln in report.read_text().splitlines()]
    [ill] = [e for e in events if e.get("level") == "illegal"]
    assert ill["spec"] == "move.separate-dice" and ill["recorded"] == "14/10 13/12" and ill["dice"] == [1, 3]
    loaded, errors = load_file(cases)
    assert not errors and len(loaded) == 1
    assert loaded[0].expected == {"legal": False, "reason": "wrong-dice"} or loaded[0].kind == "play_check"
    assert compare(loaded[0], ReferenceEngine().run(loaded[0].request())).status == "pass"
    assert "5nqfGw9bWG3deTaU.mat, game 1, move 11" in cases.read_text()


def test_cli_help_documents_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    text = capsys.readouterr().out
    for code in ("0 ", "1 ", "2 ", "3 ", "4 ", "130", "143"):
        assert f"  {code}" in text


def test_replay_files_walks_the_list_in_order():
    files = sorted(MATCHES.glob("*.mat"))[:3]
    seen = []
    out = replay_files(files, each=lambda r: seen.append(r.file))
    assert seen == [str(f) for f in files] == [r.file for r in out]


def test_a_record_named_twice_is_judged_once(tmp_path, capsys):
    one = KNOWN_ILLEGAL
    report = tmp_path / "r.jsonl"
    assert main(["replay", "--quiet", "--report", str(report), str(one), str(MATCHES), str(one)]) == 1
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    files = [x["file"] for x in lines if x["type"] == "file"]
    assert len(files) == len(set(map(os.path.realpath, files))) == len(list(MATCHES.glob("*.mat")))
    assert lines[-1]["illegal"] == 1  # the one illegal play of that record, counted once


# -- the reading of a written play ------------------------------------------------------------
def _side(**points: int) -> tuple[int, ...]:
    counts = [0] * 26
    for name, n in points.items():
        counts[{"off": 0, "bar": 25}[name] if name in ("off", "bar") else int(name[1:])] = n
    return tuple(counts)


@pytest.mark.parametrize("written", [[(25, 21), (25, 21)], [(25, 23), (23, 21), (25, 21)]],
                         ids=["bar/21(2)", "bar/23/21 bar/21"])
def test_a_move_whose_dice_another_checker_plays_between_is_read_as_the_legal_play(written):
    """x has two checkers on the bar, a blot of o stands on x's 23, x rolls 2-2: both enter on 23
    (the first hits), then both go on to 21. Written as each checker's path, the first path
    cannot be played whole while the other checker is still on the bar (spec: move.bar-first);
    the play is legal all the same (spec: move.same-play, hit.intermediate)."""
    position = Position("x", _side(off=13, bar=2), _side(off=14, p2=1))
    judged = recorded_play(position, (2, 2), written)
    assert judged.verdict.legal, judged.verdict
    assert judged.result in legal_plays(position, (2, 2))
    assert judged.result.o[25] == 1  # o's blot was hit on the way
    # a path that plays fewer dice than the roll allows stays illegal
    assert not recorded_play(position, (2, 2), [(25, 21), (25, 23)]).verdict.legal


@settings(max_examples=150, deadline=None)
@given(positions(), st.tuples(st.integers(1, 6), st.integers(1, 6)), st.data())
def test_recorded_play_reads_every_legal_play_back(position, dice, data):
    plays = legal_plays(position, dice)
    result = data.draw(st.sampled_from(sorted(plays, key=str)))
    steps = list(plays[result])
    order = data.draw(st.permutations(steps))
    judged_play = recorded_play(position, dice, order)
    assert judged_play.verdict.legal and judged_play.result == result
    # one checker's moves written as one move (13/5 for 13/8 8/5) read as the same play
    merged, used = [], set()
    for i, (a, b) in enumerate(steps):
        if i in used:
            continue
        for j in range(i + 1, len(steps)):
            if j not in used and steps[j][0] == b and b != 0:
                used.add(j)
                b = steps[j][1]
                break
        merged.append((a, b))
    again = recorded_play(position, dice, merged)
    assert again.verdict.legal and again.result in plays


@settings(max_examples=150, deadline=None)
@given(positions(), st.tuples(st.integers(1, 6), st.integers(1, 6)),
       st.lists(st.tuples(st.integers(1, 25), st.integers(0, 24)), max_size=4))
def test_recorded_play_is_legal_only_for_a_legal_play(position, dice, segments):
    segments = [(a, b) for a, b in segments if b < a]
    got = recorded_play(position, dice, segments)
    plays = legal_plays(position, dice)
    if got.verdict.legal:
        assert got.result in plays
    else:
        assert got.verdict.reason is not None and (got.result is None or got.result not in plays)


# -- GNU Backgammon's own records --------------------------------------------------------------
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)
needs_gnubg = pytest.mark.skipif(not GNUBG and not os.environ.get("BGCONF_REQUIRE_GNUBG"),
                                 reason="GNU Backgammon is not installed")

SELF_PLAY = """
import json, gnubg
for c in ["set seed {seed}", "set display off", "set automatic game off", "set player 0 gnubg", "set player 1 gnubg",
          "set player 0 chequerplay evaluation plies 0", "set player 1 chequerplay evaluation plies 0",
          "set player 0 cubedecision evaluation plies 0", "set player 1 cubedecision evaluation plies 0",
          "{start}"]:
    gnubg.command(c)
for _ in range({turns}):
    games = gnubg.match(analysis=0, boards=0)["games"]
    over = games[-1]["info"].get("winner") is not None
    if over and len(games) >= {games}:
        break
    gnubg.command("new game" if over else "play")
m = gnubg.match(analysis=0, boards=0)
json.dump([[g["info"].get("winner"), g["info"].get("points-won")] for g in m["games"]], open({out!r} + ".json", "w"))
gnubg.command('save match "' + {out!r} + '.sgf"')
gnubg.command('export match mat "' + {out!r} + '.mat"')
"""


def _self_play(tmp_path: Path, seed: int, start: str, games: int) -> Path:
    base = tmp_path / f"selfplay-{seed}"
    script = tmp_path / f"selfplay-{seed}.py"
    script.write_text(SELF_PLAY.format(seed=seed, start=start, turns=3000, games=games, out=str(base)))
    subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(script)], capture_output=True, timeout=600, check=True,
                   stdin=subprocess.DEVNULL)
    return base


@needs_gnubg
@pytest.mark.parametrize("seed,start,games", [(7, "new match 5", 99), (11, "new match 3", 99),
                                              (5, "new session", 4)])
def test_gnubg_self_play_records_replay_legal_with_gnubgs_results(tmp_path, seed, start, games):
    base = _self_play(tmp_path, seed, start, games)
    gnubg_results = json.loads(Path(f"{base}.json").read_text())
    side = {"X": "x", "O": "o"}  # gnubg's player 0 is written first in its .mat, and is X
    for suffix in (".mat", ".sgf"):
        r = judged(Path(f"{base}{suffix}"))
        assert bad(r) == [], [e.message for e in bad(r)]
        assert r.games == len(gnubg_results) and r.plays > 20
        ours = [(x["winner"], x["points"]) for x in r.results]
        want = [(side[w], p) for w, p in gnubg_results if w is not None]
        assert ours == want


@needs_gnubg
def test_replay_against_gnubg_over_the_bundled_matches(capsys):
    code = main(["replay", "--quiet", "--engine", "gnubg", str(MATCHES)])
    out = capsys.readouterr().out
    assert "0 mismatches with gnubg" in out, out[-3000:]
    assert code == 1  # the known illegal play, and nothing else
    assert out.count("illegal event") >= 9 and "1 illegal event," in out


def test_replay_against_an_engine_prints_mismatches_as_cases(tmp_path, capsys, monkeypatch):
    from conformance.cases import load_file

    monkeypatch.chdir(Path(__file__).parent)  # the engine process imports engines_for_tests from here
    out_cases = tmp_path / "m.bgcase.yaml"
    code = main(["replay", "--quiet", "--engine", "python:engines_for_tests:no_bar_priority",
                 "--write-cases", str(out_cases), str(MATCHES / "MYdvw1qGuyaRUH__.mat")])
    out = capsys.readouterr().out
    assert code == 1 and "MISMATCH" in out and "\n---\nformat: 1\n" in out
    cases, errors = load_file(out_cases)
    assert not errors and cases
    assert all("MYdvw1qGuyaRUH__.mat, game" in str(c.provenance) for c in cases)


def test_pytest_bg_replay_collects_one_item_per_game(pytester):
    target = pytester.path / "matches"
    target.mkdir()
    for name in ("5nqfGw9bWG3deTaU.mat", "MYdvw1qGuyaRUH__.mat"):
        shutil.copy(MATCHES / name, target / name)
    result = pytester.runpytest("-p", "no:cacheprovider", "--bg-replay", str(target), "-q")
    result.assert_outcomes(passed=8, failed=1)
    text = result.stdout.str()
    assert "5nqfGw9bWG3deTaU.mat::game-1" in text and "move 11" in text and "14/10 13/12" in text
    listed = pytester.runpytest("-p", "no:cacheprovider", "--bg-replay", str(target), "--co", "-q")
    assert "matches/MYdvw1qGuyaRUH__.mat::game-3" in listed.stdout.str()


@needs_gnubg
def test_an_sgf_event_names_its_line_as_one_of_gnubgs_conversion(tmp_path, capsys):
    base = _self_play(tmp_path, 5, "new session", 1)
    text = Path(f"{base}.sgf").read_text(encoding="utf-8")
    match = re.search(r";([BW])\[(\d\d)([a-y]+)\]", text)  # the first play: its dice, then its moves
    assert match, text[:500]
    other = "11" if match[2] != "11" else "66"  # dice the recorded moves cannot be played with
    edited = tmp_path / "edited.sgf"
    edited.write_text(text[:match.start(2)] + other + text[match.end(2):], encoding="utf-8")
    assert main(["replay", str(edited)]) in (1, 3)
    out = capsys.readouterr()
    shown = [x for x in (out.out + out.err).splitlines() if x.startswith(("ILLEGAL", "ERROR"))]
    assert shown, out
    assert all(re.match(rf"[A-Z]+ {re.escape(str(edited))}, line \d+ of its \.mat conversion by GNU Backgammon",
                        x) for x in shown), shown


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_interruption_while_a_files_lines_are_written_comes_after_them(tmp_path, monkeypatch, jobs):
    """SIGINT that lands while a file's lines are written (its illegal event already in the
    report, its file line not yet) stops the replay after that file: the report holds every
    file whose events it holds, with its file line, and the footer counts them (exit 130)."""
    import signal

    import conformance.commands.replay as replay_command

    summary = replay_command.file_summary
    calls: list[str] = []

    def interrupted_summary(r):
        calls.append(r.file)
        if r.illegal and len(calls) == 2:  # the second file written, its events out already
            os.kill(os.getpid(), signal.SIGINT)
        return summary(r)

    monkeypatch.setattr(replay_command, "file_summary", interrupted_summary)
    records = tmp_path / "records"
    records.mkdir()
    clean = MATCHES / "MYdvw1qGuyaRUH__.mat"
    illegal = MATCHES.parent.parent.parent / "cases" / "replays" / "illegal-backward.mat"
    for i, src in enumerate([clean, illegal, clean, clean]):
        shutil.copyfile(src, records / f"{i}.mat")
    report = tmp_path / "r.jsonl"
    assert main(["replay", "--quiet", "--jobs", jobs, "--report", str(report), str(records)]) == 130
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    files = [x for x in lines if x["type"] == "file"]
    events = [x for x in lines if x["type"] == "event"]
    assert [Path(x["file"]).name for x in files][:2] == ["0.mat", "1.mat"]
    assert events and {x["file"] for x in events} <= {x["file"] for x in files}
    foot = lines[-1]
    assert foot["interrupted"] == "SIGINT" and foot["files"] == len(files)
    assert foot["illegal"] == sum(x["illegal"] for x in files) >= 1


def test_a_stop_signal_python_drops_during_a_replay_still_stops_it(tmp_path, monkeypatch):
    """SIGINT whose exception Python drops (here: in a weakref callback, while the second file is
    judged) stops the replay before the next file: exit 130, the files judged before it kept."""
    import conformance.harness.record_judge as judge
    from test_cli import _drop_a_stop_signal

    judged = judge.replay_file
    count: list[Path] = []

    def dropping(path, question=None):
        count.append(path)
        if len(count) == 2:
            _drop_a_stop_signal()
        return judged(path, question)

    monkeypatch.setattr(judge, "replay_file", dropping)
    records = tmp_path / "records"
    records.mkdir()
    for i in range(5):
        shutil.copyfile(MATCHES / "MYdvw1qGuyaRUH__.mat", records / f"{i}.mat")
    report = tmp_path / "r.jsonl"
    assert main(["replay", "--quiet", "--report", str(report), str(records)]) == 130
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert [Path(x["file"]).name for x in lines if x["type"] == "file"] == ["0.mat"]
    assert lines[-1]["interrupted"] == "SIGINT" and lines[-1]["files"] == 1
