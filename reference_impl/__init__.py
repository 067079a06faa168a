"""The reference engine: the rules of bgconf's spec, executable.

``legal_plays``, ``play_check`` and ``apply_play`` implement the movement
clauses of ``spec/rules.md``; ``ReferenceEngine`` exposes them through the
engine interface of the harness. It may import ``conformance.model`` alone (the harness imports it,
never the other way).
"""

from .check import REASONS, Verdict, play_check
from .movegen import apply_play, legal_plays, step_error

__all__ = ["REASONS", "Verdict", "apply_play", "legal_plays", "play_check", "step_error"]
