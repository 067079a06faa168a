"""Properties of the reference engine that hold for every position and roll."""

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.model import OFF, Position, apply_steps
from conformance.harness.strategies import dice, positions
from reference_impl import legal_plays, play_check
from reference_impl.movegen import step_error

SETTINGS = settings(max_examples=300, deadline=None)


@SETTINGS
@given(positions(), dice())
def test_checkers_are_conserved(pos, roll):
    for result in legal_plays(pos, roll):
        assert sum(result.x) == 15 and sum(result.o) == 15
        # the opponent never loses or gains checkers: hits only move them to the bar
        assert result.side(pos.on_roll)[OFF] >= pos.mover[OFF]
        assert result.side("o" if pos.on_roll == "x" else "x")[OFF] == pos.opponent[OFF]


def _all_sequences(pos, roll):
    """Brute force, without the search's pruning: every sequence of legal single steps."""
    d1, d2 = roll
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    out = []

    def walk(me, opp, left, steps):
        moved = False
        if left and me[OFF] < 15:
            for src in range(25, 0, -1):
                if me[src] and step_error(me, opp, src, left[0]) is None:
                    moved = True
                    me2, opp2 = list(me), list(opp)
                    dst = max(src - left[0], 0)
                    me2[src] -= 1
                    me2[dst] += 1
                    if dst and opp2[25 - dst] == 1:
                        opp2[25 - dst] = 0
                        opp2[25] += 1
                    walk(me2, opp2, left[1:], steps + [(src, dst, left[0])])
        if not moved:
            out.append((tuple(me), tuple(opp), steps))

    for order in orders:
        walk(list(pos.mover), list(pos.opponent), order, [])
    return out


@SETTINGS
@given(positions(), dice())
def test_every_legal_play_uses_as_many_dice_as_possible(pos, roll):
    """Against a brute-force enumeration: the legal set is exactly the results of the
    sequences that use the most dice, then the largest total (game-ending ones count full)."""
    seqs = _all_sequences(pos, roll)

    def rank(seq):
        _me, _opp, steps = seq
        return (len(steps), sum(d for *_, d in steps))

    best = max(rank(s) for s in seqs)
    expected = {Position.from_mover(pos.on_roll, me, opp).passed() for me, opp, steps in seqs
                if rank((me, opp, steps)) == best}
    plays = legal_plays(pos, roll)
    assert set(plays) == expected
    for result, steps in plays.items():
        assert len(steps) == best[0]


@SETTINGS
@given(positions(), dice())
def test_swapping_colours_maps_legal_sets_one_to_one(pos, roll):
    swapped = {r.swap_colours() for r in legal_plays(pos.swap_colours(), roll)}
    assert swapped == set(legal_plays(pos, roll))


@SETTINGS
@given(positions(), dice())
def test_dice_order_does_not_matter(pos, roll):
    assert set(legal_plays(pos, roll)) == set(legal_plays(pos, roll[::-1]))


@SETTINGS
@given(positions(), dice())
def test_every_generated_play_checks_as_legal(pos, roll):
    for result, steps in legal_plays(pos, roll).items():
        assert apply_steps(pos, steps) == result
        assert play_check(pos, roll, steps).legal


@SETTINGS
@given(positions(), dice(), st.data())
def test_a_play_check_verdict_matches_the_legal_set(pos, roll, data):
    """A random single-step play is legal iff its result is in the legal set, and an
    illegal one always carries a reason."""
    src = data.draw(st.sampled_from([p for p in range(1, 26) if pos.mover[p]]))
    die = data.draw(st.sampled_from(sorted(set(roll))))
    steps = [(src, max(src - die, 0))]
    verdict = play_check(pos, roll, steps)
    plays = legal_plays(pos, roll)
    try:
        in_set = apply_steps(pos, steps) in plays
    except ValueError:
        in_set = False
    assert verdict.legal == in_set
    assert verdict.legal or verdict.reason


@SETTINGS
@given(positions(), st.integers(1, 6), st.integers(1, 25))
def test_the_search_steps_are_the_steps_step_error_allows(pos, die, top):
    """``_steps`` (the search's single steps, from sources ``top`` and below) lists
    exactly the steps ``step_error`` finds legal, each with the packed result of
    ``do_step``."""
    from reference_impl.movegen import _Facing, _steps, do_step, pack

    me, opp = list(pos.mover), list(pos.opponent)
    outside = sum(me[7:])
    got = {step: after for step, after in _steps(me, die, pack(me, opp), _Facing(opp), outside, top)}
    expected = {}
    for src in range(min(top, 25), 0, -1):
        if me[src] and step_error(me, opp, src, die) is None:
            me2, opp2 = list(me), list(opp)
            dst = do_step(me2, opp2, src, die)
            expected[(src, dst)] = pack(me2, opp2)
    assert got == expected


@SETTINGS
@given(positions())
def test_packed_positions_round_trip(pos):
    from reference_impl.movegen import pack, unpack

    assert unpack(pack(pos.mover, pos.opponent)) == (pos.mover, pos.opponent)


def _self_consistent(legal, pos, roll):
    """Each play's steps, applied one by one, reach the position it is listed under."""
    for result, steps in legal(pos, roll).items():
        if apply_steps(pos, steps) != result:
            return f"{pos} {roll}: {steps} reach {apply_steps(pos, steps)}, listed as {result}"
    return None


def test_on_every_suite_position_the_steps_reach_the_listed_positions():
    """Deterministic companion of the properties above, over the suite's legal_plays
    cases (both colours, both dice orders): the positions the generator computes
    without replaying steps agree with the steps it reports."""
    from conformance.cases import load_suite

    cases = [c for c in load_suite().cases if c.kind == "legal_plays"]
    assert cases
    problems = [p for c in cases for pos in (c.position, c.position.swap_colours())
                for roll in (tuple(c.dice), tuple(c.dice)[::-1])
                if (p := _self_consistent(legal_plays, pos, roll))]
    assert not problems, problems[:3]
