"""Adapter: backgammon-engine-kit's XGID codec (pure Python, ``pip install backgammon-engine-kit``;
AGPL-3.0-only, so run only as this separately installed engine in its own process).

The kit normalises positions for analysis engines; ``position_contract.native_codec`` decodes an
XGID into its Universal Position and writes one back. Public API used:
``position_from_xgid(text) -> UniversalPosition`` and ``xgid_from_position(position) -> str``
(models from ``position_contract.models``; the phase of a position built from a case is the kit's
own ``semantics.derive_state``).

Its players are ``player_1``, the XGID's bottom player (bgconf's ``x``, spec: format.xgid), and
``player_0`` (``o``); each board is self-relative, ``points[i]`` the count on that player's point
``i + 1``. During a pending double ``state.on_roll`` is the doubler and ``decision_player`` the
side to answer, as in bgconf's state (``on_roll`` and ``turn``).

Capabilities: ``codec.xgid``.
"""

from __future__ import annotations

from conformance.engines.adapters import import_library
from conformance.engines.adapters.codec_library import CodecLibraryAdapter
from conformance.model import BAR, OFF, Position

NAME = "engine-kit"
DISTRIBUTION = "backgammon-engine-kit"
PLAYER = {"x": "player_1", "o": "player_0"}
SIDE = {v: k for k, v in PLAYER.items()}


def _library():
    return import_library(DISTRIBUTION, NAME, "backgammon_engine_kit.position_contract.models", "backgammon_engine_kit.position_contract.native_codec", "backgammon_engine_kit.position_contract.semantics")


class Adapter(CodecLibraryAdapter):
    """backgammon-engine-kit's ``native_codec`` behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def decode_xgid(self, text: str) -> tuple[dict, dict]:
        _models, codec, _semantics = _library()
        up = codec.position_from_xgid(text)
        sides = {}
        for side, player in PLAYER.items():
            b = getattr(up.board, player)
            sides[side] = {"points": {i + 1: n for i, n in enumerate(b.points) if n}, "bar": b.bar}
        on_roll = SIDE.get(up.state.on_roll, up.state.on_roll)
        owner = SIDE.get(up.cube.owner, "center")
        score = {SIDE[p]: getattr(up.score, p) for p in PLAYER.values()}
        length = up.score.match_length
        state = {"cube": {"value": up.cube.value, "owner": owner}, "on_roll": on_roll,
                 "turn": SIDE.get(up.state.decision_player, up.state.decision_player),
                 "dice": sorted(up.state.dice, reverse=True) if up.state.dice else None,
                 "double_offered": up.cube.pending_action.type == "double",
                 "resignation": "none", "game_state": up.state.game_state,
                 "match": {"length": length, "score": score, "crawford": bool(up.rules.crawford)},
                 "jacoby": bool(up.rules.jacoby), "beavers": bool(up.rules.beavers),
                 "max_cube": up.rules.maximum_cube}
        return {"on_roll": on_roll, **sides}, state

    def encode_xgid(self, position: Position, state: dict) -> str:
        m, codec, semantics = _library()
        boards = {side: m.PlayerBoard(points=tuple(position.side(side)[1:25]), bar=position.side(side)[BAR],
                                      off=position.side(side)[OFF]) for side in PLAYER}
        board = m.Board(checker_count=m.CheckerCount(player_0=15, player_1=15),
                        player_0=boards["o"], player_1=boards["x"])
        cube = state.get("cube") or {}
        value = cube.get("value", 1)
        on_roll = PLAYER[position.on_roll]
        other = PLAYER["o" if position.on_roll == "x" else "x"]
        dice = state.get("dice")
        if state.get("double_offered"):
            pending = m.PendingAction(type="double", offerer=on_roll, responder=other,
                                      offered_cube_value=2 * value, resignation_multiplier=None)
        else:
            pending = m.PendingAction(type="none", offerer=None, responder=None, offered_cube_value=None,
                                      resignation_multiplier=None)
        # phase, decision player and type are the kit's own derivation (semantics.derive_state)
        game = m.PositionState(game_state="playing", on_roll=on_roll, decision_player=None, phase="unknown",
                               decision_type="unknown", dice=tuple(dice) if dice and not state.get("double_offered") else None)
        match = state.get("match") or {}
        score = match.get("score") or {}
        length = match.get("length", 0)
        up = m.UniversalPosition(
            board=board, state=game,
            cube=m.CubeState(enabled=None, value=value, owner=PLAYER.get(cube.get("owner"), "center"),
                             pending_action=pending),
            score=m.MatchScore(player_0=score.get("o", 0), player_1=score.get("x", 0), match_length=length),
            rules=m.RuleState(variation=None, crawford=bool(match.get("crawford")) if length else None,
                              jacoby=None if length else bool(state.get("jacoby")),
                              beavers=None if length else bool(state.get("beavers")), raccoons=None,
                              automatic_doubles=None, maximum_cube=state.get("max_cube") or 1024))
        return codec.xgid_from_position(semantics.derive_state(up))
