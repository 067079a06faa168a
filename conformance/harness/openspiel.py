"""Reading OpenSpiel's backgammon state (``pyspiel``, game ``backgammon``) as bgconf positions.

Used by ``conformance.harness.playout``, which plays OpenSpiel's games. Conversion (OpenSpiel
2.0.2, public Python API only):

- player 0 is ``x``, player 1 is ``o``;
- ``state.board(p, i)`` for ``i`` in 0..23 is the count of player ``p`` on physical point
  ``i``; player 0 moves from 0 towards 23, player 1 from 23 towards 0. So index ``i`` is
  x's point ``24 - i`` and o's point ``i + 1`` (and x's ``p`` is o's ``25 - p``, as the
  spec has it);
- ``state.board(p, 100)`` is player ``p``'s bar;
- borne-off counts and the dice are read from OpenSpiel's observation string
  (``Scores, X: a, O: b`` and ``Dice: ab``); ``off`` is checked against the checker count
  (15, or 3 with the game parameter ``hyper_backgammon``: spec variant.hypergammon) minus the rest;
- the legal plays at a turn are OpenSpiel's legal actions, each applied to a clone of the
  state and the board read back, deduplicated by resulting position. A double is two
  decisions of the same player in OpenSpiel (an "extra turn"); each first-half action is
  followed by every second-half action on a clone, so the set compared is that of whole
  four-move plays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from conformance.model import BAR, OFF, Position, other

OPENSPIEL_DIST = "open-spiel"  # the distribution whose version is OpenSpiel's

X_PLAYER, O_PLAYER = 0, 1
SIDE = {X_PLAYER: "x", O_PLAYER: "o"}
OS_BAR = 100  # OpenSpiel's bar index for state.board() and CheckerMove.pos
OS_PASS = -1  # CheckerMove.pos of a pass
HYPER_CHECKERS = 3  # OpenSpiel's hyper_backgammon: 3 checkers a side
#: bgconf's variants (spec: variant.option) that OpenSpiel's backgammon plays, as its game parameters
GAME_PARAMETERS = {"standard": {}, "hypergammon-3": {"hyper_backgammon": True}}


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


def checkers_of(state) -> int:
    """Checkers a side in ``state``'s game: 3 with ``hyper_backgammon`` (spec: variant.hypergammon),
    else 15."""
    return HYPER_CHECKERS if state.get_game().get_parameters().get("hyper_backgammon") else 15


def read_side(state, player: int, off: int, checkers: int = 15) -> tuple[int, ...]:
    """Player's 26-tuple in its own numbering (0 off, 1..24 points, 25 bar); ``off`` is
    the borne-off count OpenSpiel reports, checked against ``checkers`` minus the rest."""
    side = [0] * 26
    for index in range(24):
        side[own_point(player, index)] = state.board(player, index)
    side[BAR] = state.board(player, OS_BAR)
    if off != checkers - sum(side[1:]):
        raise ConversionError(f"player {player} ({SIDE[player]}): {sum(side[1:])} checkers on the board"
                              f" and bar but {off} borne off in OpenSpiel's score")
    side[OFF] = off
    return tuple(side)


def read_position(state, on_roll: str) -> Position:
    """The bgconf Position of OpenSpiel's board with ``on_roll`` to play (validated)."""
    scores = read_scores(state)
    n = checkers_of(state)
    try:
        return Position(on_roll, read_side(state, X_PLAYER, scores[0], n), read_side(state, O_PLAYER, scores[1], n))
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
