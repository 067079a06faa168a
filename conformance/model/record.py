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
"""

from __future__ import annotations

import re

from .errors import NotationError
from .play import parse_dice, parse_play

EVENT_TYPES = ("opening", "roll", "play", "roll_play", "double", "take", "drop", "beaver", "raccoon")
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


def written_steps(play: str) -> list[list[int]]:
    """The moves of a play as written: ``"13/7*/5 6/5"`` -> ``[[13, 7], [7, 5], [6, 5]]``
    (25 bar, 0 off; a move may span several dice). Raises NotationError."""
    steps = []
    for points, _marks in parse_play(play):
        steps.extend([a, b] for a, b in zip(points, points[1:]))
    return steps


def parse_event(text: str) -> dict:
    """The wire form of one event line (see the module docstring). Raises NotationError
    naming what cannot be read, with the forms an event may take."""
    if not isinstance(text, str):
        raise NotationError(f"an event is a line of text such as 'x 31: 8/5 6/5', not {text!r}")
    line = " ".join(text.split())
    if m := _OPENING.fullmatch(line):
        return {"type": "opening", "dice": [int(m[1]), int(m[2])], "text": line}
    if m := _ROLL.fullmatch(line):
        return {"type": "roll", "side": m[1], "dice": list(parse_dice([int(m[2]), int(m[3])])), "text": line}
    if m := _ROLL_PLAY.fullmatch(line):
        return {"type": "roll_play", "side": m[1], "dice": [int(m[2]), int(m[3])], "play": m[4],
                "steps": written_steps(m[4]), "text": line}
    if m := _PLAY.fullmatch(line):
        return {"type": "play", "side": m[1], "play": m[2], "steps": written_steps(m[2]), "text": line}
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
