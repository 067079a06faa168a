"""Reading match records into the record model: ``.mat`` text exports, and GNU Backgammon's ``.sgf``.

``.mat`` is Jellyfish's match text, which GNU Backgammon, eXtreme Gammon, BGBlitz, the game
sites and the FIBS clients export, each with words of its own. One grammar reads them all::

    record  := header* length game+
    header  := '; [' key ' "' value '"]'    Player 1, Player 2, Crawford, Jacoby, Beaver,
                                             CubeLimit, Variation are read; other keys are labels
    length  := N ' point match'              0: a money session
    game    := 'Game ' N  score  line*
    score   := name ' : ' N   name ' : ' N   the score before the game, left column then right
    line    := [N ')'] column [column]       the left column is player 1's (x), the right o's
    action  := DD ':' play                   a roll and its play ('' or a no-move word: no play)
             | ('Doubles' | 'Redoubles') ['=>' N] | 'Beavers' ['=>' N] | 'Raccoons' ['=>' N]
             | 'Takes' | 'Accepts' | 'Drops' | 'Passes' | 'Rejects' | 'Refuses' | 'Declines'
             | 'Wins ' N ' point' ['s'] [' and the match'] | 'Resigns' ... | 'Forfeits' ...
    play    := format.notation's moves: '13/11(2)', 'bar/22*', '6/off', '6/0', '19/18, 14/12'

The side of an action is its column, as the format defines it, never a name: the names on a
score line only label the columns, so two players with one name, or a name spelled another way
in one game, change nothing. The header's Player 1 and Player 2 name the left and right columns,
unless they are the first score line's two names crossed (an export that lists the right
column's player first): then the score line's order stands. A lone action is in the right column when it starts where that
column starts in the file (or, in a file without two-column lines, far from the move number).

A play is read as written even when it breaks a movement rule (a backwards step, a roll that
is not two dice): it is the judge's to call it illegal (``reference_impl.record.step``). A line
that is none of the above is a ``conformance.model.RecordError`` with its line: the game's
``error``, after which its events are read but not judged. A second match in one file ends the
reading: the record's ``error`` names the line where it begins.
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from conformance.model import Event, GameRecord, MatchRecord, NotationError, RecordError, Source, written_moves

FORMATS = (".mat", ".sgf")
#: the kinds of a match record's actions (Event types; a play is a ``roll_play``)
PLAY, DOUBLE, TAKE, DROP, RESIGN, WIN = "play", "double", "take", "drop", "resign", "win"

_TAG = re.compile(r'^\s*;\s*\[\s*([A-Za-z][\w ]*?)\s+"?([^"\]]*)"?\s*\]')
_LENGTH = re.compile(r"^\s*(\d+)\s+points?\s+match\b", re.I)
_GAME = re.compile(r"^\s*game\s+(\d+)\s*$", re.I)
_SCORE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*$")
_TURN = re.compile(r"^\s*(\d+)\)")
#: the words of each action, in every dialect read (the first word of a column)
_VERBS = {"doubles": DOUBLE, "double": DOUBLE, "redoubles": DOUBLE, "beavers": "beaver", "raccoons": "raccoon",
          "takes": TAKE, "accepts": TAKE, "drops": DROP, "passes": DROP, "rejects": DROP, "refuses": DROP,
          "declines": DROP, "wins": WIN, "resigns": RESIGN, "forfeits": RESIGN, "loses": RESIGN}
_START = re.compile(r"(?<!\S)(?:\d\d:|(?:" + "|".join(_VERBS) + r")\b)", re.I)
_ROLL = re.compile(r"(\d)(\d):\s*(.*?)\s*$", re.S)
_CUBE = re.compile(r"(\w+)\s*(?:=>\s*(\d+))?\s*$")
_WIN = re.compile(r"wins\s+(\d+)\s+points?(?:\s+and\s+the\s+match)?\s*(?:\([^)]*\))?\s*$", re.I)
#: what the dialects write for a roll with no play (besides nothing, and format.notation's ``none``)
_NO_MOVE = {"no move", "(no move)", "cannot move", "can't move", "(no play)", "no legal move", "no legal moves"}
#: header keys that begin a match: met after a game, a second match starts
_MATCH_KEYS = {"player 1", "player 2", "site", "match id", "event", "eventdate", "event date"}
_RULES = {"crawford": "crawford", "jacoby": "jacoby", "beaver": "beavers"}
_SECOND = "a second match begins here: a file is one match (split the file; the first match was judged)"
_NEAR_NUMBER = 6  # a lone action this far or farther from its move number is in the right column


def _action(text: str, side: str, source: Source) -> Event:
    """One column's action as an Event (a play is ``roll_play``: its dice as written, its moves
    as written, backwards ones included). Raises RecordError (the line and why) for a text that
    is no action."""
    if m := _ROLL.match(text):
        d1, d2, written = int(m[1]), int(m[2]), m[3]
        if written.lower() in _NO_MOVE:
            written = ""
        if set(written) == {"?"}:
            raise RecordError(source.line, f"{side}'s roll {d1}{d2} is written without its play ({written!r})")
        try:
            steps = written_moves(written)
        except NotationError:
            try:  # a step that breaks move.direction: read as written, judged illegal
                steps = written_moves(written, forward=False)
            except NotationError as exc:
                raise RecordError(source.line, f"{side}'s roll {d1}{d2}: {exc}") from None
        return Event("roll_play", side, (d1, d2), written, steps, text=text, source=source)
    word = text.split()[0].lower()
    kind = _VERBS.get(word)
    if kind == WIN:
        if w := _WIN.match(text):
            return Event(WIN, side, value=int(w[1]), text=text, source=source)
    elif kind == RESIGN:
        return Event(RESIGN, side, text=text, source=source)
    elif kind is not None:
        c = _CUBE.match(text)
        if c:
            return Event(kind, side, value=int(c[2]) if c[2] else None, text=text, source=source)
    raise RecordError(source.line, f"unknown token {text.split()[0]!r} (the line is not read)")


def _columns(text: str, right: int | None = None) -> list[tuple[int, str]]:
    """The actions of a line's text as ``[(column, text)]``: a second action starts with an
    action's first word after two or more spaces, or after one where the right column starts
    (``right``, an offset in ``text``: a left column that fills its width). Raises ValueError
    naming the text before the first."""
    starts = [m.start() for m in _START.finditer(text)]
    if not starts:
        raise ValueError(text.split()[0] if text.strip() else "")
    if text[:starts[0]].strip():
        raise ValueError(text[:starts[0]].split()[0])
    second = next((s for s in starts[1:] if text[s - 2:s] == "  " or (right is not None and s >= right - 1)), None)
    if second is None:
        return [(starts[0], text[starts[0]:].strip())]
    return [(starts[0], text[starts[0]:second].strip()), (second, text[second:].strip())]


def _right_column(lines: list[str]) -> int | None:
    """Where the right column starts in the file: the first column of a line's second action."""
    best = None
    for ln in lines:
        m = _TURN.match(ln)
        if not m:
            continue
        try:
            cols = _columns(ln[m.end():])
        except ValueError:
            continue
        if len(cols) == 2:
            at = m.end() + cols[1][0]
            best = at if best is None else min(best, at)
    return best


class _Reader:
    """One pass over a ``.mat`` text: the header, then each game's lines."""

    def __init__(self, text: str, shown: str):
        self.lines = text.splitlines()
        self.shown = shown
        self.right = _right_column(self.lines)

    def side_of(self, line: str, number_end: int | None, column: int) -> str:
        if self.right is not None:
            return "o" if column >= self.right - 3 else "x"
        if number_end is not None:
            return "o" if column - number_end >= _NEAR_NUMBER else "x"
        return "o" if column >= 16 else "x"

    def read(self) -> MatchRecord:
        tags: dict[str, tuple[str, int]] = {}
        length = None
        games: list[GameRecord] = []
        game: GameRecord | None = None
        score_seen = False
        header_at: int | None = None  # the first header line since the last game line
        second: RecordError | None = None
        first_names: tuple[str, str] | None = None
        for i, ln in enumerate(self.lines, 1):
            stripped = ln.strip()
            tag = _TAG.match(ln)
            if tag and games:
                if tag[1].strip().lower() in _MATCH_KEYS:
                    header_at = header_at or i
                continue
            if not stripped or stripped.startswith(";"):
                if tag:
                    tags.setdefault(tag[1].strip().lower(), (tag[2].strip(), i))
                continue
            if m := _LENGTH.match(ln):
                if games:
                    second = RecordError(header_at or i, _SECOND)
                    break
                length = int(m[1])
                continue
            if m := _GAME.match(ln):
                number = int(m[1])
                if header_at is not None:
                    second = RecordError(header_at or i, _SECOND)
                    break
                if length is None:
                    raise RecordError(i, "a game before the match length line ('N point match')")
                game = GameRecord(number, i, {"x": 0, "o": 0}, [])
                games.append(game)
                score_seen = False
                continue
            if game is None:
                raise RecordError(i, f"unknown line before the first game: {stripped[:40]!r}")
            header_at = None
            if not score_seen and not _TURN.match(ln):
                if s := _SCORE.match(ln):
                    game.score = {"x": int(s[2]), "o": int(s[4])}
                    first_names = first_names or (s[1], s[3])
                    score_seen = True
                    continue
            if not score_seen and game.error is None:
                game.error = RecordError(i, f"game {game.number} has no score line ('name : N   name : N')")
            self.read_line(game, i, ln)
        if not games:
            raise RecordError(0, "no game found (a .mat record has 'N point match', 'Game 1' and its moves)")
        names = {"x": tags.get("player 1", ("",))[0], "o": tags.get("player 2", ("",))[0]}
        first = first_names or ("", "")
        if (names["o"], names["x"]) == first and first[0] != first[1]:  # the header names the right column first
            names = {"x": first[0], "o": first[1]}
        names = {"x": names["x"] or first[0] or "player 1", "o": names["o"] or first[1] or "player 2"}
        rules: dict = {}
        for key, value in tags.items():
            if key in _RULES and value[0].lower() in ("on", "off") and (key == "crawford" or length == 0):
                rules[_RULES[key]] = value[0].lower() == "on"
            elif key == "cubelimit" and value[0].isdigit():
                rules["max_cube"] = int(value[0])
            elif key == "variation" and value[0].lower() not in ("backgammon", ""):
                raise RecordError(value[1], f"variation {value[0]!r}: replay judges backgammon only")
        return MatchRecord(self.shown, length, names, rules, games, error=second)

    def read_line(self, game: GameRecord, i: int, ln: str) -> None:
        """The actions of one game line, appended to the game; the first line that cannot be read
        becomes the game's error (its later events are kept, to be counted unjudged)."""
        m = _TURN.match(ln)
        start = m.end() if m else 0
        move = int(m[1]) if m else None
        source = Source(self.shown, i, game.number, move)
        try:
            cols = _columns(ln[start:], None if self.right is None else self.right - start)
        except ValueError as exc:
            if str(exc) or not m:
                last = all(not rest.strip() for rest in self.lines[i:])
                game.error = game.error or RecordError(
                    i, f"unknown token {str(exc)!r} (the line is not read"
                       + ("; the record ends here: truncated?)" if last else ")"))
            return
        if len(cols) == 2:
            sides = [("x", cols[0][1]), ("o", cols[1][1])]
        else:
            sides = [(self.side_of(ln, start if m else None, start + cols[0][0]), cols[0][1])]
        for side, text in sides:
            try:
                game.events.append(_action(text, side, source))
            except RecordError as exc:
                game.error = game.error or exc


def read_mat(text: str, shown: str) -> MatchRecord:
    """Read ``.mat`` text (the grammar above) into a ``conformance.model.MatchRecord``: a game
    with a line that cannot be read carries that RecordError; a second match in the text is the
    record's ``error``. Raises RecordError for a text without a readable game."""
    return _Reader(text, shown).read()


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
        return decode(out.read_bytes())


def decode(data: bytes) -> str:
    """A record's bytes as text: UTF-8 (a byte-order mark allowed), or UTF-16/UTF-32 with their
    byte-order mark. Raises RecordError naming the line and byte that are not UTF-8, or the NUL
    bytes of UTF-16 written without its mark."""
    for bom, name in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                      (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(name)
            except UnicodeDecodeError as exc:
                raise RecordError(0, f"not {name.upper()} text though it starts with its byte-order mark:"
                                     f" {exc.reason} at byte {exc.start}") from None
    if b"\x00" in data[:4096]:
        raise RecordError(0, "not UTF-8 text: NUL bytes, as UTF-16 written without a byte-order mark has;"
                             " save the record as UTF-8 (or UTF-16 with its mark)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RecordError(line, f"not UTF-8 text: byte 0x{data[exc.start]:02x} ({exc.reason}); save the record"
                                " as UTF-8") from None


def read_record(path: Path, shown: str | None = None) -> MatchRecord:
    """Read a ``.mat`` or ``.sgf`` file. Raises RecordError (line 0, or the line of an encoding
    problem) for a file that cannot be read at all."""
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
    return read_mat(decode(data), shown)
