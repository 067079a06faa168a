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
- ``{"id": 1, "op": "version"}`` -> ``{"id": 1, "version": "GNU Backgammon 1.07.001 20230103"}``.
- ``{"id": 2, "op": "ping"}`` -> ``{"id": 2, "pong": true}``.

Any failure -> ``{"id": N, "error": "message"}``, and the loop goes on. A request line that is
not JSON is answered with ``{"id": null, "error": ...}``.
"""

import json
import os
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
    if _current_board() != expected:
        # gnubg keeps the old board when it refuses; a finished or missing game needs a new one
        msgs += _command("new game")
        msgs += _command("set board " + pid)
        if _current_board() != expected:
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
    "version": op_version,
    "ping": op_ping,
    "apply": op_apply,
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
        except RequestError as exc:
            out = {"id": rid, "error": str(exc)}
        except Exception as exc:  # never die on one bad request
            out = {"id": rid, "error": "%s: %s" % (type(exc).__name__, exc)}
        _send(out)


main()
