"""``bgconf replay``: judge every play, cube action and result of recorded matches by the rules.

A record is read by a parsing library (``gammonview``'s ``gvformat``, MIT: Jellyfish ``.mat``
as GNU Backgammon, eXtreme Gammon, BGBlitz and game servers export it); GNU Backgammon's
``.sgf`` is converted to ``.mat`` by GNU Backgammon itself when it is installed. bgconf maps
each parsed game onto the model (``conformance.model``: positions, dice, plays) and judges it
with the reference engine alone (``reference_impl``):

- every play: legal, or illegal with the reason, the clause, the board, the dice, the recorded
  play and the legal plays nearest to it (``reference_impl.record.recorded_play``);
- every "no play": legal only when the roll has no legal play (spec: move.pass);
- every cube action: ``reference_impl.game.cube_action`` (spec: cube.*), the Crawford game
  from the score history (``reference_impl.record.crawford_states``);
- every result: the recorded winner and points against the final position and cube
  (``game_result``; a drop: the value before the double; a resignation: a single, gammon or
  backgammon with the cube, ``game.result_points``), the Jacoby rule where the header says
  so; a result capped at what the winner needed to win the match is recognised
  (``record.counted_points``); and each game's starting score against the previous result
  (spec: match.score).

A record the library cannot read, or a line whose tokens it leaves unread, is an error with
``file:line``; the game it is in stops there and the other games and files go on.

Report (``--report FILE.jsonl``): one JSON object per line, ``{"type": "replay-header", ...}``,
then per file its ``event`` lines (every illegal event, every record error, every note) and a
``file`` line with its counts, then a ``footer`` with the totals and ``interrupted``.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from conformance.model import (
    OFF, Cube, GameStateError, Match, ModelError, Position, effective_rules, format_play, other,
    parse_dice, parse_play, point_name,
)
from conformance.harness.questions import Question

from reference_impl.game import cube_action, game_result
from reference_impl.game import result_points
from reference_impl.record import counted_points, crawford_states, recorded_play

FORMATS = (".mat", ".sgf")
#: kinds of the judged actions of a game
PLAY, DOUBLE, TAKE, DROP, RESIGN, WIN = "play", "double", "take", "drop", "resign", "win"
NEAREST = 3  # legal plays shown next to an illegal one


class RecordError(Exception):
    """A record (or one of its lines) cannot be read: ``line`` (1-based, 0 = the whole file)
    and the reason."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


# -- the parsed record, mapped onto bgconf's terms ---------------------------------------------------
@dataclass
class Action:
    """One recorded action of a game: ``kind`` (play, double, take, drop, resign, win), the
    side (``x`` = the record's player 1, ``o`` = player 2), the line (1-based) and the move
    number written on it (None when the line has none), the written text; for a play the dice
    and the written moves ``[(from, to), ...]`` in the mover's numbering; for a double the
    value offered; for a win the points."""

    kind: str
    side: str
    line: int
    move: int | None
    text: str
    dice: tuple[int, int] | None = None
    segments: list[tuple[int, int]] = field(default_factory=list)
    value: int | None = None


@dataclass
class GameRecord:
    """One game: its number, header line, score before it ``{x, o}``, actions, and the record
    error that stops it (None when it reads to the end)."""

    number: int
    line: int
    score: dict
    actions: list[Action]
    error: RecordError | None = None


@dataclass
class MatchRecord:
    """A parsed record: file as shown, match length (0 = money), player names ``{x, o}``, the
    rule options its header sets, its games, and where it came from (``via``)."""

    path: str
    length: int
    names: dict
    rules: dict
    games: list[GameRecord]
    via: str = ""


def _library():
    try:
        from gvformat import mat_parser
    except ImportError:
        raise RecordError(0, "reading records needs the gammonview library: pip install 'bgconf[replay]'") from None
    return mat_parser


@functools.lru_cache(maxsize=4096)
def _written_moves(written: str) -> tuple[tuple[int, int], ...]:
    """The moves of a written play (``conformance.model.parse_play``). Raises ModelError."""
    return tuple((a, b) for points, _marks in parse_play(written) for a, b in zip(points, points[1:]))


@functools.lru_cache(maxsize=8192)
def _read_action(text: str) -> tuple:
    """One action's text as ``(kind, dice, moves, value, problem)``: the library's reading
    (``mat_parser._parse_action``), the roll (``parse_dice``) and the moves; ``problem`` is why it
    cannot be read, else None. Real games repeat their texts, so each is read once."""
    kind, adata = _library()._parse_action(text)
    if kind == "move":
        d1, d2, written = adata
        try:
            dice = parse_dice((d1, d2))
        except ModelError as exc:
            return PLAY, None, (), None, f"roll {d1}{d2}: {exc}"
        try:
            return PLAY, dice, _written_moves(written), None, None
        except ModelError as exc:
            return PLAY, dice, (), None, f"play {written!r}: {exc}"
    if kind == "double":
        return DOUBLE, None, (), int(adata), None
    if kind in ("take", "drop"):
        return kind, None, (), None, None
    if kind == "win":
        return WIN, None, (), adata.get("points"), None
    if kind == "resign" and adata == "unplayed":
        return RESIGN, None, (), None, f"{text!r}: a roll without its play"
    if kind in ("resign", "forfeit", "time"):
        return RESIGN, None, (), None, None
    return kind, None, (), None, f"unknown token {text.split()[0]!r}"


_TURN = re.compile(r"^\s*(\d+)\)")


def read_mat(text: str, shown: str) -> MatchRecord:
    """Parse Jellyfish ``.mat`` text with the library and map it onto bgconf's terms.

    Returns a MatchRecord; a game whose line cannot be read carries the RecordError (line and
    reason) and stops there. Raises RecordError for a file without a readable game."""
    mp = _library()
    parsed = mp.parse_mat_file(text)
    lines = text.splitlines()
    headers = [i for i, ln in enumerate(lines) if mp._GAME_HEADER_RE.match(ln)]
    if not parsed["games"] or not headers:
        raise RecordError(0, "no game found (a .mat record has 'Game 1' and its moves)")
    names = {"x": parsed["player1"], "o": parsed["player2"]}
    rules: dict[str, Any] = {}
    if parsed["crawford_rule"] is not None:
        rules["crawford"] = parsed["crawford_rule"]
    if parsed["jacoby_rule"] is not None and parsed["match_length"] == 0:
        rules["jacoby"] = parsed["jacoby_rule"]
    if parsed["beaver_rule"] is not None and parsed["match_length"] == 0:
        rules["beavers"] = parsed["beaver_rule"]
    if parsed["cube_limit"] is not None:
        rules["max_cube"] = parsed["cube_limit"]
    games = []
    for gi, game in enumerate(parsed["games"]):
        start = headers[gi] if gi < len(headers) else headers[-1]
        end = headers[gi + 1] if gi + 1 < len(headers) else len(lines)
        games.append(_map_game(mp, game, lines, start, end, names))
    return MatchRecord(shown, parsed["match_length"], names, rules, games)


def _map_game(mp, game: dict, lines: list[str], start: int, end: int, names: dict) -> GameRecord:
    """The library's actions of one game, each placed on its line (the library keeps none), and
    every token on a line that no action accounts for reported as unread."""
    side_of = {names["x"]: "x", names["o"]: "o"}
    record = GameRecord(game["game_number"], start + 1, {"x": game["score1_start"], "o": game["score2_start"]}, [])
    used: dict[int, list[tuple[int, int]]] = {}
    row, col = start + 1, 0
    placed = []
    for player, text in game["player_actions"]:
        at = -1
        while row < end:
            at = lines[row].find(text, col)
            if at >= 0:
                break
            row, col = row + 1, 0
        if at < 0:
            row = end - 1
            placed.append((player, text, end))
            continue
        used.setdefault(row, []).append((at, at + len(text)))
        placed.append((player, text, row + 1))
        col = at + len(text)
    # a token the library skipped: what is left of a game line once the actions are cut out
    first_error: RecordError | None = None
    score_seen = False
    for i in range(start + 1, end):
        ln = lines[i]
        if not ln.strip() or ln.strip().startswith(";"):
            continue
        if not score_seen and not _TURN.match(ln) and mp._SCORE_LINE_RE.match(ln):
            score_seen = True
            continue
        pieces, at = [], 0
        for a, b in used.get(i, ()):
            pieces.append(ln[at:a])
            at = b
        pieces.append(ln[at:])
        rest = _TURN.sub("", " ".join(pieces), count=1).strip()
        if rest:
            last = all(not ln2.strip() for ln2 in lines[i + 1:])
            first_error = RecordError(i + 1, f"unknown token {rest.split()[0]!r} (the line is not read"
                                             + ("; the record ends here: truncated?)" if last else ")"))
            break
    for player, text, line in placed:
        if first_error is not None and line >= first_error.line:
            break
        m = _TURN.match(lines[line - 1]) if line <= len(lines) else None
        move = int(m.group(1)) if m else None
        side = side_of.get(player, "x")
        try:
            record.actions.append(_action(side, line, move, text))
        except RecordError as exc:
            first_error = exc
            break
    record.error = first_error
    return record


def _action(side: str, line: int, move: int | None, text: str) -> Action:
    """The Action of one placed text. Raises RecordError (the line and why) when it cannot be read."""
    kind, dice, moves, value, problem = _read_action(text)
    if problem:
        raise RecordError(line, f"{side}'s {problem}" if kind == PLAY and dice else problem)
    return Action(kind, side, line, move, text, dice, list(moves), value)


def sgf_to_mat(path: Path) -> str:
    """GNU Backgammon's conversion of its ``.sgf`` to ``.mat`` text (``load match``, ``export
    match mat``). Raises RecordError when gnubg is not installed or fails."""
    gnubg = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)
    if not gnubg:
        raise RecordError(0, "reading .sgf needs GNU Backgammon (apt install gnubg): it converts the record to .mat")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "match.mat"
        commands = Path(tmp) / "commands"
        commands.write_text(f'load match "{path.resolve()}"\nexport match mat "{out}"\n', encoding="utf-8")
        try:
            done = subprocess.run([gnubg, "-t", "-q", "-r", "-c", str(commands)], capture_output=True, text=True,
                                  timeout=120, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RecordError(0, f"GNU Backgammon could not convert the record: {exc}") from None
        if not out.exists():
            why = (done.stdout + done.stderr).strip().splitlines()
            raise RecordError(0, "GNU Backgammon could not read the record" + (f": {why[-1]}" if why else ""))
        return out.read_text(encoding="utf-8", errors="replace")


def read_record(path: Path, shown: str | None = None) -> MatchRecord:
    """Read a ``.mat`` or ``.sgf`` file. Raises RecordError (line 0) for a file that cannot be
    read at all."""
    shown = shown or str(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise RecordError(0, f"unknown record format {suffix or '(none)'!r}; replay reads {', '.join(FORMATS)}")
    if suffix == ".sgf":
        record = read_mat(sgf_to_mat(path), shown)
        record.via = "converted to .mat by GNU Backgammon; line numbers are those of the conversion"
        return record
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(0, f"cannot read: {exc.strerror or exc}") from None
    return read_mat(data.decode("utf-8", errors="replace"), shown)


# -- judging ---------------------------------------------------------------------------------
@dataclass
class Event:
    """Something replay reports: ``level`` ``illegal`` (a rule broken), ``error`` (the record
    cannot be read there) or ``note``; where (file, line, game, move, side) and what (kind,
    reason code, spec anchor, message), with the position and dice of a play."""

    level: str
    file: str
    line: int
    message: str
    game: int | None = None
    move: int | None = None
    side: str | None = None
    kind: str = ""
    reason: str | None = None
    anchor: str | None = None
    position: Position | None = None
    dice: tuple[int, int] | None = None
    recorded: str = ""
    nearest: list[str] = field(default_factory=list)
    converted: bool = False  # the line is one of GNU Backgammon's .mat conversion of an .sgf

    def where(self) -> str:
        at = f"{self.file}:{self.line}" if self.line else self.file
        if self.line and self.converted:
            at = f"{self.file}, line {self.line} of its .mat conversion by GNU Backgammon"
        parts = [f"game {self.game}"] if self.game is not None else []
        if self.move is not None:
            parts.append(f"move {self.move}")
        return at + (f" ({', '.join(parts)})" if parts else "")

    def to_json(self) -> dict:
        out = {"type": "event", "level": self.level, "file": self.file, "line": self.line, "game": self.game,
               "move": self.move, "side": self.side, "kind": self.kind, "reason": self.reason,
               "spec": self.anchor, "message": self.message}
        if self.position is not None:
            out["position"] = self.position.to_wire()
        if self.dice:
            out["dice"] = list(self.dice)
        if self.recorded:
            out["recorded"] = self.recorded
        if self.nearest:
            out["nearest_legal"] = self.nearest
        return out


@dataclass
class FileResult:
    """One record's counts (games, plays, no plays, cube actions, illegal events, errors) and
    its events; ``questions`` when asked for."""

    file: str
    games: int = 0
    plays: int = 0
    no_plays: int = 0
    cube_actions: int = 0
    events: list[Event] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    results: list[dict] = field(default_factory=list)

    @property
    def illegal(self) -> int:
        return sum(e.level == "illegal" for e in self.events)

    @property
    def errors(self) -> int:
        return sum(e.level == "error" for e in self.events)

    def to_json(self) -> dict:
        return {"type": "file", "file": self.file, "games": self.games, "plays": self.plays,
                "no_plays": self.no_plays, "cube_actions": self.cube_actions, "illegal": self.illegal,
                "errors": self.errors}


def _segments_text(segments: list[tuple[int, int]]) -> str:
    return " ".join(f"{point_name(a)}/{point_name(b)}" for a, b in segments) or "none"


def _distance(a: Position, b: Position) -> int:
    return sum(abs(p - q) for p, q in zip(a.x + a.o, b.x + b.o))


def nearest_plays(position: Position, dice, result: Position | None, count: int = NEAREST) -> list[str]:
    """The legal plays (notation) whose resulting positions are closest to ``result`` (checkers
    that would have to move elsewhere), the recorded play's result; all when it has none."""
    from reference_impl import legal_plays

    plays = legal_plays(position, dice)
    ranked = sorted(plays, key=lambda p: (_distance(p, result) if result is not None else 0,
                                          format_play(position, plays[p])))
    return [format_play(position, plays[p]) for p in ranked[:count]]


class _Game:
    """The judging of one game (state: position, cube, pending double, how it ended)."""

    def __init__(self, rec: MatchRecord, game: GameRecord, match: Match, rules: dict, out: FileResult,
                 last: bool, ask: bool):
        self.rec, self.game, self.match, self.rules, self.out, self.last, self.ask = rec, game, match, rules, out, last, ask
        self.position: Position | None = None
        self.cube = Cube()
        self.pending: Action | None = None
        self.ended: dict | None = None  # {"how": bearoff|drop|resign, ...}
        self.result: dict | None = None  # the recorded result {"winner", "points"}

    def event(self, level: str, action: Action | None, message: str, **kw) -> Event:
        e = Event(level, self.rec.path, action.line if action else self.game.line, message, self.game.number,
                  action.move if action else None, action.side if action else None, **kw)
        self.out.events.append(e)
        return e

    def name(self, side: str) -> str:
        return f"{self.rec.names[side]} ({side})"

    def question(self, kind: str, at: Action, **kw) -> None:
        if self.ask:
            match = self.match if kind in ("game_result", "cube_action") else None
            self.out.questions.append(Question(kind, file=self.rec.path, game=self.game.number, move=at.move,
                                               line=at.line, match=match, rules=dict(self.rec.rules), **kw))

    def run(self) -> None:
        for action in self.game.actions:
            if self.ended and action.kind != WIN:
                if self.ended["how"] == "resign" and action.kind == RESIGN:
                    continue
                self.event("illegal", action, f"{action.text!r} after the game ended", kind="after-end",
                           anchor="score.end")
                return
            if not getattr(self, "_" + action.kind)(action):
                return
        if self.game.error is not None:
            e = self.game.error
            self.out.events.append(Event("error", self.rec.path, e.line, e.message, self.game.number))
            return
        if self.result is None:
            self._no_result()

    def _no_result(self) -> None:
        last = self.game.actions[-1] if self.game.actions else None
        if self.ended:
            return
        if self.rec.length == 0 and self.last:
            self.event("note", last, "the session ends with this game unfinished", kind="unfinished")
        else:
            self.event("error", last, f"the record ends before game {self.game.number} is over (truncated?)",
                       kind="truncated")

    # -- plays ------------------------------------------------------------------------------
    def _play(self, action: Action) -> bool:
        if self.pending is not None:
            self.event("illegal", action, f"{self.name(action.side)} rolls while the double of"
                                          f" {self.name(self.pending.side)} is unanswered", kind="cube",
                       reason="wrong-moment", anchor="cube.take")
            return False
        if self.position is None:
            self.position = Position.start(action.side)
        elif self.position.on_roll != action.side:
            self.event("illegal", action, f"{self.name(action.side)} plays on {self.name(self.position.on_roll)}'s"
                                          " turn", kind="turn")
            return False
        position, dice = self.position, action.dice
        self.out.plays += 1
        if not action.segments:
            self.out.no_plays += 1
        if self.last and self.rec.length == 0 and action is self.game.actions[-1] and not action.segments:
            # a money session stopped with the roll shown but not played: not a play
            self.out.plays -= 1
            self.out.no_plays -= 1
            self.event("note", action, f"the session ends on {self.name(action.side)}'s roll"
                                       f" {dice[0]}-{dice[1]}, not played", kind="unfinished")
            self.ended = {"how": "unfinished"}
            return True
        judged = recorded_play(position, dice, action.segments)
        if self.ask:
            self.question("legal_plays", action, position=position, dice=dice)
            play, steps = _segments_text(action.segments), list(action.segments)
            if judged.verdict.legal and action.segments:
                # asked in the spec's own notation, every hit marked: a record's unmarked 13/5 that
                # hits on 8 is, in spec notation (format.notation), a play that does not hit
                from reference_impl import legal_plays

                steps = list(legal_plays(position, dice)[judged.result])
                play = format_play(position, steps)
                steps = list(_written_moves(play))
            self.question("play_check", action, position=position, dice=dice, play=play, steps=steps)
        if not judged.verdict.legal:
            from conformance.harness.found_cases import REASON_ANCHORS

            written = action.text.split(":", 1)[-1].strip() if ":" in action.text else action.text
            reason = judged.verdict.reason
            what = "no play" if not action.segments else written
            self.event("illegal", action, f"{self.name(action.side)} rolls {dice[0]}-{dice[1]} and plays {what}:"
                                          f" illegal ({reason})", kind="no-play" if not action.segments else "play",
                       reason=reason, anchor=REASON_ANCHORS.get(reason), position=position, dice=dice,
                       recorded=what, nearest=nearest_plays(position, dice, judged.result))
            if judged.result is None:
                self.event("note", action, "the written moves cannot be made on this board: the game is not"
                                           " followed further", kind="stopped")
                return False
        self.position = judged.result
        if self.position.x[OFF] == 15 or self.position.o[OFF] == 15:
            self.ended = {"how": "bearoff"}
        return True

    # -- the cube ----------------------------------------------------------------------------
    def _cube(self, action: Action, on_roll: str, moment: str, kind: str) -> dict:
        self.out.cube_actions += 1
        answer = cube_action(on_roll, moment, self.cube, self.match, action.side, kind, effective_rules(self.rec.rules))
        self.question("cube_action", action, on_roll=on_roll, moment=moment, cube=self.cube,
                      action={"by": action.side, "type": kind})
        if not answer["allowed"]:
            from conformance.harness.found_cases import CUBE_REASON_ANCHORS

            reason = answer["reason"]
            self.event("illegal", action, f"{self.name(action.side)}: {action.text!r} is not allowed ({reason})",
                       kind="cube", reason=reason, anchor=CUBE_REASON_ANCHORS.get(reason))
        return answer

    def _double(self, action: Action) -> bool:
        on_roll = self.position.on_roll if self.position else action.side
        moment = "before_roll" if self.position else "after_roll"  # the opening throw gives the first numbers
        self._cube(action, on_roll, moment, "double")
        if action.value != self.cube.value * 2:
            self.event("illegal", action, f"{self.name(action.side)} doubles to {action.value} with the cube at"
                                          f" {self.cube.value}", kind="cube", reason="wrong-value", anchor="cube.take")
        # an illegal double is reported and the game followed as it was played: the offer stands
        self.pending = action
        return True

    def _answer(self, action: Action, kind: str) -> dict:
        doubler = self.pending.side if self.pending else (self.position.on_roll if self.position else action.side)
        answer = self._cube(action, doubler, "double_offered" if self.pending else "before_roll", kind)
        self.pending = None
        return answer

    def _take(self, action: Action) -> bool:
        answer = self._answer(action, "take")
        if answer["allowed"]:
            self.cube = Cube(**answer["cube"])
        return answer["allowed"]

    def _drop(self, action: Action) -> bool:
        answer = self._answer(action, "drop")
        if answer["allowed"]:
            self.ended = {"how": "drop", **answer["game_over"]}
        return answer["allowed"]

    def _resign(self, action: Action) -> bool:
        self.ended = {"how": "resign", "by": action.side}
        return True

    # -- the result ---------------------------------------------------------------------------
    def _win(self, action: Action) -> bool:
        rules = effective_rules(self.rec.rules)
        winner, points = action.side, action.value
        self.result = {"winner": winner, "points": points}
        how = (self.ended or {}).get("how")
        if how in (None, "unfinished"):
            # the game is not over on the board: the loser resigned, which .mat writers often leave
            # unwritten (GNU Backgammon's export among them)
            worth = {result_points(r, self.cube, self.match, rules) for r in ("single", "gammon", "backgammon")}
            worth |= {counted_points(p, winner, self.match) for p in worth}
            if self.rec.length == 0 and self.last:
                self.event("note", action, f"the session ends with this game unfinished; the recorded"
                                           f" {points} point(s) to {self.name(winner)} are not checked", kind="unfinished")
                return False
            if points in worth:
                self.event("note", action, f"game {self.game.number} ends before it is over on the board: taken as a"
                                           f" resignation by {self.name(other(winner))}", kind="resigned")
                self.ended = {"how": "resign", "by": other(winner)}
            else:
                self.event("illegal", action, f"{self.name(winner)} is recorded as winning {points} point(s) in game"
                                              f" {self.game.number} before it is over; a resignation with the cube at"
                                              f" {self.cube.value} is worth {' or '.join(map(str, sorted(worth)))}",
                           kind="result", anchor="score.end")
                return False
        if how == "bearoff":
            expected = game_result(self.position, self.cube, self.match, rules)
            allowed = {expected["points"]}
            self.question("game_result", action, position=self.position, cube=self.cube)
        elif how == "drop":
            expected = {"winner": self.ended["winner"], "points": self.ended["points"]}
            allowed = {expected["points"]}
        else:  # a resignation: a single game, a gammon or a backgammon, at the cube's value
            expected = {"winner": other(self.ended["by"])}
            allowed = {result_points(r, self.cube, self.match, rules) for r in ("single", "gammon", "backgammon")}
        allowed |= {counted_points(p, expected["winner"], self.match) for p in allowed}
        if winner != expected["winner"]:
            self.event("illegal", action, f"{self.name(winner)} is recorded as the winner, but"
                                          f" {self.name(expected['winner'])} won", kind="result", anchor="score.end")
        elif points is not None and points not in allowed:
            why = {"bearoff": f"a {expected.get('result')} with the cube at {self.cube.value}",
                   "drop": f"a dropped double with the cube at {self.cube.value}",
                   "resign": f"a resignation with the cube at {self.cube.value}"}[how]
            anchor = {"bearoff": "score." + expected.get("result", "single"), "drop": "score.drop",
                      "resign": "score.single"}[how]
            if how == "bearoff" and rules["jacoby"] and self.match.money and self.cube.owner == "center":
                anchor = "cube.jacoby"
            self.event("illegal", action, f"{self.name(winner)} is recorded as winning {points} point(s); {why}"
                                          f" is worth {' or '.join(str(p) for p in sorted(allowed))}",
                       kind="result", anchor=anchor, position=self.position if how == "bearoff" else None)
        self.out.results.append({"game": self.game.number, "winner": winner, "points": points})
        return True


def judge_record(rec: MatchRecord, ask: bool = False) -> FileResult:
    """Judge every game of a parsed record with the reference; ``ask`` also collects the
    questions for an engine. Never raises for a readable record. The events of a record
    converted from .sgf say that their lines are those of the conversion."""
    out = _judge_record(rec, ask)
    if rec.via:
        for e in out.events:
            e.converted = True
    return out


def _judge_record(rec: MatchRecord, ask: bool) -> FileResult:
    out = FileResult(rec.path, games=len(rec.games))
    try:
        rules = effective_rules(rec.rules)
    except GameStateError as exc:
        out.events.append(Event("error", rec.path, 0, f"the header's rules cannot be: {exc}"))
        return out
    scores = []
    for g in rec.games:
        scores.append((g.score["x"], g.score["o"]))
    try:
        matches = crawford_states(rec.length, scores, rules)
    except GameStateError as exc:
        out.events.append(Event("error", rec.path, 0, f"the score history cannot be: {exc}"))
        return out
    previous: tuple[GameRecord, Match, dict] | None = None
    for i, (game, match) in enumerate(zip(rec.games, matches)):
        if previous is not None and previous[2].get("points") is not None:
            before, pmatch, res = previous
            want = dict(before.score)
            want[res["winner"]] += counted_points(res["points"], res["winner"], pmatch)
            if want != game.score:
                out.events.append(Event("illegal", rec.path, game.line,
                                        f"game {game.number} starts at {game.score['x']}-{game.score['o']}, but after"
                                        f" game {before.number} the score is {want['x']}-{want['o']}",
                                        game.number, kind="score", anchor="match.score"))
        judge = _Game(rec, game, match, rules, out, last=i == len(rec.games) - 1, ask=ask)
        judge.run()
        previous = (game, match, judge.result) if judge.result else None
    return out


# -- files -----------------------------------------------------------------------------------
def record_files(paths: Iterable[str]) -> tuple[list[Path], list[Event]]:
    """The record files named (a folder stands for its .mat and .sgf files, sorted), each
    once however often it is named, and an error event for each name that is neither."""
    files, problems = _record_paths(paths)
    seen: set[str] = set()
    once = []
    for f in files:
        key = os.path.realpath(f)
        if key not in seen:
            seen.add(key)
            once.append(f)
    return once, problems


def _record_paths(paths: Iterable[str]) -> tuple[list[Path], list[Event]]:
    files, problems = [], []
    for name in paths:
        p = Path(name)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.suffix.lower() in FORMATS and f.is_file())
            if not found:
                problems.append(Event("error", name, 0, "folder with no .mat or .sgf record"))
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            problems.append(Event("error", name, 0, "no such file"))
    return files, problems


def replay_files(files: list[Path], *, ask: bool = False,
                 each: Callable[[FileResult], None] | None = None) -> list[FileResult]:
    """Read and judge each file in order (one FileResult per file; a file that cannot be read
    is one with an error event, and the next file goes on); ``each`` is called after each file.
    The one place where the list of files is walked."""
    out = []
    for path in files:
        shown = str(path)
        try:
            result = judge_record(read_record(path, shown), ask=ask)
        except RecordError as exc:
            result = FileResult(shown)
            result.events.append(Event("error", shown, exc.line, exc.message))
        out.append(result)
        if each:
            each(result)
    return out


# -- output ----------------------------------------------------------------------------------
def event_text(e: Event) -> str:
    """An event in full: where, what, the clause, and for a play the board and nearest plays."""
    from conformance.cases import resources
    from conformance.harness.diagram import board_diagram

    lines = [f"{e.level.upper()} {e.where()}: {e.message}"]
    if e.anchor:
        lines.append(f"  spec {e.anchor}: {resources.spec_clauses().get(e.anchor, '')}".rstrip())
    if e.position is not None:
        lines.append(board_diagram(e.position, e.dice))
    if e.recorded:
        lines.append(f"  recorded play: {e.recorded}")
    if e.nearest:
        lines.append("  nearest legal plays: " + ", ".join(e.nearest))
    return "\n".join(lines)


def file_summary(r: FileResult) -> str:
    s = (f"{r.file}: {r.games} game{'s' * (r.games != 1)}, {r.plays} plays ({r.no_plays} no play),"
         f" {r.cube_actions} cube action{'s' * (r.cube_actions != 1)}, {r.illegal} illegal event"
         f"{'s' * (r.illegal != 1)}")
    return s + (f", {r.errors} record error{'s' * (r.errors != 1)}" if r.errors else "")


# -- questions to an engine ---------------------------------------------------------------------
def _question_yaml(q: Question, case_id: str) -> str | None:
    """The question as a complete case (format 1), its expectation from the reference; None when
    the reference has no answer for it."""
    from reference_impl import legal_plays

    from conformance.harness.found_cases import case_text

    rules = effective_rules(q.rules)
    where = f"{Path(q.file).name} game {q.game}" + (f" move {q.move}" if q.move is not None else "")
    source = f"bgconf replay of {q.file}, game {q.game}" + (f", move {q.move}" if q.move is not None else "") \
        + f" (line {q.line})"
    kw: dict[str, Any] = {}
    if q.kind == "legal_plays":
        plays = legal_plays(q.position, q.dice)
        kw["expected"] = plays
        title = f"{where}: {q.position.on_roll} to play {q.dice[0]}-{q.dice[1]}"
    elif q.kind == "play_check":
        kw["expected"] = recorded_play(q.position, q.dice, q.steps).verdict
        title = f"{where}: {q.play} with {q.dice[0]}-{q.dice[1]}"
    elif q.kind == "game_result":
        kw["expected"] = game_result(q.position, q.cube, q.match, rules)
        title = f"{where}: the result of the game"
    else:
        kw["expected"] = cube_action(q.on_roll, q.moment, q.cube, q.match, q.action["by"], q.action["type"], rules)
        title = f"{where}: {q.action['by']} {q.action['type']}"
    return case_text(q, case_id, title, source=source, comment=f"A position of a recorded match ({where}).", **kw)


def question_cases(questions: list[Question], salt: str) -> list[tuple[Question, str]]:
    """Each question with its case text (fresh ids, the same for the same questions)."""
    from conformance.harness.found_cases import fresh_ids

    ids = fresh_ids(len(questions), f"replay:{salt}")
    out = []
    for q, cid in zip(questions, ids):
        text = _question_yaml(q, cid)
        if text:
            out.append((q, text))
    return out


def load_question_cases(pairs: list[tuple[Question, str]]):
    """The cases of the texts, loaded by ``conformance.cases.load_file`` (so a case prints
    exactly as it loads); returns [(question, text, case)] and the load errors."""
    from conformance.harness.found_cases import load_case_text

    if not pairs:
        return [], []
    body = "format: 1\ncases:\n" + "".join(text.split("cases:\n", 1)[1] for _q, text in pairs)
    cases, errors = load_case_text(body, "replay.bgcase.yaml")
    by_id = {c.id: c for c in cases}
    out = []
    for q, text in pairs:
        cid = re.search(r"- id: (bg-\w{4})", text).group(1)
        if cid in by_id:
            out.append((q, text, by_id[cid]))
    return out, errors


# -- the command ---------------------------------------------------------------------------------
EPILOG = """exit codes:
  0    every play, cube action and result of every record is legal
  1    at least one illegal event (each printed in full), or with --engine at least
       one mismatch (each printed as a ready YAML case); this wins over 3
  2    bad command line, or an output path that cannot be written
  3    a record (or a line of it) cannot be read: printed as file:line and the
       reason; its other games and the other files were still judged
  4    the engine is unknown, not installed, or could not be started
  130  interrupted (SIGINT); the files judged so far are kept, the report ends
       with a footer marked interrupted
  143  stopped by SIGTERM, likewise

formats: .mat (Jellyfish, as GNU Backgammon, eXtreme Gammon, BGBlitz and game
servers export it, read by the gammonview library); .sgf (GNU Backgammon's, converted
to .mat by GNU Backgammon when it is installed). A folder stands for its records.

examples:
  bgconf replay tests/data/matches/*.mat
  bgconf replay --report replay.jsonl matches/
  bgconf replay --engine gnubg --write-cases found.bgcase.yaml tests/data/matches/
"""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "replay", help="judge every play, cube action and result of recorded matches (.mat, .sgf)",
        description="Read recorded matches and judge each play, 'no play', cube action and game result with the"
                    " reference engine: a per-file summary, every illegal event in full (clause, board, dice, the"
                    " recorded play and the legal plays nearest to it). With --engine, every position of every"
                    " record is also put to the engine and each mismatch printed as a ready YAML case.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    from conformance.commands.common import add_engine_options, shard
    from conformance.harness.shard import WHOLE

    p.add_argument("files", nargs="+", metavar="FILE", help=".mat or .sgf records, or folders of them")
    p.add_argument("--report", metavar="FILE.jsonl", help="write every event and each file's counts as JSON Lines")
    p.add_argument("--engine", help="also ask this engine about every position (reference, gnubg, cmd:...,"
                                    " python:module:factory): legal plays, the recorded play, results, cube actions")
    p.add_argument("--write-cases", metavar="OUT.yaml",
                   help="write a case file with a case for every illegal play and, with --engine, every mismatch")
    p.add_argument("--quiet", action="store_true", help="print the summaries only, not each event in full")
    p.add_argument("--shard", type=shard, default=WHOLE, metavar="K/N",
                   help="replay only shard K of N of the record files (every N-th file from the K-th, in the"
                        " sorted order of the files named): the N shards replay exactly the files of the whole run")
    add_engine_options(p)
    p.set_defaults(func=cmd_replay)


def _header(args) -> dict:
    from datetime import datetime, timezone

    from conformance import __version__

    return {"type": "replay-header", "suite_version": __version__, "engine": args.engine,
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "files": list(args.files),
            **({"shard": str(args.shard)} if args.shard.n > 1 else {})}


def cmd_replay(args) -> int:
    from conformance.commands.common import (
        EXIT_BAD_CASES, EXIT_FAILED, EXIT_OK, EXIT_SIGNAL, EXIT_USAGE, CommandExit, check_outputs, err,
        interruptible, open_engine, signal_name, write_text,
    )
    from conformance.reports.report import ReportWriter

    try:
        check_outputs({"--report": args.report, "--write-cases": args.write_cases})
    except CommandExit as stop:
        return stop.code
    try:
        _library()
    except RecordError as exc:
        err(exc.message)
        return EXIT_USAGE
    engine = info = None
    if args.engine:
        try:
            engine, info = open_engine(args.engine, args.timeout, args.max_restarts)
        except CommandExit as stop:
            return stop.code
    try:
        report = ReportWriter(args.report)
    except OSError as exc:
        err(f"--report {args.report}: {exc.strerror or exc}")
        if engine:
            engine.close()
        return EXIT_USAGE
    report.write(_header(args))
    files, problems = record_files(args.files)
    files = [f for i, f in enumerate(files) if args.shard.owns(i)]
    done: list[FileResult] = []
    mismatches: list[str] = []
    wanted: list[str] = []
    t0 = time.perf_counter()
    interrupted = None

    def each(r: FileResult) -> None:
        for e in r.events:
            report.write(e.to_json())
            if not args.quiet or e.level == "error":
                print(event_text(e) if e.level != "note" else f"note {e.where()}: {e.message}",
                      file=sys.stderr if e.level == "error" else sys.stdout, flush=True)
        if engine is not None:
            mismatches.extend(_ask(engine, args.engine, r, report, wanted))
        elif args.write_cases:
            wanted.extend(_illegal_cases(r))
        report.write(r.to_json())
        print(file_summary(r), flush=True)
        done.append(r)

    for e in problems:
        report.write(e.to_json())
        print(f"error: {e.where()}: {e.message}", file=sys.stderr)
    try:
        with interruptible():
            replay_files(files, ask=engine is not None, each=each)
    except KeyboardInterrupt as exc:
        interrupted = signal_name(exc)
        err(f"interrupted by {interrupted}; the files judged so far are kept")
    finally:
        if engine is not None:
            engine.close()
    totals = {k: sum(getattr(r, k) for r in done) for k in ("games", "plays", "no_plays", "cube_actions",
                                                          "illegal", "errors")}
    totals["errors"] += len(problems)
    report.write({"type": "footer", "files": len(done), **totals, "mismatches": len(mismatches),
                  "wall_s": round(time.perf_counter() - t0, 3), "interrupted": interrupted or False})
    report.close()
    print(f"{len(done)} file{'s' * (len(done) != 1)}: {totals['games']} games, {totals['plays']} plays,"
          f" {totals['cube_actions']} cube actions, {totals['illegal']} illegal events, {totals['errors']} record"
          f" errors" + (f", {len(mismatches)} mismatches with {args.engine}" if engine is not None else ""))
    ok_written = True
    if args.write_cases:
        body = "format: 1\ncases:\n" + "".join(t.split("cases:\n", 1)[1] for t in wanted) if wanted else \
            "format: 1\ncases: []\n"
        ok_written = write_text("--write-cases", args.write_cases, body)
        if ok_written:
            print(f"wrote {len(wanted)} case(s) to {args.write_cases}")
    if report.error:
        err(f"--report {args.report}: {report.error}")
        ok_written = False
    if interrupted:
        return EXIT_SIGNAL[interrupted]
    if totals["illegal"] or mismatches:
        return EXIT_FAILED
    if totals["errors"]:
        return EXIT_BAD_CASES
    return EXIT_OK if ok_written else EXIT_USAGE


def _illegal_cases(r: FileResult) -> list[str]:
    """A play_check case for every illegal play of a file (the reference's verdict)."""
    questions = [Question("play_check", file=r.file, game=e.game, move=e.move, line=e.line, position=e.position,
                          dice=e.dice, play=None, steps=None)
                 for e in r.events if e.level == "illegal" and e.kind == "play"]
    out = []
    for q, e in zip(questions, [e for e in r.events if e.level == "illegal" and e.kind == "play"]):
        q.steps = _steps_of(e)
        q.play = _segments_text(q.steps)
    for _q, text in question_cases(questions, r.file + ":illegal"):
        out.append(text)
    return out


def _steps_of(e: Event) -> list[tuple[int, int]]:
    chains = parse_play(e.recorded)
    return [(a, b) for points, _m in chains for a, b in zip(points, points[1:])]


def _ask(engine, engine_name: str, r: FileResult, report, wanted: list[str]) -> list[str]:
    """Put a file's questions to the engine (``runner.run_cases``, compared by ``compare``);
    print each mismatch as a ready case; return the mismatching case texts."""
    from conformance.reports.report import case_line
    from conformance.harness.runner import run_cases

    pairs = question_cases(r.questions, r.file)
    loaded, errors = load_question_cases(pairs)
    for e in errors:
        print(f"warning: a question case does not load: {e}", file=sys.stderr)
    results = run_cases(engine, [c for _q, _t, c in loaded], batch_size=200)
    bad = []
    for (q, text, case), res in zip(loaded, results):
        if res.status in ("fail", "errored", "timeout"):
            line = case_line(res, engine_name)
            line["record"] = {"file": q.file, "game": q.game, "move": q.move, "line": q.line}
            report.write(line)
            print(f"MISMATCH {q.file}:{q.line} (game {q.game}" + (f", move {q.move}" if q.move is not None else "")
                  + f") {q.kind}: {engine_name} {res.status}: {res.outcome.message}")
            print("---\n" + text.rstrip("\n") + "\n---", flush=True)
            bad.append(text)
    wanted.extend(bad)
    wanted.extend(_illegal_cases(r))
    unsupported = sum(res.status == "unsupported" for res in results)
    if unsupported:
        print(f"{r.file}: {unsupported} of {len(results)} questions unsupported by {engine_name}")
    return bad
