"""Adapter: ankigammon's XGID reader and writer (pure Python, ``pip install ankigammon``; MIT).

ankigammon turns analysed positions into flash cards; its ``ankigammon.utils.xgid`` reads and
writes XGIDs. Public API used: ``parse_xgid(text) -> (Position, metadata)`` and
``encode_xgid(position, cube_value, cube_owner, dice, on_roll, score_x, score_o, match_length,
crawford_jacoby, max_cube) -> str``.

Its board is absolute: ``points[1..24]`` numbered from the bottom player's side, positive counts
the top player's checkers (its ``X``), negative the bottom player's (its ``O``); ``points[0]``
is the top player's bar, ``points[25]`` the bottom player's. bgconf's ``x`` is the XGID's
bottom player (spec: format.xgid), so its ``O``; bgconf's point p of ``o`` is its point 25 - p.
``encode_xgid`` has no spelling for a pending double (dice ``D``), so encoding one is
unsupported.

Capabilities: ``codec.xgid``.
"""

from __future__ import annotations

from conformance.engines.adapters import import_library
from conformance.engines.adapters.codec_library import CodecLibraryAdapter
from conformance.engines.interface import Unsupported
from conformance.model import BAR, Position

NAME = "ankigammon"
DISTRIBUTION = "ankigammon"


def _library():
    return import_library(DISTRIBUTION, NAME, "ankigammon.models", "ankigammon.utils.xgid")


class Adapter(CodecLibraryAdapter):
    """ankigammon's ``utils.xgid`` behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def decode_xgid(self, text: str) -> tuple[dict, dict]:
        models, xgid = _library()
        board, meta = xgid.parse_xgid(text)
        pts = board.points
        sides = {"x": {"points": {p: -pts[p] for p in range(1, 25) if pts[p] < 0}, "bar": abs(pts[25])},
                 "o": {"points": {p: pts[25 - p] for p in range(1, 25) if pts[25 - p] > 0}, "bar": abs(pts[0])}}
        on_roll = "x" if meta["on_roll"] == models.Player.O else "o"
        owner = {models.CubeState.O_OWNS: "x", models.CubeState.X_OWNS: "o"}.get(meta["cube_owner"], "center")
        doubled = meta.get("decision_type") == models.DecisionType.CUBE_ACTION
        length = meta["match_length"]
        dice = meta.get("dice")
        state = {"cube": {"value": meta["cube_value"], "owner": owner}, "on_roll": on_roll,
                 "turn": ("o" if on_roll == "x" else "x") if doubled else on_roll,
                 "dice": sorted(dice, reverse=True) if dice else None, "double_offered": doubled,
                 "resignation": "none", "game_state": "playing",
                 "match": {"length": length, "score": {"x": meta["score_o"], "o": meta["score_x"]},
                           "crawford": bool(length and meta["crawford_jacoby"] & 1)},
                 "jacoby": meta["jacoby"], "beavers": meta["beavers_allowed"], "max_cube": meta["max_cube"]}
        return {"on_roll": on_roll, **sides}, state

    def encode_xgid(self, position: Position, state: dict) -> str:
        models, xgid = _library()
        if state.get("double_offered"):
            raise Unsupported("ankigammon's encode_xgid has no spelling for a pending double")
        pts = [0] * 26
        x, o = position.side("x"), position.side("o")
        for p in range(1, 25):
            pts[p] = o[25 - p] - x[p]
        pts[0], pts[25] = o[BAR], -x[BAR]
        board = models.Position(points=pts, x_off=15 - sum(o[1:]), o_off=15 - sum(x[1:]))
        cube = state.get("cube") or {}
        owner = {"x": models.CubeState.O_OWNS, "o": models.CubeState.X_OWNS}.get(cube.get("owner"),
                                                                                 models.CubeState.CENTERED)
        match = state.get("match") or {}
        score = match.get("score") or {}
        length = match.get("length", 0)
        cj = int(bool(match.get("crawford"))) if length else \
            int(bool(state.get("jacoby"))) + 2 * int(bool(state.get("beavers")))
        dice = state.get("dice")
        return xgid.encode_xgid(board, cube_value=cube.get("value", 1), cube_owner=owner,
                                dice=tuple(dice) if dice else None,
                                on_roll=models.Player.O if position.on_roll == "x" else models.Player.X,
                                score_x=score.get("o", 0), score_o=score.get("x", 0), match_length=length,
                                crawford_jacoby=cj, max_cube=state.get("max_cube") or 1024)
