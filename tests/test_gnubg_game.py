"""GNU Backgammon on the game kinds: game_result, cube_action, opening_roll, match_transition.

Each answer comes from gnubg itself (a game scored as gnubg plays its last move, a cube command
accepted or refused by gnubg, an opening rolled by gnubg from a dice file, a game ended in
gnubg's match). The differential tests compare gnubg with the reference over grids of requests:
the only disagreement allowed is gnubg's dead cube in match play (it refuses a double when the
doubler's score plus the cube already reaches the match length; the reference allows it).

Skipped when the gnubg program is not installed, unless BGCONF_REQUIRE_GNUBG=1.
"""

import itertools
import random

import pytest

from conformance.engines.adapters.reference import ReferenceEngine
from conformance.cases import load_suite
from conformance.model import CUBE_ACTIONS, MOMENTS, RULE_DEFAULTS
from conformance.harness.runner import run_cases


GAME_KINDS = ("game_result", "cube_action", "opening_roll", "match_transition")


@pytest.fixture(scope="module")
def reference():
    return ReferenceEngine()


def rules(**changes):
    out = dict(RULE_DEFAULTS)
    out.update(changes)
    return out


def result_of(reply):
    assert "result" in reply, reply
    return reply["result"]


def finished(winner, loser_points, bar=0):
    loser = "o" if winner == "x" else "x"
    return {"on_roll": loser, winner: {"points": {}}, loser: {"points": loser_points, "bar": bar}}


def game_result(position, stake=(1, "center"), match=None, **rule_changes):
    return {"kind": "game_result", "rules": rules(**rule_changes), "position": position,
            "cube": {"value": stake[0], "owner": stake[1]}, "match": match or {"length": 0}}


def cube_action(moment, by, kind, stake=(1, "center"), match=None, on_roll="x", **rule_changes):
    """A cube_action request; ``stake`` is the cube (value, owner), keywords are rule options."""
    return {"kind": "cube_action", "rules": rules(**rule_changes), "on_roll": on_roll, "moment": moment,
            "cube": {"value": stake[0], "owner": stake[1]}, "match": match or {"length": 0},
            "action": {"by": by, "type": kind}}


def transition(match, winner, points, kind="single", **rule_changes):
    return {"kind": "match_transition", "rules": rules(**rule_changes), "match": match,
            "result": {"winner": winner, "points": points, "type": kind}}


def opening(throws, match=None, **rule_changes):
    return {"kind": "opening_roll", "rules": rules(**rule_changes), "throws": throws,
            "match": match or {"length": 0}}


def test_describe_declares_the_game_kinds_and_gnubg_settings(gnubg):
    info = gnubg.describe()
    assert {"game-result", "cube", "match", "opening-roll"} <= set(info["capabilities"])
    options = info["rule_options"]
    assert options["backgammon_multiplier"] == [3]
    assert options["opening_reroll"] == [False] and options["winner_starts"] == [False]
    assert options["automatic_doubles"] == list(range(13))
    assert set(options["jacoby"]) == set(options["beavers"]) == set(options["raccoons"]) == {False, True}
    assert 64 in options["max_cube"] and 4096 in options["max_cube"]


def test_scoring_as_gnubg_ends_the_game(gnubg):
    replies = gnubg.run_batch([
        # match play, cube 2 owned by o: a gammon for x is 4
        game_result(finished("x", {6: 5, 8: 10}), (2, "o"), {"length": 7, "score": {"x": 3, "o": 2}}),
        # a checker on the bar: backgammon, 3 times the cube
        game_result(finished("x", {6: 5, 8: 9}, bar=1), (4, "o"), {"length": 7, "score": {"x": 3, "o": 2}}),
        # one checker off: single
        game_result(finished("o", {1: 12}), (64, "o")),
        # Jacoby, money, centred: gnubg scores 1 ("a single game") but the board is a gammon
        game_result(finished("o", {6: 5, 8: 10}), jacoby=True),
        # Jacoby with the cube turned: gammons count
        game_result(finished("o", {6: 5, 8: 10}), (2, "x"), jacoby=True),
        # Jacoby does not apply in match play
        game_result(finished("o", {6: 5, 8: 10}), match={"length": 5, "score": {"x": 0, "o": 0}}, jacoby=True),
    ])
    got = [result_of(r) for r in replies]
    assert [(g["winner"], g["result"], g["points"]) for g in got] == [
        ("x", "gammon", 4), ("x", "backgammon", 12), ("o", "single", 64), ("o", "gammon", 1),
        ("o", "gammon", 4), ("o", "gammon", 2)]
    assert got[0]["message"].endswith("wins a gammon and 4 points.")
    assert got[3]["message"].endswith("wins a single game and 1 point.")


def test_scoring_unsupported_where_gnubg_cannot_see_the_game_end(gnubg):
    # o holds every point of x's home board: x's last checker could not have been borne off
    walled = finished("x", {19: 3, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}, bar=2)
    replies = gnubg.run_batch([
        game_result(walled),
        game_result(finished("x", {6: 5, 8: 9, 24: 1}), backgammon_multiplier=4),
        game_result(finished("x", {6: 5, 8: 10}), backgammon_multiplier=4),
        game_result(finished("x", {1: 12}), (8192, "x"), max_cube=None),
    ])
    assert "holds all six points" in replies[0]["unsupported"]
    assert "backgammon_multiplier 4" in replies[1]["unsupported"]
    assert result_of(replies[2])["points"] == 2  # a gammon: the multiplier does not matter
    assert "unsupported" in replies[3]  # gnubg's cube stops at 4096


def test_cube_actions_through_gnubg_commands(gnubg):
    replies = gnubg.run_batch([
        cube_action("before_roll", "x", "double"),
        cube_action("double_offered", "o", "take", (2, "x")),
        cube_action("double_offered", "o", "drop", (2, "x")),
        cube_action("double_offered", "o", "beaver", beavers=True, raccoons=True),
        cube_action("beaver_offered", "x", "raccoon", (4, "o"), beavers=True, raccoons=True),
        cube_action("beaver_offered", "x", "raccoon", (4, "o"), beavers=True),
        cube_action("raccoon_offered", "o", "drop", (8, "o"), beavers=True, raccoons=True),
        cube_action("before_roll", "o", "double"),
        cube_action("after_roll", "x", "double"),
        cube_action("before_roll", "o", "double", (2, "x"), on_roll="o"),
        cube_action("before_roll", "o", "double", match={"length": 7, "score": {"x": 6, "o": 2}, "crawford": True},
                    on_roll="o"),
        cube_action("double_offered", "o", "beaver", match={"length": 5, "score": {"x": 0, "o": 0}}, beavers=True),
        cube_action("before_roll", "x", "double", cube=False),
    ])
    got = [result_of(r) for r in replies]
    assert got[0] == {"allowed": True, "moment": "double_offered", "cube": {"value": 1, "owner": "center"}}
    assert got[1] == {"allowed": True, "moment": "before_roll", "cube": {"value": 4, "owner": "o"}}
    assert got[2] == {"allowed": True, "game_over": {"winner": "x", "points": 2}}
    assert got[3] == {"allowed": True, "moment": "beaver_offered", "cube": {"value": 2, "owner": "o"}}
    assert got[4] == {"allowed": True, "moment": "raccoon_offered", "cube": {"value": 8, "owner": "o"}}
    assert got[5]["allowed"] is False and "beaver" in got[5]["message"]
    assert got[6] == {"allowed": True, "game_over": {"winner": "x", "points": 8}}
    assert [g["allowed"] for g in got[7:]] == [False] * 6
    assert "own the cube" in got[9]["message"]
    assert "Crawford" in got[10]["message"]
    assert "match play" in got[11]["message"]
    assert "disabled" in got[12]["message"]


def test_gnubg_refuses_a_double_with_a_dead_cube_which_the_reference_allows(gnubg, reference):
    requests = [
        cube_action("before_roll", "x", "double", (8, "x"), {"length": 7, "score": {"x": 0, "o": 0}}),
        cube_action("before_roll", "x", "double", match={"length": 7, "score": {"x": 6, "o": 5},
                                                           "post_crawford": True}),
    ]
    for request, reply in zip(requests, gnubg.run_batch(requests)):
        assert result_of(reply) == {"allowed": False, "message": "The cube is dead; you can't double any more."}
        assert result_of(reference.run(request))["allowed"] is True
    # reaching a pending offer through such a double is impossible in gnubg
    pending = cube_action("double_offered", "o", "take", (4, "x"), {"length": 7, "score": {"x": 4, "o": 0}})
    assert "cube is dead" in gnubg.run(pending)["unsupported"]


def test_cube_limit_is_gnubg_s_own(gnubg):
    replies = gnubg.run_batch([
        cube_action("before_roll", "x", "double", (64, "x")),                    # max_cube 64
        cube_action("before_roll", "x", "double", (2048, "x"), max_cube=4096),
        cube_action("before_roll", "x", "double", (4096, "x"), max_cube=4096),
        cube_action("before_roll", "x", "double", (4096, "x"), max_cube=None),
        cube_action("before_roll", "x", "double", (32, "x")),                    # 64 fits max_cube 64
    ])
    assert "no max_cube setting" in replies[0]["unsupported"]
    assert result_of(replies[1])["allowed"] is True
    assert result_of(replies[2])["allowed"] is False
    assert "unsupported" in replies[3]
    assert result_of(replies[4])["allowed"] is True


def test_opening_throws_read_by_gnubg(gnubg):
    replies = gnubg.run_batch([
        opening([[3, 3], [5, 5], [6, 6], [1, 2]], automatic_doubles=2),
        opening([[3, 3], [6, 2]], {"length": 5}, automatic_doubles=2),
        opening([[4, 4], [5, 3]], automatic_doubles=2, cube=False),
        opening([[6, 5]]),
        opening([[3, 3], [5, 5], [1, 2]], automatic_doubles=2, max_cube=2),
        opening([[6, 5]], opening_reroll=True),
    ])
    assert result_of(replies[0]) == {"starts": "o", "dice": [2, 1], "cube": 4, "may_reroll": False}
    assert result_of(replies[1]) == {"starts": "x", "dice": [6, 2], "cube": 1, "may_reroll": False}
    assert result_of(replies[2])["cube"] == 1
    assert result_of(replies[3]) == {"starts": "x", "dice": [6, 5], "cube": 1, "may_reroll": False}
    assert "max_cube=2" in replies[4]["unsupported"]
    assert "reroll" in replies[5]["unsupported"]


def test_match_transitions_in_gnubg_s_match(gnubg):
    replies = gnubg.run_batch([
        transition({"length": 7, "score": {"x": 4, "o": 2}}, "x", 2, "gammon"),
        transition({"length": 7, "score": {"x": 6, "o": 2}, "crawford": True}, "o", 1),
        transition({"length": 7, "score": {"x": 6, "o": 2}, "post_crawford": True}, "x", 1),
        transition({"length": 7, "score": {"x": 4, "o": 2}}, "x", 2, crawford=False),
        transition({"length": 0, "score": {"x": 5, "o": 3}}, "o", 8, "drop"),
        transition({"length": 7, "score": {"x": 6, "o": 2}, "crawford": True}, "o", 4, "gammon"),
        transition({"length": 7, "score": {"x": 6, "o": 2}}, "o", 1, crawford=False),
        transition({"length": 7, "score": {"x": 4, "o": 2}}, "x", 1, winner_starts=True),
    ])
    common = {"match_over": False, "next_starts": "opening_roll"}
    assert result_of(replies[0]) == {"score": {"x": 6, "o": 2}, "crawford": True, "post_crawford": False, **common}
    assert result_of(replies[1]) == {"score": {"x": 6, "o": 3}, "crawford": False, "post_crawford": True, **common}
    over = result_of(replies[2])
    assert (over["score"], over["match_over"], over["winner"]) == ({"x": 7, "o": 2}, True, "x")
    assert result_of(replies[3]) == {"score": {"x": 6, "o": 2}, "crawford": False, "post_crawford": False, **common}
    assert result_of(replies[4]) == {"score": {"x": 5, "o": 11}, "crawford": False, "post_crawford": False,
                                     **common}
    assert "Crawford game" in replies[5]["unsupported"]
    assert "post-Crawford" in replies[6]["unsupported"]
    assert "winner-starts" in replies[7]["unsupported"]


def test_movement_requests_still_work_after_a_finished_match(gnubg):
    replies = gnubg.run_batch([
        transition({"length": 1, "score": {"x": 0, "o": 0}}, "x", 1),
        {"kind": "legal_plays", "rules": {}, "position": "start", "dice": [3, 1]},
    ])
    assert result_of(replies[0])["match_over"] is True
    assert len(result_of(replies[1])["plays"]) == 16


def _compare(gnubg, reference, requests, allowed=lambda request, ours, theirs: False):
    """Run requests on both engines; return (answered, differences not allowed)."""
    answered, bad = 0, []
    for request, reply in zip(requests, gnubg.run_batch(requests)):
        if "unsupported" in reply:
            continue
        assert "result" in reply, (request, reply)
        answered += 1
        ours = {k: v for k, v in reply["result"].items() if k not in ("message", "gnubg_next_game")}
        theirs = {k: v for k, v in result_of(reference.run(request)).items() if k != "reason"}
        if ours != theirs and not allowed(request, ours, theirs):
            bad.append(f"{request}: gnubg {ours}, reference {theirs}")
    return answered, bad


def _dead_cube(request, ours, theirs):
    match, action = request["match"], request["action"]
    return (action["type"] == "double" and ours == {"allowed": False} and theirs["allowed"]
            and match["length"] > 0
            and match["score"][action["by"]] + request["cube"]["value"] >= match["length"])


def test_cube_actions_agree_with_the_reference_but_for_dead_cubes(gnubg, reference):
    matches = [{"length": 0, "score": {"x": 0, "o": 0}}, {"length": 7, "score": {"x": 2, "o": 1}},
               {"length": 7, "score": {"x": 6, "o": 2}, "crawford": True},
               {"length": 7, "score": {"x": 6, "o": 4}, "post_crawford": True},
               {"length": 5, "score": {"x": 1, "o": 3}}]
    requests = [
        cube_action(moment, by, kind, stake, match, **options)
        for moment, kind, by, stake, match, options in itertools.product(
            MOMENTS, CUBE_ACTIONS, "xo", [(1, "center"), (2, "x"), (2, "o"), (4, "x")], matches,
            [{}, {"beavers": True}, {"beavers": True, "raccoons": True}, {"cube": False}])]
    answered, bad = _compare(gnubg, reference, requests, _dead_cube)
    assert answered > 1000
    assert not bad, f"{len(bad)} differ:\n" + "\n".join(bad[:10])


def test_scoring_agrees_with_the_reference_on_random_finished_games(gnubg, reference):
    rng = random.Random(2026)
    requests = []
    for _ in range(300):
        winner = rng.choice("xo")
        points, bar = {}, 0
        for _ in range(15 - rng.choice([0, 0, 0, 1, 5, 14])):
            where = rng.choice(range(1, 27))
            if where > 24:
                bar += 1
            else:
                points[where] = points.get(where, 0) + 1
        match = rng.choice([{"length": 0}, {"length": 5, "score": {"x": 1, "o": 2}},
                            {"length": 7, "score": {"x": 6, "o": 2}, "crawford": True}])
        value = 1 if match.get("crawford") else rng.choice([1, 2, 4, 64])
        owner = "center" if value == 1 else rng.choice(["x", "o", "center"])
        requests.append(game_result(finished(winner, points, bar), (value, owner), match,
                                    jacoby=rng.random() < 0.5))
    answered, bad = _compare(gnubg, reference, requests)
    assert answered >= 290
    assert not bad, f"{len(bad)} differ:\n" + "\n".join(bad[:10])


def test_openings_agree_with_the_reference(gnubg, reference):
    requests = [
        opening([[d, d] for d in range(1, ties + 1)] + [[2, 5] if ties % 2 else [6, 1]], {"length": length},
                automatic_doubles=doubles, cube=cube, max_cube=cap)
        for ties, doubles, length, cube, cap in itertools.product(
            range(4), range(4), (0, 5), (True, False), (1, 2, 64, None))]
    answered, bad = _compare(gnubg, reference, requests)
    assert answered > 200
    assert not bad, f"{len(bad)} differ:\n" + "\n".join(bad[:10])


def test_match_transitions_agree_with_the_reference(gnubg, reference):
    requests = []
    for length in (0, 1, 3, 5):
        for sx, so in itertools.product(range(max(length, 1)), repeat=2):
            states = [{}]
            if length and max(sx, so) == length - 1 and min(sx, so) < length - 1:
                states = [{"crawford": True}, {"post_crawford": True}]
            for state, winner, (points, kind), crawford in itertools.product(
                    states, "xo", [(1, "single"), (2, "gammon"), (3, "backgammon"), (4, "drop")], (True, False)):
                if state.get("crawford") and not crawford:
                    continue
                requests.append(transition({"length": length, "score": {"x": sx, "o": so}, **state},
                                           winner, points, kind, crawford=crawford))
    answered, bad = _compare(gnubg, reference, requests)
    assert answered > 300
    assert not bad, f"{len(bad)} differ:\n" + "\n".join(bad[:10])


def test_bundled_game_cases_pass_where_gnubg_answers(gnubg):
    suite = load_suite()
    cases = [c for c in suite.cases if c.kind in GAME_KINDS]
    assert cases
    results = run_cases(gnubg, cases)
    bad = [f"{r.case.id}: {r.status}: {r.outcome.message}" for r in results
           if r.status not in ("pass", "unsupported")]
    assert not bad, "\n".join(bad)
    assert sum(r.status == "pass" for r in results) > len(cases) // 2


def test_game_records_replayed_in_gnubg_match_the_cases(gnubg):
    """Every game_record case that gnubg can play passes, except where the case records that
    GNU Backgammon disagrees (its dead cube: a double that would win the match if dropped)."""
    records = [c for c in load_suite().cases if c.kind == "game_record"]
    results = run_cases(gnubg, records)
    failed = {r.case.id: r.outcome.message for r in results if r.status not in ("pass", "unsupported")}
    disagreeing = {c.id for c in records if "GNU Backgammon refuses" in c.raw.get("comment", "")}
    assert disagreeing and set(failed) == disagreeing, failed
    assert all("The cube is dead" in m for m in failed.values())
    unsupported = {r.case.id for r in results if r.status == "unsupported"}
    assert unsupported == {c.id for c in records if c.effective_rules["winner_starts"]
                           or c.effective_rules["backgammon_multiplier"] != 3}


def test_a_game_record_refusal_leaves_gnubg_where_it_was(gnubg):
    request = {"kind": "game_record", "case": "t", "rules": rules(), "match": {"length": 0},
               "games": [{"events": [
                   {"n": 1, "type": "opening", "dice": [3, 1], "text": "opening x3 o1"},
                   {"n": 2, "type": "play", "side": "x", "play": "8/4 6/5", "steps": [[8, 4], [6, 5]],
                    "text": "x plays 8/4 6/5"},
                   {"n": 3, "type": "roll_play", "side": "x", "dice": [3, 1], "play": "8/5 6/5",
                    "steps": [[8, 5], [6, 5]], "text": "x 31: 8/5 6/5"},
                   {"n": 4, "type": "roll_play", "side": "o", "dice": [6, 6], "play": "24/12(2)",
                    "steps": [[24, 12], [24, 12]], "text": "o 66: 24/12(2)"},
                   {"n": 5, "type": "roll_play", "side": "o", "dice": [6, 4], "play": "24/18 13/9",
                    "steps": [[24, 18], [13, 9]], "text": "o 64: 24/18 13/9"}]}]}
    events = result_of(gnubg.run(request))["events"]
    assert [e["accepted"] for e in events] == [True, False, True, False, True]
    assert events[1]["state"]["dice"] == [3, 1] and events[1]["state"]["moment"] == "after_roll"
    # o's 24/12(2) ends on o's 12-point, which is x's 13, held by x: refused, o back before its throw
    assert events[3]["state"]["moment"] == "before_roll" and events[3]["state"]["on_roll"] == "o"
    assert events[4]["state"]["position"]["o"]["points"] == {"24": 1, "18": 1, "13": 4, "9": 1, "8": 3, "6": 5}
