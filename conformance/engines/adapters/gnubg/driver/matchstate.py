"""gnubg's match state in the driver: read from its Match ID, and set up by its commands (a new
match or session at a score, the cube, a game opened with given throws).

It runs inside gnubg's embedded Python (``import gnubg`` is built in), uses the standard library
only and imports nothing of bgconf. Players are gnubg's 0 and 1; ``_match_state()`` gives the
``state`` dict of the protocol (main.py); a state gnubg will not be put in raises ``CannotSetUp``
(``_cannot``), a bad argument ``RequestError``.
"""

import base64
import os
import re
import tempfile

import gnubg  # provided by the gnubg program; not importable elsewhere

from boards import _dice_arg
from session import CannotSetUp, RequestError, _command

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
