"""Adapter for GNU Backgammon (the ``gnubg`` program, run headless as a separate process).

gnubg is GPL software: bgconf never imports or copies it. This module starts the installed
program once (``gnubg -t -q -r -p gnubg_driver.py``) and talks to the driver script beside this
file over pipes, one JSON object per line (see ``gnubg_driver.py`` for that protocol; replies are
the lines that start with ``@@BGCONF ``). One process serves any number of requests; it is
started lazily, restarted if it dies, and a request that crashes or hangs it is answered
``{"errored": ...}`` while the rest of the batch goes on.

Requests and replies are the plain dicts of spec/protocol.md. Positions are in the board
form: ``{"on_roll": "x", "x": {"points": {24: 2, 13: 5, ...}, "bar": 0, "off": 0}, "o": {...}}``,
each side in its own numbering (points 1..24; keys may be ints or strings; ``off`` is derived
and ignored on input). ``"start"`` and ``{"gnubg_id": "..."}`` (on roll: ``on_roll`` if given,
else ``x``) are accepted too. Supported kinds:

- ``legal_plays`` -> ``{"result": {"plays": [[[from, to], ...], ...]}}``: gnubg's full list, one
  play per distinct resulting position, as gnubg's step lists in the mover's numbering
  (25 = bar, 0 = off). A step can span several dice when gnubg's notation does (``24/16`` with
  6-2 is ``[[24, 16]]``); a hit on the way is always its own step (``[[13, 7], [7, 5]]``).
- ``play_check`` with ``play`` (notation such as ``"13/7*/5"``, or a step list)
  -> ``{"result": {"legal": bool}}``: legal iff the play's resulting position is one of gnubg's
  (spec: move.same-play), or, when gnubg finds no legal play, iff it leaves the board unchanged.
- ``codec`` with ``format: gnubg_id`` -> ``{"result": {"encoded": "<gnubg's Position ID of
  position>", "decoded": <position dict read from gnubg_id>}}``.
- ``codec`` with ``format: gnubg_match_id`` -> ``{"encoded": <the Match ID gnubg writes once its
  own commands have set up the state>, "decoded": <the state gnubg holds after ``set matchid``,
  read from its cube and position info>}``; x is gnubg's player 1, o player 0 (the Match ID's
  numbering, spec: format.match-id; the game kinds below number the players their own way).
- ``codec`` with ``decode`` (or ``encode`` for a Match ID state): ``{"refused": null,
  "message": gnubg's words}`` when gnubg will not read the ID (or a command refuses the state),
  else what it decoded or encoded.

The game kinds are answered by gnubg's own commands and state (see the section "the game kinds"
below for how each is set up). Side x is gnubg's player 0 (``gnubg.match()``'s "X", the first die
of an opening throw), o is player 1 ("O"):

- ``game_result`` -> ``{"winner", "result", "points", "message"}``: gnubg plays the last move of
  the game and scores it ("... wins a gammon and 4 points.").
- ``cube_action`` -> ``{"allowed": false, "message": gnubg's refusal}`` (no reason codes: gnubg's
  order of checks is not bgconf's), or ``{"allowed": true, "moment", "cube"}``, or
  ``{"allowed": true, "game_over": {"winner", "points"}}``.
- ``opening_roll`` -> ``{"starts", "dice", "cube", "may_reroll": false}``: gnubg reads the throws
  from a dice file.
- ``match_transition`` -> ``{"score", "match_over", "winner" | "crawford", "post_crawford",
  "next_starts"}``: a game ended in gnubg's match.
- ``game_record`` -> ``{"events": [{"accepted", "state", "message" (when refused)}, ...]}``: the
  record replayed in one gnubg match or session through its own commands, its state read back
  after each event. gnubg throws an opening's ties and its deciding throw at once, so a tie's
  state is only ``{"moment": "opening"}``; gnubg takes commands only from the player whose turn
  it is, so an event by the other player is refused without asking it.

Unsupported, per request: a situation gnubg cannot be put in (it refuses a setting or the step
that leads there: a pending double in the Crawford game, with a dead cube or with the cube off; a
beaver in match play; a finished board no last play can produce; ...), an answer that would rest
on a rule option value gnubg has no setting for (a backgammon under ``backgammon_multiplier: 4``,
a cube limit other than gnubg's fixed 4096 that the action reaches, ``opening_reroll``,
``winner_starts``, more than 12 automatic doubles), and matches longer than 64 points.

Anything else is ``{"unsupported": "why"}``; a failure is ``{"errored": "message"}``.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.process import EngineProcess, LineTooLong
from conformance.engines.interface import OPTION_UNSUPPORTED
from conformance.model import (
    CUBE_ACTIONS, GAME_STATES, MOMENTS, OFF, RESIGNATIONS, SIDES, Cube, Match, ModelError, Position, apply_steps, effective_rules,
    other, parse_dice, play_to_position, read_position,
)

__all__ = ["GnubgEngine", "EngineUnavailable", "DRIVER"]

#: The script gnubg runs; it lives next to this module.
DRIVER = Path(__file__).with_name("gnubg_driver.py")

MARKER = "@@BGCONF "
INSTALL_HINT = "install it with: apt-get update && apt-get install -y gnubg"
_WINDOW = 16  # requests in flight at once; small enough never to fill the stdin pipe
_FALLBACK_PATHS = ("/usr/games/gnubg", "/usr/local/games/gnubg")


class _Failure(Exception):
    """A request that cannot be answered; becomes ``{"errored": ...}``."""


class _Unsupported(Exception):
    """A request outside what gnubg answers; becomes ``{"unsupported": ...}``."""


def find_program(program: str | None = None) -> str:
    """Locate the gnubg executable and return its path.

    ``program`` (a path or a name on PATH) wins when given; otherwise ``shutil.which("gnubg")``
    and then ``/usr/games/gnubg`` (Debian's games directory, not on root's PATH).
    Raises ``EngineUnavailable`` (with the apt-get command) when nothing executable is found.
    """
    candidates = [program] if program else ["gnubg", *_FALLBACK_PATHS]
    for cand in candidates:
        found = shutil.which(cand)
        if found:
            return found
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    where = repr(program) if program else "gnubg (on PATH or in /usr/games)"
    raise EngineUnavailable(f"GNU Backgammon not found: {where}; {INSTALL_HINT}")


class _Process(EngineProcess):
    """One running gnubg (``conformance.engines.process``: its own session, no reader threads);
    its driver's replies are the stdout lines that carry MARKER."""

    def __init__(self, program: str) -> None:
        super().__init__([program, "-t", "-q", "-r", "-p", str(DRIVER)])

    def next_reply(self, timeout: float) -> tuple[str, Any]:
        """``("reply", obj)``, ``("garbled", text)`` or ``("eof", None)``; gnubg's banner and
        other chatter are skipped. Raises TimeoutError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.receive(max(deadline - time.monotonic(), 0.0))
            except LineTooLong:
                return "garbled", "a line too long to read"
            if line is None:
                return "eof", None
            at = line.find(MARKER)
            if at < 0:
                continue
            try:
                return "reply", json.loads(line[at + len(MARKER):])
            except ValueError:
                return "garbled", line[:200]

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self, grace: float = 2.0) -> None:
        """Ask the driver to stop, then kill its process group and close the pipes."""
        if self.popen.poll() is None:
            try:
                self.send({"cmd": "stop", "id": None}, timeout=1.0)
                self.popen.wait(timeout=grace)
            except (OSError, ValueError, TimeoutError, subprocess.TimeoutExpired):
                pass
        self.kill()


class GnubgEngine:
    """Drive the installed GNU Backgammon program as a bgconf engine.

    One long-lived gnubg process (started on first use) answers every request. Instances are
    safe to share between threads (requests are serialised). Use ``close()`` or a ``with``
    block to end the process.
    """

    #: the runner sends whole batches (one gnubg script answers many requests)
    BATCHES = True

    name = "gnubg"

    def __init__(self, program: str | None = None, timeout: float = 30.0) -> None:
        """Find the program; do not start it yet.

        ``program``: path or name of the gnubg executable (default: ``gnubg`` on PATH, then
        ``/usr/games/gnubg``). ``timeout``: seconds one request may take (its wait starts when
        the request before it has been answered; the first one also covers start-up, ~0.25 s).
        Raises ``EngineUnavailable`` when the program is not found.
        """
        if not DRIVER.is_file():
            raise EngineUnavailable(f"driver script missing: {DRIVER}")
        self.program = find_program(program)
        self.timeout = float(timeout)
        self._proc: _Process | None = None
        self._lock = threading.RLock()
        self._next_id = 0
        self._version: str | None = None

    # ------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """End the gnubg process if one is running (stop request, then kill by pid). Idempotent."""
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is not None:
                proc.stop()

    def __enter__(self) -> "GnubgEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _process(self) -> _Process:
        if self._proc is not None and not self._proc.alive():
            self._discard()
        if self._proc is None:
            try:
                proc = _Process(self.program)
            except OSError as exc:
                raise _Failure(f"cannot start {self.program}: {exc}") from exc
            self._handshake(proc)
            self._proc = proc
        return self._proc

    def _handshake(self, proc: _Process) -> None:
        """Ping a fresh process; raise _Failure (after killing it) if it does not answer."""
        why = f"no answer within {self.timeout:g} s"
        try:
            proc.send({"op": "ping", "id": "start"})
            deadline = time.monotonic() + self.timeout
            while (left := deadline - time.monotonic()) > 0:
                try:
                    what, obj = proc.next_reply(left)
                except TimeoutError:
                    break
                if what == "eof":
                    _wait_briefly(proc)
                    why = proc.why_dead()
                    break
                if what == "reply" and isinstance(obj, dict) and obj.get("id") == "start":
                    return
        except (OSError, ValueError) as exc:
            why = f"{exc}; {proc.why_dead()}"
        proc.kill()
        raise _Failure(f"gnubg does not start ({self.program}): {why}")

    def _discard(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()

    # ------------------------------------------------------------ public API

    def describe(self) -> dict:
        """Identity and abilities: ``{"name", "version", "capabilities", "rule_options",
        "position_formats"}`` (``rule_options``: the values gnubg has a setting for, see
        RULE_OPTIONS). ``version`` is gnubg's own version line (e.g.
        ``GNU Backgammon 1.07.001 20230103``); finding it starts the process.
        Raises ``EngineUnavailable`` when the program cannot be driven.
        """
        if self._version is None:
            [reply] = self._exchange([{"op": "version"}])
            if isinstance(reply, str) or "version" not in reply:
                why = reply if isinstance(reply, str) else reply.get("error", reply)
                raise EngineUnavailable(f"{self.program} does not answer: {why}; {INSTALL_HINT}")
            self._version = str(reply["version"])
        return {
            "name": "gnubg",
            "version": self._version,
            "capabilities": ["legal-plays", "play-check", "apply-play", "codec.gnubg", "codec.gnubg-match-id",
                             "game-result", "cube", "match", "opening-roll", "game-record"],
            "rule_options": {name: list(values) for name, values in RULE_OPTIONS.items()},
            "position_formats": ["board", "gnubg_id"],
        }

    def run(self, request: dict) -> dict:
        """Answer one request dict; same as ``run_batch([request])[0]``."""
        return self.run_batch([request])[0]

    def run_batch(self, requests: list[dict]) -> list[dict]:
        """Answer request dicts in order, all through the one gnubg process.

        Returns one reply per request: ``{"result": ...}``, ``{"unsupported": "why"}`` or
        ``{"errored": "message"}`` (bad input, gnubg refusing a position, a crash or a timeout of
        that request). Never raises for a bad request.
        """
        plans: list[tuple[Any, list[dict]] | dict] = []
        for req in requests:
            try:
                plans.append(self._plan(req))
            except _Unsupported as exc:
                plans.append({"unsupported": str(exc)})
            except _Failure as exc:
                plans.append({"errored": str(exc)})
            except Exception as exc:  # malformed request
                plans.append({"errored": f"bad request: {type(exc).__name__}: {exc}"})
        messages = [m for p in plans if isinstance(p, tuple) for m in p[1]]
        answers = iter(self._exchange(messages))
        replies: list[dict] = []
        for plan in plans:
            if isinstance(plan, dict):
                replies.append(plan)
                continue
            finish, msgs = plan
            got = [next(answers) for _ in msgs]
            try:
                for g in got:
                    if isinstance(g, str):
                        raise _Failure(g)
                    if "error" in g:
                        err = str(g["error"])
                        raise _Failure(err if err.startswith("gnubg") else f"gnubg: {err}")
                    if "cannot" in g:
                        raise _Unsupported(f"gnubg cannot be put in this state: {g['cannot']}")
                replies.append({"result": finish(got)})
            except _Unsupported as exc:
                replies.append({"unsupported": str(exc)})
            except _Failure as exc:
                replies.append({"errored": str(exc)})
            except Exception as exc:
                replies.append({"errored": f"{type(exc).__name__}: {exc}"})
        return replies

    # ------------------------------------------------------------ requests -> driver messages

    def _plan(self, req: dict):
        """Return (finish, driver messages) for a request, or raise _Unsupported/_Failure."""
        if not isinstance(req, dict):
            raise _Failure("a request must be a dict")
        kind = req.get("kind")
        if kind in ("legal_plays", "play_check"):
            position = _position(req.get("position"))
            try:
                dice = list(parse_dice(req.get("dice")))
            except ModelError as exc:
                raise _Failure(str(exc)) from None
            msg = {"op": "legal_plays", "board": _board(position), "dice": dice}
            if kind == "legal_plays":
                return (lambda got: {"plays": got[0]["plays"]}), [msg]
            return (lambda got: {"legal": _is_legal(position, got[0], req.get("play"))}), [msg]
        if kind == "apply_play":
            position = _position(req.get("position"))
            if "dice" not in req or not isinstance(req.get("play"), str):
                raise _Unsupported("gnubg applies a play only as notation played with a roll")
            msg = {"op": "apply", "board": _board(position), "dice": list(parse_dice(req["dice"])),
                   "move": req["play"]}
            return (lambda got: {"position": _board_to_position(got[0]["board"],
                                                                other(position.on_roll))}), [msg]
        if kind == "codec":
            fmt = req.get("format", "gnubg_id")
            if fmt == "gnubg_match_id":
                return _plan_match_id(req)
            if fmt != "gnubg_id":
                raise _Unsupported(f"gnubg adapter only codes gnubg_id and gnubg_match_id, not {fmt!r}")
            if "decode" in req:
                return (lambda got: _refused_or(got[0], lambda g: {"decoded": _board_to_position(g["board"], "x")}),
                        [{"op": "position_id_decode", "gnubg_id": str(req["decode"])}])
            if "encode" in req:
                raise _Unsupported("gnubg adapter encodes a Position ID only from a position")
            position = _position(req.get("position"))
            msgs = [{"op": "encode", "board": _board(position)},
                    {"op": "decode", "gnubg_id": str(req.get("gnubg_id"))}]

            def finish(got: list[dict]) -> dict:
                return {"encoded": got[0]["gnubg_id"],
                        "decoded": _board_to_position(got[1]["board"], position.on_roll)}

            return finish, msgs
        if kind in _GAME_PLANS:
            return _GAME_PLANS[kind](req)
        raise _Unsupported(
            f"gnubg adapter answers legal_plays, play_check, apply_play, codec (gnubg_id),"
            f" game_result, cube_action, opening_roll, match_transition and game_record, not {kind!r}")

    # ------------------------------------------------------------ the pipe

    def _exchange(self, messages: list[dict]) -> list[dict | str]:
        """Send driver messages through the process; return each reply dict, or a str saying
        why that message got no answer (crash, timeout, start failure)."""
        with self._lock:
            n = len(messages)
            results: list[dict | str | None] = [None] * n
            sent = 0
            inflight: collections.deque[tuple[int, int]] = collections.deque()
            while sent < n or inflight:
                try:
                    proc = self._process()
                except _Failure as exc:
                    for i in range(n):
                        if results[i] is None:
                            results[i] = str(exc)
                    break
                try:
                    while sent < n and len(inflight) < _WINDOW:
                        self._next_id += 1
                        proc.send({**messages[sent], "id": self._next_id})
                        inflight.append((sent, self._next_id))
                        sent += 1
                except (OSError, ValueError):
                    pass  # the process died; the wait below sees EOF and reports it
                index, rid = inflight[0]
                deadline = time.monotonic() + self.timeout
                outcome: str | None = None
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        outcome = f"gnubg timed out after {self.timeout:g} s"
                        break
                    try:
                        what, obj = proc.next_reply(left)
                    except TimeoutError:
                        continue
                    if what == "eof":
                        _wait_briefly(proc)
                        outcome = f"gnubg died ({proc.why_dead()})"
                        break
                    if what == "reply" and isinstance(obj, dict) and obj.get("id") == rid:
                        results[index] = obj
                        inflight.popleft()
                        break
                    # garbled or stale lines: ignore
                if outcome is None:
                    continue
                # crash or hang: this request is errored, the process replaced, the rest resent
                results[index] = outcome
                self._discard()
                inflight.clear()
                sent = index + 1
            return [r if r is not None else "no reply" for r in results]


# ---------------------------------------------------------------- conversions (plain dicts)

def _wait_briefly(proc: _Process) -> None:
    try:
        proc.popen.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass


def _position(data: Any) -> Position:
    try:
        return read_position(data)
    except ModelError as exc:
        raise _Failure(f"bad position: {exc}") from None


def _board(position: Position) -> list[list[int]]:
    """Position -> gnubg board ``[not_on_roll[25], on_roll[25]]`` (index p-1, bar at 24)."""
    return [list(side[1:26]) for side in (position.opponent, position.mover)]


def _board_to_position(board: list[list[int]], on_roll: str) -> dict:
    """gnubg board (not_on_roll, on_roll) -> board-form position dict with ``on_roll`` on roll."""
    sides = [tuple([15 - sum(arr)] + [int(n) for n in arr]) for arr in board]
    try:
        return Position.from_mover(on_roll, sides[1], sides[0]).to_wire()
    except ModelError as exc:
        raise _Failure(f"gnubg decoded an impossible position: {exc}") from None


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


# ---------------------------------------------------------------- the game kinds
#
# Every game request is answered by putting gnubg in the situation and letting it act: a game is
# scored by playing its last move, a cube action by issuing gnubg's cube command, an opening by
# gnubg rolling the given throws, a match transition by ending a game in gnubg's match. The
# adapter only translates the request into that situation and reads gnubg's state back; where
# gnubg cannot be put in the situation, or its answer would rest on a rule option gnubg has no
# setting for, the reply is unsupported.

#: bgconf's sides as gnubg's players: x is player 0 (``gnubg.match()``'s "X", the first die of
#: each opening throw), o is player 1 ("O").
PLAYER = {"x": 0, "o": 1}
SIDE = ("x", "o")
#: gnubg 1.07's highest cube (its MAX_CUBE); it has no setting for another cap.
GNUBG_MAX_CUBE = 4096
#: "GNU Backgammon is compiled with support only for matches of length 64 and below".
GNUBG_MAX_MATCH = 64
#: `set automatic doubles` takes at most 12.
GNUBG_MAX_AUTO_DOUBLES = 12
_RESULT = {"single game": "single", "gammon": "gammon", "backgammon": "backgammon"}

#: Rule option values gnubg has a setting for (see describe()). ``max_cube`` is the exception:
#: gnubg's cube simply stops at 4096, so every cap is declared and a request whose answer
#: depends on a cap other than 4096 is answered unsupported.
RULE_OPTIONS = {
    "cube": [True, False],                                      # set cube use on|off
    "max_cube": [2 ** k for k in range(16)] + [None],           # see above
    "jacoby": [False, True],                                    # set jacoby off|on
    "beavers": [False, True],                                   # set beavers 0 | 1
    "raccoons": [False, True],                                  # set beavers 1 | 2
    "automatic_doubles": list(range(GNUBG_MAX_AUTO_DOUBLES + 1)),  # set automatic doubles n
    "crawford": [True, False],                                  # set automatic crawford on|off
    "backgammon_multiplier": [3],                               # gnubg counts a backgammon 3 times
    "opening_reroll": [False],                                  # no such variant in gnubg
    "winner_starts": [False],                                   # every gnubg game opens with a throw
}


def _refused_or(got: dict, answer) -> dict:
    """gnubg's refusal as ``{"refused": None, "message": ...}`` (no reason code: gnubg's
    messages do not say which check failed), else ``answer(got)``."""
    if "refused" in got:
        return {"refused": None, "message": f"gnubg: {got['refused']}"}
    return answer(got)


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


def _rules(req: dict) -> dict:
    try:
        return effective_rules(req.get("rules"))
    except ModelError as exc:
        raise _Failure(f"bad rules: {exc}") from None


def _match_of(req: dict) -> Match:
    try:
        match = Match.from_dict(req.get("match"))
    except ModelError as exc:
        raise _Failure(f"bad match: {exc}") from None
    if match.length > GNUBG_MAX_MATCH:
        raise _Unsupported(f"gnubg plays matches of at most {GNUBG_MAX_MATCH} points, not {match.length}")
    return match


def _cube_of(req: dict) -> Cube:
    try:
        return Cube.from_dict(req.get("cube"))
    except ModelError as exc:
        raise _Failure(f"bad cube: {exc}") from None


def _side_arg(value: Any, name: str) -> str:
    if value not in SIDES:
        raise _Failure(f"{name} must be x or o, not {value!r}")
    return value


def _owner(cube: Cube) -> int:
    return -1 if cube.owner == "center" else PLAYER[cube.owner]


def _beavers(rules: dict) -> int:
    """gnubg's `set beavers n`: how many redoubles (a beaver, then raccoons) one cube action may have."""
    return 0 if not rules["beavers"] else 2 if rules["raccoons"] else 1


def _game_spec(match: Match, rules: dict, *, jacoby: bool = False, beavers: int = 0) -> dict:
    return {"length": match.length, "score": [match.score["x"], match.score["o"]],
            "crawford": match.crawford, "post_crawford": match.post_crawford,
            "cube_use": rules["cube"], "jacoby": jacoby, "beavers": beavers,
            "auto_crawford": rules["crawford"]}


def _cap_note(cap: Any) -> str:
    # worded as the runner words an unsupported option value, so that certificates
    # list it among the options not covered
    return (f"{OPTION_UNSUPPORTED} max_cube={cap!r} here: gnubg has no max_cube"
            f" setting (its cube stops at {GNUBG_MAX_CUBE})")


def _plan_game_result(req: dict):
    """Score a finished game: gnubg is put one play earlier (the winner's last checker back on a
    home point the loser does not hold, 6-6 to roll, so that bearing it off is the only play)
    and plays ``p/off``; gnubg's own message
    ("wins a gammon and 4 points") gives the result and the points. Under the Jacoby rule in
    money play gnubg calls a gammon on a centred cube "a single game", so the same game is played
    once more without Jacoby to read gnubg's verdict on the board."""
    position = _position(req.get("position"))
    cube = _cube_of(req)
    match = _match_of(req)
    rules = _rules(req)
    winners = [s for s in SIDES if position.side(s)[OFF] == 15]
    if len(winners) != 1:
        raise _Failure("bad request: the game is not over (one side must have borne off all 15 checkers)")
    winner = winners[0]
    loser = other(winner)
    lside = position.side(loser)
    free = [p for p in range(1, 7) if lside[25 - p] == 0]  # the winner's point p is the loser's 25 - p
    if not free:
        raise _Unsupported(
            f"gnubg scores only a game it sees end, and no play can end this one: {loser} holds all six"
            f" points of {winner}'s home board, so {winner}'s last checker had nowhere to bear off from")
    point = free[0]
    mine = [0] * 25
    mine[point - 1] = 1
    board = [list(lside[1:26]), mine]

    def message(jacoby: bool) -> dict:
        return {"op": "finish_game", "game": _game_spec(match, rules, jacoby=jacoby),
                "winner": PLAYER[winner], "cube": cube.value, "owner": _owner(cube), "board": board,
                "point": point}

    msgs = [message(rules["jacoby"])]
    if rules["jacoby"] and match.money:
        msgs.append(message(False))

    def finish(got: list[dict]) -> dict:
        scored, judged = got[0], got[-1]
        if SIDE[scored["winner"]] != winner or SIDE[judged["winner"]] != winner:
            raise _Failure(f"gnubg gave the game to the side that did not bear off: {scored['message']}")
        result = _RESULT[judged["result"]]
        if result == "backgammon" and rules["backgammon_multiplier"] != 3:
            raise _Unsupported(f"gnubg counts a backgammon 3 times the cube; it has no setting for"
                               f" backgammon_multiplier {rules['backgammon_multiplier']}")
        return {"winner": winner, "result": result, "points": int(scored["points"]),
                "message": scored["message"]}

    return finish, msgs


#: How gnubg is brought to each moment from the side on roll's turn before rolling.
_MOMENT_STEPS = {"before_roll": [], "after_roll": [], "double_offered": ["double"],
                 "beaver_offered": ["double", "redouble"],
                 "raccoon_offered": ["double", "redouble", "redouble"]}
_COMMAND = {"double": "double", "take": "take", "drop": "drop", "beaver": "redouble",
            "raccoon": "redouble"}


def _moment(state: dict) -> str:
    if state["doubled"]:
        return {0: "double_offered", 1: "beaver_offered"}.get(state["beavers"], "raccoon_offered")
    return "after_roll" if state["dice"][0] else "before_roll"


def _cube_dict(state: dict) -> dict:
    owner = state["owner"]
    return {"value": state["cube"], "owner": "center" if owner < 0 else SIDE[owner]}


def _plan_cube_action(req: dict):
    """Put gnubg at the moment (start position, cube, score, Crawford flag; dice set for
    after_roll; the side on roll's ``double`` for double_offered, then the opponent's
    ``redouble`` for beaver_offered and the doubler's for raccoon_offered), issue the action as
    gnubg's command (beaver and raccoon are both gnubg's ``redouble``) and read gnubg's state.
    The offered moments are reached only through gnubg accepting those steps under the request's
    own rules; at beaver_offered and raccoon_offered gnubg's sequence decides the owner (the
    beaverer), whatever the request says. A cube held at value V while an offer is pending is
    gnubg's V as well: the stake if the offer is dropped."""
    on_roll = _side_arg(req.get("on_roll"), "on_roll")
    moment = req.get("moment")
    if moment not in MOMENTS:
        raise _Failure(f"bad request: moment must be one of {', '.join(MOMENTS)}, not {moment!r}")
    action = req.get("action") or {}
    by = _side_arg(action.get("by"), "action.by")
    kind = action.get("type")
    if kind not in CUBE_ACTIONS:
        raise _Failure(f"bad request: action type must be one of {', '.join(CUBE_ACTIONS)}, not {kind!r}")
    cube = _cube_of(req)
    match = _match_of(req)
    rules = _rules(req)
    steps = _MOMENT_STEPS[moment]
    redoubles = steps.count("redouble")
    value, owner = cube.value, _owner(cube)
    if redoubles:
        if value < 2 ** redoubles:
            raise _Unsupported(f"gnubg reaches {moment} only by a double and {redoubles} redouble(s), which"
                               f" leave the cube at 2 or more, not {value}")
        value, owner = value >> redoubles, -1
    beavers = _beavers(rules)
    msg = {"op": "cube_action", "game": _game_spec(match, rules, beavers=beavers), "turn": PLAYER[on_roll],
           "cube": value, "owner": owner, "dice": [4, 2] if moment == "after_roll" else None,
           "steps": steps, "beavers": beavers, "actor": PLAYER[by], "command": _COMMAND[kind],
           "animal": kind if kind in ("beaver", "raccoon") else None}
    cap = rules["max_cube"]

    def finish(got: list[dict]) -> dict:
        g = got[0]
        before, after = g["before"], g["after"]
        said = "; ".join(g["messages"])
        if before["cube"] != cube.value or _moment(before) != moment:
            raise _Failure(f"gnubg was put at {_moment(before)} with the cube at {before['cube']},"
                           f" not at {moment} with {cube.value}")
        if not g["accepted"]:
            if "highest supported value" in said and cap != GNUBG_MAX_CUBE:
                raise _Unsupported(f"{_cap_note(cap)}; it refuses at its own limit ({said})")
            return {"allowed": False, "message": said}
        top = before["cube"] * {"double": 2, "beaver": 4, "raccoon": 4}.get(kind, 1)
        if cap is not None and top > cap and cap != GNUBG_MAX_CUBE:
            raise _Unsupported(f"{_cap_note(cap)}; it allows this {kind} (the cube would reach {top})")
        if "game" in g:
            return {"allowed": True, "game_over": {"winner": SIDE[g["game"]["winner"]],
                                                   "points": int(g["game"]["points"])}}
        return {"allowed": True, "moment": _moment(after), "cube": _cube_dict(after)}

    return finish, [msg]


def _plan_opening_roll(req: dict):
    """gnubg starts a game reading the throws from a dice file (`set rng file`): who starts,
    with which dice, and the cube after gnubg's automatic doubles."""
    throws = req.get("throws")
    if (not isinstance(throws, list) or not throws
            or any(not isinstance(t, (list, tuple)) or len(t) != 2
                   or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in t)
                   for t in throws)):
        raise _Failure("bad request: throws must be a non-empty list of [x's die, o's die], dice 1..6")
    throws = [[int(a), int(b)] for a, b in throws]
    if any(a != b for a, b in throws[:-1]) or throws[-1][0] == throws[-1][1]:
        raise _Failure("bad request: every throw but the last must be a tie, and the last not")
    match = _match_of(req)
    rules = _rules(req)
    if rules["opening_reroll"]:
        raise _Unsupported("gnubg has no opening-reroll variant: the starter always plays the opening throw")
    if rules["automatic_doubles"] > GNUBG_MAX_AUTO_DOUBLES:
        raise _Unsupported(f"gnubg allows at most {GNUBG_MAX_AUTO_DOUBLES} automatic doubles,"
                           f" not {rules['automatic_doubles']}")
    msg = {"op": "opening_roll", "length": match.length, "cube_use": rules["cube"],
           "auto_doubles": rules["automatic_doubles"], "throws": throws}
    cap = rules["max_cube"]

    def finish(got: list[dict]) -> dict:
        g = got[0]
        if g["rolled"] != throws:
            raise _Failure(f"gnubg rolled {g['rolled']}, not the throws {throws}")
        value = int(g["state"]["cube"])
        if cap is not None and value > cap:
            raise _Unsupported(f"{_cap_note(cap)}; its automatic doubles take the cube to {value}")
        return {"starts": SIDE[g["starter"]], "dice": [int(d) for d in g["dice"]], "cube": value,
                "may_reroll": False}

    return finish, [msg]


def _plan_match_transition(req: dict):
    """End a game in gnubg's match: the winner bears off its last checker at a cube value and
    with a loser's position (single, gammon or backgammon) that make the points; then gnubg's
    state gives the score, whether the match is over, whether it marks the next game as the
    Crawford game (Match ID) or post-Crawford (`show score`), and, starting the next game,
    whether it opens with a throw. A drop is played as a single game at cube = points: gnubg
    scores both by winner and points alone."""
    match = _match_of(req)
    rules = _rules(req)
    result = req.get("result") or {}
    winner = _side_arg(result.get("winner"), "result.winner")
    points = result.get("points")
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        raise _Failure(f"bad request: result.points must be an int >= 1, not {points!r}")
    kind = result.get("type", "single")
    if rules["winner_starts"]:
        raise _Unsupported("gnubg has no winner-starts variant: every game begins with an opening throw")
    length, score = match.length, match.score
    top, low = max(score.values()), min(score.values())
    if length and top == length - 1 and low < length - 1 and not (match.crawford or match.post_crawford):
        raise _Unsupported("gnubg cannot be put in this state: with a player one point from the match, its"
                           " game is either the Crawford game or post-Crawford (`set score` makes it"
                           " post-Crawford)")
    prefer = {"gammon": 2, "backgammon": 3}.get(kind, 1)
    options = []
    for n in [prefer] + [k for k in (1, 2, 3) if k != prefer]:
        value = points // n
        if points % n == 0 and value & (value - 1) == 0 and value <= GNUBG_MAX_CUBE:
            options.append((value, n))
    if match.crawford:
        options = [o for o in options if o[0] == 1]  # gnubg disables the cube in the Crawford game
    if not options:
        where = " in the Crawford game, where gnubg's cube stays at 1" if match.crawford else ""
        raise _Unsupported(f"gnubg cannot end a game worth {points} points{where}: a game is worth"
                           f" the cube (at most {GNUBG_MAX_CUBE}) times 1, 2 or 3")
    value, n = options[0]
    loser = [0] * 25
    loser[0] = 15 if n == 2 else 14  # single: one borne off; gammon: none; backgammon: one on the bar
    if n == 3:
        loser[24] = 1
    mine = [0] * 25
    mine[0] = 1
    msg = {"op": "finish_game", "game": _game_spec(match, rules), "winner": PLAYER[winner],
           "cube": value, "owner": PLAYER[winner] if value > 1 else -1, "board": [loser, mine],
           "point": 1, "next_game": True}

    def finish(got: list[dict]) -> dict:
        g = got[0]
        if SIDE[g["winner"]] != winner or int(g["points"]) != points:
            raise _Failure(f"gnubg scored the game as {g['message']!r}, not {points} to {winner}")
        state = g["state"]
        out: dict = {"score": {"x": state["score"][0], "o": state["score"][1]},
                     "match_over": bool(g["match_over"])}
        if out["match_over"]:
            if g["next_game"]:
                raise _Failure("gnubg says the match is won but starts another game")
            # gnubg refuses a next game ("The match is already over."), so none is the Crawford
            # game or post-Crawford (gnubg's own post-Crawford flag simply stays as it was)
            out.update(winner=SIDE[g["winner"]], crawford=False, post_crawford=False,
                       gnubg_next_game=" ".join(g["next_game_messages"]))
            return out
        if not (g["next_game"] and g["opening"]):
            raise _Failure(f"gnubg's next game did not begin with an opening throw: {g['next_game_messages']}")
        out["crawford"] = bool(state["crawford"])
        out["post_crawford"] = "post-Crawford" in g["score_text"]
        out["next_starts"] = "opening_roll"
        return out

    return finish, [msg]


def _record_view(answer: dict, next_opens: bool | None) -> dict:
    """gnubg's state after an event, in bgconf's terms (spec/protocol.md, game_record)."""
    st = answer.get("state")
    if st is None:  # an opening tie: gnubg throws the ties and the deciding throw at once
        return {"moment": "opening"}
    view: dict = {"cube": _cube_dict(st), "score": {"x": st["score"][0], "o": st["score"][1]}}
    mover = SIDE[st["move"]]
    if answer.get("board") is not None:
        view["position"] = _board_to_position(answer["board"], mover)
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
            position = _position(game["position"])
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
            view = _record_view(answer, following[i] if i < len(following) else None)
            if "game_over" in view and view["game_over"]["result"] != "drop" and judged is not answers:
                other_view = _record_view(judged[i], None) if i < len(judged) else {}
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


_GAME_PLANS = {
    "game_result": _plan_game_result,
    "cube_action": _plan_cube_action,
    "opening_roll": _plan_opening_roll,
    "match_transition": _plan_match_transition,
    "game_record": _plan_game_record,
}
