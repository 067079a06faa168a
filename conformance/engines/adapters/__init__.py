"""Built-in adapters for real backgammon engines (optional; each needs its engine installed).

An adapter may import the engine interface, the process helpers and the model; never the registry,
which is the one place that imports the adapters.
"""


class EngineUnavailable(RuntimeError):
    """The engine an adapter drives is not installed or cannot be started; the message says how
    to install it."""
