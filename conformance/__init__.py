"""bgconf: the rules-conformance suite and reference spec for backgammon."""

__version__ = "2026.11.0"
