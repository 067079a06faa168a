"""Is a given play legal, and if not, why.

A play is legal iff its resulting position is one of the legal plays
(spec: move.same-play). When it is not, the reason is the first rule the
steps break, in this order: a step that no die of the roll can make
(``wrong-dice``); then, step by step, ``no-checker``, ``bar-first``,
``blocked-point``, ``bear-off-not-allowed``, ``bear-off-higher-checker``
(see ``movegen.step_error``); and for steps that are each legal but do not
make a legal play: ``must-use-larger-die`` (spec: move.larger-die) or
``must-use-more-dice`` (spec: move.maximum-dice).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

from conformance.model import OFF, ModelError, Position, apply_steps, dice_moves

from .movegen import do_step, legal_plays, step_error

REASONS = (
    "wrong-dice", "no-checker", "bar-first", "blocked-point", "bear-off-not-allowed",
    "bear-off-higher-checker", "must-use-larger-die", "must-use-more-dice",
)


@dataclass(frozen=True)
class Verdict:
    """``legal``: bool; ``reason``: one of REASONS when not legal, else None."""

    legal: bool
    reason: str | None = None


def _die_fits(src: int, dst: int, die: int) -> bool:
    if dst == OFF:
        return die >= src
    return src - dst == die


def _assignments(steps: Sequence[tuple[int, int]], dice: Sequence[int]):
    """Every way to give each step its own die of the roll (exact bear-off first)."""
    moves = dice_moves(dice)
    seen = set()
    for perm in itertools.permutations(moves, len(steps)) if len(steps) <= len(moves) else ():
        if perm in seen:
            continue
        seen.add(perm)
        if all(_die_fits(s, d, die) for (s, d), die in zip(steps, perm)):
            yield perm


def play_check(position: Position, dice: Sequence[int], steps: Sequence[Sequence[int]]) -> Verdict:
    """Verdict on a play given as single-die steps ``[(from, to), ...]`` (25 bar, 0 off).

    ``dice``: two ints 1..6. Never raises for a valid position; a physically
    impossible step gives ``legal=False`` with its reason.
    """
    steps = [(int(a), int(b)) for a, b in steps]
    plays = legal_plays(position, dice)
    try:
        if apply_steps(position, steps) in plays:
            return Verdict(True)
    except ModelError:
        pass
    assignments = sorted(_assignments(steps, dice),
                         key=lambda perm: sum(d == OFF and die != s for (s, d), die in zip(steps, perm)))
    if not assignments:
        return Verdict(False, "wrong-dice")
    first_reason = None
    for perm in assignments:
        me, opp = list(position.mover), list(position.opponent)
        for (src, _dst), die in zip(steps, perm):
            reason = step_error(me, opp, src, die)
            if reason:
                first_reason = first_reason or reason
                break
            do_step(me, opp, src, die)
        else:
            # every step legal on its own, yet not a legal play
            best = max(len(s) for s in plays.values())
            if len(steps) < best or best == 0:
                return Verdict(False, "must-use-more-dice")
            return Verdict(False, "must-use-larger-die")
    return Verdict(False, first_reason)
