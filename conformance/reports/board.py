"""A position drawn as a board: one standalone SVG document, for people and for browser tests.

The board is seen by the side on roll, as players expect: its home board bottom right, its
points numbered from its own side (13..24 along the top from left to right, 12..1 along the
bottom), the other side's home board top right; both bars in the middle column, both borne-off
trays in the right column (the side on roll's at the bottom). Checkers carry the letters X and O
as well as two colours, so the sides are told apart without colour. Under the board a line gives
the side on roll, the dice, the cube, the match score and both pip counts.

Machine-readable attributes (numbers in x's numbering whichever side is on roll): each point's
group ``data-point="N"`` (1..24) with ``data-x`` and ``data-o`` (checkers there); the bars
``data-bar="x"``/``"o"`` and the trays ``data-off="x"``/``"o"``, each with ``data-count``; each
arrow of a play ``data-from``/``data-to`` (25 = the mover's bar, 0 = off), ``data-side`` and
``data-hit`` (1 when the move hits a blot).

May import the model alone.
"""

from __future__ import annotations

import itertools
from typing import Sequence
from xml.sax.saxutils import escape, quoteattr

from conformance.model import BAR, OFF, Cube, Match, ModelError, Position, apply_steps, other, written_moves

#: drawing units (the viewBox): point width, checker radius, board edges
POINT, RADIUS = 36, 17
LEFT, TOP = 12, 28
BAR_WIDTH, TRAY_WIDTH = 44, 54
HALF = 5 * POINT                       # the height of a point's triangle: five checkers
MIDDLE = 44                            # the gap between the top and bottom points
BOTTOM = TOP + 2 * HALF + MIDDLE
RIGHT = LEFT + 12 * POINT + BAR_WIDTH  # where the trays begin
MIDDLE_Y = TOP + HALF + MIDDLE / 2
BAR_X = LEFT + 6 * POINT + BAR_WIDTH / 2  # the centre of the bar column
VIEW_WIDTH, VIEW_HEIGHT = RIGHT + TRAY_WIDTH + 48, BOTTOM + 64

COLOURS = {"x": ("#f3ead6", "#3b2a1a"), "o": ("#4a2616", "#fbf5e8")}  # (fill, letter)
POINT_COLOURS = ("#b5854b", "#5f7f62")
BOARD, EDGE, MARK = "#dcc9a0", "#3b2a1a", "#b0171f"


def _column_x(column: int) -> float:
    """The left edge of column 0..11 (left to right), the bar between columns 5 and 6."""
    return LEFT + column * POINT + (BAR_WIDTH if column >= 6 else 0)


def _place(p: int) -> tuple[float, bool]:
    """The centre x of the mover's point ``p`` (1..24) and whether it is in the top row."""
    if p >= 13:
        return _column_x(p - 13) + POINT / 2, True
    return _column_x(12 - p) + POINT / 2, False


def _x_number(position: Position, p: int) -> int:
    """The mover's point ``p`` in x's numbering (0 and 25, off and bar, are kept)."""
    if position.on_roll == "x" or p in (OFF, BAR):
        return p
    return 25 - p


def _checker(cx: float, cy: float, side: str, label: str) -> str:
    fill, ink = COLOURS[side]
    return (f'<circle cx="{cx:g}" cy="{cy:g}" r="{RADIUS}" fill="{fill}" stroke="{EDGE}" stroke-width="1.5"/>'
            f'<text x="{cx:g}" y="{cy + 5:g}" text-anchor="middle" font-size="14" font-weight="bold"'
            f' fill="{ink}">{label}</text>')


def _stack(cx: float, edge: float, down: bool, n: int, side: str, most: int) -> list[str]:
    """``n`` checkers of ``side`` piled from ``edge`` (downwards when ``down``): at most
    ``most`` circles, the last showing the count when there are more."""
    out = []
    for i in range(min(n, most)):
        offset = RADIUS + 1 + i * 2 * (RADIUS + 1)
        label = str(n) if i == most - 1 and n > most else side.upper()
        out.append(_checker(cx, edge + offset if down else edge - offset, side, label))
    return out


def _point(position: Position, p: int) -> str:
    cx, top = _place(p)
    left, edge = cx - POINT / 2, TOP if top else BOTTOM
    tip = edge + HALF - 8 if top else edge - HALF + 8
    colour = POINT_COLOURS[p % 2]
    me, you = position.on_roll, other(position.on_roll)
    mine, theirs = position.mover[p], position.opponent[25 - p]
    counts = {me: mine, you: theirs}
    side, n = (me, mine) if mine else (you, theirs)
    label_y = TOP - 9 if top else BOTTOM + 19
    parts = [f'<g data-point="{_x_number(position, p)}" data-x="{counts["x"]}" data-o="{counts["o"]}">',
             f'<polygon points="{left:g},{edge} {left + POINT:g},{edge} {cx:g},{tip:g}" fill="{colour}"/>',
             f'<text x="{cx:g}" y="{label_y}" text-anchor="middle" font-size="12" fill="{EDGE}">{p}</text>',
             *_stack(cx, edge, top, n, side, 5), "</g>"]
    return "".join(parts)


def _bar(position: Position, side: str) -> str:
    """A side's bar: the mover's from the middle of the bar column down, the other's from it up."""
    n = position.side(side)[BAR]
    mover = side == position.on_roll
    edge = MIDDLE_Y + 2 if mover else MIDDLE_Y - 2
    return (f'<g data-bar="{side}" data-count="{n}">' + "".join(_stack(BAR_X, edge, mover, n, side, 3))
            + "</g>")


def _tray(position: Position, side: str) -> str:
    """A side's borne-off tray: the mover's at the bottom right, the other's at the top right."""
    n = position.side(side)[OFF]
    x = RIGHT + 6
    mover = side == position.on_roll
    y = BOTTOM - HALF if mover else TOP
    fill = COLOURS[side][0]
    slices = "".join(
        f'<rect x="{x + 4}" y="{(y + HALF - 8 - 9 * (i + 1)) if mover else (y + 4 + 9 * i)}" width="{TRAY_WIDTH - 20}"'
        f' height="8" fill="{fill}" stroke="{EDGE}"/>' for i in range(n))
    text_y = y + 18 if mover else y + HALF - 8
    return (f'<g data-off="{side}" data-count="{n}">'
            f'<rect x="{x}" y="{y}" width="{TRAY_WIDTH - 12}" height="{HALF}" fill="none" stroke="{EDGE}"/>'
            f'{slices}<text x="{x + (TRAY_WIDTH - 12) / 2:g}" y="{text_y}" text-anchor="middle" font-size="12"'
            f' fill="{EDGE}" font-weight="bold">{side.upper()} {n}</text></g>')


def _dice(position: Position, dice: Sequence[int]) -> str:
    """Two dice in the middle gap of the board's right half, in the mover's colours."""
    fill, ink = COLOURS[position.on_roll]
    y = TOP + HALF + 6
    out = [f'<g data-dice="{dice[0]}-{dice[1]}">']
    for i, die in enumerate(dice):
        x = _column_x(8) + i * 40
        out.append(f'<rect x="{x:g}" y="{y}" width="32" height="32" rx="5" fill="{fill}" stroke="{EDGE}"/>'
                   f'<text x="{x + 16:g}" y="{y + 22}" text-anchor="middle" font-size="18" font-weight="bold"'
                   f' fill="{ink}">{die}</text>')
    return "".join(out) + "</g>"


def _cube(position: Position, cube: Cube) -> str:
    """The cube in its own column right of the trays: in the middle when centred, at the owner's
    edge of the board when owned (the side on roll's at the bottom)."""
    x = RIGHT + TRAY_WIDTH + 2
    y = {"center": TOP + HALF + 4, position.on_roll: BOTTOM - 36}.get(cube.owner, TOP)
    return (f'<g data-cube="{cube.value}" data-owner="{cube.owner}">'
            f'<rect x="{x}" y="{y}" width="36" height="36" rx="4" fill="#ffffff" stroke="{EDGE}" stroke-width="2"/>'
            f'<text x="{x + 18}" y="{y + 24}" text-anchor="middle" font-size="16" font-weight="bold"'
            f' fill="{EDGE}">{cube.value}</text></g>')


def _anchor(p: int) -> tuple[float, float]:
    """Where an arrow starts or ends for the mover's point ``p`` (25 bar, 0 off)."""
    if p == BAR:
        return BAR_X, MIDDLE_Y + RADIUS + 3
    if p == OFF:
        return RIGHT + TRAY_WIDTH / 2, BOTTOM - HALF / 2
    cx, top = _place(p)
    return cx, (TOP + HALF / 2 if top else BOTTOM - HALF / 2)


def _arrows(position: Position, play: Sequence[Sequence[int]], ident: str) -> str:
    """One arrow a move, from its source to its landing; a hit is ringed. Raises NotationError
    for a move that cannot be made (``model.apply_steps``)."""
    out, now = [], position
    for src, dst in play:
        after = apply_steps(now, [(src, dst)]).passed()
        hit = after.opponent[BAR] > now.opponent[BAR]
        (x1, y1), (x2, y2) = _anchor(src), _anchor(dst)
        bend = (y1 + y2) / 2 + (MIDDLE_Y - (y1 + y2) / 2) * 0.6  # bowed towards the middle, so arrows part
        out.append(f'<g data-from="{_x_number(position, src)}" data-to="{_x_number(position, dst)}"'
                   f' data-side="{position.on_roll}" data-hit="{int(hit)}">'
                   f'<path d="M{x1:g},{y1:g} Q{(x1 + x2) / 2:g},{bend:g} {x2:g},{y2:g}" fill="none" stroke="{MARK}"'
                   f' stroke-width="3" marker-end="url(#{ident}-arrowhead)" opacity="0.85"/>')
        if hit:
            out.append(f'<circle cx="{x2:g}" cy="{y2:g}" r="{RADIUS + 4}" fill="none" stroke="{MARK}"'
                       f' stroke-width="3" stroke-dasharray="4 3"/>')
        out.append("</g>")
        now = after
    return "".join(out)


def _layout(position: Position, side: str) -> str:
    """A side's checkers in words, in its own numbering: ``X: 24-point 2, 13-point 5, bar 1, off 0``."""
    s = position.side(side)
    words = [f"{p}-point {s[p]}" for p in range(24, 0, -1) if s[p]]
    return f"{side.upper()} ({side.upper()}'s numbering): {', '.join(words) or 'no checker on a point'}," \
           f" bar {s[BAR]}, off {s[OFF]}"


def describe(position: Position, *, dice: Sequence[int] | None = None, cube: Cube | None = None,
             score: Match | None = None) -> str:
    """The one line under the board and the start of its ``<desc>``:
    ``X on roll, dice 3-1, cube 2 owned by O, match to 7 (X 2, O 3), X pip 167, O pip 167``."""
    parts = [f"{position.on_roll.upper()} on roll"]
    if dice:
        parts.append(f"dice {dice[0]}-{dice[1]}")
    if cube is not None:
        parts.append(f"cube {cube.value} " + ("centred" if cube.owner == "center" else f"owned by {cube.owner.upper()}"))
    if score is not None:
        if score.length:
            flag = ", Crawford game" if score.crawford else ", post-Crawford" if score.post_crawford else ""
            parts.append(f"match to {score.length} (X {score.score.get('x', 0)}, O {score.score.get('o', 0)}{flag})")
        else:
            parts.append("money play")
    parts += [f"X pip {position.pips('x')}", f"O pip {position.pips('o')}"]
    return ", ".join(parts)


def render_board(position: Position, *, dice: Sequence[int] | None = None, cube: Cube | None = None,
                 score: Match | None = None, play: Sequence[Sequence[int]] | None = None,
                 width: int = 640, ident: str = "board") -> str:
    """``position`` drawn as a standalone SVG document (str, UTF-8 text, no XML declaration).

    ``dice``: two numbers 1..6 or None; ``cube``: a ``Cube`` (value, owner ``center``/``x``/``o``)
    or None for no cube drawn; ``score``: a ``Match`` (length 0 = money play) or None; ``play``:
    the moves of one roll as ``(from, to)`` pairs in the mover's numbering (25 = bar, 0 = off),
    drawn as arrows with hits ringed; ``width``: the width in CSS pixels (the height follows
    the board's proportions, about 0.84 of the width); ``ident``: the prefix of the document's
    ids (``ident-title``, ``ident-desc``, ``ident-arrowhead``), one per board when several are
    drawn inline in one HTML page. Raises NotationError (a ModelError) for a move of ``play``
    that cannot be made from the position.
    """
    summary = describe(position, dice=dice, cube=cube, score=score)
    height = round(width * VIEW_HEIGHT / VIEW_WIDTH)
    desc = f"{summary}. {_layout(position, position.on_roll)}. {_layout(position, other(position.on_roll))}."
    body = [f'<rect x="0" y="0" width="{VIEW_WIDTH}" height="{VIEW_HEIGHT}" fill="#f7f2e7"/>',
            f'<rect x="{LEFT}" y="{TOP}" width="{12 * POINT + BAR_WIDTH}" height="{BOTTOM - TOP}" fill="{BOARD}"'
            f' stroke="{EDGE}" stroke-width="2"/>',
            f'<rect x="{_column_x(6) - BAR_WIDTH}" y="{TOP}" width="{BAR_WIDTH}" height="{BOTTOM - TOP}"'
            f' fill="#8a6a45" stroke="{EDGE}"/>']
    body += [_point(position, p) for p in range(1, 25)]
    body += [_bar(position, s) for s in ("x", "o")] + [_tray(position, s) for s in ("x", "o")]
    if dice:
        body.append(_dice(position, dice))
    if cube is not None:
        body.append(_cube(position, cube))
    if play:
        body.append(_arrows(position, play, ident))
    body.append(f'<text x="{LEFT}" y="{BOTTOM + 44}" font-size="14" fill="{EDGE}"'
                f' data-on-roll="{position.on_roll}">{escape(summary)}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" data-on-roll="{position.on_roll}" width="{width}" height="{height}"'
            f' viewBox="0 0 {VIEW_WIDTH} {VIEW_HEIGHT}" font-family="sans-serif" aria-labelledby="{ident}-title {ident}-desc">'
            f'<title id="{ident}-title">{escape("Backgammon board, " + position.on_roll.upper() + " on roll")}</title>'
            f'<desc id="{ident}-desc">{escape(desc)}</desc>'
            f'<defs><marker id="{ident}-arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6"'
            f' orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill={quoteattr(MARK)}/></marker></defs>'
            + "\n".join(body) + "</svg>\n")


def drawable_moves(position: Position, play: str | Sequence[Sequence[int]]) -> list[tuple[int, int]] | None:
    """The moves of a play, written in notation (``"13/7*/5 6/5"``) or as ``(from, to)`` pairs
    (mover's numbering, 25 bar, 0 off), in an order they can be made one after the other from
    ``position``: as written, else the first other order of its checkers' paths that can be
    made; ready for ``render_board(play=...)``. ``[]`` for ``none``; None when the text cannot
    be read or no order can be made (a move from a point without a checker of the mover).
    Never raises."""
    try:
        moves = list(written_moves(play, forward=False)) if isinstance(play, str) else \
            [(int(a), int(b)) for a, b in play]
    except (ModelError, TypeError, ValueError):
        return None
    if len(moves) > 8:
        return None
    chains: list[list[tuple[int, int]]] = []
    for move in moves:  # one checker's path stays together: 13/7/5 is (13, 7) then (7, 5)
        if chains and chains[-1][-1][1] == move[0]:
            chains[-1].append(move)
        else:
            chains.append([move])
    for order in itertools.permutations(chains):
        steps = [m for chain in order for m in chain]
        try:
            apply_steps(position, steps)
        except ModelError:
            continue
        return steps
    return None
