"""Adapter for GNU Backgammon's ``external`` interface: a bot that only chooses a play.

gnubg is GPL software: bgconf never imports or copies it. This module starts the installed
program (``gnubg -t -q -r``, through conformance.engines.process), types ``external PATH`` on its
command line so that it listens on a Unix-domain socket in a private directory, connects,
and then sends one FIBS ``board:`` line per request (spec: format.fibs-board), written for
the side on roll with its dice, money play, the cube centred at 1. gnubg answers the play it
would make in its plain notation, in the player's own numbering (``24/18 13/11``; an empty
answer when no play is legal).

What it can be asked: ``chosen_play`` only (capability ``chosen-play``). The interface
answers nothing else about the rules: given no dice it says ``double`` or ``roll``, and given
a pending double ``take``, ``drop`` or ``beaver``, which are choices of strategy, not whether
a cube action is allowed, so cube cases are not asked; it never lists the legal plays or
judges a play. gnubg's chequer play is set to 0-ply for speed (the choice is still gnubg's).

Faults: a request that gets no line within the timeout, a closed connection or a dead
program make that request ``errored``; the program's whole session is killed and a fresh one
started for the next request.
"""

from __future__ import annotations

import os
import select
import socket
import tempfile
import time

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.gnubg.program import find_program
from conformance.engines.interface import Engine, Unsupported
from conformance.model import FibsBoard, ModelError, Position, encode_fibs_board
from conformance.engines.process import EngineProcess

#: gnubg's start-up commands: quick chequer and cube evaluation, then the listening socket.
_SETUP = ("set evaluation chequerplay evaluation plies 0",
          "set evaluation cubedecision evaluation plies 0")
_MAX_REPLY = 4096


class _Fault(Exception):
    """The program failed on a request (message says how); the request is errored."""


class GnubgExternalEngine(Engine):
    """GNU Backgammon behind its ``external`` socket interface (capability chosen-play).

    ``program``: path or name of gnubg (default: on PATH, then /usr/games/gnubg); ``timeout``:
    seconds per request (start-up included for the first). Raises EngineUnavailable when
    gnubg is not installed.
    """

    name = "gnubg-external"

    def __init__(self, program: str | None = None, timeout: float = 20.0) -> None:
        self.program = find_program(program)
        self.timeout = float(timeout)
        self._proc: EngineProcess | None = None
        self._sock: socket.socket | None = None
        self._dir: tempfile.TemporaryDirectory | None = None
        self._version: str | None = None
        self._buffer = b""

    # -- the program ----------------------------------------------------------------------
    def _start(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="bgconf-gnubg-external-")
        path = os.path.join(self._dir.name, "socket")
        try:
            self._proc = EngineProcess([self.program, "-t", "-q", "-r"])
        except OSError as exc:
            raise EngineUnavailable(f"cannot start {self.program}: {exc}") from None
        for command in (*_SETUP, f"external {path}"):
            self._proc.write_line(command, timeout=self.timeout)
        deadline = time.monotonic() + self.timeout
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        while True:
            try:
                sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self._proc.pending()  # drain what gnubg prints meanwhile
                if not self._proc.alive():
                    sock.close()
                    raise _Fault(f"gnubg {self._proc.why_dead('before listening on its external socket')}")
                if time.monotonic() > deadline:
                    sock.close()
                    raise _Fault(f"gnubg did not listen on {path} within {self.timeout:g} s")
                time.sleep(0.02)
        self._sock = sock
        self._buffer = b""

    def _ask(self, line: str) -> str:
        """Send one request line, return gnubg's one answer line (stripped)."""
        if self._sock is None:
            self._start()
        try:
            self._sock.sendall(line.encode("ascii") + b"\n")
        except OSError as exc:
            raise _Fault(f"cannot write to gnubg's external socket: {exc}") from None
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Fault(f"timeout: gnubg did not answer within {self.timeout:g} s")
            ready, _w, _x = select.select([self._sock], [], [], min(left, 0.25))
            self._proc.pending()
            if not ready:
                if not self._proc.alive():
                    raise _Fault(f"engine crashed: gnubg {self._proc.why_dead('during the request')}")
                continue
            data = self._sock.recv(_MAX_REPLY)
            if not data:
                raise _Fault("gnubg closed its external connection"
                             + ("" if self._proc.alive() else f": {self._proc.why_dead()}"))
            self._buffer += data
            if len(self._buffer) > _MAX_REPLY and b"\n" not in self._buffer:
                raise _Fault("gnubg wrote an answer line longer than 4 KiB")
        answer, _, self._buffer = self._buffer.partition(b"\n")
        return answer.decode("utf-8", "replace").strip()

    def _discard(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
        if self._proc is not None:
            self._proc.kill()  # gnubg blocked in accept() ignores SIGTERM: the group gets SIGKILL
        if self._dir is not None:
            self._dir.cleanup()
        self._sock = self._proc = self._dir = None

    def close(self) -> None:
        self._discard()

    def run(self, request: dict) -> dict:
        """Answer one request (never raises); a fault kills the program, and a new one
        answers the next request."""
        if request.get("kind") != "chosen_play":
            return {"unsupported": f"gnubg's external interface only chooses plays, it cannot answer"
                                   f" {request.get('kind')!r}"}
        try:
            return {"result": self.chosen_play(request)}
        except Unsupported as exc:
            return {"unsupported": str(exc)}
        except (_Fault, EngineUnavailable, OSError) as exc:
            self._discard()
            text = str(exc)
            return {"timeout": text} if text.startswith("timeout") else {"errored": text}
        except Exception as exc:  # a malformed request: that case only
            return {"errored": f"{type(exc).__name__}: {exc}"}

    # -- the interface ----------------------------------------------------------------------
    def describe(self) -> dict:
        if self._version is None:
            try:
                answer = self._ask("version")
                # "Interface: 2", "RFBF: 0", "Engine: ...", "Software: 1.07.001": four lines
                lines = [answer] + [self._ask_more() for _ in range(3)]
                self._version = next((x.split(":", 1)[1].strip() for x in lines if x.startswith("Software:")),
                                     "unknown")
            except _Fault as exc:
                self._discard()
                raise EngineUnavailable(f"gnubg's external interface did not start: {exc}") from None
        return {"name": "gnubg-external", "version": self._version, "capabilities": ["chosen-play"],
                "rule_options": {}, "position_formats": ["board"]}

    def _ask_more(self) -> str:
        """The next line of a multi-line answer."""
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buffer:
            if time.monotonic() > deadline:
                raise _Fault("timeout: gnubg's version answer was cut short")
            ready, _w, _x = select.select([self._sock], [], [], 0.25)
            if ready:
                data = self._sock.recv(_MAX_REPLY)
                if not data:
                    raise _Fault("gnubg closed its external connection")
                self._buffer += data
        answer, _, self._buffer = self._buffer.partition(b"\n")
        return answer.decode("utf-8", "replace").strip()

    def chosen_play(self, request: dict) -> dict:
        """``{"play": notation}`` in the mover's numbering, or ``{"play": null}`` when gnubg
        plays nothing. Raises _Fault (errored) when gnubg answers something else."""
        position = Position.from_dict(request["position"])
        dice = tuple(request["dice"])
        try:
            line = encode_fibs_board(FibsBoard(position, position.on_roll, dice=dice,
                                               names=("bgconf", request.get("case", "opponent"))))
        except ModelError as exc:
            raise Unsupported(f"cannot write this position as a FIBS board: {exc}") from None
        answer = self._ask(line)
        if answer.lower().startswith("error"):
            raise _Fault(f"gnubg refused the board: {answer}")
        return {"play": gnubg_play_notation(answer) or None}


def gnubg_play_notation(answer: str) -> str:
    """gnubg's plain move text (``25/22 13/8``, ``6/0``, ``bar/22``, ``6/off``) as bgconf
    notation (``bar`` for 25, ``off`` for 0; spec: format.notation); "" for no play."""
    words = []
    for move in answer.split():
        parts = move.split("/")
        fixed = ["bar" if p == "25" else "off" if p == "0" else p for p in parts]
        words.append("/".join(fixed))
    return " ".join(words)
