"""The one request-input type: ``Question``, what is put to an engine by ``bgconf fuzz`` (a
generated input) and ``bgconf replay`` (a position of a recorded match).

A question holds the inputs of one request (spec/protocol.md, run): the kind, the position,
and by kind the dice, the candidate play, the cube, the match, the rule options and, for a
cube action, who is on roll, the moment and the action. A generated question also names the
layout its position came from (``scenario``); a question of a record names where in the
record it stands (``file``, ``game``, ``move``, ``line``). ``conformance.harness.found_cases``
writes a question out as a case file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.model import RULE_DEFAULTS, Cube, Match, Position

__all__ = ["PLAY_KINDS", "FUZZ_KINDS", "CAPABILITY", "Question"]

#: kinds whose input is a position and a roll, judged on the legal set (spec: move.*)
PLAY_KINDS = ("legal_plays", "chosen_play")

#: the kinds of question ``bgconf fuzz`` generates (``conformance.harness.strategies`` draws them)
FUZZ_KINDS = ("legal_plays", "play_check", "game_result", "chosen_play")

#: the kind of a request -> the capability an engine declares for it (spec/protocol.md, describe)
CAPABILITY = {"legal_plays": "legal-plays", "play_check": "play-check", "game_result": "game-result",
              "chosen_play": "chosen-play"}


@dataclass
class Question:
    """One request's inputs: ``kind`` (legal_plays, play_check, game_result, chosen_play,
    cube_action) and ``position``; by kind ``dice`` (two dice 1..6), the candidate ``play``
    (notation) with its written moves ``steps`` ([(from, to)] in the mover's numbering, 25 the
    bar, 0 off), ``cube``, ``match``, the rule options that differ from the defaults
    (``rules``), and for cube_action ``on_roll``, ``moment`` (before_roll, after_roll) and
    ``action`` ({"by": side, "type": double|take|drop|...}).

    ``scenario``: the layout a generated position came from (``strategies.SCENARIOS``).
    ``file``, ``game``, ``move``, ``line``: where a question of a record stands (its file,
    game number, move number or None, 1-based line); empty for a generated question."""

    kind: str
    position: Position | None = None
    dice: tuple[int, int] | None = None
    play: str | None = None
    steps: list[tuple[int, int]] | None = None
    cube: Cube | None = None
    match: Match | None = None
    rules: dict = field(default_factory=dict)
    on_roll: str | None = None
    moment: str | None = None
    action: dict | None = None
    scenario: str = ""
    file: str = ""
    game: int | None = None
    move: int | None = None
    line: int = 0

    def request(self, case_id: str = "fuzz") -> dict:
        """The engine request (a JSON-able dict; spec/protocol.md, run) with id ``case_id``;
        ``rules`` with every default filled in."""
        req: dict[str, Any] = {"kind": self.kind, "case": case_id, "rules": {**RULE_DEFAULTS, **self.rules}}
        if self.position is not None:
            req["position"] = self.position.to_wire()
        if self.dice is not None:
            req["dice"] = list(self.dice)
        if self.play is not None:
            req["play"] = self.play
            req["steps"] = [list(s) for s in self.steps or []]
        if self.cube is not None:
            req["cube"] = self.cube.to_dict()
        if self.match is not None:
            req["match"] = self.match.to_dict()
        for key in ("on_roll", "moment", "action"):
            if getattr(self, key) is not None:
                req[key] = getattr(self, key)
        return req
