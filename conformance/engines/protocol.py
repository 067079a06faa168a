"""The JSON-lines engine protocol (``spec/protocol.md``), both ends.

- ``CommandEngine`` runs any program that speaks the protocol
  (``--engine "cmd:./my-engine --bgconf"``): one long-lived process, one JSON
  object per line each way, a per-request timeout, and a restart after a crash,
  a hang or a protocol fault, which make only the request in flight
  ``errored`` (or ``timeout``).
- ``serve(engine)`` exposes any Python engine over the protocol on stdin/stdout
  (``bgconf serve ENGINE``).

Messages (protocol version 1)::

    -> {"cmd": "start", "protocol": 1, "suite": "2026.12.2"}
    <- {"protocol": 1, "engine": {"name": ..., "version": ...}, "capabilities": [...],
        "rule_options": {...}, "position_formats": [...]}
    -> {"cmd": "run", "seq": 7, "case": "bg-7Q3K", "kind": "legal_plays", "rules": {...}, ...}
    <- {"seq": 7, "result": {...}} | {"seq": 7, "unsupported": "why"} | {"seq": 7, "errored": "why"}
    -> {"cmd": "run_batch", "requests": [{"seq": 8, ...}, {"seq": 9, ...}]}   (engines whose hello
    <- {"seq": 8, ...}                                                        says "batch": true)
    <- {"seq": 9, ...}
    -> {"cmd": "stop"}
"""

from __future__ import annotations

import json
import math
import os
import shlex
import subprocess
import sys
import time
from typing import IO

from conformance import __version__
from conformance.engines.interface import Engine, asks_in_batches, failure_reply
from conformance.engines.process import EngineProcess as _Process, LineTooLong, stop_signals_held

PROTOCOL = 1
#: The longest timeout bgconf accepts (seconds): one day.
MAX_TIMEOUT = 86400.0


class ProtocolError(RuntimeError):
    """The engine process broke the protocol or could not be started."""


def _hello_problem(hello: dict) -> str | None:
    """What is wrong with the shape of a hello (spec/protocol.md, start), or None."""
    def strings(value) -> bool:
        return isinstance(value, list) and all(isinstance(x, str) for x in value)

    if "capabilities" in hello and not strings(hello["capabilities"]):
        return f"capabilities is {str(hello['capabilities'])[:80]}, not a list of names"
    options = hello.get("rule_options", {})
    if not isinstance(options, dict) or not all(isinstance(v, list) for v in options.values()):
        return f"rule_options is {str(options)[:80]}, not an object of option: [values]"
    if "position_formats" in hello and not strings(hello["position_formats"]):
        return f"position_formats is {str(hello['position_formats'])[:80]}, not a list of names"
    if "batch" in hello and not isinstance(hello["batch"], bool):
        return f"batch is {str(hello['batch'])[:80]}, not true or false"
    if "engine" in hello and not isinstance(hello["engine"], dict):
        return f"engine is {str(hello['engine'])[:80]}, not an object"
    return None


#: Seconds bgconf still waits, once interrupted (SIGINT, SIGTERM), for the answer to the
#: request in flight before it stops the engine: an answer already written, or written
#: within this grace, is recorded (spec/protocol.md, Interruption).
INTERRUPT_GRACE = 1.0

#: Seconds an engine has to answer ``start`` unless told otherwise: a short per-request
#: timeout (``--timeout 0.5``) is about answering cases, not about how fast a program loads.
DEFAULT_START_TIMEOUT = 10.0


class CommandEngine(Engine):
    """An engine in any language behind the JSON-lines protocol (spec/protocol.md).

    ``command``: the shell-like command line (split with shlex). ``timeout``: seconds
    allowed per request (finite, > 0); ``start_timeout``: seconds allowed for the start
    handshake if larger than ``timeout`` (default DEFAULT_START_TIMEOUT: an interpreter
    starting on a busy machine, an engine that compiles or loads a model). ``max_failures``:
    consecutive failures (crash, hang, protocol fault, exit between requests, failed
    start) after which the engine is given up (spec: protocol "Faults"). Each failure
    kills the engine's process group before the next process starts.

    Raises ProtocolError from ``describe()`` when the engine cannot be started.
    After the run: ``restarts`` (processes started after the first), ``given_up``
    (None or the reason), ``warnings`` (protocol slips that errored no case),
    ``incomplete`` (the engine was given up), ``incidents`` (every crash and hang, in
    order: see ``incident``; spec: protocol "Crashes, hangs and restarts").
    """

    def __init__(self, command: str, timeout: float = 10.0, max_failures: int = 3,
                 start_timeout: float | None = None):
        self.argv = shlex.split(command)
        if not self.argv:
            raise ProtocolError("cmd: needs a command, e.g. cmd:./my-engine --bgconf")
        self.timeout = timeout
        self.start_timeout = max(timeout, start_timeout or DEFAULT_START_TIMEOUT)
        self.max_failures = max_failures
        self._proc: _Process | None = None
        self._info: dict | None = None
        self._seq = 0
        self._answered: set[int] = set()
        self._failures = 0
        self._started = 0
        self.given_up: str | None = None
        self.warnings: list[str] = []
        self.incidents: list[dict] = []
        self._asking: dict | None = None  # the request being answered (for incidents)
        self._in_flight: tuple[_Process, int] | None = None  # (process, seq) awaiting a reply

    @property
    def incomplete(self) -> bool:
        return self.given_up is not None

    @property
    def restarts(self) -> int:
        return max(self._started - 1, 0)

    def incident(self, kind: str, message: str) -> None:
        """Record a crash (``kind`` "crash": the process ended, or closed its output, without
        being asked to stop) or a hang ("hang": no answer within the timeout) while
        ``self._asking`` was the request due. Each incident is a dict: ``kind``, ``case``
        (the case id asked, or None), ``request`` (the request dict, None when no request
        was due), ``message`` (what happened, one line) and ``send`` (a shell command line
        that starts the engine and sends it the start handshake and that exact request)."""
        request = self._asking
        send = None
        if request is not None:
            start = json.dumps({"cmd": "start", "protocol": PROTOCOL, "suite": __version__}, separators=(",", ":"))
            run = json.dumps({"cmd": "run", "seq": 1, **request}, separators=(",", ":"))
            send = f"printf '%s\\n' {shlex.quote(start)} {shlex.quote(run)} | {shlex.join(self.argv)}"
        self.incidents.append({"kind": kind, "case": request.get("case") if request else None,
                               "request": request, "message": message.removesuffix(" (the engine was restarted)"),
                               "send": send})

    # -- process --------------------------------------------------------------
    def _start(self) -> None:
        """Start a new process as ``_proc`` and take it through the start handshake. It is
        ``_proc`` from the moment it exists (made with SIGINT and SIGTERM held back, so that
        ``close`` knows it before one can interrupt); a failed or interrupted handshake kills
        it and leaves ``_proc`` None."""
        with stop_signals_held():
            try:
                self._proc = _Process(self.argv)
            except OSError as exc:
                raise ProtocolError(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        self._started += 1
        try:
            self._handshake(self._proc)
        except BaseException:  # an interruption during the handshake must not leave it running
            self._drop()
            raise

    def _handshake(self, proc: _Process) -> _Process:
        try:
            proc.send({"cmd": "start", "protocol": PROTOCOL, "suite": __version__}, self.start_timeout)
            line = proc.receive(self.start_timeout)
        except TimeoutError:
            proc.kill()
            raise ProtocolError(f"no answer to start within {self.start_timeout:g} s") from None
        except (OSError, LineTooLong):
            line = None
        if line is None:
            why = proc.why_dead("before answering start")
            proc.kill()
            raise ProtocolError(f"engine {why}")
        try:
            hello = json.loads(line)
        except (ValueError, RecursionError):
            proc.kill()
            raise ProtocolError(f"the answer to start is not JSON: {line[:120]!r}") from None
        if not isinstance(hello, dict) or hello.get("protocol") is True or hello.get("protocol") != PROTOCOL:
            proc.kill()
            raise ProtocolError(f"engine speaks protocol {hello.get('protocol') if isinstance(hello, dict) else '?'}"
                                f", bgconf speaks {PROTOCOL}")
        problem = _hello_problem(hello)
        if problem:
            proc.kill()
            raise ProtocolError(f"the answer to start is malformed: {problem}")
        info = {**(hello.get("engine") if isinstance(hello.get("engine"), dict) else {}),
                "capabilities": hello.get("capabilities", []),
                "rule_options": hello.get("rule_options", {}),
                "position_formats": hello.get("position_formats", ["board"])}
        info.setdefault("name", self.argv[0])
        info.pop("batch", None)
        if hello.get("batch") is True:  # the engine takes run_batch messages (spec/protocol.md, Batches)
            info["batch"] = True
        if self._info is None:
            self._info = info
        return proc

    def describe(self) -> dict:
        """The engine's answer to ``start``: name, version, capabilities, rule options."""
        if self._info is None:
            self._start()
        return dict(self._info)

    def _drop(self, proc: _Process | None = None) -> None:
        proc = proc or self._proc
        if proc is not None:
            proc.kill()
        if self._proc is proc:
            self._proc = None

    def _failure(self, reason: str) -> None:
        self._failures += 1
        if self._failures >= self.max_failures and self.given_up is None:
            self.given_up = (f"the engine was given up after {self._failures} consecutive failures"
                             f" (--max-restarts {self.max_failures}); the last: {reason}")

    def _ready(self) -> _Process | None:
        """A live process for the next request, or None once the engine is given up."""
        while self.given_up is None:
            proc = self._proc
            if proc is not None:
                stray = proc.pending() if proc.alive() else None
                while stray is not None:
                    if not self._stale(stray):
                        self._drop(proc)
                        self._failure(f"engine wrote a line nobody asked for: {stray[:120]!r}")
                        self.warnings.append(f"the engine wrote a line nobody asked for: {stray[:120]!r};"
                                             " it was restarted")
                        break
                    stray = proc.pending()
                if self._proc is not None and proc.alive():
                    return proc
                if self._proc is not None:  # found dead between requests
                    why = proc.why_dead("between requests")
                    self._drop(proc)
                    self.incident("crash", f"engine {why}")
                    self._failure(f"engine {why}")
                    self.warnings.append(f"the engine {why}; it was restarted")
                    continue
            try:
                self._start()
            except ProtocolError as exc:
                if self._info is not None:  # a restart, not the first start (that one exits 4)
                    hung = str(exc).startswith("no answer to start")
                    self.incident("hang" if hung else "crash", f"engine could not be restarted: {exc}")
                self._failure(f"engine could not be restarted: {exc}")
        return None

    def close(self) -> None:
        """Ask the engine to stop, then kill its whole process group (killed also when an
        interruption, KeyboardInterrupt, comes while it is asked to stop)."""
        if self._proc is not None:
            try:
                try:  # what it wrote after its last answer (a repeated reply is a warning)
                    while (line := self._proc.receive(0.05)) is not None:
                        if not self._stale(line):
                            self.warnings.append(f"the engine wrote a line nobody asked for: {line[:120]!r}")
                except (TimeoutError, LineTooLong, OSError):
                    pass
                try:
                    self._proc.send({"cmd": "stop"}, 1.0)
                    self._proc.popen.wait(timeout=2)
                except (OSError, ValueError, TimeoutError, subprocess.TimeoutExpired):
                    pass
            finally:
                self._drop()

    # -- requests ----------------------------------------------------------------
    def run(self, request: dict) -> dict:
        """Answer one request through the process; never raises for engine faults.

        A crash, a hang past the timeout (``timeout``), a line that is not a JSON object,
        a reply to another ``seq`` or of the wrong shape answers ``errored`` and kills
        the process; the next request gets a new one. Once the engine is given up every
        request answers ``errored`` with that reason, unasked."""
        self._asking = request
        try:
            return self._run(request)
        finally:
            self._asking = None

    def _run(self, request: dict) -> dict:
        proc = self._ready()
        if proc is None:
            return {"errored": f"not run: {self.given_up}"}
        reply = self._exchange(proc, request)
        counted = False
        if reply.get("crashed") and proc.answered:
            # a process that had answered may have been dying before this request came: the
            # death counts as one failure, and the crash is laid on the request only if a
            # fresh process crashes on it too
            first = reply["errored"].removesuffix(" (the engine was restarted)")
            self.incident("crash", first)
            self._drop(proc)
            self._failure(first)
            counted = True
            proc = self._ready()
            if proc is None:
                return {"errored": f"not run: {self.given_up}"}
            reply = self._exchange(proc, request)
            if not reply.get("fault") and "timeout" not in reply:
                self.warnings.append(f"{request.get('case')}: {first} after answering earlier requests; a new"
                                     " process answered the request")
        crashed = reply.pop("crashed", None)
        if "errored" in reply and reply.get("fault") or "timeout" in reply:
            reason = reply.get("errored") or reply.get("timeout")
            if crashed or "timeout" in reply:
                self.incident("crash" if crashed else "hang", reason)
            self._drop(proc)
            if not counted:
                self._failure(reason)
            reply.pop("fault", None)
        else:
            if proc.answered:
                self._failures = 0  # a process answered a second request: it is sound again
            proc.answered += 1
        return reply

    @property
    def BATCHES(self) -> bool:  # noqa: N802 (the name Python engines set as a class attribute)
        """Whether the engine declared ``"batch": true`` in its hello: then ``run_batch`` sends
        whole batches (spec/protocol.md, Batches), and the harness gives it whole batches."""
        return bool(self._info and self._info.get("batch") is True)

    def run_batch(self, requests: list[dict]) -> list[dict]:
        """Answer ``requests`` in order, one reply each, as ``run`` gives them. To an engine that
        declared ``"batch": true`` they go in one ``run_batch`` message (spec/protocol.md,
        Batches); when the engine faults during it, the process is stopped and the requests not
        yet answered are asked one at a time with ``run``. To any other engine, ``run`` each."""
        if len(requests) < 2 or not self.BATCHES:
            return [self.run(r) for r in requests]
        replies = self._batch(requests)
        return replies + [self.run(r) for r in requests[len(replies):]]

    def _batch(self, requests: list[dict]) -> list[dict]:
        """Send ``requests`` in one run_batch message and read their replies in order; the
        replies read before a fault (all of them when none happens). A crash or a hang is an
        incident laid on the request whose reply was due, and a failure of the crash policy;
        any fault is a warning too."""
        proc = self._ready()
        if proc is None:
            return []
        first = self._seq + 1
        self._seq += len(requests)
        replies: list[dict] = []
        # the engine may answer the whole batch at once: it has the time of every request
        wait = self.timeout * len(requests)
        deadline = time.monotonic() + wait

        def failed(kind: str | None, message: str) -> list[dict]:
            due = requests[len(replies)]
            if kind:
                self._asking = due
                self.incident(kind, message)
                self._asking = None
            self._drop(proc)
            self._failure(message)
            self.warnings.append(f"{due.get('case')}: {message} during a batch of {len(requests)} requests;"
                                 f" the {len(requests) - len(replies)} not answered were asked one at a time")
            return replies

        try:
            proc.send({"cmd": "run_batch",
                       "requests": [{"seq": first + i, **r} for i, r in enumerate(requests)]}, self.timeout)
            while len(replies) < len(requests):
                line = proc.receive(max(deadline - time.monotonic(), 0.0))
                if line is None:
                    return failed("crash", f"engine crashed: {proc.why_dead()}")
                if self._stale(line):
                    continue
                reply = self._parse(line, first + len(replies))
                if reply.get("fault"):
                    return failed(None, reply["errored"].removesuffix(" (the engine was restarted)"))
                if proc.answered:
                    self._failures = 0  # a process answered a second request: it is sound again
                proc.answered += 1
                replies.append(reply)
        except TimeoutError:
            return failed("hang", f"no answer within {wait:g} s ({self.timeout:g} s per request of the batch)")
        except OSError:
            return failed("crash", f"engine crashed: {proc.why_dead()}")
        except LineTooLong as exc:
            return failed(None, str(exc))
        return replies

    def _stale(self, line: str) -> bool:
        """Whether ``line`` repeats a reply to a request already answered (then it is
        ignored, with a warning)."""
        try:
            reply = json.loads(line)
        except (ValueError, RecursionError):
            return False
        if isinstance(reply, dict) and isinstance(reply.get("seq"), int) and reply["seq"] in self._answered:
            self.warnings.append(f"the engine answered seq {reply['seq']} more than once; the later reply"
                                 " was ignored")
            return True
        return False

    def late_answer(self, grace: float = INTERRUPT_GRACE) -> dict | None:
        """After an interruption cut ``run`` short: the reply to the request that was in
        flight, if the engine has written it or writes it within ``grace`` seconds (the
        reply as ``run`` gives it: ``result``, ``unsupported`` or ``errored``), else None.
        Never raises for engine faults; a second call returns None."""
        flight, self._in_flight = self._in_flight, None
        if flight is None:
            return None
        proc, seq = flight
        deadline = time.monotonic() + grace
        try:
            while True:
                line = proc.receive(max(deadline - time.monotonic(), 0.0))
                if line is None:
                    return None
                if not self._stale(line):
                    break
        except (TimeoutError, OSError, LineTooLong, ValueError):
            return None
        reply = self._parse(line, seq)
        if reply.get("fault"):
            return None
        proc.answered += 1
        return reply

    def _exchange(self, proc: _Process, request: dict) -> dict:
        self._seq += 1
        seq = self._seq
        # an interruption leaves the request in flight, for late_answer to read its reply
        self._in_flight = (proc, seq)
        got = self._await_reply(proc, seq, request)
        self._in_flight = None
        return got if isinstance(got, dict) else self._parse(got, seq)

    def _await_reply(self, proc: _Process, seq: int, request: dict) -> str | dict:
        """Send request ``seq`` and read the line that answers it (a repeated reply to an
        earlier request is skipped), or the fault (a dict) when none comes."""
        deadline = time.monotonic() + self.timeout

        def fault(message: str, crashed: bool = False) -> dict:
            return {"errored": message + " (the engine was restarted)", "fault": True, "crashed": crashed}

        try:
            proc.send({"cmd": "run", "seq": seq, **request}, self.timeout)
            while True:
                line = proc.receive(max(deadline - time.monotonic(), 0.0))
                if line is None:
                    return fault(f"engine crashed: {proc.why_dead()}", crashed=True)
                if not self._stale(line):
                    return line
        except TimeoutError:
            return {"timeout": f"no answer within {self.timeout:g} s; the engine was restarted"}
        except OSError:
            return fault(f"engine crashed: {proc.why_dead()}", crashed=True)
        except LineTooLong as exc:
            return fault(str(exc))

    def _parse(self, line: str, seq: int) -> dict:
        """The reply ``line`` to request ``seq`` as ``run`` gives it, or a fault (``fault``:
        True) when it is not a well-formed reply to that request."""
        def fault(message: str) -> dict:
            return {"errored": message + " (the engine was restarted)", "fault": True, "crashed": False}

        try:
            reply = json.loads(line)
        except (ValueError, RecursionError):
            return fault(f"engine wrote a line that is not JSON: {line[:160]!r}")
        if not isinstance(reply, dict):
            return fault(f"engine wrote {line[:160]!r}, not a JSON object")
        if reply.get("seq") != seq or isinstance(reply.get("seq"), bool):
            return fault(f"engine answered seq {reply.get('seq')!r} to request seq {seq}")
        self._answered.add(seq)
        kinds = [k for k in ("result", "unsupported", "errored") if k in reply]
        if len(kinds) != 1:
            return fault(f"a reply has exactly one of result, unsupported, errored: {line[:160]!r}")
        if kinds[0] == "unsupported":
            # the engine's own words: never read as bgconf's reasons for not asking (which a
            # certificate leaves out); an engine that declines a case it was asked counts
            return {"unsupported": f"the engine declined: {str(reply['unsupported'])[:300]}"}
        return {kinds[0]: reply[kinds[0]]}


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
            try:
                info = engine.describe()
            except Exception as exc:  # e.g. the engine's package is not installed
                print(f"bgconf serve: the engine could not start: {str(exc).strip() or type(exc).__name__}",
                      file=sys.stderr)
                return 4
            if not isinstance(info, dict):
                print(f"bgconf serve: the engine's describe() returned {info!r}, not a dict", file=sys.stderr)
                return 4
            hello = {"protocol": PROTOCOL,
                     "engine": {k: v for k, v in info.items()
                                if k not in ("capabilities", "rule_options", "position_formats", "batch")},
                     "capabilities": info.get("capabilities", []),
                     "rule_options": info.get("rule_options", {}),
                     "position_formats": info.get("position_formats", ["board"])}
            if asks_in_batches(engine, info):
                hello["batch"] = True
            send(hello)
        elif cmd == "run":
            request = {k: v for k, v in message.items() if k not in ("cmd", "seq")}
            send({"seq": message.get("seq"), **engine.run(request)})
        elif cmd == "run_batch":
            items = message.get("requests")
            if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
                send({"seq": None, "errored": "run_batch needs requests, a list of run messages without cmd"})
                continue
            for item, reply in zip(items, _batch_replies(engine, items)):
                send({"seq": item.get("seq"), **reply})
        elif cmd == "stop":
            break
        else:
            send({"seq": message.get("seq") if isinstance(message, dict) else None,
                  "errored": f"unknown cmd {cmd!r}"})
    engine.close()
    return 0


def _batch_replies(engine: Engine, items: list[dict]) -> list[dict]:
    """The engine's replies to the requests of a run_batch message, one per request: an engine
    whose run_batch raises or answers the wrong number gives each request an ``errored``."""
    requests = [{k: v for k, v in item.items() if k not in ("cmd", "seq")} for item in items]
    try:
        replies = engine.run_batch(requests)
    except Exception as exc:
        return [failure_reply(exc)] * len(requests)
    if not isinstance(replies, list) or len(replies) != len(requests):
        got = len(replies) if isinstance(replies, list) else type(replies).__name__
        return [{"errored": f"the engine's run_batch answered {got} of {len(requests)} requests"}] * len(requests)
    return replies


def serve_command(name: str) -> str:
    """The ``cmd:`` engine string that serves Python engine ``name`` through this
    Python interpreter (used by tests and docs)."""
    return f"cmd:{shlex.quote(sys.executable)} -m conformance.cli serve {shlex.quote(name)}"


def env_timeout() -> float:
    """BGCONF_TIMEOUT (seconds per request), default 10; a value that is not a finite
    positive number falls back to the default."""
    try:
        value = float(os.environ.get("BGCONF_TIMEOUT", "10"))
    except ValueError:
        return 10.0
    return value if math.isfinite(value) and 0 < value <= MAX_TIMEOUT else 10.0


def env_max_restarts() -> int:
    """BGCONF_MAX_RESTARTS (consecutive failures before an engine is given up), default 3."""
    try:
        value = int(os.environ.get("BGCONF_MAX_RESTARTS", "3"))
    except ValueError:
        return 3
    return value if value >= 1 else 3
