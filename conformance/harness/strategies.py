"""Hypothesis strategies for valid positions, rolls, plays and finished games.

Public strategies (spec: board.checkers; every value is valid by construction):

- ``positions(on_roll=None, scenario=None)``: positions with both sides still in
  the game, biased towards where engines go wrong (see ``SCENARIOS``): checkers on
  the bar against strong boards, bear-offs (with a checker just outside), near
  primes, last checkers, blots on intermediate points, and crowded boards where
  only one die can be played.
- ``rolls()`` and ``dice()``: two dice 1..6, in either order.
- ``finished_positions()``: a game just ended (one side has borne off 15), biased
  to the single / gammon / backgammon boundaries (spec: score.*).
- ``cubes()``, ``matches()``, ``rule_dicts(rule_options)``: the state beside the
  board, restricted to the rule option values an engine declares.
- ``examples(kind, rule_options=None)``: whole fuzzing inputs (a ``Question`` of
  ``conformance.harness.questions``) for ``legal_plays``, ``chosen_play``,
  ``play_check`` (a candidate play, legal or not) and ``game_result``;
  ``Question.request()`` is the engine request.

How they are built, and why: each value is *decoded* from a fixed number of bytes
(``decode_position``, ``decode_example``) that Hypothesis draws in one go. One
draw per value keeps generation cheap (a Hypothesis draw costs tens of
microseconds, and a position drawn checker by checker costs milliseconds), and the
byte layout is chosen so that Hypothesis's shrinking (zeroing and lowering bytes)
means simpler inputs: a zero count removes a stack of checkers, a lower stack
count drops stacks, lower slot bytes move checkers to lower points, lower dice
bytes give lower dice, and scenario 0 is the plain one. ``bgconf fuzz`` decodes
the same layout from bytes it expands from one seed per batch (drawn from the run's seed),
and hands a failing example's bytes back to Hypothesis to shrink.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from hypothesis import strategies as st

from conformance.model import (
    BAR, CHECKERS, OFF, VARIANT_CHECKERS, Cube, Match, Position, RULE_DEFAULTS, dice_moves, play_text,
    written_moves,
)
from conformance.harness.questions import FUZZ_KINDS, Question
from reference_impl.movegen import do_step

__all__ = [
    "SCENARIOS", "KINDS", "MOVE_BYTES", "GAME_BYTES", "decode_position", "decode_example",
    "example_size", "positions", "dice", "rolls", "finished_positions", "cubes", "matches", "rule_dicts",
    "examples", "example_bytes",
]

#: the kinds drawn (defined where no hypothesis import is needed: conformance.harness.questions)
KINDS = FUZZ_KINDS


# -- byte tables ------------------------------------------------------------------
def _table(weights: dict[int, int]) -> tuple[int, ...]:
    """256 entries mapping a byte to a value, each value's share proportional to
    its weight, values in increasing order (a lower byte is a lower value)."""
    items = sorted((v, w) for v, w in weights.items() if w > 0)
    total = sum(w for _, w in items)
    out = []
    for b in range(256):
        x, acc = (b + 0.5) * total / 256, 0
        for value, w in items:
            acc += w
            if x < acc:
                break
        out.append(value)
    return tuple(out)


def _slots(**ranges: int) -> dict[int, int]:
    """Weights for slots 1..25 from keyword ranges: ``home=5`` (1..6), ``outer=1``
    (7..12), ``far=1`` (13..18), ``back=1`` (19..24), ``bar=3``, or ``p7=2``."""
    spans = {"home": range(1, 7), "outer": range(7, 13), "far": range(13, 19), "back": range(19, 25),
             "bar": range(25, 26)}
    out: dict[int, int] = {}
    for name, w in ranges.items():
        span = spans.get(name) or range(int(name[1:]), int(name[1:]) + 1)
        for p in span:
            out[p] = out.get(p, 0) + w
    return out


@dataclass(frozen=True)
class _Role:
    """How one side's checkers are laid out: slot and count tables, at most
    ``stacks`` stacks, and for the opponent optionally a prime first."""

    slots: tuple[int, ...]
    counts: tuple[int, ...]
    stacks: int = 8
    prime: bool = False


def _role(slots: dict[int, int], counts: dict[int, int], stacks: int = 8, prime: bool = False) -> _Role:
    return _Role(_table(slots), (0,) + _table(counts)[:255], stacks, prime)


_ANY = _slots(home=4, outer=4, far=4, back=4, bar=2)
_OPEN = _role(_ANY, {1: 4, 2: 4, 3: 2, 4: 1, 5: 1})

#: name -> (weight, mover's layout, opponent's layout; each side in its own numbering)
SCENARIOS: dict[str, tuple[int, _Role, _Role]] = {
    # plain: anything anywhere (scenario 0: what shrinking falls back to)
    "open": (5, _OPEN, _OPEN),
    # checkers on the bar against a strong or closed home board (spec: bar.*)
    "bar-vs-board": (4, _role(_slots(bar=24, home=1, outer=1, far=1, back=1), {1: 5, 2: 3, 3: 1}, 5),
                     _role(_slots(home=12, outer=1, far=1, back=1), {2: 6, 3: 3, 1: 1, 4: 1})),
    # bearing off, sometimes with a checker still just outside (spec: bearoff.*)
    "bear-off": (4, _role(_slots(home=12, p7=2, p8=1, p9=1), {1: 4, 2: 4, 3: 3, 4: 2, 5: 1}),
                 _role(_slots(back=4, far=1, outer=1, home=1, bar=2), {1: 5, 2: 3, 3: 1}, 5)),
    # a prime of 3..6 points in front of the mover's checkers (spec: move.open-point)
    "near-prime": (3, _role(_slots(back=4, far=3, outer=1, home=1, bar=3), {1: 4, 2: 3, 3: 1}, 5),
                   _role(_ANY, {1: 3, 2: 3, 3: 1}, 4, prime=True)),
    # the last few checkers: a race to the end or the last checker to bear off
    "last-checkers": (3, _role(_slots(home=8, outer=2, far=1, back=1, bar=1), {1: 6, 2: 2}, 2), _OPEN),
    # opposing blots on the points the mover passes over (spec: hit.*)
    "blots": (3, _OPEN, _role(_slots(home=1, outer=4, far=4, back=2, bar=1), {1: 8, 2: 2})),
    # a crowded board against one or two checkers: often one die only (spec: move.larger-die)
    "one-die": (3, _role(_ANY, {1: 1}, 2),
                _role(_slots(home=2, outer=3, far=3, back=2), {2: 8, 3: 2})),
}
_SCENARIO_NAMES = tuple(SCENARIOS)
_SCENARIO_TABLE = _table({i: SCENARIOS[n][0] for i, n in enumerate(_SCENARIO_NAMES)})
_PRIME_START = _table({p: 1 for p in range(1, 20)})
_PRIME_LENGTH = _table({3: 1, 4: 2, 5: 3, 6: 3})

#: bytes a movement example reads: 4 header + 2 sides x (1 + 8 stacks x 2) + 6 for a candidate play
_SIDE_BYTES = 1 + 8 * 2
POSITION_BYTES = 4 + 2 * _SIDE_BYTES
MOVE_BYTES = POSITION_BYTES + 6


def _die(b: int) -> int:
    return 1 + b % 6


def _place(board: list[int], role: _Role, data: bytes, other: list[int] | None, checkers: int = CHECKERS) -> None:
    """Add a side's stacks from ``data`` (1 stack-count byte, then slot/count pairs)
    to ``board``; ``other`` is the opposing side (own numbering): a stack on one of
    its points is not placed. At most ``checkers`` (15, or hypergammon's N) in all."""
    n = 1 + data[0] % role.stacks
    pairs = [(data[1 + 2 * i], data[2 + 2 * i]) for i in range(n)]
    total = 0

    def add(slot: int, count: int) -> int:
        if count <= 0 or (slot != BAR and other is not None and other[25 - slot]):
            return 0
        count = min(count, checkers - total)
        board[slot] += count
        return count

    if role.prime and pairs:
        s, c = pairs.pop(0)
        if c:
            first = _PRIME_START[s]
            for p in range(first, min(first + _PRIME_LENGTH[c - 1], 25)):
                total += add(p, 2)
    for s, c in pairs:
        total += add(role.slots[s], role.counts[c])


def _fallback(board: list[int], other: list[int] | None) -> None:
    """A side left with no checker in play gets one on its lowest free point."""
    if sum(board[1:]):
        return
    for p in range(1, 25):
        if other is None or not other[25 - p]:
            board[p] = 1
            return


def decode_position(data: bytes, on_roll: str | None = None, checkers: int = CHECKERS) -> tuple[Position, str]:
    """The position (both sides in the game, ``checkers`` a side: 15, or N in hypergammon-N,
    spec: variant.checkers) and scenario name that ``data`` (at least POSITION_BYTES bytes;
    missing bytes count as zero) describes."""
    data = bytes(data[:POSITION_BYTES]).ljust(POSITION_BYTES, b"\0")
    mover_name = on_roll or ("x" if data[0] < 128 else "o")
    scenario = _SCENARIO_NAMES[_SCENARIO_TABLE[data[3]]]
    _w, mover_role, opp_role = SCENARIOS[scenario]
    mover = [0] * 26
    opp = [0] * 26
    _place(mover, mover_role, data[4:4 + _SIDE_BYTES], None, checkers)
    _fallback(mover, None)
    _place(opp, opp_role, data[4 + _SIDE_BYTES:4 + 2 * _SIDE_BYTES], mover, checkers)
    _fallback(opp, mover)
    mover[OFF] = checkers - sum(mover[1:])
    opp[OFF] = checkers - sum(opp[1:])
    # valid by construction (``checkers`` per side, no shared point): no need to check again
    if mover_name == "x":
        return Position.trusted("x", tuple(mover), tuple(opp)), scenario
    return Position.trusted("o", tuple(opp), tuple(mover)), scenario


# -- examples -----------------------------------------------------------------------
def _walk(position: Position, roll: Sequence[int], data: bytes) -> list[tuple[int, int]]:
    """A rule-blind play: for each die in turn, a checker chosen by a byte moves by
    it (physically; it stops at a point held by two or more, after landing there)."""
    me, opp = list(position.mover), list(position.opponent)
    moves = dice_moves(roll)
    if data[0] & 1:
        moves = moves[::-1]
    steps: list[tuple[int, int]] = []
    for die, b in zip(moves[: 1 + data[0] // 2 % len(moves)], data[1:]):
        sources = [p for p in range(25, 0, -1) if me[p]]
        if not sources:
            break
        src = sources[b % len(sources)]
        dst = max(src - die, OFF)
        steps.append((src, dst))
        if dst and opp[25 - dst] >= 2:
            break  # a blocked landing: nothing can follow it
        do_step(me, opp, src, die)  # physically: move, and hit a blot there
    return steps


def _single_step(position: Position, roll: Sequence[int], data: bytes) -> list[tuple[int, int]]:
    """One step that is legal on its own, of the die chosen by ``data[0]``."""
    from reference_impl.movegen import step_error

    me, opp = position.mover, position.opponent
    for die in (roll[data[0] % 2], roll[1 - data[0] % 2]):
        steps = [(src, max(src - die, OFF)) for src in range(25, 0, -1)
                 if me[src] and step_error(me, opp, src, die) is None]
        if steps:
            return [steps[data[1] % len(steps)]]
    return []


def _candidate(position: Position, roll: tuple[int, int], data: bytes) -> list[tuple[int, int]]:
    """A play to check, chosen by ``data`` (6 bytes): a legal play (mode 0), a legal
    play cut short (1), a rule-blind play (2), a legal play of another roll (3) or
    one legal step of either die (4; the larger-die and maximum-dice rules)."""
    from reference_impl.movegen import legal_plays

    mode = data[0] % 5
    if mode == 2:
        return _walk(position, roll, data[1:])
    if mode == 4:
        return _single_step(position, roll, data[1:])
    if mode == 3:
        roll = (_die(data[2]), _die(data[3]))
    plays = sorted(legal_plays(position, roll).values())
    steps = list(plays[data[1] % len(plays)])
    if mode == 1 and steps:
        steps = steps[: data[4] % len(steps)]
    return steps


def _money_or_match(data: bytes) -> Match:
    if data[0] < 128:
        return Match()
    length = 1 + data[1] % 15
    sx, so = data[2] % length, data[3] % length
    top, low = max(sx, so), min(sx, so)
    crawford = post = False
    if length > 1 and top == length - 1 and low < length - 1:
        crawford = data[4] % 3 == 1
        post = data[4] % 3 == 2
    return Match(length, {"x": sx, "o": so}, crawford, post)


def _rules(data: bytes, rule_options: dict | None) -> dict:
    """Rule options that differ from the defaults, among the values the engine
    declares (an option it does not mention: the default only)."""
    options = rule_options or {}
    out: dict = {}
    for i, name in enumerate(("jacoby", "backgammon_multiplier")):
        possible = (False, True) if name == "jacoby" else (3, 4)
        values = [v for v in options.get(name, [RULE_DEFAULTS[name]]) if v in possible]
        if len(values) > 1:
            value = sorted(values, key=lambda v: v != RULE_DEFAULTS[name])[data[i] % len(values)]
            if value != RULE_DEFAULTS[name]:
                out[name] = value
    return out


#: bytes a game_result example reads
GAME_BYTES = 4 + 1 + 8 * 2 + 2 + 5 + 2
_LOSER_OFF = _table({0: 10, 1: 3, **{n: 1 for n in range(2, 15)}})
_LOSER_SLOTS = [
    _table(_slots(home=4, outer=2, far=2, back=2)),         # anywhere on the board
    _table(_slots(back=10, far=1, outer=1, home=2)),        # in the winner's home board
    _table(_slots(bar=6, back=2, home=3, outer=1, far=1)),  # on the bar
    _table(_slots(home=1)),                                 # in the loser's own home board
]


def decode_finished(data: bytes, checkers: int = CHECKERS) -> Position:
    """A finished game (spec: score.end): the winner has borne off all ``checkers`` (15, or
    hypergammon's N: spec: variant.checkers), the loser (on roll) has 0..checkers - 1 off and
    the rest placed by ``data``."""
    data = bytes(data).ljust(GAME_BYTES, b"\0")
    winner = "x" if data[0] < 128 else "o"
    off = min(_LOSER_OFF[data[1]], checkers - 1)
    slots = _LOSER_SLOTS[data[2] % len(_LOSER_SLOTS)]
    loser = [0] * 26
    left = checkers - off
    n = 1 + data[3] % 8
    last = 1
    for i in range(n):
        s, c = data[4 + 2 * i], data[5 + 2 * i]
        if left and c:
            last = slots[s]
            k = min(1 + c % 4, left)
            loser[last] += k
            left -= k
    loser[last] += left
    loser[OFF] = off
    won = (checkers,) + (0,) * 25
    return Position.from_mover("o" if winner == "x" else "x", tuple(loser), won)


def _cube(data: bytes, max_exponent: int = 6) -> Cube:
    k = data[0] % (max_exponent + 1)
    if k == 0:
        return Cube()
    return Cube(2 ** k, "x" if data[1] < 128 else "o")


def example_size(kind: str) -> int:
    """Bytes ``decode_example`` reads for ``kind``."""
    return GAME_BYTES if kind == "game_result" else MOVE_BYTES if kind == "play_check" else POSITION_BYTES


def decode_example(kind: str, data: bytes, rule_options: dict | None = None,
                   variant: str = "standard") -> Question:
    """The Question of ``kind`` that ``data`` (``example_size(kind)`` bytes; missing
    bytes count as zero) describes. ``rule_options``: the engine's declared values;
    ``variant``: the game (spec: variant.option), whose checker count the positions have and
    which the question's rules name when it is not the standard game."""
    data = bytes(data).ljust(example_size(kind), b"\0")
    checkers = VARIANT_CHECKERS[variant]
    played = {} if variant == "standard" else {"variant": variant}
    if kind == "game_result":
        position = decode_finished(data, checkers)
        at = 4 + 1 + 8 * 2
        match = _money_or_match(data[at + 2:at + 7])
        # no double in the Crawford game (spec: cube.crawford): its cube is centred
        cube = Cube() if match.crawford else _cube(data[at:at + 2])
        return Question(kind, position, cube=cube, match=match,
                        rules={**_rules(data[at + 7:at + 9], rule_options), **played}, scenario="finished")
    position, scenario = decode_position(data, checkers=checkers)
    roll = (_die(data[1]), _die(data[2]))
    if kind in ("legal_plays", "chosen_play"):  # chosen_play: the same input, one play asked
        return Question(kind, position, roll, rules=dict(played), scenario=scenario)
    if kind == "play_check":
        steps = _candidate(position, roll, data[POSITION_BYTES:POSITION_BYTES + 6])
        play = play_text(position, steps)
        return Question(kind, position, roll, play=play, steps=list(written_moves(play)), rules=dict(played),
                        scenario=scenario)
    raise ValueError(f"no examples for kind {kind!r}; kinds: {', '.join(KINDS)}")


# -- strategies ---------------------------------------------------------------------
def example_bytes(kind: str) -> st.SearchStrategy[bytes]:
    """The raw bytes of one example of ``kind`` (what Hypothesis draws and shrinks)."""
    n = example_size(kind)
    return st.binary(min_size=n, max_size=n)


def examples(kind: str, rule_options: dict | None = None, variant: str = "standard") -> st.SearchStrategy[Question]:
    """Fuzzing inputs of ``kind`` (legal_plays, play_check, game_result);
    ``rule_options``: the rule option values the engine declares; ``variant``: the game."""
    if kind not in KINDS:
        raise ValueError(f"no examples for kind {kind!r}; kinds: {', '.join(KINDS)}")
    return example_bytes(kind).map(lambda b: decode_example(kind, b, rule_options, variant))


def positions(on_roll: str | None = None, scenario: str | None = None) -> st.SearchStrategy[Position]:
    """A valid Position with both sides in the game (1..15 checkers on the board or
    bar each, no shared point), biased towards the SCENARIOS.

    ``on_roll``: force the side on roll (default: either). ``scenario``: only that
    layout (a name of SCENARIOS).
    """
    if scenario is not None:
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; scenarios: {', '.join(SCENARIOS)}")
        index = _SCENARIO_TABLE.index(_SCENARIO_NAMES.index(scenario))

        def fix(b: bytes) -> bytes:
            return b[:3] + bytes([index]) + b[4:]
    else:
        def fix(b: bytes) -> bytes:
            return b

    return st.binary(min_size=POSITION_BYTES, max_size=POSITION_BYTES).map(
        lambda b: decode_position(fix(b), on_roll)[0])


def dice() -> st.SearchStrategy[tuple[int, int]]:
    """A roll: two dice 1..6, in either order."""
    return st.tuples(st.integers(1, 6), st.integers(1, 6))


_ROLLS = tuple(sorted(((a, b) for a in range(1, 7) for b in range(1, 7)),
                      key=lambda r: (r[0] == r[1], max(r), min(r), r[0] < r[1])))


def rolls() -> st.SearchStrategy[tuple[int, int]]:
    """A roll (two dice 1..6, either order) that shrinks towards a small non-double (2-1)."""
    return st.sampled_from(_ROLLS)


def finished_positions() -> st.SearchStrategy[Position]:
    """A finished game (for game_result): one side has borne off all 15 checkers,
    the loser (on roll) has 0..14 off; the loser's checkers are biased to the
    winner's home board and the bar (backgammon) and to nothing borne off (gammon)."""
    return st.binary(min_size=GAME_BYTES, max_size=GAME_BYTES).map(decode_finished)


def cubes() -> st.SearchStrategy[Cube]:
    """A cube: centred at 1, or turned (2..64) and owned by x or o."""
    return st.binary(min_size=2, max_size=2).map(_cube)


def matches() -> st.SearchStrategy[Match]:
    """Money play, or a match of length 1..15 with a valid score and Crawford state."""
    return st.binary(min_size=5, max_size=5).map(_money_or_match)


def rule_dicts(rule_options: dict | None = None) -> st.SearchStrategy[dict]:
    """Rule option overrides for scoring (``jacoby``, ``backgammon_multiplier``), each
    only among the values in ``rule_options`` (an engine's declared values)."""
    return st.binary(min_size=2, max_size=2).map(lambda b: _rules(b, rule_options))


@st.composite
def id_states(draw, formats: str = "gnubg_match_id") -> Any:
    """IdStates a Match ID (``formats="gnubg_match_id"``) or an XGID (``"xgid"``) can carry:
    any cube up to 2^15 (an owned cube at 2 or more), either side on roll, dice or none, a
    pending double (no dice) or, in a Match ID, a resignation, money play or a match up to 64
    points with scores below the length and the Crawford game only where a player is one point
    away (spec: format.match-id, format.xgid)."""
    from conformance.model import IdState

    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 9, 11, 25, 64]))
    if length:
        x, o = draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1))
        crawford = max(x, o) == length - 1 > min(x, o) and draw(st.booleans())
        match = Match(length, {"x": x, "o": o}, crawford=crawford)
    else:
        match = Match(0, {"x": draw(st.integers(0, 50)), "o": draw(st.integers(0, 50))})
    log2 = draw(st.integers(0, 15))
    owner = draw(st.sampled_from(["center", "x", "o"])) if log2 else "center"
    on_roll = draw(st.sampled_from(["x", "o"]))
    pending = draw(st.sampled_from(["none", "double", "resign"] if formats == "gnubg_match_id" else ["none", "double"]))
    dice = None if pending == "double" or draw(st.booleans()) else (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    extra = {"beavers": bool(not length and draw(st.booleans())), "max_cube": 1 << draw(st.integers(0, 15))} \
        if formats == "xgid" else {}
    return IdState(cube=Cube(1 << log2, owner), on_roll=on_roll, dice=dice, double_offered=pending == "double",
                   resignation=draw(st.sampled_from(["single", "gammon", "backgammon"])) if pending == "resign"
                   else "none", match=match, jacoby=bool(not length and draw(st.booleans())), **extra)
