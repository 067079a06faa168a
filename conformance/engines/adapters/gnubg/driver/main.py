"""bgconf driver script, run INSIDE GNU Backgammon: ``gnubg -t -q -r -p driver/main.py``.

This file is executed by gnubg's embedded Python (``import gnubg`` is built in). It uses the
standard library only and never imports bgconf. It is our own code; it only calls gnubg's public
Python API and commands. It puts its own folder first on ``sys.path`` and imports the driver's
other modules from there, one stage each (the folder is not a package of bgconf):
session.py (errors, replies, gnubg's diverted output and commands) < boards.py (arguments, boards
and Position IDs) < matchstate.py (gnubg's match state, games set up) < position_ops.py,
game_ops.py and record_ops.py (the ops below) < this script (the op table and the loop).

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
- ``{"id": 13, "op": "variation", "variation": "3-chequer-hypergammon"}`` -> gnubg plays that
  variation from now on (``set variation``, then ``new session``); ``{"id": 13, "variation": name}``.
  Every later op plays it: boards have that variation's checker count, off derived from it.
- ``{"id": 14, "op": "moves_accepted", "board": [[25], [25]], "dice": [d1, d2], "moves":
  ["24/21 22/21", ...]}`` -> ``{"id": 14, "accepted": [bool, ...], "boards": [board or null, ...]}``:
  whether gnubg's own ``move`` command takes each move (it checks a move against the plays it
  generates), and the board after it; used where ``gnubg.hint`` lists no plays (hypergammon, whose
  evaluations need a database that is not installed by default).
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


import json
import os
import sys


def _folder():
    """This script's folder, where the driver's other modules are. gnubg runs the script without
    ``__file__``; the file name of its code is the path given to ``-p``."""
    return os.path.dirname(os.path.abspath(_folder.__code__.co_filename))


if _folder() not in sys.path:
    sys.path.insert(0, _folder())

from session import CannotSetUp, RequestError, _command, _send  # noqa: E402  (the first: it diverts fd 1)
from game_ops import op_cube_action, op_finish_game, op_opening_roll  # noqa: E402
from matchstate import _DICE_FILE  # noqa: E402
from position_ops import (  # noqa: E402
    op_apply, op_decode, op_decode_xgid, op_encode, op_legal_plays, op_match_id_decode, op_match_id_encode,
    op_moves_accepted, op_ping, op_position_id_decode, op_variation, op_version,
)
from record_ops import op_record  # noqa: E402

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
    "variation": op_variation,
    "moves_accepted": op_moves_accepted,
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

    gnubg's main thread hands a hint's evaluations to its worker threads and then checks whether
    they are done; when they are not, it sleeps 10 ms before it checks again. A 0-ply hint takes
    well under a millisecond, so a request is quick only when the workers finish before that
    first check: on one CPU, a worker woken by the main thread can preempt it and do so. The CPU
    is chosen by process id, so parallel gnubg processes spread over the CPUs. Returns the CPU or
    None.
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


def _yield_to_workers():
    """Give gnubg's main thread (this one) the SCHED_IDLE policy, once its worker threads exist
    (a thread made later would inherit it); the workers keep theirs. Linux only, and only after
    ``_pin_to_one_cpu`` pinned the threads (BGCONF_GNUBG_NO_PIN=1 turns both off).

    Pinning alone lets a woken worker preempt the main thread only when the scheduler chooses
    to; about half the hints of the bundled suite still waited the 10 ms described there. A
    worker always preempts a SCHED_IDLE thread, so the main thread reaches its first check with
    the evaluations done: the suite's legal-play requests take 0.4 ms each on average instead of
    6.7 ms. A thread may always lower its own policy, so no privilege is needed; the main thread
    mostly waits for the workers or for the next request, and when other work keeps its CPU
    busy it still gets that CPU's idle time and the kernel's small share for SCHED_IDLE. Returns
    whether the policy was set.
    """
    if os.environ.get("BGCONF_GNUBG_NO_PIN") or not hasattr(os, "SCHED_IDLE"):
        return False
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # this thread only
        return True
    except (OSError, AttributeError):
        return False


def setup():
    pinned = _pin_to_one_cpu()
    for cmd in _SETUP_COMMANDS:
        _command(cmd)
    _command("new game")
    if pinned is not None:
        _yield_to_workers()


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
