"""The driver's game ops ``finish_game``, ``cube_action`` and ``opening_roll``: gnubg put in a
situation by its own commands, then left to act (score a game, take a cube action, roll an opening).

It runs inside gnubg's embedded Python (``import gnubg`` is built in), uses the standard library
only and imports nothing of bgconf. Requests and replies are as main.py's protocol gives them.
"""

import gnubg  # provided by the gnubg program; not importable elsewhere

from boards import _board_arg, _current_board, _dice_arg, _encode
from matchstate import (
    _DICE_FILE, _GAME_SETTINGS, _ROLLS, _WINS, _cannot, _flag, _game_info, _int, _match_state, _on, _player,
    _set_cube, _start_game,
)
from session import CannotSetUp, RequestError, _command


def op_finish_game(req):
    """Put gnubg one play before the end of a game and let it score the game it sees end."""
    winner = _player(req.get("winner"), "winner")
    cube = _int(req.get("cube", 1), "cube", 1, 1 << 20)
    owner = _int(req.get("owner", -1), "owner", -1, 1)
    point = _int(req.get("point"), "point", 1, 6)
    board = _board_arg(req.get("board"))
    if board[1][point - 1] != 1 or sum(board[1]) != 1:
        raise RequestError("board: the winner (on roll) must have exactly one checker, on its point %d" % point)
    _start_game(req.get("game"))
    msgs = _command("set turn %d" % winner)
    pid = _encode(board)
    msgs += _command("set board " + pid)
    msgs += _set_cube(cube, owner)
    # 6-6: bearing the checker off is then the only play (with 6-5 from the 6-point, 6/1*/off
    # would have to be played if the loser had a blot on the winner's 1-point)
    msgs += _command("set dice 6 6")
    state = _match_state()
    want = {"turn": winner, "move": winner, "cube": cube, "owner": owner, "doubled": False,
            "game": "playing"}
    wrong = [k for k, v in want.items() if state[k] != v]
    if wrong or state["dice"] != [6, 6] or _current_board() != board:
        _cannot("gnubg cannot be put one play before the end (%s)" % (
            ", ".join("%s %r, not %r" % (k, state[k], want[k]) for k in wrong) or "board or dice"), msgs)
    played = _command("move %d/off" % point)
    found = [m for m in played if _WINS.match(m)]
    if not found:
        raise RequestError("gnubg did not end the game with %d/off: %s"
                           % (point, "; ".join(played) or "it refuses the move"))
    line = found[0]
    kind, points = _WINS.match(line).group(2, 3)
    who, won = _game_info()
    if won != int(points) or who is None:
        raise RequestError("gnubg's game record (%r, %r) disagrees with its message %r" % (who, won, line))
    after = _match_state()
    score_text = " ".join(_command("show score"))
    text = " ".join(played)
    out = {"winner": who, "points": int(points), "result": kind, "message": line, "state": after,
           "score_text": score_text, "match_over": "has won the match" in text}
    if req.get("next_game"):
        games = len(gnubg.match()["games"])
        _command("set display on")  # gnubg names the opening throws only with display on
        try:
            started = _command("new game")
        finally:
            _command("set display off")
        out["next_game"] = len(gnubg.match()["games"]) > games
        out["opening"] = any(_ROLLS.match(m) for m in started)
        out["next_game_messages"] = [m for m in started if not _ROLLS.match(m)][:3]
    return out


def op_cube_action(req):
    """Put gnubg at a cube moment, then issue one cube command as one player."""
    turn = _player(req.get("turn"), "turn")
    actor = _player(req.get("actor"), "actor")
    cube = _int(req.get("cube", 1), "cube", 1, 1 << 20)
    owner = _int(req.get("owner", -1), "owner", -1, 1)
    command = req.get("command")
    if command not in ("double", "take", "drop", "redouble"):
        raise RequestError("command must be double, take, drop or redouble, got %r" % (command,))
    animal = req.get("animal")
    if command == "redouble" and animal not in ("beaver", "raccoon"):
        raise RequestError("a redouble needs animal: beaver or raccoon")
    steps = req.get("steps") or []
    if any(step not in ("double", "redouble") for step in steps):
        raise RequestError("steps are double or redouble, got %r" % (steps,))
    _start_game(req.get("game"))
    msgs = _command("set turn %d" % turn)
    msgs += _set_cube(cube, owner)
    if req.get("dice") is not None:
        msgs += _command("set dice %d %d" % _dice_arg(req.get("dice")))
    state = _match_state()
    if (state["cube"], state["owner"], state["turn"]) != (cube, owner, turn):
        _cannot("gnubg cannot be given a cube at %d owned by %s with player %d on roll"
                % (cube, owner if owner >= 0 else "nobody", turn), msgs)
    for step in steps:
        got = _command(step)
        after = _match_state()
        if after["match_id"] == state["match_id"]:
            _cannot("gnubg refuses the %s that leads to this moment" % step, got)
        state = after
    msgs += _command("set beavers %d" % _int(req.get("beavers", 0), "beavers", 0, 12))
    before = _match_state()
    out = {"before": before, "messages": []}
    if actor != before["turn"]:
        out.update(accepted=False, after=before, messages=[
            "gnubg takes commands only from the player whose turn it is (player %d)" % before["turn"]])
        return out
    if before["doubled"] and command == "double":
        raise CannotSetUp("while a double is pending gnubg's double command is a redouble "
                          "(beaver or raccoon); gnubg has no plain double at this moment")
    if before["doubled"] and command == "redouble":
        is_animal = "beaver" if before["beavers"] == 0 else "raccoon"
        if is_animal != animal:
            raise CannotSetUp("gnubg's redouble at this moment is a %s, not a %s" % (is_animal, animal))
    said = _command(command)
    after = _match_state()
    out.update(accepted=after["match_id"] != before["match_id"], after=after, messages=said)
    if after["game"] in ("over", "resigned", "dropped"):
        who, won = _game_info()
        out["game"] = {"winner": who, "points": won}
    return out


def op_opening_roll(req):
    """Start a game with gnubg reading the given opening throws from a dice file."""
    length = _int(req.get("length", 0), "length", 0, 64)
    throws = req.get("throws")
    if not isinstance(throws, list) or not throws:
        raise RequestError("throws must be a non-empty list of [player 0 die, player 1 die]")
    throws = [list(_dice_arg(t)) for t in throws]
    with open(_DICE_FILE, "w") as f:
        f.write("".join("%d %d\n" % tuple(t) for t in throws))
    for cmd in list(_GAME_SETTINGS) + [
            "set automatic doubles %d" % _int(req.get("auto_doubles", 0), "auto_doubles", 0, 12),
            "set cube use %s" % _on(_flag(req.get("cube_use", True), "cube_use")),
            "set rng file " + _DICE_FILE,
            # gnubg 1.07 turns the cube for an automatic double inside the message that
            # announces it, which it prints only with display on; it also names the throws then
            "set display on"]:
        _command(cmd)
    try:
        started = _command(("new match %d" % length) if length else "new session")
    finally:
        _command("set display off")
        _command("set rng mersenne")
    rolled = [[int(a), int(b)] for a, b in (_ROLLS.match(m).groups() for m in started if _ROLLS.match(m))]
    state = _match_state()
    game = gnubg.match()["games"][-1]
    first = (game.get("game") or [{}])[0]
    if first.get("action") != "set" or "dice" not in first:
        raise RequestError("gnubg's new game does not begin with the opening dice: %r" % (first,))
    return {"rolled": rolled, "starter": {"X": 0, "O": 1}[first["player"]],
            "dice": [int(d) for d in first["dice"]], "state": state, "messages": started}
