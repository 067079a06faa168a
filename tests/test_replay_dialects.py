"""Each .mat dialect read by the one grammar of ``record_reader``: the layouts of the programs and
sites people export from (cases/replays/dialect-*.mat: a real GNU Backgammon export and the same
games rebuilt in the layouts of an XG Mobile export, a FIBS client's record, Backgammon Studio,
Backgammon Galaxy and DailyGammon; each file's verdict says its source), and each dialect's words for no move, the cube, results and resignations."""

from __future__ import annotations

import pytest

from conformance.harness.record_judge import judge_record
from conformance.harness.record_reader import read_mat, read_record
from conformance.harness.replay_verdicts import replays_dir

ROOT = replays_dir()
GNUBG = ROOT / "dialect-gnubg-export.mat"


def judged(path):
    return judge_record(read_record(path))


def test_the_gnubg_export_is_legal_throughout_with_its_results():
    r = judged(GNUBG)
    assert [e for e in r.events if e.level in ("illegal", "error")] == []
    assert r.results == [{"game": 1, "winner": "o", "points": 1}, {"game": 2, "winner": "o", "points": 4}]
    assert (r.games, r.plays, r.no_plays, r.cube_actions) == (2, 74, 4, 6)


@pytest.mark.parametrize("name", ["dialect-xg-mobile.mat", "dialect-fibs-client.mat", "dialect-backgammon-studio.mat",
                                  "dialect-backgammon-galaxy.mat", "dialect-dailygammon.mat"])
def test_a_layout_rebuilt_from_a_public_example_reads_as_the_export_it_rewrites(name):
    original, rebuilt = judged(GNUBG), judged(ROOT / name)
    assert [e for e in rebuilt.events if e.level in ("illegal", "error")] == []
    assert rebuilt.results == original.results
    assert (rebuilt.games, rebuilt.plays, rebuilt.no_plays, rebuilt.cube_actions) == \
           (original.games, original.plays, original.no_plays, original.cube_actions)
    # the same events, side by side: the columns are the sides in every layout
    pairs = zip(read_record(GNUBG).games, read_record(ROOT / name).games)
    for a, b in pairs:
        assert [(e.type, e.side, e.dice, e.steps) for e in a.events] == [(e.type, e.side, e.dice, e.steps)
                                                                         for e in b.events]


def test_header_names_crossed_against_the_score_line_follow_the_columns():
    # Backgammon Galaxy's header names the right column's player as Player 1
    assert read_record(ROOT / "dialect-backgammon-galaxy.mat").names == {"x": "Dara Moss", "o": "Corin Vale"}
    text = ('; [Player 1 "{}"]\n; [Player 2 "{}"]\n\n1 point match\n\n Game 1\n a : 0                b : 0\n'
            '  1) 31: 8/5 6/5        64: 24/18 13/9\n')
    assert read_mat(text.format("b", "a"), "t.mat").names == {"x": "a", "o": "b"}
    # a header that does not cross the score line keeps its own names
    assert read_mat(text.format("ann", "bob"), "t.mat").names == {"x": "ann", "o": "bob"}


HEAD = '; [Beaver "{beaver}"]\n\n 0 point match\n\n Game 1\n a : 0                          b : 0\n'


def game(body: str, beaver: str = "On"):
    return judge_record(read_mat(HEAD.format(beaver=beaver) + body, "words.mat"))


def test_the_words_for_a_beaver_a_take_and_a_pass():
    body = ("  1) 31: 8/5 6/5                 Doubles => 2\n"
            "  2)  Beavers => 4               Accepts\n"
            "  3)                             64: 24/18 13/9\n"
            "  4)  Doubles => 8               Passes\n"
            "      Wins 4 points\n")
    r = game(body)
    assert [e for e in r.events if e.level != "note"] == [] and r.results == [{"game": 1, "winner": "x", "points": 4}]
    assert r.cube_actions == 5
    refused = game(body, beaver="Off")
    [e] = [e for e in refused.events if e.level == "illegal"]
    assert (e.kind, e.reason, e.anchor, e.side) == ("cube", "option-off", "cube.beaver", "x")


@pytest.mark.parametrize("no_move", ["", "(no move)", "Cannot Move", "none"])
def test_the_words_for_no_move_and_a_multiplicity(no_move):
    body = ("  1) 66: 24/18(2) 13/7(2)        55: 13/3(2)\n"
            f"  2) 54: 18/13 18/14             66: {no_move}\n")
    events = read_mat(HEAD.format(beaver="Off") + body, "words.mat").games[0].events
    assert [(e.side, e.dice, e.steps) for e in events] == [
        ("x", (6, 6), ((24, 18), (24, 18), (13, 7), (13, 7))), ("o", (5, 5), ((13, 3), (13, 3))),
        ("x", (5, 4), ((18, 13), (18, 14))), ("o", (6, 6), ())]


def test_commas_between_moves_and_a_resignation():
    body = ("  1) 31: 8/5, 6/5                64: 24/18 13/9\n"
            "  2) 61: 13/7* 8/7               43: bar/21 13/10\n"
            "  3)  Resigns\n"
            "                                  Wins 1 point\n")
    r = game(body)
    assert r.plays == 4 and [e for e in r.events if e.level in ("illegal", "error")] == []
    assert r.results == [{"game": 1, "winner": "o", "points": 1}]
