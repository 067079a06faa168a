"""Game records: the events of a game written as people write them (spec: record.events).

One event is one line of text::

    opening x3 o1          an opening throw: x's die 3, o's die 1 (a tie is thrown again)
    x rolls 64             x throws the dice
    x plays 24/18 13/9     x plays the roll thrown (``none`` when nothing can be played)
    x 64: 24/18 13/9       x throws 6-4 and plays it (after an opening throw: plays its numbers)
    o doubles              also ``o redoubles``
    x takes / x drops
    x beavers / o raccoons

``parse_event`` turns a line into the event's wire form (spec/protocol.md, game_record)::

    {"type": "roll_play", "side": "x", "dice": [6, 4], "play": "24/18 13/9",
     "steps": [[24, 18], [13, 9]], "text": "x 64: 24/18 13/9"}

``type`` is one of EVENT_TYPES; ``side`` is absent for an opening throw, whose ``dice``
are ``[x's die, o's die]``; ``play`` and ``steps`` (the moves as written, a move may span
several dice) come with ``play`` and ``roll_play``.

The same events, read from a match record (``.mat``, ``.sgf``), are ``Event`` objects: the
one event type of every record, a game_record case's line and a match record's action alike,
with where it was written (``Source``). A match record adds two types a game_record case has
no line for: ``resign`` and ``win`` (the recorded result, ``value`` its points). The games and
the match of such a record are ``GameRecord`` and ``MatchRecord``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from .errors import NotationError
from .play import parse_dice, written_moves

EVENT_TYPES = ("opening", "roll", "play", "roll_play", "double", "take", "drop", "beaver", "raccoon")
#: the event types only a match record writes: a resignation, and the recorded result
RESULT_EVENT_TYPES = ("resign", "win")
#: the cube verbs of the notation and the event type each writes
CUBE_VERBS = {"doubles": "double", "redoubles": "double", "takes": "take", "drops": "drop",
              "beavers": "beaver", "raccoons": "raccoon"}

_OPENING = re.compile(r"opening\s+x([1-6])\s+o([1-6])")
_ROLL = re.compile(r"([xo])\s+rolls\s+([1-6])-?([1-6])")
_PLAY = re.compile(r"([xo])\s+plays\s+(\S.*)")
_ROLL_PLAY = re.compile(r"([xo])\s+([1-6])-?([1-6])\s*:\s*(\S.*)")
_CUBE = re.compile(r"([xo])\s+(" + "|".join(CUBE_VERBS) + r")")
_FORMS = ("'opening x3 o1', 'x rolls 31', 'x plays 8/5 6/5', 'x 31: 8/5 6/5', 'x doubles',"
          " 'o takes', 'o drops', 'o beavers', 'x raccoons'")


class Source(NamedTuple):
    """Where an event was written: ``file`` (as shown), ``line`` (1-based, 0 = unknown),
    ``game`` (1-based) and ``move`` (the move number written on the line, None when none).
    A NamedTuple: a record file makes one for each of its thousands of events."""

    file: str = ""
    line: int = 0
    game: int | None = None
    move: int | None = None


@dataclass(eq=True, slots=True)
class Event:
    """One event of a record (spec: record.events): ``type`` (EVENT_TYPES or
    RESULT_EVENT_TYPES), ``side`` (``x``/``o``; None for an opening throw), ``dice``
    (two ints 1..6: the throw; for an opening throw x's die and o's die), ``play`` (the
    moves as written, ``none`` for no play) and ``steps`` (them as ``(from, to)`` pairs in
    the mover's numbering, 25 bar, 0 off, a pair possibly spanning several dice), ``value``
    (a double's value offered, a win's points; None when not written), ``text`` (the event
    as written) and ``source`` (where, or None). Two events are equal when all but their
    sources are; an event is not changed once made (nothing assigns to it), but it is no frozen
    dataclass, whose making costs twice as much on the record reader's path."""

    type: str
    side: str | None = None
    dice: tuple[int, int] | None = None
    play: str | None = None
    steps: tuple[tuple[int, int], ...] = ()
    value: int | None = None
    text: str = ""
    source: Source | None = field(default=None, compare=False)

    @property
    def kind(self) -> str:
        """What is judged: ``play`` for a play with or without its throw, else the type."""
        return "play" if self.type in ("play", "roll_play") else self.type

    @property
    def segments(self) -> list[tuple[int, int]]:
        """The written moves as a list, by the name a match record's plays give them."""
        return list(self.steps)

    @property
    def line(self) -> int:
        return self.source.line if self.source else 0

    @property
    def move(self) -> int | None:
        return self.source.move if self.source else None

    @classmethod
    def parse(cls, text: str, source: Source | None = None) -> "Event":
        """The event of one line of the notation (see the module docstring). Raises
        NotationError naming what cannot be read, with the forms an event may take."""
        return cls.from_wire(parse_event(text), source)

    @classmethod
    def from_wire(cls, wire: dict, source: Source | None = None) -> "Event":
        """The event of its wire form (``parse_event``'s dict; extra keys such as a case's
        ``n`` are ignored). Raises KeyError for a dict without ``type``."""
        dice = wire.get("dice")
        return cls(wire["type"], wire.get("side"), tuple(dice) if dice is not None else None, wire.get("play"),
                   tuple((a, b) for a, b in wire.get("steps", ())), wire.get("value"), wire.get("text", ""), source)

    def to_wire(self) -> dict:
        """The wire form (spec/protocol.md, game_record): the dict of ``parse_event``."""
        out: dict = {"type": self.type}
        if self.side is not None:
            out["side"] = self.side
        if self.dice is not None:
            out["dice"] = list(self.dice)
        if self.play is not None:
            out["play"] = self.play
            out["steps"] = [list(s) for s in self.steps]
        if self.value is not None:
            out["value"] = self.value
        out["text"] = self.text
        return out


@dataclass
class GameRecord:
    """One game of a match record: its ``number``, header ``line``, ``score`` before it
    ``{x, o}``, its ``events`` (Event, each with its Source), and ``error``: the
    RecordError that stops it (None when it reads to the end)."""

    number: int
    line: int
    score: dict
    events: list
    error: "RecordError | None" = None

    @property
    def actions(self) -> list:
        """The events, by the name a match record gives them (its actions)."""
        return self.events


@dataclass
class MatchRecord:
    """A match record: ``path`` (the file as shown), match ``length`` (0 = money), player
    ``names`` ``{x, o}`` (``x`` = the record's player 1), the rule options its header sets,
    its ``games`` (GameRecord), where it came from (``via``), and ``error``: the RecordError of
    the file as a whole that ends its reading (a second match in the file), None when none."""

    path: str
    length: int
    names: dict
    rules: dict
    games: list
    via: str = ""
    error: "RecordError | None" = None


class RecordError(Exception):
    """A record (or one of its lines) cannot be read: ``line`` (1-based, 0 = the whole file)
    and the reason (``message``)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


def parse_event(text: str) -> dict:
    """The wire form of one event line (see the module docstring): ``Event.parse`` reads
    it into the model. Raises NotationError naming what cannot be read, with the forms an
    event may take."""
    if not isinstance(text, str):
        raise NotationError(f"an event is a line of text such as 'x 31: 8/5 6/5', not {text!r}")
    line = " ".join(text.split())
    if m := _OPENING.fullmatch(line):
        return {"type": "opening", "dice": [int(m[1]), int(m[2])], "text": line}
    if m := _ROLL.fullmatch(line):
        return {"type": "roll", "side": m[1], "dice": list(parse_dice([int(m[2]), int(m[3])])), "text": line}
    if m := _ROLL_PLAY.fullmatch(line):
        return {"type": "roll_play", "side": m[1], "dice": [int(m[2]), int(m[3])], "play": m[4],
                "steps": [list(move) for move in written_moves(m[4])], "text": line}
    if m := _PLAY.fullmatch(line):
        return {"type": "play", "side": m[1], "play": m[2], "steps": [list(move) for move in written_moves(m[2])], "text": line}
    if m := _CUBE.fullmatch(line):
        return {"type": CUBE_VERBS[m[2]], "side": m[1], "text": line}
    raise NotationError(f"cannot read the event {text!r}; an event is one of {_FORMS}")


def swap_event(event: dict) -> dict:
    """The same event with the colours exchanged (wire form in and out): the other side
    acts, an opening throw's two dice change hands; plays stay as written, each side
    numbering its own points."""
    text = event["text"]
    if event["type"] == "opening":
        a, b = event["dice"]
        swapped = f"opening x{b} o{a}"
    else:
        swapped = ("o" if text[0] == "x" else "x") + text[1:]
    out = parse_event(swapped)
    return {**{k: v for k, v in event.items() if k not in out}, **out}
