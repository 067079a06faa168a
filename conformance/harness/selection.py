"""Which cases a run asks, and in what order: the one home of the order that ``bgconf run``,
``bgconf certify``, ``certify --verify --rerun`` and ``bgconf table`` ask cases in, so that a
re-run asks exactly what the run it checks asked.

``choose`` narrows the suite (ids, tags, spec anchors, profile, shard); ``asked`` puts what was
chosen in the order it is asked: the cases as written, then, with scenarios, their variants
(``scenarios.with_variants``), then the play checks derived from the legal_plays cases for an
engine that declares play-check (``derived.with_play_checks``), then the chosen-play forms of an
engine that declares chosen-play (``runner.asked_cases``). The ``bot`` profile asks the
chosen-play forms alone (``profiles.CHOSEN_ONLY``).
"""

from __future__ import annotations

from typing import Callable, Iterable

from conformance.cases import Case
from conformance.harness.derived import PREFIX, play_checks, with_play_checks
from conformance.harness.profiles import CHOSEN_ONLY, in_profile
from conformance.harness.runner import asked_cases, chosen_play_case, select
from conformance.harness.scenarios import variants, with_variants
from conformance.harness.shard import Shard


def choose(cases: Iterable[Case], ids: list[str] | None = None, tags: list[str] | None = None,
           spec: list[str] | None = None, profile: str | None = None,
           shard: Shard | None = None) -> tuple[int, list[Case]]:
    """The cases of ``cases`` that match the ids, tags and spec anchors (``runner.select``) and
    belong to ``profile`` (None: any), then the ``shard``'s part of them (None: all). Returns
    (how many matched before the shard was taken, the chosen cases in suite order)."""
    chosen = select(cases, ids, tags, spec)
    if profile:
        chosen = [c for c in chosen if in_profile(c, profile)]
    matched = len(chosen)
    if shard is not None:
        chosen = [c for i, c in enumerate(chosen) if shard.owns(i)]
    return matched, chosen


def asked(chosen: Iterable[Case], info: dict, scenarios: bool, profile: str | None = None, *,
          play_checks: bool = True) -> list[Case]:
    """The cases put to an engine described by ``info`` (its ``describe()``), in the order
    asked: ``chosen``, then with ``scenarios`` the variants of each that the engine is asked
    (spec/protocol.md, Scenarios), then the derived play checks (spec/protocol.md, Derived
    play checks; not with ``play_checks`` false), then the chosen-play forms. For a ``profile`` in ``CHOSEN_ONLY`` (``bot``):
    the chosen-play form of each legal_plays case of ``chosen`` and of its variants, alone,
    whatever the engine declares (an engine without chosen-play has them unsupported)."""
    chosen = list(chosen)
    if scenarios:
        chosen = with_variants(chosen, info)
    if profile in CHOSEN_ONLY:
        return [chosen_play_case(c) for c in chosen if c.kind == "legal_plays"]
    return asked_cases(with_play_checks(chosen, info) if play_checks else chosen, info)



def form_finder(cases: Iterable[Case]) -> Callable[[str, str], Case | None]:
    """A lookup ``find(case_id, scenario)`` of the case form a report line names in ``cases``
    (the cases as written): the case itself for scenario ``""``, a scenario variant
    (``swapped``, ``dice-reversed``, ``xgid``...), a derived play check (``check 3``,
    ``check 3+dice-reversed``; each root's checks are made once, on first use), a chosen-play
    form (``chosen-play``, ``chosen-play+swapped``); None for an id ``cases`` lacks or a
    scenario name that case has no form of."""
    by_id = {c.id: c for c in cases if not c.scenario}
    checks: dict[str, dict[str, Case]] = {}
    every_format = {"position_formats": ["board", "gnubg_id", "xgid", "fibs_board"]}

    def find(case_id: str, scenario: str) -> Case | None:
        case = by_id.get(case_id)
        if case is None or not scenario:
            return case
        if scenario.startswith(PREFIX):
            if case_id not in checks:
                checks[case_id] = {c.scenario: c for c in play_checks(case)}
            return checks[case_id].get(scenario)
        if scenario.startswith("chosen-play"):
            base = find(case_id, scenario.partition("+")[2])
            return chosen_play_case(base) if base is not None and base.kind == "legal_plays" else None
        return next((c for c in variants(case, every_format) if c.scenario == scenario), None)

    return find
