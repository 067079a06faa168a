"""Built-in adapters for real backgammon engines (optional; each needs its engine installed)."""


class EngineUnavailable(RuntimeError):
    """The engine an adapter drives is not installed or cannot be started; the message says how
    to install it."""
