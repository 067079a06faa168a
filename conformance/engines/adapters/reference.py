"""Adapter: the reference engine (reference_impl) behind the engine interface."""

from __future__ import annotations

from types import SimpleNamespace

from conformance import __version__
from conformance.engines.interface import Engine, Unsupported
from conformance.model import (
    CodecError, Cube, FibsBoard, IdState, Match, Position, decode_fibs_board, encode_fibs_board, decode_match_id, decode_position_id, decode_xgid_state,
    VARIANTS, check_variant, effective_rules, encode_match_id, encode_position_id, encode_state_dict, encode_xgid_state,
    play_to_position, read_position, variant_checkers,
)

import reference_impl.check
import reference_impl.record
import reference_impl.game
import reference_impl.movegen

#: The rule functions the engine calls; a mutant engine swaps in altered ones.
RULES = SimpleNamespace(
    legal_plays=reference_impl.movegen.legal_plays, play_check=reference_impl.check.play_check,
    game_result=reference_impl.game.game_result, cube_action=reference_impl.game.cube_action,
    opening_roll=reference_impl.game.opening_roll, match_transition=reference_impl.game.match_transition,
)


class ReferenceEngine(Engine):
    """bgconf's reference engine: answers every kind of case, with every rule option."""

    rules = RULES

    def describe(self) -> dict:
        return {
            "name": "reference",
            "version": __version__,
            "capabilities": ["legal-plays", "play-check", "apply-play", "codec.gnubg", "codec.xgid", "codec.gnubg-match-id", "codec.fibs",
                             "game-result", "perft", "cube", "match", "opening-roll", "game-record"],
            "rule_options": {
                "cube": [True, False], "max_cube": [2 ** k for k in range(16)] + [None],
                "jacoby": [False, True], "beavers": [False, True], "raccoons": [False, True],
                "automatic_doubles": list(range(16)), "crawford": [True, False],
                "backgammon_multiplier": [3, 4], "opening_reroll": [False, True],
                "winner_starts": [False, True], "variant": list(VARIANTS),
            },
            "position_formats": ["board", "gnubg_id", "xgid", "fibs_board"],
        }

    def legal_plays(self, request: dict) -> dict:
        position = _position(request)
        plays = self.rules.legal_plays(position, request["dice"])
        return {"plays": [[list(s) for s in steps] for steps in plays.values() if steps]}

    def play_check(self, request: dict) -> dict:
        verdict = self.rules.play_check(_position(request), request["dice"], request["steps"])
        out: dict = {"legal": verdict.legal}
        if verdict.reason:
            out["reason"] = verdict.reason
        return out

    def apply_play(self, request: dict) -> dict:
        position = _position(request)
        return {"position": play_to_position(position, request["play"]).to_wire()}

    def codec(self, request: dict) -> dict:
        """Encode and decode (spec: format.position-id, format.match-id, format.xgid); an id or a
        state the model refuses is answered ``{"refused": reason, "message": ...}``
        (spec: format.refusal)."""
        fmt = request.get("format")
        variant = _variant(request)
        if variant_checkers(variant) != 15 and fmt in ("xgid", "fibs_board"):
            raise Unsupported(f"a {fmt} has no field for the checker count: {variant} positions are coded as"
                              f" GNU Backgammon Position IDs (spec: variant.codecs)")
        if fmt == "fibs_board":
            board = decode_fibs_board(request["fibs_board"])
            encoded = encode_fibs_board(FibsBoard.from_state(read_position(request["position"]), request.get("fibs")))
            return {"encoded": encoded, "decoded": {"position": board.position.to_wire(), **board.state()}}
        if fmt not in ("gnubg_id", "xgid", "gnubg_match_id"):
            raise Unsupported(f"codec format {fmt!r}")
        try:
            if "decode" in request:
                return _decode(fmt, request["decode"], variant)
            if "encode" in request:
                if fmt != "gnubg_match_id":
                    raise Unsupported(f"encoding a bare state in {fmt}")
                return {"encoded": encode_state_dict(request["encode"])}
            if fmt == "gnubg_match_id":
                state = IdState.from_dict(request["state"])
                return {"encoded": encode_match_id(state), **_decode(fmt, request["gnubg_match_id"])}
            position = _position(request)
            if fmt == "gnubg_id":
                decoded = decode_position_id(request["gnubg_id"], on_roll=position.on_roll,
                                             checkers=variant_checkers(variant))
                return {"encoded": encode_position_id(position), "decoded": decoded.to_wire()}
            state = IdState.from_dict({"on_roll": position.on_roll, "beavers": False, "max_cube": 1 << 10,
                                       **(request.get("state") or {})})
            return {"encoded": encode_xgid_state(position, state), **_decode(fmt, request["xgid"])}
        except CodecError as exc:
            return {"refused": exc.reason, "message": str(exc)}

    def game_result(self, request: dict) -> dict:
        return self.rules.game_result(read_position(request["position"], _variant(request)), Cube.from_dict(request.get("cube")),
                           Match.from_dict(request.get("match")), effective_rules(request.get("rules")))

    def cube_action(self, request: dict) -> dict:
        action = request["action"]
        return self.rules.cube_action(request["on_roll"], request["moment"], Cube.from_dict(request.get("cube")),
                           Match.from_dict(request.get("match")), action["by"], action["type"],
                           effective_rules(request.get("rules")))

    def opening_roll(self, request: dict) -> dict:
        return self.rules.opening_roll(request["throws"], Match.from_dict(request.get("match")),
                            effective_rules(request.get("rules")))

    def match_transition(self, request: dict) -> dict:
        result = request["result"]
        return self.rules.match_transition(Match.from_dict(request["match"]), result["winner"], result["points"],
                                result.get("type", "single"), effective_rules(request.get("rules")))

    def game_record(self, request: dict) -> dict:
        games = [{"events": game["events"],
                  "position": _position({**request, "position": game["position"]}) if "position" in game else None,
                  "cube": Cube.from_dict(game["cube"]) if "cube" in game else None}
                 for game in request["games"]]
        using = SimpleNamespace(**{name: getattr(self.rules, name) for name in vars(reference_impl.record.RULES)})
        return {"events": reference_impl.record.replay(Match.from_dict(request.get("match")), games,
                                                       effective_rules(request.get("rules")), using)}

    def perft(self, request: dict) -> dict:
        from reference_impl.perft import perft

        position = _position(request)
        for d in request["depths"]:  # perft(p, 0) = 1 is the smallest depth (spec/perft.md)
            if not isinstance(d, int) or isinstance(d, bool) or d < 0:
                raise ValueError(f"perft depth {d!r}: a depth is a whole number, 0 or more")
        return {"counts": {str(d): perft(position, d, request.get("roll_set", "all21"))
                           for d in request["depths"]}}


def _variant(request: dict) -> str:
    """The request's variant (spec: variant.option): its rules' ``variant``, else standard."""
    return (request.get("rules") or {}).get("variant", "standard")


def _position(request: dict) -> Position:
    """The request's position, read in its variant and refused (PositionError) unless it has
    that variant's checker count (spec: variant.checkers)."""
    variant = _variant(request)
    position = read_position(request["position"], variant)
    check_variant(position, variant)
    return position


def _decode(fmt: str, text: str, variant: str = "standard") -> dict:
    """``{"decoded": ...}`` (with ``"state"`` for an XGID) of an id; raises CodecError."""
    if fmt == "gnubg_id":
        return {"decoded": decode_position_id(text, checkers=variant_checkers(variant)).to_wire()}
    if fmt == "gnubg_match_id":
        return {"decoded": decode_match_id(text).to_dict()}
    position, state = decode_xgid_state(text)
    return {"decoded": position.to_wire(), "state": state.to_dict()}
