"""The spec's data types: positions, dice, plays, notation, codecs and the record model.

May import nothing else of bgconf: it is the bottom layer, which the reference engine and every
folder of conformance/ build on.
"""

from .errors import REFUSALS, CodecError, DiceError, FalseHitMark, ModelError, NotationError, PositionError
from .game import (
    CUBE_ACTIONS, MOMENTS, RESULTS, RULE_DEFAULTS, Cube, GameStateError, Match, effective_rules,
)
from .forms import read_position, read_position_text
from .fibs import MONEY_LENGTH, FibsBoard, decode_fibs_board, encode_fibs_board, fibs_state_differences
from .gnubg_id import decode_position_id, encode_position_id
from .match_id import (
    GAME_STATES, MATCH_ID_FIELDS, RESIGNATIONS, IdState, decode_match_id, encode_match_id, encode_state_dict,
)
from .xgid import XGID_FIELDS, decode_xgid, decode_xgid_fields, decode_xgid_state, encode_xgid, encode_xgid_state
from .play import (
    Step,
    apply_steps,
    applied_sides,
    dice_moves,
    format_play,
    notation_to_position,
    parse_dice,
    parse_play,
    play_text,
    play_to_position,
    point_name,
    unmarked_hit_points,
    written_moves,
)
from .record import (
    EVENT_TYPES, RESULT_EVENT_TYPES, Event, GameRecord, MatchRecord, RecordError, Source, parse_event, swap_event,
)
from .position import (
    BAR, CHECKER_COUNTS, CHECKERS, OFF, SIDES, START_POINTS, VARIANT_CHECKERS, VARIANT_STARTS, VARIANTS, Position,
    check_sides, check_variant, other, variant_checkers,
)

__all__ = [
    "CUBE_ACTIONS", "MOMENTS", "RESULTS", "RULE_DEFAULTS", "Cube", "GameStateError", "Match",
    "effective_rules", "decode_xgid", "decode_xgid_fields", "encode_xgid",
    "REFUSALS", "GAME_STATES", "MATCH_ID_FIELDS", "RESIGNATIONS", "XGID_FIELDS", "IdState", "decode_match_id",
    "encode_match_id", "encode_state_dict", "decode_xgid_state", "encode_xgid_state",
    "FibsBoard", "MONEY_LENGTH", "decode_fibs_board", "encode_fibs_board", "fibs_state_differences",
    "BAR", "CHECKERS", "OFF", "SIDES", "START_POINTS", "CodecError", "DiceError", "ModelError",
    "NotationError", "FalseHitMark", "Position", "PositionError", "Step", "apply_steps", "applied_sides", "check_sides",
    "decode_position_id", "dice_moves", "encode_position_id", "format_play",
    "notation_to_position", "other", "parse_dice", "parse_play", "play_to_position",
    "point_name", "play_text", "unmarked_hit_points", "read_position", "read_position_text", "EVENT_TYPES", "parse_event", "swap_event", "written_moves",
    "RESULT_EVENT_TYPES", "Event", "GameRecord", "MatchRecord", "RecordError", "Source",
    "CHECKER_COUNTS", "VARIANT_CHECKERS", "VARIANT_STARTS", "VARIANTS", "check_variant", "variant_checkers",
]
