"""The engine interface and how engines are found (spec/protocol.md gives the same requests on the wire).

A request is a plain dict such as::

    {"kind": "legal_plays", "case": "bg-7Q3K", "rules": {},
     "position": {"on_roll": "x", "x": {"points": {"13": 1, "6": 14}, "bar": 0, "off": 0},
                  "o": {...}},
     "dice": [6, 5]}

A reply is ``{"result": ...}``, ``{"unsupported": "why"}`` or ``{"errored": "message"}``.
Requests are stateless: rules and position travel with each one.

Results by kind:

- ``legal_plays`` -> ``{"plays": [play, ...]}``, each play a step list
  (``[[13, 7], [7, 5]]``, 25 = bar, 0 = off, mover's numbering), notation
  (``"13/7*/5"``) or a resulting position (board form); ``[]`` = no legal play.
- ``play_check`` (request has ``play`` notation and ``steps``, the moves as
  written: ``[[13, 5]]`` for ``13/5``, which with 5-3 spans two dice) ->
  ``{"legal": bool, "reason": code}`` (``reason`` optional; compared when given).
  A play is legal iff its resulting position is a legal play (spec: move.same-play).
- ``apply_play`` (request has ``play`` and ``steps``) -> ``{"position": board form}``.
- ``codec`` (request has ``format: "gnubg_id"``, ``position`` and ``gnubg_id``) ->
  ``{"encoded": id of position, "decoded": board form of gnubg_id}``.
"""

from __future__ import annotations

import importlib
import traceback
from importlib import metadata
from typing import Callable


class Unsupported(Exception):
    """Raised by an engine method for a request it cannot answer."""


class Engine:
    """Base class for Python engines: one method per kind, named as the kind.

    Subclasses implement ``describe()`` and any of ``legal_plays``,
    ``play_check``, ``apply_play``, ``codec`` (each takes the request dict and
    returns the result dict). ``run`` and ``run_batch`` wrap them into replies.
    """

    def describe(self) -> dict:
        """``{"name", "version", "capabilities": [...], "rule_options": {option: [values]},
        "position_formats": [...]}``."""
        raise NotImplementedError

    def run(self, request: dict) -> dict:
        """Answer one request; never raises (a crash becomes ``errored``)."""
        method = getattr(self, request.get("kind", ""), None)
        if method is None:
            return {"unsupported": f"{type(self).__name__} has no {request.get('kind')!r} method"}
        try:
            return {"result": method(request)}
        except Unsupported as exc:
            return {"unsupported": str(exc)}
        except Exception as exc:  # an engine's crash is a result, not our crash
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            return {"errored": tb}

    def run_batch(self, requests: list[dict]) -> list[dict]:
        """Answer many requests in order (engines that talk to a process batch here)."""
        return [self.run(r) for r in requests]

    def close(self) -> None:
        """Release processes or files; idempotent."""


def _reference() -> Engine:
    from conformance.adapters.reference import ReferenceEngine

    return ReferenceEngine()


def _gnubg() -> Engine:
    from conformance.adapters.gnubg import GnubgEngine

    return GnubgEngine()


# Third-party Python engines: name -> (adapter module, PyPI distribution, install extra, what).
# Each runs isolated in its own child process (``bgconf serve python:MODULE:Adapter`` behind the
# JSON-lines protocol), so a segfault, a hang, a chdir or an import clash cannot harm the run.
THIRD_PARTY: dict[str, tuple[str, str, str]] = {
    "gnubg-nn": ("conformance.adapters.gnubg_nn", "gnubg-nn", "GNU Backgammon's move generator (gnubg-nn, C)"),
    "gnubg-py": ("conformance.adapters.gnubg_py", "gnubg", "GNU Backgammon's Python 3 bindings (gnubg on PyPI)"),
    "bgsage": ("conformance.adapters.bgsage", "bgsage", "bgsage (C++)"),
    "gym-backgammon": ("conformance.adapters.gym_backgammon", "gym-backgammon", "gym-backgammon (pure Python)"),
    "pygammon": ("conformance.adapters.pygammon", "pygammon", "pygammon (pure Python)"),
    "magmacrunch": ("conformance.adapters.magmacrunch", "magmacrunch-backgammon", "magmacrunch-backgammon"),
    "willse": ("conformance.adapters.willse", "willse-backgammon", "willse-backgammon"),
}


def _isolated(name: str, module: str, distribution: str) -> Callable[..., Engine]:
    def make(**options) -> Engine:
        if installed_version(distribution) is None:
            from .adapters import EngineUnavailable

            raise EngineUnavailable(f"{distribution} is not installed: pip install 'bgconf[{name}]'")
        from .protocol import serve_command

        return _command_engine(serve_command(f"python:{module}:Adapter")[len("cmd:"):], **options)

    return make


def _command_engine(command: str, timeout: float | None = None, max_restarts: int | None = None) -> Engine:
    from .protocol import CommandEngine, env_max_restarts, env_timeout

    return CommandEngine(command, timeout=timeout or env_timeout(), max_failures=max_restarts or env_max_restarts())


BUILTIN: dict[str, tuple[Callable[..., Engine], str]] = {
    "reference": (_reference, "the reference engine (reference_impl), in-process"),
    "gnubg": (_gnubg, "GNU Backgammon, the gnubg program driven headless (apt-get install gnubg)"),
    **{name: (_isolated(name, module, dist), f"{what}, isolated in a child process (pip install 'bgconf[{name}]')")
       for name, (module, dist, what) in THIRD_PARTY.items()},
}


def installed_version(distribution: str) -> str | None:
    """The installed version of a PyPI distribution, or None."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


class EngineNotFound(LookupError):
    """No engine of that name (message lists the known ones)."""


class BadEngineName(ValueError):
    """An engine name that is malformed (``cmd:`` with no command, ``python:`` with no
    factory): a usage error."""


class EngineStartError(RuntimeError):
    """The engine exists but could not start or describe itself."""


#: How the runner words an unsupported case; certificates read these prefixes to tell a
#: missing capability from an option value the engine does not offer.
CAPABILITY_UNSUPPORTED = "engine does not declare capability"
OPTION_UNSUPPORTED = "engine does not support rule option"


def start_engine(name: str, *, timeout: float | None = None, max_restarts: int | None = None
                 ) -> tuple[Engine, dict]:
    """``get_engine(name, ...)`` and its ``describe()``, checked: every command that runs an
    engine starts it here, so an unknown name, an engine that is not installed and one
    that cannot start read the same everywhere.

    Raises BadEngineName (a malformed name: exit 2), EngineNotFound (no such engine) or
    EngineStartError (not installed, or could not start), each with a one-line message
    (``cliutil.open_engine`` maps the last two to exit 4).
    """
    try:
        engine = get_engine(name, timeout=timeout, max_restarts=max_restarts)
    except (EngineNotFound, BadEngineName):
        raise
    except Exception as exc:  # not installed, a factory that fails, a bad cmd: line
        raise EngineStartError(f"engine {name!r} could not start: {_one_line(exc)}") from None
    try:
        info = engine.describe()
    except Exception as exc:
        engine.close()
        raise EngineStartError(f"engine {name!r} could not start: {_one_line(exc)}") from None
    if not isinstance(info, dict):
        engine.close()
        raise EngineStartError(f"engine {name!r}: describe() returned {info!r}, not a dict")
    return engine, info


def entry_point_engines() -> dict[str, metadata.EntryPoint]:
    """Engines registered by installed packages in the ``bgconf.engines`` group."""
    return {ep.name: ep for ep in metadata.entry_points(group="bgconf.engines")}


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " | ".join(x.strip() for x in text.splitlines() if x.strip())


class _Wrapped(Engine):
    """A Python engine that does not subclass Engine: any object with ``describe()`` and
    one method per kind it answers (``legal_plays``, ``play_check``, ...)."""

    def __init__(self, obj):
        self._obj = obj

    def describe(self) -> dict:
        return self._obj.describe()

    def __getattr__(self, kind: str):
        if kind.startswith("_"):
            raise AttributeError(kind)
        return getattr(self._obj, kind)

    def close(self) -> None:
        close = getattr(self._obj, "close", None)
        if callable(close):
            close()


def as_engine(obj, name: str) -> Engine:
    """``obj`` as an Engine: itself when it subclasses Engine, else wrapped (it needs a
    callable ``describe()``). Raises EngineStartError naming what is missing."""
    if isinstance(obj, Engine):
        return obj
    if not callable(getattr(obj, "describe", None)):
        raise EngineStartError(
            f"engine {name!r}: the factory returned {type(obj).__name__!r}, which has no describe() method;"
            " a Python engine is an object with describe() and one method per kind it answers"
            " (legal_plays, play_check, ...)")
    return _Wrapped(obj)


def get_engine(name: str, isolated: bool = True, *, timeout: float | None = None,
               max_restarts: int | None = None) -> Engine:
    """Make the engine called ``name``: a built-in (``reference``, ``gnubg``),
    ``cmd:COMMAND`` (a program speaking the JSON-lines protocol of spec/protocol.md;
    per-request timeout BGCONF_TIMEOUT seconds, default 10),
    ``python:pkg.module:factory``, or an entry point of group ``bgconf.engines``.
    Python engines other than the built-ins run in a child process behind the
    protocol unless ``isolated`` is False (as ``bgconf serve`` asks).

    ``timeout`` (s per request) and ``max_restarts`` (consecutive failures before the
    engine is given up) apply to engines behind the protocol.

    Raises EngineNotFound, BadEngineName, or the engine's own error if it cannot start
    (e.g. ``conformance.adapters.EngineUnavailable``, ``protocol.ProtocolError``).
    """
    options = {"timeout": timeout, "max_restarts": max_restarts}
    if name in THIRD_PARTY:
        return BUILTIN[name][0](**options)
    if name in BUILTIN:
        return BUILTIN[name][0]()
    if name.startswith("cmd:"):
        if not name[len("cmd:"):].strip():
            raise BadEngineName("cmd: needs a command after the colon, e.g. --engine \"cmd:./my-engine --bgconf\"")
        return _command_engine(name[len("cmd:"):], **options)
    eps = entry_point_engines()
    if name.startswith("python:") or name in eps:
        if name.startswith("python:") and not name[len("python:"):].partition(":")[2]:
            raise BadEngineName(f"{name!r}: write python:package.module:factory")
        if isolated:
            # a Python engine runs in its own child process behind the protocol, so a
            # hang (timeout), a crash or an exit inside it cannot take the run down
            from .protocol import serve_command

            return _command_engine(serve_command(name)[len("cmd:"):], **options)
        if name in eps:
            return as_engine(eps[name].load()(), name)
        module_name, _, attr = name[len("python:"):].partition(":")
        try:
            module = importlib.import_module(module_name)
            factory = getattr(module, attr)
        except (ImportError, AttributeError) as exc:
            raise EngineNotFound(f"{name!r}: {exc}") from None
        return as_engine(factory(), name)
    known = sorted(BUILTIN) + sorted(eps)
    raise EngineNotFound(f"unknown engine {name!r}; known: {', '.join(known)}, or python:module:factory")
