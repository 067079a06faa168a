"""Running cases against an engine.

The runner asks the engine what it can answer (``describe()``), marks cases it
cannot answer ``unsupported`` without asking, sends the rest in batches, and
compares each reply with the case (``compare``). An engine that raises, hangs
or answers nonsense makes that case ``errored``; the run goes on. The crashes and
hangs an engine records while a case is asked (its ``incidents``) are kept on that
case's result, even when a fresh process then answered it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from conformance.cases import Case
from conformance.harness.compare import Outcome, compare
from conformance.engines.interface import (CAPABILITY_UNSUPPORTED, NOTATION_UNSUPPORTED, OPTION_UNSUPPORTED, Engine,
                                           asks_in_batches)
from conformance.model import RULE_DEFAULTS, point_name, unmarked_hit_points


@dataclass
class CaseResult:
    """One case's result: the case, its outcome and the time spent (ms, batch share)."""

    case: Case
    outcome: Outcome
    ms: float
    #: the engine's bug report for this case, from its expectations entry (``link``)
    link: str | None = None
    #: the crashes and hangs while this case was asked (the engine's ``incidents`` entries:
    #: dicts with ``kind`` "crash" or "hang", ``message``, ``send``), retried or not
    incidents: list[dict] = field(default_factory=list)

    @property
    def status(self) -> str:
        return self.outcome.status


def engine_faults(foot: dict) -> str:
    """``25 crashes, 1 hang`` from a report footer's ``crashes`` and ``hangs`` (empty when
    the engine neither crashed nor hung, or the footer predates these counts)."""
    parts = []
    for key, one in (("crashes", "crash"), ("hangs", "hang")):
        n = foot.get(key) or 0
        if isinstance(n, int) and n:
            parts.append(f"{n} {one if n == 1 else key}")
    return ", ".join(parts)


def unsupported_reason(case: Case, info: dict) -> str | None:
    """Why an engine described by ``info`` cannot answer ``case``, or None: a capability it
    does not declare (``CAPABILITY_UNSUPPORTED``), a rule option value it does not offer
    (``OPTION_UNSUPPORTED``), or, for an engine declaring ``"hit_marks": false``, a play whose
    moves as written may hit on the way unsaid, which its input cannot tell from the play
    that does (``NOTATION_UNSUPPORTED``; ``model.unmarked_hit_points``; spec: format.notation)."""
    caps = set(info.get("capabilities", []))
    missing = [c for c in case.requires if c not in caps]
    if missing:
        return f"{CAPABILITY_UNSUPPORTED} {', '.join(missing)}"
    options = info.get("rule_options", {})
    for name, value in case.effective_rules.items():
        # an option the engine does not mention is taken as supported at its default only
        supported = options.get(name, [RULE_DEFAULTS[name]])
        if value not in supported:
            return f"{OPTION_UNSUPPORTED} {name}={value!r}"
    if info.get("hit_marks") is False and case.steps and case.position is not None and case.dice is not None:
        points = unmarked_hit_points(case.position, case.dice, case.steps)
        if points:
            where = ", ".join(point_name(p) for p in points)
            return (f"{NOTATION_UNSUPPORTED}: {case.play} may pass {where} without hitting (as written) or hit"
                    f" there, and its input cannot say which")
    return None


def split_unsupported(cases: list[Case], info: dict) -> tuple[dict[int, CaseResult], list[int]]:
    """The cases an engine described by ``info`` cannot answer, as ``unsupported`` results by
    index (``unsupported_reason``), and the indices of the others, in order."""
    results: dict[int, CaseResult] = {}
    todo: list[int] = []
    for i, case in enumerate(cases):
        why = unsupported_reason(case, info)
        if why:
            results[i] = CaseResult(case, Outcome("unsupported", why), 0.0)
        else:
            todo.append(i)
    return results, todo


def run_cases(engine: Engine, cases: Iterable[Case], *, batch_size: int = 200,
              progress: Callable[[CaseResult], None] | None = None,
              strict_sets: bool = False) -> list[CaseResult]:
    """Run ``cases`` on ``engine``; return one CaseResult per case, in order.

    ``progress`` is called after each result, as soon as it is known: requests go one
    at a time, except to engines that declare ``"batch": true`` (spec/protocol.md, Batches;
    ``asks_in_batches``), which are given batches of ``batch_size`` at once, so an interruption loses no answered case.
    ``strict_sets``: a legal_plays reply listing a play twice fails (spec: protocol,
    duplicates). Never raises for engine faults; KeyboardInterrupt propagates, after the
    answer to the request in flight, when the engine gives it within its grace
    (``late_answer()``, e.g. ``CommandEngine``), has been judged and passed to ``progress``.
    """
    info = engine.describe()
    cases = list(cases)
    results, todo = split_unsupported(cases, info)
    if progress:
        for i in sorted(results):
            progress(results[i])
    size = batch_size if asks_in_batches(engine, info) else 1
    incidents = getattr(engine, "incidents", None)
    for start in range(0, len(todo), size):
        chunk = todo[start:start + size]
        seen = len(incidents) if isinstance(incidents, list) else 0
        requests = [cases[i].request() for i in chunk]
        t0 = time.perf_counter()
        try:
            replies = engine.run_batch(requests)
        except KeyboardInterrupt:
            # an answer the engine has written (or writes within a short grace) when the run
            # is interrupted is recorded before the interruption goes on
            late = getattr(engine, "late_answer", None)
            reply = late() if callable(late) and len(chunk) == 1 else None
            if isinstance(reply, dict):
                i = chunk[0]
                new = incidents[seen:] if isinstance(incidents, list) else []
                results[i] = CaseResult(cases[i], compare(cases[i], reply, strict_sets=strict_sets),
                                        (time.perf_counter() - t0) * 1000, incidents=list(new))
                if progress:
                    progress(results[i])
            raise
        except Exception as exc:  # the adapter itself failed: every case of the batch errored
            replies = [{"errored": f"engine failed: {type(exc).__name__}: {exc}"}] * len(chunk)
        if not isinstance(replies, list) or len(replies) != len(chunk):
            got = len(replies) if isinstance(replies, list) else type(replies).__name__
            replies = [{"errored": f"engine answered {got} of {len(chunk)} requests"}] * len(chunk)
        share = (time.perf_counter() - t0) * 1000 / max(len(chunk), 1)
        new = incidents[seen:] if isinstance(incidents, list) else []
        for i, reply in zip(chunk, replies):
            mine = [x for x in new if x.get("request") is requests[chunk.index(i)]] if size > 1 else list(new)
            results[i] = CaseResult(cases[i], compare(cases[i], reply, strict_sets=strict_sets), share,
                                    incidents=mine)
            if progress:
                progress(results[i])
    return [results[i] for i in range(len(cases))]


@dataclass(frozen=True)
class EngineStarter:
    """How a worker process starts its own engine (``--jobs``): the engine's name as the
    command line gives it (``conformance.engines.registry.start_engine``), ``timeout`` (s per
    request) and ``max_restarts``. Calling it returns the started engine; it pickles."""

    name: str
    timeout: float | None = None
    max_restarts: int | None = None

    def __call__(self) -> Engine:
        return self.start()[0]

    def start(self) -> tuple[Engine, dict]:
        """The started engine and its ``describe()`` (``registry.start_engine``)."""
        from conformance.engines.registry import start_engine

        return start_engine(self.name, timeout=self.timeout, max_restarts=self.max_restarts)


@dataclass
class EngineTally:
    """What the engines of a run did besides answering (the report footer's fields), summed
    over the engines of a ``--jobs`` run: processes ``restarts``, the first ``given_up``
    reason (None: none was given up), the protocol ``warnings``."""

    restarts: int = 0
    given_up: str | None = None
    warnings: list[str] = field(default_factory=list)

    def add(self, engine_or_stats) -> None:
        """Count one engine (its attributes) or one worker's stats dict (``engine_stats``)."""
        stats = engine_or_stats if isinstance(engine_or_stats, dict) else engine_stats(engine_or_stats)
        self.restarts += stats.get("restarts", 0) or 0
        self.given_up = self.given_up or stats.get("given_up")
        self.warnings += [w for w in stats.get("warnings", []) if w not in self.warnings]


def engine_stats(engine) -> dict:
    """An engine's ``restarts``, ``given_up`` and ``warnings`` as a dict (0, None, [] when it has none)."""
    return {"restarts": getattr(engine, "restarts", 0) or 0, "given_up": getattr(engine, "given_up", None),
            "warnings": list(getattr(engine, "warnings", []) or [])}


def _ask_share(starter: Callable[[], Engine], batch_size: int, strict_sets: bool,
               share: list[tuple[int, Case]], emit, stats: dict) -> None:
    """A worker's part of ``run_cases_jobs``: its own engine answers its cases."""
    from conformance.harness.jobs import close_despite_stop

    if isinstance(starter, EngineStarter):
        engine, info = starter.start()
        hello = getattr(emit, "hello", None)
        if hello is not None:  # the engine's description, for a parent that waits for it (ask_workers)
            hello(info)
    else:
        engine = starter()
    try:  # the share arrives while the engine is up: waiting for it is inside, so the engine is closed
        where = {id(case): i for i, case in share}
        run_cases(engine, [case for _i, case in share], batch_size=batch_size, strict_sets=strict_sets,
                  progress=lambda r: emit(where[id(r.case)], (r.outcome, r.ms, r.incidents)))
    finally:
        # the campaign's stop (SIGINT) often lands here, as the end of the share wakes the task:
        # held back until the engine and its process group are gone, then raised
        close_despite_stop(engine.close)
        stats.update(engine_stats(engine))


def ask_workers(starter: Callable[[], Engine], jobs: int, *, batch_size: int = 200, strict_sets: bool = False):
    """The ``jobs`` worker processes of a ``run_cases_jobs`` to come, started now
    (``jobs.Jobs.start``): each starts its engine from ``starter``. With an ``EngineStarter``, each
    then sends its engine's ``describe()``, which ``workers.hello()`` returns (the first
    worker's), so the caller need not start an engine of its own to make the cases; None when
    that worker's engine did not start. Give them to ``run_cases_jobs(workers=...)``, and
    ``close()`` them in a ``finally`` (ends them if they were never given the cases)."""
    from functools import partial

    from conformance.harness.jobs import Jobs

    workers = Jobs(partial(_ask_share, starter, batch_size, strict_sets), jobs)
    workers.start()
    return workers


def run_cases_jobs(starter: Callable[[], Engine], info: dict, cases: Iterable[Case], jobs: int, *,
                   batch_size: int = 200, progress: Callable[[CaseResult], None] | None = None,
                   strict_sets: bool = False, tally: EngineTally | None = None, workers=None) -> list[CaseResult]:
    """``run_cases`` over ``jobs`` worker processes (``conformance.harness.jobs``), each with its
    own engine from ``starter`` (an ``EngineStarter``; ``info``: the engine's ``describe()``).
    The cases it cannot answer are ``unsupported`` at once, as in ``run_cases``; the others are
    dealt to the workers as shards deal them (case ``i`` of them to worker ``i % jobs``), and
    ``progress`` gets every result in the order ``run_cases`` gives them, so the report is the
    same. A worker that dies costs the case it was answering (``errored``, with a ``crash``
    incident). ``tally`` (filled also when interrupted) sums the engines' restarts, give-ups
    and warnings. KeyboardInterrupt propagates after every answer in has gone to ``progress``.
    ``workers``: the ones ``ask_workers`` started for this run (with the same ``starter``,
    ``jobs``, ``batch_size`` and ``strict_sets``); None starts them here."""
    from functools import partial

    from conformance.harness.jobs import Jobs

    cases = list(cases)
    results, todo = split_unsupported(cases, info)
    if progress:
        for i in sorted(results):
            progress(results[i])

    def deliver(k: int, answer) -> None:
        i = todo[k]
        outcome, ms, incidents = answer
        results[i] = CaseResult(cases[i], outcome, ms, incidents=list(incidents))
        if progress:
            progress(results[i])

    def lost(k: int, message: str):  # a crash where a worker died on the case; none where it was never asked
        from conformance.harness.jobs import NOT_ASKED

        incidents = [] if message.startswith(NOT_ASKED) else [{"kind": "crash", "message": message}]
        return (Outcome("errored", message), 0.0, incidents)

    run = workers or Jobs(partial(_ask_share, starter, batch_size, strict_sets), jobs)
    run.deliver, run.lost = deliver, lost
    try:
        run.run([cases[i] for i in todo])
    finally:
        if tally is not None:
            for stats in run.stats:
                tally.add(stats)
    return [results[i] for i in range(len(cases)) if i in results]


def chosen_play_case(case: Case) -> Case:
    """The chosen_play form of a legal_plays case: the same position and dice, the engine
    asked for the one play it would make (spec/protocol.md, chosen-play); named
    ``bg-7Q3K[chosen-play]``."""
    from dataclasses import replace

    return replace(case, kind="chosen_play", requires=("chosen-play",),
                   scenario="+".join(filter(None, ["chosen-play", case.scenario])))


def asked_cases(cases: Iterable[Case], info: dict) -> list[Case]:
    """The cases an engine described by ``info`` is asked: ``cases``, and, when it declares
    ``chosen-play``, the chosen_play form of each legal_plays case after them."""
    cases = list(cases)
    if "chosen-play" not in info.get("capabilities", []):
        return cases
    return cases + [chosen_play_case(c) for c in cases if c.kind == "legal_plays"]


def select(cases: Iterable[Case], ids: list[str] | None = None, tags: list[str] | None = None,
           spec: list[str] | None = None) -> list[Case]:
    """Filter cases by id, tag, or spec anchor/section prefix (any match keeps a case)."""
    out = []
    for case in cases:
        if ids and case.id not in ids:
            continue
        if tags and not set(tags) & set(case.tags):
            continue
        if spec and not any(a == s or a.startswith(s + ".") for a in case.spec for s in spec):
            continue
        out.append(case)
    return out
