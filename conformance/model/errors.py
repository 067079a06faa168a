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


class CodecError(ModelError):
    """A Position ID (or other interchange string) that cannot be decoded
    (spec: format.position-id)."""
