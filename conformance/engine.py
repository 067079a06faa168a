"""The engine interface under its public name, for engine authors (docs/engine-authors.md).

``from conformance.engine import Engine, Unsupported`` is the documented import of a Python
engine; the interface itself lives in :mod:`conformance.engines.interface`, and bgconf's own code
imports it from there (no module of bgconf imports this one: pyproject.toml's contracts).
"""

from conformance.engines.interface import Engine, Unsupported

__all__ = ["Engine", "Unsupported"]
