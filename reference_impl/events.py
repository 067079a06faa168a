"""Replaying a game record: the rules of the other modules, applied event after event.

Nothing here restates a rule: whether a play is legal is ``check.play_check``, where it
leads ``model.play_to_position``; cube actions are ``game.cube_action``; the opening
throw is ``game.opening_roll``; the end of a game is ``game.game_result``; the score,
the Crawford game and the next starter are ``game.match_transition``. This module only
keeps the state between events and says which event may come when (spec: record.events,
record.order, record.refusal, record.next-game).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Sequence

from conformance.model import OFF, Cube, Match, Position, other, play_to_position

from .check import play_check
from .game import GameRuleError, cube_action, game_result, match_transition, opening_roll

#: reason codes of the refusals made here (the others come from play_check and cube_action)
RECORD_REASONS = ("wrong-moment", "not-your-turn", "wrong-dice", "game-over", "match-over")
_CUBE_EVENTS = ("double", "take", "drop", "beaver", "raccoon")
#: the rules a replay composes (a mutant engine passes altered ones to ``replay``)
RULES = SimpleNamespace(play_check=play_check, cube_action=cube_action, game_result=game_result,
                        match_transition=match_transition, opening_roll=opening_roll)


class RecordError(GameRuleError):
    """The record cannot be replayed at all (a game begins before the last one ended)."""


class _Refused(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class _State:
    """Between two events: ``moment`` (opening, before_roll, after_roll, the offers,
    game_over), the side ``on_roll`` (the doubler while an offer is pending), ``match``
    (this game's), ``throws`` (opening throws so far), ``opening`` (the dice are the
    opening numbers, not yet re-thrown), ``end`` (game_result and match_transition at
    the end of the game)."""

    moment: str
    match: Match
    cube: Cube
    position: Position | None = None
    on_roll: str | None = None
    dice: tuple[int, int] | None = None
    throws: tuple = ()
    opening: bool = False
    end: dict | None = None


def replay(match: Match, games: Sequence[dict], rules: dict, using: SimpleNamespace = RULES) -> list[dict]:
    """Answer every event of a record, in order: a list of ``{"accepted": True, "state"}``
    or ``{"accepted": False, "reason", "state"}`` (state unchanged by a refused event).

    ``games``: ``[{"position"?: Position, "cube"?: Cube, "events": [event, ...]}]`` with
    events in the wire form of ``conformance.model.parse_event``; a game without a
    position starts from the starting position with an opening throw (or, when the last
    game gave the start to its winner, with the winner's roll). ``state`` is the dict of
    ``view``. Raises RecordError when a game begins before the one before it ended or
    after the match is over. ``using``: the rule functions, as RULES.
    """
    answers: list[dict] = []
    state: _State | None = None
    for number, game in enumerate(games, 1):
        state = _begin(state, match, game, number)
        for event in game["events"]:
            try:
                state = _apply(state, event, rules, using)
                answers.append({"accepted": True, "state": view(state)})
            except _Refused as refused:
                answers.append({"accepted": False, "reason": refused.reason, "state": view(state)})
    return answers


def _begin(before: _State | None, match: Match, game: dict, number: int) -> _State:
    """The state at the start of game ``number`` (spec: record.next-game)."""
    starts = "opening_roll"
    if before is not None:
        if before.moment != "game_over":
            raise RecordError(f"game {number} begins before game {number - 1} has ended")
        after = before.end["match"]
        if after["match_over"]:
            raise RecordError(f"game {number} begins after the match is over")
        match = Match(match.length, after["score"], after["crawford"], after["post_crawford"])
        starts = after["next_starts"]
    cube = game.get("cube") or Cube()
    position = game.get("position")
    if position is not None:
        return _State("before_roll", match, cube, position, position.on_roll)
    if starts in ("x", "o"):
        return _State("before_roll", match, cube, Position.start(starts), starts)
    return _State("opening", match, cube)


def _apply(state: _State, event: dict, rules: dict, fns: SimpleNamespace) -> _State:
    kind, side = event["type"], event.get("side")
    if state.moment == "game_over":
        raise _Refused("match-over" if state.end["match"]["match_over"] else "game-over")
    if kind == "opening":
        return _opening(state, tuple(event["dice"]), rules, fns)
    if kind in _CUBE_EVENTS:
        return _cube(state, side, kind, rules, fns)
    if state.moment == "opening":
        raise _Refused("wrong-moment")
    if side != state.on_roll:
        raise _Refused("not-your-turn")
    if kind == "roll":
        return _roll(state, tuple(event["dice"]), rules)
    if kind == "play":
        return _play(state, event, rules, fns)
    # roll_play: after an opening throw the written dice are its numbers (or, where the
    # starter may throw again, a new throw); otherwise a throw, then the play
    dice = tuple(event["dice"])
    if not (state.opening and state.moment == "after_roll" and sorted(dice) == sorted(state.dice)):
        state = _roll(state, dice, rules)
    return _play(state, event, rules, fns)


def _opening(state: _State, dice: tuple[int, int], rules: dict, fns: SimpleNamespace) -> _State:
    """spec: opening.roll, opening.first-play, opening.automatic-doubles."""
    if state.moment != "opening":
        raise _Refused("wrong-moment")
    throws = state.throws + (dice,)
    if dice[0] == dice[1]:
        # the cube after the ties so far: the opening rule, asked as if the next throw decided
        value = fns.opening_roll(list(throws) + [(2, 1)], state.match, rules)["cube"]
        return replace(state, throws=throws, cube=Cube(value))
    got = fns.opening_roll(list(throws), state.match, rules)
    return replace(state, moment="after_roll", throws=throws, cube=Cube(got["cube"]), on_roll=got["starts"],
                   position=Position.start(got["starts"]), dice=tuple(got["dice"]), opening=True)


def _roll(state: _State, dice: tuple[int, int], rules: dict) -> _State:
    """A throw of the dice: at the start of a turn, or once more by the starter over
    the opening numbers under the re-roll variant (spec: opening.reroll-variant)."""
    if state.moment == "before_roll":
        return replace(state, moment="after_roll", dice=dice, opening=False)
    if state.moment == "after_roll" and state.opening:
        if rules["opening_reroll"]:
            return replace(state, dice=dice, opening=False)
        raise _Refused("wrong-dice")
    raise _Refused("wrong-moment")


def _play(state: _State, event: dict, rules: dict, fns: SimpleNamespace) -> _State:
    """spec: move.*, via check.play_check; the game ends with the fifteenth checker off
    (bearoff.last-checker, score.end)."""
    if state.moment != "after_roll":
        raise _Refused("wrong-moment")
    verdict = fns.play_check(state.position, state.dice, event["steps"])
    if not verdict.legal:
        raise _Refused(verdict.reason)
    position = play_to_position(state.position, event["steps"])
    mover = state.on_roll
    if position.side(mover)[OFF] == 15:
        result = fns.game_result(position, state.cube, state.match, rules)
        return _end(state, position, result, rules, fns)
    return replace(state, moment="before_roll", position=position, on_roll=other(mover), dice=None,
                   opening=False)


def _cube(state: _State, side: str, action: str, rules: dict, fns: SimpleNamespace) -> _State:
    """spec: cube.*, via game.cube_action; a drop ends the game (score.drop)."""
    if state.moment == "opening":
        raise _Refused("wrong-moment")
    got = fns.cube_action(state.on_roll, state.moment, state.cube, state.match, side, action, rules)
    if not got["allowed"]:
        raise _Refused(got["reason"])
    if "game_over" in got:
        over = got["game_over"]
        return _end(state, state.position, {"winner": over["winner"], "result": "drop", "points": over["points"]},
                    rules, fns)
    cube = Cube(got["cube"]["value"], got["cube"]["owner"])
    return replace(state, moment=got["moment"], cube=cube)


def _end(state: _State, position: Position, result: dict, rules: dict, fns: SimpleNamespace) -> _State:
    after = fns.match_transition(state.match, result["winner"], result["points"], result["result"], rules)
    return replace(state, moment="game_over", position=position, on_roll=position.on_roll, dice=None,
                   opening=False, end={"game": result, "match": after})


def view(state: _State) -> dict:
    """The state an engine reports after an event (spec/protocol.md, game_record):
    ``moment``, ``on_roll`` and ``position`` (board form; absent during the opening
    throw), ``dice`` (after a throw), ``cube``, ``score``, ``crawford`` and
    ``post_crawford`` (of this game; once it is over, of the next one), and at the end
    of a game ``game_over`` ({winner, result: single|gammon|backgammon|drop, points}),
    ``match_over``, ``winner`` (of the match, when over) and ``next_starts``."""
    out: dict = {"moment": state.moment, "cube": state.cube.to_dict()}
    if state.position is not None:
        out["on_roll"] = state.on_roll
        out["position"] = state.position.to_wire()
    if state.dice is not None:
        out["dice"] = list(state.dice)
    if state.end is None:
        out.update(score=dict(state.match.score), crawford=state.match.crawford,
                   post_crawford=state.match.post_crawford)
        return out
    after = state.end["match"]
    out["game_over"] = dict(state.end["game"])
    out.update(score=dict(after["score"]), match_over=after["match_over"], crawford=after["crawford"],
               post_crawford=after["post_crawford"])
    if after["match_over"]:
        out["winner"] = after["winner"]
    else:
        out["next_starts"] = after["next_starts"]
    return out
