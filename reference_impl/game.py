"""Starting, ending and scoring games; the doubling cube; match play.

Each function takes model objects and the effective rule options (a dict as
``conformance.model.effective_rules`` returns) and returns a plain dict.
"""

from __future__ import annotations

from typing import Sequence

from conformance.model import BAR, OFF, DiceError, Position, PositionError, check_variant, other, parse_dice
from conformance.model.game import Cube, Match


class GameRuleError(ValueError):
    """The inputs do not describe a situation the rule applies to (e.g. no winner)."""


# -- end of the game and scoring ------------------------------------------------
def game_result(position: Position, cube: Cube, match: Match, rules: dict) -> dict:
    """Score a finished game.

    Returns ``{"winner": "x"|"o", "result": "single"|"gammon"|"backgammon",
    "points": int}``. The loser's result (spec: score.single, score.gammon,
    score.backgammon) times the cube value, the backgammon counting
    ``backgammon_multiplier`` times (spec: score.backgammon-multiplier); under
    the Jacoby rule, in money play with the cube never turned (centred),
    gammons and backgammons count single (spec: cube.jacoby,
    match.money-options). Raises GameRuleError when no side has borne off all its checkers
    (15, or 1, 2, 3 in hypergammon: spec: variant.checkers) or when the position is not one of
    ``rules["variant"]`` (spec: variant.hypergammon-scoring: the same results with N checkers).
    """
    try:
        check_variant(position, rules["variant"])
    except PositionError as exc:
        raise GameRuleError(str(exc)) from None
    winners = [s for s in ("x", "o") if position.side(s)[OFF] == position.checkers]
    if len(winners) != 1:
        raise GameRuleError(f"the game is not over: no side has borne off all {position.checkers} checkers")
    winner = winners[0]
    loser = position.side(other(winner))
    if loser[OFF] > 0:
        result = "single"
    elif loser[BAR] or any(loser[19:25]):
        result = "backgammon"
    else:
        result = "gammon"
    return {"winner": winner, "result": result, "points": result_points(result, cube, match, rules)}


def result_points(result: str, cube: Cube, match: Match, rules: dict) -> int:
    """Points a game ending in ``result`` ("single", "gammon", "backgammon") is worth: the cube
    value times 1, 2 or ``backgammon_multiplier`` (spec: score.backgammon-multiplier); under the
    Jacoby rule, in money play with the cube centred, every result counts single (spec:
    cube.jacoby, match.money-options). Also the values a resignation of each kind gives.
    Raises KeyError for another result."""
    factor = {"single": 1, "gammon": 2, "backgammon": rules["backgammon_multiplier"]}[result]
    if rules["jacoby"] and match.money and cube.owner == "center":
        factor = 1
    return cube.value * factor


# -- the doubling cube ------------------------------------------------------------
_RESPONDER = {"double_offered": "opponent", "beaver_offered": "doubler", "raccoon_offered": "opponent"}


def cube_action(on_roll: str, moment: str, cube: Cube, match: Match, by: str, action: str,
                rules: dict) -> dict:
    """Whether ``by`` may take ``action`` now, and what follows.

    ``on_roll`` is the player whose turn it is (the doubler while an offer is
    pending); ``moment`` one of before_roll, after_roll, double_offered,
    beaver_offered, raccoon_offered; while an offer is pending, ``cube`` is the
    value at stake if it is dropped. Returns ``{"allowed": False, "reason": code}``,
    ``{"allowed": True, "moment": ..., "cube": {value, owner}}``, or
    ``{"allowed": True, "game_over": {"winner", "points"}}``.

    spec: cube.when, cube.ownership, cube.take, cube.drop, cube.max, cube.beaver,
    cube.raccoon, cube.crawford, match.money-options.
    """
    def no(reason: str) -> dict:
        return {"allowed": False, "reason": reason}

    def ok(new_moment: str, value: int, owner: str) -> dict:
        return {"allowed": True, "moment": new_moment, "cube": {"value": value, "owner": owner}}

    def fits(value: int) -> bool:
        return rules["max_cube"] is None or value <= rules["max_cube"]

    if not rules["cube"]:
        return no("cube-disabled")
    opponent = other(on_roll)
    if action == "double":
        if moment != "before_roll":
            return no("wrong-moment")
        if by != on_roll:
            return no("not-your-turn")
        if match.crawford:
            return no("crawford-game")
        if cube.owner not in ("center", by):
            return no("not-cube-owner")
        if not fits(cube.value * 2):
            return no("max-cube")
        return ok("double_offered", cube.value, cube.owner)
    if moment not in _RESPONDER:
        return no("wrong-moment")
    responder = opponent if _RESPONDER[moment] == "opponent" else on_roll
    if action in ("take", "drop") and by != responder:
        return no("not-your-turn")
    if action == "drop":
        # the side that made the pending offer wins the value before it
        return {"allowed": True, "game_over": {"winner": other(responder), "points": cube.value}}
    if action == "take":
        owner = opponent  # the doubled player owns the cube, also after a beaver or raccoon
        return ok("before_roll", cube.value * 2, owner)
    if action in ("beaver", "raccoon"):
        wanted = {"beaver": "double_offered", "raccoon": "beaver_offered"}[action]
        if moment != wanted:
            return no("wrong-moment")
        if by != responder:
            return no("not-your-turn")
        if not match.money:
            return no("money-play-only")
        if not rules["beavers" if action == "beaver" else "raccoons"]:
            return no("option-off")
        # the offer is accepted and turned once more: the new stake if dropped is the doubled value
        if not fits(cube.value * 4):
            return no("max-cube")
        return ok("beaver_offered" if action == "beaver" else "raccoon_offered", cube.value * 2, opponent)
    return no("wrong-moment")


# -- the opening roll ----------------------------------------------------------------
def opening_roll(throws: Sequence[Sequence[int]], match: Match, rules: dict) -> dict:
    """Who starts, with which dice, and the cube after automatic doubles.

    ``throws``: the single-die throws in order, each ``(x's die, o's die)``; all
    but the last are ties. Returns ``{"starts", "dice": [starter's, other's],
    "cube": value, "may_reroll": bool}``.
    spec: opening.roll, opening.first-play, opening.automatic-doubles,
    opening.reroll-variant, match.money-options. Raises GameRuleError when a throw is not
    two dice of 1..6 (``model.parse_dice``), a tie is not re-thrown or a throw follows the
    deciding one.
    """
    if not throws:
        raise GameRuleError("no opening throw given")
    for i, throw in enumerate(throws):
        try:
            parse_dice(throw)
        except DiceError:
            raise GameRuleError(f"throw {i + 1} {list(throw)!r}: each side throws one die of 1..6") from None
    for i, (a, b) in enumerate(throws[:-1]):
        if a != b:
            raise GameRuleError(f"throw {i + 1} ({a}, {b}) already decides who starts; later throws cannot follow")
    a, b = throws[-1]
    if a == b:
        raise GameRuleError(f"the last throw ({a}, {b}) is a tie: the players throw again")
    starts = "x" if a > b else "o"
    ties = len(throws) - 1
    value = 1
    if match.money and rules["cube"]:
        for _ in range(min(ties, rules["automatic_doubles"])):
            if rules["max_cube"] is not None and value * 2 > rules["max_cube"]:
                break
            value *= 2
    dice = [a, b] if starts == "x" else [b, a]
    return {"starts": starts, "dice": dice, "cube": value, "may_reroll": bool(rules["opening_reroll"])}


# -- match play -------------------------------------------------------------------------
def crawford_flags(length: int, score: dict, crawford_played: bool, rules: dict) -> tuple[bool, bool]:
    """``(crawford, post_crawford)`` of the next game of a match of ``length`` points (0 =
    money play) at ``score`` ({"x": int, "o": int}, both below the length), where
    ``crawford_played`` says whether a Crawford game has been played in this match. The
    next game is the Crawford game when the Crawford rule is on, none has been played, one
    player stands at ``length - 1`` and the other below it; every game after the Crawford
    game is post-Crawford (spec: match.crawford, match.post-crawford)."""
    if not length:
        return False, False
    if crawford_played:
        return False, True
    leader_at_one = max(score.values()) == length - 1
    return bool(rules["crawford"] and leader_at_one and min(score.values()) < length - 1), False


def match_transition(match: Match, winner: str, points: int, result_type: str, rules: dict) -> dict:
    """The match after a game: ``{"score", "match_over", "winner" (when over),
    "crawford" (the next game is the Crawford game), "post_crawford",
    "next_starts" ("opening_roll" or the side that starts without it)}``.

    spec: match.score, match.crawford, match.post-crawford, session.winner-starts.
    """
    score = dict(match.score)
    score[winner] += points
    out: dict = {"score": score}
    if match.length and score[winner] >= match.length:
        out.update(match_over=True, winner=winner, crawford=False, post_crawford=False)
        return out
    out["match_over"] = False
    crawford, post_crawford = crawford_flags(match.length, score, match.crawford or match.post_crawford, rules)
    out.update(crawford=crawford, post_crawford=post_crawford)
    out["next_starts"] = winner if rules["winner_starts"] and result_type == "single" else "opening_roll"
    return out
