"""Adapter for GNU Backgammon (the ``gnubg`` program, run headless as a separate process).

gnubg is GPL software: bgconf never imports or copies it. This module starts the installed
program once (``gnubg -t -q -r -p gnubg_driver.py``) and talks to the driver script beside this
file over pipes, one JSON object per line (see ``gnubg_driver.py`` for that protocol; replies are
the lines that start with ``@@BGCONF ``). One process serves any number of requests; it is
started lazily, restarted if it dies, and a request that crashes or hangs it is answered
``{"errored": ...}`` while the rest of the batch goes on.

Requests and replies are the plain dicts of DESIGN.md section 6. Positions are in the board
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

Anything else is ``{"unsupported": "why"}``; a failure is ``{"errored": "message"}``.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from conformance.adapters import EngineUnavailable
from conformance.model import ModelError, Position, apply_steps, other, parse_dice, play_to_position

__all__ = ["GnubgEngine", "EngineUnavailable", "DRIVER"]

#: The script gnubg runs; it lives next to this module.
DRIVER = Path(__file__).with_name("gnubg_driver.py")

MARKER = b"@@BGCONF "
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


class _Process:
    """One running gnubg with its reader threads."""

    def __init__(self, program: str) -> None:
        self.popen = subprocess.Popen(
            [program, "-t", "-q", "-r", "-p", str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            start_new_session=True,  # a Ctrl-C meant for us does not reach it half-way
        )
        self.replies: queue.Queue = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        stream = self.popen.stdout
        try:
            for raw in iter(stream.readline, b""):
                at = raw.find(MARKER)
                if at < 0:
                    continue  # gnubg's banner or other chatter
                try:
                    self.replies.put(("reply", json.loads(raw[at + len(MARKER):])))
                except ValueError:
                    self.replies.put(("garbled", raw[:200].decode("utf-8", "replace")))
        except (OSError, ValueError):
            pass
        self.replies.put(("eof", None))

    def _read_stderr(self) -> None:
        try:
            for raw in iter(self.popen.stderr.readline, b""):
                self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip())
        except (OSError, ValueError):
            pass

    def send(self, message: dict) -> None:
        line = json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"
        self.popen.stdin.write(line)
        self.popen.stdin.flush()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def why_dead(self) -> str:
        rc = self.popen.poll()
        if rc is None:
            state = "still running"
        elif rc < 0:
            try:
                state = f"killed by {signal.Signals(-rc).name}"
            except ValueError:
                state = f"killed by signal {-rc}"
        else:
            state = f"exited with status {rc}"
        tail = " | ".join(line for line in self.stderr_tail if line.strip())[-400:]
        return state + (f"; stderr: {tail}" if tail else "")

    def stop(self, grace: float = 2.0) -> None:
        """Ask the driver to stop, then kill the process by its pid if it lingers."""
        p = self.popen
        if p.poll() is None:
            try:
                self.send({"cmd": "stop", "id": None})
                p.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                p.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.kill()
        for stream in (p.stdin, p.stdout, p.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass

    def kill(self) -> None:
        p = self.popen
        if p.poll() is None:
            try:
                os.kill(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


class GnubgEngine:
    """Drive the installed GNU Backgammon program as a bgconf engine.

    One long-lived gnubg process (started on first use) answers every request. Instances are
    safe to share between threads (requests are serialised). Use ``close()`` or a ``with``
    block to end the process.
    """

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
                    what, obj = proc.replies.get(timeout=left)
                except queue.Empty:
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
        proc.stop(grace=0)
        raise _Failure(f"gnubg does not start ({self.program}): {why}")

    def _discard(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.stop(grace=0)

    # ------------------------------------------------------------ public API

    def describe(self) -> dict:
        """Identity and abilities: ``{"name", "version", "capabilities", "rule_options",
        "position_formats"}``. ``version`` is gnubg's own version line (e.g.
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
            "capabilities": ["legal-plays", "play-check", "apply-play", "codec.gnubg"],
            "rule_options": {},
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
                replies.append({"result": finish(got)})
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
            if fmt != "gnubg_id":
                raise _Unsupported(f"gnubg adapter only codes gnubg_id, not {fmt!r}")
            position = _position(req.get("position"))
            msgs = [{"op": "encode", "board": _board(position)},
                    {"op": "decode", "gnubg_id": str(req.get("gnubg_id"))}]

            def finish(got: list[dict]) -> dict:
                return {"encoded": got[0]["gnubg_id"],
                        "decoded": _board_to_position(got[1]["board"], position.on_roll)}

            return finish, msgs
        raise _Unsupported(
            f"gnubg adapter answers legal_plays, play_check, apply_play and codec (gnubg_id),"
            f" not {kind!r}")

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
                        what, obj = proc.replies.get(timeout=left)
                    except queue.Empty:
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
        return Position.from_dict(data)
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
