"""Judging a match record: the reference's verdict on every event, as replay reports it.

A ``conformance.model.MatchRecord`` (``record_reader``) is played through the rules event by
event by ``reference_impl.record.step`` in the record dialect (the one way a record is
played, game_record cases included); this module only turns its answers into what
``bgconf replay`` reports (``FileResult``: the counts, and a ``Finding`` for every illegal
event, record error and note, with its text), adds the legal plays nearest to an illegal
one, collects the questions an engine may be asked (``question``), and checks each game's
starting score against the result before it (spec: match.score) with the match state from
the score history (``crawford_states``). It also walks the list of record files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from conformance.model import (
    Event, GameRecord, GameStateError, Match, MatchRecord, Position, RecordError, effective_rules, format_play,
    other, point_name, written_moves,
)

from reference_impl.record import State, counted_points, crawford_states, start, step

from .found_cases import CUBE_REASON_ANCHORS, REASON_ANCHORS
from .record_reader import FORMATS, RESIGN, WIN, read_record

NEAREST = 3  # legal plays shown next to an illegal one


@dataclass
class Finding:
    """Something replay reports (a report's ``event`` line): ``level`` ``illegal`` (a rule broken), ``error`` (the record
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
    """One record's counts (games, plays, no plays, cube actions, illegal events, errors, and
    ``unjudged``: the events of a game after the point where it can no longer be followed, a
    line that cannot be read or a play whose moves cannot be made) and its events (Finding);
    ``questions`` (made by the ``question`` factory of ``judge_record``) when asked for;
    ``results``: each game's recorded result ``{game, winner, points}``."""

    file: str
    games: int = 0
    plays: int = 0
    no_plays: int = 0
    cube_actions: int = 0
    unjudged: int = 0
    events: list[Finding] = field(default_factory=list)
    questions: list = field(default_factory=list)
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
                "errors": self.errors, "unjudged": self.unjudged}


def segments_text(segments) -> str:
    """Written moves ``[(from, to), ...]`` as notation (``none`` for no moves)."""
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


class _GameJudging:
    """One game stepped through the rules (``reference_impl.record.step``), its answers
    written as findings and counted; returns the recorded result ``{winner, points}`` or None."""

    def __init__(self, rec: MatchRecord, game: GameRecord, match: Match, rules: dict, out: FileResult,
                 last: bool, question: Callable | None):
        self.rec, self.game, self.match, self.rules, self.out = rec, game, match, rules, out
        self.last, self.question = last, question
        self.state: State = start(match, record=True)
        self.unfinished = False  # a money session stopped on a roll shown but not played
        self.result: dict | None = None
        self.judge = {"play": self._play, "double": self._double, "take": self._answer, "drop": self._answer,
                      "beaver": self._answer, "raccoon": self._answer, "resign": self._resign, "win": self._win}

    def finding(self, level: str, event: Event | None, message: str, **kw) -> Finding:
        e = Finding(level, self.rec.path, event.line if event else self.game.line, message, self.game.number,
                    event.move if event else None, event.side if event else None, **kw)
        self.out.events.append(e)
        return e

    def stop(self, left: int, at: Event | None, line: int = 0) -> dict | None:
        """The game is followed no further after the event ``at`` (or the unread ``line``): its
        ``left`` events are counted unjudged, and a note says so."""
        self.out.unjudged += left
        if left:
            e = self.finding("note", at, f"the {counted(left, 'event')} of game {self.game.number} after this"
                                         f" {'event' if at else 'line'} {'is' if left == 1 else 'are'} not judged",
                             kind="unjudged")
            e.line = e.line if at else line
        return self.result

    def name(self, side: str) -> str:
        return f"{self.rec.names[side]} ({side})"

    def ask(self, kind: str, at: Event, **kw) -> None:
        if self.question is not None:
            self.out.questions.append(self.question(
                kind, file=self.rec.path, game=self.game.number, move=at.move, line=at.line,
                match=self.match if kind in ("game_result", "cube_action") else None, rules=dict(self.rec.rules),
                **kw))

    def run(self) -> dict | None:
        error = self.game.error
        events = self.game.events
        readable = [e for e in events if error is None or e.line < error.line]
        for i, event in enumerate(readable):
            if self.state.moment == "game_over" and event.type != WIN:
                if self.state.end["game"]["result"] == "resign" and event.type == RESIGN:
                    continue
                self.finding("illegal", event, f"{event.text!r} after the game ended", kind="after-end",
                             anchor="score.end")
                return self.stop(len(events) - i - 1, event)
            if not self.judge[event.kind](event):
                return self.stop(len(events) - i - 1, event)
        if error is not None:
            self.out.events.append(Finding("error", self.rec.path, error.line, error.message, self.game.number))
            return self.stop(len(events) - len(readable), None, error.line)
        if self.result is None and self.state.moment != "game_over" and not self.unfinished:
            last = self.game.events[-1] if self.game.events else None
            if self.rec.length == 0 and self.last:
                self.finding("note", last, "the session ends with this game unfinished", kind="unfinished")
            else:
                self.finding("error", last, f"the record ends before game {self.game.number} is over (truncated?)",
                             kind="truncated")
        return self.result

    # -- plays ------------------------------------------------------------------------------
    def _play(self, event: Event) -> bool:
        before = self.state
        done = step(before, event, self.rules)
        if not done.accepted and before.moment == "double_offered":
            self.finding("illegal", event, f"{self.name(event.side)} rolls while the double of"
                                           f" {self.name(before.on_roll)} is unanswered", kind="cube",
                         reason="wrong-moment", anchor="cube.take")
            return False
        if not done.accepted and done.reason == "not-your-turn":
            self.finding("illegal", event, f"{self.name(event.side)} plays on {self.name(before.on_roll)}'s"
                                           " turn", kind="turn")
            return False
        position = before.position or Position.start(event.side)  # the first play's side starts
        dice = event.dice
        if self.last and self.rec.length == 0 and event is self.game.events[-1] and not event.steps:
            # a money session stopped with the roll shown but not played: not a play
            self.finding("note", event, f"the session ends on {self.name(event.side)}'s roll"
                                        f" {dice[0]}-{dice[1]}, not played", kind="unfinished")
            self.unfinished = True
            return True
        self.out.plays += 1
        if not event.steps:
            self.out.no_plays += 1
        after = done.state if done.accepted else done.played
        result = after.position if after is not None else None
        as_written = not done.accepted and done.reason in ("not-a-roll", "backward-move")
        if self.question is not None and not as_written:  # no case can state a die of 7 or a move back
            self.ask("legal_plays", event, position=position, dice=dice)
            play, steps = segments_text(event.steps), list(event.steps)
            if done.accepted and event.steps:
                # asked in the spec's own notation, every hit marked: a record's unmarked 13/5 that
                # hits on 8 is, in spec notation (format.notation), a play that does not hit
                from reference_impl import legal_plays

                steps = list(legal_plays(position, dice)[result])
                play = format_play(position, steps)
                steps = list(written_moves(play))
            self.ask("play_check", event, position=position, dice=dice, play=play, steps=steps)
        if not done.accepted:
            written = event.text.split(":", 1)[-1].strip() if ":" in event.text else event.text
            reason = done.reason
            what = "no play" if not event.steps else written
            self.finding("illegal", event, f"{self.name(event.side)} rolls {dice[0]}-{dice[1]} and plays {what}:"
                                           f" illegal ({reason})", kind="no-play" if not event.steps else "play",
                         reason=reason, anchor=REASON_ANCHORS.get(reason), position=position,
                         dice=None if reason == "not-a-roll" else dice, recorded=what,
                         nearest=[] if as_written else nearest_plays(position, dice, result))
            if after is None:
                self.finding("note", event, "the written moves cannot be made on this board: the game is not"
                                            " followed further", kind="stopped")
                return False
        self.state = after  # an illegal play is followed as it was played
        return True

    # -- the cube ----------------------------------------------------------------------------
    def _cube(self, event: Event, on_roll: str, moment: str):
        """Step a cube action, count it, ask about it and report a refusal; the step."""
        self.out.cube_actions += 1
        done = step(self.state, event, self.rules)
        self.ask("cube_action", event, on_roll=on_roll, moment=moment, cube=self.state.cube,
                 action={"by": event.side, "type": event.type})
        if not done.accepted:
            reason = done.reason
            self.finding("illegal", event, f"{self.name(event.side)}: {event.text!r} is not allowed ({reason})",
                         kind="cube", reason=reason, anchor=CUBE_REASON_ANCHORS.get(reason))
        return done

    def _double(self, event: Event) -> bool:
        before = self.state
        if before.position is not None:
            on_roll, moment = before.on_roll, "before_roll"
        else:  # the opening throw gives the first numbers: the first side to act has rolled
            on_roll, moment = event.side, "after_roll"
        done = self._cube(event, on_roll, moment)
        if event.value != before.cube.value * 2:
            self.finding("illegal", event, f"{self.name(event.side)} doubles to {event.value} with the cube at"
                                           f" {before.cube.value}", kind="cube", reason="wrong-value",
                         anchor="cube.take")
        # an illegal double is reported and the game followed as it was played: the offer stands
        self.state = done.state if done.accepted else done.played
        return True

    def _answer(self, event: Event) -> bool:
        before = self.state
        if before.moment == "double_offered":
            on_roll, moment = before.on_roll, "double_offered"
        else:
            on_roll, moment = before.on_roll if before.position is not None else event.side, "before_roll"
        done = self._cube(event, on_roll, moment)
        self.state = done.state
        return done.accepted

    def _resign(self, event: Event) -> bool:
        self.state = step(self.state, event, self.rules).state
        return True

    # -- the result ---------------------------------------------------------------------------
    def _win(self, event: Event) -> bool:
        before, rules = self.state, self.rules
        winner, points = event.side, event.value
        self.result = {"winner": winner, "points": points}
        if before.moment != "game_over" and self.rec.length == 0 and self.last:
            self.finding("note", event, f"the session ends with this game unfinished; the recorded"
                                        f" {points} point(s) to {self.name(winner)} are not checked", kind="unfinished")
            return False
        done = step(before, event, rules)
        if before.moment != "game_over":
            # the game is not over on the board: the loser resigned, which .mat writers often leave
            # unwritten (GNU Backgammon's export among them)
            if not done.accepted:
                self.finding("illegal", event, f"{self.name(winner)} is recorded as winning {points} point(s) in game"
                                               f" {self.game.number} before it is over; a resignation with the cube"
                                               f" at {before.cube.value} is worth {' or '.join(map(str, done.allowed))}",
                             kind="result", anchor="score.end")
                return False
            self.finding("note", event, f"game {self.game.number} ends before it is over on the board: taken as a"
                                        f" resignation by {self.name(other(winner))}", kind="resigned")
            self.state = done.state
            self.out.results.append({"game": self.game.number, "winner": winner, "points": points})
            return True
        ended = before.end["game"]["result"]
        how = {"resign": "resign", "drop": "drop"}.get(ended, "bearoff")
        if how == "bearoff":
            self.ask("game_result", event, position=before.position, cube=before.cube)
        if done.reason == "wrong-winner":
            self.finding("illegal", event, f"{self.name(winner)} is recorded as the winner, but"
                                           f" {self.name(done.expected['winner'])} won", kind="result",
                         anchor="score.end")
        elif done.reason == "wrong-points":
            expected, cube = done.expected, before.cube
            why = {"bearoff": f"a {expected.get('result')} with the cube at {cube.value}",
                   "drop": f"a dropped double with the cube at {cube.value}",
                   "resign": f"a resignation with the cube at {cube.value}"}[how]
            anchor = {"bearoff": "score." + expected.get("result", "single"), "drop": "score.drop",
                      "resign": "score.single"}[how]
            if how == "bearoff" and rules["jacoby"] and self.match.money and cube.owner == "center":
                anchor = "cube.jacoby"
            self.finding("illegal", event, f"{self.name(winner)} is recorded as winning {points} point(s); {why}"
                                           f" is worth {' or '.join(str(p) for p in done.allowed)}",
                         kind="result", anchor=anchor, position=before.position if how == "bearoff" else None)
        self.out.results.append({"game": self.game.number, "winner": winner, "points": points})
        return True


def judge_record(rec: MatchRecord, question: Callable | None = None) -> FileResult:
    """Judge every game of a parsed record with the reference (``reference_impl.record.step``
    in the record dialect); ``question``, when given, is called as ``question(kind, file=,
    game=, move=, line=, **inputs)`` (``conformance.harness.questions.Question``) for every
    position an engine may be asked about, its returns collected in ``questions``. Never raises for a readable record. The events of a
    record converted from .sgf say that their lines are those of the conversion."""
    out = _judge_record(rec, question)
    if rec.via:
        for e in out.events:
            e.converted = True
    return out


def _judge_record(rec: MatchRecord, question: Callable | None) -> FileResult:
    out = FileResult(rec.path, games=len(rec.games))
    try:
        rules = effective_rules(rec.rules)
    except GameStateError as exc:
        out.events.append(Finding("error", rec.path, 0, f"the header's rules cannot be: {exc}"))
        return out
    scores = []
    for g in rec.games:
        scores.append((g.score["x"], g.score["o"]))
    try:
        matches = crawford_states(rec.length, scores, rules)
    except GameStateError as exc:
        out.events.append(Finding("error", rec.path, 0, f"the score history cannot be: {exc}"))
        return out
    previous: tuple[GameRecord, Match, dict] | None = None
    if rec.error is not None:  # a file problem: no game's
        out.events.append(Finding("error", rec.path, rec.error.line, rec.error.message))
    for i, (game, match) in enumerate(zip(rec.games, matches)):
        if previous is not None and previous[2].get("points") is not None:
            before, pmatch, res = previous
            want = dict(before.score)
            want[res["winner"]] += counted_points(res["points"], res["winner"], pmatch)
            if want != game.score:
                out.events.append(Finding("illegal", rec.path, game.line,
                                        f"game {game.number} starts at {game.score['x']}-{game.score['o']}, but after"
                                        f" game {before.number} the score is {want['x']}-{want['o']}",
                                        game.number, kind="score", anchor="match.score"))
        result = _GameJudging(rec, game, match, rules, out, i == len(rec.games) - 1, question).run()
        previous = (game, match, result) if result else None
    return out


# -- files -----------------------------------------------------------------------------------
def record_files(paths: Iterable[str]) -> tuple[list[Path], list[Finding]]:
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


def _record_paths(paths: Iterable[str]) -> tuple[list[Path], list[Finding]]:
    files, problems = [], []
    for name in paths:
        p = Path(name)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.suffix.lower() in FORMATS and f.is_file())
            if not found:
                problems.append(Finding("error", name, 0, "folder with no .mat or .sgf record"))
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            problems.append(Finding("error", name, 0, "no such file"))
    return files, problems


def replay_file(path: Path, question: Callable | None = None) -> FileResult:
    """Read and judge one file (a file that cannot be read is a FileResult with an error
    event); ``question`` as for ``judge_record``."""
    shown = str(path)
    try:
        return judge_record(read_record(path, shown), question)
    except RecordError as exc:
        result = FileResult(shown)
        result.events.append(Finding("error", shown, exc.line, exc.message))
        return result


def replay_files(files: list[Path], *, question: Callable | None = None,
                 each: Callable[[FileResult], None] | None = None) -> list[FileResult]:
    """Read and judge each file in order (one FileResult per file; a file that cannot be read
    is one with an error event, and the next file goes on); ``question`` as for ``judge_record``;
    ``each`` is called after each file.
    The one place where the list of files is walked (``--jobs``: each worker walks its share
    with ``replay_file``)."""
    out = []
    for path in files:
        result = replay_file(path, question)
        out.append(result)
        if each:
            each(result)
    return out


# -- output ----------------------------------------------------------------------------------
def event_text(e: Finding) -> str:
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


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``1 game``, ``2 games``: a count with its noun (``plural`` when it is not noun + s)."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def file_summary(r: FileResult) -> str:
    """A file's counts on one line (``unjudged`` and errors only when there are any)."""
    s = (f"{r.file}: {counted(r.games, 'game')}, {counted(r.plays, 'play')} ({r.no_plays} no play),"
         f" {counted(r.cube_actions, 'cube action')}, {counted(r.illegal, 'illegal event')}")
    s += f", {r.unjudged} unjudged" if r.unjudged else ""
    return s + (f", {counted(r.errors, 'record error')}" if r.errors else "")




# -- expected verdicts -------------------------------------------------------------------------
#: the counts an expected verdict states, and what it states of each illegal event and note
VERDICT_COUNTS = ("games", "plays", "no_plays", "cube_actions", "illegal", "errors")
VERDICT_EVENT = {"illegal": ("game", "move", "side", "kind", "spec"), "errors": ("line", "game"),
                 "notes": ("game", "kind")}
VERDICT_SUFFIX = ".verdict.yaml"


def observed_verdict(r: FileResult) -> dict:
    """A judgement in the shape of an expected verdict: ``summary`` (VERDICT_COUNTS), then
    ``illegal``, ``errors`` and ``notes``, each a list of its VERDICT_EVENT fields."""
    level = {"illegal": "illegal", "errors": "error", "notes": "note"}
    out: dict = {"summary": {k: getattr(r, k) for k in VERDICT_COUNTS}}
    for key, fields in VERDICT_EVENT.items():
        out[key] = [{f: (e.anchor if f == "spec" else getattr(e, f)) for f in fields}
                    for e in r.events if e.level == level[key]]
    return out


def verdict_differences(directory: str | os.PathLike) -> list[str]:
    """Replay every record of ``directory`` as ``bgconf replay`` does and compare each with its
    expected verdict, ``NAME.verdict.yaml`` beside ``NAME.mat`` (keys: ``summary`` with
    VERDICT_COUNTS, and ``illegal``, ``errors``, ``notes`` as ``observed_verdict`` gives them;
    a key left out is not compared). Returns one line per difference, naming the record (empty:
    every verdict reproduced); a record without its verdict, or an unreadable one, is a
    difference too. Never raises for a directory it can list."""
    import yaml

    files, problems = record_files([str(directory)])
    out = [f"{p.file}: {p.message}" for p in problems]
    for result, path in zip(replay_files(files), files):
        expected_path = path.with_name(path.stem + VERDICT_SUFFIX)
        try:
            expected = yaml.safe_load(expected_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            out.append(f"{expected_path}: cannot be read: {exc}")
            continue
        if not isinstance(expected, dict) or not isinstance(expected.get("summary"), dict):
            out.append(f"{expected_path}: an expected verdict is a mapping with a summary")
            continue
        got = observed_verdict(result)
        for k in VERDICT_COUNTS:
            if k in expected["summary"] and expected["summary"][k] != got["summary"][k]:
                out.append(f"{path.name}: {k} expected {expected['summary'][k]}, got {got['summary'][k]}")
        for key in VERDICT_EVENT:
            if key in expected and (expected[key] or []) != got[key]:
                out.append(f"{path.name}: {key} expected {expected[key] or []}, got {got[key]}")
    return out
