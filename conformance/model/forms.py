"""A position in any of its written forms, read into a Position.

The forms (spec: format.board, format.position-id, format.xgid): the board form
(``{"on_roll": "x", "x": {"points": ...}, "o": {...}}``), ``"start"``,
``{"gnubg_id": "4HPwATDgc/ABMA", "on_roll": "x"}`` (``on_roll`` optional, default
``"x"``) and ``{"xgid": "XGID=..."}``. This module sits above the position and its
codecs, so that the position itself imports no codec.
"""

from __future__ import annotations

from typing import Any, Mapping

from .gnubg_id import decode_position_id
from .position import Position
from .xgid import decode_xgid


def read_position(data: Any) -> Position:
    """``data`` in any written form -> Position.

    Raises PositionError (a board form or ``"start"`` that is not a position) or
    CodecError (an ID that does not decode), each naming the offending field.
    """
    if isinstance(data, Mapping):
        if "xgid" in data:
            return decode_xgid(data["xgid"])
        if "gnubg_id" in data:
            return decode_position_id(data["gnubg_id"], on_roll=str(data.get("on_roll", "x")))
    return Position.from_dict(data)
