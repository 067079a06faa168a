"""Comparing an engine's reply with a case's expectation.

Legal plays compare as sets of resulting positions (spec: move.same-play):
the verdict lists the **missing** plays (expected, not returned) and the
**extra** plays (returned, not expected), each in notation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.model import (
    IdState,
    ModelError,
    Position,
    decode_match_id,
    decode_xgid_state,
    play_to_position,
)

from conformance.cases import CODEC_FIELDS, Case, ExpectedPlays, ExpectedRecord

GAME_KINDS = ("game_result", "cube_action", "opening_roll", "match_transition")
STATUSES = ("pass", "fail", "errored", "unsupported", "xfail", "xpass", "timeout")


@dataclass
class Outcome:
    """The verdict on one case: ``status`` (one of STATUSES), a one-line
    ``message``, for legal plays the ``missing`` and ``extra`` plays and the plays the
    engine listed more than once (``duplicates``: notation, ``"... (3 times)"``), all in
    notation, and what the engine answered (``got``)."""

    status: str
    message: str = ""
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    got: Any = None
    duplicates: list[str] = field(default_factory=list)


class BadAnswer(Exception):
    """The engine's answer has the wrong shape or a play that cannot be applied; the
    message names the path of the bad value (``result.plays[3]``) and the shape wanted."""


#: How a pass (a play that moves nothing) reads in failure texts.
NO_PLAY = "(no play: the engine passed)"
_PLAY_SHAPE = ("a play is a list of [from, to] steps ([[13, 7], [7, 5]]), a notation string (\"13/7 7/5\")"
               " or a resulting position in board form")


def _check_play_shape(play: Any, where: str) -> None:
    if isinstance(play, (str, dict)):
        return
    if not isinstance(play, (list, tuple)):
        raise BadAnswer(f"{where} is {_short(play)}: {_PLAY_SHAPE}")
    for j, step in enumerate(play):
        if (not isinstance(step, (list, tuple)) or len(step) != 2
                or not all(isinstance(n, int) and not isinstance(n, bool) for n in step)):
            raise BadAnswer(f"{where}[{j}] is {_short(step)}: a step is [from, to], two whole numbers"
                            f" (25 = bar, 0 = off)")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _engine_plays(position: Position, result: Any) -> dict[Position, str]:
    """The engine's plays by resulting position (notation). Raises BadAnswer."""
    return engine_plays(position, result)[0]


def engine_plays(position: Position, result: Any) -> tuple[dict[Position, str], list[str]]:
    """The engine's plays by resulting position (notation), and the plays it listed more
    than once (``"13/10 6/5 (2 times)"``). Raises BadAnswer naming the bad value's path."""
    if not isinstance(result, dict) or not isinstance(result.get("plays"), list):
        if isinstance(result, dict) and "plays" in result:
            raise BadAnswer(f"result.plays is {_short(result['plays'])}: expected a list of plays ({_PLAY_SHAPE})")
        raise BadAnswer(f"result is {_short(result)}: expected {{\"plays\": [play, ...]}} ({_PLAY_SHAPE})")
    out: dict[Position, str] = {}
    times: dict[Position, int] = {}
    for i, play in enumerate(result["plays"]):
        _check_play_shape(play, f"result.plays[{i}]")
        try:
            pos = play_to_position(position, play)
        except (ModelError, TypeError, ValueError, KeyError) as exc:
            raise BadAnswer(f"result.plays[{i}] {_short(play)} cannot be applied: {exc}") from None
        out.setdefault(pos, _label(position, play, pos))
        times[pos] = times.get(pos, 0) + 1
    if not out:
        out[position.passed()] = NO_PLAY
    duplicates = [f"{out[p]} ({n} times)" for p, n in times.items() if n > 1]
    return out, duplicates


def _label(position: Position, play: Any, result: Position) -> str:
    from conformance.model import format_play

    if result == position.passed():
        return NO_PLAY
    if isinstance(play, str):
        return play
    if isinstance(play, (list, tuple)):
        try:
            return format_play(position, play) if play else NO_PLAY
        except ModelError:
            return str(play)
    return f"position {result}"


def compare(case: Case, reply: dict, strict_sets: bool = False) -> Outcome:
    """Judge one reply (``{"result"|"unsupported"|"errored": ...}``) against ``case``.

    A legal_plays reply that lists one resulting position more than once is reported
    (``Outcome.duplicates``); with ``strict_sets`` it fails the case (spec/protocol.md)."""
    if "unsupported" in reply:
        return Outcome("unsupported", str(reply["unsupported"]))
    if "timeout" in reply:
        return Outcome("timeout", str(reply["timeout"]))
    if "errored" in reply or "result" not in reply:
        return Outcome("errored", str(reply.get("errored", f"reply without result: {str(reply)[:200]}")))
    result = reply["result"]
    try:
        if case.kind == "legal_plays":
            plays, duplicates = engine_plays(case.position, result)
            outcome = _compare_plays(case, plays)
            if duplicates:
                outcome.duplicates = duplicates
                note = f"{len(duplicates)} play(s) listed more than once: {', '.join(duplicates)}"
                if strict_sets and outcome.status == "pass":
                    outcome.status = "fail"
                    outcome.message = note + " (--strict-sets)"
                else:
                    outcome.message = "; ".join(filter(None, [outcome.message, "warning: " + note]))
            return outcome
        if case.kind == "chosen_play":
            return _compare_chosen(case, result)
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
        if case.kind == "game_record":
            return _compare_record(case, result)
    except BadAnswer as exc:
        return Outcome("errored", f"invalid answer: {exc}", got=_short(result))
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
        return Outcome("errored", f"invalid answer: result {_short(result)} has the wrong shape for a"
                                  f" {case.kind} answer ({type(exc).__name__}: {exc})", got=_short(result))
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


#: How many legal plays a chosen_play failure lists (the count is always given).
SHOWN_LEGAL = 12


def legal_set(case: Case) -> dict[Position, str]:
    """The legal plays of a legal_plays (or chosen_play) case by resulting position
    (notation): the case's exact set, or, for a case that gives only a count with some
    included and excluded plays, the reference engine's set (``bgconf validate`` checks it
    against the count)."""
    exp: ExpectedPlays = case.expected
    if exp.exact is not None:
        return exp.exact
    from conformance.model import format_play
    from reference_impl.movegen import legal_plays

    found = legal_plays(case.position, case.dice)
    return {pos: (format_play(case.position, steps) if steps else "none") for pos, steps in found.items()}


def _compare_chosen(case: Case, result: Any) -> Outcome:
    """``{"play": play}`` (a step list, notation or resulting position; ``null`` or ``[]`` for
    no play): the play must be one of the legal plays, and "no play" only when no play is
    legal (spec: protocol, chosen-play; rules: move.same-play, move.pass)."""
    if not isinstance(result, dict) or "play" not in result:
        raise BadAnswer(f"result is {_short(result)}: expected {{\"play\": play or null}} ({_PLAY_SHAPE})")
    play = result["play"]
    if play is None or play == "" or play == []:
        chosen, label = case.position.passed(), NO_PLAY
    else:
        _check_play_shape(play, "result.play")
        try:
            chosen = play_to_position(case.position, play)
        except (ModelError, TypeError, ValueError, KeyError) as exc:
            raise BadAnswer(f"result.play {_short(play)} cannot be applied: {exc}") from None
        label = _label(case.position, play, chosen)
    legal = legal_set(case)
    if chosen in legal:
        return Outcome("pass", got=label)
    nothing = list(legal) == [case.position.passed()]
    names = sorted(legal.values())
    shown = ", ".join(names[:SHOWN_LEGAL]) + (f", ... ({len(names) - SHOWN_LEGAL} more)" if len(names) > SHOWN_LEGAL else "")
    if nothing:
        return Outcome("fail", f"chose {label}, but no play is legal with {case.dice[0]}-{case.dice[1]}",
                       extra=[label], got=label)
    if chosen == case.position.passed():
        return Outcome("fail", f"chose no play, but {len(names)} legal play(s) exist: {shown}",
                       missing=names[:SHOWN_LEGAL], got=label)
    return Outcome("fail", f"chose {label}, which is not a legal play; the {len(names)} legal play(s): {shown}",
                   extra=[label], got=label)


def _compare_check(case: Case, result: Any) -> Outcome:
    if not isinstance(result, dict):
        raise BadAnswer(f"result is {_short(result)}: expected {{\"legal\": true|false, \"reason\": code}}")
    if not isinstance(result.get("legal"), bool):
        raise BadAnswer(f"result.legal is {_short(result.get('legal'))}: expected true or false")
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
    if not isinstance(result, dict) or "position" not in result:
        raise BadAnswer(f"result is {_short(result)}: expected {{\"position\": board form}}")
    try:
        got = Position.from_dict(result["position"])
    except (ModelError, TypeError, KeyError, ValueError, AttributeError) as exc:
        raise BadAnswer(f"result.position is not a position in board form: {exc}") from None
    if got == case.expected:
        return Outcome("pass", got=str(got))
    return Outcome("fail", f"resulting position {got}; expected {case.expected}", got=str(got))


def _compare_codec(case: Case, result: Any) -> Outcome:
    """Judge a codec answer (spec: format.position-id, format.match-id, format.xgid,
    format.refusal).

    A Position ID compares as a string (the encoding is canonical). A Match ID and an XGID
    compare field by field, never as strings: the id the engine wrote is decoded by the model
    and each field it carries (CODEC_FIELDS) must be the case's; so must each field of the
    engine's own decoding. A refusal case passes when the engine refuses (``{"refused":
    reason}``; the reason, when given, must be the case's) and fails when it decodes or
    encodes the input."""
    if not isinstance(result, dict):
        raise BadAnswer(f"result is {_short(result)}: expected {{\"encoded\": id, \"decoded\": ...}}"
                        f" or {{\"refused\": reason}}")
    fmt = case.raw["codec"]
    if isinstance(case.expected, tuple):
        return _compare_refusal(case, result)
    if "refused" in result:
        return Outcome("fail", f"refused ({result.get('refused')}: {str(result.get('message', ''))[:200]}) an input"
                               f" the {fmt} codec must accept: {case.expected!r}", got=result)
    if "encoded" not in result or "decoded" not in result:
        raise BadAnswer(f"result is {_short(result)}: expected {{\"encoded\": id, \"decoded\": ...}}")
    if fmt == "fibs_board":
        return _compare_fibs(case, result)
    if fmt == "gnubg_match_id":
        problems = _id_state_problems(case, result, None)
    elif fmt == "xgid":
        problems = _id_state_problems(case, result, _decoded_position(result))
    else:
        problems = []
        if result["encoded"] != case.expected:
            problems.append(f"encodes the position as {result['encoded']!r}, expected {case.expected!r}")
        decoded = _decoded_position(result)
        if decoded != case.position:
            problems.append(f"decodes {case.expected!r} as {decoded}, expected {case.position}")
    if problems:
        return Outcome("fail", "; ".join(problems), got=result)
    return Outcome("pass", got=result)


def _decoded_position(result: dict) -> Position:
    try:
        return Position.from_dict(result["decoded"])
    except (ModelError, TypeError, KeyError, ValueError, AttributeError) as exc:
        raise BadAnswer(f"result.decoded is not a position in board form: {exc}") from None


def _id_state_problems(case: Case, result: dict, decoded: Position | None) -> list[str]:
    """Field-by-field problems of a Match ID or XGID answer (``decoded``: the engine's board
    for an XGID, None for a Match ID, whose decoding is the state itself)."""
    fmt, want = case.raw["codec"], case.state
    fields = CODEC_FIELDS[fmt]
    problems = []
    try:
        if fmt == "xgid":
            board, wrote = decode_xgid_state(result["encoded"])
            if board != case.position:
                problems.append(f"encodes the position as {result['encoded']!r}, whose board is {board},"
                                f" expected {case.position}")
        else:
            wrote = decode_match_id(result["encoded"])
    except (ModelError, TypeError) as exc:
        problems.append(f"encodes the state as {str(result['encoded'])[:80]!r}, which is not a valid {fmt}: {exc}")
    else:
        wrong = wrote.differences(want, fields)
        if wrong:
            problems.append(f"encodes the state as {result['encoded']!r}, in which {'; '.join(wrong)}")
    if decoded is not None and decoded != case.position:
        problems.append(f"decodes {case.expected!r} as {decoded}, expected {case.position}")
    raw_state = result["decoded"] if fmt == "gnubg_match_id" else result.get("state")
    if raw_state is None:
        problems.append(f"gives no decoded state for {case.expected!r} (an XGID answer has \"state\" beside"
                        f" \"decoded\")")
        return problems
    try:
        got = IdState.from_dict(raw_state)
    except (ModelError, TypeError, ValueError, AttributeError) as exc:
        raise BadAnswer(f"the decoded state is not a state: {exc}") from None
    wrong = got.differences(want, fields)
    if wrong:
        problems.append(f"decodes {case.expected!r} with {'; '.join(wrong)}")
    return problems


def _compare_refusal(case: Case, result: dict) -> Outcome:
    _, reason = case.expected
    given = case.raw.get("decode", case.raw.get("encode"))
    verb = "decodes" if "decode" in case.raw else "encodes"
    if "refused" not in result:
        said = result.get("decoded", result.get("encoded"))
        return Outcome("fail", f"{verb} {_short(given)} (as {_short(said)}); expected a refusal ({reason})",
                       got=result)
    got = result["refused"]
    if isinstance(got, str) and got != reason:
        return Outcome("fail", f"refuses {_short(given)} for reason {got!r}, expected {reason!r}", got=result)
    return Outcome("pass", got=result)


def _compare_fibs(case: Case, result: dict) -> Outcome:
    """A FIBS board line is not canonical (names, orientation, the informative fields
    49-52), so the engine's line compares by what it decodes to: the position and each
    field of the case's ``fibs`` state; its ``decoded`` is ``{"position": board form,
    <state fields>}`` (spec: format.fibs-board)."""
    from conformance.model import FibsBoard, decode_fibs_board, fibs_state_differences

    want = FibsBoard.from_state(case.position, case.raw.get("fibs"))
    problems = []
    try:
        mine = decode_fibs_board(result["encoded"])
        wrong = ([] if mine.position == case.position else [f"position {mine.position}"])
        wrong += fibs_state_differences(want.state(), mine.state())
        if wrong:
            problems.append(f"its line {_short(result['encoded'])} reads back as: {'; '.join(wrong)}")
    except (ModelError, TypeError, AttributeError) as exc:
        problems.append(f"its line {_short(result['encoded'])} is not a FIBS board: {exc}")
    decoded = result["decoded"]
    if not isinstance(decoded, dict) or "position" not in decoded:
        raise BadAnswer(f"result.decoded is {_short(decoded)}: expected {{\"position\": board form, \"dice\", "
                        f"\"cube\", \"may_double\", \"doubled\", \"match_length\", \"score\", ...}}")
    try:
        position = Position.from_dict(decoded["position"])
    except (ModelError, TypeError, KeyError, ValueError, AttributeError) as exc:
        raise BadAnswer(f"result.decoded.position is not a position in board form: {exc}") from None
    wrong = ([] if position == case.position else [f"position {position}, expected {case.position}"])
    wrong += fibs_state_differences(want.state(), decoded)
    if wrong:
        problems.append(f"decodes {case.expected!r} with {'; '.join(wrong)}")
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
        raise BadAnswer(f"result is {_short(result)}: expected an object with {', '.join(case.expected)}")
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
        raise BadAnswer(f"result is {_short(result)}: expected {{\"counts\": {{depth: n}}}}")
    try:
        got = {int(d): n for d, n in result["counts"].items()}
    except ValueError:
        raise BadAnswer(f"result.counts has a key that is not a depth: {_short(result['counts'])}") from None
    wrong = [f"depth {d}: {got.get(d)} counted, {n} expected" for d, n in sorted(case.expected.items())
             if got.get(d) != n]
    if wrong:
        return Outcome("fail", "; ".join(wrong) + " (bgconf bisect finds the first differing position)",
                       got=got)
    return Outcome("pass", got=got)


def _state_problems(want: dict, got: Any) -> list[str]:
    """The expected state fields that the engine's state lacks or gives otherwise (a
    position compares as a position, dice in any order)."""
    if not isinstance(got, dict):
        return [f"no state given (expected {', '.join(want)})"]
    wrong = []
    for key, value in want.items():
        if key not in got or got[key] is None:
            wrong.append(f"{key} missing (expected {_shown(key, value)})")
            continue
        if key == "position":
            try:
                same = Position.from_dict(got[key]) == value
            except (ModelError, TypeError, KeyError, ValueError, AttributeError) as exc:
                raise BadAnswer(f"a state's position is not a position in board form: {exc}") from None
        else:
            same = _normal(key, got[key]) == _normal(key, value)
        if not same:
            wrong.append(f"{key} is {_shown(key, got[key])}, expected {_shown(key, value)}")
    return wrong


def _shown(key: str, value: Any) -> str:
    if key == "position" and isinstance(value, dict):
        try:
            return str(Position.from_dict(value))
        except (ModelError, TypeError, KeyError, ValueError, AttributeError):
            return _short(value)
    return str(value) if key == "position" else repr(value)


def _compare_record(case: Case, result: Any) -> Outcome:
    """``{"events": [{"accepted": bool, "reason"?: code, "state"?: {...}}, ...]}``, one
    answer per event of the record in order. Each event must be accepted, or refused
    where the case says so (the reason compared when the engine gives one); each
    expected state, and the final one, must match the engine's state after that event
    (spec: record.refusal; spec/protocol.md, game_record)."""
    exp: ExpectedRecord = case.expected
    if not isinstance(result, dict) or not isinstance(result.get("events"), list):
        raise BadAnswer(f"result is {_short(result)}: expected {{\"events\": [{{\"accepted\": bool, \"state\": ...}},"
                        f" ...]}}, one answer per event")
    answers = result["events"]
    if len(answers) != len(exp.texts):
        raise BadAnswer(f"result.events has {len(answers)} answers for the {len(exp.texts)} events of the record")
    wrong: list[str] = []
    for i, answer in enumerate(answers):
        if not isinstance(answer, dict) or not isinstance(answer.get("accepted"), bool):
            raise BadAnswer(f"result.events[{i}] is {_short(answer)}: expected {{\"accepted\": true|false, ...}}")
        label = f"event {i + 1} {exp.texts[i]!r}"
        want = exp.refused[i]
        if want is None and not answer["accepted"]:
            why = answer.get("reason") or answer.get("message") or "no reason given"
            wrong.append(f"{label}: refused ({why}), expected accepted")
        elif want is not None and answer["accepted"]:
            wrong.append(f"{label}: accepted, expected refused ({want})")
        elif want is not None and answer.get("reason") is not None and answer["reason"] != want:
            wrong.append(f"{label}: refused for reason {answer['reason']!r}, expected {want!r}")
        checks = [exp.states[i]] if exp.states[i] else []
        if i == len(answers) - 1:
            checks.append(exp.final)
        for state in checks:
            wrong.extend(f"after {label}: {p}" for p in _state_problems(state, answer.get("state")))
    got = [("accepted" if a["accepted"] else f"refused ({a.get('reason') or a.get('message') or '?'})")
           for a in answers]
    if wrong:
        more = f"; and {len(wrong) - 3} more" if len(wrong) > 3 else ""
        return Outcome("fail", "; ".join(wrong[:3]) + more, got=got)
    return Outcome("pass", got=got)
