"""The model: positions, Position ID codec, notation."""

import pytest
from hypothesis import given, settings

from conformance.model import (
    MATCH_ID_FIELDS, XGID_FIELDS, CodecError, Cube, IdState, Match, NotationError, Position, PositionError,
    apply_steps, decode_match_id, decode_position_id, decode_xgid_state, encode_match_id, encode_position_id,
    encode_state_dict, encode_xgid_state, format_play, notation_to_position, parse_dice, parse_play,
)
from conformance.harness.strategies import dice, id_states, positions
from reference_impl import legal_plays


def side(points, bar=0):
    return {"points": points, "bar": bar}


def test_start_position_id_is_the_published_one():
    # GNU Backgammon manual, "A technical description of the Position ID"
    assert encode_position_id(Position.start()) == "4HPwATDgc/ABMA"
    assert decode_position_id("4HPwATDgc/ABMA") == Position.start()


def test_first_block_is_the_side_not_on_roll():
    # after an opening 3-1 played 8/5 6/5, the other side on roll (published id)
    after = notation_to_position(Position.start(), "8/5 6/5")
    assert after.on_roll == "o"
    assert encode_position_id(after) == "sGfwATDgc/ABMA"
    decoded = decode_position_id("XwAAgPceAAAAAA")
    assert decoded.mover[1:4] == (4, 4, 4) and decoded.mover[0] == 3
    assert decoded.opponent[1] == 5 and decoded.opponent[2] == 1 and decoded.opponent[0] == 9


@given(positions())
def test_position_id_round_trips(pos):
    assert decode_position_id(encode_position_id(pos), on_roll=pos.on_roll) == pos


@pytest.mark.parametrize("text", ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////"])
def test_bad_position_ids_raise_codec_error(text):
    with pytest.raises(CodecError):
        decode_position_id(text)


def test_sixteen_checkers_is_an_error_naming_the_side():
    with pytest.raises(PositionError, match="side x has 16 checkers"):
        Position.from_dict({"on_roll": "x", "x": side({13: 10, 6: 6}), "o": side({6: 5})})


def test_shared_point_is_an_error_naming_the_point():
    with pytest.raises(PositionError, match="shared by both sides"):
        Position.from_dict({"on_roll": "x", "x": side({20: 1}), "o": side({5: 2})})


def test_off_given_wrongly_is_an_error():
    with pytest.raises(PositionError, match="off must be 14"):
        Position.from_dict({"on_roll": "x", "x": {"points": {3: 1}, "off": 3}, "o": side({6: 1})})


@pytest.mark.parametrize("text,token", [("13-11", "13-11"), ("24/18 13/x", "13/x"), ("bar", "bar"),
                                        ("6/8", "6/8"), ("off/3", "off/3"), ("*13/7", "*13/7")])
def test_bad_notation_names_the_token(text, token):
    with pytest.raises(NotationError) as err:
        parse_play(text)
    assert token in str(err.value)


def test_false_hit_mark_is_an_error():
    with pytest.raises(NotationError, match="no blot"):
        notation_to_position(Position.start(), "13/7*")


def test_lenient_notation_forms_agree():
    start = Position.start()
    same = {notation_to_position(start, t) for t in
            ["24/18 13/11", "13/11, 24/18", "24/18 13/11", "13/11 24/18"]}
    assert len(same) == 1
    assert notation_to_position(start, "8/5(2)") == notation_to_position(start, "8/5 8/5")
    assert notation_to_position(start, "6/2 8/6") == notation_to_position(start, "8/6/2")


def test_hit_on_intermediate_point():
    pos = Position.from_dict({"on_roll": "x", "x": side({13: 1}), "o": side({18: 1, 24: 2})})
    after = notation_to_position(pos, "13/7*/5")
    assert after.o[25] == 1 and after.x[5] == 1
    # the unwritten intermediate point is taken as not hitting
    assert notation_to_position(pos, "13/5").o[25] == 0


def test_parse_dice():
    assert parse_dice([6, 5]) == (6, 5)
    assert parse_dice("6-5") == (6, 5)
    for bad in ([7, 1], [1], "x1", [0, 3]):
        with pytest.raises(ValueError):
            parse_dice(bad)


@settings(max_examples=200)
@given(positions(), dice())
def test_canonical_notation_reproduces_the_play(pos, roll):
    """format_play then parsing gives back the same resulting position."""
    for result, steps in legal_plays(pos, roll).items():
        text = format_play(pos, steps)
        assert notation_to_position(pos, text) == result, text
        assert apply_steps(pos, steps) == result


# -- Match ID and XGID state (spec: format.match-id, format.xgid, format.refusal) -------------


def test_match_id_manual_example_decodes_field_by_field():
    # GNU Backgammon manual, "A technical description of the Match ID": key bytes 41 89 2A 01 20 00 20 00 00
    state = decode_match_id("QYkqASAAIAAA")
    assert state.cube == Cube(2, "o") and state.on_roll == "x" == state.turn and state.dice == (5, 2)
    assert state.match.length == 9 and state.match.score == {"x": 4, "o": 2} and not state.match.crawford
    assert not state.double_offered and state.resignation == "none" and state.game_state == "playing"
    # bit 66 ("no Jacoby") is the only difference from what is written today
    assert encode_match_id(state) == "QYkqASAAIAAE"


@settings(max_examples=300)
@given(id_states())
def test_match_id_round_trips(state):
    text = encode_match_id(state)
    assert len(text) == 12
    assert not decode_match_id(text).differences(state, MATCH_ID_FIELDS)


def _swap_dice_bits(text: str) -> str:
    import base64
    bits = int.from_bytes(base64.b64decode(text), "little")
    d1, d2 = (bits >> 15) & 7, (bits >> 18) & 7
    bits = bits & ~(0x3F << 15) | d2 << 15 | d1 << 18
    return base64.b64encode(bits.to_bytes(9, "little")).decode()


@settings(max_examples=300)
@given(id_states(), dice())
def test_match_id_ignores_the_order_of_the_dice(state, roll):
    from dataclasses import replace

    if state.double_offered:
        state = replace(state, double_offered=False, turn=None)
    rolled = replace(state, dice=roll)
    swapped = replace(state, dice=(roll[1], roll[0]))
    assert encode_match_id(rolled) == encode_match_id(swapped)
    text = encode_match_id(rolled)
    assert decode_match_id(_swap_dice_bits(text)) == decode_match_id(text)


@settings(max_examples=200)
@given(positions(), id_states("xgid"))
def test_xgid_round_trips_every_field(pos, state):
    from dataclasses import replace

    state = replace(state, on_roll=pos.on_roll, turn=None)
    board, back = decode_xgid_state(encode_xgid_state(pos, state))
    assert board == pos
    assert not back.differences(state, XGID_FIELDS)


def test_xgid_cube_is_written_as_its_log2():
    text = encode_xgid_state(Position.start(), IdState(cube=Cube(8, "x"), max_cube=1024, beavers=False))
    assert text.split(":")[1:3] == ["3", "1"]


@pytest.mark.parametrize("text,reason", [
    ("QYkq!SAAIAAA", "not_base64"), ("QYkqASAAIAA", "wrong_length"), ("QYkqASAAIAAAA", "wrong_length"),
    ("cAkgASAASAAE", "score_not_below_length"), ("cIkrAQAAAAAE", "bad_field"), ("cAkgAQAAAAAM", "bad_field"),
    # base64 padding is no character of a Match ID: 'QYkqASAAIAA=' would lose its last byte
    ("QYkqASAAIAA=", "not_base64"), ("QYkqASAAIA==", "not_base64"),
])
def test_malformed_match_ids_are_refused_with_a_reason(text, reason):
    with pytest.raises(CodecError) as err:
        decode_match_id(text)
    assert err.value.reason == reason


@pytest.mark.parametrize("text,reason", [
    ("4Dn4ABjwc/ABMA", "too_many_checkers"), ("wXPwATDgc/ABMA", "shared_point"), ("4HPwATDgc/AB!A", "not_base64"),
    ("4HPwATDgc/ABM", "wrong_length"),
])
def test_malformed_position_ids_are_refused_with_a_reason(text, reason):
    with pytest.raises(CodecError) as err:
        decode_position_id(text)
    assert err.value.reason == reason


def test_a_cube_that_is_not_a_power_of_two_is_refused_before_encoding():
    with pytest.raises(CodecError) as err:
        encode_state_dict({"cube": {"value": 3, "owner": "center"}})
    assert err.value.reason == "cube_not_power_of_two"
    with pytest.raises(CodecError) as err:
        encode_state_dict({"match": {"length": 9, "score": {"x": 9, "o": 2}}})
    assert err.value.reason == "score_not_below_length"


def test_a_pending_double_keeps_the_doubler_on_roll_and_the_other_side_to_act():
    state = IdState(on_roll="o", double_offered=True, match=Match(5, {"x": 1, "o": 2}))
    assert state.turn == "x"
    assert decode_match_id(encode_match_id(state)) == state
    with pytest.raises(Exception, match="no dice"):
        IdState(on_roll="o", double_offered=True, dice=(3, 1))
