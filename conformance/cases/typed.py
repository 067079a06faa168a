"""The typed cases and their vocabulary: what loading a case file produces.

``Case`` (one validated case, and the engine request it makes: spec/protocol.md, run),
``Suite`` (the cases of a load, its errors and files), ``CaseError`` (one problem in a
file), the expectations that some kinds carry (``ExpectedPlays``, ``RecordGame``,
``ExpectedRecord``), and the names cases are written with: the id alphabet, the kinds'
default capabilities, the capabilities, the state fields of each codec, the suffix of
user case files. Built by ``conformance.cases.checks``; nothing here reads a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.model import (
    MATCH_ID_FIELDS,
    XGID_FIELDS,
    Cube,
    FibsBoard,
    IdState,
    Match,
    Position,
    encode_fibs_board,
    encode_position_id,
    encode_xgid,
)


#: The characters of a case id after ``bg-`` (no 0, 1, I, O: they read alike).
ID_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"

#: The capability a case needs when it names none: by kind (``codec.FORMAT`` for a codec case
#: of a format other than gnubg_id).
KIND_REQUIRES = {
    "legal_plays": "legal-plays",
    "play_check": "play-check",
    "apply_play": "apply-play",
    "codec": "codec.gnubg",
    "codec.xgid": "codec.xgid",
    "codec.gnubg_match_id": "codec.gnubg-match-id",
    "codec.fibs_board": "codec.fibs",
    "game_result": "game-result",
    "cube_action": "cube",
    "opening_roll": "opening-roll",
    "match_transition": "match",
    "perft": "perft",
    "game_record": "game-record",
}
#: Every capability a case may require and an engine may declare (spec/protocol.md, hello).
CAPABILITIES = frozenset({
    "legal-plays", "play-check", "apply-play", "game-result", "cube", "match", "opening-roll",
    "codec.gnubg", "codec.xgid", "codec.gnubg-match-id", "codec.fibs", "perft", "game-record", "chosen-play",
})
#: The state fields each codec format carries and compares (spec: format.match-id, format.xgid).
CODEC_FIELDS = {"gnubg_match_id": MATCH_ID_FIELDS, "xgid": XGID_FIELDS}
#: The name ending of case files outside the bundled suite (what a directory given yields).
USER_SUFFIX = ".bgcase.yaml"


def case_name(case_id: str, scenario: str = "") -> str:
    """A case's name: its id, with the scenario in brackets when there is one
    (``bg-7Q3K``, ``bg-7Q3K[swapped]``); how a case is named in reports, JUnit and node ids."""
    return f"{case_id}[{scenario}]" if scenario else case_id


@dataclass(frozen=True)
class CaseError:
    """One problem in a case file: ``file`` (display path), ``line`` (1-based or 0
    when unknown), ``case_id`` (or None), ``message`` (what is wrong and the fix)."""

    file: str
    line: int
    case_id: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.case_id + ': ' if self.case_id else ''}{self.message}"


@dataclass
class Case:
    """A validated case. ``position`` is a Position; ``dice`` a 2-tuple or None;
    ``steps`` the play's moves as written (play_check, apply_play; a move may span several dice); ``expected``
    the parsed expectation (see ``conformance.cases.checks``)."""

    id: str
    title: str
    kind: str
    spec: tuple[str, ...]
    level: str
    tags: tuple[str, ...]
    requires: tuple[str, ...]
    rules: dict
    file: str
    line: int
    position: Position | None
    dice: tuple[int, int] | None
    play: str | None
    steps: list[tuple[int, int]] | None
    expect: dict
    expected: Any
    provenance: dict
    raw: dict = field(repr=False)
    effective_rules: dict = field(default_factory=dict, repr=False)
    cube: Cube | None = None
    match: Match | None = None
    scenario: str = ""
    position_format: str = "board"
    games: tuple = ()
    state: IdState | None = None

    @property
    def name(self) -> str:
        """The id, with the scenario in brackets when there is one: ``bg-7Q3K[swapped]``."""
        return case_name(self.id, self.scenario)

    @property
    def nodeid(self) -> str:
        """``cases/<file>.yaml::<id>`` (with ``[scenario]``)."""
        return f"{self.file}::{self.name}"

    @property
    def section(self) -> str:
        """The spec section of the first anchor: ``move``, ``bar``, ``bearoff``..."""
        return self.spec[0].split(".", 1)[0]

    def request(self) -> dict:
        """The engine request for this case (a plain, JSON-able dict; spec/protocol.md, run).

        ``rules`` carries every rule option, defaults filled in."""
        req: dict = {"kind": self.kind, "case": self.id, "rules": dict(self.effective_rules)}
        if self.position is not None:
            if self.position_format == "gnubg_id":
                req["position"] = {"gnubg_id": encode_position_id(self.position), "on_roll": self.position.on_roll}
            elif self.position_format == "xgid":
                req["position"] = {"xgid": encode_xgid(self.position)}
            elif self.position_format == "fibs_board":
                board = FibsBoard(self.position, self.position.on_roll, dice=self.dice)
                req["position"] = {"fibs_board": encode_fibs_board(board)}
            else:
                req["position"] = self.position.to_wire()
        if self.dice is not None:
            req["dice"] = list(self.dice)
        if self.play is not None:
            req["play"] = self.play
            req["steps"] = [list(s) for s in self.steps or []]
        if self.kind == "codec":
            fmt = req["format"] = self.raw["codec"]
            if "decode" in self.raw:
                req["decode"] = self.raw["decode"]
            elif "encode" in self.raw:
                req["encode"] = self.raw["encode"]
            else:
                req[fmt] = self.expected
                if self.state is not None:
                    req["state"] = self.state.to_dict()
                if "fibs" in self.raw:
                    req["fibs"] = self.raw["fibs"]
        if self.cube is not None:
            req["cube"] = self.cube.to_dict()
        if self.match is not None:
            req["match"] = self.match.to_dict()
        if self.kind == "game_record":
            req["games"] = [game.wire() for game in self.games]
        if self.kind == "perft":
            req["roll_set"] = self.raw.get("roll_set", "all21")
            req["depths"] = sorted(self.expected)
        for key in ("on_roll", "moment", "action", "throws", "result"):
            if key in self.raw:
                req[key] = self.raw[key]
        return req


@dataclass
class Suite:
    """Loaded cases, the errors met, and the files read (display paths)."""

    cases: list[Case]
    errors: list[CaseError]
    files: list[str]
    content_hash: str

    def by_id(self) -> dict[str, Case]:
        """id -> case (ids are unique across a suite's files)."""
        return {c.id: c for c in self.cases}


@dataclass(frozen=True)
class ExpectedPlays:
    """A legal_plays expectation: ``exact`` (position -> notation) when the full set
    is given, else ``count`` plus ``includes`` and ``excludes`` (position -> notation)."""

    exact: dict | None
    count: int | None
    includes: dict
    excludes: dict


@dataclass(frozen=True)
class RecordGame:
    """One game of a game_record case: ``position`` (a game in progress) or None (the
    starting position, after an opening throw), ``cube`` (None: centred at 1) and
    ``events`` in their wire form (``conformance.model.parse_event``), each with its
    number ``n`` in the whole record (1-based)."""

    position: Position | None
    cube: Cube | None
    events: tuple

    def wire(self) -> dict:
        out: dict = {"events": [dict(e) for e in self.events]}
        if self.position is not None:
            out["position"] = self.position.to_wire()
        if self.cube is not None:
            out["cube"] = self.cube.to_dict()
        return out


@dataclass(frozen=True)
class ExpectedRecord:
    """A game_record expectation: for each event (by number - 1), ``refused`` (the reason
    code it must be refused with, or None: it must be accepted) and ``states`` (the state
    fields expected after it, or None); ``final``: the fields expected after the last
    event. A state's ``position`` is a Position."""

    refused: tuple
    states: tuple
    final: dict
    texts: tuple
