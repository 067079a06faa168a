"""The engine interface (spec/protocol.md gives the same requests on the wire).

How a name becomes an engine lives one layer up, in conformance.engines.registry.

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
  ``{"encoded": id of position, "decoded": board form of gnubg_id}``; ``format:
  "gnubg_match_id"`` with ``state`` and ``gnubg_match_id`` -> ``{"encoded": Match ID of state,
  "decoded": state}``; ``format: "xgid"`` with ``position``, ``state`` and ``xgid`` ->
  ``{"encoded", "decoded": board form, "state"}``; ``decode`` (an id) or ``encode`` (a Match
  ID state) alone -> ``{"refused": reason, "message"}`` or what it decodes or encodes to
  (spec/protocol.md, "Codecs"); ``format: "fibs_board"`` with ``position``, ``fibs`` (the
  state beside the board) and ``fibs_board`` -> ``{"encoded", "decoded": {"position": board
  form, <the fibs state fields>}}`` (spec: format.fibs-board).
- ``chosen_play`` (a legal_plays request) -> ``{"play": play}``, the one play the engine would
  make (step list, notation or resulting position), ``null`` for no play.
- ``game_record`` (request has ``match`` and ``games``, each with ``events`` and, for a
  game in progress, ``position`` and ``cube``) -> ``{"events": [{"accepted": bool,
  "reason"?: code, "state": {...}}, ...]}``, one answer per event (spec/protocol.md,
  Game records).
"""

from __future__ import annotations

import traceback
from importlib import metadata


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
        "position_formats": [...]}``, and ``"batch": true`` for an engine that answers whole
        batches in ``run_batch`` (spec/protocol.md, Batches)."""
        raise NotImplementedError

    def run(self, request: dict) -> dict:
        """Answer one request; never raises (a crash becomes ``errored``)."""
        method = getattr(self, request.get("kind", ""), None)
        if method is None:
            return {"unsupported": f"{type(self).__name__} has no {request.get('kind')!r} method"}
        try:
            return {"result": method(request)}
        except Exception as exc:  # an engine's crash is a result, not our crash
            return failure_reply(exc)

    def run_batch(self, requests: list[dict]) -> list[dict]:
        """Answer many requests in order, one reply per request. An engine that declares
        ``"batch": true`` in ``describe()`` is sent whole batches here and may answer them
        together (spec/protocol.md, Batches); this default answers each with ``run``."""
        return [self.run(r) for r in requests]

    def close(self) -> None:
        """Release processes or files; idempotent."""


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
#: a play the engine's input cannot tell from another (it declares ``"hit_marks": false``): the
#: moves as written may or may not hit on the way (spec/protocol.md, Hit marks)
NOTATION_UNSUPPORTED = "engine's play input has no hit marks"


def failure_reply(exc: Exception) -> dict:
    """The reply for a request whose answer raised ``exc``: ``{"unsupported": why}`` for
    Unsupported, else ``{"errored": "<exception type>: <message>"}``."""
    if isinstance(exc, Unsupported):
        return {"unsupported": str(exc)}
    return {"errored": traceback.format_exception_only(type(exc), exc)[-1].strip()}


def asks_in_batches(engine, info: dict) -> bool:
    """Whether ``engine`` (described by ``info``) is sent whole batches of requests: it declares
    ``"batch": true`` in its description (spec/protocol.md, Batches), or is a Python engine
    whose class sets ``BATCHES`` (the older spelling of the same declaration)."""
    return info.get("batch") is True or bool(getattr(engine, "BATCHES", False))


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
