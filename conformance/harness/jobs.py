"""Jobs: one campaign spread over N worker processes of this machine (``--jobs N``).

The items of a campaign (the cases of a run, the search batches of a fuzz campaign, the games
of a playout, the record files of a replay) are dealt as shards deal them
(``conformance.harness.shard``): worker ``j`` (0-based) of N takes the items whose 0-based
index ``i`` has ``i % N == j``, in order. Each worker is a fresh Python process (the standard
library's ``multiprocessing``, ``spawn`` start method: nothing of the parent's engines, threads
or accelerator state is inherited; forked early workers, below, are the one exception) that
starts its own engine, answers its items one by one and sends each answer back as soon as it
has it. The parent hands the answers on in the serial
order (item 0, 1, 2, ...), holding back an answer until every earlier one is in, so what a
command prints and writes is what ``--jobs 1`` prints and writes, timings aside.

Faults stay where they happen:

- a worker process that dies (a crash of an in-process engine, a kill) costs the item it was
  answering, which gets the answer ``lost(index, message)``; a fresh worker takes the rest of
  its items. A worker that dies three times in a row without answering anything has its
  remaining items answered ``lost`` as well (its engine cannot run), and the run goes on;
- SIGINT or SIGTERM to the parent (Ctrl-C reaches the workers too, being in its process group)
  stops every worker: each is sent SIGINT, ends the request in flight the way its engine ends
  one when interrupted, sends what it answered and exits; the parent hands on every answer it
  has, in order, and re-raises the interruption. A worker that does not end within
  ``STOP_GRACE`` seconds is killed.

Why not ``concurrent.futures.ProcessPoolExecutor``: one dead worker breaks its whole pool
(``BrokenProcessPool``), and a task's answers come back only when the task ends, so neither a
crash confined to one case nor a report written case by case could be had from it. Workers
here are ``multiprocessing.Process`` objects with one ``Pipe`` each, read with
``multiprocessing.connection.wait``.

Workers started before the items are known may be forked from the parent instead
(``Jobs.start(fork=True)``, asked for by a replay without an engine): no Python start and no
imports, about 0.08 s less before the first item on a 2-core machine. Only where it is safe: a
POSIX system, a parent with a single thread (``single_threaded``: no engine, accelerator or
other thread to copy half-way), before any output is opened; each forked worker closes the
parent's ends of the other workers' pipes it inherited, and a worker started again after a
death is always a fresh ``spawn`` process.

Workers can be started before the items are known (``Jobs.start``): each starts its task at
once, and the task receives its share when it first reads it, so a task that starts its engine
before reading its share has it ready by the time the parent has made the items. Such a task
may first say something of itself (``emit.hello(value)``: a run's engine description), which
the parent waits for with ``Jobs.hello`` to make the items, instead of starting an engine of its
own. ``Jobs.close`` ends workers that ``run`` was never given items for.

``task(share, emit, stats)`` is what a worker runs: ``share`` its (index, item) pairs in order,
``emit(index, answer)`` sends one answer, ``stats`` a dict the task fills (also when it is
interrupted) and the parent gets back (``Jobs.stats``). ``task`` and the items must pickle (a
module-level function, or a ``functools.partial`` of one). ``share`` is read when the task first
iterates it (or takes its length): until then the parent may still be making the items.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any, Callable, Sequence

from conformance.engines.process import STOP_SIGNALS, kill_children, stop_signals_held
from conformance.harness.shard import Shard

#: seconds a stopped worker has to send its answers and end before it is killed
STOP_GRACE = 10.0

#: deaths in a row without an answer after which a worker's remaining items are given up
MAX_FRUITLESS = 3

#: how the message of an item given up that way begins (no worker died on it: it was never asked)
NOT_ASKED = "not asked: "


def cores() -> int:
    """The CPUs this process may run on (``os.sched_getaffinity`` where the system has it, else
    ``os.cpu_count``); at least 1. ``--jobs 0`` means this many."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def job_count(jobs: int | None) -> int:
    """The number of workers for ``--jobs N``: N itself, ``cores()`` for 0, 1 for None."""
    if jobs is None:
        return 1
    return cores() if jobs == 0 else jobs


def deal(count: int, jobs: int) -> list[list[int]]:
    """The 0-based item indices of each of ``jobs`` workers, as shards deal them: worker ``j``
    gets the items of ``Shard(j + 1, jobs)``."""
    return [[i for i in range(count) if Shard(j + 1, jobs).owns(i)] for j in range(jobs)]


def single_threaded() -> bool:
    """Whether this process runs one thread (threads of native libraries included: Linux's
    ``/proc/self/task``); False where that cannot be known. Forking is safe only then."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _stop_handler(signum, _frame):
    """A worker's SIGINT and SIGTERM: the first stops the task (KeyboardInterrupt); the later ones
    are let pass (a Python handler that does nothing: SIG_IGN instead would make CPython raise
    "signal ignored due to race condition" for one already on its way)."""
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, _let_pass)
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _let_pass(_signum, _frame):
    pass


def close_despite_stop(close: Callable[[], None]) -> None:
    """Run ``close`` (a worker task's engine close, from its ``finally``) to its end when the
    campaign's stop comes meanwhile: SIGINT is held back while it runs (``stop_signals_held``)
    and raised after it. A stop that lands before the signals are held cuts ``close`` short;
    what it left running is killed as the worker ends (``_worker``: ``kill_children``)."""
    with stop_signals_held():
        close()


class _Share:
    """A worker's share of the items, received from the parent (``conn``, a pipe end) when the
    task first reads it: a sequence of (index, item) pairs."""

    def __init__(self, conn) -> None:
        self._conn = conn
        self._pairs: list | None = None

    def _load(self) -> list:
        if self._pairs is None:
            try:
                self._pairs = self._conn.recv()
            finally:
                self._conn.close()
        return self._pairs

    def __iter__(self):
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __getitem__(self, k):
        return self._load()[k]


class _Emit:
    """A worker task's ``emit``: ``emit(index, answer)`` sends one answer; ``emit.hello(value)``,
    called before the task reads its share, sends what the parent may wait for (``Jobs.hello``)."""

    def __init__(self, conn) -> None:
        self._conn = conn

    def __call__(self, index: int, answer: Any) -> None:
        self._conn.send(("item", index, answer))

    def hello(self, value: Any) -> None:
        self._conn.send(("hello", value))


def _worker(task: Callable, shares, conn, inherited: tuple = ()) -> None:
    """A worker process's body: run ``task`` on its share (read from ``shares``, a pipe end, when
    the task first reads it: ``_Share``), answers and the end sent on ``conn``. ``inherited``:
    the parent's pipe ends a forked worker got a copy of (``Jobs.start(fork=True)``), closed
    first, so that the parent's closing one is seen by the worker it is meant for."""
    for end in inherited:
        end.close()
    # started with SIGINT and SIGTERM blocked (Jobs._spawn), so nothing stopped it half-way
    # through starting up; from here on they stop the task as they stop a serial run, one that
    # came meanwhile as soon as they are unblocked
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop_handler)
    stats: dict = {}
    try:
        try:
            if hasattr(signal, "pthread_sigmask"):
                signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
            task(_Share(shares), _Emit(conn), stats)
            conn.send(("end", stats))
        except KeyboardInterrupt:
            conn.send(("end", stats, "interrupted"))
        except Exception as exc:  # the task itself failed (e.g. its engine cannot start)
            conn.send(("failed", f"{type(exc).__name__}: {exc}", stats,
                       traceback.format_exc(limit=5)))
    except (KeyboardInterrupt, BrokenPipeError, EOFError, OSError):
        pass  # the parent is gone or stopping: nothing more to tell it
    finally:
        # the task closed its engine; if a stop cut that short, nothing the worker started
        # outlives it. A stop that lands in this block (the first one: later ones are let
        # pass, _stop_handler) starts it again; from its end, every stop is let pass.
        while True:
            try:
                kill_children()
                for sig in STOP_SIGNALS:
                    signal.signal(sig, _let_pass)
                try:
                    conn.close()
                except OSError:
                    pass
                break
            except KeyboardInterrupt:
                continue


@dataclass
class _Worker:
    number: int
    pending: deque
    process: Any = None
    conn: Any = None
    fruitless: int = 0
    answered: bool = False
    ended: bool = False
    failure: str | None = None
    sender: Any = None
    held: deque = field(default_factory=deque)  # messages read by Jobs.hello, not yet handled


@dataclass
class Jobs:
    """One campaign over ``jobs`` workers. ``deliver(index, answer)`` is called in the parent
    for every answer, in index order; it returns True to stop the campaign there (the
    workers are stopped, the later answers dropped). ``lost(index, message)`` makes the
    answer of an item whose worker died on it. ``stats``: each worker's ``stats`` dict, one
    per worker process that ended (a restarted worker adds one)."""

    task: Callable
    jobs: int
    deliver: Callable[[int, Any], bool | None] | None = None
    lost: Callable[[int, str], Any] | None = None
    stats: list[dict] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    stopped: bool = False
    _early: list = field(default_factory=list, repr=False)

    def start(self, fork: bool = False) -> None:
        """Start the ``jobs`` workers now, before ``run`` is given the items: each runs its task,
        which gets its share when it first reads it. ``deliver`` and ``lost`` may still be set
        after this, before ``run``. Pair with ``close`` (in a ``finally``) for the case where
        ``run`` is never called. ``fork``: fork them from this process when it is safe
        (``single_threaded``; see the module's docstring), for a caller that has opened no
        output and started no engine yet; else (and always when not asked) spawn them. When one
        cannot be started (OSError: too many open files or processes), those already started are
        ended (``close``) and the error raised."""
        self._ctx = multiprocessing.get_context("spawn")
        forked = multiprocessing.get_context("fork") if fork and single_threaded() else None
        self._items = []
        try:
            for j in range(max(1, self.jobs)):
                w = _Worker(j, deque())
                self._spawn(w, forked)
                self._early.append(w)
        except BaseException:  # one could not start (EMFILE, EAGAIN): those started end now
            self.close()
            raise

    def hello(self) -> Any:
        """Wait for the first worker ``start`` started to say what its task says of itself
        (``emit.hello(value)``, e.g. its engine's description, so that the parent need not start
        an engine of its own to know it): that value, or None when the worker says anything else
        first (it failed, ended or died; ``run`` then handles that message as usual) or when no
        worker was started early."""
        if not self._early or self._early[0].conn is None:
            return None
        w = self._early[0]
        try:
            message = w.conn.recv()
        except (EOFError, OSError):
            return None  # its pipe's end is seen again by run
        if message[0] == "hello":
            return message[1]
        w.held.append(message)
        return None

    def close(self) -> None:
        """End the workers ``start`` started that ``run`` never took, as an interruption ends
        them: the end of their share is sent (a worker waiting for it stops there) and each is
        sent SIGINT, so that its task closes its engine; one still running after STOP_GRACE
        seconds is killed. Does nothing after ``run``."""
        if self._early:
            self._workers = self._early
            self._early = []
            try:
                for w in self._workers:
                    if w.sender is not None:
                        w.sender.close()
                        w.sender = None
                self._stop(deliver=False)
            finally:
                self._kill_all()

    def run(self, items: Sequence[Any]) -> bool:
        """Answer every item (or until ``deliver`` says stop: returns True then, else False).
        KeyboardInterrupt (SIGINT, SIGTERM) in the parent: every worker is stopped, each
        answer in is delivered in order (skipping the items nobody answered), and the
        interruption is raised again."""
        items = list(items)
        self._items = items
        self._buffer: dict[int, Any] = {}
        self._next = 0
        shares = deal(len(items), max(1, self.jobs))
        early, self._early = self._early, []
        if early:  # started already (start): each gets its share, an empty one ends it
            for w, share in zip(early, shares):
                w.pending = deque(share)
            workers = early
        else:
            self._ctx = multiprocessing.get_context("spawn")
            workers = [_Worker(j, deque(share)) for j, share in enumerate(shares) if share]
        self._workers = workers
        try:
            for w in workers:
                if early:
                    self._send(w)
                else:
                    self._start(w)
            self.stopped = self._loop()
            return self.stopped
        except KeyboardInterrupt:
            self._stop(deliver=True)
            raise
        finally:
            self._kill_all()

    # -- the parent's side ---------------------------------------------------------------
    def _start(self, w: _Worker) -> None:
        """Start worker ``w`` and send it its share (its pending items)."""
        self._spawn(w)
        self._send(w)

    def _spawn(self, w: _Worker, forked=None) -> None:
        """Start worker ``w``'s process (a fresh ``spawn`` process; forked by ``forked``, the
        fork context, when given); its share is sent by ``_send``."""
        ctx = forked or self._ctx
        reader, writer = ctx.Pipe(duplex=False)
        shares, sender = ctx.Pipe(duplex=False)
        # a forked worker gets a copy of every pipe end the parent holds: its own share's sender
        # and answers' reader, and those of the workers before it; it closes them (_worker)
        inherited: tuple = ()
        if forked is not None:
            held = [end for other in self._early for end in (other.conn, other.sender) if end is not None]
            inherited = (*held, reader, sender)
        w.process = ctx.Process(target=_worker, args=(self.task, shares, writer, inherited),
                                name=f"bgconf-job-{w.number + 1}")
        w.answered, w.ended, w.failure = False, False, None
        # SIGINT and SIGTERM are held back while the worker process is started, which takes a few
        # milliseconds (its share is sent afterwards): the child starts with them blocked, so that
        # nothing stops it half-way through starting up (_worker unblocks them), and one that
        # arrives meanwhile is raised once the worker is started and known, so that it stops the
        # campaign, not the start. multiprocessing's resource tracker, started by the first spawn,
        # unblocks them after starting: started first, it leaves the block alone.
        if forked is None:  # a forked worker needs no tracker (nor its Python start)
            from multiprocessing import resource_tracker

            resource_tracker.ensure_running()
        with stop_signals_held(children_too=True):
            w.process.start()
            writer.close()
            shares.close()
            w.conn = reader
            w.sender = sender

    def _send(self, w: _Worker) -> None:
        """Send worker ``w`` its share: the (index, item) pairs of its pending items."""
        sender, w.sender = w.sender, None
        try:  # an interruption while the share is sent stops the run as any other (run)
            sender.send([(i, self._items[i]) for i in w.pending])
        except (BrokenPipeError, OSError):
            pass  # the worker died at once: its pipe's end tells (_ended)
        finally:
            sender.close()

    def _loop(self) -> bool:
        while True:
            live = [w for w in self._workers if w.conn is not None]
            if not live:
                self._flush(skip_gaps=True)
                return False
            held = [w.conn for w in live if w.held]  # read already (hello): handled first
            for conn in held or wait([w.conn for w in live], timeout=1.0):
                w = next(x for x in live if x.conn is conn)
                if self._receive(w):
                    self._stop(deliver=False)
                    return True

    def _receive(self, w: _Worker) -> bool:
        """Handle one message (or the end) of worker ``w``; True when delivery says stop."""
        try:
            message = w.held.popleft() if w.held else w.conn.recv()
        except (EOFError, OSError):
            self._ended(w)
            return self._flush()
        kind = message[0]
        if kind == "hello":  # what a worker says of itself: for Jobs.hello only
            return False
        if kind == "item":
            _, index, answer = message
            if index in w.pending:
                w.pending.remove(index)
            w.answered = True
            self._buffer[index] = answer
            return self._flush()
        if kind == "end":
            self.stats.append(message[1])
            if len(message) > 2:  # interrupted alone (the parent was not): like a death
                w.failure = "it was interrupted"
            else:
                w.ended = True
            return False
        if kind == "failed":  # the task raised: like a death (its end follows), on the item it was at
            self.stats.append(message[2])
            self.failures.append(message[1])
            w.failure = message[1]
        return False

    def _ended(self, w: _Worker) -> None:
        """Worker ``w``'s pipe is closed: it ended, or it died."""
        w.conn.close()
        w.conn = None
        w.process.join(timeout=STOP_GRACE)
        code = w.process.exitcode
        if w.ended or not w.pending:
            return
        why = f"stopped ({w.failure})" if w.failure else f"(pid {w.process.pid}) ended with exit code {code}"
        self._blame(w, f"worker {w.number + 1} {why} while answering it; its other items went to a fresh worker")
        if w.pending:
            self._start(w)

    def _blame(self, w: _Worker, message: str) -> None:
        """The item worker ``w`` was answering when it died is answered ``lost``; after
        MAX_FRUITLESS deaths in a row without an answer, so are all its remaining items."""
        if not w.pending:
            return
        w.fruitless = 0 if w.answered else w.fruitless + 1
        index = w.pending.popleft()
        self._buffer[index] = self.lost(index, message)
        if w.fruitless >= MAX_FRUITLESS:
            while w.pending:
                i = w.pending.popleft()
                self._buffer[i] = self.lost(i, f"{NOT_ASKED}{message} ({MAX_FRUITLESS} times in a row"
                                               " without an answer)")

    def _flush(self, skip_gaps: bool = False) -> bool:
        """Deliver the answers in, in index order; True when delivery says stop."""
        while self._next < len(self._items):
            if self._next in self._buffer:
                if self.deliver(self._next, self._buffer.pop(self._next)):
                    return True
            elif not skip_gaps:
                return False
            self._next += 1
        return False

    def _stop(self, deliver: bool) -> None:
        """Stop every worker (SIGINT; killed after STOP_GRACE); with ``deliver``, hand on the
        answers that came in meanwhile, in order, skipping the unanswered items."""
        for w in self._workers:
            if w.conn is not None and w.process.pid is not None and w.process.is_alive():
                try:
                    os.kill(w.process.pid, signal.SIGINT)
                except (OSError, AttributeError):
                    w.process.terminate()
        for w in self._workers:  # a failure or end read by hello and never handled
            while w.held:
                message = w.held.popleft()
                if message[0] in ("end", "failed"):
                    self.stats.append(message[1] if message[0] == "end" else message[2])
        deadline = time.monotonic() + STOP_GRACE
        while True:  # read on, so that no worker is left blocked writing to a full pipe
            live = [w for w in self._workers if w.conn is not None]
            left = deadline - time.monotonic()
            if not live or left <= 0:
                break
            for conn in wait([w.conn for w in live], timeout=min(left, 1.0)):
                w = next(x for x in live if x.conn is conn)
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    conn.close()
                    w.conn = None
                    continue
                if message[0] == "item" and deliver:
                    self._buffer[message[1]] = message[2]
                elif message[0] in ("end", "failed"):
                    self.stats.append(message[1] if message[0] == "end" else message[2])
        if deliver:
            self._flush(skip_gaps=True)
        for w in self._workers:
            if w.process is not None and w.process.pid is not None:  # started
                w.process.join(timeout=max(0.0, deadline - time.monotonic()))

    def _kill_all(self) -> None:
        for w in self._workers:
            if w.sender is not None:  # started, never sent its share
                w.sender.close()
                w.sender = None
            if w.conn is not None:
                w.conn.close()
                w.conn = None
            if w.process is not None and w.process.pid is not None and w.process.is_alive():
                w.process.kill()
                w.process.join(timeout=5)

