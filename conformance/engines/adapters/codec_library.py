"""What the adapters of position-id libraries share: the ``codec`` request, answered by XGID.

A library that only reads and writes ids (no move generation) is an engine of one capability,
``codec.xgid`` (spec: format.xgid). A subclass of ``CodecLibraryAdapter`` sets ``NAME`` and
``DISTRIBUTION`` and implements ``decode_xgid`` and ``encode_xgid``; ``codec`` dispatches the
protocol's three request forms (spec/protocol.md, Codecs): both directions, ``decode`` alone,
and ``encode`` (which an XGID library cannot answer: an XGID needs a board).

Whatever the library raises while reading an id is its refusal, ``{"refused": None, "message"}``
(the libraries give no reason bgconf's refusal reasons name; spec: format.refusal); a library
that is not installed is ``EngineUnavailable``, not a refusal.
"""

from __future__ import annotations


from conformance.engines.adapters import EngineUnavailable
from conformance.engines.interface import Engine, Unsupported, installed_version
from conformance.model import Position


class CodecLibraryAdapter(Engine):
    """Base of the position-id library adapters (each runs isolated behind the protocol)."""

    NAME = ""
    DISTRIBUTION = ""

    def describe(self) -> dict:
        return {"name": self.NAME, "version": installed_version(self.DISTRIBUTION) or "not installed",
                "capabilities": ["codec.xgid"], "rule_options": {}, "position_formats": ["board"]}

    def decode_xgid(self, text: str) -> tuple[dict, dict]:
        """``XGID=...`` -> (board form, state dict; spec/protocol.md "state"). Raises what the
        library raises on an id it refuses."""
        raise NotImplementedError

    def encode_xgid(self, position: Position, state: dict) -> str:
        """(Position, the case's state dict, every key optional) -> the library's XGID."""
        raise NotImplementedError

    def codec(self, request: dict) -> dict:
        """Answer a ``codec`` request of format ``xgid``; others raise Unsupported."""
        if request.get("format") != "xgid":
            raise Unsupported(f"codec format {request.get('format')!r}")
        if "encode" in request:
            raise Unsupported("encoding a bare state in xgid")
        if "decode" in request:
            return self._decoded(request["decode"])
        position = Position.from_dict(request["position"])
        state = {"on_roll": position.on_roll, **(request.get("state") or {})}
        return {"encoded": self.encode_xgid(position, state), **self._decoded(request["xgid"])}

    def _decoded(self, text: str) -> dict:
        try:
            board, state = self.decode_xgid(text)
        except EngineUnavailable:
            raise
        except Exception as exc:  # the library's refusal, whatever it raises
            return {"refused": None, "message": f"{type(exc).__name__}: {exc}"}
        return {"decoded": board, "state": state}
