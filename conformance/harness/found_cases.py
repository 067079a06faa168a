"""Printed cases: a ``Question`` written out as a complete case file (``format: 1``, one case),
ready to paste into a ``*.bgcase.yaml`` file (docs/case-authors.md); the one writer of the cases
that ``bgconf fuzz`` and ``bgconf replay`` print.

- ``case_text``: the case file of a question and the reference's answer to it, with its spec
  anchors and tags (given, or from the situation: ``case_anchors_and_tags``), comment and
  provenance; ``case_title`` a one-line title from the situation; ``position_yaml`` the board
  form as the bundled cases write it.
- ``fresh_ids``: case ids used by no bundled case and no retired id, the same for the same salt.
- ``REASON_ANCHORS``, ``CUBE_REASON_ANCHORS``: the rule (spec anchor) behind a reason code.
- ``load_case_text`` and ``check_case``: a printed case loaded exactly as a case file is
  (``conformance.cases.load_file``), and what it says on the reference and on an engine's reply.
"""

from __future__ import annotations

import functools
import random
import tempfile
from pathlib import Path
from typing import Any

from conformance.harness.questions import PLAY_KINDS, Question
from conformance.model import BAR, OFF, Cube, Match, Position, format_play

__all__ = [
    "REASON_ANCHORS", "CUBE_REASON_ANCHORS", "MAX_LISTED_PLAYS", "case_text", "case_title", "case_anchors_and_tags",
    "case_tags", "situation_anchors", "heuristic_anchors", "position_yaml", "fresh_ids", "load_case_text",
    "check_case",
]

#: the reason code of an illegal play -> the rule it breaks
REASON_ANCHORS = {
    "wrong-dice": "move.separate-dice", "no-checker": "move.direction", "bar-first": "bar.enter-first",
    "blocked-point": "move.open-point", "bear-off-not-allowed": "bearoff.all-home",
    "bear-off-higher-checker": "bearoff.higher-die", "must-use-larger-die": "move.larger-die",
    "must-use-more-dice": "move.maximum-dice",
    "backward-move": "move.direction", "not-a-roll": "record.events",  # a record's play as written
}
#: the reason code of a refused cube action -> the rule behind it
CUBE_REASON_ANCHORS = {
    "cube-disabled": "cube.start", "wrong-moment": "cube.when", "not-your-turn": "cube.when",
    "crawford-game": "cube.crawford", "not-cube-owner": "cube.ownership", "max-cube": "cube.max",
    "money-play-only": "match.money-options", "option-off": "cube.beaver",
}
#: largest legal set written out in full as ``expect: {plays: [...]}``
MAX_LISTED_PLAYS = 40


def _legal_plays(position: Position, dice) -> dict:
    """The reference's legal plays, {resulting position: steps} (spec: move.*)."""
    from conformance.engines.adapters.reference import RULES

    return RULES.legal_plays(position, dice)


# -- spec anchors and tags from the situation ---------------------------------------------
def situation_anchors(q: Question) -> list[str]:
    """Rules no mutant breaks that the situation points at: a play that bears off the
    last checker (spec: bearoff.last-checker). [] for game_result."""
    if q.kind == "game_result":
        return []
    plays = _legal_plays(q.position, q.dice)
    if any(p.side(q.position.on_roll)[OFF] == q.position.checkers for p in plays):
        return ["bearoff.last-checker"]
    return []


def heuristic_anchors(q: Question, expected: Any) -> list[str]:
    """Anchors guessed from the position (bar, bear-off, doubles, maximum dice) or, for
    game_result, from the reference's ``expected`` result (score.*, cube.jacoby)."""
    if q.kind == "game_result":
        out = [f"score.{expected['result']}"]
        if q.rules.get("jacoby") and (q.match is None or q.match.money):
            out.insert(0, "cube.jacoby")
        if expected["result"] == "backgammon" and q.rules.get("backgammon_multiplier", 3) != 3:
            out.insert(0, "score.backgammon-multiplier")
        return out
    me = q.position.mover
    out = []
    if me[BAR]:
        out.append("bar.enter-first")
    elif not any(me[7:25]):
        out.append("bearoff.all-home")
    if q.dice[0] == q.dice[1]:
        out.append("move.doubles")
    out.append("move.maximum-dice")
    return out


def _contact(pos: Position) -> bool:
    me, opp = pos.mover, pos.opponent
    back = max([p for p in range(1, 26) if me[p]], default=0)
    their_back = max([p for p in range(1, 26) if opp[p]], default=0)
    return back + their_back > 25


def _other(side: str) -> str:
    return "o" if side == "x" else "x"


def case_tags(q: Question, expected: Any, anchors: list[str]) -> list[str]:
    """The registered tags (cases/tags) that fit the question, the reference's ``expected``
    answer and the case's spec ``anchors``: bar, bear-off, doubles, prime, race, hit, ...;
    for game_result the result, cube, jacoby, money or match-play, crawford."""
    from conformance.cases import resources

    tags: list[str] = []
    if q.kind == "game_result":
        tags += [expected["result"]] if expected["result"] != "single" else []
        tags += ["cube"] if q.cube and q.cube.value > 1 else []
        tags += ["jacoby"] if q.rules.get("jacoby") else []
        tags += ["match-play"] if q.match and q.match.length else ["money"]
        tags += ["crawford"] if q.match and (q.match.crawford or q.match.post_crawford) else []
    else:
        pos, me, opp = q.position, q.position.mover, q.position.opponent
        if me[BAR]:
            tags.append("bar")
            if sum(opp[p] >= 2 for p in range(1, 7)) >= 5:
                tags.append("closed-board")
        if not me[BAR] and not any(me[7:25]):
            tags.append("bear-off")
            if sum(me[1:]) == 1:
                tags.append("last-checker")
        if q.dice[0] == q.dice[1]:
            tags.append("doubles")
        if any(all(opp[p] >= 2 for p in range(s, s + 4)) for s in range(1, 22)):
            tags.append("prime")
        if not _contact(pos):
            tags.append("race")
        plays = _legal_plays(pos, q.dice)
        if list(plays.values()) == [()]:
            tags.append("pass")
        if any(p.side(_other(pos.on_roll))[BAR] > opp[BAR] for p in plays):
            tags.append("hit")
        if "move.larger-die" in anchors:
            tags.append("larger-die")
        if "move.open-point" in anchors:
            tags.append("blocked")
        if q.kind == "play_check" and not expected.legal:
            tags.append("illegal")
    registered = resources.registered_tags()
    return [t for t in dict.fromkeys(tags) if not registered or t in registered]


def case_anchors_and_tags(q: Question, expected: Any) -> tuple[list[str], list[str]]:
    """Spec anchors (at most 3, only those of spec/rules.md) and tags for a case of ``q`` with
    the reference's ``expected`` answer, from the situation alone (no mutant run): the rules
    the position points at, the reason of an illegal play."""
    from conformance.cases import resources

    anchors = []
    if q.kind == "play_check" and not expected.legal:
        anchors.append(REASON_ANCHORS.get(expected.reason, "move.same-play"))
    anchors += situation_anchors(q) + heuristic_anchors(q, expected)
    known = resources.spec_clauses()
    anchors = [a for a in dict.fromkeys(anchors) if not known or a in known][:3] or ["move.same-play"]
    return anchors, case_tags(q, expected, anchors)


def _cube_anchors(action: dict, expected: dict) -> list[str]:
    if not expected.get("allowed"):
        return [CUBE_REASON_ANCHORS.get(expected.get("reason"), "cube.when")]
    return {"double": ["cube.when", "cube.ownership"], "take": ["cube.take"],
            "drop": ["cube.drop", "score.drop"]}.get(action["type"], ["cube.when"])


# -- the case text ----------------------------------------------------------------------------
def _describe(q: Question) -> str:
    me, opp = q.position.mover, q.position.opponent
    if me[BAR]:
        made = sum(opp[p] >= 2 for p in range(1, 7))
        return f"{me[BAR]} on the bar against a {made}-point board"
    if not any(me[7:25]):
        n = sum(me[1:])
        return "the last checker home" if n == 1 else f"bearing off {n} checkers"
    outside = sum(me[7:25])
    text = f"{outside} checker{'s' if outside != 1 else ''} outside home"
    return text if _contact(q.position) else text + ", no contact"


def case_title(q: Question, expected: Any) -> str:
    """A one-line title from the situation and the reference's ``expected`` answer: who is to
    play which roll with how many legal plays, whether a play is legal, or the result."""
    roll = f"{q.dice[0]}-{q.dice[1]}" if q.dice else ""
    if q.kind in PLAY_KINDS:
        n = sum(1 for s in expected.values() if s)
        return (f"{q.position.on_roll} to play {roll} with {_describe(q)}: "
                f"{'no legal play' if not n else f'{n} legal play' + ('s' if n != 1 else '')}")
    if q.kind == "play_check":
        return (f"{q.play} with {roll} is " + ("legal" if expected.legal else f"illegal ({expected.reason})")
                + f", {_describe(q)}")
    e = expected
    return (f"{e['winner']} wins a {e['result']} worth {e['points']} point{'s' if e['points'] != 1 else ''}"
            f" (cube {q.cube.value}, {'money' if q.match.money else f'match to {q.match.length}'})")


def _side_yaml(side: tuple[int, ...], with_off: bool) -> str:
    points = ", ".join(f"{p}: {side[p]}" for p in range(24, 0, -1) if side[p])
    out = f"points: {{{points}}}"
    if side[BAR]:
        out += f", bar: {side[BAR]}"
    if with_off and side[OFF]:
        out += f", off: {side[OFF]}"
    return "{" + out + "}"


def position_yaml(pos: Position, with_off: bool = False) -> str:
    """The board form in YAML flow style, as the bundled cases write it (spec: board.checkers);
    ``with_off``: the borne-off counts too."""
    return (f"{{on_roll: {pos.on_roll}, x: {_side_yaml(pos.x, with_off)},"
            f" o: {_side_yaml(pos.o, with_off)}}}")


def _q(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


def _flow(values: list) -> str:
    return "[" + ", ".join(_q(v) if isinstance(v, str) else str(v) for v in values) + "]"


def _flow_map(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow_map(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def case_text(q: Question, case_id: str, title: str, *, source: str, expected: Any, comment: str,
              anchors: list[str] | None = None, tags: list[str] | None = None, missing=(), extra=()) -> str:
    """A complete case file (``format: 1`` and one case) of ``q.kind`` with the reference's
    ``expected`` answer: legal_plays ({position: steps}), play_check (a Verdict), game_result
    and cube_action (the reference's dict). Anchors and tags default to those of the situation
    (``case_anchors_and_tags``); ``missing`` and ``extra`` (play notation) go into a legal set
    too large to list (over MAX_LISTED_PLAYS) as ``includes`` and ``excludes``. The one writer
    of printed cases (fuzz, replay)."""
    kind, position, dice, rules = q.kind, q.position, q.dice, q.rules
    if anchors is None and kind != "cube_action":
        anchors, tags = case_anchors_and_tags(q, expected)
    elif anchors is None:
        anchors, tags = _cube_anchors(q.action, expected), ["cube"]
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
        lines.append(f"    play: {_q(q.play)}")
        v = expected
        lines.append("    expect: {legal: true}" if v.legal else f"    expect: {{legal: false, reason: {v.reason}}}")
    else:
        if kind == "cube_action":
            lines += [f"    on_roll: {q.on_roll}", f"    moment: {q.moment}"]
        c, mt = q.cube or Cube(), q.match or Match()
        lines.append(f"    cube: {{value: {c.value}, owner: {c.owner}}}")
        if not mt.money:
            flags = "".join(f", {k}: true" for k in ("crawford", "post_crawford") if getattr(mt, k))
            score = f"{{x: {mt.score['x']}, o: {mt.score['o']}}}"
            lines.append(f"    match: {{length: {mt.length}, score: {score}{flags}}}")
        e = expected
        if kind == "cube_action":
            lines.append(f"    action: {{by: {q.action['by']}, type: {q.action['type']}}}")
            lines.append(f"    expect: {_flow_map(e)}")
        else:
            lines.append(f"    expect: {{winner: {e['winner']}, result: {e['result']}, points: {e['points']}}}")
    lines.append(f"    comment: {_q(comment)}")
    lines.append(f"    provenance: {{source: {_q(source)}, verified_by: [reference]}}")
    return "\n".join(lines) + "\n"


# -- ids ---------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _suite_ids() -> frozenset[str]:
    """Every id written in the bundled case files (a text scan: faster than loading
    them, and an id named only in a comment counts as used too) and every retired id."""
    import re

    from conformance.cases import case_files, resources

    found: set[str] = set(resources.retired_ids())
    for path in case_files():
        found.update(re.findall(r"\bbg-[2-9A-HJ-NP-Z]{4}\b", path.read_text(encoding="utf-8")))
    return frozenset(found)


def fresh_ids(count: int, salt: str, taken: set[str] | None = None) -> list[str]:
    """``count`` case ids (``bg-`` and 4 characters of ``bgconf new-id``'s alphabet) used by no
    bundled case, no retired id and nothing in ``taken``; the same for the same ``salt``."""
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


# -- loading a printed case ----------------------------------------------------------------------
def load_case_text(text: str, name: str) -> tuple[list, list]:
    """The cases and load errors (``conformance.cases.load_file``: a printed case loads exactly
    as a case file does) of the case-file ``text``, shown in errors as ``name``."""
    from conformance.cases import load_file

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(text, encoding="utf-8")
        return load_file(path, display=name)


def check_case(text: str, engine_reply: dict, kind: str = "") -> tuple[list[str], str, str]:
    """Load the printed case; return (load errors, status on the reference, status of the
    engine's reply; for ``kind`` chosen_play, of the reply to the case's chosen-play form)."""
    from conformance.engines.adapters.reference import ReferenceEngine
    from conformance.harness.compare import compare

    cases, errors = load_case_text(text, "fuzz.bgcase.yaml")
    if errors or not cases:
        return [str(e) for e in errors] or ["no case loaded"], "", ""
    case = cases[0]
    asked = case
    if kind == "chosen_play":
        from conformance.harness.runner import chosen_play_case

        asked = chosen_play_case(case)
    return [], compare(case, ReferenceEngine().run(case.request())).status, compare(asked, engine_reply).status
