"""Judging a recorded game: a play as a record writes it, and the match state a record implies.

A match record (Jellyfish ``.mat`` and the like) writes each play as moves ``from/to`` that may
span several dice and, in most dialects, carries no hit marks; the order of the moves is the
writer's. ``recorded_play`` reads such a play the way the record's writer meant it: the play is
legal when some order of its moves, played die by die along some route, is a legal play
(spec: move.same-play); the intermediate points a combined move passes are landings, hitting a
blot that stands there (spec: hit.intermediate). The match state before each game follows from
the score history alone (``crawford_states``).

Every rule comes from ``movegen`` (single steps, legal plays), ``check`` (the reason of an illegal
play) and ``game`` (results, the cube, the match); this module only decides which play a written
play is, and where the Crawford game falls in a list of scores.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

from conformance.model import OFF, ModelError, Position, apply_steps, dice_moves
from conformance.model.game import Match

from .check import Verdict, _routes, play_check
from .game import crawford_flags
from .movegen import do_step, pack, plays, step_error

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
    for order in _orders(segs):
        for route in _routes(order, dice):
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
