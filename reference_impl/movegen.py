"""Legal plays: the movement rules, executable.

The state during a roll is two lists of 26 counts in the mover's numbering for
the mover (``me``: 0 off, 1..24 points, 25 bar) and in the opponent's own
numbering for the opponent (``opp``); the opponent's checkers on the mover's
point ``p`` are ``opp[25 - p]``.

Algorithm (spec: move.maximum-dice, move.larger-die, move.same-play): play the
dice one at a time in each order (one order for a double), every step legal on
its own; keep the plays that use the most dice and, when that is one die, the
larger die if it can be played; the legal plays are the set of their resulting
positions. ``step_error`` states the single-step rules with reasons (for play
checks); ``_single_steps`` is its fast form for the search.
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


def _single_steps(me: Sequence[int], die: int, blocked: frozenset) -> Iterable[tuple[int, int]]:
    """Every legal single step ``(from, to)`` of one die: the fast form of
    ``step_error`` used by the generator (the tests check the two agree)."""
    if me[BAR]:
        dst = BAR - die
        if dst not in blocked:  # spec: bar.enter-first, bar.entry-point
            yield BAR, dst
        return
    top = 24
    while top and not me[top]:
        top -= 1
    for src in range(top, 0, -1):
        if me[src]:
            dst = src - die
            if dst > 0:
                if dst not in blocked:  # spec: move.open-point
                    yield src, dst
            elif top <= 6 and (dst == 0 or src == top):  # spec: bearoff.*
                yield src, OFF


def legal_plays(position: Position, dice: Sequence[int]) -> dict[Position, Steps]:
    """Every legal play for the side on roll.

    ``dice``: two ints 1..6 (order irrelevant). Returns a dict mapping each
    distinct resulting position (turn passed to the other side) to one step list
    that reaches it (``((from, to), ...)``, 25 = bar, 0 = off, the mover's
    numbering). No legal play gives one entry: the unchanged board with an empty
    step list (spec: move.pass).

    The search goes die by die over each order of the dice (one order for a
    double), keeping one entry per distinct state after each die: the mover's
    checkers and which opposing blots have been hit (the opponent's points never
    block more as the roll goes on). The legal plays are the states of the
    deepest layer (spec: move.maximum-dice), and when only one die can be
    played, those of the larger die if it can be (spec: move.larger-die).
    """
    opp = position.opponent
    blocked = frozenset(p for p in range(1, 25) if opp[25 - p] >= 2)
    blots = frozenset(p for p in range(1, 25) if opp[25 - p] == 1)
    moves = dice_moves(sorted(dice, reverse=True))  # the larger die's order is searched first
    orders = [moves] if moves[0] == moves[-1] else [moves, moves[::-1]]
    start = (tuple(position.mover), 0)
    deepest: dict = {}
    depth = 0
    for order in orders:
        layer = {start: ()}
        for n, die in enumerate(order, 1):
            following: dict = {}
            for (me, hits), steps in layer.items():
                for src, dst in _single_steps(me, die, blocked):
                    board = list(me)
                    board[src] -= 1
                    board[dst] += 1
                    hit = hits | (1 << dst) if dst in blots else hits
                    following.setdefault((tuple(board), hit), steps + ((src, dst),))
            if not following:
                break
            layer = following
            if n > depth:
                depth, deepest = n, {}
            if n == depth:
                if n == 1 and len(orders) == 2 and deepest and order[0] < orders[0][0]:
                    continue  # one die only: the larger die's plays, found first, win
                deepest.update((k, v) for k, v in layer.items() if k not in deepest)
    if not depth:
        return {position.passed(): ()}  # spec: move.pass
    plays: dict[Position, Steps] = {}
    for (me, hits), steps in deepest.items():
        if hits:
            board = list(opp)
            for p in range(1, 25):
                if hits >> p & 1:
                    board[25 - p] = 0
                    board[BAR] += 1
            them = tuple(board)
        else:
            them = opp
        # the turn passes to the other side; checkers were only moved, so the
        # result is valid by construction
        if position.on_roll == "x":
            plays[Position.trusted("o", me, them)] = steps
        else:
            plays[Position.trusted("x", them, me)] = steps
    return plays


def apply_play(position: Position, steps: Iterable[Sequence[int]]) -> Position:
    """Apply a step list (physical checks only) and return the position with the turn
    passed. Raises conformance.model.NotationError for an impossible step."""
    from conformance.model import apply_steps

    return apply_steps(position, steps)
