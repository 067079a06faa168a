"""Derived play checks: from each legal_plays case, the play_check questions its answer implies.

A legal_plays case states the whole set of legal plays for one position and roll, so it also
states the verdict on any play of that roll: each legal play is legal, and any other play is
not. ``play_checks(case)`` asks that of engines that judge plays (``play-check``) without
listing them: every legal play of the position (``legal: true``), then the illegal near
misses the reference names by rule, at most ``PER_REASON`` of each shape below for each reason
it gives (``reference_impl.check.REASONS``). The candidate near misses are the plays a careless
implementation makes:

- a legal play with its last moves left out (fewer dice than the roll allows:
  ``must-use-more-dice``; spec: move.maximum-dice, bearoff.both-dice), and no play at all
  where some play exists (move.pass);
- one checker moved by one die, each die from each point (the smaller die alone where the
  larger must be played: ``must-use-larger-die``, spec: move.larger-die; a closed landing
  point: ``blocked-point``, move.open-point; a checker moved while another is on the bar:
  ``bar-first``, bar.enter-first; bearing off too early or with the wrong checker:
  ``bear-off-not-allowed``, ``bear-off-higher-checker``);
- a legal play with one move a point too short or too long (``wrong-dice``), or made by
  another checker (bar.enter-first, move.open-point...);
- for a roll of two numbers, one checker moved by the sum with both intermediate points
  closed (a move passing through a closed point: move.separate-dice).

Each candidate is written in the spec's notation with its hit marks (``format_play``,
``play_text``; an engine whose input has no hit marks is not asked the ones whose moves could hit
on the way unsaid: ``runner.unsupported_reason``), judged by
``reference_impl.check.play_check``, and kept when its verdict is new: a legal candidate only
when it is a legal play not yet asked (two plays are the same iff they give the same position;
spec: move.same-play), an illegal one while its shape and reason have fewer than ``PER_REASON``
examples. The checks are numbered from 1 in that order and named after their root case,
``bg-7Q3K[check 3]``, and each is also asked with the dice in the other order
(``bg-7Q3K[check 3+dice-reversed]``), which must not change the verdict.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator, Sequence

from conformance.cases import Case
from conformance.model import (OFF, ModelError, Position, apply_steps, format_play, play_text,
                               written_moves)
from reference_impl import legal_plays, play_check

#: at most this many illegal near misses of each shape (no play, cut short, one die, wrong length,
#: other checker, through) and reason per root case
PER_REASON = 1
#: the shapes of near miss, in the order they are tried
SHAPES = ("no play", "cut short", "one die", "wrong length", "other checker", "through")
#: reasons not asked: a move from a point the mover has no checker on is not a play at all
SKIPPED = frozenset({"no-checker"})
#: the scenario prefix of a derived check: ``check 3``
PREFIX = "check "
#: a note on the provenance of every derived check
SOURCE = ("derived from the root case's legal plays (a play is legal iff it is one of them: move.same-play);"
          " verdict and reason by the reference (reference_impl.check)")


def is_derived(scenario: str) -> bool:
    """Whether a scenario name (``check 3``, ``check 3+dice-reversed``) is a derived check's."""
    return scenario.startswith(PREFIX)


def _candidates(position: Position, dice: tuple[int, int], legal: list[tuple]) -> Iterator[tuple[str, tuple]]:
    """The plays to judge, as ``(kind, steps)``, legal plays first (see the module docstring)."""
    for steps in legal:
        yield "legal", steps
    if any(legal):
        yield "no play", ()
    for steps in legal:
        for k in range(len(steps) - 1, 0, -1):
            yield "cut short", steps[:k]
    me = position.mover
    sources = [p for p in range(25, 0, -1) if me[p]]
    for die in sorted(set(dice), reverse=True):
        for src in sources:
            yield "one die", ((src, max(src - die, OFF)),)
    for steps in legal:
        for i, (src, dst) in enumerate(steps):
            for shifted in (dst - 1, dst + 1):
                if 0 <= shifted < src and shifted != dst:
                    yield "wrong length", steps[:i] + ((src, shifted),) + steps[i + 1:]
            die = src - dst
            if dst != OFF:
                for other in sources:
                    if other != src and other - die >= OFF:
                        yield "other checker", steps[:i] + ((other, other - die),) + steps[i + 1:]
    if dice[0] != dice[1]:
        total = dice[0] + dice[1]
        for src in sources:
            if src - total >= 1:
                yield "through", ((src, src - total),)


def play_checks(case: Case) -> list[Case]:
    """The derived play_check forms of a legal_plays ``case`` (none for another kind), in the
    order asked: ``check 1``, ``check 1+dice-reversed`` (rolls of two numbers), ``check 2``...
    Each is a play_check Case with the root's id, position and dice (its own order first), the
    play written in the spec's notation (``play``, ``steps``), ``expected`` the reference's
    verdict, ``spec`` the root's clauses, ``provenance`` naming the root (``SOURCE``)."""
    if case.kind != "legal_plays" or case.position is None or case.dice is None:
        return []
    position, dice = case.position, tuple(case.dice)
    plays = legal_plays(position, dice)
    legal = sorted((tuple(map(tuple, s)) for s in plays.values()), key=lambda s: format_play(position, s))
    asked_positions: set = set()
    texts: set = set()
    per_reason: dict[tuple[str, str], int] = {}
    out: list[Case] = []
    for shape, steps in _candidates(position, dice, legal):
        text = play_text(position, steps)
        if text in texts:
            continue
        try:
            written = written_moves(text)
        except ModelError:
            continue
        verdict = play_check(position, dice, written, plays)
        if verdict.reason in SKIPPED:
            continue
        if verdict.legal:
            result = apply_steps(position, written)
            if result in asked_positions:
                continue
            asked_positions.add(result)
        else:
            key = (shape, verdict.reason)
            if per_reason.get(key, 0) >= PER_REASON:
                continue
            per_reason[key] = per_reason.get(key, 0) + 1
        texts.add(text)
        expect = {"legal": True} if verdict.legal else {"legal": False, "reason": verdict.reason}
        n = len(out) // (1 if dice[0] == dice[1] else 2) + 1
        what = "a legal play" if verdict.legal else f"illegal: {verdict.reason}"
        check = replace(case, kind="play_check", requires=("play-check",), play=text, steps=list(written),
                        expect=expect, expected=(verdict.legal, verdict.reason), scenario=f"{PREFIX}{n}",
                        title=f"{text}: {what} (derived from {case.id})",
                        provenance={"source": SOURCE, "root": case.id})
        out.append(check)
        if dice[0] != dice[1]:
            out.append(replace(check, dice=dice[::-1], scenario=f"{PREFIX}{n}+dice-reversed"))
    return out


def with_play_checks(cases: Sequence[Case], info: dict) -> list[Case]:
    """``cases`` followed by the derived play checks of each legal_plays case among them that
    is asked as written (no scenario), when the engine described by ``info`` declares
    ``play-check``; else ``cases`` unchanged."""
    cases = list(cases)
    if "play-check" not in info.get("capabilities", []):
        return cases
    return cases + [d for c in cases if not c.scenario for d in play_checks(c)]
