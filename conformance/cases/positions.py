"""Positions and plays as cases write them, read fast (for the semantic checks).

A suite holds many positions and plays: ``_board_position`` reads a plainly valid
board form without the model's general reader, ``_play_result`` reaches the result of
a play by moving checkers as the model does, and ``_unchecked_position`` builds a
Position without a separate ``__dict__``. Each agrees with the model's own function
(``Position.from_dict``, ``notation_to_position``: spec clauses move.*), which decides,
and gives the error for, anything they do not read.
"""

from __future__ import annotations

import functools
import itertools

from conformance.model import (
    CHECKERS,
    FalseHitMark,
    ModelError,
    Position,
    notation_to_position,
    parse_play,
)
from conformance.model.play import _move as _move_checker


def _board_side(spec) -> tuple | None:
    """The 26-tuple of a side in the board form, when it is plainly valid (int point
    keys 1..24, int counts, at most 15 checkers, ``off`` right if given); None for
    anything else, left to read_position."""
    if spec.__class__ is not dict or not spec.keys() <= _SIDE_KEYS:
        return None
    board = [0] * 26
    points = spec.get("points") or {}
    if points.__class__ is not dict:
        return None
    for p, n in points.items():
        if p.__class__ is not int or not 1 <= p <= 24 or n.__class__ is not int or n < 0:
            return None
        board[p] = n
    bar = spec.get("bar", 0)
    if bar.__class__ is not int or bar < 0:
        return None
    board[25] = bar
    on_board = sum(board)
    off = spec.get("off", CHECKERS - on_board)
    if on_board > CHECKERS or off.__class__ is not int or off != CHECKERS - on_board:
        return None
    board[0] = off
    return tuple(board)


_SIDE_KEYS = frozenset({"points", "bar", "off"})


def _board_position(value) -> Position | None:
    """``Position.from_dict(value)`` for a plainly valid board form (see _board_side),
    with no point held by both sides; None for anything else."""
    if value.__class__ is not dict or len(value) != 3 or value.get("on_roll") not in ("x", "o"):
        return None
    x, o = _board_side(value.get("x")), _board_side(value.get("o"))
    if x is None or o is None or (x[0] == CHECKERS and o[0] == CHECKERS):
        return None
    for p in range(1, 25):
        if x[p] and o[25 - p]:
            return None
    return _unchecked_position(value["on_roll"], x, o)


_parsed_play = functools.lru_cache(maxsize=4096)(parse_play)


def _play_result(position: Position, text, sides: dict | None = None) -> Position:
    """``notation_to_position(position, text)``, faster: the moves are checked as
    there (model.play._move; the written order first, then the other orders) and
    the result, reached by moving checkers of a valid position, is not validated
    again. A play that cannot be made is left to notation_to_position for its error."""
    try:
        chains = _parsed_play(text)
    except (ModelError, TypeError):
        return notation_to_position(position, text)
    if len(chains) > 4:  # no play has more than four moves: notation_to_position says so
        return notation_to_position(position, text)
    on_roll = position.on_roll
    mover, opponent = position.mover, position.opponent
    for order in itertools.permutations(chains) if len(chains) > 1 else (chains,):
        me, opp = list(mover), list(opponent)
        try:
            for points, marks in order:
                for a, b, star in zip(points, points[1:], marks):
                    if not _move_checker(me, opp, a, b, on_roll) and star:
                        raise FalseHitMark("")
        except ModelError:
            continue
        break
    else:
        return notation_to_position(position, text)
    me_t, opp_t = tuple(me), tuple(opp)
    if opp_t == opponent:  # nothing hit: share the tuple
        opp_t = opponent
    elif sides is not None:
        opp_t = sides.setdefault(opp_t, opp_t)
    if sides is not None:
        me_t = sides.setdefault(me_t, me_t)
    if on_roll == "x":
        return _unchecked_position("o", me_t, opp_t)
    return _unchecked_position("x", opp_t, me_t)


def _unchecked_position(on_roll: str, x: tuple, o: tuple) -> Position:
    """A Position built without validation, as Position.trusted, but with its fields
    set one by one as the dataclass's own __init__ does: in CPython 3.11 that keeps
    them in the object (about 100 bytes) instead of a separate __dict__ (240)."""
    pos = _new_object(Position)
    _set_field(pos, "on_roll", on_roll)
    _set_field(pos, "x", x)
    _set_field(pos, "o", o)
    return pos


_new_object, _set_field = object.__new__, object.__setattr__
