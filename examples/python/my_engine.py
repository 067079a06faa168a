"""A Python engine as the README describes it: a plain class with ``describe()`` and one
method per kind of request it answers. It does not subclass anything from bgconf.

Run it on the movement profile (from the repository root)::

    PYTHONPATH=examples/python bgconf run --engine python:my_engine:MyEngine --profile movement

``legal_plays`` receives the request dict of spec/protocol.md (``position`` in board form,
``dice``, ``rules``) and returns ``{"plays": [...]}``, each play a list of ``[from, to]``
moves in the mover's numbering (25 = bar, 0 = off), ``[]`` when no play is legal. Here the
plays come from bgconf's reference move generator; an engine of your own calls its own
generator instead and converts its answer to that shape.
"""

from conformance.model import Position
from reference_impl.movegen import legal_plays


class MyEngine:
    """The smallest engine bgconf can certify for the movement profile."""

    def describe(self) -> dict:
        return {"name": "my-engine", "version": "0.1", "capabilities": ["legal-plays"]}

    def legal_plays(self, request: dict) -> dict:
        position = Position.from_dict(request["position"])
        plays = legal_plays(position, request["dice"])
        return {"plays": [[list(move) for move in moves] for moves in plays.values() if moves]}


class NotAnEngine:
    """What bgconf refuses at start (exit 4): no ``describe()``."""

    def legal_plays(self, request: dict) -> dict:
        return {"plays": []}
