"""A protocol engine that answers like the reference engine and misbehaves on demand.

    python tests/fault_engine.py --fault F (--case-id ID ... | --at K | --every [N])
                                 [--log FILE] [--seed S --rate P] [--helper]

Where the fault happens
-----------------------
``--case-id ID`` (repeatable) is the robust choice and the one the tests use: the
fault happens on the request for that case, whichever process gets it. bgconf never
sends a case twice, so a restarted process cannot repeat the fault by accident, and
"first, middle, last" is simply the first, a middle and the last id of the case file.
``--at K`` counts "run" requests across restarts (1-based) in a state file
(``--state``, default ``LOG.count``, updated under an flock); ``--at 0`` is the start
handshake of every process (an engine that cannot start at all). ``--every`` is every
request. ``exit-after-each``, ``crash-second`` and ``chaos`` ignore the targeting.

Faults (F)
----------
none             answer every request correctly (the quiet engine of the benchmark)
crash            exit with code 7 without answering
exit             exit with code 0 without answering (an engine that quits mid-run)
hang             sleep forever without answering
garbage          write a line that is not JSON (then the correct reply, as for the next three)
not-object       write a JSON line that is not an object (``[1, 2, 3]``)
wrong-seq        answer with a seq that was never sent (seq + 1000000)
twice            send the correct reply twice (not a fault: the duplicate is ignored)
no-kind          a reply with both ``result`` and ``errored``
errored-reply    a well-formed ``{"seq": n, "errored": "..."}`` (the engine's own answer)
bad-chars        an ``errored`` reply whose message holds characters XML 1.0 cannot carry
                 (NUL, ESC, a lone surrogate: BAD_CHARS), as JSON escapes
slow             log ``fault:slow``, wait ``--delay`` seconds, then answer correctly
close-stdout     close standard output and then sleep forever
exit-after       answer correctly, then exit with code 0
exit-after-each  exit-after on every request
crash-second     every process answers its first request and crashes (code 7) on its second
stderr-flood     write 1 MB to stderr, then answer correctly
long-line        a correct reply of about 10 MB: the padding is a ``"pad"`` string inside
                 ``result`` (every comparison ignores unknown result keys, and the protocol
                 schema allows any result, whereas an extra top-level key is outside it)
node-like-error  write node's "Cannot find module" error to stderr (the error line in the
                 middle of a long stack) and exit with code 1
chaos            per request, with probability ``--rate``, one of crash, hang, garbage,
                 wrong-seq, twice, no-kind, exit-after; the draw depends only on
                 ``--seed`` and the case id, so restarts do not change it

Log
---
With ``--log FILE`` every event is one JSON line appended to FILE (one ``write`` each,
before the reply it describes is sent): ``{"pid", "pgid", "sid", "ppid", "case", "seq",
"event"}`` with event ``started``, ``helper`` (the pid of ``--helper``'s child),
``answered-correctly`` or ``fault:<name>``. A reply is logged ``answered-correctly``
only when it is the correct reply (``twice`` and ``exit-after`` log it, then their fault).

``--helper`` starts a child process that sleeps forever, as an engine with a worker
would: only killing the whole process group ends it. ``--setsid-helper child`` starts a
child that calls ``os.setsid()`` (a session and group of its own) and sleeps forever;
``--setsid-helper grandchild`` starts a child that starts such a grandchild and exits at
once (a daemon's double fork: the grandchild is an orphan, outside the engine's session
and group). Either logs ``helper`` with the sleeper's pid (``pid``) once it has called
setsid.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import random
import subprocess
import sys
import time

FAULTS = ("none", "crash", "exit", "hang", "garbage", "not-object", "wrong-seq", "twice", "no-kind", "errored-reply",
          "bad-chars", "slow", "close-stdout", "exit-after", "exit-after-each", "crash-second", "stderr-flood", "long-line", "node-like-error", "chaos")
CHAOS = ("crash", "hang", "garbage", "wrong-seq", "twice", "no-kind", "exit-after")
PAD = 10 * 1024 * 1024
#: what ``bad-chars`` puts in its message: NUL, ESC, a lone surrogate, a form feed
BAD_CHARS = "nul \x00 esc \x1b[31m lone \udc80 ff \x0c end"
FLOOD_LINE = "fault-engine: debug: " + "." * 78 + "\n"  # 100 bytes

NODE_ERROR = """node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/x.js'
{stack}    at node:internal/main/run_main_module:28:49 {{
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}}

Node.js v20.11.0
"""
NODE_STACK = "".join(f"    at Module._load (node:internal/modules/cjs/loader:{1000 + i}:27)\n" for i in range(30))


class Engine:
    def __init__(self, args):
        self.args = args
        self.log_fd = os.open(args.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if args.log else None
        from conformance.engines.adapters.reference import ReferenceEngine

        self.reference = ReferenceEngine()
        self.requests = 0  # run requests this process has read

    def log(self, event: str, case=None, seq=None, pid=None) -> None:
        if self.log_fd is None:
            return
        ppid = os.getpid() if pid else os.getppid()
        pid = pid or os.getpid()
        line = {"pid": pid, "pgid": os.getpgid(pid), "sid": os.getsid(pid), "ppid": ppid,
                "case": case, "seq": seq, "event": event}
        os.write(self.log_fd, (json.dumps(line) + "\n").encode())

    @staticmethod
    def send(obj, raw: str | None = None) -> None:
        data = (raw if raw is not None else json.dumps(obj)) + "\n"
        sys.stdout.write(data)
        sys.stdout.flush()

    # -- where ------------------------------------------------------------------
    def count_request(self) -> int:
        """The 1-based index of this run request over every process (``--at``)."""
        path = self.args.state or (self.args.log + ".count")
        with open(path, "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.seek(0)
            n = int(f.read().strip() or 0) + 1
            f.seek(0)
            f.truncate()
            f.write(str(n))
        return n

    def fault_for(self, msg: dict) -> str:
        a = self.args
        if a.fault == "chaos":
            rng = random.Random(f"{a.seed}:{msg.get('case')}")
            if rng.random() < a.rate:
                return rng.choice(CHAOS)
            return "none"
        if a.fault == "exit-after-each":
            return "exit-after"
        if a.fault == "crash-second":
            self.requests += 1
            return "crash" if self.requests == 2 else "none"
        self.requests += 1
        hit = (a.every is not None and self.requests % a.every == 0) or msg.get("case") in (a.case_id or [])
        if a.at is not None and a.at > 0:
            hit = hit or self.count_request() == a.at
        return a.fault if hit else "none"

    # -- what -------------------------------------------------------------------
    def answer(self, msg: dict) -> dict:
        request = {k: v for k, v in msg.items() if k not in ("cmd", "seq")}
        return {"seq": msg["seq"], **self.reference.run(request)}

    def start(self) -> None:
        if self.args.at == 0:
            self.do_fault(self.args.fault, {"case": None, "seq": None})
        info = self.reference.describe()
        self.send({"protocol": 1, "engine": {"name": f"fault-{self.args.fault}", "version": "0"},
                   "capabilities": info["capabilities"], "rule_options": info["rule_options"],
                   "position_formats": info["position_formats"]})

    def do_fault(self, fault: str, msg: dict) -> None:
        """The faults that do not answer: each ends the process, hangs, or writes a bad line."""
        case, seq = msg.get("case"), msg.get("seq")
        self.log(f"fault:{fault}", case, seq)
        if fault == "crash":
            os._exit(7)
        if fault == "exit":
            os._exit(0)
        if fault == "hang":
            while True:
                time.sleep(3600)
        if fault == "close-stdout":
            sys.stdout.flush()
            os.close(1)
            while True:
                time.sleep(3600)
        if fault == "node-like-error":
            sys.stderr.write("fault-engine: loading the rules\n")
            sys.stderr.write(NODE_ERROR.format(stack=NODE_STACK))
            sys.stderr.flush()
            os._exit(1)
        # a bad line is followed at once by the correct reply: it must not be read as the
        # answer to this request, nor to the next one
        correct = json.dumps(self.answer(msg)) if seq is not None else "{}"
        if fault == "garbage":
            self.send(None, raw="this is not json {\n" + correct)
        elif fault == "not-object":
            self.send(None, raw="[1, 2, 3]\n" + correct)
        elif fault == "wrong-seq":
            bad = {**self.answer(msg), "seq": seq + 1000000} if seq is not None else {}
            self.send(None, raw=json.dumps(bad) + "\n" + correct)
        elif fault == "no-kind":
            self.send(None, raw=json.dumps({**self.answer(msg), "result": {"plays": []}, "errored": "both"})
                      + "\n" + correct)
        elif fault == "errored-reply":
            self.send({"seq": seq, "errored": "the engine's own error"})
        elif fault == "bad-chars":
            self.send({"seq": seq, "errored": BAD_CHARS})  # json.dumps escapes them all: \u0000 ...

    def run(self, msg: dict) -> None:
        fault = self.fault_for(msg)
        case, seq = msg.get("case"), msg.get("seq")
        if fault in ("crash", "exit", "hang", "close-stdout", "node-like-error", "garbage", "not-object", "wrong-seq",
                     "no-kind", "errored-reply", "bad-chars"):
            self.do_fault(fault, msg)
            return
        reply = self.answer(msg)
        if fault == "slow":
            self.log("fault:slow", case, seq)
            time.sleep(self.args.delay)
        if fault == "stderr-flood":
            self.log("fault:stderr-flood", case, seq)
            sys.stderr.write(FLOOD_LINE * (1024 * 1024 // len(FLOOD_LINE)))
            sys.stderr.flush()
        if fault == "long-line":
            self.log("fault:long-line", case, seq)
            if isinstance(reply.get("result"), dict):
                reply["result"] = {**reply["result"], "pad": "x" * PAD}
        self.log("answered-correctly", case, seq)
        if fault == "twice":
            data = json.dumps(reply) + "\n"
            sys.stdout.write(data + data)  # both lines before the next request can be read
            sys.stdout.flush()
            self.log("fault:twice", case, seq)
            return
        if fault == "exit-after":
            self.log("fault:exit-after", case, seq)  # logged first: the exit follows the reply at once
            self.send(reply)
            os._exit(0)
        self.send(reply)


SLEEPER = "import os, sys, time\nos.setsid()\nos.write(1, b'%d\\n' % os.getpid())\nwhile True: time.sleep(3600)"
#: a child that starts SLEEPER, passes on the pid it prints, and exits without waiting
DOUBLE_FORK = ("import subprocess, sys\n"
               "p = subprocess.Popen([sys.executable, '-c', sys.argv[1]], stdin=subprocess.DEVNULL,"
               " stdout=subprocess.PIPE)\n"
               "sys.stdout.write(p.stdout.readline().decode())\nsys.stdout.flush()\n"
               "import os\nos._exit(0)")


def setsid_sleeper(orphan: bool) -> int:
    """Start a process that calls setsid and sleeps forever (through a child that exits when
    ``orphan``); return its pid once it has its own session."""
    argv = [sys.executable, "-c", DOUBLE_FORK, SLEEPER] if orphan else [sys.executable, "-c", SLEEPER]
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    pid = int(child.stdout.readline())
    child.stdout.close()
    if orphan:
        child.wait()
    return pid


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--fault", choices=FAULTS, required=True)
    p.add_argument("--case-id", action="append", metavar="ID", help="fault on this case's request (repeatable)")
    p.add_argument("--at", type=int, metavar="K", help="fault on the K-th run request over all processes (0: start)")
    p.add_argument("--every", type=int, nargs="?", const=1, metavar="N",
                   help="fault on every N-th request of each process (no N: every request)")
    p.add_argument("--log", metavar="FILE", help="append one JSON line per event")
    p.add_argument("--state", metavar="FILE", help="request counter for --at (default LOG.count)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rate", type=float, default=0.3)
    p.add_argument("--helper", action="store_true", help="start a child that sleeps forever")
    p.add_argument("--setsid-helper", choices=("child", "grandchild"),
                   help="start a child (or, through a child that exits, a grandchild) that calls setsid and sleeps")
    p.add_argument("--delay", type=float, default=0.1, help="seconds the slow fault waits before answering")
    args = p.parse_args(argv)
    if args.every is not None and args.every < 1:
        p.error("--every N needs N >= 1")
    if args.at and not (args.state or args.log):
        p.error("--at K needs --log or --state for the request counter")
    engine = Engine(args)
    engine.log("started")
    if args.helper:
        child = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(3600)"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        engine.log("helper", pid=child.pid)
    if args.setsid_helper:
        engine.log("helper", pid=setsid_sleeper(args.setsid_helper == "grandchild"))
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("cmd") == "start":
            engine.start()
        elif msg.get("cmd") == "run":
            engine.run(msg)
        elif msg.get("cmd") == "stop":
            break
    return 0


if __name__ == "__main__":
    # never a traceback, not even "Exception ignored" at shutdown: the tests look for bgconf's own
    try:
        code = main()
        sys.stdout.flush()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException as exc:
        try:
            sys.stderr.write(f"fault-engine: stopped: {type(exc).__name__}: {exc}\n")
            sys.stderr.flush()
        except OSError:
            pass
        code = 70
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)
