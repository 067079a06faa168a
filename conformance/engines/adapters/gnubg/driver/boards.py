"""Boards and Position IDs in the driver: request arguments checked, boards encoded, decoded,
read from gnubg and moved on.

It runs inside gnubg's embedded Python (``import gnubg`` is built in), uses the standard library
only and imports nothing of bgconf. Boards are gnubg's ``(not_on_roll[25], on_roll[25])``, each
side in its own numbering, index 0..23 = points 1..24, index 24 = that side's bar; a bad argument
raises ``RequestError``.
"""

import gnubg  # provided by the gnubg program; not importable elsewhere

from session import RequestError


def _board_arg(value):
    """Validate a board [[25 ints], [25 ints]]; return it as a tuple of two tuples."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise RequestError("board must be a list of two lists of 25 ints (not_on_roll, on_roll)")
    sides = []
    for name, side in zip(("not_on_roll", "on_roll"), value):
        if not isinstance(side, (list, tuple)) or len(side) != 25:
            raise RequestError("board %s must be a list of 25 ints" % name)
        for n in side:
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise RequestError("board %s has a bad count %r (need ints >= 0)" % (name, n))
        total = sum(side)
        if total > 15:
            # gnubg.positionid overflows its buffer on these (the process aborts)
            raise RequestError("board %s has %d checkers (at most 15); gnubg refuses it" % (name, total))
        sides.append(tuple(side))
    return tuple(sides)


def _dice_arg(value):
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in value)):
        raise RequestError("dice must be two ints 1..6, got %r" % (value,))
    return int(value[0]), int(value[1])


def _id_arg(value):
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        raise RequestError("gnubg_id must be a non-empty string without spaces, got %r" % (value,))
    return value


def _as_lists(board):
    return [list(board[0]), list(board[1])]


def _decode(pid):
    try:
        board = gnubg.positionfromid(pid)
    except Exception as exc:
        raise RequestError("gnubg cannot decode Position ID %r: %s" % (pid, exc or type(exc).__name__))
    return tuple(tuple(int(n) for n in side) for side in board)


def _encode(board):
    try:
        pid = gnubg.positionid(_as_lists(board))
    except Exception as exc:
        raise RequestError("gnubg cannot encode the board: %s" % (exc or type(exc).__name__))
    return pid


def _current_board():
    b = gnubg.board()
    if b is None:
        return None
    return tuple(tuple(int(n) for n in side) for side in b)


def _apply_steps(board, steps):
    """Apply steps physically to (not_on_roll, on_roll); return the resulting board or raise."""
    opp = list(board[0])
    me = list(board[1])
    for step in steps:
        a, b = int(step[0]), int(step[1])
        if not (1 <= a <= 25 and 0 <= b <= 24 and b < a):
            raise RequestError("gnubg step %r is out of range" % (step,))
        if me[a - 1] <= 0:
            raise RequestError("gnubg step %r moves from an empty point" % (step,))
        me[a - 1] -= 1
        if b == 0:
            continue
        there = 24 - b  # the opponent's index of the same point (its point 25 - b)
        if opp[there] >= 2:
            raise RequestError("gnubg step %r lands on a blocked point" % (step,))
        if opp[there] == 1:
            opp[there] = 0
            opp[24] += 1
        me[b - 1] += 1
    return tuple(opp), tuple(me)
