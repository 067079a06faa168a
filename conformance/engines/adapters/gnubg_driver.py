"""bgconf driver script, run INSIDE GNU Backgammon: ``gnubg -t -q -r -p gnubg_driver.py``.

This file is executed by gnubg's embedded Python (``import gnubg`` is built in). It uses the
standard library only and never imports bgconf. It is our own code; it only calls gnubg's public
Python API and commands.

Protocol: one JSON object per line on stdin; for each one, exactly one reply line on stdout:

    @@BGCONF {"id": ..., ...}\\n

Every reply line starts with the fixed marker ``@@BGCONF `` (a trailing space included) and is
flushed at once. gnubg prints a start-up banner to stdout before this script runs; the reader
must ignore every line that does not carry the marker. While the script runs, gnubg's own
chatter (board diagrams, "The dice have been set to ...", error messages) is diverted from
file descriptor 1 into a private temporary file, so it can be quoted in error replies and never
mixes with the replies. The loop ends on end of input or ``{"cmd": "stop"}`` (``{"op": "stop"}``
is accepted too; it is answered with ``{"id": ..., "stopped": true}`` before exiting).

Boards are gnubg's layout: ``[not_on_roll[25], on_roll[25]]``; each side in its own numbering,
index 0..23 = points 1..24, index 24 = that side's bar; counts are non-negative ints.

Requests (``id`` is any JSON value, echoed back unchanged; missing -> null):

- ``{"id": 7, "op": "legal_plays", "board": [[25], [25]], "dice": [d1, d2]}`` (or
  ``"gnubg_id": "<Position ID>"`` instead of ``board``) ->
  ``{"id": 7, "plays": [[[from, to], ...], ...], "board": [[25], [25]]}``: every legal play
  from ``gnubg.hint`` (one per distinct resulting position), each as gnubg's step list from
  ``gnubg.parsemove`` in the mover's numbering (25 = bar, 0 = off). A step may span several
  dice when gnubg's notation combines them (``24/16`` with 6-2 is ``[[24, 16]]``); an
  intermediate hit is always split out (``13/7*/5`` is ``[[13, 7], [7, 5]]``). ``plays`` is
  empty when no play is legal. ``board`` is the board gnubg actually played from.
- ``{"id": 8, "op": "encode", "board": [[25], [25]]}`` -> ``{"id": 8, "gnubg_id": "..."}``
  (a board gnubg cannot read back from its own ID, e.g. both sides on one point, is an error;
  ``"gnubg_id"`` instead of ``board`` re-encodes gnubg's reading of that ID).
- ``{"id": 9, "op": "decode", "gnubg_id": "4HPwATDgc/ABMA"}`` -> ``{"id": 9, "board": [[25], [25]]}``.
- ``{"id": 10, "op": "match_id_decode", "match_id": "QYkqASAAIAAA"}`` -> gnubg reads the Match ID
  (``set matchid``) and reports its own state: ``{"id": 10, "cubeinfo": gnubg.cubeinfo(),
  "posinfo": gnubg.posinfo(), "messages": [...]}``; an ID gnubg calls illegal ->
  ``{"id": 10, "refused": "gnubg's message"}``; a pending double, which gnubg says it cannot
  read, -> ``cannot``.
- ``{"id": 11, "op": "match_id_encode", "length": n, "score": [s0, s1], "crawford": bool,
  "jacoby": bool, "cube": n, "owner": -1|0|1, "move": p, "dice": [a, b] or null, "double": bool,
  "resign": 0..3}`` -> gnubg is put in that state by its own commands (new match or session,
  ``set score``, ``set crawford``, ``set cube value``/``owner``, ``set turn``, ``set dice``,
  ``double``, ``resign``) and writes its Match ID: ``{"id": 11, "match_id": "..."}``; a value a
  command refuses (a cube that is not a power of two, a score at or above the length) ->
  ``{"id": 11, "refused": "gnubg's message"}``.
- ``{"id": 12, "op": "position_id_decode", "gnubg_id": "..."}`` -> ``{"board": ...}``, or
  ``{"refused": "..."}`` when gnubg will not read the ID.
- ``{"id": 1, "op": "version"}`` -> ``{"id": 1, "version": "GNU Backgammon 1.07.001 20230103"}``.
- ``{"id": 2, "op": "ping"}`` -> ``{"id": 2, "pong": true}``.

Game ops. Players are gnubg's: 0 and 1 (``gnubg.match()`` calls them "X" and "O"; the opening
throw is "<player 0> rolls a, <player 1> rolls b"). Each op starts a new match (or money session)
of its own, so no state carries over from one request to the next. ``game`` (in every op but
``opening_roll``) is ``{"length": 0 (money) .. 64, "score": [s0, s1], "crawford": bool,
"post_crawford": bool, "cube_use": bool, "jacoby": bool, "beavers": n (gnubg's `set beavers`:
how many beavers and raccoons one cube action may have), "auto_crawford": bool (gnubg's
`set automatic crawford`, the Crawford rule)}``. ``state`` in replies is gnubg's match state read
from its own Match ID: ``{"match_id", "cube", "owner" (-1 = centred), "move" (player on roll),
"crawford", "game" (none|playing|over|resigned|dropped), "turn" (player to act), "doubled",
"dice", "length", "score", "beavers" (beavers and raccoons so far in the pending cube action)}``.

- ``{"op": "finish_game", "game": {...}, "winner": p, "cube": n, "owner": -1|0|1,
  "board": [[25], [25]] (loser, winner: the winner on roll with one checker left on its point
  ``point``), "point": 1..6, "next_game": bool}`` -> plays ``point/off`` with 6-6 in that state
  and reports gnubg's verdict: ``{"winner": p, "points": n, "result": "single game"|"gammon"|
  "backgammon", "message": "... wins a gammon and 4 points.", "state": {...} (after the game),
  "score_text": gnubg's `show score` line, "match_over": bool}``; with ``next_game``, gnubg is
  then asked to start the next game: ``"next_game": bool`` (whether it did; it refuses once the
  match is over), ``"opening": bool`` (whether the game began with an opening throw) and
  ``"next_game_messages"``.
- ``{"op": "cube_action", "game": {...}, "turn": p, "cube": n, "owner": -1|0|1, "dice": [a, b] or
  null, "steps": ["double", "redouble", ...], "beavers": n, "actor": p, "command": "double"|"take"|
  "drop"|"redouble", "animal": "beaver"|"raccoon" (redouble only)}`` -> puts gnubg in the state
  (``steps`` are played to reach an offer; ``beavers`` is set before the action), then issues
  ``command`` as ``actor``: ``{"accepted": bool, "messages": [...], "before": state, "after":
  state, "game": {"winner": p, "points": n} (when the game ended)}``. gnubg takes commands only
  from the player whose turn it is, so another actor is refused without asking gnubg.
- ``{"op": "opening_roll", "length": n, "cube_use": bool, "auto_doubles": 0..12, "throws":
  [[a, b], ...]}`` -> gnubg reads the throws from a dice file (`set rng file`) as it starts a
  game: ``{"rolled": [[a, b], ...], "starter": p, "dice": [d, d], "state": {...},
  "messages": [...]}``.

A state gnubg refuses to be put in (it refuses a setting or a step that leads there) ->
``{"id": N, "cannot": "why"}``.

Any failure -> ``{"id": N, "error": "message"}``, and the loop goes on. A request line that is
not JSON is answered with ``{"id": null, "error": ...}``.
"""

import base64
import json
import os
import re
import sys
import tempfile

import gnubg  # provided by the gnubg program; not importable elsewhere

MARKER = "@@BGCONF "
MAX_PLAYS = 100000  # far above the largest number of distinct plays of any roll

_SETUP_COMMANDS = (
    "set player 0 human",
    "set player 1 human",
    "set display off",
    # gnubg runs each hint as a task on a worker thread while its main thread polls for the
    # result every 10 ms, so a 0.3 ms hint usually costs a whole 10 ms poll. It does not when
    # the woken worker runs before the main thread's first check: see _pin_to_one_cpu().
    # Two workers did best in measurements; the plays found are the same.
    "set threads 2",
    "set evaluation chequerplay evaluation plies 0",
    "set evaluation cubedecision evaluation plies 0",
)


class RequestError(Exception):
    """A request this driver cannot answer; its text becomes the error reply."""


class CannotSetUp(Exception):
    """gnubg refuses to be put in the state a request describes; becomes ``{"cannot": ...}``."""


# ---------------------------------------------------------------- output plumbing

def _redirect_stdout():
    """Move gnubg's own stdout (fd 1) into a temporary file; return (reply stream, chatter fd)."""
    sys.stdout.flush()
    reply_fd = os.dup(1)
    chatter = tempfile.TemporaryFile()
    chatter_fd = os.dup(chatter.fileno())
    chatter.close()
    os.dup2(chatter_fd, 1)
    reply = os.fdopen(reply_fd, "w", encoding="utf-8", newline="\n")
    return reply, chatter_fd


REPLY, CHATTER_FD = _redirect_stdout()


def _libc():
    try:
        import ctypes
        return ctypes.CDLL(None)
    except Exception:
        return None


_LIBC = _libc()


def _flush_c_stdout():
    """Flush gnubg's C stdio buffers (it flushes its own output; this is belt and braces)."""
    if _LIBC is not None:
        try:
            _LIBC.fflush(None)
        except Exception:
            pass


def _chatter_reset():
    """Forget gnubg's output so far (truncate the capture file)."""
    _flush_c_stdout()
    os.lseek(CHATTER_FD, 0, os.SEEK_SET)
    os.ftruncate(CHATTER_FD, 0)


def _chatter_text():
    """gnubg's output since the last reset, as text."""
    _flush_c_stdout()
    end = os.lseek(CHATTER_FD, 0, os.SEEK_CUR)
    os.lseek(CHATTER_FD, 0, os.SEEK_SET)
    chunks = []
    remaining = end
    while remaining > 0:
        chunk = os.read(CHATTER_FD, min(remaining, 65536))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    os.lseek(CHATTER_FD, end, os.SEEK_SET)
    return b"".join(chunks).decode("utf-8", "replace")


def _messages(text):
    """The lines of gnubg's output that read as messages (board diagrams dropped)."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "|+" or s[:2] in ("v|", "^|"):
            continue
        if "Position ID" in s or s.startswith("Match ID"):
            continue
        out.append(s)
    return out


def _command(cmd):
    """Run a gnubg command; return the message lines it printed."""
    _chatter_reset()
    gnubg.command(cmd)
    return _messages(_chatter_text())


def _send(obj):
    REPLY.write(MARKER + json.dumps(obj, separators=(",", ":")) + "\n")
    REPLY.flush()


# ---------------------------------------------------------------- validation and boards

def _board_arg(value):
    """Validate a board [[25 ints], [25 ints]]; return it as a tuple of two tuples."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise RequestError("board must be a list of two lists of 25 ints (not_on_roll, on_roll)")
    sides = []
    for name, side in zip(("not_on_roll", "on_roll"), value):
        if not isinstance(side, (list, tuple)) or len(side) != 25:
            raise RequestError("board %s must be a list of 25 ints" % name)
        for n in side:
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise RequestError("board %s has a bad count %r (need ints >= 0)" % (name, n))
        total = sum(side)
        if total > 15:
            # gnubg.positionid overflows its buffer on these (the process aborts)
            raise RequestError("board %s has %d checkers (at most 15); gnubg refuses it" % (name, total))
        sides.append(tuple(side))
    return tuple(sides)


def _dice_arg(value):
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in value)):
        raise RequestError("dice must be two ints 1..6, got %r" % (value,))
    return int(value[0]), int(value[1])


def _id_arg(value):
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        raise RequestError("gnubg_id must be a non-empty string without spaces, got %r" % (value,))
    return value


def _as_lists(board):
    return [list(board[0]), list(board[1])]


def _decode(pid):
    try:
        board = gnubg.positionfromid(pid)
    except Exception as exc:
        raise RequestError("gnubg cannot decode Position ID %r: %s" % (pid, exc or type(exc).__name__))
    return tuple(tuple(int(n) for n in side) for side in board)


def _encode(board):
    try:
        pid = gnubg.positionid(_as_lists(board))
    except Exception as exc:
        raise RequestError("gnubg cannot encode the board: %s" % (exc or type(exc).__name__))
    return pid


def _current_board():
    b = gnubg.board()
    if b is None:
        return None
    return tuple(tuple(int(n) for n in side) for side in b)


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


def _apply_steps(board, steps):
    """Apply steps physically to (not_on_roll, on_roll); return the resulting board or raise."""
    opp = list(board[0])
    me = list(board[1])
    for step in steps:
        a, b = int(step[0]), int(step[1])
        if not (1 <= a <= 25 and 0 <= b <= 24 and b < a):
            raise RequestError("gnubg step %r is out of range" % (step,))
        if me[a - 1] <= 0:
            raise RequestError("gnubg step %r moves from an empty point" % (step,))
        me[a - 1] -= 1
        if b == 0:
            continue
        there = 24 - b  # the opponent's index of the same point (its point 25 - b)
        if opp[there] >= 2:
            raise RequestError("gnubg step %r lands on a blocked point" % (step,))
        if opp[there] == 1:
            opp[there] = 0
            opp[24] += 1
        me[b - 1] += 1
    return tuple(opp), tuple(me)


# ---------------------------------------------------------------- game state: match, cube, turn

_GAME_STATES = ("none", "playing", "over", "resigned", "dropped")
_GAME_SETTINGS = (
    # keep gnubg from acting on its own between our commands: no automatic roll (it rolls for
    # a player who cannot double, e.g. right after a take), move, bear-off or next game
    "set automatic game off",
    "set automatic roll off",
    "set automatic move off",
    "set automatic bearoff off",
    "set confirm new off",
)
_WINS = re.compile(r"^(.*) wins an? (single game|gammon|backgammon) and (\d+) points?\.")
_ROLLS = re.compile(r"^.* rolls ([1-6]), .* rolls ([1-6])\.$")
_DICE_FILE = os.path.join(tempfile.gettempdir(), "bgconf-gnubg-dice-%d.txt" % os.getpid())


def _match_state():
    """gnubg's match state, read from its own Match ID (bit layout as the gnubg manual gives it)."""
    mid = gnubg.matchid()
    raw = base64.b64decode(mid + "=" * (-len(mid) % 4))
    bits = int.from_bytes(raw, "little")

    def field(start, width):  # start is 0-based
        return (bits >> start) & ((1 << width) - 1)

    owner = field(4, 2)
    game = field(8, 3)
    state = {
        "match_id": mid,
        "cube": 1 << field(0, 4),
        "owner": -1 if owner == 3 else owner,
        "move": field(6, 1),
        "crawford": bool(field(7, 1)),
        "game": _GAME_STATES[game] if game < len(_GAME_STATES) else str(game),
        "turn": field(11, 1),
        "doubled": bool(field(12, 1)),
        "resigned": field(13, 2),
        "dice": [field(15, 3), field(18, 3)],
        "length": field(21, 15),
        "score": [field(36, 15), field(51, 15)],
        "beavers": None,
    }
    try:  # gnubg's cube info counts the beavers/raccoons of the pending cube action
        state["beavers"] = int(gnubg.cubeinfo()["beavers"])
    except Exception:
        pass  # no cube info once the match is over
    return state


def _flag(value, name):
    if not isinstance(value, bool):
        raise RequestError("%s must be true or false, got %r" % (name, value))
    return value


def _int(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RequestError("%s must be an int %d..%d, got %r" % (name, low, high, value))
    return value


def _player(value, name):
    return _int(value, name, 0, 1)


def _on(flag):
    return "on" if flag else "off"


def _cannot(what, msgs):
    why = "; ".join(dict.fromkeys(m for m in msgs if m))
    raise CannotSetUp("%s%s" % (what, (" (gnubg: %s)" % why) if why else ""))


def _start_game(spec, throws=None):
    """Start a new match (or money session) in the state ``spec`` describes; return gnubg's
    messages. With ``throws`` ([[player 0 die, player 1 die], ...]), the game opens with them
    (read from a dice file). Raise CannotSetUp if gnubg ends up in another state."""
    if not isinstance(spec, dict):
        raise RequestError("game must be an object")
    length = _int(spec.get("length", 0), "game.length", 0, 64)
    score = spec.get("score", [0, 0])
    if not isinstance(score, (list, tuple)) or len(score) != 2:
        raise RequestError("game.score must be [player 0, player 1]")
    score = [_int(n, "game.score", 0, 1 << 14) for n in score]
    crawford = _flag(spec.get("crawford", False), "game.crawford")
    post = _flag(spec.get("post_crawford", False), "game.post_crawford")
    settings = list(_GAME_SETTINGS) + [
        "set automatic doubles %d" % _int(spec.get("auto_doubles", 0), "game.auto_doubles", 0, 12),
        "set automatic crawford %s" % _on(_flag(spec.get("auto_crawford", True), "game.auto_crawford")),
        "set jacoby %s" % _on(_flag(spec.get("jacoby", False), "game.jacoby")),
        "set cube use %s" % _on(_flag(spec.get("cube_use", True), "game.cube_use")),
        "set beavers %d" % _int(spec.get("beavers", 0), "game.beavers", 0, 12),
    ]
    for cmd in settings:
        _command(cmd)  # their confirmations are not worth quoting
    commands = [("new match %d" % length) if length else "new session"]
    if score != [0, 0]:
        commands.append("set score %d %d" % tuple(score))
    if crawford:
        commands.append("set crawford on")
    elif post:
        commands.append("set postcrawford on")
    msgs = []
    if throws is not None:
        msgs += _with_dice(throws, commands[0])
        commands = commands[1:]
    for cmd in commands:
        msgs += [m for m in _command(cmd) if not _ROLLS.match(m)]
    state = _match_state()
    if state["length"] != length or state["score"] != score or state["game"] != "playing":
        _cannot("gnubg does not start a %s at %d-%d" % (
            ("%d-point match" % length) if length else "money session", score[0], score[1]), msgs)
    if state["crawford"] != crawford:
        _cannot("gnubg does not make this game %sthe Crawford game" % ("" if crawford else "not "), msgs)
    if post and not _post_crawford():
        _cannot("gnubg does not make this game post-Crawford", msgs)
    return msgs


def _with_dice(throws, command):
    """Run ``command`` with gnubg's dice read from ``throws`` ([[die, die], ...], in
    order) and the board shown (gnubg names the opening throws, and turns the cube for an
    automatic double, only then); return every message it printed."""
    with open(_DICE_FILE, "w") as f:
        f.write("".join("%d %d\n" % tuple(_dice_arg(t)) for t in throws))
    _command("set rng file " + _DICE_FILE)
    _command("set display on")
    try:
        return _command(command)
    finally:
        _command("set display off")
        _command("set rng mersenne")


def _post_crawford():
    """Whether gnubg marks the current game post-Crawford (its `show score` says so)."""
    return any("post-Crawford" in m for m in _command("show score"))


def _set_cube(value, owner):
    """Set the cube value and owner (-1 = centred); return gnubg's messages."""
    msgs = []
    state = _match_state()
    if state["cube"] != value:
        msgs += _command("set cube value %d" % value)
    if state["owner"] != owner:
        msgs += _command("set cube centre" if owner < 0 else "set cube owner %d" % owner)
    return msgs


def _game_info():
    """gnubg's record of the last game: (winner player or None, points won)."""
    info = gnubg.match()["games"][-1]["info"]
    winner = {"X": 0, "O": 1}.get(info.get("winner"))
    return winner, info.get("points-won")


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


# ---------------------------------------------------------------- game records

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
        for event in events:
            if event.get("type") == "opening":
                answers.append(dict(_record_state([]), accepted=False, messages=[
                    "gnubg throws the opening only as a game starts"]))
                continue
            answers.append(_record_event(event))
    out = {"answers": answers, "openings": openings}
    if req.get("next_game") and _match_state()["game"] != "playing":
        said = _with_dice([[2, 1]], "new game")
        out["next_game_opening"] = any(_ROLLS.match(m) for m in said)
    return out


# ---------------------------------------------------------------- operations

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


def op_version(req):
    global _VERSION
    if _VERSION is None:
        lines = _command("show version")
        found = [m for m in lines if m.startswith("GNU Backgammon")]
        _VERSION = found[0] if found else "GNU Backgammon (version unknown)"
    return {"version": _VERSION}


def op_ping(req):
    return {"pong": True}


OPS = {
    "legal_plays": op_legal_plays,
    "encode": op_encode,
    "decode": op_decode,
    "decode_xgid": op_decode_xgid,
    "match_id_decode": op_match_id_decode,
    "match_id_encode": op_match_id_encode,
    "position_id_decode": op_position_id_decode,
    "version": op_version,
    "ping": op_ping,
    "apply": op_apply,
    "finish_game": op_finish_game,
    "cube_action": op_cube_action,
    "opening_roll": op_opening_roll,
    "record": op_record,
}


def handle(req):
    if not isinstance(req, dict):
        raise RequestError("a request must be a JSON object")
    op = req.get("op")
    fn = OPS.get(op)
    if fn is None:
        raise RequestError("unknown op %r (known: %s)" % (op, ", ".join(sorted(OPS))))
    return fn(req)


def _pin_to_one_cpu():
    """Keep gnubg's threads on one CPU (Linux only; BGCONF_GNUBG_NO_PIN=1 turns this off).

    On one CPU a worker woken by the main thread preempts it and finishes a 0-ply hint before
    the main thread polls, which takes a request from ~7-10 ms to ~0.5-1 ms. The CPU is chosen
    by process id, so parallel gnubg processes spread over the CPUs. Returns the CPU or None.
    """
    if os.environ.get("BGCONF_GNUBG_NO_PIN") or not hasattr(os, "sched_setaffinity"):
        return None
    try:
        cpus = sorted(os.sched_getaffinity(0))
        cpu = cpus[os.getpid() % len(cpus)]
        try:
            tids = [int(t) for t in os.listdir("/proc/self/task")]
        except OSError:
            tids = []
        for tid in tids or [0]:
            try:
                os.sched_setaffinity(tid, {cpu})
            except OSError:
                pass
        os.sched_setaffinity(0, {cpu})  # this thread; threads made later inherit it
        return cpu
    except Exception:
        return None


def setup():
    _pin_to_one_cpu()
    for cmd in _SETUP_COMMANDS:
        _command(cmd)
    _command("new game")


def main():
    setup()
    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline()
        if not raw:
            break
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        rid = None
        try:
            req = json.loads(line)
            if isinstance(req, dict):
                rid = req.get("id")
                if req.get("cmd") == "stop" or req.get("op") == "stop":
                    _send({"id": rid, "stopped": True})
                    break
            reply = handle(req)
            out = {"id": rid}
            out.update(reply)
        except CannotSetUp as exc:
            out = {"id": rid, "cannot": str(exc)}
        except RequestError as exc:
            out = {"id": rid, "error": str(exc)}
        except Exception as exc:  # never die on one bad request
            out = {"id": rid, "error": "%s: %s" % (type(exc).__name__, exc)}
        _send(out)
    try:
        os.remove(_DICE_FILE)  # written by opening_roll requests
    except OSError:
        pass


main()
