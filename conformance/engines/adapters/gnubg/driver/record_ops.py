"""The driver's ``record`` op: a game record replayed in one gnubg match or money session through
gnubg's own commands, its state read back after each event.

It runs inside gnubg's embedded Python (``import gnubg`` is built in), uses the standard library
only and imports nothing of bgconf. Requests and replies are as main.py's protocol and ``op_record`` give them.
"""

from boards import _as_lists, _board_arg, _current_board, _dice_arg, _encode
from matchstate import (
    _ROLLS, _WINS, _cannot, _game_info, _int, _match_state, _player, _post_crawford, _set_cube, _start_game,
    _with_dice,
)
from session import CannotSetUp, RequestError, _command

_CUBE_COMMANDS = {"double": "double", "take": "take", "drop": "drop", "beaver": "beaver", "raccoon": "redouble"}


def _record_state(messages):
    """gnubg's state after an event: its Match ID state, its board (not on roll, on roll,
    as gnubg.board() gives it, from the side of the player whose move it is), its
    post-Crawford mark, and, when the game is over, its record of the game."""
    state = _match_state()
    board = _current_board()
    out = {"state": state, "board": _as_lists(board) if board is not None else None,
           "post_crawford": _post_crawford(), "messages": messages}
    if state["game"] != "playing":
        who, won = _game_info()
        found = [_WINS.match(m) for m in messages if _WINS.match(m)]
        out["game"] = {"winner": who, "points": won, "result": found[0].group(2) if found else None}
        out["match_over"] = (any("has won the match" in m for m in messages)
                             or bool(state["length"] and max(state["score"]) >= state["length"]))
    return out


def _fingerprint():
    return _match_state()["match_id"], _current_board()


def _record_event(event):
    """Play one event through gnubg's own commands; return {"accepted", "messages", ...state}."""
    kind = event.get("type")
    player = _player(event.get("player"), "player")
    before = _match_state()
    if before["game"] == "playing" and before["turn"] != player:
        return dict(_record_state([]), accepted=False, messages=[
            "gnubg takes commands only from the player whose turn it is (player %d)" % before["turn"]])
    start = _fingerprint()
    if kind in _CUBE_COMMANDS:
        said = _command(_CUBE_COMMANDS[kind])
        return dict(_record_state(said), accepted=_fingerprint() != start)
    if kind not in ("roll", "play", "roll_play"):
        raise RequestError("unknown event type %r" % (kind,))
    said, rolled = [], False
    thrown = before["dice"][0] and sorted(before["dice"]) == sorted(event.get("dice") or [])
    if kind == "roll" or (kind == "roll_play" and not thrown):
        if before["game"] == "playing" and not before["doubled"] and before["dice"] == [0, 0]:
            # a throw gnubg would accept: its dice are set (its `roll` from a dice file is not
            # reliable after `set turn`, which gives back the dice of the turn's earlier throw)
            said = _command("set dice %d %d" % _dice_arg(event.get("dice")))
        else:
            said = _command("roll")  # gnubg refuses a throw at this moment
        if _fingerprint() == start or kind == "roll":
            return dict(_record_state(said), accepted=_fingerprint() != start)
        rolled = True
    thrown_state = _fingerprint()
    move = str(event.get("move", "")).strip()
    said += _command("move" if move.lower() in ("", "none") else "move " + move)
    if _fingerprint() == thrown_state:
        if rolled:  # a refused roll and play leaves the player before the throw
            said += _command("set turn %d" % player)
        return dict(_record_state(said), accepted=False)
    return dict(_record_state(said), accepted=True)


def op_record(req):
    """Replay a game record in one gnubg match (or money session): ``game`` as in the other
    game ops (plus ``auto_doubles``), ``games``: [{"board"?: [[25], [25]] (a game in
    progress: not on roll, on roll), "turn"?: p, "cube"?: n, "owner"?: -1|0|1, "events":
    [{"type", "player", "dice", "move"}]}]. Every game but a game in progress opens with its
    leading ``opening`` events as gnubg's opening throws (from a dice file); the other events
    are gnubg's commands (roll from a dice file, move, double, take, drop, beaver,
    redouble). Returns {"answers": [{"accepted", "messages", "state", "board",
    "post_crawford", "game"?, "match_over"?}, ...]} one per event, and with ``next_game``,
    whether gnubg's next game (started after the last event) opens with a throw."""
    spec = req.get("game")
    games = req.get("games")
    if not isinstance(games, list) or not games:
        raise RequestError("games must be a non-empty list")
    answers, openings = [], []
    for number, game in enumerate(games):
        events = list(game.get("events") or [])
        throws = []
        while events and events[0].get("type") == "opening":
            throws.append(list(_dice_arg(events.pop(0).get("dice"))))
        if game.get("board") is None:
            if not throws or throws[-1][0] == throws[-1][1]:
                raise CannotSetUp("gnubg starts a game only with its opening throw, which must be decided")
            said = _start_game(spec, throws) if number == 0 else _with_dice(throws, "new game")
            rolled = [[int(a), int(b)] for a, b in (_ROLLS.match(m).groups() for m in said if _ROLLS.match(m))]
            openings.append(bool(rolled))
            if rolled != throws:
                _cannot("gnubg rolled %r, not the opening throws %r" % (rolled, throws), said)
            first = _record_state(said)
            for throw in throws[:-1]:
                answers.append({"accepted": True, "tie": True, "messages": [], "state": None})
            answers.append(dict(first, accepted=True))
        else:
            if throws:
                raise CannotSetUp("a game in progress has no opening throw")
            said = _start_game(spec) if number == 0 else _with_dice([[2, 1]], "new game")
            openings.append(any(_ROLLS.match(m) for m in said))
            board = _board_arg(game["board"])
            turn = _player(game.get("turn"), "turn")
            said += _command("set turn %d" % turn)
            said += _command("set board " + _encode(board))
            said += _set_cube(_int(game.get("cube", 1), "cube", 1, 1 << 20), _int(game.get("owner", -1), "owner", -1, 1))
            state = _match_state()
            if _current_board() != board or state["turn"] != turn or state["dice"] != [0, 0]:
                _cannot("gnubg cannot be put in the game in progress", said)
        ended = None  # how this game ended, as gnubg said when it ended
        for event in events:
            if event.get("type") == "opening":
                answers.append(dict(_record_state([]), accepted=False, messages=[
                    "gnubg throws the opening only as a game starts"]))
                continue
            answer = _record_event(event)
            over = answer.get("game")
            if over is not None:
                # gnubg names the result only in the messages of the event that ends the game; an
                # event refused after it leaves that game as it ended
                if over["result"] is None and not answer["accepted"]:
                    over["result"] = ended
                ended = over["result"]
            answers.append(answer)
    out = {"answers": answers, "openings": openings}
    if req.get("next_game") and _match_state()["game"] != "playing":
        said = _with_dice([[2, 1]], "new game")
        out["next_game_opening"] = any(_ROLLS.match(m) for m in said)
    return out
