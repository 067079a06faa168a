"""Perft and bisect through any engine's legal plays (spec/perft.md; ``bgconf perft``, ``bgconf bisect``).

``engine_perft`` counts the bgperft-1 tree level by level, asking the engine
for the legal plays of every distinct (position, roll) once, so that an engine
without a perft of its own can be counted, and compared with the reference.
``bisect`` walks the same tree and stops at the first position and roll where
the engine's legal plays differ from the reference's. An engine's answer that is not
legal plays raises ``BadAnswer`` (from ``conformance.harness.compare``).
"""

from __future__ import annotations

from collections import Counter

from conformance.harness.compare import BadAnswer, _engine_plays
from conformance.model import Position, check_variant, encode_position_id, format_play, read_position_text

from reference_impl.perft import ROLL_SETS, ROLLS_21, _finished  # one definition of bgperft-1

WEIGHTS = {name: dict(weighted) for name, weighted in ROLL_SETS.items()}


def parse_position(text: str, variant: str = "standard") -> Position:
    """``start``, a 14-character Position ID (x on roll), or an ``XGID=...`` (any form
    ``model.read_position_text`` reads; the state beside the board is not used), in ``variant``
    (its start and checker count; spec: variant.option). Raises ModelError, also for a position
    with another checker count than the variant's."""
    position = read_position_text(text, variant)[0]
    check_variant(position, variant)
    return position


def _ask(engine, pairs: list[tuple[Position, tuple[int, int]]], variant: str = "standard") -> list[dict[Position, str]]:
    rules = {} if variant == "standard" else {"variant": variant}
    requests = [{"kind": "legal_plays", "case": "perft", "rules": rules, "position": p.to_wire(), "dice": list(r)}
                for p, r in pairs]
    out = []
    for (p, r), reply in zip(pairs, engine.run_batch(requests)):
        if "result" not in reply:
            raise BadAnswer(f"no legal plays for {encode_position_id(p)} {p.on_roll} with {r}: {reply}")
        out.append(_engine_plays(p, reply["result"]))
    return out


def engine_perft(engine, position: Position, depth: int, roll_set: str = "all21",
                 batch: int = 2000, variant: str = "standard") -> list[int]:
    """Counts for depths 1..``depth`` (list of ints) through ``engine``'s legal plays, asked in
    ``variant`` (spec: variant.option)."""
    weights = WEIGHTS[roll_set]
    level: Counter = Counter({position: 1})
    counts = []
    for _ in range(depth):
        nxt: Counter = Counter()
        pending = []
        for p, n in level.items():
            if _finished(p):
                nxt[p] += n  # a finished game is a leaf: it counts once and is not expanded
            else:
                pending.extend((p, r) for r in ROLLS_21)
        for start in range(0, len(pending), batch):
            chunk = pending[start:start + batch]
            for (p, r), plays in zip(chunk, _ask(engine, chunk, variant)):
                for s in plays:
                    nxt[s] += level[p] * weights[r]
        level = nxt
        counts.append(sum(level.values()))
    return counts


def bisect(engine, position: Position, depth: int, variant: str = "standard") -> tuple | None:
    """The first (level, position, roll, missing, extra) where ``engine``'s legal
    plays differ from the reference's, walking the tree level by level (positions
    in Position ID order, rolls from 6-6 down); None when none differ to ``depth``."""
    from reference_impl import legal_plays

    level = {position}
    for d in range(1, depth + 1):
        pairs = [(p, r) for p in sorted(level, key=lambda q: (encode_position_id(q), q.on_roll))
                 if not _finished(p) for r in ROLLS_21]
        nxt: set = set()
        for start in range(0, len(pairs), 2000):
            chunk = pairs[start:start + 2000]
            for (p, r), theirs in zip(chunk, _ask(engine, chunk, variant)):
                ours = legal_plays(p, r)
                if set(theirs) != set(ours):
                    missing = [format_play(p, s) if s else "none" for q, s in ours.items() if q not in theirs]
                    extra = [t for q, t in theirs.items() if q not in ours]
                    return d, p, r, missing, extra
                nxt.update(ours)
        level = nxt
    return None
