"""The JSON-lines engine protocol (``spec/protocol.md``), both ends.

- ``CommandEngine`` runs any program that speaks the protocol
  (``--engine "cmd:./my-engine --bgconf"``): one long-lived process, one JSON
  object per line each way, a per-request timeout, and a restart after a crash,
  a hang or a protocol fault, which make only the request in flight
  ``errored`` (or ``timeout``).
- ``serve(engine)`` exposes any Python engine over the protocol on stdin/stdout
  (``bgconf serve ENGINE``).

Messages (protocol version 1)::

    -> {"cmd": "start", "protocol": 1, "suite": "2026.11.0"}
    <- {"protocol": 1, "engine": {"name": ..., "version": ...}, "capabilities": [...],
        "rule_options": {...}, "position_formats": [...]}
    -> {"cmd": "run", "seq": 7, "case": "bg-7Q3K", "kind": "legal_plays", "rules": {...}, ...}
    <- {"seq": 7, "result": {...}} | {"seq": 7, "unsupported": "why"} | {"seq": 7, "errored": "why"}
    -> {"cmd": "stop"}
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from collections import deque
from typing import IO

from . import __version__
from .engine import Engine

PROTOCOL = 1
_MAX_RESTARTS_IN_A_ROW = 3


class ProtocolError(RuntimeError):
    """The engine process broke the protocol or could not be started."""


class _Process:
    """A running engine process with a reader thread feeding a queue of stdout lines."""

    def __init__(self, argv: list[str]):
        self.popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, bufsize=0)
        self.lines: queue.Queue = queue.Queue()
        self.stderr_tail: deque[str] = deque(maxlen=20)
        threading.Thread(target=self._read, args=(self.popen.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    @staticmethod
    def _read(stream: IO[bytes], out: queue.Queue) -> None:
        for raw in iter(stream.readline, b""):
            out.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        out.put(None)  # end of file

    def _drain(self) -> None:
        for raw in iter(self.popen.stderr.readline, b""):
            self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip())

    def send(self, message: dict) -> None:
        self.popen.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
        self.popen.stdin.flush()

    def receive(self, timeout: float) -> str | None:
        """Next stdout line; None at end of file; raises queue.Empty on timeout."""
        return self.lines.get(timeout=timeout)

    def why_dead(self) -> str:
        try:
            code = self.popen.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "closed its output"
        tail = " | ".join(list(self.stderr_tail)[-3:])
        return f"exited with code {code}" + (f"; stderr: {tail}" if tail else "")

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                stream.close()
            except OSError:
                pass


class CommandEngine(Engine):
    """An engine in any language behind the JSON-lines protocol.

    ``command``: the shell-like command line (split with shlex). ``timeout``:
    seconds allowed per request (and for the start handshake).
    Raises ProtocolError from ``describe()`` when the engine cannot be started.
    """

    def __init__(self, command: str, timeout: float = 10.0):
        self.argv = shlex.split(command)
        if not self.argv:
            raise ProtocolError("cmd: needs a command, e.g. cmd:./my-engine --bgconf")
        self.timeout = timeout
        self._proc: _Process | None = None
        self._info: dict | None = None
        self._seq = 0
        self.faults: list[str] = []
        self.incomplete = False

    # -- process --------------------------------------------------------------
    def _start(self) -> _Process:
        try:
            proc = _Process(self.argv)
        except OSError as exc:
            raise ProtocolError(f"cannot start {self.argv[0]!r}: {exc}") from None
        try:
            proc.send({"cmd": "start", "protocol": PROTOCOL, "suite": __version__})
            line = proc.receive(self.timeout)
        except queue.Empty:
            proc.kill()
            raise ProtocolError(f"no answer to start within {self.timeout:g} s") from None
        except OSError:
            line = None
        if line is None:
            why = proc.why_dead()
            proc.kill()
            raise ProtocolError(f"engine {why} before answering start")
        try:
            hello = json.loads(line)
        except ValueError:
            proc.kill()
            raise ProtocolError(f"the answer to start is not JSON: {line[:120]!r}") from None
        if not isinstance(hello, dict) or hello.get("protocol") != PROTOCOL:
            proc.kill()
            raise ProtocolError(f"engine speaks protocol {hello.get('protocol') if isinstance(hello, dict) else '?'}"
                                f", bgconf speaks {PROTOCOL}")
        self._info = {**(hello.get("engine") or {}), "capabilities": hello.get("capabilities", []),
                      "rule_options": hello.get("rule_options", {}),
                      "position_formats": hello.get("position_formats", ["board"])}
        self._info.setdefault("name", self.argv[0])
        return proc

    def _process(self) -> _Process:
        if self._proc is None or self._proc.popen.poll() is not None:
            if self._proc is not None:
                self._proc.kill()
            self._proc = self._start()
        return self._proc

    def describe(self) -> dict:
        """The engine's answer to ``start``: name, version, capabilities, rule options."""
        if self._info is None:
            self._process()
        return dict(self._info)

    def close(self) -> None:
        if self._proc is not None:
            try:
                self._proc.send({"cmd": "stop"})
                self._proc.popen.wait(timeout=2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
            self._proc.kill()
            self._proc = None

    # -- requests ----------------------------------------------------------------
    def run(self, request: dict) -> dict:
        return self.run_batch([request])[0]

    def run_batch(self, requests: list[dict]) -> list[dict]:
        """Answer requests in order, one at a time through the process. A crash, a
        hang past the timeout, a line that is not JSON or a reply to the wrong
        ``seq`` answers that request ``errored`` (``timeout`` for a hang) and
        restarts the process; the other requests go on."""
        replies: list[dict] = []
        failures_in_a_row = 0
        for i, request in enumerate(requests):
            if failures_in_a_row >= _MAX_RESTARTS_IN_A_ROW:
                self.incomplete = True
                replies.extend({"errored": "not run: the engine failed to start "
                                           f"{_MAX_RESTARTS_IN_A_ROW} times in a row"}
                               for _ in requests[i:])
                break
            try:
                proc = self._process()
            except ProtocolError as exc:
                failures_in_a_row += 1
                self.incomplete = self.incomplete or failures_in_a_row >= _MAX_RESTARTS_IN_A_ROW
                replies.append({"errored": f"engine could not be (re)started: {exc}"})
                continue
            failures_in_a_row = 0
            reply = self._exchange(proc, request)
            if "errored" in reply or "timeout" in reply:
                self.faults.append(f"{request.get('case')}: {reply.get('errored') or reply.get('timeout')}")
            replies.append(reply)
        return replies

    def _exchange(self, proc: _Process, request: dict) -> dict:
        self._seq += 1
        seq = self._seq
        try:
            proc.send({"cmd": "run", "seq": seq, **request})
        except (OSError, ValueError):
            return self._fault(proc, f"engine crashed: {proc.why_dead()}")
        deadline = time.monotonic() + self.timeout
        try:
            line = proc.receive(max(deadline - time.monotonic(), 0.001))
        except queue.Empty:
            self._restart(proc)
            return {"timeout": f"no answer within {self.timeout:g} s; the engine was restarted"}
        if line is None:
            return self._fault(proc, f"engine crashed: {proc.why_dead()}")
        try:
            reply = json.loads(line)
        except ValueError:
            return self._fault(proc, f"engine wrote a line that is not JSON: {line[:160]!r}")
        if not isinstance(reply, dict):
            return self._fault(proc, f"engine wrote {line[:160]!r}, not a JSON object")
        if reply.get("seq") != seq:
            return self._fault(proc, f"engine answered seq {reply.get('seq')!r} to request seq {seq}")
        kinds = [k for k in ("result", "unsupported", "errored") if k in reply]
        if len(kinds) != 1:
            return self._fault(proc, f"a reply has exactly one of result, unsupported, errored: {line[:160]!r}")
        return {kinds[0]: reply[kinds[0]]}

    def _restart(self, proc: _Process) -> None:
        proc.kill()
        if self._proc is proc:
            self._proc = None

    def _fault(self, proc: _Process, message: str) -> dict:
        self._restart(proc)
        return {"errored": message + " (the engine was restarted)"}


def serve(engine: Engine, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> int:
    """Answer protocol messages from ``stdin`` on ``stdout`` until ``stop`` or end of
    input. Returns the exit code (0). A malformed message gets an ``errored`` reply."""
    def send(obj: dict) -> None:
        stdout.write(json.dumps(obj) + "\n")
        stdout.flush()

    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            send({"seq": None, "errored": f"not JSON: {line[:120]}"})
            continue
        cmd = message.get("cmd") if isinstance(message, dict) else None
        if cmd == "start":
            info = engine.describe()
            if not isinstance(info, dict):
                print(f"bgconf serve: the engine's describe() returned {info!r}, not a dict", file=sys.stderr)
                return 1
            send({"protocol": PROTOCOL,
                  "engine": {k: v for k, v in info.items()
                             if k not in ("capabilities", "rule_options", "position_formats")},
                  "capabilities": info.get("capabilities", []),
                  "rule_options": info.get("rule_options", {}),
                  "position_formats": info.get("position_formats", ["board"])})
        elif cmd == "run":
            request = {k: v for k, v in message.items() if k not in ("cmd", "seq")}
            send({"seq": message.get("seq"), **engine.run(request)})
        elif cmd == "stop":
            break
        else:
            send({"seq": message.get("seq") if isinstance(message, dict) else None,
                  "errored": f"unknown cmd {cmd!r}"})
    engine.close()
    return 0


def serve_command(name: str) -> str:
    """The ``cmd:`` engine string that serves Python engine ``name`` through this
    Python interpreter (used by tests and docs)."""
    return f"cmd:{shlex.quote(sys.executable)} -m conformance.cli serve {shlex.quote(name)}"


def _env_timeout() -> float:
    try:
        return float(os.environ.get("BGCONF_TIMEOUT", "10"))
    except ValueError:
        return 10.0
