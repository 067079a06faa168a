"""Adapter for GNU Backgammon (the ``gnubg`` program, run headless as a separate process).

gnubg is GPL software: bgconf never imports or copies it. This module starts the installed
program once (``gnubg -t -q -r -p driver/main.py``, program.py) and talks to the driver script
over pipes, one JSON object per line (see ``driver/main.py`` for that protocol; replies are
the lines that start with ``@@BGCONF ``). One process serves any number of requests; it is
started lazily, restarted if it dies, and a request that crashes or hangs it is answered
``{"errored": ...}`` while the rest of the batch goes on. This module holds ``GnubgEngine``: the
process's lifecycle, ``describe``, ``run_batch`` and the pipe; plans.py, games.py and records.py
translate the requests into driver messages and gnubg's replies back.

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

The game kinds are answered by gnubg's own commands and state (see games.py and records.py for
how each is set up). Side x is gnubg's player 0 (``gnubg.match()``'s "X", the first die
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

Variants (spec: variant.option): every request first puts gnubg in its variant with ``set
variation`` (standard, nackgammon, 1-, 2- or 3-chequer-hypergammon; a new session when it
changes), so positions are read with that variant's checker count and games are played and
scored in it. In hypergammon gnubg's hint lists no plays (its evaluations there need a database
gnubg does not install), so ``legal_plays`` and ``play_check`` offer every physically possible
play to gnubg's own ``move`` command, which takes exactly the plays its move generator makes.

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
import threading
import time
from typing import Any

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.gnubg.plans import plan_request
from conformance.engines.adapters.gnubg.program import (
    DRIVER, INSTALL_HINT, GnubgProcess, find_program, wait_briefly,
)
from conformance.engines.adapters.gnubg.translate import RULE_OPTIONS, _Failure, _Unsupported
from conformance.engines.process import stop_signals_held

__all__ = ["GnubgEngine", "EngineUnavailable", "DRIVER"]

_WINDOW = 16  # requests in flight at once; small enough never to fill the stdin pipe


class GnubgEngine:
    """Drive the installed GNU Backgammon program as a bgconf engine.

    One long-lived gnubg process (started on first use) answers every request. Instances are
    safe to share between threads (requests are serialised). Use ``close()`` or a ``with``
    block to end the process.
    """

    #: the harness sends whole batches (one gnubg script answers many requests); describe() says
    #: the same with ``"batch": true``, the declaration any engine can make
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
        self._proc: GnubgProcess | None = None
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

    def _process(self) -> GnubgProcess:
        if self._proc is not None and not self._proc.alive():
            self._discard()
        if self._proc is None:
            # made with SIGINT and SIGTERM held back, so that close() knows it before an
            # interruption can come; an interrupted or failed handshake kills it
            with stop_signals_held():
                self._proc = self._new_process()
            try:
                self._handshake(self._proc)
            except BaseException:
                self._discard()
                raise
        return self._proc

    def _new_process(self) -> GnubgProcess:
        try:
            return GnubgProcess(self.program)
        except OSError as exc:
            raise _Failure(f"cannot start {self.program}: {exc}") from exc

    def _handshake(self, proc: GnubgProcess) -> None:
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
                    wait_briefly(proc)
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
        "position_formats", "batch"}`` (``rule_options``: the values gnubg has a setting for, see
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
            "batch": True,  # one command script answers a whole batch (spec/protocol.md, Batches)
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
                plans.append(plan_request(req))
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
                        wait_briefly(proc)
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
