"""Finding and running the gnubg program: its path, the driver script it runs and the process.

``find_program`` locates the executable; ``GnubgProcess`` is one running ``gnubg -t -q -r -p
driver/main.py`` (the driver's modules beside it in ``driver/``, see its protocol there), whose
replies are the stdout lines that start with MARKER. Everything above the pipe is in engine.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.process import EngineProcess, LineTooLong

#: The script gnubg runs; the driver's other modules are beside it, and it imports them from there.
DRIVER = Path(__file__).with_name("driver") / "main.py"

MARKER = "@@BGCONF "
INSTALL_HINT = "install it with: apt-get update && apt-get install -y gnubg"
_FALLBACK_PATHS = ("/usr/games/gnubg", "/usr/local/games/gnubg")


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


class GnubgProcess(EngineProcess):
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
        """Ask the driver to stop, then kill its process group and close the pipes (killed
        also when an interruption, KeyboardInterrupt, comes while it is asked to stop)."""
        try:
            if self.popen.poll() is None:
                try:
                    self.send({"cmd": "stop", "id": None}, timeout=1.0)
                    self.popen.wait(timeout=grace)
                except (OSError, ValueError, TimeoutError, subprocess.TimeoutExpired):
                    pass
        finally:
            self.kill()


def wait_briefly(proc: GnubgProcess) -> None:
    try:
        proc.popen.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass
