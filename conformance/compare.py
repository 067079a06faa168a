"""Comparing an engine's reply with a case's expectation.

Legal plays compare as sets of resulting positions (spec: move.same-play):
the verdict lists the **missing** plays (expected, not returned) and the
**extra** plays (returned, not expected), each in notation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.model import ModelError, Position, play_to_position

from .cases import Case, ExpectedPlays

GAME_KINDS = ("game_result", "cube_action", "opening_roll", "match_transition")
STATUSES = ("pass", "fail", "errored", "unsupported", "xfail", "xpass", "timeout")


@dataclass
class Outcome:
    """The verdict on one case: ``status`` (one of STATUSES), a one-line
    ``message``, and for legal plays the ``missing`` and ``extra`` plays (notation)."""

    status: str
    message: str = ""
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    got: Any = None


class BadAnswer(Exception):
    """The engine's answer has the wrong shape or a play that cannot be applied."""


def _engine_plays(position: Position, result: Any) -> dict[Position, str]:
    if not isinstance(result, dict) or not isinstance(result.get("plays"), list):
        raise BadAnswer(f"expected {{'plays': [...]}}, got {str(result)[:200]}")
    out: dict[Position, str] = {}
    for play in result["plays"]:
        try:
            pos = play_to_position(position, play)
        except (ModelError, TypeError, ValueError, KeyError) as exc:
            raise BadAnswer(f"returned play {play!r} cannot be applied: {exc}") from None
        out.setdefault(pos, _label(position, play, pos))
    if not out:
        out[position.passed()] = "none"
    return out


def _label(position: Position, play: Any, result: Position) -> str:
    from conformance.model import format_play

    if isinstance(play, str):
        return play
    if isinstance(play, (list, tuple)):
        try:
            return format_play(position, play) if play else "none"
        except ModelError:
            return str(play)
    return f"position {result}"


def compare(case: Case, reply: dict) -> Outcome:
    """Judge one reply (``{"result"|"unsupported"|"errored": ...}``) against ``case``."""
    if "unsupported" in reply:
        return Outcome("unsupported", str(reply["unsupported"]))
    if "timeout" in reply:
        return Outcome("timeout", str(reply["timeout"]))
    if "errored" in reply or "result" not in reply:
        return Outcome("errored", str(reply.get("errored", f"reply without result: {str(reply)[:200]}")))
    result = reply["result"]
    try:
        if case.kind == "legal_plays":
            return _compare_plays(case, _engine_plays(case.position, result))
        if case.kind == "play_check":
            return _compare_check(case, result)
        if case.kind == "apply_play":
            return _compare_apply(case, result)
        if case.kind == "codec":
            return _compare_codec(case, result)
        if case.kind in GAME_KINDS:
            return _compare_fields(case, result)
        if case.kind == "perft":
            return _compare_perft(case, result)
    except BadAnswer as exc:
        return Outcome("errored", f"invalid answer: {exc}", got=result)
    return Outcome("unsupported", f"no comparison for kind {case.kind}")


def _compare_plays(case: Case, got: dict[Position, str]) -> Outcome:
    exp: ExpectedPlays = case.expected
    if exp.exact is not None:
        missing = [exp.exact[p] for p in exp.exact if p not in got]
        extra = [got[p] for p in got if p not in exp.exact]
    else:
        missing = [exp.includes[p] for p in exp.includes if p not in got]
        extra = [got[p] for p in got if p in exp.excludes]
    count_wrong = exp.count is not None and len(got) != exp.count
    if not missing and not extra and not count_wrong:
        return Outcome("pass", got=sorted(got.values()))
    parts = []
    if count_wrong or exp.exact is not None:
        parts.append(f"{len(got)} legal plays returned, {exp.count if exp.count is not None else len(exp.exact)} expected")
    if missing:
        parts.append(f"missing: {', '.join(missing)}")
    if extra:
        parts.append(f"extra: {', '.join(extra)}")
    return Outcome("fail", "; ".join(parts), missing, extra, got=sorted(got.values()))


def _compare_check(case: Case, result: Any) -> Outcome:
    if not isinstance(result, dict) or not isinstance(result.get("legal"), bool):
        raise BadAnswer(f"expected {{'legal': bool, 'reason': code}}, got {str(result)[:200]}")
    legal, reason = case.expected
    if result["legal"] != legal:
        said = "legal" if result["legal"] else f"illegal ({result.get('reason', 'no reason given')})"
        want = "legal" if legal else f"illegal ({reason})"
        return Outcome("fail", f"play {case.play!r}: engine says {said}, expected {want}", got=result)
    if not legal and result.get("reason") is not None and result["reason"] != reason:
        return Outcome("fail", f"play {case.play!r} is illegal as expected, but for reason"
                               f" {result['reason']!r}, expected {reason!r}", got=result)
    return Outcome("pass", got=result)


def _compare_apply(case: Case, result: Any) -> Outcome:
    try:
        got = Position.from_dict(result["position"])
    except (ModelError, TypeError, KeyError) as exc:
        raise BadAnswer(f"expected {{'position': board form}}: {exc}") from None
    if got == case.expected:
        return Outcome("pass", got=str(got))
    return Outcome("fail", f"resulting position {got}; expected {case.expected}", got=str(got))


def _compare_codec(case: Case, result: Any) -> Outcome:
    """Position ID strings compare exactly (the encoding is canonical); an XGID
    compares by the position it decodes to (its other fields carry no position)."""
    from conformance.model import decode_xgid

    if not isinstance(result, dict) or "encoded" not in result or "decoded" not in result:
        raise BadAnswer(f"expected {{'encoded': id, 'decoded': position}}, got {str(result)[:200]}")
    problems = []
    if case.raw["codec"] == "xgid":
        try:
            same = decode_xgid(result["encoded"]) == case.position
        except (ModelError, TypeError):
            same = False
    else:
        same = result["encoded"] == case.expected
    if not same:
        problems.append(f"encodes the position as {result['encoded']!r}, expected {case.expected!r}")
    try:
        decoded = Position.from_dict(result["decoded"])
    except (ModelError, TypeError) as exc:
        raise BadAnswer(f"decoded position is invalid: {exc}") from None
    if decoded != case.position:
        problems.append(f"decodes {case.expected!r} as {decoded}, expected {case.position}")
    if problems:
        return Outcome("fail", "; ".join(problems), got=result)
    return Outcome("pass", got=result)


def _normal(key: str, value: Any) -> Any:
    if key == "dice" and isinstance(value, (list, tuple)):
        return sorted(value)
    return value


def _compare_fields(case: Case, result: Any) -> Outcome:
    """Each expected field must be in the answer with the same value (dice in any
    order). A refusal's ``reason`` is compared only when the engine gives one."""
    if not isinstance(result, dict):
        raise BadAnswer(f"expected a mapping with {', '.join(case.expected)}, got {str(result)[:200]}")
    wrong = []
    for key, want in case.expected.items():
        if key == "reason" and "reason" not in result:
            continue
        if key not in result:
            wrong.append(f"{key} missing (expected {want!r})")
        elif _normal(key, result[key]) != _normal(key, want):
            wrong.append(f"{key} is {result[key]!r}, expected {want!r}")
    if wrong:
        return Outcome("fail", "; ".join(wrong), got=result)
    return Outcome("pass", got=result)


def _compare_perft(case: Case, result: Any) -> Outcome:
    """``{"counts": {depth: n}}``; every expected depth must match."""
    if not isinstance(result, dict) or not isinstance(result.get("counts"), dict):
        raise BadAnswer(f"expected {{'counts': {{depth: n}}}}, got {str(result)[:200]}")
    got = {int(d): n for d, n in result["counts"].items()}
    wrong = [f"depth {d}: {got.get(d)} counted, {n} expected" for d, n in sorted(case.expected.items())
             if got.get(d) != n]
    if wrong:
        return Outcome("fail", "; ".join(wrong) + " (bgconf bisect finds the first differing position)",
                       got=got)
    return Outcome("pass", got=got)
