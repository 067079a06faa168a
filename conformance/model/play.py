"""Dice, plays, notation, and applying steps with physical checks only.

A *step* (a move) is ``(from, to)`` in the mover's numbering: 25 = bar,
0 = off. A *play* is the steps of one roll. Applying steps here checks only
what is physically possible (a checker stands on the source; the landing point
is not held by two or more opposing checkers, which would make a shared point;
a single opposing checker there is hit). Whether the play is *legal* is the
reference engine's business, not this module's.

Notation (spec: format.notation): ``24/18 13/11``, ``bar/22``, ``6/off``,
``13/7*/5``, ``8/5(2)``; ``*`` is optional on input but must be true where
present; a point not written inside a chain is taken as not hitting.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import Any, Iterable, Sequence

from .errors import DiceError, FalseHitMark, NotationError
from .forms import read_position
from .position import BAR, OFF, Position, other

Step = tuple[int, int]

_BAR_WORDS = {"bar", "b", "ba", "25"}
_OFF_WORDS = {"off", "o", "of", "0"}
_EMPTY_WORDS = {"", "none", "pass", "-", "no play"}
_TOKEN = re.compile(r"^(?P<chain>[^()]+?)(?:\((?P<count>\d)\))?$")


# -- dice -------------------------------------------------------------------
def parse_dice(value: Any) -> tuple[int, int]:
    """Parse a roll: ``[6, 5]``, ``(6, 5)``, ``"65"``, ``"6-5"`` -> ``(6, 5)``.

    The order is kept as given (it never matters to the rules). Raises DiceError.
    """
    if isinstance(value, str):
        digits = [c for c in value if not c.isspace() and c not in "-,/"]
        value = [int(c) if c.isdigit() else c for c in digits]
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value)):
        raise DiceError(f"a roll is two dice of 1..6 such as [6, 5], not {value!r}")
    return (value[0], value[1])


def dice_moves(dice: Sequence[int]) -> list[int]:
    """The die values a roll gives: two for a non-double, four for a double
    (spec: move.doubles)."""
    d1, d2 = dice
    return [d1] * 4 if d1 == d2 else [d1, d2]


# -- physical application -------------------------------------------------------
def _move(me: list[int], opp: list[int], src: int, dst: int, who: str) -> bool:
    """Move one checker of ``me`` from src to dst; return True if it hit a blot."""
    if not (1 <= src <= 25 and 0 <= dst <= 24 and dst < src):
        raise NotationError(
            f"{point_name(src)}/{point_name(dst)} is not a forward move (checkers of {who}"
            f" move from higher to lower points in their own numbering)")
    if me[src] == 0:
        where = "on the bar" if src == BAR else f"on point {src}"
        raise NotationError(f"{point_name(src)}/{point_name(dst)}: {who} has no checker {where}")
    hit = False
    if dst != OFF:
        q = 25 - dst
        if opp[q] >= 2:
            raise NotationError(
                f"{point_name(src)}/{point_name(dst)}: point {dst} is held by {opp[q]}"
                f" opposing checkers")
        if opp[q] == 1:
            opp[q] = 0
            opp[BAR] += 1
            hit = True
    me[src] -= 1
    me[dst] += 1
    return hit


def apply_steps(position: Position, steps: Iterable[Sequence[int]]) -> Position:
    """Apply steps for the side on roll, physically; return the position with the
    turn passed to the other side.

    ``steps``: iterable of ``(from, to)`` (25 = bar, 0 = off), in order.
    Raises NotationError naming the first step that is physically impossible.
    """
    me, opp = applied_sides(position, steps)
    return Position.from_mover(position.on_roll, me, opp).passed()


def applied_sides(position: Position, steps: Iterable[Sequence[int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``apply_steps`` without building the position: (mover's, opponent's) 26-tuples after the
    steps (each in its own numbering; a side whose steps were possible keeps its 15 checkers).
    Raises NotationError naming the first step that is physically impossible."""
    me, opp = list(position.mover), list(position.opponent)
    for step in steps:
        if len(step) != 2:
            raise NotationError(f"a step is [from, to], not {list(step)!r}")
        _move(me, opp, int(step[0]), int(step[1]), position.on_roll)
    return tuple(me), tuple(opp)


# -- notation parsing -----------------------------------------------------------
def point_name(p: int) -> str:
    """25 -> ``bar``, 0 -> ``off``, others -> the number."""
    return "bar" if p == BAR else "off" if p == OFF else str(p)


def _parse_point(word: str, token: str, first: bool) -> int:
    w = word.lower()
    if w in _BAR_WORDS and first:
        return BAR
    if w in _OFF_WORDS and not first:
        return OFF
    if w.isdigit() and 1 <= int(w) <= 24:
        return int(w)
    raise NotationError(f"unknown point {word!r} in {token!r} (points are 1..24, bar, off)")


def parse_play(text: str, forward: bool = True) -> list[tuple[list[int], list[bool]]]:
    """Parse notation into chains: ``[(points, hit_marks), ...]``.

    ``points`` is the path of one checker (``[13, 7, 5]`` for ``13/7*/5``);
    ``hit_marks[i]`` is True where ``*`` follows ``points[i + 1]``. A count
    ``(n)`` repeats the chain n times. Raises NotationError naming the token; with
    ``forward`` False a step that does not move forward (``6/8``) is read as written, for a
    record whose play breaks move.direction to be judged rather than unread.
    """
    if not isinstance(text, str):
        raise NotationError(f"a play in notation is a string, not {text!r}")
    if text.strip().lower() in _EMPTY_WORDS:
        return []
    chains = []
    for token in re.split(r"[\s,]+", text.strip()):
        if not token:
            continue
        m = _TOKEN.match(token)
        if not m or "/" not in m.group("chain"):
            raise NotationError(f"cannot read {token!r}: a move is from/to, e.g. 13/7 or bar/22")
        parts = m.group("chain").split("/")
        if any(not p for p in parts):
            raise NotationError(f"cannot read {token!r}: empty point between slashes")
        points, marks = [], []
        for i, part in enumerate(parts):
            star = part.endswith("*")
            word = part.rstrip("*")
            if star and i == 0:
                raise NotationError(f"cannot read {token!r}: '*' marks a landing point, not a start")
            points.append(_parse_point(word, token, first=(i == 0)))
            if i:
                marks.append(star)
        for a, b in zip(points, points[1:]):
            if b >= a and forward:
                raise NotationError(
                    f"{token!r}: {point_name(a)}/{point_name(b)} does not move forward")
            if a == OFF:
                raise NotationError(f"{token!r}: nothing moves on from off")
        count = int(m.group("count") or 1)
        if not 1 <= count <= 4:
            raise NotationError(f"{token!r}: a repeat count is 1..4")
        chains.extend([(points, marks)] * count)
    return chains


@functools.lru_cache(maxsize=8192)
def written_moves(text: str, forward: bool = True) -> tuple[Step, ...]:
    """The moves of a play as written, in order: ``"13/7*/5 6/5"`` -> ``((13, 7), (7, 5), (6, 5))``
    (mover's numbering, 25 bar, 0 off; a move may span several dice; ``(2)`` repeats a chain).
    The ``steps`` of a play_check request (spec: format.notation). Cached: records and suites
    repeat their plays. ``forward``: as for ``parse_play``. Raises NotationError."""
    return tuple((a, b) for points, _marks in parse_play(text, forward) for a, b in zip(points, points[1:]))


def _ways(distance: int, dice: list[int], off: bool) -> list[list[int]]:
    """The die sequences (two dice or more of ``dice``) that make a move of ``distance`` pips,
    each as the partial sums where it stops on the way; for a bear-off (``off``) the last die
    may be larger than what is left."""
    out: list[list[int]] = []

    def walk(done: int, left: list[int], stops: list[int]) -> None:
        for j, die in enumerate(left):
            if die in left[:j]:
                continue
            total = done + die
            if total == distance or (off and total > distance and done < distance):
                if stops:
                    out.append(stops)
            elif total < distance:
                walk(total, left[:j] + left[j + 1:], stops + [total])

    walk(0, dice, [])
    return out


def unmarked_hit_points(position: Position, dice: Sequence[int], steps: Iterable[Sequence[int]]) -> list[int]:
    """The points where a play's moves as written (``steps``, as ``written_moves`` gives them)
    could hit a blot on the way without saying so: for each move that no single die of the roll
    makes, and each bear-off (``4/off`` with 4-2 is the 4 alone, or 4/2/off), every point where
    some way of making it with several dice stops while a single opposing checker stands there (after the moves written before it, where they can be made).
    Sorted, in the mover's numbering; ``[]`` when the moves say every hit they can make.

    The notation reads such a point as passed without hitting (spec: format.notation), but a
    reader that takes only the moves' ends (an engine whose play input has no hit marks)
    cannot tell the two plays apart: a verdict on these moves rests on notation."""
    me, opp = list(position.mover), list(position.opponent)
    moves = dice_moves(dice)
    found: set[int] = set()
    for src, dst in steps:
        src, dst = int(src), int(dst)
        distance = src - dst
        # a move to a point is one die or several; a bear-off may be one die (exact or higher) or
        # several dice with stops on the way, and a reader of its two ends cannot tell which
        if distance > 0 and (dst == OFF or distance not in moves):
            for stops in _ways(distance, moves, dst == OFF):
                found.update(src - s for s in stops if 0 < src - s < 25 and opp[25 - (src - s)] == 1)
        try:
            _move(me, opp, src, dst, position.on_roll)
        except NotationError:
            pass
    return sorted(found)


def _apply_chains(position: Position, chains, order) -> Position:
    me, opp = list(position.mover), list(position.opponent)
    for i in order:
        points, marks = chains[i]
        for a, b, star in zip(points, points[1:], marks):
            hit = _move(me, opp, a, b, position.on_roll)
            if star and not hit:
                raise FalseHitMark(
                    f"{point_name(a)}/{point_name(b)}*: there is no blot of"
                    f" {other(position.on_roll)} on point {b} to hit")
    return Position.from_mover(position.on_roll, tuple(me), tuple(opp)).passed()


def notation_to_position(position: Position, text: str) -> Position:
    """Resulting position (turn passed) of a play written in notation.

    Moves are applied in the written order, or in the first other order that is
    physically possible (``6/2 8/6`` with no checker on 6 works as 8/6 then 6/2).
    Raises NotationError (unreadable token, impossible move, false ``*``, more than four
    moves).
    """
    chains = parse_play(text)
    if len(chains) > 4:  # spec: move.doubles, at most four moves; and at most 4! orders to try below
        raise NotationError(f"{text[:80]!r}: {len(chains)} moves written; a play has at most four")
    first_error: NotationError | None = None
    for order in itertools.permutations(range(len(chains))):
        try:
            return _apply_chains(position, chains, order)
        except NotationError as exc:
            first_error = first_error or exc
    assert first_error is not None
    raise first_error


def play_to_position(position: Position, play: Any) -> Position:
    """Resulting position of a play given as notation (str), a step list
    (``[[13, 7], [7, 5]]``) or a resulting position (a dict in any form of
    ``read_position``, in which case it is only parsed). Raises a ModelError subclass."""
    if isinstance(play, str):
        return notation_to_position(position, play)
    if isinstance(play, dict):
        if "steps" in play and len(play) == 1:
            return apply_steps(position, play["steps"])
        return read_position(play)
    if isinstance(play, (list, tuple)):
        return apply_steps(position, play)
    raise NotationError(f"a play is notation, a step list or a position, not {play!r}")


# -- canonical formatting -------------------------------------------------------
def format_play(position: Position, steps: Sequence[Sequence[int]]) -> str:
    """Canonical notation of a step list played from ``position``.

    One checker's consecutive steps are chained; intermediate points are kept
    only where a blot was hit; chains are sorted from the highest source (then
    the highest destination); identical chains merge with a count: ``8/5(2)``.
    An empty play is ``none``. Raises NotationError if a step is impossible.
    """
    me, opp = list(position.mover), list(position.opponent)
    chains: list[list[tuple[int, bool]]] = []  # [(point, hit_on_landing)], first = source
    for src, dst in steps:
        hit = _move(me, opp, src, dst, position.on_roll)
        for chain in chains:
            if chain[-1][0] == src and src != OFF:
                chain.append((dst, hit))
                break
        else:
            chains.append([(src, False), (dst, hit)])
    texts = []
    for chain in chains:
        kept = [chain[0]] + [c for c in chain[1:-1] if c[1]] + [chain[-1]]
        texts.append(((chain[0][0], chain[-1][0]),
                      "/".join(point_name(p) + ("*" if h else "") for p, h in kept)))
    texts.sort(key=lambda t: t[0], reverse=True)
    out: list[str] = []
    for text, group in itertools.groupby(t for _, t in texts):
        n = len(list(group))
        out.append(text if n == 1 else f"{text}({n})")
    return " ".join(out) if out else "none"


def play_text(position: Position, steps: Sequence[Sequence[int]]) -> str:
    """The notation of any step list, possible or not: ``format_play`` when the steps can be
    made one after the other, else each move written as ``from/to``, with ``*`` on each landing
    that hits a blot before the first move that cannot be made (a play_check candidate may be
    impossible). ``none`` for no step. Never raises for points 0..25."""
    try:
        return format_play(position, steps)
    except NotationError:
        pass
    me, opp = list(position.mover), list(position.opponent)
    words, possible = [], True
    for src, dst in steps:
        hit = False
        if possible:
            try:
                hit = _move(me, opp, src, dst, position.on_roll)
            except NotationError:
                possible = False
        words.append(f"{point_name(src)}/{point_name(dst)}{'*' if hit else ''}")
    return " ".join(words) or "none"
