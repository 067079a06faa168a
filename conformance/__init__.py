"""bgconf: the rules-conformance suite and reference spec for backgammon.

The folders are the layers, imports pointing down only (docs/design.md, "The tree"): ``cli`` and
``pytest_plugin`` > ``commands`` > ``reports`` > ``harness`` > ``cases`` > ``engines`` > ``model``;
this module holds the version alone and may import nothing.
"""

__version__ = "2026.12.2"
