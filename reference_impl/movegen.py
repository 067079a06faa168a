"""Legal plays: the movement rules, executable (spec: sections 2 to 4 of rules.md).

Representation. During a roll the mover's checkers are a list ``cnt`` of 26
counts in the mover's numbering (0 off, 1..24 points, 25 bar); the opponent's
checkers on the mover's point ``p`` are ``opp[25 - p]``. The opponent does not
move during the roll, so its board is read once (``_Facing``): which points are
blocked (two or more checkers, spec: move.open-point) and what hitting each
blot changes (spec: hit.blot). A resulting position is one int, the *packed
position*: one byte per count, the mover's 26 counts then the opponent's 26
(``pack``). A step adds to it the change of the checker moved, plus the hit when
it is the first landing on a blot; two plays are the same play iff their packed
positions are equal (spec: move.same-play), so a dict keyed by packed positions
keeps one entry per play.

Algorithm.

- A double (spec: move.doubles): the moves are searched in non-increasing order
  of their source points. Every legal play can be played in that order (a
  checker reaching a point comes from a higher one, the bar is the highest, and
  moving higher checkers first never makes a bear-off from the highest point
  illegal), so each play is reached once, without its permutations. When no
  checker is on the bar and at least four are outside the home board, no step
  can enter or bear off, and the steps each point allows are fixed by the board:
  ``_doubles`` lists them once and combines them. Otherwise each step is asked
  of ``_steps``, which follows the bar and bear-off rules as the roll goes on.
- Two different dice: with no checker on the bar and at least two outside the
  home board, a step of one die cannot change what the other die may do except
  by moving the same checker, so the plays are every pair (a step of one die, a
  step of the other) and one checker moved by both dice in either order;
  otherwise both orders are searched step by step. ``_choose`` then applies the
  rules that pick among plays (spec: move.maximum-dice, move.larger-die).

``step_error`` states the single-step rules with reasons (for play checks);
``_steps`` is its fast form for the search (the tests check that they agree, and
that the packed positions agree with the steps reported).
"""

from __future__ import annotations

from itertools import compress
from typing import Iterable, Sequence

from conformance.model import BAR, OFF, Position, dice_moves

Steps = tuple[tuple[int, int], ...]

_MINE = tuple(1 << 8 * p for p in range(26))  # one checker of the mover on point p
_THEIRS = tuple(1 << 8 * (26 + q) for q in range(26))  # one opposing checker on their point q


def pack(me: Sequence[int], opp: Sequence[int]) -> int:
    """The packed position: byte ``p`` = ``me[p]``, byte ``26 + q`` = ``opp[q]``
    (two 26-sequences of counts 0..15, each side in its own numbering)."""
    return int.from_bytes(bytes(me) + bytes(opp), "little")


def unpack(packed: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The two 26-tuples ``(me, opp)`` of a packed position."""
    b = packed.to_bytes(52, "little")
    return tuple(b[:26]), tuple(b[26:])


def step_error(me: Sequence[int], opp: Sequence[int], src: int, die: int) -> str | None:
    """Why moving one checker from ``src`` by ``die`` is illegal, or None if legal.

    Reason codes: ``no-checker``, ``bar-first`` (spec: bar.enter-first),
    ``blocked-point`` (spec: move.open-point, bar.entry-point),
    ``bear-off-not-allowed`` (spec: bearoff.all-home),
    ``bear-off-higher-checker`` (spec: bearoff.higher-die).
    """
    if not 0 < src <= BAR or me[src] == 0:  # the borne-off checkers are not a source
        return "no-checker"
    if me[BAR] and src != BAR:
        return "bar-first"
    dst = src - die
    if dst > 0:
        return "blocked-point" if opp[25 - dst] >= 2 else None
    # bearing off (spec: bearoff.all-home, bearoff.exact, bearoff.higher-die)
    if me[BAR] or any(me[7:25]):
        return "bear-off-not-allowed"
    if dst < 0 and any(me[src + 1:7]):
        return "bear-off-higher-checker"
    return None


def do_step(me: list[int], opp: list[int], src: int, die: int) -> int:
    """Move one checker of ``me`` from ``src`` by ``die`` in place (the step must be
    legal); hit a blot there (spec: hit.blot). Return the landing point (0 = off)."""
    dst = max(src - die, OFF)
    me[src] -= 1
    me[dst] += 1
    if dst and opp[25 - dst] == 1:
        opp[25 - dst] = 0
        opp[BAR] += 1
    return dst


_BLOCKS = bytes(count >= 2 for count in range(256))  # spec: move.open-point
_BLOTS = bytes(count == 1 for count in range(256))  # spec: hit.blot
_HIT = tuple(_THEIRS[BAR] - _THEIRS[25 - p] if 0 < p < 25 else 0 for p in range(26))


class _Facing:
    """What stays fixed during one roll, read from the opponent's board ``opp``,
    for the mover's points ``p`` = 1..24: ``blocked[p]`` (1 if the opponent has
    two or more checkers there, else 0) and ``hits[p]`` (the change to the packed
    position of hitting its blot there; 0 where there is no blot). Indexes 0 and
    25 are not points (they mirror the opponent's bar and borne-off checkers)
    and are never read."""

    __slots__ = ("blocked", "hits")

    def __init__(self, opp: Sequence[int]) -> None:
        facing = bytes(opp[::-1])  # facing[p]: the opponent's checkers on the mover's point p
        self.blocked = facing.translate(_BLOCKS)
        blots = facing.translate(_BLOTS)
        self.hits = _NO_HITS
        p = blots.find(1)
        if p >= 0:
            self.hits = [0] * 26
            while p >= 0:
                self.hits[p] = _HIT[p]
                p = blots.find(1, p + 1)


_NO_HITS = [0] * 26
_STEP = tuple(tuple(_MINE[max(src - die, OFF)] - _MINE[src] for src in range(26)) for die in range(7))


def _steps(cnt: Sequence[int], die: int, packed: int, facing: _Facing, outside: int,
           top: int = BAR) -> list[tuple[tuple[int, int], int]]:
    """Every legal single step of ``die`` (1..6) from the state ``cnt`` (packed
    ``packed``; ``outside``: the mover's checkers on the bar or points 7..24), from
    source points ``top`` and below: ``[((from, to), packed after), ...]`` with
    25 = bar and 0 = off. The fast form of ``step_error``.

    A blot is hit by the first checker that lands on it (spec: hit.blot);
    ``cnt[to] == 0`` tells the first landing in the searches below (two steps, or
    sources in non-increasing order, so no checker lands on a point it left)."""
    blocked, hits = facing.blocked, facing.hits
    if cnt[BAR]:
        found = []
        dst = BAR - die  # spec: bar.entry-point
        if top == BAR and not blocked[dst]:  # spec: bar.closed-board
            found.append(((BAR, dst), packed + _MINE[dst] - _MINE[BAR] + (0 if cnt[dst] else hits[dst])))
        return found  # spec: bar.enter-first
    top = min(top, 24)
    step = _STEP[die]
    if hits is _NO_HITS:
        found = [((src, src - die), packed + step[src])
                 for src in range(top, die, -1) if cnt[src] and not blocked[src - die]]  # spec: move.open-point
    else:  # the first checker landing on a blot hits it
        found = [((src, src - die), packed + step[src] + (0 if cnt[src - die] else hits[src - die]))
                 for src in range(top, die, -1) if cnt[src] and not blocked[src - die]]  # spec: move.open-point
    if not outside:  # spec: bearoff.all-home
        if cnt[die]:  # spec: bearoff.exact
            if die <= top:
                found.append(((die, OFF), packed + _STEP[die][die]))
        elif not any(cnt[die + 1:7]):  # spec: bearoff.higher-die: from the highest point only
            src = die - 1
            while src and not cnt[src]:
                src -= 1
            if 0 < src <= top:
                found.append(((src, OFF), packed + _STEP[die][src]))
    return found


def _doubles(cnt: list[int], top: int, die: int, packed: int, facing: _Facing, moves: int) -> dict[int, Steps]:
    """The plays of a double from ``cnt`` (highest checker on ``top``): up to
    ``moves`` (four) steps of ``die``, sources in non-increasing order; the plays
    of the most steps (spec: move.doubles, move.maximum-dice), as ``{packed:
    steps}``, empty when no step is possible. ``cnt`` is changed during the
    search and restored."""
    outside = sum(cnt[7:])
    if not cnt[BAR] and outside >= moves:  # spec: bearoff.all-home, bar.enter-first
        # No entry and no bear-off possible: the steps are fixed by the board.
        # Sources: the points holding a checker or reachable by one. Each
        # multiset of steps is reached once, so no play repeats.
        blocked, hits = facing.blocked, facing.hits
        reach = [0] * 31
        options = []
        for src in range(top, die, -1):
            reach[src] = cnt[src] or (reach[src + die] and not blocked[src])
            if reach[src] and not blocked[src - die]:  # spec: move.open-point
                options.append((len(options), src, src - die, _STEP[die][src], hits[src - die], (src, src - die)))
        full: dict[int, Steps] = {}

        tails = [options[i:] for i in range(len(options))]

        def walk_free(first: int, n: int, packed: int, steps: Steps) -> None:
            for i, src, dst, delta, hit, step in tails[first]:
                if cnt[src]:
                    after = packed + delta
                    if hit and not cnt[dst]:  # spec: hit.blot, the first landing only
                        after += hit
                    route = steps + (step,)
                    cnt[src] -= 1
                    cnt[dst] += 1
                    if n + 1 < moves:
                        walk_free(i, n + 1, after, route)
                    else:  # the last step, inline
                        for _, src2, dst2, delta2, hit2, step2 in tails[i]:
                            if cnt[src2]:
                                key = after + delta2
                                if hit2 and not cnt[dst2]:
                                    key += hit2
                                full[key] = route + (step2,)
                    cnt[src] += 1
                    cnt[dst] -= 1

        if options:
            walk_free(0, 1, packed, ())
        if full:  # every step used; otherwise the search below finds the most steps
            return full
    found: list[dict[int, Steps]] = [{} for _ in range(moves + 1)]

    def walk(top: int, n: int, packed: int, outside: int, steps: Steps) -> None:
        for step, after in _steps(cnt, die, packed, facing, outside, top):
            src, dst = step
            route = steps + (step,)
            if after not in found[n]:
                found[n][after] = route
            if n < moves:
                cnt[src] -= 1
                cnt[dst] += 1
                walk(src, n + 1, after, outside - (src > 6 >= dst), route)  # spec: bearoff.all-home
                cnt[src] += 1
                cnt[dst] -= 1

    walk(top, 1, packed, outside, ())
    return next((plays for plays in reversed(found) if plays), {})  # spec: move.maximum-dice


def _two_dice(cnt: list[int], top: int, big: int, small: int, packed: int, facing: _Facing) -> dict[int, Steps]:
    """The plays of a roll of two different dice ``big`` > ``small`` from ``cnt``
    (highest checker on ``top``), as ``{packed: steps}`` (spec: move.separate-dice).
    ``cnt`` is changed during the search and restored."""
    outside = sum(cnt[7:])
    steps_big = _steps(cnt, big, packed, facing, outside, top)
    steps_small = _steps(cnt, small, packed, facing, outside, top)
    two: dict[int, Steps] = {}
    if not cnt[BAR] and outside >= 2:  # spec: bearoff.all-home, bar.enter-first
        # independent steps: any step of one die with any step of the other ...
        blocked, hits = facing.blocked, facing.hits
        for step, after in steps_big:
            src, dst = step
            alone = cnt[src] == 1
            hit = hits[dst]
            after -= packed
            for step2, after2 in steps_small:
                if alone and step2[0] == src:
                    continue
                if hit and step2[1] == dst:
                    two[after + after2 - hit] = (step, step2)  # spec: hit.blot: one blot, hit once
                else:
                    two[after + after2] = (step, step2)
        # ... and one checker moved by both dice, in either order: the point it
        # stops on must be open, and a blot there is hit on the way
        # (spec: move.separate-dice, hit.intermediate)
        for steps, die in ((steps_big, small), (steps_small, big)):
            for step, after in steps:
                src, mid = step
                dst = mid - die
                if dst > 0 and not blocked[dst]:
                    key = after + _STEP[die][mid] + (0 if cnt[dst] else hits[dst])
                    if key not in two:
                        two[key] = (step, (mid, dst))
    else:  # step by step: what is left after entering, or after a checker comes home
        # (spec: bar.after-entry, bearoff.all-home)
        for first, die in ((steps_big, small), (steps_small, big)):
            for step, after in first:
                src, dst = step
                cnt[src] -= 1
                cnt[dst] += 1
                for step2, key in _steps(cnt, die, after, facing, outside - (src > 6 >= dst), top):  # spec: bearoff.all-home
                    if key not in two:
                        two[key] = (step, step2)
                cnt[src] += 1
                cnt[dst] -= 1
    return _choose(two, steps_big, steps_small)


def _choose(two: dict[int, Steps], steps_big: list, steps_small: list) -> dict[int, Steps]:
    """Which plays of two different dice are legal: those using both dice if any
    (spec: move.maximum-dice); else one step of the larger die if it has one,
    else of the smaller (spec: move.larger-die)."""
    if two:
        return two
    return {after: (step,) for step, after in (steps_big or steps_small)}


def plays(position: Position, dice: Sequence[int]) -> dict[int, Steps]:
    """Every legal play for the side on roll, by packed resulting position.

    ``dice``: two ints 1..6, in any order. Returns ``{packed: steps}``: the
    packed position after the play (``pack(mover, opponent)``, before the turn
    passes) mapped to one step list reaching it (``((from, to), ...)``, 25 =
    bar, 0 = off, the mover's numbering). No legal play gives one entry, the
    unchanged board with no steps (spec: move.pass). Raises ValueError for dice
    outside 1..6.
    """
    cnt = list(position.mover)
    opp = position.opponent
    mine = bytes(cnt)
    packed = int.from_bytes(mine + bytes(opp), "little")  # pack(cnt, opp)
    top = len(mine.rstrip(b"\0")) - 1  # the mover's highest checker (bar 25, 0 when all are off)
    d1, d2 = dice
    if not (0 < d1 < 7 and 0 < d2 < 7):
        raise ValueError(f"dice must be two numbers 1..6, not {dice!r}")
    if d1 == d2:
        found = _doubles(cnt, top, d1, packed, _Facing(opp), len(dice_moves(dice)))  # spec: move.doubles
    elif d1 > d2:
        found = _two_dice(cnt, top, d1, d2, packed, _Facing(opp))
    else:
        found = _two_dice(cnt, top, d2, d1, packed, _Facing(opp))
    return found or {packed: ()}  # spec: move.pass


def to_position(position: Position, packed: int) -> Position:
    """The position after a play of ``position`` given packed, with the turn passed."""
    me, opp = unpack(packed)
    # checkers were only moved, so the result is valid by construction
    if position.on_roll == "x":
        return Position.trusted("o", me, opp)
    return Position.trusted("x", opp, me)


def legal_plays(position: Position, dice: Sequence[int]) -> dict[Position, Steps]:
    """Every legal play for the side on roll (spec: sections 2 to 4: move.*, hit.*,
    bar.*, bearoff.*).

    ``dice``: two ints 1..6 (order irrelevant). Returns a dict mapping each
    distinct resulting position (turn passed to the other side) to one step list
    that reaches it (``((from, to), ...)``, 25 = bar, 0 = off, the mover's
    numbering). No legal play gives one entry: the unchanged board with an empty
    step list (spec: move.pass). Raises ValueError for dice outside 1..6.
    """
    return {to_position(position, packed): steps for packed, steps in plays(position, dice).items()}


def apply_play(position: Position, steps: Iterable[Sequence[int]]) -> Position:
    """Apply a step list (physical checks only) and return the position with the turn
    passed. Raises conformance.model.NotationError for an impossible step."""
    from conformance.model import apply_steps

    return apply_steps(position, steps)
