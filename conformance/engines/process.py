"""One engine process, the single place where bgconf runs and reads engine programs
(the protocol's CommandEngine and the GNU Backgammon adapter both use it).

The process runs in its own session (process group), so killing it kills every
process it started, a shell wrapper's child included. A descendant that leaves the
session (``setsid``, a daemon's double fork) is found too: on Linux bgconf's process is
a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``, through ctypes: no dependency and
no privilege, unlike a cgroup, and psutil could not find an orphan that init adopted),
so an orphaned descendant is adopted by bgconf instead of init; every engine process
carries ``BGCONF_ENGINE=<token>`` in its environment, which its descendants inherit,
and ``kill()`` ends the engine's session, every descendant of the engine (walking
``/proc``), and every process adopted by bgconf that carries the engine's token. Its stdout and stderr are
non-blocking pipes read with ``selectors`` whenever bgconf waits for or writes to
it: no reader threads, stderr drained continuously into a bounded tail, long lines
read in linear time, and each process's pipes closed only after its whole group is
killed and reaped, so nothing one process wrote can be read as another's. POSIX only.
"""

from __future__ import annotations

import json
import os
import re
import select
import selectors
import signal
import subprocess
import sys
import time
from collections import deque
from contextlib import contextmanager


#: the signals that stop a run (Ctrl-C, a kill): held back by ``stop_signals_held``
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stop_signals_held(children_too: bool = False):
    """Hold back SIGINT and SIGTERM for the block, so that a short step that must not be cut
    half-way is not: a process started and not yet known to whoever must kill it, an engine
    asked to stop whose process group is not killed yet. In the main thread (where Python
    runs signal handlers) one that comes is only noted, and raised at the end of the block
    (its usual handler runs: KeyboardInterrupt, as a rule). ``children_too``: also blocked in
    this thread, so that a child process started in the block starts with them blocked (and
    must unblock them itself); without it, a program started in the block gets the signal
    mask it would get anyway. Not for blocks that wait on an engine: an interruption must not
    wait for those."""
    arrived: list[int] = []
    handlers: dict = {}
    held = None
    if children_too and hasattr(signal, "pthread_sigmask"):
        held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        for sig in STOP_SIGNALS:
            handlers[sig] = signal.signal(sig, lambda signum, _frame: arrived.append(signum))
    except ValueError:  # not the main thread: no handler runs here, nothing interrupts the block
        pass
    try:
        yield
    finally:
        if held is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # one held back is noted now
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    if arrived:
        signal.raise_signal(arrived[0])


class LineTooLong(OSError):
    """The engine wrote a stdout line longer than MAX_LINE_BYTES."""


#: The longest stdout line bgconf reads from an engine (bytes); a longer one is a fault.
MAX_LINE_BYTES = 256 * 1024 * 1024
_CHUNK = 1 << 20
#: The first stderr line that looks like an error is kept for crash reports (e.g. node's
#: "Error: Cannot find module ..." sits in the middle of its output).
_ERROR_LINE = re.compile(rb"(?i)\b(error|exception|traceback|fatal|panic|cannot|failed|not found)\b")
_TAIL_LINES = 20
_SEARCHED = 256 * 1024  # where the first error line is looked for: the start of stderr
_STDERR_LINE_BYTES = 400


class _StderrTail:
    """A bounded view of an engine's stderr: its first error-looking line and its last lines."""

    def __init__(self) -> None:
        self.first_error: str | None = None
        self.tail: deque[bytes] = deque(maxlen=_TAIL_LINES)
        self._partial = b""
        self._searched = 0  # bytes looked at for the first error line

    def feed(self, data: bytes) -> None:
        """Take a chunk of stderr. The cost is bounded per chunk: the first error line is
        looked for in the first _SEARCHED bytes only, and only the last lines are split."""
        buf = self._partial + data
        end = buf.rfind(b"\n")
        if self.first_error is None and self._searched < _SEARCHED:
            window = buf[:max(end, 0)][: _SEARCHED - self._searched]
            self._searched += len(window)
            found = _ERROR_LINE.search(window)
            if found:
                start = window.rfind(b"\n", 0, found.start()) + 1
                stop = window.find(b"\n", found.start())
                self.first_error = _text(window[start:stop if stop >= 0 else len(window)])
        if end < 0:
            self._partial = buf[-4 * _STDERR_LINE_BYTES:]
            return
        self._partial = buf[end + 1:][-4 * _STDERR_LINE_BYTES:]
        start = end
        for _ in range(_TAIL_LINES):  # the last lines only, however much was written
            start = buf.rfind(b"\n", 0, start)
            if start < 0:
                break
        self.tail.extend(line[:_STDERR_LINE_BYTES] for line in buf[start + 1:end].split(b"\n") if line.strip())

    def summary(self, last: int = 3) -> str:
        """``first error line | ... | last lines`` (empty when the engine wrote nothing)."""
        lines = [_text(x) for x in self.tail]
        if self._partial.strip():
            lines.append(_text(self._partial))
        shown = lines[-last:]
        if self.first_error and self.first_error not in shown:
            shown = [self.first_error, "..."] + shown
        return " | ".join(shown)


def _text(raw: bytes) -> str:
    return raw[:_STDERR_LINE_BYTES].decode("utf-8", "replace").rstrip()


def _grow_pipe(fd: int) -> None:
    """Ask Linux for a 1 MiB pipe (fewer wake-ups for a chatty engine); elsewhere a no-op."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), _CHUNK)
    except (ImportError, OSError):
        pass


def _groups_of_session(sid: int) -> set[int]:
    """The process groups of the processes in session ``sid`` (Linux /proc; elsewhere none)."""
    return {pgrp for _ppid, pgrp, session in _process_table().values() if session == sid}


#: the environment variable that marks an engine's processes and their descendants
ENGINE_TOKEN = "BGCONF_ENGINE"
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None
_tokens = 0


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux 3.4+), once: orphaned descendants of the
    engines it starts are then adopted by it, where ``kill()`` finds them. False where
    that is not available (another system, no libc); never raises."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper = False
    return _subreaper


def _new_token() -> str:
    global _tokens
    _tokens += 1
    return f"{os.getpid()}-{_tokens}-{os.urandom(4).hex()}"


def _process_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (ppid, process group, session) of every process (Linux /proc; elsewhere empty)."""
    table = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            table[int(entry)] = (int(fields[1]), int(fields[2]), int(fields[3]))  # after comm: state ppid pgrp session
        except (OSError, IndexError, ValueError):
            continue
    return table


def _has_token(pid: int, token: str) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f"{ENGINE_TOKEN}={token}".encode() in f.read().split(b"\0")
    except OSError:
        return False


def descendants(root: int, token: str | None = None) -> set[int]:
    """Every live process below ``root`` (by parent links), and, with ``token``, every
    process adopted by this one (a subreaper) that carries ``BGCONF_ENGINE=token``, with
    everything below those. Linux /proc; elsewhere the empty set."""
    table = _process_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _pgrp, _sid) in table.items():
        children.setdefault(ppid, []).append(pid)
    roots = [root]
    if token is not None:
        roots += [pid for pid in children.get(os.getpid(), []) if pid != root and _has_token(pid, token)]
    found: set[int] = set()
    todo = [c for r in roots for c in children.get(r, [])] + [r for r in roots if r != root]
    while todo:
        pid = todo.pop()
        if pid in found or pid == os.getpid():
            continue
        found.add(pid)
        todo.extend(children.get(pid, []))
    return found


def _reap(pids: set[int]) -> None:
    """Collect the adopted processes among ``pids`` that have ended (no zombie stays)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except (ChildProcessError, OSError):
            pass


def kill_tree(leader: int, token: str | None) -> None:
    """SIGKILL to session ``leader`` (see ``kill_session``), then to every descendant of
    ``leader`` and every adopted process carrying ``token`` (``descendants``), until none
    is left (a few rounds: a process may fork while it is killed); the adopted ones are
    reaped. Gone processes are ignored."""
    before = descendants(leader, token)
    kill_session(leader)
    seen: set[int] = set()
    for _ in range(5):
        left = (before | descendants(leader, token)) - seen
        before = set()
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        seen |= left
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:  # adopted ones become our zombies: reap them
            _reap(left)
            if not any(_running(pid) for pid in left):
                break
            time.sleep(0.01)


def kill_children() -> None:
    """SIGKILL every process this one started and every process below those (``kill_tree`` of
    each child: its session, its descendants), the adopted ones included: what a worker process
    does last, so that no engine it started, nor anything an engine started, outlives it, even
    when an interruption cut its engine's ``close`` short. Linux /proc; elsewhere nothing."""
    me = os.getpid()
    for pid, (ppid, _pgrp, _sid) in _process_table().items():
        if ppid == me:
            kill_tree(pid, None)
            _reap({pid})


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def kill_session(sid: int) -> None:
    """SIGKILL to every process group of session ``sid`` (the group its leader made, and
    groups a job-control shell made inside it); gone processes are ignored."""
    for pgid in {sid, *_groups_of_session(sid)}:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class EngineProcess:
    """One engine process (``argv``) in its own session, read without threads.

    ``receive(timeout)`` gives the next stdout line (None at end of output, TimeoutError
    after ``timeout`` s, LineTooLong); ``send(message, timeout)`` writes one JSON line;
    ``why_dead()`` says how it ended with its stderr; ``kill()`` ends its group.
    Raises OSError when the program cannot be started.
    """

    def __init__(self, argv: list[str]):
        self.argv = argv
        become_subreaper()
        self.token = _new_token()
        self.popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, bufsize=0, start_new_session=True,
                                      env={**os.environ, ENGINE_TOKEN: self.token})
        self.pgid = self.popen.pid  # start_new_session: the engine leads its own group
        self._killed = False
        self.answered = 0
        self.stderr = _StderrTail()
        self._out = bytearray()
        self._scan = 0
        self._stdout_eof = False
        self._selector = selectors.DefaultSelector()
        for stream in (self.popen.stdout, self.popen.stderr):
            _grow_pipe(stream.fileno())
            os.set_blocking(stream.fileno(), False)
            self._selector.register(stream.fileno(), selectors.EVENT_READ, stream)
        os.set_blocking(self.popen.stdin.fileno(), False)

    # -- reading ------------------------------------------------------------------------
    def _pump(self, timeout: float | None) -> None:
        """Read whatever the engine has written (waiting at most ``timeout`` s for it)."""
        if not self._selector.get_map():
            if timeout:
                time.sleep(min(timeout, 0.05))
            return
        for key, _ in self._selector.select(timeout):
            self._read(key.fd, key.data)

    def _read(self, fd: int, stream) -> None:
        try:
            data = os.read(fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._selector.unregister(fd)
            if stream is self.popen.stdout:
                self._stdout_eof = True
            return
        if stream is self.popen.stderr:
            self.stderr.feed(data)
        else:
            self._out += data

    def _line_ready(self) -> bool:
        return self._out.find(b"\n", self._scan) >= 0

    def _line(self) -> bytes | None:
        at = self._out.find(b"\n", self._scan)
        if at < 0:
            self._scan = len(self._out)
            if self._scan > MAX_LINE_BYTES:
                raise LineTooLong(f"engine wrote a line longer than {MAX_LINE_BYTES // 2**20} MiB")
            return None
        line = bytes(self._out[:at])
        del self._out[:at + 1]
        self._scan = 0
        return line

    def receive(self, timeout: float) -> str | None:
        """The next stdout line; None at end of output; raises TimeoutError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._line()
            if line is not None:
                return line.decode("utf-8", "replace").rstrip("\r")
            if self._stdout_eof:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if self.popen.poll() is not None:
                # the engine has exited; what it wrote is read, and a process it left behind
                # that still holds its output open does not turn the crash into a hang
                self._pump(0.05)
                if self._line_ready() or not self._selector.get_map():
                    continue
                return None
            self._pump(min(left, 0.25))

    def pending(self) -> str | None:
        """A complete stdout line the engine wrote without being asked, if any (no wait)."""
        self._pump(0)
        line = self._line()
        return None if line is None else line.decode("utf-8", "replace").rstrip("\r")

    # -- writing ------------------------------------------------------------------------
    def send(self, message: dict, timeout: float = 30.0) -> None:
        """Write one JSON line, reading stdout and stderr meanwhile (an engine busy writing
        cannot block us). Raises BrokenPipeError when the engine has gone, TimeoutError."""
        self.write_line(json.dumps(message, separators=(",", ":")), timeout)

    def write_line(self, text: str, timeout: float = 30.0) -> None:
        """Write ``text`` and a newline to the engine's stdin (a command line for a program
        that reads commands), as ``send`` does. Raises BrokenPipeError, TimeoutError."""
        data = memoryview((text + "\n").encode("utf-8"))
        fd = self.popen.stdin.fileno()
        deadline = time.monotonic() + timeout
        while data:
            try:
                n = os.write(fd, data)
                data = data[n:]
                continue
            except BlockingIOError:
                pass
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            _r, writable, _x = select.select([], [fd], [], min(left, 0.05))
            self._pump(0)

    # -- the end ------------------------------------------------------------------------
    def alive(self) -> bool:
        return self.popen.poll() is None and not self._stdout_eof

    def why_dead(self, when: str = "") -> str:
        """How the process ended (exit code or signal), ``when`` (e.g. "before answering
        start"), and what it said on stderr."""
        try:
            code = self.popen.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        end = time.monotonic() + 0.5
        while self._selector.get_map() and time.monotonic() < end:  # what it wrote before dying
            self._pump(0.05)
        if code is None:
            how = "closed its output"
        elif code < 0:
            try:
                how = f"was killed by signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        said = self.stderr.summary()
        return how + (f" {when}" if when else "") + (f"; stderr: {said}" if said else "")

    def kill(self) -> None:
        """Kill the engine's whole session (its group, and groups a job-control shell made
        inside it) and every descendant that left it (``kill_tree``), reap it, close the
        pipes. Idempotent: once it is reaped, its pid may be another process's, so a second
        call kills nothing."""
        if self._killed:
            return
        kill_tree(self.pgid, self.token)
        self._killed = True
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._selector.close()
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                stream.close()
            except OSError:
                pass


#: seconds pexpect waits, once the terminal is closed, before it asks whether the program ended
#: (and between its signals when it still runs); its default is 0.1
CLOSE_WAIT = 0.002


class TerminalProcess:
    """A program that needs a terminal, run under a pseudo-terminal (``pexpect``), in its
    own session like EngineProcess: ``kill()`` ends every process of that session.

    ``expect(patterns, timeout)`` waits for the first of ``patterns`` (regular expressions)
    in what the program writes and returns its index, or raises TimeoutError, or EOFError
    when the program ended; ``send(text)`` types ``text``; ``seen`` is everything it wrote
    (the terminal's echo of what was typed included). Raises OSError when the program cannot
    be started, ImportError when pexpect is missing.
    """

    def __init__(self, argv: list[str], *, cwd: str | None = None, env: dict | None = None,
                 dimensions: tuple[int, int] = (24, 200)) -> None:
        import pexpect

        self._pexpect = pexpect
        become_subreaper()
        self.token = _new_token()
        env = {**(os.environ if env is None else env), ENGINE_TOKEN: self.token}
        try:
            self.child = pexpect.spawn(argv[0], argv[1:], cwd=cwd, env=env, encoding="utf-8",
                                       codec_errors="replace", dimensions=dimensions, echo=True)
        except pexpect.ExceptionPexpect as exc:
            raise OSError(str(exc)) from None
        # pexpect sleeps 50 ms before each write and 100 ms when it closes the terminal, by
        # default; bgconf types only after the program's own prompt, and kill() ends the session
        # before closing, so neither wait is needed (they were most of BSD backgammon's time)
        self.child.delaybeforesend = None
        self.child.ptyproc.delayafterclose = CLOSE_WAIT
        self.child.ptyproc.delayafterterminate = CLOSE_WAIT
        self.pgid = self.child.pid  # the pty's child leads a new session
        self.seen = ""
        self.match = None

    def expect(self, patterns: list[str], timeout: float) -> int:
        pexpect = self._pexpect
        try:
            index = self.child.expect(patterns, timeout=timeout)
        except pexpect.TIMEOUT:
            self.seen += self.child.before or ""
            raise TimeoutError from None
        except pexpect.EOF:
            self.seen += self.child.before or ""
            raise EOFError from None
        self.match = self.child.match
        self.seen += (self.child.before or "") + (self.child.after or "")
        return index

    def send(self, text: str) -> None:
        self.child.send(text)

    def why_dead(self) -> str:
        """How the program ended (exit code or signal) and the last of what it wrote."""
        self.child.close(force=True)
        code, sig = self.child.exitstatus, self.child.signalstatus
        how = f"was killed by signal {sig}" if sig else f"exited with code {code}"
        tail = " | ".join(x.strip() for x in self.seen.strip().splitlines()[-3:] if x.strip())
        return how + (f"; it wrote: {tail[-300:]}" if tail else "")

    def kill(self) -> None:
        """Kill the program's session (SIGKILL to each of its process groups) and close the
        terminal; idempotent."""
        kill_tree(self.pgid, self.token)
        try:
            self.child.close(force=True)
        except Exception:  # already closed, or the terminal is gone
            pass
