"""Mutant engines: the reference with one rule broken, to measure the suite.

Each mutant is one textual change to the source of one reference module
(``reference_impl/movegen.py``, ``check.py`` or ``game.py``); the mutated module
is executed afresh, and the modules that import from it are rebuilt on top of it.
A mutant is *killed* when at least one ``must`` case fails (or errors) on it; a
surviving mutant means a rule the suite does not pin down.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import ModuleType, SimpleNamespace

import reference_impl.check
import reference_impl.game
import reference_impl.movegen

from conformance.engines.adapters.reference import RULES, ReferenceEngine


@dataclass(frozen=True)
class Mutant:
    """``name``; the ``spec`` clause it breaks; the reference module it changes; the
    exact ``old`` source text and its ``new`` replacement; ``what`` it does;
    ``also``: further ``(old, new)`` changes in the same module, where the rule is
    relied on in more than one place."""

    name: str
    spec: str
    module: str
    old: str
    new: str
    what: str
    also: tuple[tuple[str, str], ...] = ()


MUTANTS = [
    Mutant("no-larger-die", "move.larger-die", "movegen",
           "for step, after in (steps_big or steps_small)}", "for step, after in (steps_big + steps_small)}",
           "when only one die can be played, either die will do"),
    Mutant("lands-on-held-point", "move.open-point", "movegen",
           "_BLOCKS = bytes(count >= 2 for count in range(256))", "_BLOCKS = bytes(count >= 3 for count in range(256))",
           "a point held by exactly two opposing checkers is open"),
    Mutant("no-bar-priority", "bar.enter-first", "movegen",
           "        return found  # spec: bar.enter-first\n",
           "        return found + _steps(cnt[:BAR] + [0], die, packed, facing, outside, 24)\n",
           "checkers move while others wait on the bar"),
    Mutant("bear-off-from-outside", "bearoff.all-home", "movegen",
           "    if not outside:  # spec: bearoff.all-home", "    if True:",
           "bears off while a checker is still outside the home board",
           also=(("    if not cnt[BAR] and outside >= moves:", "    if False:"),
                 ("    if not cnt[BAR] and outside >= 2:", "    if False:"))),
    Mutant("bear-off-larger-die-low", "bearoff.higher-die", "movegen",
           "elif not any(cnt[die + 1:7]):", "elif True:",
           "a larger die bears off from a lower point while a checker stands higher"),
    Mutant("doubles-two-moves", "move.doubles", "movegen",
           "len(dice_moves(dice))", "2", "a double gives only two moves"),
    Mutant("fewest-dice", "move.maximum-dice", "movegen",
           "    if two:\n        return two\n",
           "    if two:\n        return {**{after: (step,) for step, after in steps_big + steps_small}, **two}\n",
           "a play may stop after one die although both can be played"),
    Mutant("no-hit", "hit.blot", "movegen",
           "_BLOTS = bytes(count == 1 for count in range(256))", "_BLOTS = bytes(256)",
           "landing on a blot leaves it where it is"),
    Mutant("entry-point-mirrored", "bar.entry-point", "movegen",
           "dst = BAR - die  # spec: bar.entry-point", "dst = 18 + die",
           "enters on 18 + die instead of 25 - die"),
    Mutant("backgammon-as-gammon", "score.backgammon", "game",
           '"backgammon": rules["backgammon_multiplier"]}', '"backgammon": 2}',
           "scores a backgammon as a gammon"),
    Mutant("gammon-with-one-off", "score.gammon", "game",
           "if loser[OFF] > 0:", "if loser[OFF] > 1:", "one checker off still loses a gammon"),
    Mutant("jacoby-in-match", "match.money-options", "game",
           'if rules["jacoby"] and match.money and cube.owner == "center":',
           'if rules["jacoby"] and cube.owner == "center":', "applies the Jacoby rule in match play"),
    Mutant("jacoby-ignored", "cube.jacoby", "game",
           'if rules["jacoby"] and match.money and cube.owner == "center":', "if False:",
           "never applies the Jacoby rule"),
    Mutant("double-in-crawford", "cube.crawford", "game",
           'if match.crawford:\n            return no("crawford-game")', "pass",
           "allows doubling in the Crawford game"),
    Mutant("non-owner-redoubles", "cube.ownership", "game",
           'if cube.owner not in ("center", by):', "if False:", "lets the player without the cube redouble"),
    Mutant("double-after-roll", "cube.when", "game",
           'if moment != "before_roll":\n            return no("wrong-moment")', "pass",
           "allows a double after the dice are rolled"),
    Mutant("drop-pays-doubled", "cube.drop", "game",
           '"points": cube.value}}', '"points": cube.value * 2}}', "a drop pays the doubled value"),
    Mutant("take-keeps-owner", "cube.take", "game",
           "owner = opponent  # the doubled player owns the cube", "owner = on_roll  # mutant",
           "after a take the doubler keeps the cube"),
    Mutant("no-max-cube", "cube.max", "game",
           'return rules["max_cube"] is None or value <= rules["max_cube"]', "return True",
           "the cube goes past max_cube"),
    Mutant("beaver-in-match", "match.money-options", "game",
           'if not match.money:\n            return no("money-play-only")', "pass",
           "allows beavers and raccoons in match play"),
    Mutant("unlimited-automatic-doubles", "opening.automatic-doubles", "game",
           'for _ in range(min(ties, rules["automatic_doubles"])):',
           'for _ in range(ties if rules["automatic_doubles"] else 0):', "ignores the automatic doubles limit"),
    Mutant("no-crawford", "match.crawford", "game",
           'return bool(rules["crawford"] and leader_at_one', "return bool(False and leader_at_one",
           "never plays a Crawford game"),
    Mutant("crawford-forever", "match.post-crawford", "game",
           "return False, True", "return True, False",
           "every game after the Crawford game is a Crawford game again"),
    Mutant("overshoot-not-over", "match.score", "game",
           "if match.length and score[winner] >= match.length:", "if match.length and score[winner] == match.length:",
           "a win past the match length does not end the match"),
    Mutant("winner-always-starts", "session.winner-starts", "game",
           'out["next_starts"] = winner if rules["winner_starts"] and result_type == "single" else "opening_roll"',
           'out["next_starts"] = winner if rules["winner_starts"] else "opening_roll"',
           "the winner starts the next game even after a gammon"),
]

_MODULES = {"movegen": reference_impl.movegen, "check": reference_impl.check, "game": reference_impl.game}


def _exec(module: ModuleType, source: str, extra: dict) -> dict:
    namespace: dict = {"__name__": module.__name__, "__package__": "reference_impl"}
    namespace.update(extra)
    exec(compile(source, f"<mutant of {module.__file__}>", "exec"), namespace)  # noqa: S102
    return namespace


def mutated_rules(mutant: Mutant) -> SimpleNamespace:
    """The rule functions with ``mutant`` applied. Raises ValueError when the
    mutant's ``old`` text is no longer in the reference (the mutant must be updated)."""
    source = inspect.getsource(_MODULES[mutant.module])
    for old, new in ((mutant.old, mutant.new), *mutant.also):
        if source.count(old) != 1:
            raise ValueError(f"mutant {mutant.name}: the text to change is not (exactly once) in {mutant.module}.py")
        source = source.replace(old, new)
    rules = SimpleNamespace(**vars(RULES))
    if mutant.module == "game":
        ns = _exec(reference_impl.game, source, {})
        for name in ("game_result", "cube_action", "opening_roll", "match_transition"):
            setattr(rules, name, ns[name])
        return rules
    movegen = vars(reference_impl.movegen)
    if mutant.module == "movegen":
        movegen = _exec(reference_impl.movegen, source, {})
    check_source = inspect.getsource(reference_impl.check)
    if mutant.module == "check":
        check_source = source
    check_source = check_source.replace("from .movegen import do_step, legal_plays, step_error\n", "")
    check = _exec(reference_impl.check, check_source,
                  {k: movegen[k] for k in ("do_step", "legal_plays", "step_error")})
    rules.legal_plays = movegen["legal_plays"]
    rules.play_check = check["play_check"]
    return rules


class MutantEngine(ReferenceEngine):
    """The reference engine with one mutant applied."""

    def __init__(self, mutant: Mutant):
        self.mutant = mutant
        self.rules = mutated_rules(mutant)

    def describe(self) -> dict:
        return dict(super().describe(), name=f"mutant:{self.mutant.name}")


def mutant(name: str) -> MutantEngine:
    """The mutant engine called ``name`` (for ``--engine python:conformance.harness.mutants:...``)."""
    for m in MUTANTS:
        if m.name == name:
            return MutantEngine(m)
    raise KeyError(f"unknown mutant {name!r}")


def score(cases) -> list[tuple[Mutant, list[str]]]:
    """Run every mutant on the ``must`` cases; return (mutant, ids of the cases that
    kill it) pairs, in MUTANTS order."""
    from conformance.harness.runner import run_cases

    must = [c for c in cases if c.level == "must"]
    out = []
    for m in MUTANTS:
        results = run_cases(MutantEngine(m), must)
        out.append((m, [r.case.id for r in results if r.status in ("fail", "errored", "timeout")]))
    return out
