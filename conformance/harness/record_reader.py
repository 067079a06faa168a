"""Reading match records into the record model: Jellyfish ``.mat``, and GNU Backgammon's ``.sgf``.

A record is read by a parsing library (``gammonview``'s ``gvformat``, MIT: Jellyfish ``.mat``
as GNU Backgammon, eXtreme Gammon, BGBlitz and game servers export it); GNU Backgammon's
``.sgf`` is converted to ``.mat`` by GNU Backgammon itself when it is installed. Each parsed
game is mapped onto ``conformance.model``: a ``MatchRecord`` of ``GameRecord`` games whose
events are ``Event`` objects (a play: ``roll_play`` with its dice and written moves; double,
take, drop, resign, win), each with its ``Source`` (file, line, game, move number).

A record the library cannot read, or a line whose tokens it leaves unread, is a
``conformance.model.RecordError`` with its line; the game it is in stops there (the game's
``error``) and the other games go on.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from conformance.model import (
    Event, GameRecord, MatchRecord, ModelError, RecordError, Source, parse_dice,
    written_moves,
)

FORMATS = (".mat", ".sgf")
#: the kinds of a match record's actions (Event types; a play is a ``roll_play``)
PLAY, DOUBLE, TAKE, DROP, RESIGN, WIN = "play", "double", "take", "drop", "resign", "win"


def _library():
    try:
        from gvformat import mat_parser
    except ImportError:
        raise RecordError(0, "reading records needs the gammonview library: pip install 'bgconf[replay]'") from None
    return mat_parser


@functools.lru_cache(maxsize=8192)
def _read_action(text: str) -> tuple:
    """One action's text as ``(kind, dice, moves, value, problem)``: the library's reading
    (``mat_parser._parse_action``), the roll (``parse_dice``) and the moves; ``value`` is a
    double's value, a win's points or a play's written moves; ``problem`` is why it cannot be
    read, else None. Real games repeat their texts, so each is read once."""
    kind, adata = _library()._parse_action(text)
    if kind == "move":
        d1, d2, written = adata
        try:
            dice = parse_dice((d1, d2))
        except ModelError as exc:
            return PLAY, None, (), None, f"roll {d1}{d2}: {exc}"
        try:
            return PLAY, dice, written_moves(written), written, None
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
    """Parse Jellyfish ``.mat`` text with the library and map it onto the record model.

    Returns a ``conformance.model.MatchRecord``; a game whose line cannot be read carries the RecordError (line and
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
        games.append(_map_game(mp, game, lines, start, end, names, shown))
    return MatchRecord(shown, parsed["match_length"], names, rules, games)


def _map_game(mp, game: dict, lines: list[str], start: int, end: int, names: dict, shown: str) -> GameRecord:
    """The library's actions of one game, each placed on its line (the library keeps none), and
    every token on a line that no action accounts for reported as unread."""
    side_of = {names["x"]: "x", names["o"]: "o"}
    number = game["game_number"]
    record = GameRecord(number, start + 1, {"x": game["score1_start"], "o": game["score2_start"]}, [])
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
            record.events.append(_event(side, Source(shown, line, number, move), text))
        except RecordError as exc:
            first_error = exc
            break
    record.error = first_error
    return record


def _event(side: str, source: Source, text: str) -> Event:
    """The Event of one placed text: a play is ``roll_play`` (its dice and written moves), a
    double carries its value, a win its points. Raises RecordError (the line and why) when
    it cannot be read."""
    kind, dice, moves, value, problem = _read_action(text)
    if problem:
        raise RecordError(source.line, f"{side}'s {problem}" if kind == PLAY and dice else problem)
    if kind == PLAY:
        return Event("roll_play", side, dice, value, moves, text=text, source=source)
    return Event(kind, side, value=value, text=text, source=source)


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
