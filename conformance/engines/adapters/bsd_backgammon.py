"""Adapter for BSD backgammon (``/usr/games/backgammon``, Debian package ``bsdgames``).

The 1980s BSD game has no interface for programs: it is played at a terminal. For each
request this adapter writes a save file holding the position and the dice, starts the game
from it (``backgammon -s FILE``) under a pseudo-terminal (conformance.engines.process.TerminalProcess,
with ``pexpect``), and reads what the game prints:

- ``play_check`` (capability ``play-check``): the side on roll is the game's human player
  (White) and the play is typed at the game's own ``Move:`` prompt, one die per move
  (``13-8,8-5``), as the game asks. The game's answer decides: the computer's turn starting
  (``Red rolls ...``) means it accepted the play; ``Error: ...``, ``... can only make N moves``
  or ``... must make N moves`` mean it refused it. A written move that spans several dice is
  tried in each order of the dice (and the moves in each order) until the game accepts one:
  a play is legal iff its resulting position is (spec: move.same-play).
- ``chosen_play`` (capability ``chosen-play``): the side on roll is the computer (White) and
  its first move is read from ``White rolls 5 3 and moves 25-20,20-17.`` (or ``... but cannot
  use it.``: no play).

Not asked, and why: the game has no way to list legal plays or apply one (``legal-plays``,
``apply-play``), no scoring or cube questions that can be set up from a save file; a pass
cannot be typed on the first move of a restored game (the game asks for a move even when none
is possible), so a play check of "no play" is unsupported, as is the doubling cube; so is a
play that cannot be typed one die per move as it is written (its dice do not add up to its
moves, or every order of the dice would land on an opponent's checker the notation does not
hit): the game cannot be asked about it.

The save file is the game's own (``save.c`` of the BSD sources: the native ints ``board[26]``,
``off[2]``, ``in[2]``, ``dice[2]``, ``cturn``, ``dlast``, ``pnum``, ``rscore``, ``wscore``,
``gvalue``, ``raflag``, in that order). In the game's board White's checkers are negative and
sit on White's own point numbers (White bears off at 0, its bar is 25), Red's are positive on
index ``25 - p`` (Red's bar is 0); ``in`` counts each side's checkers in its home board and
``off`` is the count borne off, less 15 while a side still has checkers outside its home board;
``cturn`` and ``pnum`` are -1 for White, 1 for Red (``pnum`` is the computer's colour).
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import struct
import subprocess
import tempfile

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.interface import Engine, Unsupported
from conformance.model import BAR, CHECKERS, OFF, ModelError, Position
from conformance.engines.process import TerminalProcess

_FALLBACK_PATHS = ("/usr/games/backgammon", "/usr/local/games/backgammon")
INSTALL_HINT = "install it with: apt-get update && apt-get install -y bsdgames; and pip install pexpect"
WHITE, RED = -1, 1
#: At most this many spellings of one play are typed before it is judged refused.
MAX_TRIES = 48

_PROMPT = r"Move:"
_CONTINUE = r"-->"
_REFUSED = (r"Error:[^\n]*", r"can only make \d+ move", r"must make \d+ move")
_ACCEPTED = (r"Red (rolls|doubles)", r"wins")
_CHOSEN = r"White rolls \d \d (but cannot use it|and moves ([0-9,\- ]*))\."


def find_program(program: str | None = None) -> str:
    """The game's path: ``program`` (a path or a name on PATH), else Debian's
    /usr/games/backgammon (a ``backgammon`` found on PATH may be another program: a Python
    package installs one). Raises EngineUnavailable (with the install command)."""
    for cand in ([program] if program else _FALLBACK_PATHS):
        found = shutil.which(cand)
        if found:
            return found
    raise EngineUnavailable(f"BSD backgammon not found ({program or _FALLBACK_PATHS[0]}); {INSTALL_HINT}")


def save_file(position: Position, dice: tuple[int, int], computer: int) -> bytes:
    """The game's save file for ``position`` with the side on roll as White about to play
    ``dice`` (bytes; the layout in the module docstring). ``computer`` is the computer's
    colour (WHITE: it plays this turn; RED: the human does)."""
    me, opp = position.mover, position.opponent
    board = [0] * 26
    for p in range(1, 25):
        board[p] -= me[p]
        board[25 - p] += opp[p]
    board[25] = -me[BAR]
    board[0] = opp[BAR]
    inner = [sum(me[1:7]), sum(opp[1:7])]
    off = []
    for side, home in ((me, inner[0]), (opp, inner[1])):
        off.append(side[OFF] if side[OFF] + home == CHECKERS else side[OFF] - CHECKERS)
    values = board + off + inner + list(dice) + [WHITE, 0, computer, 0, 0, 1, 0]
    return struct.pack(f"={len(values)}i", *values)


def spellings(steps: list[tuple[int, int]], dice: tuple[int, int],
              opponent_on: list[int] | None = None) -> list[list[tuple[int, int]]]:
    """The ways to type a play written as ``steps`` (moves that may span several dice) one
    die per move: each written move split into die-sized hops in every order of the dice,
    the moves in the written order first, then in the other orders; distinct, at most
    MAX_TRIES. A hop to 0 may be longer than needed (bearing off with a higher die).

    ``opponent_on[p]``: the opponent's checkers on the mover's point p (1..24). A hop inside
    a written move may not land where an opponent checker stands: the game would hit a blot
    there, which the written play does not (spec: format.notation, an unwritten point is a
    landing without a hit), and a point of two or more is closed. A blot hit by a move's last
    hop is gone for the moves after it."""
    pool = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    out: list[list[tuple[int, int]]] = []
    seen: set[tuple] = set()

    def split(move, left, opp):
        src, dst = move
        for k in range(1, len(left) + 1):
            for order in set(itertools.permutations(left, k)):
                hops, at = [], src
                for j, d in enumerate(order):
                    nxt = at - d
                    if j < k - 1 and (nxt <= max(dst, 0) or opp[nxt]):
                        break  # a hop before the last lands above the destination, on an empty or own point
                    if j == k - 1:
                        if dst == 0 and nxt < 0:
                            nxt = 0  # bearing off with a higher die
                        if nxt != dst:
                            break
                    hops.append((at, nxt))
                    at = nxt
                else:
                    rest = list(left)
                    for d in order:
                        rest.remove(d)
                    yield hops, rest

    def walk(moves, left, typed, opp):
        if not moves:
            key = tuple(typed)
            if key not in seen:
                seen.add(key)
                out.append(list(typed))
            return
        for hops, rest in split(moves[0], left, opp):
            dst = moves[0][1]
            after = opp if not (1 <= dst <= 24 and opp[dst] == 1) else opp[:dst] + [0] + opp[dst + 1:]
            walk(moves[1:], rest, typed + hops, after)
            if len(out) >= MAX_TRIES:
                return

    start = list(opponent_on) if opponent_on is not None else [0] * 26
    for order in itertools.permutations(steps):
        walk(list(order), pool, [], start)
        if len(out) >= MAX_TRIES:
            break
    return out


class BsdBackgammonEngine(Engine):
    """BSD backgammon driven at its terminal (capabilities play-check and chosen-play).

    ``program``: path of the game (default: on PATH, then /usr/games/backgammon); ``timeout``:
    seconds the game may take to print each expected line. Raises EngineUnavailable when the
    game or pexpect is missing.
    """

    name = "bsd-backgammon"

    def __init__(self, program: str | None = None, timeout: float = 10.0) -> None:
        try:
            import pexpect  # noqa: F401
        except ImportError:
            raise EngineUnavailable(f"pexpect is not installed; {INSTALL_HINT}") from None
        self.program = find_program(program)
        self.timeout = float(timeout)
        self._version: str | None = None

    def describe(self) -> dict:
        if self._version is None:
            self._version = _package_version() or "unknown"
        return {"name": "bsd-backgammon", "version": self._version,
                "capabilities": ["play-check", "chosen-play"], "rule_options": {}, "position_formats": ["board"]}

    # -- one game per request ---------------------------------------------------------------
    def _game(self, position: Position, dice: tuple[int, int], computer: int):
        """A started game (TerminalProcess) at White's first move, and its save directory."""
        tmp = tempfile.TemporaryDirectory(prefix="bgconf-bsd-backgammon-")
        path = os.path.join(tmp.name, "game")
        with open(path, "wb") as f:
            f.write(save_file(position, dice, computer))
        env = {"TERM": "dumb", "PATH": "/usr/bin:/bin", "HOME": tmp.name, "LC_ALL": "C"}
        try:
            game = TerminalProcess([self.program, "-s", path], cwd=tmp.name, env=env)
        except OSError as exc:
            tmp.cleanup()
            raise EngineUnavailable(f"cannot start {self.program}: {exc}") from None
        return game, tmp

    def _wait(self, game: TerminalProcess, patterns: list[str]) -> int:
        """The index of the first of ``patterns`` the game prints, pressing return at its
        "-->" pauses. Raises RuntimeError (the game ended) or TimeoutError."""
        while True:
            try:
                index = game.expect([_CONTINUE, *patterns], timeout=self.timeout)
            except EOFError:
                raise RuntimeError(f"engine crashed: backgammon {game.why_dead()}") from None
            if index == 0:
                game.send("\n")
                continue
            return index - 1

    def run(self, request: dict) -> dict:
        """Answer one request (never raises); the game is killed at the end of each."""
        kind = request.get("kind")
        if kind not in ("play_check", "chosen_play"):
            return {"unsupported": f"BSD backgammon can only check a play or choose one, not answer {kind!r}"}
        try:
            return {"result": getattr(self, kind)(request)}
        except Unsupported as exc:
            return {"unsupported": str(exc)}
        except TimeoutError:
            return {"timeout": f"timeout: backgammon printed nothing expected within {self.timeout:g} s"}
        except (RuntimeError, EngineUnavailable, ModelError, OSError) as exc:
            return {"errored": str(exc)}

    def _position(self, request: dict) -> tuple[Position, tuple[int, int]]:
        position = Position.from_dict(request["position"])
        if CHECKERS in (position.x[OFF], position.o[OFF]):
            raise Unsupported("the game is over in this position")
        return position, tuple(request["dice"])

    def play_check(self, request: dict) -> dict:
        """``{"legal": bool, "message": the game's refusal}``: typed at the Move: prompt."""
        position, dice = self._position(request)
        steps = [tuple(s) for s in request.get("steps") or []]
        if not steps:
            raise Unsupported("a pass cannot be typed on the first move of a restored BSD game")
        opponent_on = [0] + [position.opponent[25 - p] for p in range(1, 25)] + [0]
        tries = spellings(steps, dice, opponent_on)
        if not tries:
            raise Unsupported("the play as written cannot be typed one die per move (no order of the dice"
                              " makes its moves without an unwritten landing on an opponent's checker)")
        game, tmp = self._game(position, dice, RED)
        refusal = ""
        try:
            self._wait(game, [_PROMPT])
            for typed in tries:
                game.send(",".join(f"{a}-{b}" for a, b in typed) + "\n")
                index = self._wait(game, [*_REFUSED, *_ACCEPTED])
                if index >= len(_REFUSED):
                    return {"legal": True}
                refusal = game.match.group(0).strip()
                self._wait(game, [_PROMPT])
            return {"legal": False, "message": f"backgammon: {refusal}"}
        finally:
            game.kill()
            tmp.cleanup()

    def chosen_play(self, request: dict) -> dict:
        """``{"play": [[from, to], ...]}`` in the mover's numbering, or ``{"play": null}``."""
        position, dice = self._position(request)
        game, tmp = self._game(position, dice, WHITE)
        try:
            self._wait(game, [_CHOSEN])
            moves = game.match.group(2)
        finally:
            game.kill()
            tmp.cleanup()
        if moves is None:
            return {"play": None}
        play = []
        for hop in moves.replace(" ", "").split(","):
            a, _, b = hop.partition("-")
            play.append([int(a), int(b)])
        return {"play": play}


def _package_version() -> str | None:
    """The installed Debian package's version (``dpkg-query``), or None elsewhere."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "bsdgames"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = out.stdout.strip()
    return text if out.returncode == 0 and re.match(r"^[0-9]", text) else None
