"""The game_record kind: a whole record replayed in one gnubg match or money session (driver
op ``record``), gnubg's state read back after each event (spec/protocol.md, game_record).

``_plan_game_record(req)`` returns ``(finish, messages)`` as plans.py describes; the result is
``{"events": [{"accepted", "state", "message" (when refused)}, ...]}``.
"""

from __future__ import annotations

from conformance.engines.adapters.gnubg.translate import (
    _RESULT, GNUBG_MAX_AUTO_DOUBLES, GNUBG_MAX_CUBE, PLAYER, SIDE, _beavers, _board, _board_to_position,
    _cap_note, _cube_dict, _cube_of, _Failure, _game_spec, _match_of, _moment, _owner, _position, _rules,
    _side_arg, _Unsupported,
)


def _record_view(answer: dict, next_opens: bool | None, variant: str = "standard") -> dict:
    """gnubg's state after an event, in bgconf's terms (spec/protocol.md, game_record)."""
    st = answer.get("state")
    if st is None:  # an opening tie: gnubg throws the ties and the deciding throw at once
        return {"moment": "opening"}
    view: dict = {"cube": _cube_dict(st), "score": {"x": st["score"][0], "o": st["score"][1]}}
    mover = SIDE[st["move"]]
    if answer.get("board") is not None:
        view["position"] = _board_to_position(answer["board"], mover, variant)
        view["on_roll"] = mover
    view["crawford"], view["post_crawford"] = bool(st["crawford"]), bool(answer["post_crawford"])
    if st["game"] == "playing":
        view["moment"] = _moment(st)
        if view["moment"] == "after_roll":
            view["dice"] = list(st["dice"])
        return view
    game = answer["game"]
    result = "drop" if st["game"] == "dropped" else _RESULT.get(game["result"])
    view.update(moment="game_over", game_over={"winner": SIDE[game["winner"]], "result": result,
                                               "points": int(game["points"])},
                match_over=bool(answer["match_over"]))
    if view["match_over"]:
        # gnubg starts no game after the match, so none is the Crawford game or post-Crawford
        view.update(winner=SIDE[game["winner"]], crawford=False, post_crawford=False)
    elif next_opens:
        view["next_starts"] = "opening_roll"
    return view


def _plan_game_record(req: dict):
    """Replay the record in one gnubg match or money session (driver op ``record``):
    opening throws and rolls from a dice file, plays as gnubg's ``move``, cube actions as
    its ``double``, ``take``, ``drop``, ``beaver`` and ``redouble`` (a raccoon); after each
    event gnubg's own state (Match ID, board, `show score`, its record of a finished game)
    is read back. Under the Jacoby rule in money play gnubg calls a gammon on a centred
    cube "a single game", so the record is replayed once more without Jacoby to read
    gnubg's verdict on the board, as for game_result."""
    match = _match_of(req)
    rules = _rules(req)
    games = []
    for game in req.get("games") or []:
        out: dict = {"events": []}
        if "position" in game:
            position = _position(game["position"], rules["variant"])
            cube = _cube_of({"cube": game.get("cube")})
            out.update(board=_board(position), turn=PLAYER[position.on_roll], cube=cube.value, owner=_owner(cube))
        for event in game["events"]:
            sent = {"type": event["type"], "dice": event.get("dice"), "move": event.get("play")}
            if event["type"] != "opening":
                sent["player"] = PLAYER[_side_arg(event.get("side"), "event side")]
            out["events"].append(sent)
        games.append(out)
    if not games:
        raise _Failure("bad request: a game record has at least one game")
    spec = dict(_game_spec(match, rules, jacoby=rules["jacoby"], beavers=_beavers(rules)),
                auto_doubles=rules["automatic_doubles"])
    if rules["automatic_doubles"] > GNUBG_MAX_AUTO_DOUBLES:
        raise _Unsupported(f"gnubg allows at most {GNUBG_MAX_AUTO_DOUBLES} automatic doubles")
    msgs = [{"op": "record", "game": spec, "games": games, "next_game": True}]
    if rules["jacoby"] and match.money:
        msgs.append({"op": "record", "game": dict(spec, jacoby=False), "games": games, "next_game": False})
    cap = rules["max_cube"]

    def finish(got: list[dict]) -> dict:
        answers, openings = got[0]["answers"], got[0]["openings"]
        judged = got[-1]["answers"]
        # whether the game after each event's own game opened with gnubg's throw
        following = []
        for number, game in enumerate(games):
            after = openings[number + 1] if number + 1 < len(openings) else got[0].get("next_game_opening")
            following += [after] * len(game["events"])
        events = []
        for i, answer in enumerate(answers):
            view = _record_view(answer, following[i] if i < len(following) else None, rules["variant"])
            if "game_over" in view and view["game_over"]["result"] != "drop" and judged is not answers:
                other_view = _record_view(judged[i], None, rules["variant"]) if i < len(judged) else {}
                if "game_over" in other_view:
                    view["game_over"]["result"] = other_view["game_over"]["result"]
            top = view.get("cube", {}).get("value", 1)
            if cap is not None and top > cap and cap != GNUBG_MAX_CUBE:
                raise _Unsupported(f"{_cap_note(cap)}; it lets the cube reach {top}")
            reply = {"accepted": bool(answer["accepted"]), "state": view}
            if not answer["accepted"]:
                reply["message"] = "; ".join(answer.get("messages") or []) or "gnubg refused it"
            events.append(reply)
        return {"events": events}

    return finish, msgs
