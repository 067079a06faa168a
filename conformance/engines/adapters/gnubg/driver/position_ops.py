"""The driver's position and codec ops: legal plays and a play applied on a board, Position IDs,
XGIDs and Match IDs read or written by gnubg, and its version and ping.

It runs inside gnubg's embedded Python (``import gnubg`` is built in), uses the standard library
only and imports nothing of bgconf. Requests and replies are as main.py's protocol gives them.
"""

import gnubg  # provided by the gnubg program; not importable elsewhere

from boards import _apply_steps, _as_lists, _board_arg, _current_board, _decode, _dice_arg, _encode, _id_arg
from matchstate import _GAME_SETTINGS, _cannot, _flag, _int, _match_state, _on, _player
from session import RequestError, _command

MAX_PLAYS = 100000  # far above the largest number of distinct plays of any roll


def _set_board(pid, expected):
    """Make ``expected`` (reached through Position ID ``pid``) gnubg's current board, or raise."""
    msgs = _command("set board " + pid)

    def ready():
        # a finished game keeps its last board: the board alone does not say a game is on
        return _current_board() == expected and _match_state()["game"] == "playing"

    if not ready():
        # gnubg keeps the old board when it refuses; a finished or missing game needs a new one
        # (and a finished match, as a game op may leave it, a new session)
        for fresh in ("new game", "new session"):
            msgs += _command(fresh)
            msgs += _command("set board " + pid)
            if ready():
                break
        if not ready():
            why = "; ".join(dict.fromkeys(m for m in msgs if m))  # unique, in order
            raise RequestError("gnubg refuses the position %s%s" % (pid, (": " + why) if why else ""))


def op_legal_plays(req):
    if "gnubg_id" in req and req.get("board") is None:
        pid = _id_arg(req["gnubg_id"])
        board = _decode(pid)
    else:
        board = _board_arg(req.get("board"))
        pid = _encode(board)
    d1, d2 = _dice_arg(req.get("dice"))
    _set_board(pid, board)
    msgs = _command("set dice %d %d" % (d1, d2))
    try:
        hint = gnubg.hint(MAX_PLAYS)
    except Exception as exc:
        raise RequestError("gnubg.hint failed: %s%s" % (exc or type(exc).__name__,
                                                       (" (" + "; ".join(msgs) + ")") if msgs else ""))
    if not isinstance(hint, dict) or hint.get("hinttype") != "chequer":
        raise RequestError("gnubg.hint gave no chequer-play hint (dice not set?): %s"
                           % "; ".join(msgs))
    # hint['gnubgid'] is "<PositionID>:<MatchID>"; it must be the position we asked about
    hinted = str(hint.get("gnubgid", "")).split(":")[0]
    if hinted and hinted != pid and _decode(hinted) != board:
        raise RequestError("gnubg analysed %s instead of %s" % (hinted, pid))
    plays = []
    results = set()
    for entry in hint.get("hint", ()):
        text = entry.get("move")
        try:
            steps = gnubg.parsemove(text)
        except Exception as exc:
            raise RequestError("gnubg.parsemove(%r) failed: %s" % (text, exc or type(exc).__name__))
        steps = [[int(a), int(b)] for a, b in steps]
        try:
            results.add(_apply_steps(board, steps))
        except RequestError as exc:
            raise RequestError("%s (play %r)" % (exc, text))
        plays.append(steps)
    if len(results) != len(plays):
        raise RequestError("gnubg listed %d plays but they give %d distinct positions"
                           % (len(plays), len(results)))
    if len(plays) >= MAX_PLAYS:
        raise RequestError("gnubg.hint hit the %d-play cap; the list may be cut" % MAX_PLAYS)
    return {"plays": plays, "board": _as_lists(board)}


def op_moves_accepted(req):
    """``{"op": "moves_accepted", "board", "dice", "moves": [notation, ...]}`` -> ``{"accepted":
    [bool, ...], "boards": [board or null, ...]}``: for each move, whether gnubg's own move command
    takes it from ``board`` with ``dice`` (gnubg checks a move against the plays it generates),
    and the board it leaves (seen from the side then on roll). This asks gnubg where its hint
    cannot list the plays (in hypergammon it evaluates with a database it may not have)."""
    board = _board_arg(req.get("board"))
    pid = _encode(board)
    d1, d2 = _dice_arg(req.get("dice"))
    moves = req.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) and m.strip() for m in moves):
        raise RequestError("moves must be a list of non-empty notation strings")
    accepted, boards = [], []
    # a fresh session: each move taken is kept in gnubg's game record, and a record of many
    # thousands of moves slows every later command down
    _command("new session")
    for move in moves:
        _set_board(pid, board)
        msgs = _command("set dice %d %d" % (d1, d2))
        msgs += _command("move " + move)
        if any(" wins " in m for m in msgs):
            accepted.append(True)
            boards.append([[0] * 25, list(board[0])])
            continue
        after = _current_board()
        accepted.append(bool(after is not None and after != board))
        boards.append(_as_lists(after) if accepted[-1] else None)
    return {"accepted": accepted, "boards": boards}


def op_apply(req):
    """Play ``move`` (notation) with ``dice`` from ``board`` through gnubg's own move command;
    return the board afterwards, seen from the side now on roll (not_on_roll, on_roll)."""
    board = _board_arg(req.get("board"))
    pid = _encode(board)
    d1, d2 = _dice_arg(req.get("dice"))
    move = req.get("move")
    if not isinstance(move, str):
        raise RequestError("move must be a string of notation")
    _set_board(pid, board)
    msgs = _command("set dice %d %d" % (d1, d2))
    text = move.replace(",", " ").strip()
    if text.lower() in ("", "none", "pass"):
        hint = gnubg.hint(MAX_PLAYS)
        if hint.get("hint"):
            raise RequestError("gnubg has legal plays here, so the empty play is illegal")
        return {"board": [list(board[1]), list(board[0])]}
    msgs += _command("move " + text)
    if any(" wins " in m for m in msgs):
        # the move bore off the last checker and gnubg ended the game (its board moves on to
        # the next game): the mover has nothing left; bearing off cannot touch the other side
        return {"board": [[0] * 25, list(board[0])]}
    after = _current_board()
    if after is None or after == board:
        raise RequestError("gnubg refused the move %r: %s" % (move, "; ".join(msgs) or "no message"))
    return {"board": _as_lists(after)}


def op_encode(req):
    if "gnubg_id" in req and req.get("board") is None:
        board = _decode(_id_arg(req["gnubg_id"]))  # gnubg's canonical form of an ID
    else:
        board = _board_arg(req.get("board"))
    pid = _encode(board)
    try:
        back = _decode(pid)
    except RequestError as exc:
        raise RequestError("gnubg refuses the position: it encodes it as %s but will not read "
                           "that ID back (%s)" % (pid, str(exc).rsplit(": ", 1)[-1]))
    if back != board:
        raise RequestError("gnubg encodes the board as %s but reads that back differently" % pid)
    return {"gnubg_id": pid}


def op_decode(req):
    return {"board": _as_lists(_decode(_id_arg(req.get("gnubg_id"))))}


def op_decode_xgid(req):
    """Read an XGID with gnubg's own importer (``set xgid``); return the board it sets up,
    (not_on_roll, on_roll), which XGID player is on roll (1 bottom, -1 top), and gnubg's cube
    and position info. gnubg is first put on a sentinel board that no XGID case uses; when
    its board and Match ID are unchanged afterwards (or it calls the position illegal), gnubg
    has refused the XGID: ``{"refused": why}``."""
    text = req.get("xgid")
    if not isinstance(text, str) or not text.startswith("XGID=") or any(c.isspace() for c in text):
        raise RequestError("xgid must be an XGID=... string without spaces")
    _command("new game")
    _command("set board " + _XGID_SENTINEL)
    before = (_current_board(), gnubg.matchid())
    msgs = _command("set xgid " + text)
    board = _current_board()
    if any(m.startswith("Illegal") for m in msgs) or (board, gnubg.matchid()) == before:
        return {"refused": "; ".join(msgs) or "gnubg keeps its previous position and match state"}
    if board is None:
        raise RequestError("gnubg did not read the XGID: %s" % "; ".join(msgs))
    fields = text[5:].split(":")
    return {"board": _as_lists(board), "turn": int(fields[3]) if len(fields) > 3 else 1,
            "cubeinfo": dict(gnubg.cubeinfo()), "posinfo": dict(gnubg.posinfo()), "messages": msgs}


_XGID_SENTINEL = "XwAAgPceAAAAAA"  # a bear-off race; no XGID case has it


def op_match_id_decode(req):
    text = req.get("match_id")
    if not isinstance(text, str) or not text or any(c.isspace() for c in text):
        raise RequestError("match_id must be a non-empty string without spaces")
    for cmd in _GAME_SETTINGS:
        _command(cmd)
    _command("new session")
    msgs = _command("set matchid " + text)
    illegal = [m for m in msgs if m.startswith("Illegal match ID")]
    if illegal:
        return {"refused": illegal[0]}
    if any("cannot handle" in m for m in msgs):
        _cannot("gnubg does not read this Match ID as it is", msgs)
    return {"cubeinfo": dict(gnubg.cubeinfo()), "posinfo": dict(gnubg.posinfo()), "messages": msgs}


_REFUSED = ("You must specify a legal cube value", "You cannot set a score")


def op_match_id_encode(req):
    length = _int(req.get("length", 0), "length", 0, (1 << 15) - 1)
    score = req.get("score", [0, 0])
    if not isinstance(score, (list, tuple)) or len(score) != 2:
        raise RequestError("score must be [player 0, player 1]")
    cube = _int(req.get("cube", 1), "cube", 1, 1 << 20)
    owner = _int(req.get("owner", -1), "owner", -1, 1)
    move = _player(req.get("move", 1), "move")
    resign = _int(req.get("resign", 0), "resign", 0, 3)
    for cmd in _GAME_SETTINGS + ("set jacoby %s" % _on(_flag(req.get("jacoby", False), "jacoby")),):
        _command(cmd)
    commands = [("new match %d" % length) if length else "new session"]
    if list(score) != [0, 0]:
        commands.append("set score %d %d" % (_int(score[0], "score", 0, 1 << 15), _int(score[1], "score", 0, 1 << 15)))
    if _flag(req.get("crawford", False), "crawford"):
        commands.append("set crawford on")
    if cube != 1:
        commands.append("set cube value %d" % cube)
    commands.append("set cube centre" if owner < 0 else "set cube owner %d" % owner)
    commands.append("set turn %d" % move)
    if req.get("dice") is not None:
        commands.append("set dice %d %d" % _dice_arg(req["dice"]))
    if _flag(req.get("double", False), "double"):
        commands.append("double")
    if resign:
        commands.append("resign " + ("normal", "gammon", "backgammon")[resign - 1])
    msgs = []
    for cmd in commands:
        said = _command(cmd)
        refused = [m for m in said if m.startswith(_REFUSED)]
        if refused:
            return {"refused": "%s: %s" % (cmd, refused[0])}
        msgs += said
    return {"match_id": gnubg.matchid(), "messages": msgs}


def op_position_id_decode(req):
    try:
        return {"board": _as_lists(_decode(_id_arg(req.get("gnubg_id"))))}
    except RequestError as exc:
        return {"refused": str(exc)}


_VERSION = None


#: gnubg's variation names (`set variation NAME`) the driver accepts.
VARIATIONS = ("standard", "nackgammon", "1-chequer-hypergammon", "2-chequer-hypergammon", "3-chequer-hypergammon")
_VARIATION = ["standard"]


def op_variation(req):
    """``{"op": "variation", "variation": NAME}``: gnubg plays NAME from now on (`set variation`,
    then a new session, so that the current game is one of it too); nothing is done when it
    already does."""
    name = req.get("variation")
    if name not in VARIATIONS:
        raise RequestError("variation must be one of %s, not %r" % (", ".join(VARIATIONS), name))
    if name != _VARIATION[0]:
        msgs = _command("set variation " + name)
        msgs += _command("new session")
        _VARIATION[0] = name
    return {"variation": name}


def op_version(req):
    global _VERSION
    if _VERSION is None:
        lines = _command("show version")
        found = [m for m in lines if m.startswith("GNU Backgammon")]
        _VERSION = found[0] if found else "GNU Backgammon (version unknown)"
    return {"version": _VERSION}


def op_ping(req):
    return {"pong": True}
