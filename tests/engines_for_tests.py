"""Deliberately wrong engines for the project's own tests (selected as
python:engines_for_tests:NAME)."""

from conformance.engines.adapters.reference import ReferenceEngine
from conformance.harness.mutants import mutant


class Crashing(ReferenceEngine):
    """Raises on every legal_plays request."""

    def describe(self):
        return dict(super().describe(), name="crashing")

    def legal_plays(self, request):
        raise RuntimeError("engine bug")


class Garbage(ReferenceEngine):
    """Answers plays that cannot be applied."""

    def describe(self):
        return dict(super().describe(), name="garbage")

    def legal_plays(self, request):
        return {"plays": [[[3, 1]], "not a play"]}


class MovesOnly(ReferenceEngine):
    """Declares only legal-plays."""

    def describe(self):
        return dict(super().describe(), capabilities=["legal-plays"])


def no_larger_die():
    """Forgets that a single die must be the larger one (spec: move.larger-die)."""
    return mutant("no-larger-die")


def crashing():
    return Crashing()


def garbage():
    return Garbage()


def moves_only():
    return MovesOnly()


def no_bar_priority():
    """Lets a checker move while another waits on the bar (spec: bar.enter-first)."""
    return mutant("no-bar-priority")


class Chooser(ReferenceEngine):
    """Only chooses a play (capability chosen-play): of the legal plays of ``rules`` (the
    reference's own, or a mutant's) the one that moves the fewest pips, or none."""

    def __init__(self, rules=None):
        if rules is not None:
            self.rules = rules

    def describe(self):
        return dict(super().describe(), name="chooser", capabilities=["chosen-play"])

    def chosen_play(self, request):
        plays = self.legal_plays(request)["plays"]
        least = min(plays, key=lambda steps: sum(a - b for a, b in steps), default=None)
        return {"play": least}


class Passer(Chooser):
    """Always chooses to play nothing."""

    def chosen_play(self, request):
        return {"play": None}


def chooser():
    return Chooser()


def chooser_no_larger_die():
    """A chooser on top of the no-larger-die mutant's move generator."""
    return Chooser(mutant("no-larger-die").rules)


def passer():
    return Passer()


def started_or_skip(make, require: str, what: str):
    """``make()`` (an engine, described once), or skip the test when the engine is not
    installed (EngineUnavailable), or fail it when the environment variable ``require`` is 1."""
    import os

    import pytest

    from conformance.engines.adapters import EngineUnavailable

    try:
        engine = make()
        engine.describe()
    except EngineUnavailable as exc:
        if os.environ.get(require) == "1":
            pytest.fail(f"{what} is required here ({require}=1): {exc}")
        pytest.skip(f"{what} not installed: {exc}")
    return engine


class DiceOrder(ReferenceEngine):
    """Answers like the reference, except that its verdict on bg-JG27 (bearing the last
    checker off with one die, 4-2) depends on the order of the dice: given 2-4 it takes
    4/off as legal. BSD backgammon's verdict on this case depends on the order too."""

    def describe(self):
        return dict(super().describe(), name="dice-order")

    def play_check(self, request):
        if request.get("case") == "bg-JG27" and list(request["dice"]) == [2, 4]:
            return {"legal": True}
        return super().play_check(request)


def dice_order():
    return DiceOrder()


class DiesOn(ReferenceEngine):
    """The reference, in the process that asks it, ending that whole process (``os._exit``)
    when asked the case ``case_id``: a crash of an in-process engine."""

    def __init__(self, case_id: str):
        super().__init__()
        self.case_id = case_id

    def run_batch(self, requests):
        import os

        if any(r.get("case") == self.case_id for r in requests):
            os._exit(3)
        return super().run_batch(requests)


def dies_on(case_id: str):
    return DiesOn(case_id)


class Batching(ReferenceEngine):
    """The reference, declaring ``"batch": true``; each run_batch call's size is appended to the
    file named by BGCONF_TEST_BATCH_LOG (one line per call)."""

    def describe(self):
        return dict(super().describe(), name="batching", batch=True)

    def run_batch(self, requests):
        import os

        log = os.environ.get("BGCONF_TEST_BATCH_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"{len(requests)}\n")
        return super().run_batch(requests)


def batching():
    return Batching()
