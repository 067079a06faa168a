"""``bgconf fuzz``: differential fuzzing that shrinks a mismatch and writes the regression case.

Generated inputs (``conformance.harness.strategies``) go to the engine and to the reference; when
their answers differ, Hypothesis shrinks the input to a minimal one and bgconf prints the
diff (missing and extra plays in notation) and a complete YAML case, with a fresh id, the
spec anchors of the rule involved and its provenance, ready to paste into a
``*.bgcase.yaml`` file (docs/case-authors.md).

How a campaign runs, in two phases:

1. **Search.** Hypothesis draws one 64-bit seed per batch (``@seed(S)``, ``database=None``,
   generate phase only, so a run is a function of the seed); the seed expands to the bytes
   of ``batch`` examples, each decoded by ``strategies.decode_example``. The batch goes to
   the engine in one ``run_batch`` call (one pipe round trip per request for process
   engines, which stay up), and every answer is checked against the reference. Drawing a
   seed instead of each position keeps Hypothesis's cost per position near zero: a
   Hypothesis draw costs tens of microseconds, a position drawn checker by checker costs
   milliseconds.
2. **Shrink.** A mismatching example's bytes are replayed into a one-example Hypothesis
   test (``fuzz_one_input``, which records the failure in an in-memory example database),
   then that test runs its reuse and shrink phases: Hypothesis shrinks the bytes (hence the
   position: fewer checkers, lower points, lower dice) while the same kind of mismatch
   remains. Each kind of mismatch (missing plays, extra plays, wrong verdict...) is its own
   exception class, so the shrink keeps the bug it started from.

The spec anchors of the case: the mutants of ``conformance.harness.mutants`` (the reference with
one rule broken each) are run on the minimal input; a mutant that answers as the engine
did names the rule the engine breaks, and one that merely disagrees with the reference
names a rule that decides this input. Without either, a heuristic on the position.
"""

from __future__ import annotations

import argparse
import functools
import math
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from hypothesis import HealthCheck, Phase, Verbosity, given, seed as hypothesis_seed, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase
from hypothesis.errors import HypothesisException

from conformance.model import BAR, OFF, Cube, Match, ModelError, Position, effective_rules, format_play, play_to_position
from conformance.harness.shard import WHOLE, Shard
from conformance.harness.strategies import KINDS, Example, decode_example, example_size

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_ENGINE = 0, 1, 2, 4
CAPABILITY = {"legal_plays": "legal-plays", "play_check": "play-check", "game_result": "game-result",
              "chosen_play": "chosen-play"}
#: kinds whose input is a position and a roll, judged on the legal set
_PLAY_KINDS = ("legal_plays", "chosen_play")
#: the reason code of an illegal play -> the rule it breaks
REASON_ANCHORS = {
    "wrong-dice": "move.separate-dice", "no-checker": "move.direction", "bar-first": "bar.enter-first",
    "blocked-point": "move.open-point", "bear-off-not-allowed": "bearoff.all-home",
    "bear-off-higher-checker": "bearoff.higher-die", "must-use-larger-die": "move.larger-die",
    "must-use-more-dice": "move.maximum-dice",
}
#: the reason code of a refused cube action -> the rule behind it
CUBE_REASON_ANCHORS = {
    "cube-disabled": "cube.start", "wrong-moment": "cube.when", "not-your-turn": "cube.when",
    "crawford-game": "cube.crawford", "not-cube-owner": "cube.ownership", "max-cube": "cube.max",
    "money-play-only": "match.money-options", "option-off": "cube.beaver",
}
#: largest legal set written out in full as ``expect: {plays: [...]}``
MAX_LISTED_PLAYS = 40


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

    def expected(self, ex: Example) -> Any:
        """legal_plays and chosen_play: {resulting position: steps}; play_check: Verdict;
        game_result: dict."""
        if ex.kind in _PLAY_KINDS:
            return self.rules.legal_plays(ex.position, ex.dice)
        if ex.kind == "play_check":
            return self.rules.play_check(ex.position, ex.dice, ex.steps)
        return self.rules.game_result(ex.position, ex.cube or Cube(), ex.match or Match(),
                                      effective_rules(ex.rules))

    def judge(self, ex: Example, reply: dict) -> Mismatch | None | str:
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

    def _legal_plays(self, ex: Example, result: Any, expected: dict) -> Mismatch | None:
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

    def _chosen_play(self, ex: Example, result: Any, expected: dict) -> Mismatch | None:
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

    def _play_check(self, ex: Example, result: Any, expected) -> Mismatch | None:
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

    def _game_result(self, ex: Example, result: Any, expected: dict) -> Mismatch | None:
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

    example: Example
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


def _feature(ex: Example) -> str:
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


def search(engine, oracle: Oracle, kind: str, examples: int, seed: int, *, batch: int = 100,
           rule_options: dict | None = None, max_groups: int = 1,
           progress: Callable[[int], None] | None = None, shard: Shard = WHOLE) -> tuple[Campaign, list[tuple]]:
    """Phase 1: ``examples`` inputs of ``kind`` in batches; returns the campaign counts
    and, per group of similar mismatches (category and situation; at most
    ``max_groups``; the search stops when that many are found), the first mismatching
    (bytes, example, reply, mismatch, index) and the group's size. With ``shard`` K/N only
    the batches of that shard are asked (batch b when b % N == K - 1): the seeds are
    drawn as in the whole campaign, so the N shards ask exactly its inputs, and an
    index is the input's place in the whole campaign."""
    camp = Campaign("", kind, seed)
    size = example_size(kind)
    groups: dict[tuple, list] = {}
    drawn = [0]

    @_quiet(max_examples=max(1, math.ceil(examples / batch)), database=None, phases=[Phase.generate])
    @hypothesis_seed(seed)
    @given(st.integers(0, 2 ** 64 - 1))
    def batches(batch_seed: int) -> None:
        number = drawn[0]
        drawn[0] += 1
        n = min(batch, examples - number * batch)
        if n <= 0 or len(groups) >= max_groups or not shard.owns(number):
            return
        # the run's seed goes in too: Hypothesis starts every run with the simplest draw (0)
        blob = random.Random((seed << 64) | batch_seed).randbytes(n * size)
        chunks = [blob[i * size:(i + 1) * size] for i in range(n)]
        exs = [decode_example(kind, c, rule_options) for c in chunks]
        try:
            replies = engine.run_batch([e.request() for e in exs])
        except Exception as exc:  # the adapter itself failed: every request of the batch errored
            replies = [{"errored": f"engine failed: {type(exc).__name__}: {exc}"}] * n
        if len(replies) != n:
            replies = [{"errored": f"engine answered {len(replies)} of {n} requests"}] * n
        for i, (chunk, ex, reply) in enumerate(zip(chunks, exs, replies)):
            verdict = oracle.judge(ex, reply)
            if verdict == "unsupported":
                camp.unsupported += 1
            elif verdict is not None:
                camp.mismatched += 1
                key = (verdict.category, _feature(ex))
                if key in groups:
                    groups[key][1] += 1
                elif len(groups) < max_groups:
                    groups[key] = [(chunk, ex, reply, verdict, number * batch + i), 1]
        camp.positions += n
        if progress:
            progress(camp.positions)

    t0 = time.perf_counter()
    batches()
    camp.search_seconds = time.perf_counter() - t0
    return camp, [(first, count) for first, count in groups.values()]


def shrink(engine, oracle: Oracle, kind: str, data: bytes, seed: int,
           rule_options: dict | None = None) -> tuple[bytes, Example, dict, Mismatch, int] | None:
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
        ex = decode_example(kind, blob, rule_options)
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
                 progress: Callable[[int], None] | None = None, shard: Shard = WHOLE) -> Campaign:
    """Search (only ``shard``'s batches), then shrink each group of mismatches (at most
    ``max_mismatches``)."""
    info = info if info is not None else engine.describe()
    options = info.get("rule_options") or {}
    oracle = Oracle()
    camp, groups = search(engine, oracle, kind, examples, seed, batch=batch, rule_options=options,
                          max_groups=max_mismatches, progress=progress, shard=shard)
    camp.engine = engine_name
    seen: dict[tuple, Finding] = {}
    for (chunk, ex, reply, verdict, index), count in groups:
        t0 = time.perf_counter()
        got = shrink(engine, oracle, kind, chunk, seed, options) if do_shrink else None
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
    if kind in _PLAY_KINDS:
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
    anchors = same + _specific_anchors(finding) + differ
    if ex.kind == "play_check" and not finding.mismatch.expected.legal:
        anchors.append(REASON_ANCHORS.get(finding.mismatch.expected.reason, "move.same-play"))
    anchors += _heuristic_anchors(finding)
    known = resources.spec_clauses()
    out: list[str] = []
    for a in anchors:
        if a not in out and (not known or a in known):
            out.append(a)
    return out[:3] or ["move.same-play"]


def _specific_anchors(finding: Finding) -> list[str]:
    """Rules no mutant breaks that the situation points at: a play that bears off the
    last checker (spec: bearoff.last-checker)."""
    ex = finding.example
    if ex.kind == "game_result":
        return []
    plays = Oracle().expected(Example("legal_plays", ex.position, ex.dice))
    if any(p.side(ex.position.on_roll)[OFF] == 15 for p in plays):
        return ["bearoff.last-checker"]
    return []


def _heuristic_anchors(finding: Finding) -> list[str]:
    ex = finding.example
    if ex.kind == "game_result":
        exp = finding.mismatch.expected
        out = [f"score.{exp['result']}"]
        if ex.rules.get("jacoby") and (ex.match is None or ex.match.money):
            out.insert(0, "cube.jacoby")
        if exp["result"] == "backgammon" and ex.rules.get("backgammon_multiplier", 3) != 3:
            out.insert(0, "score.backgammon-multiplier")
        return out
    me = ex.position.mover
    out = []
    if me[BAR]:
        out.append("bar.enter-first")
    elif not any(me[7:25]):
        out.append("bearoff.all-home")
    if ex.dice[0] == ex.dice[1]:
        out.append("move.doubles")
    out.append("move.maximum-dice")
    return out


def _contact(pos: Position) -> bool:
    me, opp = pos.mover, pos.opponent
    back = max([p for p in range(1, 26) if me[p]], default=0)
    their_back = max([p for p in range(1, 26) if opp[p]], default=0)
    return back + their_back > 25


def _tags(finding: Finding, anchors: list[str]) -> list[str]:
    from conformance.cases import resources

    ex, exp = finding.example, finding.mismatch.expected
    tags: list[str] = []
    if ex.kind == "game_result":
        tags += [exp["result"]] if exp["result"] != "single" else []
        tags += ["cube"] if ex.cube and ex.cube.value > 1 else []
        tags += ["jacoby"] if ex.rules.get("jacoby") else []
        tags += ["match-play"] if ex.match and ex.match.length else ["money"]
        tags += ["crawford"] if ex.match and (ex.match.crawford or ex.match.post_crawford) else []
    else:
        pos, me, opp = ex.position, ex.position.mover, ex.position.opponent
        if me[BAR]:
            tags.append("bar")
            if sum(opp[p] >= 2 for p in range(1, 7)) >= 5:
                tags.append("closed-board")
        if not me[BAR] and not any(me[7:25]):
            tags.append("bear-off")
            if sum(me[1:]) == 1:
                tags.append("last-checker")
        if ex.dice[0] == ex.dice[1]:
            tags.append("doubles")
        if any(all(opp[q] >= 2 for q in range(s, s + 4)) for s in range(1, 22)):
            tags.append("prime")
        if not _contact(pos):
            tags.append("race")
        plays = Oracle().expected(Example("legal_plays", pos, ex.dice))
        if list(plays.values()) == [()]:
            tags.append("pass")
        if any(p.side(_other(pos.on_roll))[BAR] > opp[BAR] for p in plays):
            tags.append("hit")
        if "move.larger-die" in anchors:
            tags.append("larger-die")
        if "move.open-point" in anchors:
            tags.append("blocked")
        if ex.kind == "play_check" and not exp.legal:
            tags.append("illegal")
    registered = resources.registered_tags()
    return [t for t in dict.fromkeys(tags) if not registered or t in registered]


def _other(side: str) -> str:
    return "o" if side == "x" else "x"


def _side_yaml(side: tuple[int, ...], with_off: bool) -> str:
    points = ", ".join(f"{p}: {side[p]}" for p in range(24, 0, -1) if side[p])
    out = f"points: {{{points}}}"
    if side[BAR]:
        out += f", bar: {side[BAR]}"
    if with_off and side[OFF]:
        out += f", off: {side[OFF]}"
    return "{" + out + "}"


def position_yaml(pos: Position, with_off: bool = False) -> str:
    """The board form in YAML flow style, as the bundled cases write it."""
    return (f"{{on_roll: {pos.on_roll}, x: {_side_yaml(pos.x, with_off)},"
            f" o: {_side_yaml(pos.o, with_off)}}}")


def _q(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


def _flow(values: list) -> str:
    return "[" + ", ".join(_q(v) if isinstance(v, str) else str(v) for v in values) + "]"


def _describe(ex: Example) -> str:
    me, opp = ex.position.mover, ex.position.opponent
    if me[BAR]:
        made = sum(opp[p] >= 2 for p in range(1, 7))
        return f"{me[BAR]} on the bar against a {made}-point board"
    if not any(me[7:25]):
        n = sum(me[1:])
        return "the last checker home" if n == 1 else f"bearing off {n} checkers"
    outside = sum(me[7:25])
    text = f"{outside} checker{'s' if outside != 1 else ''} outside home"
    return text if _contact(ex.position) else text + ", no contact"


@functools.lru_cache(maxsize=None)
def _suite_ids() -> frozenset[str]:
    """Every id written in the bundled case files (a text scan: faster than loading
    them, and an id named only in a comment counts as used too) and every retired id."""
    import re

    from conformance.cases import resources
    from conformance.cases import case_files

    found: set[str] = set(resources.retired_ids())
    for path in case_files():
        found.update(re.findall(r"\bbg-[2-9A-HJ-NP-Z]{4}\b", path.read_text(encoding="utf-8")))
    return frozenset(found)


def fresh_ids(count: int, salt: str, taken: set[str] | None = None) -> list[str]:
    """``count`` case ids (``bgconf new-id``'s alphabet) used by no bundled case, no
    retired id and nothing in ``taken``; the same for the same ``salt``."""
    from conformance.cases import ID_ALPHABET

    used = set(_suite_ids()) | set(taken or ())
    rng = random.Random(f"bgconf-fuzz:{salt}")
    out: list[str] = []
    while len(out) < count:
        cid = "bg-" + "".join(rng.choice(ID_ALPHABET) for _ in range(4))
        if cid not in used:
            used.add(cid)
            out.append(cid)
    return out


def case_yaml(finding: Finding, engine_name: str, engine_label: str, seed: int, case_id: str) -> str:
    """A complete case file (``format: 1`` and one case) for the finding."""
    ex, m = finding.example, finding.mismatch
    anchors = spec_anchors(finding)
    comment = f"Found by bgconf fuzz and shrunk by Hypothesis: {engine_label} answers differently: {m.message}."
    # a chosen play is judged on a legal_plays case (asked as its [chosen-play] form)
    kind = "legal_plays" if ex.kind == "chosen_play" else ex.kind
    return case_text(kind, case_id, _title(ex, m.expected), source=f"bgconf fuzz against {engine_name}, seed {seed}",
                     position=ex.position, dice=ex.dice, play=ex.play, cube=ex.cube, match=ex.match, rules=ex.rules,
                     expected=m.expected, anchors=anchors, tags=_tags(finding, anchors), comment=comment,
                     missing=m.missing, extra=m.extra)


def _title(ex: Example, expected: Any) -> str:
    roll = f"{ex.dice[0]}-{ex.dice[1]}" if ex.dice else ""
    if ex.kind in _PLAY_KINDS:
        n = sum(1 for s in expected.values() if s)
        return (f"{ex.position.on_roll} to play {roll} with {_describe(ex)}: "
                f"{'no legal play' if not n else f'{n} legal play' + ('s' if n != 1 else '')}")
    if ex.kind == "play_check":
        return (f"{ex.play} with {roll} is " + ("legal" if expected.legal else f"illegal ({expected.reason})")
                + f", {_describe(ex)}")
    e = expected
    return (f"{e['winner']} wins a {e['result']} worth {e['points']} point{'s' if e['points'] != 1 else ''}"
            f" (cube {ex.cube.value}, {'money' if ex.match.money else f'match to {ex.match.length}'})")


def case_anchors_and_tags(ex: Example, expected: Any) -> tuple[list[str], list[str]]:
    """Spec anchors and tags for a case of ``ex`` with the reference's ``expected`` answer, from
    the situation alone (no mutant run): the rules the position points at, the reason of an
    illegal play."""
    from conformance.cases import resources

    finding = Finding(ex, {}, Mismatch("", "", expected=expected), 0, 0)
    anchors = []
    if ex.kind == "play_check" and not expected.legal:
        anchors.append(REASON_ANCHORS.get(expected.reason, "move.same-play"))
    anchors += _specific_anchors(finding) + _heuristic_anchors(finding)
    known = resources.spec_clauses()
    anchors = [a for a in dict.fromkeys(anchors) if not known or a in known][:3] or ["move.same-play"]
    return anchors, _tags(finding, anchors)


def case_text(kind: str, case_id: str, title: str, *, source: str, expected: Any, comment: str,
              position: Position | None = None, dice=None, play: str | None = None, cube: Cube | None = None,
              match: Match | None = None, rules: dict | None = None, anchors: list[str] | None = None,
              tags: list[str] | None = None, on_roll: str | None = None, moment: str | None = None,
              action: dict | None = None, missing=(), extra=()) -> str:
    """A complete case file (``format: 1`` and one case) of ``kind`` with the reference's
    ``expected`` answer: legal_plays ({position: steps}), play_check (a Verdict), game_result
    and cube_action (the reference's dict). Anchors and tags default to those of the situation
    (``case_anchors_and_tags``). The one writer of printed cases (fuzz, replay)."""
    if anchors is None and kind != "cube_action":
        anchors, tags = case_anchors_and_tags(
            Example(kind, position, tuple(dice) if dice else None, play, None, cube, match, rules or {}), expected)
    elif anchors is None:
        anchors, tags = _cube_anchors(action, expected), ["cube"]
    lines = ["format: 1", "cases:", f"  - id: {case_id}"]
    lines += [f"    title: {_q(title[:120])}", f"    kind: {kind}", f"    spec: [{', '.join(anchors)}]"]
    if tags:
        lines.append(f"    tags: [{', '.join(tags)}]")
    if rules:
        lines.append("    rules: {" + ", ".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}"
                                               for k, v in rules.items()) + "}")
    if position is not None:
        lines.append(f"    position: {position_yaml(position, with_off=kind == 'game_result')}")
    if dice:
        lines.append(f"    dice: [{dice[0]}, {dice[1]}]")
    if kind == "legal_plays":
        plays = sorted(format_play(position, s) for s in expected.values() if s)
        if len(plays) <= MAX_LISTED_PLAYS:
            lines += ["    expect:", f"      plays: {_flow(plays)}"]
        else:
            lines += ["    expect:", f"      count: {len(expected)}"]
            if missing:
                lines.append(f"      includes: {_flow(list(missing))}")
            shown = [e for e in extra if not e.startswith("position ")]
            if shown:
                lines.append(f"      excludes: {_flow(shown)}")
    elif kind == "play_check":
        lines.append(f"    play: {_q(play)}")
        v = expected
        lines.append("    expect: {legal: true}" if v.legal else f"    expect: {{legal: false, reason: {v.reason}}}")
    else:
        if kind == "cube_action":
            lines += [f"    on_roll: {on_roll}", f"    moment: {moment}"]
        c, mt = cube or Cube(), match or Match()
        lines.append(f"    cube: {{value: {c.value}, owner: {c.owner}}}")
        if not mt.money:
            flags = "".join(f", {k}: true" for k in ("crawford", "post_crawford") if getattr(mt, k))
            score = f"{{x: {mt.score['x']}, o: {mt.score['o']}}}"
            lines.append(f"    match: {{length: {mt.length}, score: {score}{flags}}}")
        e = expected
        if kind == "cube_action":
            lines.append(f"    action: {{by: {action['by']}, type: {action['type']}}}")
            lines.append(f"    expect: {_flow_map(e)}")
        else:
            lines.append(f"    expect: {{winner: {e['winner']}, result: {e['result']}, points: {e['points']}}}")
    lines.append(f"    comment: {_q(comment)}")
    lines.append(f"    provenance: {{source: {_q(source)}, verified_by: [reference]}}")
    return "\n".join(lines) + "\n"


def _flow_map(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow_map(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _cube_anchors(action: dict, expected: dict) -> list[str]:
    if not expected.get("allowed"):
        return [CUBE_REASON_ANCHORS.get(expected.get("reason"), "cube.when")]
    return {"double": ["cube.when", "cube.ownership"], "take": ["cube.take"],
            "drop": ["cube.drop", "score.drop"]}.get(action["type"], ["cube.when"])


def check_case(text: str, engine_reply: dict, kind: str = "") -> tuple[list[str], str, str]:
    """Load the printed case with ``conformance.cases.load_file``; return (load errors,
    status on the reference, status of the engine's reply; for ``kind`` chosen_play, of the
    reply to the case's chosen-play form)."""
    from conformance.engines.adapters.reference import ReferenceEngine
    from conformance.cases import load_file
    from conformance.harness.compare import compare

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.bgcase.yaml"
        path.write_text(text, encoding="utf-8")
        cases, errors = load_file(path, display="fuzz.bgcase.yaml")
    if errors or not cases:
        return [str(e) for e in errors] or ["no case loaded"], "", ""
    case = cases[0]
    asked = case
    if kind == "chosen_play":
        from conformance.harness.runner import chosen_play_case

        asked = chosen_play_case(case)
    return [], compare(case, ReferenceEngine().run(case.request())).status, compare(asked, engine_reply).status


def finding_text(finding: Finding, number: int, camp: Campaign, engine_label: str, case_id: str) -> str:
    """The diff, the board and the YAML case of one finding."""
    from conformance.cases import resources
    from conformance.harness.diagram import board_diagram

    ex, m = finding.example, finding.mismatch
    how = (f"shrunk in {finding.shrink_calls} calls ({finding.shrink_seconds:.1f} s)" if finding.shrunk
           else "not shrunk (the mismatch did not reproduce)")
    lines = [f"MISMATCH {number} {ex.kind} ({m.category}): first at example {finding.found_at + 1},"
             f" {finding.similar} similar; {how}"]
    lines.append(board_diagram(ex.position, ex.dice))
    if ex.kind == "game_result":
        lines.append(f"  cube: {ex.cube.to_dict()}  match: {ex.match.to_dict()}  rules: {ex.rules or 'defaults'}")
    if ex.play is not None:
        lines.append(f"  play: {ex.play}")
    lines.append(f"  {engine_label}: {m.message}")
    if m.missing:
        lines.append("  missing plays (legal, not returned): " + ", ".join(m.missing))
    if m.extra:
        lines.append("  extra plays (returned, not legal):   " + ", ".join(m.extra))
    if ex.kind not in _PLAY_KINDS and m.got is not None:
        lines.append(f"  engine answered: {m.got}")
    text = case_yaml(finding, camp.engine, engine_label, camp.seed, case_id)
    clauses = resources.spec_clauses()
    for anchor in spec_anchors(finding):
        lines.append(f"  spec {anchor}: {clauses.get(anchor, '')}".rstrip())
    errors, on_reference, on_engine = check_case(text, finding.reply, ex.kind)
    lines.append("  regression case (paste into a *.bgcase.yaml file):")
    lines.append("---")
    lines.append(text.rstrip("\n"))
    lines.append("---")
    if errors:
        lines.append("  WARNING: the case does not load: " + "; ".join(errors))
    else:
        lines.append(f"  checked: the case loads (conformance.cases.load_file); on the reference it is {on_reference},"
                     f" on {camp.engine} {on_engine}")
    return "\n".join(lines)


def campaign_report(camp: Campaign, engine_label: str, salt: str = "") -> str:
    """Every finding of a campaign, then the summary line."""
    # an id follows from the finding (its bytes): the same finding gets the same id, another one another id
    ids: list[str] = []
    for f in camp.findings:
        ids += fresh_ids(1, f"{salt}{camp.engine}:{camp.kind}:{f.data.hex()}", taken=set(ids))
    parts = [finding_text(f, i + 1, camp, engine_label, cid)
             for i, (f, cid) in enumerate(zip(camp.findings, ids))]
    parts.append(summary(camp))
    return "\n\n".join(parts)


def summary(camp: Campaign) -> str:
    s = (f"fuzz {camp.kind} against {camp.engine}, seed {camp.seed}: {camp.positions} positions in"
         f" {camp.search_seconds:.2f} s ({camp.rate:,.0f} positions/s); ")
    s += f"{camp.mismatched} mismatched" if camp.mismatched else "no mismatch"
    if camp.unsupported:
        s += f", {camp.unsupported} unsupported"
    if camp.findings:
        s += f" ({len(camp.findings)} shown, minimal after shrinking)"
    return s


# -- the command ------------------------------------------------------------------------
def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "fuzz", help="differential fuzzing against the reference; prints a minimal regression case",
        description="Generate valid inputs with Hypothesis, ask the engine and the reference, and on a mismatch"
                    " shrink it to a minimal input and print the diff and a complete YAML case (fresh id, spec"
                    " anchors, provenance) ready to paste into a *.bgcase.yaml file. Deterministic for a seed.",
        epilog="exit codes:\n  0  no mismatch\n  1  at least one mismatch (each printed with its case), or the"
               " engine was given up\n"
               "  2  bad command line, or the engine supports none of the kinds asked for\n"
               "  4  the engine is unknown, not installed or could not be started\n"
               "  130, 143  interrupted by SIGINT, SIGTERM\n\nexamples:\n"
               "  bgconf fuzz --engine gnubg --examples 2000 --seed 1\n"
               "  bgconf fuzz --engine reference --examples 5000 --kind all",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    from conformance.commands.common import add_engine_options, positive_int, shard

    p.add_argument("--engine", required=True, help="reference, gnubg, cmd:COMMAND, python:module:factory, ...")
    p.add_argument("--examples", type=positive_int, default=1000, metavar="N", help="inputs per kind (default 1000)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the run is a function of the seed (default 0)")
    p.add_argument("--kind", action="append", choices=list(KINDS) + ["all"],
                   help="what to fuzz (repeatable; default legal_plays; all = every kind the engine declares)")
    p.add_argument("--batch", type=positive_int, default=100, metavar="B",
                   help="inputs per engine batch (default 100)")
    p.add_argument("--max-mismatches", type=positive_int, default=1, metavar="M",
                   help="search on until M different kinds of mismatch are found, and shrink each (default 1:"
                        " stop at the first)")
    p.add_argument("--no-shrink", action="store_true", help="report mismatches as found, without shrinking")
    p.add_argument("--shard", type=shard, default=WHOLE, metavar="K/N",
                   help="search only shard K of N of the campaign's batches (every N-th batch from the K-th; the"
                        " N shards of one --seed and --examples ask exactly the inputs of the whole campaign)")
    add_engine_options(p)
    p.set_defaults(func=cmd_fuzz)


def cmd_fuzz(args) -> int:
    from conformance.commands.common import EXIT_SIGNAL, CommandExit, err, interruptible, open_engine, signal_name

    try:
        engine, info = open_engine(args.engine, args.timeout, args.max_restarts)
    except CommandExit as stop:
        return stop.code
    caps = set(info.get("capabilities", []))
    asked = args.kind or ["legal_plays"]
    kinds = list(KINDS) if "all" in asked else list(dict.fromkeys(asked))
    chosen = [k for k in kinds if CAPABILITY[k] in caps]
    for k in kinds:
        if k not in chosen:
            err(f"skipped {k}: engine {args.engine!r} does not declare {CAPABILITY[k]}")
    label = f"{args.engine} ({info.get('name', args.engine)} {info.get('version', '')})".replace(" )", ")")
    if not chosen:
        engine.close()
        return EXIT_USAGE
    found = False
    try:
        with interruptible():
            for kind in chosen:
                print(f"bgconf fuzz: {label}, {kind}, seed {args.seed}, {args.examples} examples in batches of"
                      f" {args.batch}" + (f", shard {args.shard}" if args.shard.n > 1 else ""), flush=True)
                camp = run_campaign(engine, args.engine, kind, args.examples, args.seed, batch=args.batch,
                                    max_mismatches=args.max_mismatches, info=info, do_shrink=not args.no_shrink,
                                    shard=args.shard)
                given_up = getattr(engine, "given_up", None)
                if given_up:  # what it found after that is the give-up, not a rule bug
                    err(f"{given_up}; the fuzz run is incomplete")
                    return EXIT_FAILED
                print(campaign_report(camp, label), flush=True)
                found = found or bool(camp.findings)
    except KeyboardInterrupt as exc:
        name = signal_name(exc)
        err(f"interrupted by {name}; the mismatches printed above stand")
        return EXIT_SIGNAL[name]
    finally:
        engine.close()
    return EXIT_FAILED if found else EXIT_OK
