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


def _routes(segments: Sequence[tuple[int, int]], dice: Sequence[int]):
    """Every way to play the written segments with the dice of the roll.

    A segment ``(a, b)`` may span several dice when the notation leaves the
    intermediate points out (``13/5`` with 5-3 is 13/8/5 or 13/10/5). Yields
    lists of ``(source, die)`` single-die steps; a bear-off die may be larger
    than the distance left. Routes using exact bear-off dice come first; among
    the others the larger die is tried first, so the order in which the roll's
    dice are given never changes the verdict.
    """
    def walk(i, left, route):
        if i == len(segments):
            yield route
            return
        a, b = segments[i]

        def chain(at, left, route):
            for j, die in enumerate(left):
                if die in left[:j]:
                    continue  # same die value already tried here
                rest = left[:j] + left[j + 1:]
                land = at - die
                if land == b or (b == OFF and land < 0):
                    yield from walk(i + 1, rest, route + [(at, die)])
                if land > max(b, 0):
                    yield from chain(land, rest, route + [(at, die)])

        yield from chain(a, left, route)

    found = list(walk(0, sorted(dice_moves(dice), reverse=True), []))
    found.sort(key=lambda r: sum(src - die < 0 for src, die in r))
    return found


def _split(segments: list[tuple[int, int]], route: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """A route of ``check._routes(segments, dice)`` cut into the single-die steps of each
    segment, in the segments' order."""
    parts, k = [], 0
    for a, b in segments:
        part, at = [], a
        while True:
            src, die = route[k]
            part.append((src, die))
            k += 1
            at -= die
            if at == b or (b == OFF and at < 0):
                break
        parts.append(part)
    return parts


def _interleaved(parts: list[list[tuple[int, int]]]):
    """Every order of the steps of ``parts`` that keeps each part's own steps in their order and
    puts a step of another part between two steps of one part (the orders that play the parts
    one after the other are ``_routes`` over the orders of the parts); nothing when no part has
    two steps. At most four steps (a roll's dice), so at most 4! orders are looked at."""
    if len(parts) < 2 or all(len(p) < 2 for p in parts):
        return
    whole = [step for part in parts for step in part]
    owner = [i for i, part in enumerate(parts) for _ in part]
    seen = set()  # two parts of the same steps give the same orders twice
    for order in itertools.permutations(range(len(whole))):
        at = {j: k for k, j in enumerate(order)}
        if any(at[j] > at[j + 1] for j in range(len(whole) - 1) if owner[j] == owner[j + 1]):
            continue  # a part's steps out of their order
        owners = [owner[j] for j in order]
        steps = tuple(whole[j] for j in order)
        if sum(a != b for a, b in zip(owners, owners[1:])) >= len(parts) and steps not in seen:  # a part interrupted
            seen.add(steps)
            yield list(steps)


def play_check(position: Position, dice: Sequence[int], steps: Sequence[Sequence[int]],
               plays: dict | None = None) -> Verdict:
    """Verdict on a play given as its moves ``[(from, to), ...]`` (25 bar, 0 off), in
    the order written; a move may span several dice (``(13, 5)`` with 5-3).

    ``dice``: two ints 1..6. Never raises for a valid position; a physically
    impossible step gives ``legal=False`` with its reason. ``plays``: ``legal_plays(position,
    dice)`` when the caller has it already (judging many plays of one roll), else computed here.
    """
    segments = [(int(a), int(b)) for a, b in steps]
    plays = legal_plays(position, dice) if plays is None else plays
    try:
        if apply_steps(position, segments) in plays:
            return Verdict(True)
    except ModelError:
        pass
    routes = _routes(segments, dice)
    if not routes:
        return Verdict(False, "wrong-dice")
    first_reason = None
    best = max(len(s) for s in plays.values())
    for route in routes:
        me, opp = list(position.mover), list(position.opponent)
        for src, die in route:
            reason = step_error(me, opp, src, die)
            if reason:
                first_reason = first_reason or reason
                break
            do_step(me, opp, src, die)
        else:
            # every step legal on its own, yet not a legal play
            if len(route) < best:
                return Verdict(False, "must-use-more-dice")
            if len(route) == 1:
                return Verdict(False, "must-use-larger-die")
            first_reason = first_reason or "wrong-dice"
    return Verdict(False, first_reason)
