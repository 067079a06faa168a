"""Adapter: pgx's backgammon (JAX, ``pip install pgx jax``; Apache-2.0).

pgx (``pgx.make("backgammon")``) is a reinforcement-learning environment: a turn is a sequence of
*micro actions*, each one checker moved by one die, and ``State.legal_action_mask`` (156 entries,
``action = 6 * source + die - 1``, source 0 = no-op, 1 = the bar, 2..25 = board index 0..23) says
which micro actions the environment accepts next. pgx keeps its board from the mover's side
(``State._board``: 24 points, then the bars and the borne-off counts of mover and opponent; the
mover's checkers positive, moving from index 0 towards 23, so the mover's point p is index 24 - p
and the opponent's point q is index q - 1), and flips it when the turn passes.

``legal_plays`` puts a ``State`` into the position and dice (board, ``_dice``,
``_playable_dice`` as pgx's own ``_set_playable_dice`` makes them, and the first mask from pgx's
own ``_legal_action_mask``), then walks every sequence of micro actions the masks allow, stepping
with pgx's public, jit-compiled ``Env.step``: a play ends where pgx ends the turn (the board is
flipped) or the game (``terminated``). The no-op is offered by pgx only when no checker can move;
one at the start of the turn is "no legal play" (``[]``). Sequences reaching a state already
explored (same board and dice left) are not explored twice; that changes nothing but the time.
So pgx's masks, not bgconf, decide what a play is: nothing is fixed or filtered.

Each play is answered as the step list of its micro actions (mover's numbering, 25 = bar,
0 = off) when those steps, applied to the position, give the board pgx ended with; otherwise as
that board in board form.

``game_result`` uses pgx's own scoring, which it applies when the fifteenth checker is borne off
(``rewards`` = 1 single, 2 gammon, 3 backgammon): the winner is given back its last checker on the
lowest point of its home board the loser leaves open, with that die to play, and pgx's step bears
it off. pgx has no doubling cube: the points are its reward times the case's cube value (the stake
of the game, outside pgx). No rule options (Jacoby, backgammon multiplier) are offered.

Capabilities: ``legal-plays``; ``play-check`` (legal iff the play's resulting position is one of
pgx's); ``game-result``.
"""

from __future__ import annotations

import os

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.third_party import ThirdPartyAdapter, plays_answer
from conformance.engines.interface import Unsupported, installed_version
from conformance.model import (
    BAR,
    OFF,
    Cube,
    Position,
    other,
    parse_dice,
)

NAME = "pgx"
DISTRIBUTION = "pgx"

_BAR, _OPP_BAR, _OFF, _OPP_OFF = 24, 25, 26, 27  # pgx's board indices, mover's side
_RESULTS = {1: "single", 2: "gammon", 3: "backgammon"}

_pgx = None


def load_engine():
    """(jax, numpy, env, jitted fresh-turn builder, jitted step), loaded and compiled once."""
    global _pgx
    if _pgx is not None:
        return _pgx
    if installed_version(DISTRIBUTION) is None:
        raise EngineUnavailable(f"{DISTRIBUTION} is not installed: pip install 'bgconf[{NAME}]'")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")  # no accelerator probing
    try:
        import jax
        import numpy as np
        import pgx
        from pgx import backgammon as bg
    except ImportError as exc:
        raise EngineUnavailable(f"{DISTRIBUTION} cannot be imported ({exc}): pip install 'bgconf[{NAME}]'") from None
    env = pgx.make("backgammon")
    jnp = jax.numpy

    def fresh(board, dice):
        """pgx's State with the mover (player 0) on roll: ``board`` from its side, ``dice``
        0-based as pgx keeps them; the playable dice and the first mask by pgx's own code."""
        playable = bg._set_playable_dice(dice)
        return env.init(jax.random.PRNGKey(0)).replace(
            current_player=jnp.int32(0), _board=board, _dice=dice, _playable_dice=playable,
            _played_dice_num=jnp.int32(0), _turn=jnp.int32(0),
            legal_action_mask=bg._legal_action_mask(board, playable), terminated=jnp.bool_(False))

    _pgx = (jax, np, env, jax.jit(fresh), jax.jit(env.step))
    pgx_plays(_pgx, Position.start(), (1, 1))  # compile now, not on the first request
    return _pgx


def _board(np, position: Position):
    """pgx's 28-entry board of ``position`` from the mover's side."""
    mover, opp = position.mover, position.opponent
    board = np.zeros(28, dtype=np.int32)
    for p in range(1, 25):
        if mover[p]:
            board[24 - p] = mover[p]
        if opp[p]:
            board[p - 1] = -opp[p]
    board[_BAR], board[_OPP_BAR] = mover[BAR], -opp[BAR]
    board[_OFF], board[_OPP_OFF] = mover[OFF], -opp[OFF]
    return board


def _read(board, mover: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(mover's, opponent's) 26-tuples of a pgx board kept from ``mover``'s side."""
    me, them = [0] * 26, [0] * 26
    for i in range(24):
        n = int(board[i])
        if n > 0:
            me[24 - i] = n
        elif n < 0:
            them[i + 1] = -n
    me[BAR], them[BAR] = int(board[_BAR]), -int(board[_OPP_BAR])
    me[OFF], them[OFF] = int(board[_OFF]), -int(board[_OPP_OFF])
    return tuple(me), tuple(them)


def _state(engine, position: Position, dice: tuple[int, int]):
    """A pgx State with ``position``'s mover on roll with ``dice`` (a fresh turn)."""
    jax, np, _env, fresh, _step = engine
    return fresh(jax.numpy.asarray(_board(np, position)),
                 jax.numpy.asarray([dice[0] - 1, dice[1] - 1], dtype=jax.numpy.int32))


def _step_of(action: int) -> list[int]:
    """A micro action as a bgconf step [from, to] in the mover's numbering."""
    source, die = action // 6, action % 6 + 1
    start = BAR if source == 1 else 24 - (source - 2)
    return [start, max(start - die, OFF)]


def turn_plays(engine, state, mover: str) -> dict[Position, tuple[list, list]]:
    """Every resulting position pgx's masks allow from ``state`` (a turn start, ``mover`` on
    roll), with the first step list (mover's numbering) and micro actions that reach it; ``{}``
    when pgx offers only the no-op."""
    jax, np, _env, _fresh, step = engine
    key = jax.random.PRNGKey(1)
    turn = int(state._turn)
    finals: dict[Position, tuple[list, list]] = {}
    frontier = [(state, [], [])]
    seen: set = set()
    while frontier:
        following = []
        for current, steps, actions in frontier:
            mask = np.asarray(current.legal_action_mask)
            allowed = [int(a) for a in np.flatnonzero(mask)]
            if all(a < 6 for a in allowed):  # only the no-op: pgx has no move for what is left
                if steps:
                    me, them = _read(np.asarray(current._board), mover)
                    finals.setdefault(Position.from_mover(mover, me, them).passed(), (steps, actions + [0]))
                continue
            for action in allowed:
                child = step(current, action, key)
                board = np.asarray(child._board)
                moved, done = steps + [_step_of(action)], actions + [action]
                if bool(child.terminated):
                    me, them = _read(board, mover)
                    finals.setdefault(Position.from_mover(mover, me, them).passed(), (moved, done))
                elif int(child._turn) != turn:  # pgx passed the turn: its board is the opponent's side
                    them, me = _read(board, other(mover))
                    finals.setdefault(Position.from_mover(mover, me, them).passed(), (moved, done))
                else:
                    k = (board.tobytes(), np.asarray(child._playable_dice).tobytes())
                    if k not in seen:
                        seen.add(k)
                        following.append((child, moved, done))
        frontier = following
    return finals


def pgx_plays(engine, position: Position, dice: tuple[int, int]) -> dict[Position, list]:
    """``turn_plays`` for ``position`` and ``dice``: resulting position -> step list."""
    found = turn_plays(engine, _state(engine, position, dice), position.on_roll)
    return {result: steps for result, (steps, _actions) in found.items()}


# -- whole games, for bgconf playout (pgx's own opening, dice and turn order) -------------------
def new_game(engine, seed: int):
    """pgx's initial State for PRNG seed ``seed`` (its own first player and opening roll)."""
    jax, _np, env, _fresh, _step = engine
    return env.init(jax.random.PRNGKey(seed))


def turn_start(engine, state) -> tuple[Position, tuple[int, int]]:
    """The position (pgx's ``_turn`` 0 plays x, 1 plays o) and the roll of a turn start."""
    np = engine[1]
    mover = "x" if int(state._turn) == 0 else "o"
    me, them = _read(np.asarray(state._board), mover)
    d1, d2 = (int(d) + 1 for d in np.asarray(state._dice))
    return Position.from_mover(mover, me, them), (d1, d2)


def play(engine, state, actions: list[int], seed: int):
    """``state`` after pgx's step of each micro action (``[0]``, the no-op, for no move); the PRNG
    ``seed`` feeds the steps, so pgx rolls the next turn's dice with it."""
    jax, _np, _env, _fresh, step = engine
    key = jax.random.PRNGKey(seed)
    for action in actions or [0]:
        key, sub = jax.random.split(key)
        state = step(state, action, sub)
    return state


def game_over(engine, state) -> tuple[Position, str, int] | None:
    """None while the game goes on; else (the final position, the loser on roll), the winner and
    pgx's reward for it (its own scoring, cube 1)."""
    np = engine[1]
    if not bool(state.terminated):
        return None
    winner = "x" if int(state._turn) == 0 else "o"
    me, them = _read(np.asarray(state._board), winner)
    points = round(float(np.asarray(state.rewards)[int(state.current_player)]))
    return Position.from_mover(winner, me, them).passed(), winner, points


class Adapter(ThirdPartyAdapter):
    """pgx behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def describe(self) -> dict:
        if installed_version(DISTRIBUTION) is not None:
            load_engine()  # JAX compiles pgx's step here, inside the start handshake's longer timeout
        info = super().describe()
        info["capabilities"] = ["legal-plays", "play-check", "game-result"]
        return info

    def legal_plays(self, request: dict) -> dict:
        engine = load_engine()
        position = Position.from_dict(request["position"])
        return {"plays": plays_answer(position, pgx_plays(engine, position, parse_dice(request["dice"])))}

    def game_result(self, request: dict) -> dict:
        """pgx's reward for bearing off the winner's last checker, times the cube value."""
        engine = load_engine()
        jax, np, _env, _fresh, step = engine
        position = Position.from_dict(request["position"])
        winners = [s for s in ("x", "o") if position.side(s)[OFF] == 15]
        if len(winners) != 1:
            raise Unsupported("pgx scores a game only when one side bears off its fifteenth checker")
        winner = winners[0]
        loser = position.side(other(winner))
        # the loser's point 25 - p is the winner's point p
        point = next((p for p in range(1, 7) if not loser[25 - p]), None)
        if point is None:
            raise Unsupported("the loser holds every point of the winner's home board")
        me = [0] * 26
        me[point], me[OFF] = 1, 14
        before = Position.from_mover(winner, tuple(me), loser)
        other_die = 1 if point != 1 else 2
        state = _state(engine, before, (point, other_die))
        action = (24 - point + 2) * 6 + point - 1  # bear off from the winner's point with that die
        if not bool(np.asarray(state.legal_action_mask)[action]):
            raise RuntimeError(f"pgx does not allow bearing off the last checker from point {point}")
        final = step(state, action, jax.random.PRNGKey(1))
        if not bool(final.terminated):
            raise RuntimeError("pgx did not end the game when the fifteenth checker was borne off")
        reward = round(float(np.asarray(final.rewards)[0]))
        if reward not in _RESULTS:
            raise RuntimeError(f"pgx's reward {reward} is not 1, 2 or 3")
        cube = Cube.from_dict(request.get("cube"))
        return {"winner": winner, "result": _RESULTS[reward], "points": reward * cube.value}
