"""Built-in adapters for real backgammon engines (optional; each needs its engine installed).

An adapter may import the engine interface, the process helpers and the model; never the registry,
which is the one place that imports the adapters.
"""


class EngineUnavailable(RuntimeError):
    """The engine an adapter drives is not installed or cannot be started; the message says how
    to install it."""


def import_library(distribution: str, extra: str, *modules: str) -> tuple:
    """The modules (dotted names) of an optional PyPI library, imported, in the order given.
    Raises EngineUnavailable, with the install command ``pip install 'bgconf[EXTRA]'``, when
    ``distribution`` is not installed or a module cannot be imported."""
    import importlib

    from conformance.engines.interface import installed_version

    hint = f"pip install 'bgconf[{extra}]'"
    if installed_version(distribution) is None:
        raise EngineUnavailable(f"{distribution} is not installed: {hint}")
    try:
        return tuple(importlib.import_module(m) for m in modules)
    except ImportError as exc:
        raise EngineUnavailable(f"{distribution} cannot be imported ({exc}): {hint}") from None
