"""A position in any of its written forms, read into a Position.

The forms (spec: format.board, format.position-id, format.xgid): the board form
(``{"on_roll": "x", "x": {"points": ...}, "o": {...}}``), ``"start"``,
``{"gnubg_id": "4HPwATDgc/ABMA", "on_roll": "x"}`` (``on_roll`` optional, default
``"x"``; with ``"match_id"``, a GNU Backgammon Match ID, the side on roll is its player on
roll, spec: format.match-id), ``{"xgid": "XGID=..."}`` and ``{"fibs_board": "board:..."}``
(the board and turn of a FIBS board line, spec: format.fibs-board). This module sits above the position and its
codecs, so that the position itself imports no codec.
"""

from __future__ import annotations

from typing import Any, Mapping

from .errors import CodecError, PositionError
from .fibs import decode_fibs_board
from .gnubg_id import decode_position_id
from .match_id import IdState, decode_match_id
from .position import Position, variant_checkers
from .xgid import decode_xgid, decode_xgid_state


def read_position(data: Any, variant: str = "standard") -> Position:
    """``data`` in any written form -> Position. ``variant`` (spec: variant.option) gives
    ``"start"`` and the checker count from which the off counts are derived where the form
    leaves them out (a board form without ``off``, a Position ID); XGID and FIBS boards are
    read as the standard game's.

    Raises PositionError (a board form or ``"start"`` that is not a position) or
    CodecError (an ID that does not decode), each naming the offending field.
    """
    if isinstance(data, Mapping):
        if "xgid" in data:
            return decode_xgid(data["xgid"])
        if "fibs_board" in data:
            return decode_fibs_board(data["fibs_board"]).position
        if "gnubg_id" in data:
            on_roll = data.get("on_roll")
            if data.get("match_id") is not None:
                by_id = decode_match_id(data["match_id"]).on_roll
                if on_roll is not None and on_roll != by_id:
                    raise PositionError(f"on_roll {on_roll} but the Match ID {data['match_id']} has {by_id} on roll")
                on_roll = by_id
            return decode_position_id(data["gnubg_id"], on_roll=str(on_roll or "x"),
                                      checkers=variant_checkers(variant))
    return Position.from_dict(data, variant)


def read_position_text(text: str, variant: str = "standard") -> tuple[Position, IdState | None]:
    """A position written on one line, as a command line takes it -> (Position, the state beside
    the board or None when the text carries none).

    The forms: ``start``; a 14-character Position ID (x on roll, no state); a Position ID and a
    Match ID joined by ``:`` as GNU Backgammon writes them (``4HPwATDgc/ABMA:cAkAAAAAAAAA``: the
    Match ID gives the side on roll, dice, cube and score); an ``XGID=...``; a FIBS
    ``board:...`` line (its dice, cube and score). Raises CodecError (an ID that does not decode)
    or another ModelError (a state that cannot be), each naming the offending field.
    ``variant`` (spec: variant.option) gives ``start`` and a Position ID's checker count.
    """
    text = text.strip()
    checkers = variant_checkers(variant)
    if text == "start":
        return Position.start(variant=variant), None
    if text.startswith("XGID="):
        return decode_xgid_state(text)
    if text.startswith("board:"):
        board = decode_fibs_board(text)
        return board.position, IdState(cube=board.cube_state(), on_roll=board.position.on_roll,
                                       dice=board.dice, match=board.match())
    if text.count(":") > 1:
        raise CodecError(f"{text[:40]!r} is neither a Position ID, a Position ID:Match ID, an XGID= nor a"
                         f" FIBS board: line")
    position_id, _, match_id = text.partition(":")
    if not match_id:
        return decode_position_id(position_id, checkers=checkers), None
    state = decode_match_id(match_id)
    return decode_position_id(position_id, on_roll=state.on_roll, checkers=checkers), state
