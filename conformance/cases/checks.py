"""The semantic checks of a case: data that passed the schema -> a typed ``Case``.

The third stage of loading (``_semantic``): what the schema cannot say. Spec anchors,
tags and capabilities that exist, ids not retired, rule options, possible positions,
cubes and match states (and what a Match ID carries), plays that can be made, and
expectations that agree with the model: legal plays listed once, codec ids that decode
to the case's state (spec: format.*), game records whose events parse. A problem
raises ``_Problem`` (the path in the case, and the message with the fix). Equal
positions' sides, small tuples and rule dicts are shared between cases.
"""

from __future__ import annotations

from typing import Any

from conformance.model import (
    MATCH_ID_FIELDS,
    XGID_FIELDS,
    CodecError,
    Cube,
    FalseHitMark,
    FibsBoard,
    IdState,
    Match,
    ModelError,
    Position,
    decode_fibs_board,
    decode_match_id,
    decode_position_id,
    decode_xgid_state,
    effective_rules,
    encode_state_dict,
    fibs_state_differences,
    notation_to_position,
    parse_dice,
    parse_event,
    read_position,
    check_variant,
    written_moves,
)

from conformance.cases import resources
from conformance.cases.positions import _board_position, _play_result, _unchecked_position
from conformance.cases.typed import (
    CAPABILITIES,
    KIND_REQUIRES,
    Case,
    ExpectedPlays,
    ExpectedRecord,
    RecordGame,
)


class _Problem(Exception):
    def __init__(self, path: list, message: str):
        super().__init__(message)
        self.path, self.message = path, message


def _position(value, path, sides: dict | None = None, variant: str = "standard") -> Position:
    position = _board_position(value) if variant == "standard" else None
    if position is None:
        try:
            position = read_position(value, variant)
            check_variant(position, variant)
        except ModelError as exc:
            raise _Problem(path, f"impossible position: {exc}") from None
    if sides is None:
        return position
    x, o = sides.setdefault(position.x, position.x), sides.setdefault(position.o, position.o)
    if x is position.x and o is position.o:
        return position
    return _unchecked_position(position.on_roll, x, o)


def _check_hit_marks(position: Position, play: str) -> None:
    """Raise NotationError when a ``*`` marks a point where no blot is hit. A play
    that is physically impossible for another reason is left to the case (an
    illegal play may be the point of a play_check)."""
    try:
        notation_to_position(position, play)
    except FalseHitMark:
        raise
    except ModelError:
        pass


def _semantic(raw: dict, shown: str, line: int, sides: dict | None = None) -> Case:
    kind = raw["kind"]
    anchors = resources.spec_clauses()
    for j, anchor in enumerate(raw["spec"]):
        if anchors and anchor not in anchors:
            raise _Problem(["spec", j], f"unknown spec anchor {anchor!r}; anchors are defined in spec/rules.md")
    tags = resources.registered_tags()
    for j, tag in enumerate(raw.get("tags", [])):
        if tag not in tags:
            raise _Problem(["tags", j], f"tag {tag!r} is not registered; add it to cases/tags.yaml or fix it")
    if raw["id"] in resources.retired_ids():
        raise _Problem(["id"], f"id {raw['id']} is retired (cases/RETIRED); use bgconf new-id")
    default_need = KIND_REQUIRES[f"codec.{raw.get('codec')}" if kind == "codec" and raw.get("codec") != "gnubg_id"
                                 else kind]
    requires = tuple(raw.get("requires") or [default_need])
    for j, cap in enumerate(requires):
        if cap not in CAPABILITIES:
            raise _Problem(["requires", j], f"unknown capability {cap!r}; known: {', '.join(sorted(CAPABILITIES))}")
    try:
        rules = effective_rules(raw.get("rules"))
    except ModelError as exc:
        raise _Problem(["rules"], str(exc)) from None
    carried = _match_id_state(raw, kind, rules)
    if carried:
        raw = {**raw, **carried}
    cube = match = None
    try:
        if kind in ("game_result", "cube_action"):
            cube = Cube.from_dict(raw.get("cube"))
    except ModelError as exc:
        raise _Problem(["cube"], f"impossible cube: {exc}") from None
    try:
        if kind in ("game_result", "cube_action", "opening_roll", "match_transition", "game_record"):
            match = Match.from_dict(raw.get("match"))
    except ModelError as exc:
        raise _Problem(["match"], f"impossible match state: {exc}") from None
    for key in {"cube_action": ("on_roll", "moment", "cube"), "match_transition": ("match",)}.get(kind, ()):
        if key not in raw:
            raise _Problem([], f"a {kind} case needs '{key}' (or a position {{gnubg_id, match_id}} that carries it)")
    if cube is not None:
        if rules["max_cube"] is not None and cube.value > rules["max_cube"]:
            raise _Problem(["cube", "value"], f"cube value {cube.value} is above max_cube {rules['max_cube']}")
        if cube.owner == "center" and cube.value > 1:
            limit = 2 ** rules["automatic_doubles"] if match is None or match.money else 1
            if cube.value > limit:
                raise _Problem(["cube"], f"a centred cube at {cube.value} needs that many automatic doubles"
                                         f" (rules: automatic_doubles), in money play; a turned cube has an owner")
    if match is not None and match.crawford and not rules["crawford"]:
        raise _Problem(["match", "crawford"], "a Crawford game with the rule option crawford: false; drop one")
    variant = rules["variant"]
    position = _position(raw["position"], ["position"], sides, variant) if "position" in raw else None
    dice = None
    if "dice" in raw:
        dice = parse_dice(raw["dice"])
    play = raw.get("play")
    steps = None
    expect = raw["expect"]
    expected: Any = None
    state = None
    try:
        if play is not None:
            steps = list(written_moves(play))
            if "*" in play:
                _check_hit_marks(position, play)
    except ModelError as exc:
        raise _Problem(["play"], f"bad play notation: {exc}") from None
    if kind in ("legal_plays", "play_check", "apply_play") and position.checkers in (position.x[0], position.o[0]):
        raise _Problem(["position"], f"the game is over in this position (a side has borne off all"
                                     f" {position.checkers}): nobody plays; use a game_result case")
    if kind == "legal_plays":
        expected = _expected_plays(position, expect, sides)
    elif kind == "apply_play":
        try:
            notation_to_position(position, play)
        except ModelError as exc:
            raise _Problem(["play"], f"the play cannot be applied to the position: {exc}") from None
        expected = _position(expect["position"], ["expect", "position"], sides, variant)
    elif kind == "play_check":
        if expect.get("legal") and "reason" in expect:
            raise _Problem(["expect", "reason"], "a legal play has no reason; remove 'reason'")
        if not expect.get("legal") and "reason" not in expect:
            raise _Problem(["expect"], "an illegal play needs 'reason' (see spec/schema/case.schema.json)")
        expected = (expect["legal"], expect.get("reason"))
    elif kind == "game_result":
        n = position.checkers
        if sorted(position.side(s)[0] for s in ("x", "o"))[1] != n or position.x[0] == position.o[0] == n:
            raise _Problem(["position"], f"a finished game needs exactly one side with all {n} checkers borne"
                                         f" off (off: {n})")
        expected = dict(expect)
    elif kind == "cube_action":
        if expect["allowed"] != ("reason" not in expect):
            raise _Problem(["expect"], "an allowed action has no reason; a refused one needs 'reason'")
        if expect["allowed"] and ("game_over" in expect) == ("cube" in expect or "moment" in expect):
            raise _Problem(["expect"], "an allowed action gives either 'game_over' or the new 'moment' and 'cube'")
        if expect["allowed"] and "game_over" not in expect and not ("cube" in expect and "moment" in expect):
            raise _Problem(["expect"], "give both the new 'moment' and the new 'cube'")
        expected = dict(expect)
    elif kind == "opening_roll":
        throws = raw["throws"]
        for j, (a, b) in enumerate(throws):
            last = j == len(throws) - 1
            if last and a == b:
                raise _Problem(["throws", j], f"the last throw [{a}, {b}] is a tie: ties are thrown again")
            if not last and a != b:
                raise _Problem(["throws", j], f"throw [{a}, {b}] already decides who starts; nothing follows it")
        expected = dict(expect)
    elif kind == "match_transition":
        expected = dict(expect)
    elif kind == "perft":
        expected = {int(d): n for d, n in expect["counts"].items()}
    elif kind == "game_record":
        games, expected = _record(raw, sides)
    elif kind == "codec":
        expected, state = _codec_expectation(raw, position)
    return Case(
        id=raw["id"], title=raw["title"], kind=kind, spec=_shared(tuple(raw["spec"])),
        level=raw.get("level", "must"), tags=_shared(tuple(raw.get("tags", []))), requires=_shared(requires),
        rules=dict(raw.get("rules") or {}), file=shown, line=line, position=position, dice=dice,
        play=play, steps=steps, expect=expect, expected=expected,
        provenance=raw["provenance"], raw=raw, effective_rules=_shared_rules(rules), cube=cube, match=match,
        games=games if kind == "game_record" else (),
        state=state)


def _match_id_state(raw: dict, kind: str, rules: dict) -> dict:
    """What a ``position: {gnubg_id, match_id}`` carries into a case (spec: format.match-id):
    the cube, the match (post-Crawford inferred from the score, as GNU Backgammon does) and,
    for cube_action, the side on roll and the moment. Keys the case gives itself must agree.
    Returns the keys to add to the case ({} without a Match ID)."""
    value = raw.get("position")
    if not isinstance(value, dict) or value.get("match_id") is None:
        return {}
    if kind == "codec":
        raise _Problem(["position", "match_id"], "a codec case tests one format: give the Match ID to a"
                                                 " gnubg_match_id case")
    try:
        state = decode_match_id(value["match_id"])
    except ModelError as exc:
        raise _Problem(["position", "match_id"], str(exc)) from None
    m = state.match
    carried: dict = {"cube": state.cube.to_dict(),
                     "match": {"length": m.length, "score": dict(m.score), "crawford": m.crawford,
                               "post_crawford": state.post_crawford(rules["crawford"])}}
    if kind == "cube_action":
        carried["on_roll"] = state.on_roll
        carried["moment"] = ("double_offered" if state.double_offered else "after_roll" if state.dice
                             else "before_roll")
    if kind in ("legal_plays", "play_check", "apply_play", "perft") and state.dice and "dice" in raw:
        try:
            if sorted(parse_dice(raw["dice"])) != sorted(state.dice):
                raise _Problem(["dice"], f"dice {raw['dice']} but the Match ID {value['match_id']} has"
                                         f" {list(state.dice)}")
        except ModelError:
            pass  # the dice are checked where they are read
    if kind not in ("game_result", "cube_action", "match_transition"):
        return {}
    out = {}
    for key, got in carried.items():
        if key not in raw:
            out[key] = got
            continue
        given = raw[key]
        if key == "cube":
            same = Cube.from_dict(given) == state.cube
        elif key == "match":
            try:
                same = Match.from_dict(given).to_dict() == Match.from_dict(got).to_dict()
            except ModelError:
                same = True  # reported where the match is read
        else:
            same = given == got
        if not same and key == "moment" and given in ("beaver_offered", "raccoon_offered") and got == "double_offered":
            same = True  # a Match ID has no field for a beaver or a raccoon offered
        if not same:
            raise _Problem([key], f"{key} is {given!r} but the Match ID {value['match_id']} says {got!r};"
                                  f" give it in one place")
    return out


def _refusal_of(fmt: str, raw: dict) -> str | None:
    """The reason the model refuses the case's ``decode`` or ``encode`` input, or None
    when it accepts it."""
    try:
        if "encode" in raw:
            if fmt != "gnubg_match_id":
                raise _Problem(["encode"], "encode refusals are written for gnubg_match_id states; give an id"
                                           " to refuse with 'decode'")
            encode_state_dict(raw["encode"])
        elif fmt == "gnubg_id":
            decode_position_id(raw["decode"])
        elif fmt == "xgid":
            decode_xgid_state(raw["decode"])
        else:
            decode_match_id(raw["decode"])
    except CodecError as exc:
        return exc.reason
    return None


def _codec_expectation(raw: dict, position: Position | None) -> tuple[Any, IdState | None]:
    """A codec case's expectation: the id (with the state it decodes to for Match IDs and
    XGIDs), or ``("refused", reason)``; checked against the model (spec: format.refusal)."""
    fmt, expect = raw["codec"], raw["expect"]
    refusing = [k for k in ("decode", "encode") if k in raw]
    if len(refusing) > 1:
        raise _Problem([refusing[1]], "a refusal case gives one input: 'decode' (an id) or 'encode' (a state)")
    if refusing:
        if "refused" not in expect:
            raise _Problem(["expect"], f"a case with '{refusing[0]}' expects {{refused: reason}}")
        for key in ("position", "state"):
            if key in raw:
                raise _Problem([key], f"a refusal case has no '{key}': the input is '{refusing[0]}' alone")
        found = _refusal_of(fmt, raw)
        if found is None:
            raise _Problem([refusing[0]], f"the {fmt} codec accepts this input; a refusal case needs one it refuses")
        if found != expect["refused"]:
            raise _Problem(["expect", "refused"], f"the {fmt} codec refuses this input as {found!r},"
                                                  f" not {expect['refused']!r}")
        return ("refused", expect["refused"]), None
    if fmt not in expect:
        raise _Problem(["expect"], f"a {fmt} codec case expects {{{fmt}: ...}} or, with 'decode', {{refused: ...}}")
    expected = expect[fmt]
    if fmt == "fibs_board":
        if position is None:
            raise _Problem(["expect"], "a fibs_board codec case gives the 'position' its line decodes to")
        _check_fibs_case(raw, position, expected)
        return expected, None
    state = None
    if fmt == "gnubg_match_id":
        if position is not None:
            raise _Problem(["position"], "a Match ID carries no checkers: give 'state', not 'position'")
        if "state" not in raw:
            raise _Problem(["expect"], "a gnubg_match_id codec case gives the 'state' its Match ID decodes to")
        try:
            state = IdState.from_dict(raw["state"])
            decoded = decode_match_id(expected)
        except ModelError as exc:
            raise _Problem(["state"] if "state" in str(exc) else ["expect", fmt], str(exc)) from None
        wrong = decoded.differences(state, MATCH_ID_FIELDS)
        if wrong:
            raise _Problem(["expect", fmt], f"{expected} does not decode to the case's state: {'; '.join(wrong)}")
        return expected, state
    if position is None:
        raise _Problem(["expect"], f"a {fmt} codec case gives the 'position' its id decodes to")
    if fmt == "xgid":
        given = {"on_roll": position.on_roll, "beavers": False, "max_cube": 1 << 10, **(raw.get("state") or {})}
        try:
            state = IdState.from_dict(given)
        except ModelError as exc:
            raise _Problem(["state"], f"impossible state: {exc}") from None
        try:
            decoded, decoded_state = decode_xgid_state(expected)
        except ModelError as exc:
            raise _Problem(["expect", fmt], str(exc)) from None
        wrong = decoded_state.differences(state, XGID_FIELDS)
        if wrong:
            raise _Problem(["expect", fmt], f"{expected} does not decode to the case's state: {'; '.join(wrong)}")
    else:
        if "state" in raw:
            raise _Problem(["state"], "a Position ID carries no state; a gnubg_match_id case does")
        try:
            decoded = decode_position_id(expected, position.on_roll, position.checkers)
        except ModelError as exc:
            raise _Problem(["expect", fmt], str(exc)) from None
    if decoded != position:
        raise _Problem(["expect", fmt], f"{expected} decodes to {decoded}, not to the case's position")
    return expected, state


def _check_fibs_case(raw: dict, position: Position, line: str) -> None:
    """A fibs_board codec case: its line must decode to the case's position and to every
    field of its ``fibs`` state (spec: format.fibs-board)."""
    try:
        want = FibsBoard.from_state(position, raw.get("fibs"))
    except ModelError as exc:
        raise _Problem(["fibs"], str(exc)) from None
    try:
        got = decode_fibs_board(line)
    except ModelError as exc:
        raise _Problem(["expect", "fibs_board"], str(exc)) from None
    if got.position != position:
        raise _Problem(["expect", "fibs_board"], f"the line decodes to {got.position}, not to the case's position")
    wrong = fibs_state_differences(want.state(), got.state())
    if wrong:
        raise _Problem(["expect", "fibs_board"], f"the line does not say what 'fibs' says: {'; '.join(wrong)}")


_SHARED: dict = {}


def _shared(value):
    """One object for equal small values of many cases (spec, tags, requires)."""
    if len(_SHARED) > 4096:
        _SHARED.clear()
    try:
        return _SHARED.setdefault(value, value)
    except TypeError:
        return value


def _shared_rules(rules: dict) -> dict:
    """One dict for the effective rules of all cases with the same rule options (most
    cases have none); like the cases of a scenario, cases share it: read, do not change it."""
    if len(_SHARED_RULES) > 1024:
        _SHARED_RULES.clear()
    try:
        return _SHARED_RULES.setdefault(tuple(rules.items()), rules)
    except TypeError:
        return rules


_SHARED_RULES: dict = {}


def _record_state(value: dict, path: list, sides: dict | None) -> dict:
    state = dict(value)
    if "position" in state:
        state["position"] = _position(state["position"], path + ["position"], sides)
    if "cube" in state:
        try:
            Cube.from_dict(state["cube"])
        except ModelError as exc:
            raise _Problem(path + ["cube"], f"impossible cube: {exc}") from None
    if state.get("moment") == "opening" and ("position" in state or "on_roll" in state):
        raise _Problem(path, "during the opening throw nobody is on roll yet: no position or on_roll")
    return state


def _record(raw: dict, sides: dict | None) -> tuple[tuple, ExpectedRecord]:
    """The games and the expectation of a game_record case; a _Problem names the event
    (its number in the record and its text) that cannot be read."""
    games, refused, states, texts = [], [], [], []
    n = 0
    for i, game in enumerate(raw["games"]):
        position = cube = None
        if "position" in game:
            position = _position(game["position"], ["games", i, "position"], sides)
            if 15 in (position.x[0], position.o[0]):
                raise _Problem(["games", i, "position"], f"game {i + 1} starts from a finished position"
                                                         f" (a side has borne off all 15)")
        if "cube" in game:
            try:
                cube = Cube.from_dict(game["cube"])
            except ModelError as exc:
                raise _Problem(["games", i, "cube"], f"impossible cube: {exc}") from None
            if position is None:
                raise _Problem(["games", i, "cube"], f"game {i + 1} starts from the starting position, where"
                                                     f" the cube is centred at 1; give a position with the cube")
        events = []
        for j, item in enumerate(game["events"]):
            n += 1
            where = ["games", i, "events", j]
            if isinstance(item, dict) and "event" not in item:  # x 31: 8/5 6/5, which YAML reads as a mapping
                (key, play), = item.items()
                item = f"{key}: {play}"
            text = item if isinstance(item, str) else item["event"]
            try:
                event = parse_event(text)
            except ModelError as exc:
                raise _Problem(where, f"event {n} (game {i + 1}): {exc}") from None
            events.append({"n": n, **event})
            texts.append(event["text"])
            refused.append(None if isinstance(item, str) else item.get("refused"))
            expect = None if isinstance(item, str) else item.get("expect")
            states.append(None if expect is None else _record_state(expect, where + ["expect"], sides))
        games.append(RecordGame(position, cube, tuple(events)))
    final = _record_state(raw["expect"], ["expect"], sides)
    if refused[-1] is not None and not final:
        raise _Problem(["expect"], "give the state expected after the last event")
    return tuple(games), ExpectedRecord(tuple(refused), tuple(states), final, tuple(texts))


def _plays_map(position: Position, plays: list, key: str, sides: dict | None = None) -> dict:
    out: dict = {}
    for j, text in enumerate(plays):
        try:
            result = _play_result(position, text, sides)
        except ModelError as exc:
            raise _Problem(["expect", key, j], f"expected play {text!r} cannot be applied: {exc}") from None
        if result in out:
            raise _Problem(["expect", key, j],
                           f"{text!r} and {out[result]!r} are the same play (same resulting position);"
                           f" list it once")
        out[result] = text
    return out


def _expected_plays(position: Position, expect: dict, sides: dict | None = None) -> ExpectedPlays:
    exact = None
    if "plays" in expect:
        exact = _plays_map(position, expect["plays"], "plays", sides)
        if not exact:
            exact = {position.passed(): "none"}
        if "count" in expect and expect["count"] != len(exact):
            raise _Problem(["expect", "count"], f"count {expect['count']} but {len(exact)} plays are listed")
    includes = _plays_map(position, expect.get("includes", []), "includes", sides)
    excludes = _plays_map(position, expect.get("excludes", []), "excludes", sides)
    both = set(includes) & set(excludes)
    if both:
        raise _Problem(["expect"], f"a play is both included and excluded: {includes[next(iter(both))]!r}")
    return ExpectedPlays(exact, expect.get("count"), includes, excludes)
