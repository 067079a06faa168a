"""Adapter: the reference engine (reference_impl) behind the engine interface."""

from __future__ import annotations

from types import SimpleNamespace

from conformance import __version__
from conformance.engine import Engine, Unsupported
from conformance.model import (
    Cube, Match, Position, decode_position_id, decode_xgid, effective_rules, encode_position_id, encode_xgid,
    play_to_position,
)

import reference_impl.check
import reference_impl.events
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
            "capabilities": ["legal-plays", "play-check", "apply-play", "codec.gnubg", "codec.xgid", "game-result", "perft",
                             "cube", "match", "opening-roll", "game-record"],
            "rule_options": {
                "cube": [True, False], "max_cube": [2 ** k for k in range(16)] + [None],
                "jacoby": [False, True], "beavers": [False, True], "raccoons": [False, True],
                "automatic_doubles": list(range(16)), "crawford": [True, False],
                "backgammon_multiplier": [3, 4], "opening_reroll": [False, True],
                "winner_starts": [False, True],
            },
            "position_formats": ["board", "gnubg_id", "xgid"],
        }

    def legal_plays(self, request: dict) -> dict:
        position = Position.from_dict(request["position"])
        plays = self.rules.legal_plays(position, request["dice"])
        return {"plays": [[list(s) for s in steps] for steps in plays.values() if steps]}

    def play_check(self, request: dict) -> dict:
        verdict = self.rules.play_check(Position.from_dict(request["position"]), request["dice"], request["steps"])
        out: dict = {"legal": verdict.legal}
        if verdict.reason:
            out["reason"] = verdict.reason
        return out

    def apply_play(self, request: dict) -> dict:
        position = Position.from_dict(request["position"])
        return {"position": play_to_position(position, request["play"]).to_wire()}

    def codec(self, request: dict) -> dict:
        position = Position.from_dict(request["position"])
        fmt = request.get("format")
        if fmt == "gnubg_id":
            decoded = decode_position_id(request["gnubg_id"], on_roll=position.on_roll)
            return {"encoded": encode_position_id(position), "decoded": decoded.to_wire()}
        if fmt == "xgid":
            return {"encoded": encode_xgid(position), "decoded": decode_xgid(request["xgid"]).to_wire()}
        raise Unsupported(f"codec format {fmt!r}")

    def game_result(self, request: dict) -> dict:
        return self.rules.game_result(Position.from_dict(request["position"]), Cube.from_dict(request.get("cube")),
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
                  "position": Position.from_dict(game["position"]) if "position" in game else None,
                  "cube": Cube.from_dict(game["cube"]) if "cube" in game else None}
                 for game in request["games"]]
        using = SimpleNamespace(**{name: getattr(self.rules, name) for name in vars(reference_impl.events.RULES)})
        return {"events": reference_impl.events.replay(Match.from_dict(request.get("match")), games,
                                                       effective_rules(request.get("rules")), using)}

    def perft(self, request: dict) -> dict:
        from reference_impl.perft import perft

        position = Position.from_dict(request["position"])
        return {"counts": {str(d): perft(position, d, request.get("roll_set", "all21"))
                           for d in request["depths"]}}
