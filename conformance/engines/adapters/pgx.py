"""Adapter: pgx's backgammon (JAX, ``pip install pgx jax``; Apache-2.0).

pgx (``pgx.make("backgammon")``) is a reinforcement-learning environment: a turn is a sequence of
*micro actions*, each one checker moved by one die, and ``State.legal_action_mask`` (156 entries,
``action = 6 * source + die - 1``, source 0 = no-op, 1 = the bar, 2..25 = board index 0..23) says
which micro actions the environment accepts next. pgx keeps its board from the mover's side
(``State._board``: 24 points, then the bars and the borne-off counts of mover and opponent; the
mover's checkers positive, moving from index 0 towards 23, so the mover's point p is index 24 - p
and the opponent's point q is index q - 1), and flips it when the turn passes.

``legal_plays`` sets up the position and dice as pgx's own turn start (the board, ``_dice``, the
playable dice by pgx's ``_set_playable_dice`` and the first mask by its ``_legal_action_mask``),
then walks every sequence of micro actions the masks allow: a play ends where pgx ends the turn
(no playable die left: ``_is_turn_end``) or the game (the fifteenth checker off: ``_is_all_off``).
The no-op is offered by pgx only when no checker can move; one at the start of the turn is "no
legal play" (``[]``). Sequences reaching a state already explored (same board and dice left) are
not explored twice; that changes nothing but the time. So pgx's masks, not bgconf, decide what a
play is: nothing is fixed or filtered. Two paths walk the same tree in the same order, with the
same answers:

- **batched** (the default; ``describe()`` declares ``"batch": true``, spec/protocol.md, Batches):
  ``run_batch`` expands every turn of the batch together, level by level (``expand``): all the
  micro actions of all the frontier states in one vmapped, jit-compiled call of pgx's move
  (``_move`` and ``_update_playable_dice``, what its ``Env.step`` applies first, with its end of
  turn and end of game tests), then pgx's ``_legal_action_mask`` of every distinct state a turn
  goes on from, in one more call. Calls are made at a few fixed sizes (``SIZES``, padded), so JAX
  compiles each function once per size. pgx's step would also roll the next turn's dice, flip
  the board and compute its observation and a second mask: work whose results the walk never
  reads.
- **one state at a time** (``BGCONF_PGX_SERIAL=1``): a ``State`` stepped with pgx's public,
  jit-compiled ``Env.step``, one micro action at a time, as this adapter did before it took
  batches (tests/test_pgx_batch.py compares the two on the suite, in fuzzing and in a playout).

Each play is answered as the step list of its micro actions (mover's numbering, 25 = bar,
0 = off) when those steps, applied to the position, give the board pgx ended with; otherwise as
that board in board form.

``game_result`` uses pgx's own scoring, which it applies when the fifteenth checker is borne off
(``rewards`` = ``_calc_win_score``: 1 single, 2 gammon, 3 backgammon): the winner is given back
its last checker on the lowest point of its home board the loser leaves open, with that die to
play, and pgx's step (batched: its mask, its move and its score) bears it off. pgx has no doubling
cube: the points are its reward times the case's cube value (the stake of the game, outside pgx).
No rule options (Jacoby, backgammon multiplier) are offered. What JAX compiles is kept between
processes (``jax_cache``; ``BGCONF_PGX_CACHE=off`` keeps nothing).

Capabilities: ``legal-plays``; ``play-check`` (legal iff the play's resulting position is one of
pgx's); ``game-result``; ``"batch": true`` unless the serial path is chosen.
"""

from __future__ import annotations

import gc
import os
from collections import namedtuple

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.jax_cache import keep_compiled
from conformance.engines.adapters.third_party import ThirdPartyAdapter, play_check_answer, plays_answer
from conformance.engines.interface import Unsupported, failure_reply, installed_version
from conformance.engines.adapters.pgx_walk import (  # noqa: F401 (SIZES, Turns, expand, turns_of: this module's API too)
    SIZES, Turns, _board, _call, _read, _step_of, batch_plays, expand, turns_of,
)
from conformance.model import OFF, Cube, Position, other, parse_dice

NAME = "pgx"
DISTRIBUTION = "pgx"

_RESULTS = {1: "single", 2: "gammon", 3: "backgammon"}

_pgx = None


#: set to 1 to ask pgx one state and one step at a time (the adapter as it was before batches: no
#: ``batch`` in describe(), each request answered alone); the verdicts are the same either way
SERIAL_ENV = "BGCONF_PGX_SERIAL"


def serial() -> bool:
    """Whether the one-state-at-a-time path is chosen (``BGCONF_PGX_SERIAL=1``)."""
    return os.environ.get(SERIAL_ENV, "") == "1"


Engine = namedtuple("Engine", "jax np env fresh step first advance masks score play_step")
Engine.__doc__ = """pgx loaded and compiled: jax, numpy, the environment, and jit-compiled functions.
One state: ``fresh(board, dice)`` (a turn start), ``step(state, action, key)`` (pgx's ``Env.step``)
and ``play_step(state, action, key)`` -> (state, key) (the key split, pgx's step with one half).
A batch (vmapped over a leading axis, called at the SIZES): ``first`` (board, dice) -> (playable
dice, mask); ``advance`` (board, dice, playable, played, action) -> (board, playable, all off,
turn over); ``masks`` (board, playable) -> mask; ``score`` (board) -> pgx's points (1, 2, 3)."""


def load_engine() -> Engine:
    """pgx loaded and its functions compiled, once. Raises EngineUnavailable when pgx is not
    installed."""
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
    keep_compiled(jax)
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

    def first(board, dice):
        """A turn start: pgx's playable dice and its mask."""
        playable = bg._set_playable_dice(dice)
        return playable, bg._legal_action_mask(board, playable)

    def advance(board, dice, playable, played, action):
        """One micro action, as pgx's step makes it before it passes the turn: pgx's move and its
        playable dice after it (``_update_by_action``), whether the mover has borne off every
        checker (``_is_all_off``: the game ends) and whether the turn is over (``_is_turn_end``)."""
        board = bg._move(board, action)
        playable = bg._update_playable_dice(playable, played, dice, action)
        return board, playable, bg._is_all_off(board), bg._is_turn_end(bg.State(_playable_dice=playable))

    def play_step(state, action, key):
        """One micro action of a game played on: the key split, pgx's step with one half."""
        key, sub = jax.random.split(key)
        return env.step(state, action, sub), key

    engine = Engine(jax, np, env, jax.jit(fresh), jax.jit(env.step), jax.jit(jax.vmap(first)),
                    jax.jit(jax.vmap(advance)), jax.jit(jax.vmap(bg._legal_action_mask)),
                    jax.jit(jax.vmap(bg._calc_win_score)), jax.jit(play_step))
    # compile now, not on the first request: the path chosen, its functions at the smallest size
    # (what one request or one playout turn uses); at the larger sizes each is compiled when a
    # batch first needs it (a few seconds, within the batch's timeout). The functions of the
    # other path are traced only if used (JAX traces a function in every process, even when its
    # compiled form is in the cache: 2.3 s for the one-state path, half of pgx's start)
    if serial():
        _serial_plays(engine, Position.start(), (1, 1))
    else:
        batch_plays(engine, [(Position.start(), (1, 1))])
        engine.score(np.zeros((SIZES[0], 28), dtype=np.int32))
    # JAX leaves a large heap of long-lived objects: moved out of the collector's generations,
    # they are not walked again by every collection the answers' many small objects trigger
    gc.freeze()
    _pgx = engine
    return _pgx


def _state(engine, position: Position, dice: tuple[int, int]):
    """A pgx State with ``position``'s mover on roll with ``dice`` (a fresh turn)."""
    jax, np = engine.jax, engine.np
    return engine.fresh(jax.numpy.asarray(_board(np, position)),
                        jax.numpy.asarray([dice[0] - 1, dice[1] - 1], dtype=jax.numpy.int32))


# -- one state at a time (the serial path) ------------------------------------------------------
def _serial_turn_plays(engine, state, mover: str) -> dict[Position, tuple[list, list]]:
    """``turn_plays`` stepping one state and one micro action at a time."""
    jax, np, step = engine.jax, engine.np, engine.step
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


def _serial_plays(engine, position: Position, dice: tuple[int, int]) -> dict[Position, list]:
    found = _serial_turn_plays(engine, _state(engine, position, dice), position.on_roll)
    return {result: steps for result, (steps, _actions) in found.items()}


def turn_plays(engine, state, mover: str) -> dict[Position, tuple[list, list]]:
    """Every resulting position pgx's masks allow from ``state`` (a pgx State at a turn start,
    ``mover`` on roll), with the first step list (mover's numbering) and micro actions that reach
    it; ``{}`` when pgx offers only the no-op. Batched (``expand`` of a batch of one) unless the
    serial path is chosen."""
    if serial():
        return _serial_turn_plays(engine, state, mover)
    found = expand(engine, turns_of(engine, state), [mover])[0]
    if isinstance(found, Exception):
        raise found
    return found


def pgx_plays(engine, position: Position, dice: tuple[int, int]) -> dict[Position, list]:
    """Resulting position -> step list, for ``position`` and ``dice`` (``turn_plays`` of a fresh
    turn)."""
    if serial():
        return _serial_plays(engine, position, dice)
    found = batch_plays(engine, [(position, dice)])[0]
    if isinstance(found, Exception):
        raise found
    return found


# -- whole games, for bgconf playout (pgx's own opening, dice and turn order) -------------------
def new_game(engine, seed: int):
    """pgx's initial State for PRNG seed ``seed`` (its own first player and opening roll)."""
    return engine.env.init(engine.jax.random.PRNGKey(seed))


def turn_start(engine, state) -> tuple[Position, tuple[int, int]]:
    """The position (pgx's ``_turn`` 0 plays x, 1 plays o) and the roll of a turn start."""
    np = engine.np
    mover = "x" if int(state._turn) == 0 else "o"
    me, them = _read(np.asarray(state._board), mover)
    d1, d2 = (int(d) + 1 for d in np.asarray(state._dice))
    return Position.from_mover(mover, me, them), (d1, d2)


def play(engine, state, actions: list[int], seed: int):
    """``state`` after pgx's step of each micro action (``[0]``, the no-op, for no move); the PRNG
    ``seed`` feeds the steps, so pgx rolls the next turn's dice with it."""
    key = engine.jax.random.PRNGKey(seed)
    for action in actions or [0]:
        state, key = engine.play_step(state, action, key)
    return state


def game_over(engine, state) -> tuple[Position, str, int] | None:
    """None while the game goes on; else (the final position, the loser on roll), the winner and
    pgx's reward for it (its own scoring, cube 1)."""
    np = engine.np
    if not bool(state.terminated):
        return None
    winner = "x" if int(state._turn) == 0 else "o"
    me, them = _read(np.asarray(state._board), winner)
    points = round(float(np.asarray(state.rewards)[int(state.current_player)]))
    return Position.from_mover(winner, me, them).passed(), winner, points


def _result_setup(request: dict) -> tuple[Position, tuple[int, int], int, str]:
    """For a game_result request: the position before the winner's last checker is borne off
    (the winner on roll), the dice, pgx's micro action that bears it off, and the winner.
    Raises Unsupported when pgx cannot score the position."""
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
    action = (24 - point + 2) * 6 + point - 1  # bear off from the winner's point with that die
    return before, (point, 1 if point != 1 else 2), action, winner


def _result_answer(request: dict, winner: str, allowed: bool, point: int, terminated: bool,
                   reward: float) -> dict:
    """The game_result answer from pgx's step: whether its mask ``allowed`` bearing off the last
    checker from ``point``, whether the step ``terminated`` the game, its ``reward`` to the
    winner; the points are the reward times the cube value. Raises RuntimeError when pgx did
    not score the game."""
    if not allowed:
        raise RuntimeError(f"pgx does not allow bearing off the last checker from point {point}")
    if not terminated:
        raise RuntimeError("pgx did not end the game when the fifteenth checker was borne off")
    points = round(reward)
    if points not in _RESULTS:
        raise RuntimeError(f"pgx's reward {points} is not 1, 2 or 3")
    cube = Cube.from_dict(request.get("cube"))
    return {"winner": winner, "result": _RESULTS[points], "points": points * cube.value}


class Adapter(ThirdPartyAdapter):
    """pgx behind the engine interface (run isolated by ``bgconf serve``); declares ``batch``
    and answers ``run_batch`` with batched pgx calls unless the serial path is chosen."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def describe(self) -> dict:
        if installed_version(DISTRIBUTION) is not None:
            load_engine()  # JAX compiles pgx's step here, inside the start handshake's longer timeout
        info = super().describe()
        info["capabilities"] = ["legal-plays", "play-check", "game-result"]
        if not serial():
            info["batch"] = True
        return info

    def legal_plays(self, request: dict) -> dict:
        engine = load_engine()
        position = Position.from_dict(request["position"])
        return {"plays": plays_answer(position, pgx_plays(engine, position, parse_dice(request["dice"])))}

    def game_result(self, request: dict) -> dict:
        """pgx's reward for bearing off the winner's last checker, times the cube value: by pgx's
        step on one state on the serial path, else by the batched functions (``_results``)."""
        engine = load_engine()
        np = engine.np
        before, dice, action, winner = _result_setup(request)
        if not serial():
            (allowed, terminated, reward), = self._results(engine, [(before, dice, action, winner)])
            return _result_answer(request, winner, allowed, dice[0], terminated, reward)
        state = _state(engine, before, dice)
        if not bool(np.asarray(state.legal_action_mask)[action]):
            return _result_answer(request, winner, False, dice[0], False, 0.0)
        final = engine.step(state, action, engine.jax.random.PRNGKey(1))
        return _result_answer(request, winner, True, dice[0], bool(final.terminated),
                              float(np.asarray(final.rewards)[0]))

    def run_batch(self, requests: list[dict]) -> list[dict]:
        """Answer ``requests`` in order: the legal_plays and play_check requests by one
        ``batch_plays`` over all their positions, the game_result requests by one batched step;
        any other request, and every request on the serial path, by ``run``. A request that
        cannot be read or answered gets its own reply (``unsupported``, ``errored``), as from
        ``run``."""
        if serial() or len(requests) < 2:
            return [self.run(r) for r in requests]
        replies: list[dict | None] = [None] * len(requests)
        plays, results = [], []
        for i, request in enumerate(requests):
            kind = request.get("kind")
            try:
                if kind in ("legal_plays", "play_check"):
                    plays.append((i, Position.from_dict(request["position"]), parse_dice(request["dice"])))
                elif kind == "game_result":
                    results.append((i, _result_setup(request)))
                else:
                    replies[i] = self.run(request)
            except Exception as exc:
                replies[i] = failure_reply(exc)
        try:
            engine = load_engine()
            found = batch_plays(engine, [(p, d) for _, p, d in plays])
            ended = self._results(engine, [setup for _, setup in results])
        except Exception as exc:  # pgx itself failed: each of these requests gets the error
            for i in [i for i, _, _ in plays] + [i for i, _ in results]:
                replies[i] = failure_reply(exc)
            return replies
        for (i, position, _dice), finals in zip(plays, found):
            request = requests[i]
            try:
                if isinstance(finals, Exception):
                    raise finals
                if request["kind"] == "legal_plays":
                    replies[i] = {"result": {"plays": plays_answer(position, finals)}}
                else:
                    replies[i] = {"result": play_check_answer(position, list(finals), request["play"])}
            except Exception as exc:
                replies[i] = failure_reply(exc)
        for (i, (before, dice, _action, winner)), (allowed, terminated, reward) in zip(results, ended):
            try:
                replies[i] = {"result": _result_answer(requests[i], winner, allowed, dice[0], terminated, reward)}
            except Exception as exc:
                replies[i] = failure_reply(exc)
        return replies

    @staticmethod
    def _results(engine, setups: list) -> list[tuple[bool, bool, float]]:
        """(pgx's mask allows the bear-off, the game is over, pgx's points for it) of each
        ``_result_setup``, all together: pgx's mask at the turn start (``first``), its move
        (``advance``) and, as its step does when the fifteenth checker is off, its score
        (``_calc_win_score``) of the board after the move."""
        if not setups:
            return []
        np = engine.np
        n = len(setups)
        board = np.stack([_board(np, before) for before, *_ in setups])
        dice = np.asarray([[d1 - 1, d2 - 1] for _, (d1, d2), *_ in setups], dtype=np.int32)
        actions = np.asarray([action for _, _, action, _ in setups], dtype=np.int32)
        playable, mask = _call(engine, engine.first, n, (board, dice))
        after, _playable, ended, _over = _call(engine, engine.advance, n,
                                              (board, dice, playable, np.zeros(n, dtype=np.int32), actions))
        score = _call(engine, engine.score, n, (after,))
        allowed = mask[np.arange(n), actions]
        return list(zip(allowed.tolist(), ended.tolist(), score.astype(float).tolist()))
