"""``bgconf playout``: certify an engine along random games it plays itself.

Engines: ``openspiel`` and ``pgx``. pgx can also be given any position (``bgconf run --engine
pgx``); played here, its own opening, dice, turn order and end-of-game scoring are checked too,
the plays at every turn through ``conformance.engines.adapters.pgx.turn_plays`` (its action masks,
stepped), one of them chosen at random and replayed with pgx's step, so that pgx rolls the next
turn's dice. The rest of this docstring is OpenSpiel's.

OpenSpiel's backgammon (``pyspiel``, game ``backgammon``) has no public way to set an
arbitrary position, so the suite's cases cannot be put to it. Instead this command plays
random games through OpenSpiel's own API and, at every turn, compares the legal plays
OpenSpiel offers with the reference engine's (``reference_impl.legal_plays``); at the end
of each game it compares who won and, with ``scoring_type: full_scoring``, the
single/gammon/backgammon value with ``reference_impl.game.game_result`` (money play, a
centred cube of 1). Every disagreement becomes a ready case in the suite's format.

Conversion (OpenSpiel 2.0.2, public Python API only):

- player 0 is ``x``, player 1 is ``o``;
- ``state.board(p, i)`` for ``i`` in 0..23 is the count of player ``p`` on physical point
  ``i``; player 0 moves from 0 towards 23, player 1 from 23 towards 0. So index ``i`` is
  x's point ``24 - i`` and o's point ``i + 1`` (and x's ``p`` is o's ``25 - p``, as the
  spec has it);
- ``state.board(p, 100)`` is player ``p``'s bar;
- borne-off counts and the dice are read from OpenSpiel's observation string
  (``Scores, X: a, O: b`` and ``Dice: ab``); ``off`` is checked against 15 minus the rest;
- the legal plays at a turn are OpenSpiel's legal actions, each applied to a clone of the
  state and the board read back, deduplicated by resulting position. A double is two
  decisions of the same player in OpenSpiel (an "extra turn"); each first-half action is
  followed by every second-half action on a clone, so the set compared is that of whole
  four-move plays.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from conformance.model import BAR, OFF, Cube, Match, Position, effective_rules, format_play, other

from conformance.harness.shard import WHOLE

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_NO_ENGINE = 0, 1, 2, 4
INSTALL_HINT = "OpenSpiel is not installed: pip install 'bgconf[openspiel]'"
PGX_HINT = "pgx is not installed: pip install 'bgconf[pgx]'"
ENGINES = ("openspiel", "pgx")
LABELS = {"openspiel": "OpenSpiel", "pgx": "pgx"}
PGX_MAX_TURNS = 2000  # a pgx game still going after this many turns is counted as truncated
OPENSPIEL_DIST = "open-spiel"

X_PLAYER, O_PLAYER = 0, 1
SIDE = {X_PLAYER: "x", O_PLAYER: "o"}
OS_BAR = 100  # OpenSpiel's bar index for state.board() and CheckerMove.pos
OS_PASS = -1  # CheckerMove.pos of a pass

# reference_impl.check reason codes -> the spec clause they break
REASON_ANCHOR = {
    "wrong-dice": "move.separate-dice",
    "no-checker": "move.direction",
    "bar-first": "bar.enter-first",
    "blocked-point": "move.open-point",
    "bear-off-not-allowed": "bearoff.all-home",
    "bear-off-higher-checker": "bearoff.higher-die",
    "must-use-larger-die": "move.larger-die",
    "must-use-more-dice": "move.maximum-dice",
}


class ConversionError(RuntimeError):
    """OpenSpiel's state does not read back as a valid bgconf position."""


# -- reading OpenSpiel's state --------------------------------------------------
def own_point(player: int, index: int) -> int:
    """Player's own point number (1..24, 25 = bar) of OpenSpiel's board index."""
    if index == OS_BAR:
        return BAR
    return 24 - index if player == X_PLAYER else index + 1


def _state_text(state) -> str:
    return str(state)


def read_scores(state) -> tuple[int, int]:
    """Borne-off counts (x, o) from OpenSpiel's observation string (``Scores, X: a, O: b``)."""
    m = re.search(r"Scores, X: (\d+), O: (\d+)", _state_text(state))
    if not m:
        raise ConversionError("OpenSpiel's observation string has no 'Scores, X: a, O: b' line")
    return int(m.group(1)), int(m.group(2))


def read_side(state, player: int, off: int) -> tuple[int, ...]:
    """Player's 26-tuple in its own numbering (0 off, 1..24 points, 25 bar); ``off`` is
    the borne-off count OpenSpiel reports, checked against 15 minus the rest."""
    side = [0] * 26
    for index in range(24):
        side[own_point(player, index)] = state.board(player, index)
    side[BAR] = state.board(player, OS_BAR)
    if off != 15 - sum(side[1:]):
        raise ConversionError(f"player {player} ({SIDE[player]}): {sum(side[1:])} checkers on the board"
                              f" and bar but {off} borne off in OpenSpiel's score")
    side[OFF] = off
    return tuple(side)


def read_position(state, on_roll: str) -> Position:
    """The bgconf Position of OpenSpiel's board with ``on_roll`` to play (validated)."""
    scores = read_scores(state)
    try:
        return Position(on_roll, read_side(state, X_PLAYER, scores[0]), read_side(state, O_PLAYER, scores[1]))
    except ValueError as exc:
        raise ConversionError(f"OpenSpiel's board is not a valid position: {exc}") from None


def read_dice(state) -> tuple[int, int]:
    """The roll of the player on roll at the start of a turn, from the observation
    string's ``Dice: ab`` line (both dice unused there)."""
    m = re.search(r"^Dice: ([1-6])([1-6])$", _state_text(state), re.M)
    if not m:
        raise ConversionError("OpenSpiel's observation string has no 'Dice: ab' line of two unused dice")
    return int(m.group(1)), int(m.group(2))


def action_steps(state, player: int, action: int) -> list[tuple[int, int]]:
    """The bgconf steps (mover's numbering, 25 bar, 0 off) of one OpenSpiel action,
    decoded against ``state``'s dice; passes are left out."""
    steps = []
    for move in state.spiel_move_to_checker_moves(player, action):
        if move.pos == OS_PASS or move.num < 1:
            continue
        src = own_point(player, move.pos)
        steps.append((src, max(src - move.num, OFF)))
    return steps


@dataclass
class EnginePlay:
    """One resulting position as OpenSpiel reaches it: the steps and action texts."""

    steps: list
    actions: list


def openspiel_plays(state) -> dict[Position, EnginePlay]:
    """Every distinct resulting position OpenSpiel allows from ``state`` (a decision at
    the start of a turn), with the first action path that reaches it. A double's two
    half-turns are followed through, so each entry is a whole play."""
    player = state.current_player()
    mover = SIDE[player]
    plays: dict[Position, EnginePlay] = {}

    def record(child, steps, actions):
        result = read_position(child, other(mover))
        plays.setdefault(result, EnginePlay(steps, actions))

    for first in state.legal_actions():
        first_text = state.action_to_string(player, first)
        first_steps = action_steps(state, player, first)
        child = state.clone()
        child.apply_action(first)
        if not child.is_terminal() and child.current_player() == player:  # a double's extra turn
            for second in child.legal_actions():
                grand = child.clone()
                grand.apply_action(second)
                record(grand, first_steps + action_steps(child, player, second),
                       [first_text, child.action_to_string(player, second)])
        else:
            record(child, first_steps, [first_text])
    return plays


# -- comparing --------------------------------------------------------------------
@dataclass
class Mismatch:
    """One disagreement between OpenSpiel and the reference."""

    game: int
    ply: int
    kind: str  # "legal_plays" or "game_result"
    position: Position
    dice: tuple | None = None
    missing: list = field(default_factory=list)  # notation: legal, OpenSpiel lacks them
    extra: list = field(default_factory=list)  # notation: OpenSpiel's, not legal
    expected: list = field(default_factory=list)  # the reference's plays (notation)
    anchors: list = field(default_factory=list)
    reasons: list = field(default_factory=list)  # why each extra play is illegal
    detail: dict = field(default_factory=dict)
    case: dict | None = None
    engine: str = "openspiel"  # the --engine that played the game


def _notation(position: Position, steps: Sequence, fallback: str) -> str:
    try:
        return format_play(position, steps)
    except ValueError:
        return fallback


def compare_plays(position: Position, dice: tuple, engine: dict[Position, EnginePlay],
                  coverage: Counter | None = None) -> tuple:
    """(expected, missing, extra, reasons, anchors): the reference's plays, the legal plays
    OpenSpiel lacks, OpenSpiel's plays that are not legal (notation, sorted), why each of
    those is illegal (reference_impl.check reason codes), the spec clauses involved. ``coverage`` (a
    Counter) counts the rule situations of the position (see ``situations``)."""
    from reference_impl import legal_plays, play_check

    ref = legal_plays(position, dice)
    if coverage is not None:
        coverage.update(situations(position, dice, ref))
    expected = sorted(format_play(position, s) for s in ref.values())
    lacking = sorted((format_play(position, ref[p]), ref[p]) for p in ref.keys() - engine.keys())
    missing = [text for text, _ in lacking]
    extra, reasons = [], []
    for p in engine.keys() - ref.keys():
        e = engine[p]
        text = _notation(position, e.steps, " + ".join(e.actions))
        extra.append(text)
        reasons.append(play_check(position, dice, e.steps).reason or "not-a-legal-play")
    order = sorted(range(len(extra)), key=lambda i: extra[i])
    anchors = anchors_for(dice, [steps for _, steps in lacking], [reasons[i] for i in order],
                          max((len(e.steps) for e in engine.values()), default=0))
    return expected, missing, [extra[i] for i in order], [reasons[i] for i in order], anchors


SITUATIONS = ("doubles", "bar", "closed-board", "hit", "bear-off", "bear-off-higher-die", "pass",
              "one-die", "larger-die", "partial-doubles")


def situations(position: Position, dice: tuple, ref: dict) -> list[str]:
    """The rule situations a position and roll exercise, from the reference's plays:
    doubles; the mover on the bar (closed-board: it cannot enter at all); some legal play
    hits; some bears off (bear-off-higher-die: with a die larger than the point); no
    legal play; a non-double where only one die can be played (larger-die: either die
    could be, so the larger is forced); a double where 1 to 3 of the 4 moves can be."""
    from reference_impl.movegen import step_error

    mover, opp = position.mover, position.opponent
    steps = list(ref.values())
    most = max(len(s) for s in steps)
    double = dice[0] == dice[1]
    found = []
    if double:
        found.append("doubles")
    if mover[BAR]:
        found.append("bar")
        if most == 0:
            found.append("closed-board")
    if any(play.side(other(position.on_roll))[BAR] > opp[BAR] for play in ref):
        found.append("hit")
    offs = [(a, b) for s in steps for a, b in s if b == OFF]
    if offs:
        found.append("bear-off")
        if any(a < max(dice) and a not in dice for a, _ in offs):
            found.append("bear-off-higher-die")
    if most == 0:
        found.append("pass")
    elif not double and most == 1:
        found.append("one-die")
        small = min(dice)
        if small != max(dice) and any(step_error(mover, opp, src, small) is None
                                      for src in range(1, 26) if mover[src]):
            found.append("larger-die")
    elif double and most < 4:
        found.append("partial-doubles")
    return found


def anchors_for(dice: tuple, missing_steps: list, reasons: list, engine_most: int) -> list[str]:
    """The spec clauses a legal-plays mismatch involves, as far as can be told: the rule
    each illegal play breaks (its reason code); for legal plays OpenSpiel lacks, a feature
    all of them share (more dice than any play OpenSpiel offers, entering from the bar,
    bearing off with a larger die, bearing off exactly). Else move.maximum-dice."""
    anchors = [REASON_ANCHOR[r] for r in reasons if r in REASON_ANCHOR]
    if missing_steps:
        if all(len(s) > engine_most for s in missing_steps):
            anchors.append("move.maximum-dice")
        offs = [[a for a, b in s if b == OFF] for s in missing_steps]
        if all(any(a == BAR for a, _ in s) for s in missing_steps):
            anchors.append("bar.entry-point")
        elif all(any(a < max(dice) and a not in dice for a in o) for o in offs):
            anchors.append("bearoff.higher-die")
        elif all(o for o in offs):
            anchors.append("bearoff.exact")
    anchors = anchors or ["move.maximum-dice"]
    if dice[0] == dice[1]:
        anchors.append("move.doubles")
    return list(dict.fromkeys(anchors))


def _tags(position: Position, dice: tuple, anchors: list, expected: list) -> list[str]:
    """Registered tags (cases/tags.yaml) that plainly apply."""
    mover = position.mover
    tags = []
    if dice[0] == dice[1]:
        tags.append("doubles")
    if mover[BAR]:
        tags.append("bar")
    if not any(mover[7:26]):
        tags.append("bear-off")
    if expected == ["none"]:
        tags.append("pass")
    if "move.larger-die" in anchors:
        tags.append("larger-die")
    return tags


# -- the playout ---------------------------------------------------------------------
class OpenSpielUnavailable(RuntimeError):
    """pyspiel cannot be imported."""


def load_openspiel():
    """(game, version): OpenSpiel's backgammon with full scoring. Raises OpenSpielUnavailable."""
    try:
        import pyspiel
    except ImportError as exc:
        raise OpenSpielUnavailable(str(exc)) from None
    from conformance.engines.interface import installed_version

    game = pyspiel.load_game("backgammon", {"scoring_type": "full_scoring"})
    return game, installed_version(OPENSPIEL_DIST) or "unknown"


def game_rng(seed: int, game: int) -> random.Random:
    """Game ``game``'s own generator: each game replays alone from (seed, game)."""
    return random.Random(f"bgconf-playout:{seed}:{game}")


@dataclass
class GameRecord:
    game: int
    plies: int = 0
    positions: int = 0
    status: str = "ok"  # ok, mismatch, truncated
    winner: str | None = None
    engine_points: int | None = None
    reference: dict | None = None


@dataclass
class Totals:
    games: list = field(default_factory=list)
    mismatches: list = field(default_factory=list)
    coverage: Counter = field(default_factory=Counter)
    engine_s: float = 0.0  # time spent in the engine's plays
    reference_s: float = 0.0
    wall_s: float = 0.0

    @property
    def positions(self) -> int:
        return sum(g.positions for g in self.games)

    @property
    def truncated(self) -> int:
        return sum(g.status == "truncated" for g in self.games)


def check_turn(record: GameRecord, totals: Totals, position: Position, dice: tuple, plays: dict,
               engine_s: float, engine: str) -> None:
    """Compare one turn's plays of ``engine`` (resulting position -> EnginePlay, found in
    ``engine_s`` seconds) with the reference's; count it in ``record`` and ``totals`` and add a
    Mismatch there when they differ."""
    t0 = time.perf_counter()
    expected, missing, extra, reasons, anchors = compare_plays(position, dice, plays, totals.coverage)
    totals.engine_s += engine_s
    totals.reference_s += time.perf_counter() - t0
    record.positions += 1
    if missing or extra:
        record.status = "mismatch"
        totals.mismatches.append(Mismatch(
            record.game, record.plies, "legal_plays", position, dice, missing, extra, expected, anchors, reasons,
            {"engine_plays": len(plays), "reference_plays": len(expected)}, engine=engine))


def play_game(os_game, seed: int, number: int, totals: Totals) -> GameRecord:
    """Play game ``number`` of ``seed`` (its record is added to ``totals``): random dice
    (OpenSpiel's chance outcomes, with their probabilities) and random choices among
    OpenSpiel's legal actions; compare every turn's plays and the end of the game with
    the reference."""
    from reference_impl.game import game_result

    rng = game_rng(seed, number)
    record = GameRecord(number)
    totals.games.append(record)
    state = os_game.new_initial_state()
    turn_start = False
    last_mover = None
    while not state.is_terminal():
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, weights=weights)[0])
            turn_start = True
            continue
        player = state.current_player()
        if turn_start:  # a whole turn begins: compare; a double's second half is inside it
            record.plies += 1
            mover = SIDE[player]
            position = read_position(state, mover)
            dice = read_dice(state)
            t0 = time.perf_counter()
            engine = openspiel_plays(state)
            check_turn(record, totals, position, dice, engine, time.perf_counter() - t0, "openspiel")
        last_mover = player
        state.apply_action(rng.choice(state.legal_actions()))
        turn_start = False
    # the end of the game
    off = read_scores(state)
    if 15 not in off:  # OpenSpiel's own turn limit (max_player_turns) ended it
        record.status = "truncated"
        return record
    final = read_position(state, other(SIDE[last_mover]))
    returns = state.returns()
    os_winner = SIDE[0 if returns[0] > 0 else 1]
    record.winner = os_winner
    record.engine_points = int(round(max(returns)))
    ref = game_result(final, Cube(), Match(), effective_rules({}))
    record.reference = ref
    if ref["winner"] != os_winner or ref["points"] != record.engine_points:
        record.status = "mismatch"
        totals.mismatches.append(Mismatch(
            number, record.plies, "game_result", final, anchors=[f"score.{ref['result']}"],
            detail={"engine": {"winner": os_winner, "points": record.engine_points,
                               "returns": list(returns)}, "reference": ref}))
    return record


def play_game_pgx(engine, seed: int, number: int, totals: Totals) -> GameRecord:
    """Play game ``number`` of ``seed`` with pgx (``engine`` from conformance.engines.adapters.pgx.
    load_engine): pgx's own opening and dice (its PRNG, seeded from the game's generator), a
    random choice among the plays its masks allow, stepped by pgx; compare every turn's plays and
    the end of the game (pgx's reward) with the reference. The record is added to ``totals``."""
    from reference_impl.game import game_result

    from conformance.engines.adapters import pgx

    rng = game_rng(seed, number)
    record = GameRecord(number)
    totals.games.append(record)
    state = pgx.new_game(engine, rng.randrange(2**31))
    while (over := pgx.game_over(engine, state)) is None:
        if record.plies >= PGX_MAX_TURNS:
            record.status = "truncated"
            return record
        record.plies += 1
        position, dice = pgx.turn_start(engine, state)
        t0 = time.perf_counter()
        found = pgx.turn_plays(engine, state, position.on_roll)
        spent = time.perf_counter() - t0
        plays = {result: EnginePlay(steps, [f"action {a}" for a in actions]) for result, (steps, actions) in found.items()}
        if not found:  # pgx offers only its no-op: the turn passes, the board unchanged
            plays = {position.passed(): EnginePlay([], ["action 0 (no-op)"])}
        check_turn(record, totals, position, dice, plays, spent, "pgx")
        choice = found[rng.choice(sorted(found, key=str))][1] if found else []
        state = pgx.play(engine, state, choice, rng.randrange(2**31))
    final, winner, points = over
    record.winner, record.engine_points = winner, points
    ref = game_result(final, Cube(), Match(), effective_rules({}))
    record.reference = ref
    if ref["winner"] != winner or ref["points"] != points:
        record.status = "mismatch"
        totals.mismatches.append(Mismatch(
            number, record.plies, "game_result", final, anchors=[f"score.{ref['result']}"],
            detail={"engine": {"winner": winner, "points": points, "returns": [points]}, "reference": ref},
            engine="pgx"))
    return record


# -- ready cases ------------------------------------------------------------------------
def _side_form(side: tuple[int, ...]) -> dict:
    out: dict = {"points": {p: side[p] for p in range(24, 0, -1) if side[p]}}
    if side[BAR]:
        out["bar"] = side[BAR]
    if side[OFF]:
        out["off"] = side[OFF]
    return out


def _position_form(position: Position) -> dict:
    return {"on_roll": position.on_roll, "x": _side_form(position.x), "o": _side_form(position.o)}


def fresh_ids(seed: int):
    """Ids as ``bgconf new-id`` makes them (not used in the suite, not retired), drawn from
    a generator seeded by ``seed`` so that a playout's output is reproducible."""
    from conformance.cases import resources
    from conformance.cases import ID_ALPHABET, load_suite

    used = {c.id for c in load_suite().cases} | set(resources.retired_ids())
    rng = random.Random(f"bgconf-playout-ids:{seed}")
    while True:
        cid = "bg-" + "".join(rng.choice(ID_ALPHABET) for _ in range(4))
        if cid not in used:
            used.add(cid)
            yield cid


def make_case(m: Mismatch, seed: int, case_id: str, version: str) -> dict:
    """The ready case for one mismatch (the reference's answer is the expectation)."""
    label = LABELS[m.engine]
    source = f"{label} playout, seed {seed}, game {m.game}, ply {m.ply}"
    provenance = {"source": source, "verified_by": ["reference"]}
    if m.kind == "game_result":
        ref, got = m.detail["reference"], m.detail["engine"]
        return {
            "id": case_id,
            "title": f"Game over: {ref['winner']} wins a {ref['result']}, {ref['points']} point"
                     f"{'s' if ref['points'] != 1 else ''} ({label} playout)",
            "kind": "game_result", "spec": m.anchors,
            "tags": [t for t in ("gammon", "backgammon", "money") if t in (ref["result"], "money")],
            "position": _position_form(m.position),
            "expect": {"winner": ref["winner"], "result": ref["result"], "points": ref["points"]},
            "comment": f"{label} {version}{' (full_scoring)' if m.engine == 'openspiel' else ''} scores this"
                       f" game {got['winner']} +{got['points']}; returns {got['returns']}.",
            "provenance": provenance,
        }
    d1, d2 = m.dice
    parts = []
    if m.missing:
        parts.append("misses " + ", ".join(m.missing))
    if m.extra:
        parts.append("allows " + ", ".join(f"{p} ({r})" for p, r in zip(m.extra, m.reasons)))
    title = f"{m.position.on_roll} to play {d1}-{d2}: the {len(m.expected)} legal play" \
            f"{'s' if len(m.expected) != 1 else ''} ({label} playout)"
    return {
        "id": case_id,
        "title": title,
        "kind": "legal_plays",
        "spec": m.anchors,
        **({"tags": tags} if (tags := _tags(m.position, m.dice, m.anchors, m.expected)) else {}),
        "position": _position_form(m.position),
        "dice": [d1, d2],
        "expect": {"plays": list(m.expected)},
        "comment": f"{label} {version} gives {m.detail['engine_plays']} distinct plays here and "
                   + "; ".join(parts) + ".",
        "provenance": provenance,
    }


def cases_yaml(cases: list[dict], seed: int, version: str, engine: str = "openspiel") -> str:
    """A case file (format 1) holding ``cases`` found by playing ``engine``."""
    import yaml

    head = {"format": 1, "topic": f"playout/{engine}",
            "description": f"Disagreements found by bgconf playout --engine {engine} --seed {seed}"
                           f" ({LABELS[engine]} {version}); the expectations are the reference engine's."}
    text = yaml.safe_dump(head, sort_keys=False, width=200, allow_unicode=True)
    return text + cases_block(cases)


def cases_block(cases: list[dict]) -> str:
    """``cases:`` and the list, flow style for positions and lists as the suite writes them."""
    import yaml

    if not cases:
        return "cases: []\n"
    out = ["cases:"]
    for case in cases:
        first = True
        for key, value in case.items():
            if isinstance(value, (dict, list)):
                text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10_000).strip()
            else:
                text = yaml.safe_dump(value, default_style=None, width=10_000).strip()
                if text.endswith("\n..."):
                    text = text[:-4].strip()
                text = text.removesuffix("...").strip()
            if key == "position" and isinstance(value, dict):
                lines = [f"{'  - ' if first else '    '}position:",
                         f"      on_roll: {value['on_roll']}"]
                for side in ("x", "o"):
                    lines.append(f"      {side}: " + yaml.safe_dump(value[side], default_flow_style=True,
                                                                      sort_keys=False, width=10_000).strip())
                out.extend(lines)
            else:
                out.append(f"{'  - ' if first else '    '}{key}: {text}")
            first = False
        out.append("")
    return "\n".join(out)


# -- output -----------------------------------------------------------------------------
def mismatch_text(m: Mismatch, seed: int) -> str:
    from conformance.cases import resources
    from conformance.harness.diagram import board_diagram

    clauses = resources.spec_clauses()
    where = f"seed {seed}, game {m.game}, ply {m.ply}"
    lines = [f"MISMATCH ({m.kind}) {where}"]
    for anchor in m.anchors:
        lines.append(f"  spec {anchor}: {clauses.get(anchor, '')}".rstrip())
    lines.append(board_diagram(m.position, m.dice))
    label = LABELS[m.engine]
    if m.kind == "legal_plays":
        lines.append(f"  reference: {len(m.expected)} plays; {label}: {m.detail['engine_plays']}")
        if m.missing:
            lines.append(f"  missing plays (legal, {label} lacks them): " + ", ".join(m.missing))
        if m.extra:
            lines.append(f"  extra plays ({label} allows them, not legal): "
                         + ", ".join(f"{p} [{r}]" for p, r in zip(m.extra, m.reasons)))
    else:
        lines.append(f"  {label}: {m.detail['engine']}")
        lines.append(f"  reference: {m.detail['reference']}")
    lines.append(f"  re-run: bgconf playout --engine {m.engine} --seed {seed} --game {m.game}")
    return "\n".join(lines)


def run(args) -> int:
    from conformance.commands.common import CommandExit, check_outputs, err, interruptible

    if args.engine not in ENGINES:
        err(f"unknown engine {args.engine!r} for playout; it plays engines through their own game API:"
            f" {', '.join(ENGINES)} (engines that take a position: bgconf run)")
        return EXIT_NO_ENGINE
    try:
        check_outputs({"--report": args.report, "--write-cases": args.write_cases})
    except CommandExit as stop:
        return stop.code
    if args.engine == "pgx":
        from conformance.engines.adapters import EngineUnavailable
        from conformance.engines.adapters.pgx import load_engine
        from conformance.engines.interface import installed_version

        try:
            engine_game, version = load_engine(), installed_version("pgx") or "unknown"
        except EngineUnavailable:
            print(f"bgconf: {PGX_HINT}", file=sys.stderr)
            return EXIT_NO_ENGINE
        play, about = play_game_pgx, "(backgammon environment, its own dice and scoring)"
    else:
        try:
            engine_game, version = load_openspiel()
        except OpenSpielUnavailable:
            print(f"bgconf: {INSTALL_HINT}", file=sys.stderr)
            return EXIT_NO_ENGINE
        play, about = play_game, "(backgammon, scoring_type=full_scoring)"
    label = LABELS[args.engine]
    numbers = [args.game] if args.game else [g for g in range(1, args.games + 1) if args.shard.owns(g - 1)]
    totals = Totals()
    t0 = time.perf_counter()
    incomplete = False
    error = None
    interrupted = None
    try:
        with interruptible():
            for n in numbers:
                record = play(engine_game, args.seed, n, totals)
                if args.verbose:
                    ref = record.reference or {}
                    print(f"game {n}: {record.plies} plies, {record.positions} positions, {record.status}"
                          + (f", {ref.get('winner')} wins a {ref.get('result')} ({ref.get('points')})"
                             if ref else ""))
    except KeyboardInterrupt as exc:
        from conformance.commands.common import signal_name

        incomplete, interrupted = True, signal_name(exc)
    except ConversionError as exc:
        error = f"game {n}: {exc}"
    totals.wall_s = time.perf_counter() - t0

    ids = fresh_ids(args.seed)
    cases = [make_case(m, args.seed, next(ids), version) for m in totals.mismatches]
    for m, case in zip(totals.mismatches, cases):
        m.case = case
    for m in totals.mismatches[: args.max_mismatches]:
        print(mismatch_text(m, args.seed))
        print("  ready case (to go under cases: in a case file; check it against spec/rules.md first):")
        print(cases_block([m.case]).split("\n", 1)[1].rstrip())
        print()
    if len(totals.mismatches) > args.max_mismatches:
        print(f"... {len(totals.mismatches) - args.max_mismatches} more not shown (--max-mismatches);"
              f" --write-cases and --report hold them all")
    from conformance.commands.common import EXIT_SIGNAL, write_text

    if args.write_cases:
        write_text("--write-cases", args.write_cases, cases_yaml(cases, args.seed, version, args.engine))
    if args.report:
        write_report(Path(args.report), args, version, totals, incomplete, error, interrupted)
    if error:
        print(f"bgconf: conversion error, {error}", file=sys.stderr)
    played = len(totals.games)
    trunc = f", {totals.truncated} ended by {label}'s turn limit" if totals.truncated else ""
    print(f"engine: {args.engine} {version} {about}")
    print(f"{played} game{'s' if played != 1 else ''} played{trunc}, {totals.positions} positions compared,"
          f" {len(totals.mismatches)} mismatch{'es' if len(totals.mismatches) != 1 else ''}"
          f" in {totals.wall_s:.1f} s ({label}'s plays {totals.engine_s:.1f} s,"
          f" reference {totals.reference_s:.1f} s)" + (" (incomplete)" if incomplete else ""))
    print("situations compared: " + ", ".join(f"{k} {totals.coverage.get(k, 0)}" for k in SITUATIONS))
    ends = Counter((g.reference or {}).get("result") for g in totals.games if g.reference)
    print("games ended: " + ", ".join(f"{k} {ends.get(k, 0)}" for k in ("single", "gammon", "backgammon")))
    if interrupted:
        err(f"interrupted by {interrupted}: {played} game(s) kept")
        return EXIT_SIGNAL[interrupted]
    return EXIT_MISMATCH if totals.mismatches or incomplete or error else EXIT_OK


def write_report(path: Path, args, version: str, totals: Totals, incomplete: bool, error: str | None,
                 interrupted: str | None = None) -> None:
    from datetime import datetime, timezone

    from conformance import __version__

    lines: list[dict] = [{
        "type": "header", "tool": "bgconf playout", "suite_version": __version__,
        "engine": {"name": args.engine, "version": version, "game": "backgammon",
                   **({"parameters": {"scoring_type": "full_scoring"}} if args.engine == "openspiel" else {})},
        "seed": args.seed, "games": [args.game] if args.game else args.games,
        **({"shard": str(args.shard)} if args.shard.n > 1 and not args.game else {}),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "argv": sys.argv[1:]}]
    for g in totals.games:
        lines.append({"type": "game", "game": g.game, "plies": g.plies, "positions": g.positions,
                      "status": g.status, "engine": {"winner": g.winner, "points": g.engine_points},
                      "reference": g.reference})
    for m in totals.mismatches:
        line = {"type": "mismatch", "kind": m.kind, "game": m.game, "ply": m.ply,
                "position": m.position.to_wire(), "spec": m.anchors, "case": m.case}
        if m.kind == "legal_plays":
            line.update(dice=list(m.dice), missing=m.missing, extra=m.extra, reasons=m.reasons,
                        engine_plays=m.detail["engine_plays"], reference_plays=len(m.expected))
        else:
            line.update(detail=m.detail)
        lines.append(line)
    lines.append({"type": "footer", "games": len(totals.games), "truncated": totals.truncated,
                  "positions": totals.positions, "mismatches": len(totals.mismatches),
                  "wall_s": round(totals.wall_s, 3), "engine_s": round(totals.engine_s, 3),
                  "reference_s": round(totals.reference_s, 3),
                  "situations": {k: totals.coverage.get(k, 0) for k in SITUATIONS}, "incomplete": incomplete,
                  "interrupted": interrupted or False, **({"error": error} if error else {})})
    from conformance.commands.common import write_text

    write_text("--report", path, "".join(json.dumps(x) + "\n" for x in lines))


HELP = """\
OpenSpiel's backgammon cannot be given an arbitrary position, so the suite's cases
cannot be put to it. This command certifies it on the positions it reaches itself:
it plays --games random games through OpenSpiel's own API (pyspiel) and at every turn
compares the set of plays OpenSpiel allows with the reference engine's legal plays.

How a game goes:
  - dice: OpenSpiel's chance outcomes, drawn with their probabilities by a generator
    seeded with (--seed, game number), so each game replays alone (--game G);
  - at the start of each turn the board is read back with state.board() (player 0 is
    x, player 1 is o; x's point p is OpenSpiel index 24-p, o's point p is index p-1,
    index 100 the bar; borne-off counts from the observation string) and every legal
    action is applied to a clone of the state; the resulting positions, deduplicated,
    are OpenSpiel's plays. OpenSpiel splits a double into two decisions of the same
    player; each first half is followed by every second half, so whole 4-move plays
    are compared;
  - one of OpenSpiel's legal actions is then chosen at random and the game goes on;
  - at the end, the winner and (scoring_type full_scoring) the 1/2/3 value are
    compared with the reference's game_result (money play, centred cube of 1); a
    game OpenSpiel ends by its own turn limit (max_player_turns) before anyone has
    borne off 15 is counted, not compared.

pgx (--engine pgx) is played the same way through its own API: pgx.make("backgammon")
rolls its opening and every turn's dice (its PRNG seeded from --seed and the game), its
legal plays at each turn are every sequence of micro actions its masks allow, one is
chosen at random and stepped, and a finished game's reward (1, 2, 3) is compared with
the reference's single/gammon/backgammon.

The summary also counts the rule situations the compared positions met (doubles, the
bar, a closed board, hits, bearing off, with a larger die, no play, one die only, the
larger die forced, part of a double), so a run shows what it exercised.

Every disagreement is printed with the board, the dice, the spec clause, the plays
OpenSpiel misses and those it allows illegally (with the reason), and a ready case
(fresh id, the reference's exact plays, provenance "OpenSpiel playout, seed S, game
G, ply P"; ply P = the P-th turn of the game, 1 = the opening play). Check each one
against spec/rules.md before adding it to cases/.
"""

EPILOG = """\
examples:
  bgconf playout --engine openspiel --games 200 --seed 1
  bgconf playout --engine openspiel --games 50 --seed 7 --report os.jsonl --write-cases os.bgcase.yaml
  bgconf playout --engine openspiel --seed 1 --game 17      (replay game 17 of seed 1)
  bgconf playout --engine pgx --games 100 --seed 1

exit codes:
  0  every position compared agreed, and every game's result
  1  at least one mismatch (or a board OpenSpiel reports that cannot be read)
  2  bad command line
  4  the engine is not one playout drives, or it is not installed
     (pip install 'bgconf[openspiel]', pip install 'bgconf[pgx]')
  130, 143  interrupted by SIGINT, SIGTERM: the games played are kept and reported
"""


def add_parser(subparsers) -> None:
    from conformance.commands.common import count, positive_int, shard

    p = subparsers.add_parser(
        "playout", help="certify an engine along random games it plays itself (OpenSpiel, pgx)",
        description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", required=True,
                   help="the engine to play: " + ", ".join(ENGINES) + " (pip install 'bgconf[openspiel]' or 'bgconf[pgx]')")
    p.add_argument("--games", type=positive_int, default=100, metavar="N", help="games to play (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0); same seed, same run")
    p.add_argument("--shard", type=shard, default=WHOLE, metavar="K/N",
                   help="play only shard K of N of the games (games K, K+N, K+2N, ...: each game replays alone"
                        " from (--seed, game), so the N shards play exactly the games of the whole run)")
    p.add_argument("--game", type=positive_int, metavar="G", help="play only game G of the seed, to replay a mismatch (--games is then ignored)")
    p.add_argument("--report", metavar="FILE.jsonl",
                   help="write a JSON Lines report: header, one line per game and per mismatch, footer")
    p.add_argument("--write-cases", metavar="FILE.bgcase.yaml",
                   help="write the ready cases as a case file (bgconf validate FILE checks it)")
    p.add_argument("--max-mismatches", type=count, default=20, metavar="N",
                   help="print at most N mismatches in full (default 20)")
    p.add_argument("-v", "--verbose", action="store_true", help="print one line per game")
    p.set_defaults(func=run)
