"""Requests -> driver messages: one plan per request, the position and codec kinds in full.

``plan_request(req)`` returns ``(finish, messages)``: the driver messages that answer the request
(driver/main.py gives their protocol) and ``finish(replies) -> result dict`` that reads gnubg's
replies back in bgconf's terms; the game kinds are planned in games.py and records.py. Raises
``_Unsupported`` or ``_Failure`` (translate.py) for a request gnubg cannot be asked or a bad one.
"""

from __future__ import annotations

from typing import Any

from conformance.engines.adapters.gnubg.games import (
    _plan_cube_action, _plan_game_result, _plan_match_transition, _plan_opening_roll,
)
from conformance.engines.adapters.gnubg.records import _plan_game_record
from conformance.engines.adapters.gnubg.translate import (
    VARIATION, _board, _board_to_position, _Failure, _position, _refused_or, _Unsupported, _variant,
)
from conformance.model import (
    GAME_STATES, RESIGNATIONS, ModelError, Position, apply_steps, other, parse_dice, play_to_position, point_name,
)

_GAME_PLANS = {
    "game_result": _plan_game_result,
    "cube_action": _plan_cube_action,
    "opening_roll": _plan_opening_roll,
    "match_transition": _plan_match_transition,
    "game_record": _plan_game_record,
}


def plan_request(req: dict):
    """Return ``(finish, messages)`` for one request dict (spec/protocol.md): ``messages`` is the
    list of driver message dicts to send, ``finish(replies)`` turns their reply dicts (one each,
    in order) into the request's result dict. The first message puts gnubg in the request's
    variant (``set variation``, spec: variant.option). Raises _Unsupported for a request gnubg is
    not asked, _Failure for a malformed one."""
    if not isinstance(req, dict):
        raise _Failure("a request must be a dict")
    variant = _variant(req)
    finish, msgs = _plan(req, variant)
    return (lambda got: finish(got[1:])), [{"op": "variation", "variation": VARIATION[variant]}] + msgs


def _plan(req: dict, variant: str):
    kind = req.get("kind")
    if kind in ("legal_plays", "play_check"):
        position = _position(req.get("position"), variant)
        try:
            dice = list(parse_dice(req.get("dice")))
        except ModelError as exc:
            raise _Failure(str(exc)) from None
        if variant.startswith("hypergammon"):
            return _plan_by_moves(kind, position, dice, req.get("play"))
        msg = {"op": "legal_plays", "board": _board(position), "dice": dice}
        if kind == "legal_plays":
            return (lambda got: {"plays": got[0]["plays"]}), [msg]
        return (lambda got: {"legal": _is_legal(position, got[0], req.get("play"))}), [msg]
    if kind == "apply_play":
        position = _position(req.get("position"), variant)
        if "dice" not in req or not isinstance(req.get("play"), str):
            raise _Unsupported("gnubg applies a play only as notation played with a roll")
        msg = {"op": "apply", "board": _board(position), "dice": list(parse_dice(req["dice"])),
               "move": req["play"]}
        return (lambda got: {"position": _board_to_position(got[0]["board"],
                                                            other(position.on_roll), variant)}), [msg]
    if kind == "codec":
        fmt = req.get("format", "gnubg_id")
        if fmt == "gnubg_match_id":
            return _plan_match_id(req)
        if fmt != "gnubg_id":
            raise _Unsupported(f"gnubg adapter only codes gnubg_id and gnubg_match_id, not {fmt!r}")
        if "decode" in req:
            return (lambda got: _refused_or(got[0], lambda g: {"decoded": _board_to_position(g["board"], "x", variant)}),
                    [{"op": "position_id_decode", "gnubg_id": str(req["decode"])}])
        if "encode" in req:
            raise _Unsupported("gnubg adapter encodes a Position ID only from a position")
        position = _position(req.get("position"), variant)
        msgs = [{"op": "encode", "board": _board(position)},
                {"op": "decode", "gnubg_id": str(req.get("gnubg_id"))}]

        def finish(got: list[dict]) -> dict:
            return {"encoded": got[0]["gnubg_id"],
                    "decoded": _board_to_position(got[1]["board"], position.on_roll, variant)}

        return finish, msgs
    if kind in _GAME_PLANS:
        return _GAME_PLANS[kind](req)
    raise _Unsupported(
        f"gnubg adapter answers legal_plays, play_check, apply_play, codec (gnubg_id),"
        f" game_result, cube_action, opening_roll, match_transition and game_record, not {kind!r}")


def _candidates(position: Position, dice: list[int]) -> dict[Position, list[tuple[int, int]]]:
    """Every position the side on roll can reach by moving checkers with some of the dice (in
    either order; all four moves of a double or fewer), physically and nothing more: no rule of
    play decides here (the empty play aside). One step list each."""
    orders = [dice * 2] if dice[0] == dice[1] else [dice, dice[::-1]]
    found: dict[Position, list[tuple[int, int]]] = {}

    def grow(at: Position, steps: list[tuple[int, int]], rest: list[int]) -> None:
        if not rest:
            return
        mover = at.side(position.on_roll)
        for point in range(25, 0, -1):
            if mover[point]:
                step = (point, max(point - rest[0], 0))
                try:
                    reached = apply_steps(position, steps + [step])
                except ModelError:
                    continue
                if reached not in found:
                    found[reached] = steps + [step]
                # the turn passed in ``reached``: continue from the mover's side, on roll again
                grow(reached.passed(), steps + [step], rest[1:])

    for order in orders:
        grow(position, [], list(order))
    return found


def _plan_by_moves(kind: str, position: Position, dice: list[int], play: Any):
    """Legal plays in hypergammon, where gnubg's hint lists none (its evaluations there need a
    database gnubg does not install): every physically possible play is offered to gnubg's own
    move command, which takes exactly the plays its move generator makes (spec: move.*). The
    legal plays are those it takes, one per resulting position."""
    found = _candidates(position, dice)
    reached = list(found)
    moves = [" ".join(f"{point_name(a)}/{point_name(b)}" for a, b in found[p]) for p in reached]
    if not moves:
        msgs: list[dict] = []
    else:
        msgs = [{"op": "moves_accepted", "board": _board(position), "dice": dice, "moves": moves}]

    def plays(got: list[dict]) -> list:
        if not got:
            return []
        return [[list(s) for s in found[p]] for p, ok in zip(reached, got[0]["accepted"]) if ok]

    if kind == "legal_plays":
        return (lambda got: {"plays": plays(got)}), msgs
    return (lambda got: {"legal": _is_legal(position, {"plays": plays(got)}, play)}), msgs


def _is_legal(position: Position, reply: dict, play: Any) -> bool:
    """Whether ``play`` (notation or step list) gives one of gnubg's resulting positions."""
    legal = set()
    for steps in reply["plays"]:
        try:
            legal.add(apply_steps(position, steps))
        except ModelError as exc:
            raise _Failure(f"gnubg's own play {steps!r} does not apply: {exc}") from None
    if not legal:  # no legal play: only the empty play (the board unchanged) is legal
        legal.add(position.passed())
    try:
        return play_to_position(position, play) in legal
    except ModelError:
        return False  # physically impossible, so not a legal play


def _match_id_op(data: Any) -> dict:
    """A state in mapping form (spec: format.match-id) -> the driver's ``match_id_encode``
    message, read leniently so that gnubg, not bgconf, judges odd values."""
    if not isinstance(data, dict):
        raise _Failure(f"a state is a mapping, not {str(data)[:80]}")
    cube = data.get("cube") or {}
    match = data.get("match") or {}
    score = match.get("score") or {}
    if data.get("game_state", "playing") != "playing":
        raise _Unsupported("gnubg is put in a state only while a game is being played")
    try:
        return {"op": "match_id_encode", "length": match.get("length", 0),
                "score": [score.get("o", 0), score.get("x", 0)], "crawford": bool(match.get("crawford", False)),
                "jacoby": bool(data.get("jacoby", False)), "cube": cube.get("value", 1),
                "owner": {"center": -1, "o": 0, "x": 1}[cube.get("owner", "center")],
                "move": {"o": 0, "x": 1}[data.get("on_roll", "x")], "dice": data.get("dice"),
                "double": bool(data.get("double_offered", False)),
                "resign": RESIGNATIONS.index(data.get("resignation", "none"))}
    except (KeyError, ValueError) as exc:
        raise _Failure(f"bad state: {exc}") from None


def _gnubg_state(got: dict, player_1: str = "x") -> dict:
    """gnubg's own reading of an id (its cube info and position info) -> a state in mapping
    form. gnubg's player 1 is ``player_1``: x for a Match ID (spec: format.match-id); for an
    XGID gnubg's importer seats the XGID's player on roll as player 1, so it is that side."""
    ci, pi = got["cubeinfo"], got["posinfo"]
    side = {0: other(player_1), 1: player_1}
    dice = [int(d) for d in pi["dice"]]
    owner = int(ci["cubeowner"])
    return {"cube": {"value": int(ci["cube"]), "owner": "center" if owner < 0 else side[owner]},
            "on_roll": side[int(ci["move"])], "turn": side[int(pi["turn"])], "dice": dice if all(dice) else None,
            "double_offered": bool(pi["doubled"]), "resignation": RESIGNATIONS[int(pi["resigned"])],
            "game_state": GAME_STATES[int(pi["gamestate"])],
            "match": {"length": int(ci["matchto"]), "score": {side[0]: int(ci["score"][0]), side[1]: int(ci["score"][1])},
                      "crawford": bool(ci["crawford"])},
            "jacoby": bool(ci["jacoby"]) and int(ci["matchto"]) == 0}


def _plan_match_id(req: dict):
    """Match ID codec requests: gnubg reads an ID with ``set matchid`` and writes one from the
    state its own commands set up."""
    if "decode" in req:
        return (lambda got: _refused_or(got[0], lambda g: {"decoded": _gnubg_state(g)}),
                [{"op": "match_id_decode", "match_id": str(req["decode"])}])
    if "encode" in req:
        return (lambda got: _refused_or(got[0], lambda g: {"encoded": g["match_id"]}), [_match_id_op(req["encode"])])
    msgs = [_match_id_op(req.get("state")), {"op": "match_id_decode", "match_id": str(req.get("gnubg_match_id"))}]

    def finish(got: list[dict]) -> dict:
        if "refused" in got[0] or "refused" in got[1]:
            return {"refused": None, "message": "gnubg: " + "; ".join(g["refused"] for g in got if "refused" in g)}
        return {"encoded": got[0]["match_id"], "decoded": _gnubg_state(got[1])}

    return finish, msgs
