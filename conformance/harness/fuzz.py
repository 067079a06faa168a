"""Differential fuzzing: the oracle, the search, the shrink and the campaign of ``bgconf fuzz``.

Generated inputs (``conformance.harness.strategies``, each a ``Question``) go to the engine and
to the reference (``Oracle``); when their answers differ, Hypothesis shrinks the input to a
minimal one, and ``case_yaml`` writes the regression case (``conformance.harness.found_cases``).

How a campaign runs, in two phases:

1. **Search.** A generator seeded by the run's seed alone draws one 64-bit seed per batch
   (``_batches``), so a run is a function of its seed in every process: Hypothesis's own
   generation is not used here, because its draws also depend on the modules loaded in the
   process, which differ between a command and its ``--jobs`` workers. The seed expands to the
   bytes of ``batch`` examples, each decoded by ``strategies.decode_example`` in the same
   layout Hypothesis shrinks. The batch goes to the engine in one ``run_batch`` call (one
   run_batch message for a process engine that declares ``batch``, spec/protocol.md, Batches;
   else one round trip per request; process engines stay up), and every answer is checked
   against the reference.
2. **Shrink.** A mismatching example's bytes are replayed into a one-example Hypothesis
   test (``fuzz_one_input``, which records the failure in an in-memory example database),
   then that test runs its reuse and shrink phases: Hypothesis shrinks the bytes (hence the
   position: fewer checkers, lower points, lower dice) while the same kind of mismatch
   remains. Each kind of mismatch (missing plays, extra plays, wrong verdict...) is its own
   exception class, so the shrink keeps the bug it started from.

The spec anchors of the case (``spec_anchors``): the mutants of ``conformance.harness.mutants``
(the reference with one rule broken each) are run on the minimal input; a mutant that answers
as the engine did names the rule the engine breaks, and one that merely disagrees with the
reference names a rule that decides this input. Without either, a heuristic on the position.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from hypothesis import HealthCheck, Phase, Verbosity, given, seed as hypothesis_seed, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase
from hypothesis.errors import HypothesisException

from conformance.harness.found_cases import (REASON_ANCHORS, case_tags, case_text, case_title, heuristic_anchors,
                                             situation_anchors)
from conformance.harness.questions import CAPABILITY, PLAY_KINDS, Question  # CAPABILITY: re-exported
from conformance.harness.shard import WHOLE, Shard
from conformance.harness.strategies import decode_example, example_size
from conformance.model import BAR, Cube, Match, ModelError, Position, effective_rules, format_play, play_to_position


# -- judging one answer ------------------------------------------------------------------
@dataclass
class Mismatch:
    """How the engine's answer differs from the reference's: ``category`` (kept while
    shrinking), a one-line ``message``, for legal plays the ``missing`` and ``extra``
    plays in notation, and the reference's ``expected`` answer."""

    category: str
    message: str
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    expected: Any = None
    got: Any = None


class BadAnswer(Exception):
    """The engine's answer has the wrong shape or a play that cannot be applied."""


def _passed(position: Position, me: list[int], opp: list[int]) -> Position:
    if position.on_roll == "x":
        return Position.trusted("o", tuple(me), tuple(opp))
    return Position.trusted("x", tuple(opp), tuple(me))


def result_position(position: Position, play: Any) -> Position:
    """The resulting position of one play of an engine's answer (a step list, notation
    or a board-form position), applied with physical checks only (the play notation of spec/rules.md, format section).
    A step list takes a fast path; anything odd goes through ``play_to_position`` for
    its error message. Raises BadAnswer."""
    if isinstance(play, (list, tuple)):
        me, opp = list(position.mover), list(position.opponent)
        for step in play:
            if not (isinstance(step, (list, tuple)) and len(step) == 2
                    and type(step[0]) is int and type(step[1]) is int):
                break
            src, dst = step
            if not (1 <= src <= 25 and 0 <= dst < src) or not me[src] or (dst and opp[25 - dst] >= 2):
                break
            me[src] -= 1
            me[dst] += 1
            if dst and opp[25 - dst] == 1:
                opp[25 - dst] = 0
                opp[BAR] += 1
        else:
            return _passed(position, me, opp)
    try:
        return play_to_position(position, play)
    except (ModelError, TypeError, ValueError, KeyError) as exc:
        raise BadAnswer(f"returned play {play!r} cannot be applied: {exc}") from None


def _label(position: Position, play: Any, result: Position) -> str:
    if isinstance(play, str):
        return play
    if isinstance(play, (list, tuple)):
        try:
            return format_play(position, play)
        except (ModelError, TypeError, ValueError):
            return str(play)
    return f"position {result}"


class Oracle:
    """The reference's answers, and the verdict on an engine's answer."""

    def __init__(self, rules=None):
        from conformance.engines.adapters.reference import RULES

        self.rules = rules or RULES

    def expected(self, ex: Question) -> Any:
        """legal_plays and chosen_play: {resulting position: steps}; play_check: Verdict;
        game_result: dict."""
        if ex.kind in PLAY_KINDS:
            return self.rules.legal_plays(ex.position, ex.dice)
        if ex.kind == "play_check":
            return self.rules.play_check(ex.position, ex.dice, ex.steps)
        return self.rules.game_result(ex.position, ex.cube or Cube(), ex.match or Match(),
                                      effective_rules(ex.rules))

    def judge(self, ex: Question, reply: dict) -> Mismatch | None | str:
        """None when the engine agrees, "unsupported" when it declined, else a Mismatch."""
        if "unsupported" in reply:
            return "unsupported"
        expected = self.expected(ex)
        if "result" not in reply:
            why = reply.get("errored") or reply.get("timeout") or f"reply without result: {str(reply)[:200]}"
            return Mismatch("errored", f"engine errored: {why}", expected=expected, got=reply)
        try:
            return getattr(self, "_" + ex.kind)(ex, reply["result"], expected)
        except BadAnswer as exc:
            return Mismatch("invalid-answer", f"invalid answer: {exc}", expected=expected, got=reply["result"])

    def _legal_plays(self, ex: Question, result: Any, expected: dict) -> Mismatch | None:
        if not isinstance(result, dict) or not isinstance(result.get("plays"), list):
            raise BadAnswer(f"expected {{'plays': [...]}}, got {str(result)[:200]}")
        got: dict[Position, Any] = {}
        for play in result["plays"]:
            got.setdefault(result_position(ex.position, play), play)
        if not got:
            got[ex.position.passed()] = []
        if got.keys() == expected.keys():
            return None
        missing = sorted(format_play(ex.position, expected[p]) for p in expected if p not in got)
        extra = sorted(_label(ex.position, got[p], p) for p in got if p not in expected)
        category = "wrong-plays" if missing and extra else "missing-plays" if missing else "extra-plays"
        parts = [f"{len(got)} legal plays returned, {len(expected)} expected"]
        if missing:
            parts.append("missing: " + ", ".join(missing))
        if extra:
            parts.append("extra: " + ", ".join(extra))
        return Mismatch(category, "; ".join(parts), missing, extra, expected, result)

    def _chosen_play(self, ex: Question, result: Any, expected: dict) -> Mismatch | None:
        """The one play must be legal; no play only when nothing is (spec/protocol.md)."""
        if not isinstance(result, dict) or "play" not in result:
            raise BadAnswer(f"expected {{'play': play or null}}, got {str(result)[:200]}")
        play = result["play"]
        chosen = ex.position.passed() if play in (None, "", []) else result_position(ex.position, play)
        if chosen in expected:
            return None
        label = "no play" if chosen == ex.position.passed() else _label(ex.position, play, chosen)
        legal = sorted(format_play(ex.position, s) if s else "no play" for s in expected.values())
        shown = ", ".join(legal[:12]) + (f", ... ({len(legal) - 12} more)" if len(legal) > 12 else "")
        category = "passed" if label == "no play" else "played-in-pass" if legal == ["no play"] else "illegal-play"
        return Mismatch(category, f"chose {label}, which is not a legal play; the {len(legal)} legal play(s): {shown}",
                        [], [label], expected, result)

    def _play_check(self, ex: Question, result: Any, expected) -> Mismatch | None:
        if not isinstance(result, dict) or not isinstance(result.get("legal"), bool):
            raise BadAnswer(f"expected {{'legal': bool, 'reason': code}}, got {str(result)[:200]}")
        want = "legal" if expected.legal else f"illegal ({expected.reason})"
        if result["legal"] != expected.legal:
            said = "legal" if result["legal"] else f"illegal ({result.get('reason', 'no reason given')})"
            return Mismatch("says-legal" if result["legal"] else "says-illegal",
                            f"play {ex.play!r}: engine says {said}, expected {want}", expected=expected, got=result)
        if not expected.legal and result.get("reason") is not None and result["reason"] != expected.reason:
            return Mismatch("wrong-reason", f"play {ex.play!r} is illegal as expected, but for reason"
                                            f" {result['reason']!r}, expected {expected.reason!r}",
                            expected=expected, got=result)
        return None

    def _game_result(self, ex: Question, result: Any, expected: dict) -> Mismatch | None:
        if not isinstance(result, dict):
            raise BadAnswer(f"expected a mapping with winner, result, points, got {str(result)[:200]}")
        wrong = [k for k in ("winner", "result", "points") if result.get(k) != expected[k]]
        if not wrong:
            return None
        return Mismatch("wrong-" + "-".join(wrong),
                        "; ".join(f"{k} is {result.get(k)!r}, expected {expected[k]!r}" for k in wrong),
                        expected=expected, got=result)


# -- the two phases -------------------------------------------------------------------
@dataclass
class Finding:
    """A mismatch after shrinking: the minimal example, the engine's reply to it, the
    verdict, how many examples of the search mismatched like it, the shrink's cost."""

    example: Question
    reply: dict
    mismatch: Mismatch
    found_at: int
    similar: int
    shrink_calls: int = 0
    shrink_seconds: float = 0.0
    shrunk: bool = True
    data: bytes = b""


@dataclass
class Campaign:
    """One kind fuzzed against one engine: counts, speed, findings."""

    engine: str
    kind: str
    seed: int
    positions: int = 0
    mismatched: int = 0
    unsupported: int = 0
    search_seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Positions per second in the search (generation, engine, reference, comparison)."""
        return self.positions / self.search_seconds if self.search_seconds else 0.0


_ERRORS: dict[str, type] = {}


class FuzzMismatch(AssertionError):
    """Raised inside the shrinking test; one subclass per mismatch category, so that
    Hypothesis keeps shrinking the same kind of bug."""


def _error(category: str) -> type:
    if category not in _ERRORS:
        _ERRORS[category] = type(f"Mismatch_{category.replace('-', '_')}", (FuzzMismatch,), {})
    return _ERRORS[category]


def _feature(ex: Question) -> str:
    pos = ex.position
    if ex.kind == "game_result":
        return str(ex.match.length > 0 if ex.match else False)
    me = pos.mover
    if me[BAR]:
        return "bar"
    if not any(me[7:25]):
        return "bear-off"
    return "doubles" if ex.dice and ex.dice[0] == ex.dice[1] else "other"


def _quiet(**kw) -> settings:
    return settings(deadline=None, derandomize=False, suppress_health_check=list(HealthCheck),
                    verbosity=Verbosity.quiet, report_multiple_bugs=False, **kw)


@dataclass
class BatchRecord:
    """What one search batch found: its ``number`` in the campaign, ``positions`` asked,
    ``unsupported`` answers, and per group key of mismatch (category and situation), in the
    order of their first example: [key, (bytes, example, reply, mismatch, index) of that first
    example, how many of the batch's examples fell in the group]."""

    number: int
    positions: int = 0
    unsupported: int = 0
    groups: list = field(default_factory=list)


def ask_batch(engine, oracle: Oracle, kind: str, seed: int, number: int, batch_seed: int, n: int,
              batch: int, rule_options: dict | None, variant: str = "standard") -> BatchRecord:
    """Batch ``number`` (``n`` examples of ``variant`` drawn from ``batch_seed``) put to the engine
    in one ``run_batch`` call and judged against the reference."""
    size = example_size(kind)
    # the run's seed goes in too: Hypothesis starts every run with the simplest draw (0)
    blob = random.Random((seed << 64) | batch_seed).randbytes(n * size)
    chunks = [blob[i * size:(i + 1) * size] for i in range(n)]
    exs = [decode_example(kind, c, rule_options, variant) for c in chunks]
    try:
        replies = engine.run_batch([e.request() for e in exs])
    except Exception as exc:  # the adapter itself failed: every request of the batch errored
        replies = [{"errored": f"engine failed: {type(exc).__name__}: {exc}"}] * n
    if len(replies) != n:
        replies = [{"errored": f"engine answered {len(replies)} of {n} requests"}] * n
    record = BatchRecord(number, n)
    where: dict[tuple, list] = {}
    for i, (chunk, ex, reply) in enumerate(zip(chunks, exs, replies)):
        verdict = oracle.judge(ex, reply)
        if verdict == "unsupported":
            record.unsupported += 1
        elif verdict is not None:
            key = (verdict.category, _feature(ex))
            if key in where:
                where[key][2] += 1
            else:
                where[key] = [key, (chunk, ex, reply, verdict, number * batch + i), 1]
                record.groups.append(where[key])
    return record


def fold(camp: Campaign, groups: dict, record: BatchRecord, max_groups: int) -> None:
    """Count one batch into the campaign: positions, unsupported, mismatched; each group of
    mismatch joins ``groups`` (key -> [first, size]) while fewer than ``max_groups`` are known,
    a known one grows. The search stops once ``max_groups`` groups are known."""
    camp.positions += record.positions
    camp.unsupported += record.unsupported
    for key, first, count in record.groups:
        camp.mismatched += count
        if key in groups:
            groups[key][1] += count
        elif len(groups) < max_groups:
            groups[key] = [first, count]


def _batch_count(examples: int, batch: int) -> int:
    return max(1, math.ceil(examples / batch))


def _batches(kind: str, examples: int, seed: int, batch: int, asks: Callable[[int], bool],
             each: Callable[[int, int, int], bool]) -> None:
    """Draw the campaign's batch seeds (64 bits each, from a generator seeded by ``seed`` alone,
    so batch b's seed is the same in every process and every shard) and call
    ``each(number, batch_seed, n)`` for every batch ``asks(number)`` wants, until it returns
    True (stop)."""
    rng = random.Random(f"bgconf-fuzz:{seed}")
    for number in range(_batch_count(examples, batch)):
        batch_seed = rng.getrandbits(64)
        n = min(batch, examples - number * batch)
        if n > 0 and asks(number) and each(number, batch_seed, n):
            return


def search(engine, oracle: Oracle, kind: str, examples: int, seed: int, *, batch: int = 100,
           rule_options: dict | None = None, max_groups: int = 1, progress: Callable[[int], None] | None = None,
           shard: Shard = WHOLE, jobs: int = 1, starter: Callable | None = None,
           given_up: list | None = None, variant: str = "standard") -> tuple[Campaign, list[tuple]]:
    """Phase 1: ``examples`` inputs of ``kind`` in batches; returns the campaign counts
    and, per group of similar mismatches (category and situation; at most
    ``max_groups``; the search stops when that many are found), the first mismatching
    (bytes, example, reply, mismatch, index) and the group's size. With ``shard`` K/N only
    the batches of that shard are asked (batch b when b % N == K - 1): the seeds are
    drawn as in the whole campaign, so the N shards ask exactly its inputs, and an
    index is the input's place in the whole campaign. ``jobs`` > 1 with ``starter`` (a
    ``runner.EngineStarter``): the batches are dealt to that many worker processes, each with
    its own engine (``conformance.harness.jobs``), and folded back in batch order, so the counts
    and groups are the same (a batch whose worker died: one ``errored`` mismatch per input);
    ``given_up`` (a list) gets the worker engines' give-up reasons. Inputs: ``variant``'s positions."""
    camp = Campaign("", kind, seed)
    groups: dict[tuple, list] = {}

    def take(record: BatchRecord) -> bool:
        fold(camp, groups, record, max_groups)
        if progress:
            progress(camp.positions)
        return len(groups) >= max_groups

    t0 = time.perf_counter()
    if jobs > 1 and starter is not None:
        from functools import partial

        from conformance.harness.jobs import Jobs

        numbers = [b for b in range(_batch_count(examples, batch)) if shard.owns(b)]
        run = Jobs(partial(_search_share, starter, kind, examples, seed, batch, rule_options, max_groups, variant), jobs,
                   lambda _k, record: take(record),
                   partial(_lost_batch, numbers, kind, examples, batch, rule_options, variant))
        try:
            run.run(numbers)
        finally:
            if given_up is not None:
                given_up.extend(s["given_up"] for s in run.stats if s.get("given_up"))
    else:
        _batches(kind, examples, seed, batch, shard.owns, lambda number, batch_seed, n: take(
            ask_batch(engine, oracle, kind, seed, number, batch_seed, n, batch, rule_options, variant)))
    camp.search_seconds = time.perf_counter() - t0
    return camp, [(first, count) for first, count in groups.values()]


def _search_share(starter: Callable, kind: str, examples: int, seed: int, batch: int, rule_options: dict | None,
                  max_groups: int, variant: str, share: list[tuple[int, int]], emit, stats: dict) -> None:
    """A worker's part of ``search``: its own engine asks its batches (share: (item, batch
    number) pairs), each sent back as a BatchRecord; it stops once its own batches found
    ``max_groups`` groups (the whole campaign has found them by then too)."""
    from conformance.harness.jobs import close_despite_stop

    engine = starter()
    items = {number: k for k, number in share}
    oracle, camp, groups = Oracle(), Campaign("", kind, seed), {}

    def each(number: int, batch_seed: int, n: int) -> bool:
        record = ask_batch(engine, oracle, kind, seed, number, batch_seed, n, batch, rule_options, variant)
        emit(items[number], record)
        fold(camp, groups, record, max_groups)
        return len(groups) >= max_groups

    try:
        _batches(kind, examples, seed, batch, items.__contains__, each)
    finally:
        close_despite_stop(engine.close)  # the campaign's stop waits until the engine's group is gone
        stats.update(restarts=getattr(engine, "restarts", 0) or 0, given_up=getattr(engine, "given_up", None))


def _lost_batch(numbers: list[int], kind: str, examples: int, batch: int, rule_options: dict | None,
                variant: str, k: int, message: str) -> BatchRecord:
    """The record of batch ``numbers[k]``, whose worker died: every input errored (the simplest stands for them)."""
    number, size = numbers[k], example_size(kind)
    n = min(batch, examples - number * batch)
    first = (bytes(size), decode_example(kind, bytes(size), rule_options, variant), {"errored": message},
             Mismatch("errored", f"engine errored: {message}"), number * batch)
    return BatchRecord(number, n, 0, [[("errored", "worker"), first, n]])


def shrink(engine, oracle: Oracle, kind: str, data: bytes, seed: int,
           rule_options: dict | None = None, variant: str = "standard") -> tuple[bytes, Question, dict, Mismatch, int] | None:
    """Phase 2: let Hypothesis shrink the failing example ``data`` (its bytes). Returns
    (bytes, example, reply, mismatch, test calls) of the minimal failing example, or
    None when the failure does not reproduce (a flaky engine)."""
    size = example_size(kind)
    found: list[tuple] = []
    calls = [0]

    @_quiet(max_examples=1000, database=InMemoryExampleDatabase(), phases=[Phase.reuse, Phase.shrink])
    @hypothesis_seed(seed)
    @given(st.binary(min_size=size, max_size=size))
    def one(blob: bytes) -> None:
        calls[0] += 1
        ex = decode_example(kind, blob, rule_options, variant)
        try:
            reply = engine.run_batch([ex.request()])[0]
        except Exception as exc:
            reply = {"errored": f"engine failed: {type(exc).__name__}: {exc}"}
        verdict = oracle.judge(ex, reply)
        if isinstance(verdict, Mismatch):
            found.append((blob, ex, reply, verdict))
            raise _error(verdict.category)(verdict.message)

    # the settings above @seed keep the database (a bare @seed turns it off)
    try:
        one.hypothesis.fuzz_one_input(data)
    except FuzzMismatch:
        pass
    if not found:
        return None
    try:
        one()
    except (FuzzMismatch, HypothesisException):
        pass
    blob, ex, reply, verdict = found[-1]  # Hypothesis replays the minimal example last
    return blob, ex, reply, verdict, calls[0]


def run_campaign(engine, engine_name: str, kind: str, examples: int, seed: int, *, batch: int = 100,
                 max_mismatches: int = 1, info: dict | None = None, do_shrink: bool = True,
                 progress: Callable[[int], None] | None = None, shard: Shard = WHOLE,
                 jobs: int = 1, starter: Callable | None = None, given_up: list | None = None,
                 variant: str = "standard") -> Campaign:
    """Search (only ``shard``'s batches), then shrink each group of mismatches (at most
    ``max_mismatches``) with ``engine``; the inputs are positions of ``variant`` (spec:
    variant.option). ``jobs`` > 1: the search runs on that many worker processes, each with an
    engine from ``starter`` (``search``; ``given_up`` gets the reasons of their engines that were
    given up); the shrink stays with ``engine``."""
    info = info if info is not None else engine.describe()
    options = info.get("rule_options") or {}
    oracle = Oracle()
    camp, groups = search(engine, oracle, kind, examples, seed, batch=batch, rule_options=options,
                          max_groups=max_mismatches, progress=progress, shard=shard, jobs=jobs, starter=starter,
                          given_up=given_up, variant=variant)
    camp.engine = engine_name
    seen: dict[tuple, Finding] = {}
    for (chunk, ex, reply, verdict, index), count in groups:
        t0 = time.perf_counter()
        got = shrink(engine, oracle, kind, chunk, seed, options, variant) if do_shrink else None
        if got is None:
            finding = Finding(ex, reply, verdict, index, count, shrunk=False, data=chunk)
        else:
            blob, sex, sreply, sverdict, calls = got
            finding = Finding(sex, sreply, sverdict, index, count, calls, time.perf_counter() - t0, data=blob)
        # after shrinking, two groups may turn out to be one bug: same kind of mismatch, same rules
        key = (finding.mismatch.category, tuple(spec_anchors(finding)))
        if key in seen:
            seen[key].similar += finding.similar
            continue
        seen[key] = finding
        camp.findings.append(finding)
    return camp


# -- the regression case ---------------------------------------------------------------
_MUTANT_RULES: dict[str, Any] = {}


def _mutant_rules():
    from conformance.harness.mutants import MUTANTS, mutated_rules

    if not _MUTANT_RULES:
        for m in MUTANTS:
            try:
                _MUTANT_RULES[m.name] = (m, mutated_rules(m))
            except ValueError:
                continue
    return _MUTANT_RULES.values()


def _answer_key(kind: str, answer: Any) -> Any:
    if kind in PLAY_KINDS:
        return frozenset(answer)
    if kind == "play_check":
        return answer.legal
    return (answer["winner"], answer["result"], answer["points"])


def _engine_key(finding: Finding) -> Any:
    ex, result = finding.example, finding.reply.get("result")
    try:
        if ex.kind == "legal_plays":
            got = {result_position(ex.position, p) for p in result["plays"]}
            return frozenset(got or {ex.position.passed()})
        if ex.kind == "play_check":
            return result["legal"]
        if ex.kind == "chosen_play":  # the one play chosen: a mutant "answers as the engine" if it allows it
            play = result["play"]
            return ex.position.passed() if play in (None, "", []) else result_position(ex.position, play)
        return (result.get("winner"), result.get("result"), result.get("points"))
    except (BadAnswer, TypeError, KeyError, AttributeError):
        return None


def spec_anchors(finding: Finding) -> list[str]:
    """The rules behind the mismatch: anchors of the mutants that answer as the engine
    did, then of those that disagree with the reference, then the reference's reason
    (play_check), else a heuristic on the position. Only anchors of spec/rules.md."""
    from conformance.cases import resources

    ex = finding.example
    module = "game" if ex.kind == "game_result" else "movegen"
    reference = _answer_key(ex.kind, finding.mismatch.expected)
    engine_key = _engine_key(finding)
    same, differ = [], []
    for mutant, rules in _mutant_rules():
        if mutant.module != module and not (module == "movegen" and mutant.module == "check"):
            continue
        try:
            answer = _answer_key(ex.kind, Oracle(rules).expected(ex))
        except Exception:
            continue
        if engine_key is not None and (answer == engine_key or (ex.kind == "chosen_play" and engine_key in answer)):
            same.append(mutant.spec)
        elif answer != reference:
            differ.append(mutant.spec)
    anchors = same + situation_anchors(ex) + differ
    if ex.kind == "play_check" and not finding.mismatch.expected.legal:
        anchors.append(REASON_ANCHORS.get(finding.mismatch.expected.reason, "move.same-play"))
    anchors += heuristic_anchors(ex, finding.mismatch.expected)
    known = resources.spec_clauses()
    out: list[str] = []
    for a in anchors:
        if a not in out and (not known or a in known):
            out.append(a)
    return out[:3] or ["move.same-play"]


def case_yaml(finding: Finding, engine_name: str, engine_label: str, seed: int, case_id: str) -> str:
    """A complete case file (``format: 1`` and one case, id ``case_id``) for the finding: the
    reference's answer, the anchors of ``spec_anchors``, the engine's message in the comment
    and the campaign (engine, seed) as provenance. A chosen_play finding is written as a
    legal_plays case (asked as its [chosen-play] form)."""
    ex, m = finding.example, finding.mismatch
    anchors = spec_anchors(finding)
    comment = f"Found by bgconf fuzz and shrunk by Hypothesis: {engine_label} answers differently: {m.message}."
    kind = "legal_plays" if ex.kind == "chosen_play" else ex.kind
    return case_text(replace(ex, kind=kind), case_id, case_title(ex, m.expected),
                     source=f"bgconf fuzz against {engine_name}, seed {seed}", expected=m.expected,
                     anchors=anchors, tags=case_tags(ex, m.expected, anchors), comment=comment,
                     missing=m.missing, extra=m.extra)
