"""Positions: the board as both sides see it.

A side's checkers are a tuple of 26 counts in that side's OWN numbering
(spec: board.points): index 0 = borne off, 1..24 = points, 25 = bar. A side's
point ``p`` is the other side's point ``25 - p``. Checkers move from higher to
lower indices; bearing off is a move to index 0.

The board form used in case files and engine requests (spec: format.board)::

    {"on_roll": "x",
     "x": {"points": {24: 2, 13: 5, 8: 3, 6: 5}, "bar": 0, "off": 0},
     "o": {"points": {24: 2, 13: 5, 8: 3, 6: 5}}}

``off`` is derived (the variant's checker count, 15 unless told, minus the rest) and checked
when given; a side's total (board, bar and off) is its checker count: 15, or 1, 2 or 3 in
hypergammon (spec: variant.option, variant.checkers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .errors import PositionError

SIDES = ("x", "o")
OFF = 0
BAR = 25
CHECKERS = 15
START_POINTS = {24: 2, 13: 5, 8: 3, 6: 5}
#: Each variant's starting position, the same for both sides in their own numbering
#: (spec: setup.start, variant.nackgammon, variant.hypergammon); the keys are the values of the
#: rule option ``variant`` (spec: variant.option).
VARIANT_STARTS: dict[str, dict[int, int]] = {
    "standard": START_POINTS,
    "nackgammon": {24: 2, 23: 2, 13: 4, 8: 3, 6: 4},
    "hypergammon-1": {24: 1},
    "hypergammon-2": {24: 1, 23: 1},
    "hypergammon-3": {24: 1, 23: 1, 22: 1},
}
VARIANTS = tuple(VARIANT_STARTS)
#: Checkers a side in each variant (spec: variant.checkers).
VARIANT_CHECKERS = {name: sum(points.values()) for name, points in VARIANT_STARTS.items()}
#: The checker counts a position may have: a position is one of some variant's.
CHECKER_COUNTS = tuple(sorted(set(VARIANT_CHECKERS.values())))


def other(side: str) -> str:
    """The other side's name: ``"x"`` <-> ``"o"``."""
    return "o" if side == "x" else "x"


def _side_from_points(points: Mapping[int, int], bar: int = 0, checkers: int = CHECKERS) -> tuple[int, ...]:
    board = [0] * 26
    for p, n in points.items():
        board[p] = n
    board[BAR] = bar
    board[OFF] = checkers - sum(board[1:])
    return tuple(board)


START_SIDE = _side_from_points(START_POINTS)
_START_SIDES = {name: _side_from_points(points, checkers=VARIANT_CHECKERS[name])
                for name, points in VARIANT_STARTS.items()}


def variant_checkers(variant: str) -> int:
    """Checkers a side in ``variant`` (a value of the rule option, spec: variant.option).
    Raises PositionError naming the variants for an unknown one."""
    try:
        return VARIANT_CHECKERS[variant]
    except (KeyError, TypeError):
        raise PositionError(f"unknown variant {variant!r}; variants: {', '.join(VARIANTS)}") from None


def check_variant(position: "Position", variant: str) -> None:
    """Raise PositionError unless ``position`` has the checker count of ``variant``
    (spec: variant.checkers): 15 a side in the standard game and nackgammon, N in hypergammon-N."""
    want = variant_checkers(variant)
    if position.checkers != want:
        raise PositionError(
            f"the position has {position.checkers} checkers a side; {variant} is played with {want}")


def check_sides(x: tuple[int, ...], o: tuple[int, ...]) -> None:
    """Raise PositionError unless ``x`` and ``o`` form a valid position.

    Checks (spec: board.checkers, variant.checkers): 26 non-negative counts per side, both
    sides with the same total (off included), a total some variant plays with (15, or 1, 2, 3
    in hypergammon), and no point held by both sides (x's p is o's 25 - p). Whether the total
    is the one of the variant played is ``check_variant``'s question.
    """
    for name, side in (("x", x), ("o", o)):
        if len(side) != 26:
            raise PositionError(f"side {name} has {len(side)} slots, expected 26")
        # the types first (map in C: this check runs for every position built), then the signs
        if not all(issubclass(t, int) for t in set(map(type, side))) or min(side) < 0:
            raise PositionError(f"side {name} has a negative or non-integer count")
        on_board = sum(side[1:])
        if on_board > CHECKERS:
            raise PositionError(
                f"side {name} has {on_board} checkers on the board and bar; at most {CHECKERS}")
        if sum(side) not in CHECKER_COUNTS:
            raise PositionError(
                f"side {name}: {on_board} on the board and bar plus {side[OFF]} off"
                f" is not {CHECKERS} (nor 1, 2 or 3, hypergammon's counts)")
    if sum(x) != sum(o):
        raise PositionError(f"side x has {sum(x)} checkers and side o {sum(o)}: both sides have the same number")
    if x[OFF] == sum(x) and o[OFF] == sum(o):
        raise PositionError(f"both sides have borne off all {sum(x)} checkers: a game ends when the first does")
    for p in range(1, 25):
        if x[p] and o[25 - p]:
            raise PositionError(
                f"point shared by both sides: x has {x[p]} on its {p}-point"
                f" and o has {o[25 - p]} on its {25 - p}-point (the same point)")


@dataclass(frozen=True)
class Position:
    """A backgammon position: both sides' checkers and the side on roll.

    ``x`` and ``o`` are 26-tuples (index 0 off, 1..24 points, 25 bar), each in
    its own numbering. Construction validates (raises PositionError).
    Two positions are equal iff board, bars, off and side on roll are equal.
    """

    on_roll: str
    x: tuple[int, ...]
    o: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.on_roll not in SIDES:
            raise PositionError(f"on_roll must be 'x' or 'o', not {self.on_roll!r}")
        check_sides(self.x, self.o)

    # -- constructors -------------------------------------------------------
    @classmethod
    def start(cls, on_roll: str = "x", variant: str = "standard") -> "Position":
        """The starting position of ``variant`` (spec: setup.start, variant.nackgammon,
        variant.hypergammon). Raises PositionError for an unknown variant."""
        variant_checkers(variant)
        side = _START_SIDES[variant]
        return cls(on_roll, side, side)

    @classmethod
    def trusted(cls, on_roll: str, x: tuple[int, ...], o: tuple[int, ...]) -> "Position":
        """Build without validation, for callers that keep the invariants by
        construction (an engine moving checkers of a valid position)."""
        pos = object.__new__(cls)
        pos.__dict__.update(on_roll=on_roll, x=x, o=o)  # frozen: no __setattr__, but the dict is ours
        return pos

    @classmethod
    def from_mover(cls, on_roll: str, mover: tuple[int, ...], opponent: tuple[int, ...]) -> "Position":
        """Build from the side on roll and its opponent (each a 26-tuple)."""
        if on_roll == "x":
            return cls("x", tuple(mover), tuple(opponent))
        return cls("o", tuple(opponent), tuple(mover))

    @classmethod
    def from_dict(cls, data: Any, variant: str = "standard") -> "Position":
        """Parse the board form or ``"start"`` (spec: format.board). The ID forms
        (``{"gnubg_id": ...}``, ``{"xgid": ...}``) are read by ``model.read_position``.
        ``variant`` gives ``"start"`` and the checker count from which an omitted ``off`` is
        derived (spec: variant.checkers); a side that gives ``off`` has that total.

        Raises PositionError naming the offending field.
        """
        checkers = variant_checkers(variant)
        if data == "start":
            return cls.start(variant=variant)
        if not isinstance(data, Mapping):
            raise PositionError(f"a position is 'start' or a mapping, not {data!r}")
        for key in ("gnubg_id", "xgid", "fibs_board"):
            if key in data:
                raise PositionError(f"{key!r} is an ID form: read it with conformance.model.read_position")
        on_roll = data.get("on_roll", "x")
        sides = {}
        for name in SIDES:
            spec = data.get(name)
            if not isinstance(spec, Mapping):
                raise PositionError(f"position needs side {name!r} as a mapping with 'points'")
            sides[name] = _parse_side(name, spec, checkers)
        return cls(on_roll, sides["x"], sides["o"])

    # -- views -------------------------------------------------------------
    @property
    def mover(self) -> tuple[int, ...]:
        """The side on roll's 26-tuple."""
        return self.x if self.on_roll == "x" else self.o

    @property
    def opponent(self) -> tuple[int, ...]:
        """The side not on roll's 26-tuple."""
        return self.o if self.on_roll == "x" else self.x

    @property
    def checkers(self) -> int:
        """Checkers a side (the same for both): 15, or 1, 2, 3 in hypergammon (spec: variant.checkers)."""
        return sum(self.x)

    def side(self, name: str) -> tuple[int, ...]:
        """The 26-tuple of side ``name`` (``"x"`` or ``"o"``)."""
        return self.x if name == "x" else self.o

    def pips(self, name: str) -> int:
        """Pip count of side ``name``: sum of point number times checkers, bar = 25."""
        return sum(i * n for i, n in enumerate(self.side(name)))

    def with_turn(self, on_roll: str) -> "Position":
        """The same board with ``on_roll`` to play."""
        return Position(on_roll, self.x, self.o)

    def passed(self) -> "Position":
        """The same board with the other side on roll (the board is this position's, already
        checked: it is not checked again)."""
        return Position.trusted(other(self.on_roll), self.x, self.o)

    def swap_colours(self) -> "Position":
        """The same game with the names x and o exchanged (board and turn)."""
        return Position(other(self.on_roll), self.o, self.x)

    def to_dict(self) -> dict:
        """The board form (sparse points, bar and off always given)."""
        out: dict = {"on_roll": self.on_roll}
        for name in SIDES:
            s = self.side(name)
            out[name] = {
                "points": {p: s[p] for p in range(24, 0, -1) if s[p]},
                "bar": s[BAR],
                "off": s[OFF],
            }
        return out

    def to_wire(self) -> dict:
        """The board form with string point keys, as JSON carries it."""
        d = self.to_dict()
        for name in SIDES:
            d[name]["points"] = {str(p): n for p, n in d[name]["points"].items()}
        return d

    def __str__(self) -> str:
        def fmt(s: tuple[int, ...]) -> str:
            parts = [f"{p}:{s[p]}" for p in range(24, 0, -1) if s[p]]
            if s[BAR]:
                parts.insert(0, f"bar:{s[BAR]}")
            if s[OFF]:
                parts.append(f"off:{s[OFF]}")
            return "{" + " ".join(parts) + "}"

        return f"{self.on_roll} on roll; x {fmt(self.x)}; o {fmt(self.o)}"


def _parse_side(name: str, spec: Mapping, checkers: int = CHECKERS) -> tuple[int, ...]:
    unknown = set(spec) - {"points", "bar", "off"}
    if unknown:
        raise PositionError(f"side {name}: unknown key(s) {sorted(unknown)}; use points, bar, off")
    points = spec.get("points") or {}
    if not isinstance(points, Mapping):
        raise PositionError(f"side {name}: points must be a mapping point -> count")
    board = [0] * 26
    for key, n in points.items():
        try:
            p = int(key)
        except (TypeError, ValueError):
            raise PositionError(f"side {name}: point {key!r} is not a number 1..24") from None
        if not 1 <= p <= 24:
            raise PositionError(f"side {name}: point {p} is outside 1..24 (use bar: and off:)")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise PositionError(f"side {name}: point {p} has count {n!r}; counts are integers >= 0")
        board[p] = n
    bar = spec.get("bar", 0)
    if not isinstance(bar, int) or isinstance(bar, bool) or bar < 0:
        raise PositionError(f"side {name}: bar {bar!r} is not an integer >= 0")
    board[BAR] = bar
    on_board = sum(board[1:])
    if on_board > CHECKERS:
        raise PositionError(
            f"side {name} has {on_board} checkers on the board and bar; at most {CHECKERS}")
    off = spec.get("off", checkers - on_board)
    if not isinstance(off, int) or isinstance(off, bool) or off < 0 or on_board + off not in CHECKER_COUNTS:
        want = checkers - on_board
        raise PositionError(
            f"side {name}: off is given as {spec['off']!r} but {on_board} checkers are on the"
            f" board and bar, so off must be {want} (a side has {CHECKERS} checkers, or 1, 2 or 3 in"
            f" hypergammon)" if "off" in spec else
            f"side {name} has {on_board} checkers on the board and bar; at most {checkers}")
    board[OFF] = off
    return tuple(board)
