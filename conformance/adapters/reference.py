"""Adapter: the reference engine (reference_impl) behind the engine interface."""

from __future__ import annotations

from conformance import __version__
from conformance.engine import Engine, Unsupported
from conformance.model import Position, decode_position_id, encode_position_id, play_to_position

from reference_impl import legal_plays, play_check


class ReferenceEngine(Engine):
    """bgconf's reference engine: answers every movement kind and the gnubg codec."""

    def describe(self) -> dict:
        return {
            "name": "reference",
            "version": __version__,
            "capabilities": ["legal-plays", "play-check", "apply-play", "codec.gnubg"],
            "rule_options": {},
            "position_formats": ["board", "gnubg_id"],
        }

    def legal_plays(self, request: dict) -> dict:
        position = Position.from_dict(request["position"])
        plays = legal_plays(position, request["dice"])
        return {"plays": [[list(s) for s in steps] for steps in plays.values() if steps]}

    def play_check(self, request: dict) -> dict:
        verdict = play_check(Position.from_dict(request["position"]), request["dice"], request["steps"])
        out: dict = {"legal": verdict.legal}
        if verdict.reason:
            out["reason"] = verdict.reason
        return out

    def apply_play(self, request: dict) -> dict:
        position = Position.from_dict(request["position"])
        return {"position": play_to_position(position, request["play"]).to_wire()}

    def codec(self, request: dict) -> dict:
        if request.get("format") != "gnubg_id":
            raise Unsupported(f"codec format {request.get('format')!r}")
        position = Position.from_dict(request["position"])
        decoded = decode_position_id(request["gnubg_id"], on_roll=position.on_roll)
        return {"encoded": encode_position_id(position), "decoded": decoded.to_wire()}
