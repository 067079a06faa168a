"""Legal plays: the movement rules, executable.

The state during a roll is two lists of 26 counts in the mover's numbering for
the mover (``me``: 0 off, 1..24 points, 25 bar) and in the opponent's own
numbering for the opponent (``opp``); the opponent's checkers on the mover's
point ``p`` are ``opp[25 - p]``.

Algorithm (spec: move.maximum-dice, move.larger-die): enumerate every sequence
of single-die steps for each order of the dice (one order for a double), each
step legal on its own (``step_error``); keep the sequences that use the most
dice, then among those the largest total of dice; the legal plays are the set
of their resulting positions (spec: move.same-play).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from conformance.model import BAR, OFF, Position, dice_moves

Steps = tuple[tuple[int, int], ...]


def step_error(me: Sequence[int], opp: Sequence[int], src: int, die: int) -> str | None:
    """Why moving one checker from ``src`` by ``die`` is illegal, or None if legal.

    Reason codes: ``no-checker``, ``bar-first`` (spec: bar.enter-first),
    ``blocked-point`` (spec: move.open-point, bar.entry-point),
    ``bear-off-not-allowed`` (spec: bearoff.all-home),
    ``bear-off-higher-checker`` (spec: bearoff.higher-die).
    """
    if me[src] == 0:
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


def _sources(me: Sequence[int]) -> Iterable[int]:
    if me[BAR]:
        return (BAR,)
    return [p for p in range(24, 0, -1) if me[p]]


def _extend(me, opp, dice, steps, out, last_src):
    """Depth-first over one order of the dice; record where each sequence stops."""
    if not dice:
        out.append((tuple(me), tuple(opp), steps))
        return
    die = dice[0]
    moved = False
    for src in _sources(me):
        # With a double, steps can be taken from non-increasing sources without
        # losing any resulting position (higher checkers moving first never
        # makes a later step less possible); this bounds the search.
        if src > last_src:
            continue
        if step_error(me, opp, src, die) is None:
            moved = True
            me2, opp2 = list(me), list(opp)
            dst = do_step(me2, opp2, src, die)
            _extend(me2, opp2, dice[1:], steps + ((src, dst),), out,
                    src if len(set(dice)) == 1 else BAR)
    if not moved:
        out.append((tuple(me), tuple(opp), steps))


def _play_rank(steps: Steps, dice: Sequence[int]) -> tuple[int, int]:
    """(dice used, total of the dice used) of a sequence played in the order ``dice``.
    A sequence that bears off the last checker stops there and is ranked by the
    dice it used (spec: bearoff.last-checker, move.maximum-dice)."""
    return (len(steps), sum(dice[: len(steps)]))


def legal_plays(position: Position, dice: Sequence[int]) -> dict[Position, Steps]:
    """Every legal play for the side on roll.

    ``dice``: two ints 1..6 (order irrelevant). Returns a dict mapping each
    distinct resulting position (turn passed to the other side) to one step list
    that reaches it (``((from, to), ...)``, 25 = bar, 0 = off, the mover's
    numbering). No legal play gives one entry: the unchanged board with an empty
    step list (spec: move.pass).
    """
    moves = dice_moves(dice)
    orders = [moves] if moves[0] == moves[-1] else [moves, moves[::-1]]
    ends: list[tuple[tuple, tuple, Steps, tuple[int, int]]] = []
    for order in orders:
        found: list = []
        _extend(list(position.mover), list(position.opponent), order, (), found, BAR)
        ends.extend((me, opp, steps, _play_rank(steps, order)) for me, opp, steps in found)
    best = max(rank for *_, rank in ends)
    plays: dict[Position, Steps] = {}
    for me, opp, steps, rank in ends:
        if rank == best:
            result = Position.from_mover(position.on_roll, me, opp).passed()
            plays.setdefault(result, steps)
    return plays


def apply_play(position: Position, steps: Iterable[Sequence[int]]) -> Position:
    """Apply a step list (physical checks only) and return the position with the turn
    passed. Raises conformance.model.NotationError for an impossible step."""
    from conformance.model import apply_steps

    return apply_steps(position, steps)
