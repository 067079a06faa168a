"""The game kinds answered by gnubg's play: game_result, cube_action, opening_roll and
match_transition, each planned as one situation gnubg is put in (driver ops ``finish_game``,
``cube_action``, ``opening_roll``).

Every game request is answered by putting gnubg in the situation and letting it act: a game is
scored by playing its last move, a cube action by issuing gnubg's cube command, an opening by
gnubg rolling the given throws, a match transition by ending a game in gnubg's match. The
adapter only translates the request into that situation and reads gnubg's state back; where
gnubg cannot be put in the situation, or its answer would rest on a rule option gnubg has no
setting for, the reply is unsupported. Each ``_plan_*(req)`` returns ``(finish, messages)`` as
plans.py describes. Side x is gnubg's player 0, o its player 1 (translate.PLAYER).
"""

from __future__ import annotations

from conformance.engines.adapters.gnubg.translate import (
    _RESULT, GNUBG_MAX_AUTO_DOUBLES, GNUBG_MAX_CUBE, PLAYER, SIDE, _beavers, _cap_note, _cube_dict, _cube_of,
    _Failure, _game_spec, _match_of, _moment, _owner, _position, _rules, _side_arg, _Unsupported,
)
from conformance.model import CUBE_ACTIONS, MOMENTS, OFF, SIDES, other, variant_checkers


def _plan_game_result(req: dict):
    """Score a finished game: gnubg is put one play earlier (the winner's last checker back on a
    home point the loser does not hold, 6-6 to roll, so that bearing it off is the only play)
    and plays ``p/off``; gnubg's own message
    ("wins a gammon and 4 points") gives the result and the points. Under the Jacoby rule in
    money play gnubg calls a gammon on a centred cube "a single game", so the same game is played
    once more without Jacoby to read gnubg's verdict on the board."""
    rules = _rules(req)
    position = _position(req.get("position"), rules["variant"])
    cube = _cube_of(req)
    match = _match_of(req)
    winners = [s for s in SIDES if position.side(s)[OFF] == position.checkers]
    if len(winners) != 1:
        raise _Failure(f"bad request: the game is not over (one side must have borne off all"
                       f" {position.checkers} checkers)")
    winner = winners[0]
    loser = other(winner)
    lside = position.side(loser)
    free = [p for p in range(1, 7) if lside[25 - p] == 0]  # the winner's point p is the loser's 25 - p
    if not free:
        raise _Unsupported(
            f"gnubg scores only a game it sees end, and no play can end this one: {loser} holds all six"
            f" points of {winner}'s home board, so {winner}'s last checker had nowhere to bear off from")
    point = free[0]
    mine = [0] * 25
    mine[point - 1] = 1
    board = [list(lside[1:26]), mine]

    def message(jacoby: bool) -> dict:
        return {"op": "finish_game", "game": _game_spec(match, rules, jacoby=jacoby),
                "winner": PLAYER[winner], "cube": cube.value, "owner": _owner(cube), "board": board,
                "point": point}

    msgs = [message(rules["jacoby"])]
    if rules["jacoby"] and match.money:
        msgs.append(message(False))

    def finish(got: list[dict]) -> dict:
        scored, judged = got[0], got[-1]
        if SIDE[scored["winner"]] != winner or SIDE[judged["winner"]] != winner:
            raise _Failure(f"gnubg gave the game to the side that did not bear off: {scored['message']}")
        result = _RESULT[judged["result"]]
        if result == "backgammon" and rules["backgammon_multiplier"] != 3:
            raise _Unsupported(f"gnubg counts a backgammon 3 times the cube; it has no setting for"
                               f" backgammon_multiplier {rules['backgammon_multiplier']}")
        return {"winner": winner, "result": result, "points": int(scored["points"]),
                "message": scored["message"]}

    return finish, msgs


#: How gnubg is brought to each moment from the side on roll's turn before rolling.
_MOMENT_STEPS = {"before_roll": [], "after_roll": [], "double_offered": ["double"],
                 "beaver_offered": ["double", "redouble"],
                 "raccoon_offered": ["double", "redouble", "redouble"]}
_COMMAND = {"double": "double", "take": "take", "drop": "drop", "beaver": "redouble",
            "raccoon": "redouble"}


def _plan_cube_action(req: dict):
    """Put gnubg at the moment (start position, cube, score, Crawford flag; dice set for
    after_roll; the side on roll's ``double`` for double_offered, then the opponent's
    ``redouble`` for beaver_offered and the doubler's for raccoon_offered), issue the action as
    gnubg's command (beaver and raccoon are both gnubg's ``redouble``) and read gnubg's state.
    The offered moments are reached only through gnubg accepting those steps under the request's
    own rules; at beaver_offered and raccoon_offered gnubg's sequence decides the owner (the
    beaverer), whatever the request says. A cube held at value V while an offer is pending is
    gnubg's V as well: the stake if the offer is dropped."""
    on_roll = _side_arg(req.get("on_roll"), "on_roll")
    moment = req.get("moment")
    if moment not in MOMENTS:
        raise _Failure(f"bad request: moment must be one of {', '.join(MOMENTS)}, not {moment!r}")
    action = req.get("action") or {}
    by = _side_arg(action.get("by"), "action.by")
    kind = action.get("type")
    if kind not in CUBE_ACTIONS:
        raise _Failure(f"bad request: action type must be one of {', '.join(CUBE_ACTIONS)}, not {kind!r}")
    cube = _cube_of(req)
    match = _match_of(req)
    rules = _rules(req)
    steps = _MOMENT_STEPS[moment]
    redoubles = steps.count("redouble")
    value, owner = cube.value, _owner(cube)
    if redoubles:
        if value < 2 ** redoubles:
            raise _Unsupported(f"gnubg reaches {moment} only by a double and {redoubles} redouble(s), which"
                               f" leave the cube at 2 or more, not {value}")
        value, owner = value >> redoubles, -1
    beavers = _beavers(rules)
    msg = {"op": "cube_action", "game": _game_spec(match, rules, beavers=beavers), "turn": PLAYER[on_roll],
           "cube": value, "owner": owner, "dice": [4, 2] if moment == "after_roll" else None,
           "steps": steps, "beavers": beavers, "actor": PLAYER[by], "command": _COMMAND[kind],
           "animal": kind if kind in ("beaver", "raccoon") else None}
    cap = rules["max_cube"]

    def finish(got: list[dict]) -> dict:
        g = got[0]
        before, after = g["before"], g["after"]
        said = "; ".join(g["messages"])
        if before["cube"] != cube.value or _moment(before) != moment:
            raise _Failure(f"gnubg was put at {_moment(before)} with the cube at {before['cube']},"
                           f" not at {moment} with {cube.value}")
        if not g["accepted"]:
            if "highest supported value" in said and cap != GNUBG_MAX_CUBE:
                raise _Unsupported(f"{_cap_note(cap)}; it refuses at its own limit ({said})")
            return {"allowed": False, "message": said}
        top = before["cube"] * {"double": 2, "beaver": 4, "raccoon": 4}.get(kind, 1)
        if cap is not None and top > cap and cap != GNUBG_MAX_CUBE:
            raise _Unsupported(f"{_cap_note(cap)}; it allows this {kind} (the cube would reach {top})")
        if "game" in g:
            return {"allowed": True, "game_over": {"winner": SIDE[g["game"]["winner"]],
                                                   "points": int(g["game"]["points"])}}
        return {"allowed": True, "moment": _moment(after), "cube": _cube_dict(after)}

    return finish, [msg]


def _plan_opening_roll(req: dict):
    """gnubg starts a game reading the throws from a dice file (`set rng file`): who starts,
    with which dice, and the cube after gnubg's automatic doubles."""
    throws = req.get("throws")
    if (not isinstance(throws, list) or not throws
            or any(not isinstance(t, (list, tuple)) or len(t) != 2
                   or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in t)
                   for t in throws)):
        raise _Failure("bad request: throws must be a non-empty list of [x's die, o's die], dice 1..6")
    throws = [[int(a), int(b)] for a, b in throws]
    if any(a != b for a, b in throws[:-1]) or throws[-1][0] == throws[-1][1]:
        raise _Failure("bad request: every throw but the last must be a tie, and the last not")
    match = _match_of(req)
    rules = _rules(req)
    if rules["opening_reroll"]:
        raise _Unsupported("gnubg has no opening-reroll variant: the starter always plays the opening throw")
    if rules["automatic_doubles"] > GNUBG_MAX_AUTO_DOUBLES:
        raise _Unsupported(f"gnubg allows at most {GNUBG_MAX_AUTO_DOUBLES} automatic doubles,"
                           f" not {rules['automatic_doubles']}")
    msg = {"op": "opening_roll", "length": match.length, "cube_use": rules["cube"],
           "auto_doubles": rules["automatic_doubles"], "throws": throws}
    cap = rules["max_cube"]

    def finish(got: list[dict]) -> dict:
        g = got[0]
        if g["rolled"] != throws:
            raise _Failure(f"gnubg rolled {g['rolled']}, not the throws {throws}")
        value = int(g["state"]["cube"])
        if cap is not None and value > cap:
            raise _Unsupported(f"{_cap_note(cap)}; its automatic doubles take the cube to {value}")
        return {"starts": SIDE[g["starter"]], "dice": [int(d) for d in g["dice"]], "cube": value,
                "may_reroll": False}

    return finish, [msg]


def _plan_match_transition(req: dict):
    """End a game in gnubg's match: the winner bears off its last checker at a cube value and
    with a loser's position (single, gammon or backgammon) that make the points; then gnubg's
    state gives the score, whether the match is over, whether it marks the next game as the
    Crawford game (Match ID) or post-Crawford (`show score`), and, starting the next game,
    whether it opens with a throw. A drop is played as a single game at cube = points: gnubg
    scores both by winner and points alone."""
    match = _match_of(req)
    rules = _rules(req)
    result = req.get("result") or {}
    winner = _side_arg(result.get("winner"), "result.winner")
    points = result.get("points")
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        raise _Failure(f"bad request: result.points must be an int >= 1, not {points!r}")
    kind = result.get("type", "single")
    if rules["winner_starts"]:
        raise _Unsupported("gnubg has no winner-starts variant: every game begins with an opening throw")
    length, score = match.length, match.score
    top, low = max(score.values()), min(score.values())
    if length and top == length - 1 and low < length - 1 and not (match.crawford or match.post_crawford):
        raise _Unsupported("gnubg cannot be put in this state: with a player one point from the match, its"
                           " game is either the Crawford game or post-Crawford (`set score` makes it"
                           " post-Crawford)")
    prefer = {"gammon": 2, "backgammon": 3}.get(kind, 1)
    options = []
    for n in [prefer] + [k for k in (1, 2, 3) if k != prefer]:
        value = points // n
        if points % n == 0 and value & (value - 1) == 0 and value <= GNUBG_MAX_CUBE:
            options.append((value, n))
    if match.crawford:
        options = [o for o in options if o[0] == 1]  # gnubg disables the cube in the Crawford game
    if not options:
        where = " in the Crawford game, where gnubg's cube stays at 1" if match.crawford else ""
        raise _Unsupported(f"gnubg cannot end a game worth {points} points{where}: a game is worth"
                           f" the cube (at most {GNUBG_MAX_CUBE}) times 1, 2 or 3")
    value, n = options[0]
    checkers = variant_checkers(rules["variant"])
    if n == 1 and checkers == 1:
        raise _Unsupported("no game of 1-checker hypergammon ends single: the loser has borne off nothing")
    loser = [0] * 25
    loser[0] = checkers if n == 2 else checkers - 1  # single: one off; gammon: none; backgammon: one on the bar
    if n == 3:
        loser[24] = 1
    mine = [0] * 25
    mine[0] = 1
    msg = {"op": "finish_game", "game": _game_spec(match, rules), "winner": PLAYER[winner],
           "cube": value, "owner": PLAYER[winner] if value > 1 else -1, "board": [loser, mine],
           "point": 1, "next_game": True}

    def finish(got: list[dict]) -> dict:
        g = got[0]
        if SIDE[g["winner"]] != winner or int(g["points"]) != points:
            raise _Failure(f"gnubg scored the game as {g['message']!r}, not {points} to {winner}")
        state = g["state"]
        out: dict = {"score": {"x": state["score"][0], "o": state["score"][1]},
                     "match_over": bool(g["match_over"])}
        if out["match_over"]:
            if g["next_game"]:
                raise _Failure("gnubg says the match is won but starts another game")
            # gnubg refuses a next game ("The match is already over."), so none is the Crawford
            # game or post-Crawford (gnubg's own post-Crawford flag simply stays as it was)
            out.update(winner=SIDE[g["winner"]], crawford=False, post_crawford=False,
                       gnubg_next_game=" ".join(g["next_game_messages"]))
            return out
        if not (g["next_game"] and g["opening"]):
            raise _Failure(f"gnubg's next game did not begin with an opening throw: {g['next_game_messages']}")
        out["crawford"] = bool(state["crawford"])
        out["post_crawford"] = "post-Crawford" in g["score_text"]
        out["next_starts"] = "opening_roll"
        return out

    return finish, [msg]
