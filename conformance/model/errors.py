"""Errors raised by the model: every one names what is wrong in one line."""


class ModelError(ValueError):
    """Base class: bad input to the model (position, dice, notation, codec)."""


class PositionError(ModelError):
    """An impossible or malformed position (spec: board.checkers)."""


class DiceError(ModelError):
    """A roll that is not two dice of 1..6."""


class NotationError(ModelError):
    """Play notation that cannot be parsed, or cannot be applied to the position
    (spec: format.notation)."""


class FalseHitMark(NotationError):
    """A ``*`` in notation where no blot is hit (spec: format.notation)."""


#: Why a codec refuses an id or a state (spec: format.refusal).
REFUSALS = ("wrong_length", "not_base64", "too_many_checkers", "shared_point", "score_not_below_length",
            "cube_not_power_of_two", "bad_field")


class CodecError(ModelError):
    """An id (Position ID, Match ID, XGID) that cannot be decoded, or a state that cannot
    be encoded (spec: format.position-id, format.match-id, format.xgid). ``reason`` is one
    of REFUSALS (spec: format.refusal)."""

    def __init__(self, message: str, reason: str = "bad_field") -> None:
        super().__init__(message)
        self.reason = reason if reason in REFUSALS else "bad_field"
