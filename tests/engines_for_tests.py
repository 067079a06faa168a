"""Deliberately wrong engines for the project's own tests (selected as
python:engines_for_tests:NAME)."""

from conformance.adapters.reference import ReferenceEngine
from conformance.mutants import mutant


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
