"""The model: positions, Position ID codec, notation."""

import pytest
from hypothesis import given, settings

from conformance.model import (
    CodecError, NotationError, Position, PositionError, apply_steps, decode_position_id,
    encode_position_id, format_play, notation_to_position, parse_dice, parse_play,
)
from conformance.strategies import dice, positions
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
