"""Playing a record through the rules: game_record cases and match records, event by event.

One module holds the reference's record logic (spec: record.events, record.order,
record.refusal, record.next-game):

- ``step`` answers one event (``conformance.model.Event``) in a ``State``: accepted with the
  state after it, or refused with the reason and the state unchanged; ``replay`` steps the
  games of a game_record case (spec/protocol.md, game_record) and ``view`` is the state an
  engine reports;
- a match record (``.mat``, ``.sgf``) is stepped the same way in the record dialect
  (``start(..., record=True)``): no opening throw is written (the first play's side starts
  with the numbers it plays), a play is read the way its writer meant it (``recorded_play``),
  an illegal play or double can be followed as it was played (``Step.played``), and the
  recorded result is judged against how the game ended (``win``); the match state before
  each game follows from the score history (``crawford_states``, ``counted_points``).

A play as a record writes it: moves ``from/to`` that may span several dice and, in most
dialects, no hit marks, in the writer's order. It is legal when some order of its moves,
played die by die along some route, is a legal play (spec: move.same-play); the
intermediate points a combined move passes are landings, hitting a blot that stands there
(spec: hit.intermediate).

Nothing here restates a rule: whether a play is legal is ``check.play_check`` (and
``movegen``'s steps and legal plays), where it leads ``model.play_to_position``; cube
actions are ``game.cube_action``; the opening throw is ``game.opening_roll``; the end of a
game is ``game.game_result``, a resignation's worth ``game.result_points``; the score, the
Crawford game and the next starter are ``game.match_transition`` and ``game.crawford_flags``.
This module keeps the state between events and says which event may come when.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import NamedTuple, Sequence

from conformance.model import (
    OFF, Cube, DiceError, Event, Match, ModelError, Position, apply_steps, dice_moves, other, parse_dice, play_to_position,
)

from .check import Verdict, _interleaved, _routes, _split, play_check
from .game import (
    GameRuleError, crawford_flags, cube_action, game_result, match_transition, opening_roll, result_points,
)
from .movegen import do_step, pack, plays, step_error


# -- a play as a record writes it ------------------------------------------------------------
_ORDERS_UP_TO = 4  # more written moves than a double has dice cannot be a legal play in any order


@dataclass(frozen=True)
class RecordedPlay:
    """``verdict``: legal or illegal with its reason (``check.REASONS``); ``result``: the
    position after the play with the turn passed (the legal play it is, or for an illegal one
    the position the written moves leave when they can be made at all, else None)."""

    verdict: Verdict
    result: Position | None


def _orders(segments: list[tuple[int, int]]):
    if len(segments) > _ORDERS_UP_TO:
        yield segments
        return
    seen = set()
    for order in itertools.permutations(segments):
        if order not in seen:
            seen.add(order)
            yield list(order)


def _candidate_routes(segments: list[tuple[int, int]], dice: Sequence[int]):
    """The routes of single-die steps ``(source, die)`` a record's written moves may stand for:
    every order of the moves, each move's dice one after the other, along every route of the
    dice (``check._routes``); then the orders in which another checker moves between two dice of
    a move (bar/21(2) with 2-2 and a blot on 23: both checkers enter, hitting, before either
    plays on), each move's own steps kept in order (``check._interleaved``)."""
    for order in _orders(segments):
        yield from _routes(order, dice)
    for route in _routes(segments, dice):
        yield from _interleaved(_split(segments, route))


def _walk(position: Position, route) -> tuple[list[int], list[int]] | None:
    """Play a route of single-die steps physically, hitting blots where it lands; return the
    mover's and the opponent's counts after it, or None when a step breaks a movement rule
    (``step_error``)."""
    me, opp = list(position.mover), list(position.opponent)
    for src, die in route:
        if step_error(me, opp, src, die):
            return None
        do_step(me, opp, src, die)
    return me, opp


def _after(position: Position, me: list[int], opp: list[int]) -> Position:
    """The position after the mover's checkers were moved to ``me`` (and ``opp`` hit), turn
    passed; valid by construction, as checkers were only moved."""
    if position.on_roll == "x":
        return Position.trusted("o", tuple(me), tuple(opp))
    return Position.trusted("x", tuple(opp), tuple(me))


def _physical(position: Position, route) -> Position | None:
    """The position a route leaves when its checkers can be moved at all (a checker on the
    source, the landing not held by two or more), rules aside; None otherwise."""
    try:
        return apply_steps(position, [(src, max(src - die, OFF)) for src, die in route])
    except ModelError:
        return None


def recorded_play(position: Position, dice: Sequence[int], segments: Sequence[Sequence[int]]) -> RecordedPlay:
    """Verdict on a play as a record writes it, and the position it leaves.

    ``segments``: the written moves ``[(from, to), ...]`` in the mover's numbering (25 bar,
    0 off), in any order, each possibly spanning several dice; ``[]`` is "no play", legal
    only when the roll has no legal play (spec: move.pass). ``dice``: two ints 1..6.

    Legal when some order and route of the moves is a legal play (spec: move.same-play,
    hit.intermediate): a route that plays every die of the roll with each step legal
    (``movegen.step_error``) is one at once (spec: move.maximum-dice); a route using fewer dice
    is one when its result is among ``movegen.plays`` (spec: move.maximum-dice,
    move.larger-die). Otherwise illegal with the reason of ``check.play_check``. Never raises
    for a valid position and dice.
    """
    segs = [(int(a), int(b)) for a, b in segments]
    if not segs:
        me, opp = position.mover, position.opponent
        sources = [p for p in range(1, 26) if me[p]]
        movable = any(step_error(me, opp, p, die) is None for die in set(dice) for p in sources)
        if movable:
            return RecordedPlay(Verdict(False, "must-use-more-dice"), position.passed())
        return RecordedPlay(Verdict(True), position.passed())
    moves = dice_moves(dice)
    full = len(moves)
    if len(segs) == full and sorted(a - b for a, b in segs) == sorted(moves):
        # each written move is one die, in an order that can be played: the common case, at once
        walked = _walk(position, [(a, a - b) for a, b in segs])
        if walked is not None:
            return RecordedPlay(Verdict(True), _after(position, *walked))
    partial: list[tuple[list[int], list[int]]] = []
    for route in _candidate_routes(segs, dice):
        walked = _walk(position, route)
        if walked is None:
            continue
        if len(route) == full:
            return RecordedPlay(Verdict(True), _after(position, *walked))
        partial.append(walked)
    if partial:
        legal = plays(position, dice)
        for me, opp in partial:
            if pack(me, opp) in legal:
                return RecordedPlay(Verdict(True), _after(position, me, opp))
    verdict = play_check(position, dice, segs)
    if verdict.legal:  # written moves that play_check accepts as they stand
        return RecordedPlay(verdict, apply_steps(position, segs))
    result = None
    for order in _orders(segs):
        try:
            result = apply_steps(position, order)
            break
        except ModelError:
            continue
    if result is None:
        for route in _routes(segs, dice):
            result = _physical(position, route)
            if result is not None:
                break
    return RecordedPlay(verdict, result)


def as_written_reason(dice: Sequence[int], segments: Sequence[Sequence[int]]) -> str | None:
    """Why a record's play breaks a movement rule before any position is looked at: ``not-a-roll``
    (a die outside 1..6; spec: record.events), ``backward-move`` (a move that does not go
    forward; spec: move.direction); None for a play that ``recorded_play`` can judge."""
    if len(dice) != 2 or any(not 1 <= d <= 6 for d in dice):
        return "not-a-roll"
    if any(b >= a for a, b in segments):
        return "backward-move"
    return None


def as_written(position: Position, segments: Sequence[Sequence[int]]) -> Position | None:
    """The position a record's moves leave, direction and dice aside, when some order of them can
    be made physically (a checker on each source, no landing held by two or more, a blot there
    hit); turn passed. None when no order can: the position after the play is not determined."""
    segs = [(int(a), int(b)) for a, b in segments]
    for order in _orders(segs):
        me, opp = list(position.mover), list(position.opponent)
        for a, b in order:
            if not (1 <= a <= 25 and 0 <= b <= 24) or me[a] == 0 or (b != OFF and opp[25 - b] >= 2):
                break
            if b != OFF and opp[25 - b] == 1:
                opp[25 - b], opp[25] = 0, opp[25] + 1
            me[a], me[b] = me[a] - 1, me[b] + 1
        else:
            return _after(position, me, opp)
    return None


def crawford_states(length: int, scores: Sequence[Sequence[int]], rules: dict) -> list[Match]:
    """The match state of each game of a match from the score history alone.

    ``length``: the match length (0 = money play); ``scores``: the score before each game in
    order, ``(x, o)``. Each game's Crawford and post-Crawford flags are
    ``game.crawford_flags`` of its score and of whether an earlier game was the Crawford
    game (spec: match.crawford, match.post-crawford). Raises
    ``conformance.model.GameStateError`` for a score at or above the length.
    """
    out: list[Match] = []
    played = False
    for x, o in scores:
        score = {"x": int(x), "o": int(o)}
        crawford, post_crawford = crawford_flags(length, score, played, rules)
        out.append(Match(length, score, crawford=crawford, post_crawford=post_crawford))
        played = played or crawford
    return out


def counted_points(points: int, winner: str, match: Match) -> int:
    """The points of a game that count toward the match: all of them in money play, at most
    what the winner needed to reach the length in match play (spec: match.score: points beyond
    the length bring nothing more)."""
    if not match.length:
        return points
    return min(points, match.length - match.score[winner])


# -- stepping a record ----------------------------------------------------------------------

#: reason codes of the refusals made here (the others come from play_check and cube_action):
#: an event at the wrong moment or out of turn, an opening throw not thrown again, an event
#: after the game or match is over; a recorded result before the game is over, with the
#: wrong winner or the wrong points; a record's play that breaks a movement rule as written
#: (``as_written_reason``)
RECORD_REASONS = ("wrong-moment", "not-your-turn", "wrong-dice", "game-over", "match-over", "not-over",
                  "wrong-winner", "wrong-points", "not-a-roll", "backward-move")
_CUBE_EVENTS = ("double", "take", "drop", "beaver", "raccoon")
_RESULTS = ("single", "gammon", "backgammon")
#: the rules a replay composes (a mutant engine passes altered ones to ``replay``)
RULES = SimpleNamespace(play_check=play_check, cube_action=cube_action, game_result=game_result,
                        match_transition=match_transition, opening_roll=opening_roll)


class RecordOrderError(GameRuleError):
    """The record cannot be replayed at all (a game begins before the last one ended)."""


class _Refused(Exception):
    def __init__(self, reason: str, played: "State | None" = None, allowed: tuple = (),
                 expected: dict | None = None):
        super().__init__(reason)
        self.reason, self.played, self.allowed, self.expected = reason, played, allowed, expected


class State(NamedTuple):
    """Between two events: ``moment`` (opening, before_roll, after_roll, the offers,
    game_over), the side ``on_roll`` (the doubler while an offer is pending), ``match``
    (this game's), ``cube``, ``position`` (None before the first play), ``dice`` (after a
    throw), ``throws`` (opening throws so far), ``opening`` (the dice are the opening
    numbers, not yet re-thrown), ``end`` (``{"game": result, "match": match_transition or
    None}`` once the game is over; a result is ``{winner, result: single|gammon|backgammon|
    drop|resign, points}``, a resignation's points unknown until its ``win``), ``record``
    (the match record dialect: see the module docstring). A NamedTuple, so that the next
    state is cheap to make (``_replace``): replay steps thousands of events a second."""

    moment: str
    match: Match
    cube: Cube
    position: Position | None = None
    on_roll: str | None = None
    dice: tuple[int, int] | None = None
    throws: tuple = ()
    opening: bool = False
    end: dict | None = None
    record: bool = False


class Step(NamedTuple):
    """The answer to one event: ``accepted``, ``state`` (after it; unchanged when refused),
    ``reason`` (a refusal's code: RECORD_REASONS, ``check.REASONS`` or cube_action's);
    in the record dialect ``played`` (a refused play or double as it was played: the state
    its written moves or its standing offer lead to, None when they cannot be made) and,
    for a ``win``, ``expected`` (the result the end of the game gives: ``winner`` and, when
    known, ``result`` and ``points``) and ``allowed`` (the points it may count, sorted)."""

    accepted: bool
    state: State
    reason: str | None = None
    played: State | None = None
    allowed: tuple = ()
    expected: dict | None = None


def start(match: Match, position: Position | None = None, cube: Cube | None = None,
          starts: str = "opening_roll", record: bool = False, variant: str = "standard") -> State:
    """The state at the start of a game: from ``position`` (a game in progress, its side on
    roll) or the starting position, with an opening throw (``starts`` "opening_roll") or
    with the roll of the side ``starts`` (spec: record.next-game, session.winner-starts).
    ``record``: the match record dialect; ``variant`` gives the starting position (spec:
    variant.option). Never raises for a known variant."""
    cube = cube or Cube()
    if position is not None:
        return State("before_roll", match, cube, position, position.on_roll, record=record)
    if starts in ("x", "o"):
        return State("before_roll", match, cube, Position.start(starts, variant), starts, record=record)
    return State("opening", match, cube, record=record)


def step(state: State, event: Event, rules: dict, using: SimpleNamespace = RULES) -> Step:
    """Answer one event in ``state`` (spec: record.events, record.order, record.refusal):
    ``rules`` are effective rules (``conformance.model.effective_rules``), ``using`` the rule
    functions (as RULES). Never raises for a valid state and a well-formed event."""
    try:
        return Step(True, _apply(state, event, rules, using))
    except _Refused as refused:
        return Step(False, state, refused.reason, refused.played, refused.allowed, refused.expected)


def replay(match: Match, games: Sequence[dict], rules: dict, using: SimpleNamespace = RULES) -> list[dict]:
    """Answer every event of a game_record case, in order: a list of ``{"accepted": True,
    "state"}`` or ``{"accepted": False, "reason", "state"}`` (state unchanged by a refused
    event).

    ``games``: ``[{"position"?: Position, "cube"?: Cube, "events": [event, ...]}]`` with
    events in the wire form of ``conformance.model.parse_event``; a game without a
    position starts from the starting position with an opening throw (or, when the last
    game gave the start to its winner, with the winner's roll). ``state`` is the dict of
    ``view``. Raises RecordOrderError when a game begins before the one before it ended or
    after the match is over, GameRuleError for an event whose dice are not two of 1..6. ``using``: the rule functions, as RULES.
    """
    answers: list[dict] = []
    state: State | None = None
    for number, game in enumerate(games, 1):
        state = _begin(state, match, game, number, rules["variant"])
        for wire in game["events"]:
            event = Event.from_wire(wire)
            if event.dice is not None:
                try:
                    parse_dice(event.dice)
                except DiceError:
                    raise GameRuleError(f"game {number}: {event.type} with dice {list(event.dice)!r}: dice are 1..6"
                                        ) from None
            done = step(state, event, rules, using)
            state = done.state
            if done.accepted:
                answers.append({"accepted": True, "state": view(state)})
            else:
                answers.append({"accepted": False, "reason": done.reason, "state": view(state)})
    return answers


def _begin(before: State | None, match: Match, game: dict, number: int, variant: str = "standard") -> State:
    """The state at the start of game ``number`` (spec: record.next-game)."""
    starts = "opening_roll"
    if before is not None:
        if before.moment != "game_over":
            raise RecordOrderError(f"game {number} begins before game {number - 1} has ended")
        after = before.end["match"]
        if after["match_over"]:
            raise RecordOrderError(f"game {number} begins after the match is over")
        match = Match(match.length, after["score"], after["crawford"], after["post_crawford"])
        starts = after["next_starts"]
    return start(match, game.get("position"), game.get("cube"), starts, variant=variant)


def _apply(state: State, event: Event, rules: dict, fns: SimpleNamespace) -> State:
    kind, side = event.type, event.side
    if kind == "roll_play" and state.moment == "before_roll" and side == state.on_roll \
            and state.position is not None:
        # the common event of a record, a turn's throw and play, answered as the general
        # path below answers it, without its other tests
        return _play(state, tuple(event.dice), event, rules, fns)
    if kind in ("resign", "win") and not state.record:
        raise _Refused("wrong-moment")
    if kind == "win":
        return _win(state, side, event.value, rules)
    if state.moment == "game_over":
        over = state.end["match"] is not None and state.end["match"]["match_over"]
        raise _Refused("match-over" if over else "game-over")
    if kind == "resign":
        return state._replace(moment="game_over", dice=None, opening=False,
                       end={"game": {"winner": other(side), "result": "resign"}, "match": None})
    if kind == "opening":
        return _opening(state, tuple(event.dice), rules, fns)
    if kind in _CUBE_EVENTS:
        return _cube(state, side, kind, rules, fns)
    if state.record and state.position is None:
        # no opening throw is written: the side of the first play starts, with the numbers it plays
        state = state._replace(moment="before_roll" if state.moment == "opening" else state.moment,
                        position=Position.start(side, rules["variant"]), on_roll=side)
    if state.moment == "opening":
        raise _Refused("wrong-moment")
    if side != state.on_roll:
        raise _Refused("not-your-turn")
    if kind == "roll":
        return _roll(state, tuple(event.dice), rules)
    if kind == "play":
        if state.moment != "after_roll":
            raise _Refused("wrong-moment")
        return _play(state, state.dice, event, rules, fns)
    # roll_play: after an opening throw the written dice are its numbers (or, where the
    # starter may throw again, a new throw); otherwise a throw, then the play. The throw's
    # state is not made: the play's state follows from the one before it (replay's hot path)
    dice = tuple(event.dice)
    if state.opening and state.moment == "after_roll" and sorted(dice) == sorted(state.dice):
        return _play(state, state.dice, event, rules, fns)
    _may_roll(state, rules)
    return _play(state, dice, event, rules, fns)


def _opening(state: State, dice: tuple[int, int], rules: dict, fns: SimpleNamespace) -> State:
    """spec: opening.roll, opening.first-play, opening.automatic-doubles."""
    if state.moment != "opening":
        raise _Refused("wrong-moment")
    throws = state.throws + (dice,)
    if dice[0] == dice[1]:
        # the cube after the ties so far: the opening rule, asked as if the next throw decided
        value = fns.opening_roll(list(throws) + [(2, 1)], state.match, rules)["cube"]
        return state._replace(throws=throws, cube=Cube(value))
    got = fns.opening_roll(list(throws), state.match, rules)
    return state._replace(moment="after_roll", throws=throws, cube=Cube(got["cube"]), on_roll=got["starts"],
                   position=Position.start(got["starts"], rules["variant"]), dice=tuple(got["dice"]), opening=True)


def _may_roll(state: State, rules: dict) -> None:
    """Whether the side on roll may throw the dice now: at the start of a turn, or once more
    by the starter over the opening numbers under the re-roll variant (spec:
    opening.reroll-variant). Raises _Refused (wrong-moment, wrong-dice)."""
    if state.moment == "before_roll":
        return
    if state.moment == "after_roll" and state.opening:
        if rules["opening_reroll"]:
            return
        raise _Refused("wrong-dice")
    raise _Refused("wrong-moment")


def _roll(state: State, dice: tuple[int, int], rules: dict) -> State:
    """A throw of the dice (``_may_roll``): the state after it."""
    _may_roll(state, rules)
    return state._replace(moment="after_roll", dice=dice, opening=False)


def _play(state: State, dice: tuple[int, int], event: Event, rules: dict, fns: SimpleNamespace) -> State:
    """The play of ``event`` with ``dice`` thrown (spec: move.*, via check.play_check; a match
    record's play: ``recorded_play``); the game ends with the fifteenth checker off
    (bearoff.last-checker, score.end)."""
    if state.record:
        unread = as_written_reason(dice, event.steps)
        if unread:
            result = as_written(state.position, event.steps)
            raise _Refused(unread, played=None if result is None else _played(state, result, rules, fns))
        judged = recorded_play(state.position, dice, event.steps)
        if not judged.verdict.legal:
            played = None if judged.result is None else _played(state, judged.result, rules, fns)
            raise _Refused(judged.verdict.reason, played=played)
        return _played(state, judged.result, rules, fns)
    verdict = fns.play_check(state.position, dice, event.steps)
    if not verdict.legal:
        raise _Refused(verdict.reason)
    return _played(state, play_to_position(state.position, event.steps), rules, fns)


def _played(state: State, position: Position, rules: dict, fns: SimpleNamespace) -> State:
    """The state once the side on roll has played to ``position`` (turn passed)."""
    mover = state.on_roll
    if position.side(mover)[OFF] == position.checkers:
        result = fns.game_result(position, state.cube, state.match, rules)
        return _end(state, position, result, rules, fns)
    # State(...) rather than _replace: this is made once a play, the hot path of replay
    return State("before_roll", state.match, state.cube, position, other(mover), None, state.throws, False,
                 state.end, state.record)


def _cube(state: State, side: str, action: str, rules: dict, fns: SimpleNamespace) -> State:
    """spec: cube.*, via game.cube_action; a drop ends the game (score.drop). In the record
    dialect a refused double is followed as played: the offer stands."""
    if state.moment == "opening":
        raise _Refused("wrong-moment", played=_offered(state, side, action))
    got = fns.cube_action(state.on_roll, state.moment, state.cube, state.match, side, action, rules)
    if not got["allowed"]:
        raise _Refused(got["reason"], played=_offered(state, side, action))
    if "game_over" in got:
        over = got["game_over"]
        return _end(state, state.position, {"winner": over["winner"], "result": "drop", "points": over["points"]},
                    rules, fns)
    cube = Cube(got["cube"]["value"], got["cube"]["owner"])
    return state._replace(moment=got["moment"], cube=cube)


def _offered(state: State, side: str, action: str) -> State | None:
    if state.record and action == "double":
        return state._replace(moment="double_offered", on_roll=side)
    return None


def _end(state: State, position: Position | None, result: dict, rules: dict, fns: SimpleNamespace) -> State:
    after = fns.match_transition(state.match, result["winner"], result["points"], result["result"], rules)
    return state._replace(moment="game_over", position=position,
                   on_roll=position.on_roll if position is not None else state.on_roll, dice=None,
                   opening=False, end={"game": result, "match": after})


def resignation_points(state: State, winner: str, rules: dict) -> set[int]:
    """What a resignation may be worth in ``state``: a single game, a gammon or a backgammon
    at the cube's value (``game.result_points``), each also as the points that count toward
    the match (``counted_points``; spec: score.single, match.score)."""
    worth = {result_points(r, state.cube, state.match, rules) for r in _RESULTS}
    return worth | {counted_points(p, winner, state.match) for p in worth}


def _win(state: State, winner: str, points: int | None, rules: dict) -> State:
    """A recorded result (spec: score.end, score.*, match.score): before the game is over on
    the board it is a resignation when ``points`` is what one is worth (the state then says
    so: ``{"result": "resign", "implied": True}``); after it, the winner and the points must
    be the end's (a result capped at what the winner needed counts, ``counted_points``)."""
    if state.moment != "game_over":
        worth = resignation_points(state, winner, rules)
        if points not in worth:
            raise _Refused("not-over", allowed=tuple(sorted(worth)))
        return state._replace(moment="game_over", dice=None, opening=False,
                       end={"game": {"winner": winner, "result": "resign", "implied": True}, "match": None})
    game = state.end["game"]
    if game["result"] == "resign":
        expected = {"winner": game["winner"]}
        allowed = resignation_points(state, game["winner"], rules)
    else:
        expected = dict(game)
        allowed = {game["points"], counted_points(game["points"], game["winner"], state.match)}
    if winner != expected["winner"]:
        raise _Refused("wrong-winner", allowed=tuple(sorted(allowed)), expected=expected)
    if points is not None and points not in allowed:
        raise _Refused("wrong-points", allowed=tuple(sorted(allowed)), expected=expected)
    return state
def view(state: State) -> dict:
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
