"""pgx's masks walked for a whole batch of turns at once: the host side of the pgx adapter
(``conformance.engines.adapters.pgx``), in its own module to keep the adapter's modules short.

pgx's board from the mover's side (28 int32 entries: the 24 points, the mover's point p at index
24 - p and the opponent's point q at index q - 1, the mover's checkers positive; then the bars and
the borne-off counts of mover and opponent) converted from and to bgconf's Position, pgx's micro
actions as bgconf steps, and ``expand``/``batch_plays``: every turn of a batch expanded level by
level by the vmapped, jit-compiled functions of the loaded engine (``pgx.load_engine``), called
at a few fixed sizes. Nothing here imports JAX or pgx: the engine passed in carries them.
"""

from __future__ import annotations

from collections import namedtuple

from conformance.model import BAR, OFF, Position, other

_BAR, _OPP_BAR, _OFF, _OPP_OFF = 24, 25, 26, 27  # pgx's board indices, mover's side

#: the sizes of the batches pgx's jit-compiled, vmapped functions are called with: a batch of n
#: states is cut into pieces of the largest sizes that fit, the rest padded to the smallest size
#: that holds it (so at most SIZES[0] - 1 rows are padding), and JAX compiles each function once
#: per size, not once per batch size
SIZES = (16, 64, 256, 1024)


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
    board = board.tolist() if hasattr(board, "tolist") else [int(n) for n in board]  # Python ints, once
    for i in range(24):
        n = board[i]
        if n > 0:
            me[24 - i] = n
        elif n < 0:
            them[i + 1] = -n
    me[BAR], them[BAR] = board[_BAR], -board[_OPP_BAR]
    me[OFF], them[OFF] = board[_OFF], -board[_OPP_OFF]
    return tuple(me), tuple(them)


def _step_of(action: int) -> list[int]:
    """A micro action as a bgconf step [from, to] in the mover's numbering."""
    source, die = action // 6, action % 6 + 1
    start = BAR if source == 1 else 24 - (source - 2)
    return [start, max(start - die, OFF)]


# -- a batch of states: numpy on the host, pgx's vmapped functions at the padded sizes -------
def _pieces(n: int):
    """(start, stop, padded size) of the calls that cover a batch of ``n`` rows: whole pieces of
    the largest sizes first, then the rest padded to the smallest size that holds it."""
    lo = 0
    for size in reversed(SIZES):
        while n - lo >= size:
            yield lo, lo + size, size
            lo += size
    if lo < n:
        yield lo, n, next(size for size in SIZES if size >= n - lo)


def _call(engine, function, n: int, arrays: tuple):
    """``function`` (vmapped, jitted) over ``n`` rows of ``arrays`` (numpy arrays with a leading
    axis of n), each piece padded with copies of its first row to a size of SIZES; the answers,
    numpy arrays of ``n`` rows (a tuple of them when ``function`` returns a tuple)."""
    np = engine.np
    parts = []
    for lo, hi, size in _pieces(n):
        if hi - lo == size:
            args = [a[lo:hi] for a in arrays]
        else:
            rows = np.concatenate([np.arange(lo, hi), np.full(size - (hi - lo), lo)])
            args = [a[rows] for a in arrays]
        out = function(*args)
        single = not isinstance(out, tuple)
        parts.append([np.asarray(leaf)[:hi - lo] for leaf in ((out,) if single else out)])
    joined = parts[0] if len(parts) == 1 else [np.concatenate(leaves) for leaves in zip(*parts)]
    return joined[0] if single else tuple(joined)


#: a batch of turns in progress, numpy arrays with one row per turn (pgx's layout): ``board``
#: (n, 28) from the mover's side, ``dice`` (n, 2) 0-based, ``playable`` (n, 4), ``played`` (n,)
#: micro actions made, ``mask`` (n, 156) pgx's legal action mask
Turns = namedtuple("Turns", "board dice playable played mask")


def turns_of(engine, state) -> Turns:
    """The Turns (one row) of a pgx State."""
    return Turns(*(engine.np.asarray(x)[None] for x in (state._board, state._dice, state._playable_dice,
                                                         state._played_dice_num, state.legal_action_mask)))


#: each micro action (0..155) as a bgconf step (``_step_of``)
_STEPS = tuple(tuple(_step_of(a)) for a in range(26 * 6))


def _first_rows(np, keys) -> "np.ndarray":
    """The indices of the rows of ``keys`` (a 2-D integer array) not equal to an earlier row,
    in increasing order."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    keys = np.ascontiguousarray(keys)
    _values, first = np.unique(keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel(),
                               return_index=True)
    return np.sort(first)


def _sides(np, boards, x_moves) -> tuple:
    """(x's, o's) 26-column count arrays of pgx boards (m, 28) each kept from its mover's side,
    ``x_moves`` (m,) whether that mover is x; the vectorized ``_read``."""
    m = len(boards)
    me, them = np.zeros((m, 26), dtype=np.int32), np.zeros((m, 26), dtype=np.int32)
    me[:, 1:25] = np.maximum(boards[:, 23::-1], 0)  # the mover's point p is index 24 - p
    them[:, 1:25] = np.maximum(-boards[:, 0:24], 0)  # the opponent's point q is index q - 1
    me[:, BAR], them[:, BAR] = boards[:, _BAR], -boards[:, _OPP_BAR]
    me[:, OFF], them[:, OFF] = boards[:, _OFF], -boards[:, _OPP_OFF]
    x_moves = x_moves[:, None]
    return np.where(x_moves, me, them), np.where(x_moves, them, me)


def expand(engine, turns: Turns, movers: list[str]) -> list[dict[Position, tuple[list, list]]]:
    """``turn_plays`` for every turn of a batch (each a turn start, ``movers[i]`` on roll), the
    whole batch expanded together, level by level: every frontier state of every turn with each
    micro action its mask allows, by one vmapped call of pgx's move (``advance``) per level, then
    pgx's mask of every distinct state the turn goes on from (``masks``); a call per piece of
    SIZES[-1] rows. The bookkeeping of a level is on arrays: the micro actions made so far are a
    row per state, and the states and resulting boards met again in a level are found by
    ``_first_rows``, so that Python handles only what is new. A turn's states are explored in the
    order of the one-state path (which steps pgx's ``Env.step``), so the answers, resulting
    positions and the step lists found first, are the same; a turn whose pgx board is not a
    position gets, instead of its dict, the PositionError the one-state path raises."""
    np = engine.np
    finals: list = [{} for _ in movers]
    seen: list[set] = [set() for _ in movers]
    read: list[dict] = [{} for _ in movers]  # per turn: board bytes -> resulting position
    x_moves = np.asarray([m == "x" for m in movers], dtype=bool)

    def record(turn, boards, acts, steps_made) -> None:
        """The ends of plays met in a level, in the one-state path's order: turn ``turn[j]``'s
        play of micro actions ``acts[j]`` (the first ``steps_made[j]`` of them moved a checker)
        leaves the pgx board ``boards[j]`` (from its mover's side). Each distinct board of a turn
        is read into a Position once; one that is not a position (PositionError) ends that
        turn: its answer is that error."""
        if not len(turn):
            return
        turn = turn.astype(np.int32)
        first = _first_rows(np, np.concatenate([turn[:, None], boards], axis=1))
        boards, turn, acts, steps_made = boards[first], turn[first], acts[first], steps_made[first]
        raws = np.ascontiguousarray(boards, dtype=np.int32).tobytes()
        x, o = _sides(np, boards, x_moves[turn])
        whole = ((x >= 0).all(axis=1) & (o >= 0).all(axis=1) & (x.sum(axis=1) == 15) & (o.sum(axis=1) == 15)
                 & ~((x[:, OFF] == 15) & (o[:, OFF] == 15)))
        for j, (i, ok, xs, os_, done, made) in enumerate(zip(turn.tolist(), whole.tolist(), x.tolist(), o.tolist(),
                                                            acts.tolist(), steps_made.tolist())):
            if isinstance(finals[i], Exception):
                continue
            key = raws[j * 112:(j + 1) * 112]
            result = read[i].get(key)
            if result is None:
                on_roll = other(movers[i])
                if ok:
                    result = Position.trusted(on_roll, tuple(xs), tuple(os_))
                else:
                    try:
                        result = Position(on_roll, tuple(xs), tuple(os_))  # raises PositionError, naming what is wrong
                    except Exception as exc:
                        finals[i] = exc
                        continue
                read[i][key] = result
            if result not in finals[i]:
                finals[i][result] = ([list(_STEPS[a]) for a in done[:made]], done)

    frontier = turns
    turn = np.arange(len(movers))
    acts = np.zeros((len(movers), 0), dtype=np.int32)  # the micro actions made so far, per frontier row
    while len(turn):
        level = acts.shape[1]
        mask = frontier.mask
        moves = mask[:, 6:].any(axis=1)  # pgx offers its no-op (source 0) only when no checker can move
        rows, actions = np.nonzero(mask & moves[:, None])  # row by row, each row's actions in order
        actions = actions.astype(np.int32)
        if rows.size:
            board, playable, ended, over = _call(
                engine, engine.advance, rows.size,
                (frontier.board[rows], frontier.dice[rows], frontier.playable[rows], frontier.played[rows], actions))
            noop = actions < 6  # a no-op beside moves (pgx never offers one): the turn passes as it is
            board = np.where(noop[:, None], frontier.board[rows], board)
            done = (ended | over) | noop  # the fifteenth checker is off (pgx ends the game), or no
            # playable die is left (pgx passes the turn)
        else:
            board = np.zeros((0, 28), dtype=np.int32)
            playable = np.zeros((0, 4), dtype=np.int32)
            done = np.zeros(0, dtype=bool)
        child_acts = np.concatenate([acts[rows], actions[:, None]], axis=1)
        # the plays that end in this level, in row order: a row with only the no-op (after a
        # move: at the turn start it means no legal play) ends as it is, a child that is done
        stops = np.flatnonzero(~moves) if level else np.zeros(0, dtype=np.int64)
        ends = np.flatnonzero(done)
        order = np.argsort(np.concatenate([stops, rows[ends]]), kind="stable")
        end_turn = np.concatenate([turn[stops], turn[rows[ends]]])[order]
        end_board = np.concatenate([frontier.board[stops], board[ends]])[order]
        end_acts = np.concatenate([np.concatenate([acts[stops], np.zeros((len(stops), 1), dtype=np.int32)], axis=1),
                                   child_acts[ends]])[order]
        steps_made = np.concatenate([np.full(len(stops), level), np.full(len(ends), level + 1)])[order]
        record(end_turn, end_board, end_acts, steps_made)
        # the states a turn goes on from: the first of each (turn, board, playable dice) of the
        # level, not met before, of a turn that has not failed
        going = np.flatnonzero(~done)
        if going.size:
            going = going[_first_rows(np, np.concatenate([turn[rows[going]][:, None].astype(np.int32),
                                                          board[going], playable[going]], axis=1))]
            raws = np.ascontiguousarray(np.concatenate([board[going], playable[going]], axis=1),
                                        dtype=np.int32).tobytes()
            kept = []
            for j, (k, i) in enumerate(zip(going.tolist(), turn[rows[going]].tolist())):
                key = raws[j * 128:(j + 1) * 128]
                if not isinstance(finals[i], Exception) and key not in seen[i]:
                    seen[i].add(key)
                    kept.append(k)
            going = np.asarray(kept, dtype=np.int64)
        parents = rows[going]
        turn, acts = turn[parents], child_acts[going]
        if len(going):
            board, playable = board[going], playable[going]
            frontier = Turns(board, frontier.dice[parents], playable, frontier.played[parents] + 1,
                             _call(engine, engine.masks, len(going), (board, playable)))
    return finals


def batch_plays(engine, asked: list[tuple[Position, tuple[int, int]]]) -> list:
    """``pgx_plays`` for each (position, dice) of ``asked``, all expanded together; for a turn
    whose pgx board is not a position, the PositionError instead."""
    if not asked:
        return []
    np = engine.np
    board = np.stack([_board(np, p) for p, _ in asked])
    dice = np.asarray([[d1 - 1, d2 - 1] for _, (d1, d2) in asked], dtype=np.int32)
    playable, mask = _call(engine, engine.first, len(asked), (board, dice))
    turns = Turns(board, dice, playable, np.zeros(len(asked), dtype=np.int32), mask)
    found = expand(engine, turns, [p.on_roll for p, _ in asked])
    return [f if isinstance(f, Exception) else {result: steps for result, (steps, _actions) in f.items()}
            for f in found]
