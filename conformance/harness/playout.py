"""The playout: random games an engine plays itself (OpenSpiel, pgx), every turn and every game's
end checked against the reference, and each disagreement made a ready case (``bgconf playout``).

Engines: ``openspiel`` and ``pgx`` (``ENGINES``). pgx can also be given any position (``bgconf run --engine
pgx``); played here, its own opening, dice, turn order and end-of-game scoring are checked too,
the plays at every turn through ``conformance.engines.adapters.pgx.turn_plays`` (its action masks,
stepped), one of them chosen at random and replayed with pgx's step, so that pgx rolls the next
turn's dice. The rest of this docstring is OpenSpiel's.

OpenSpiel's backgammon has no public way to set an arbitrary position, so the suite's cases
cannot be put to it. Instead ``play_game`` plays random games through OpenSpiel's own API
(its state read by ``conformance.harness.openspiel``) and, at every turn, compares the legal
plays OpenSpiel offers with the reference engine's (``reference_impl.legal_plays``); at the end
of each game it compares who won and, with ``scoring_type: full_scoring``, the
single/gammon/backgammon value with ``reference_impl.game.game_result`` (money play, a
centred cube of 1). Every disagreement is a ``Mismatch``, and ``make_case`` makes it a ready
case in the suite's format (spec clauses: ``anchors_for``).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from conformance.model import BAR, OFF, Cube, Match, Position, effective_rules, format_play, other

from conformance.harness.openspiel import (GAME_PARAMETERS, OPENSPIEL_DIST, SIDE, EnginePlay, checkers_of,
                                           openspiel_plays, read_dice, read_position, read_scores)

ENGINES = ("openspiel", "pgx")  # the engines a playout drives through their own game API
LABELS = {"openspiel": "OpenSpiel", "pgx": "pgx"}
PGX_MAX_TURNS = 2000  # a pgx game still going after this many turns is counted as truncated

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


def load_openspiel(variant: str = "standard"):
    """(game, version): OpenSpiel's backgammon with full scoring, in ``variant`` (spec:
    variant.option; OpenSpiel plays ``standard`` and, with its ``hyper_backgammon`` parameter,
    ``hypergammon-3``: harness.openspiel.GAME_PARAMETERS). Raises OpenSpielUnavailable, or
    KeyError for a variant OpenSpiel does not play."""
    parameters = GAME_PARAMETERS[variant]
    try:
        import pyspiel
    except ImportError as exc:
        raise OpenSpielUnavailable(str(exc)) from None
    from conformance.engines.interface import installed_version

    game = pyspiel.load_game("backgammon", {"scoring_type": "full_scoring", **parameters})
    return game, installed_version(OPENSPIEL_DIST) or "unknown"


#: the variants (spec: variant.option) each playout engine plays
PLAYS_VARIANTS = {"openspiel": tuple(GAME_PARAMETERS), "pgx": ("standard",)}


def load_game(engine: str, variant: str = "standard"):
    """(the engine's game, how to play one game of it, its version) for ``engine`` of ``ENGINES``
    in ``variant`` (one of ``PLAYS_VARIANTS[engine]``): pgx's environment and ``play_game_pgx``,
    or OpenSpiel's game and ``play_game``. Raises ``conformance.engines.adapters.EngineUnavailable``
    (pgx), ``OpenSpielUnavailable``, or KeyError for a variant the engine does not play."""
    if variant not in PLAYS_VARIANTS[engine]:
        raise KeyError(variant)
    if engine == "pgx":
        from conformance.engines.adapters.pgx import load_engine
        from conformance.engines.interface import installed_version

        return load_engine(), play_game_pgx, installed_version("pgx") or "unknown"
    game, version = load_openspiel(variant)
    return game, play_game, version


def _play_share(engine: str, variant: str, seed: int, share: list[tuple[int, int]], emit, stats: dict) -> None:
    """A worker's part of ``play_games``: it loads the engine's game and plays its games, each
    sent back as (Totals of that game, conversion error or None, whether it ends the playout); a
    conversion error ends it."""
    from conformance.harness.openspiel import ConversionError

    game, play, _version = load_game(engine, variant)
    for k, number in share:
        totals = Totals()
        try:
            play(game, seed, number, totals)
        except ConversionError as exc:
            emit(k, (totals, f"game {number}: {exc}", True))
            return
        emit(k, (totals, None, False))


def play_games(engine: str, seed: int, numbers: Sequence[int], jobs: int, totals: "Totals",
               each=None, variant: str = "standard") -> str | None:
    """Play the games ``numbers`` of ``seed`` on ``jobs`` worker processes (``conformance.harness.
    jobs``; each loads ``engine``'s game in ``variant``, ``load_game``), dealt as shards deal them; each game's
    Totals is added to ``totals`` in game order and passed to ``each(record)``. Returns the first
    conversion error (which ends the playout there, as it does with one process), or the
    message of a game whose worker died on it (that game is counted ``errored``, the others
    go on). KeyboardInterrupt propagates after every game in has been added."""
    from functools import partial

    from conformance.harness.jobs import Jobs

    error: list[str] = []

    def deliver(k: int, answer) -> bool:
        got, problem, ends = answer
        totals.absorb(got)
        for record in got.games:
            if each:
                each(record)
        if problem:
            error.append(problem)
        return ends

    def lost(k: int, message: str):
        got = Totals()
        got.games.append(GameRecord(numbers[k], status="errored"))
        return got, f"game {numbers[k]}: {message}", False

    Jobs(partial(_play_share, engine, variant, seed), jobs, deliver, lost).run(list(numbers))
    return error[0] if error else None


def game_rng(seed: int, game: int) -> random.Random:
    """Game ``game``'s own generator: each game replays alone from (seed, game)."""
    return random.Random(f"bgconf-playout:{seed}:{game}")


@dataclass
class GameRecord:
    game: int
    plies: int = 0
    positions: int = 0
    status: str = "ok"  # ok, mismatch, truncated; errored: its worker process died (--jobs)
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

    def absorb(self, other: "Totals") -> None:
        """Add ``other``'s games, mismatches, situations and engine and reference seconds
        (after this one's: the games of a ``--jobs`` playout come back in game order)."""
        self.games += other.games
        self.mismatches += other.mismatches
        self.coverage.update(other.coverage)
        self.engine_s += other.engine_s
        self.reference_s += other.reference_s

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
    checkers = checkers_of(state)
    if checkers not in off:  # OpenSpiel's own turn limit (max_player_turns) ended it
        record.status = "truncated"
        return record
    final = read_position(state, other(SIDE[last_mover]))
    returns = state.returns()
    os_winner = SIDE[0 if returns[0] > 0 else 1]
    record.winner = os_winner
    record.engine_points = int(round(max(returns)))
    ref = game_result(final, Cube(), Match(), effective_rules({"variant": _variant_of(checkers)}))
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


def _rules_form(position: Position) -> dict:
    """``{"rules": {"variant": ...}}`` for a position of a hypergammon variant, else nothing."""
    variant = _variant_of(position.checkers)
    return {} if variant == "standard" else {"rules": {"variant": variant}}


def _variant_of(checkers: int) -> str:
    """The variant of a game with ``checkers`` a side (spec: variant.checkers): standard for 15."""
    return "standard" if checkers == 15 else f"hypergammon-{checkers}"


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
            **_rules_form(m.position),
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
        **_rules_form(m.position),
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
