"""One bug, one line: the failures of a run grouped by root cause, for every rendering (``bgconf
run``'s terminal output, the Markdown summary, the HTML certificate, the matrix, ``bgconf table``).

A case is asked in several forms that share its id and differ by scenario (``bg-7Q3K``,
``bg-7Q3K[swapped]``, ``bg-7Q3K[dice-reversed]``, ``bg-7Q3K[chosen-play]``, a derived play check
``bg-7Q3K[check 3]``); the form with no scenario is the root case. Whatever the scenario string
is, the forms of one id are judged together:

- the root case fails: it is one root cause, and every other form of its id that fails is shown
  under it (the same position and roll, the same bug);
- the root case passes: each form that fails is a root cause of its own (it fails where the root
  does not: a different bug, e.g. one of colour or of dice order);
- the root case was not answered (unsupported for the engine, not asked, or errored): the forms
  of its id that fail are one root cause, led by the first of them in the run's order (nothing
  answered tells them apart).

"Fails" is a wrong answer: ``fail``, or ``xfail`` (a failure an expectations file lists). An
``errored``, ``timeout`` or ``xpass`` form is a line of its own and never groups (a crash or a
listed failure that now passes is not a rule bug).

The count (``count_text``) reads "N rule bugs in M cases": N is the number of root causes whose
lead form fails (fail or xfail), M the number of failing case lines they hold, every form counted
(``bg-7Q3K`` and ``bg-7Q3K[swapped]`` are two), as the run's summary line counts cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Generic, Iterable, TypeVar

T = TypeVar("T")

#: the statuses of a wrong answer, the ones that group under a root case
WRONG = ("fail", "xfail")
#: the statuses shown as failures, each errored, timeout and xpass form on a line of its own
SHOWN = ("fail", "errored", "timeout", "xpass")


@dataclass
class RootCause(Generic[T]):
    """One line of the grouped failures: ``case_id``, ``lead`` (the form shown: the root case
    when it fails), ``status`` (the lead's), ``forms`` (every failing form on this line, ``lead``
    first, in run order)."""

    case_id: str
    lead: T
    status: str
    forms: list[T] = field(default_factory=list)

    @property
    def under(self) -> list[T]:
        """The forms shown under the lead (``forms`` without it)."""
        return self.forms[1:]


def group(items: Iterable[T], key: Callable[[T], tuple[str, str, str]],
          statuses: tuple[str, ...] = SHOWN + ("xfail",)) -> list[RootCause[T]]:
    """The root causes of ``items`` (case results or report case lines, in run order), as the
    module docstring defines them; ``key(item)`` gives ``(case id, scenario or "", status)``.
    Only items whose status is in ``statuses`` are lines (default: every failure, known
    failures included); the result is in the order of each line's lead in ``items``."""
    items = list(items)
    roots: dict[str, str] = {}
    for item in items:
        cid, scenario, status = key(item)
        if not scenario:
            roots[cid] = status
    lines: list[RootCause[T]] = []
    open_line: dict[str, RootCause[T]] = {}  # case id -> the line its wrong forms join
    for item in items:
        cid, scenario, status = key(item)
        if status not in statuses:
            continue
        if status not in WRONG:
            lines.append(RootCause(cid, item, status, [item]))
            continue
        root = roots.get(cid)
        if root == "pass" and scenario:
            lines.append(RootCause(cid, item, status, [item]))
            continue
        line = open_line.get(cid)
        if line is None:
            line = open_line[cid] = RootCause(cid, item, status, [])
            lines.append(line)
        if not scenario:  # the root case leads its line, wherever it came in the run
            line.lead, line.status = item, status
            line.forms.insert(0, item)
        else:
            line.forms.append(item)
    return lines


def count(lines: list[RootCause]) -> tuple[int, int]:
    """``(N, M)`` of ``count_text``: the lines whose lead fails and the failing forms they hold.
    Each line's forms are all wrong answers when its lead is one (``group``)."""
    wrong = [x for x in lines if x.status in WRONG]
    return len(wrong), sum(len(x.forms) for x in wrong)


def count_text(lines: list[RootCause]) -> str:
    """``"3 rule bugs in 11 cases"`` (``count``; "1 rule bug in 1 case" in the singular)."""
    n, m = count(lines)
    return f"{n} rule bug{'' if n == 1 else 's'} in {m} case{'' if m == 1 else 's'}"


def also_text(cause: RootCause, key: Callable[[object], tuple[str, str, str]]) -> str:
    """The forms shown under a line's lead, named, with the status of any whose status is not
    the lead's: ``"bg-7Q3K[swapped], bg-7Q3K[dice-reversed] (xfail)"``; "" when none."""
    from conformance.cases import case_name

    out = []
    for item in cause.under:
        cid, scenario, status = key(item)
        out.append(case_name(cid, scenario) + (f" ({status})" if status != cause.status else ""))
    return ", ".join(out)


def result_key(r) -> tuple[str, str, str]:
    """``group``'s key of a ``runner.CaseResult``."""
    return r.case.id, r.case.scenario, r.status


def line_key(line: dict) -> tuple[str, str, str]:
    """``group``'s key of a report's case line."""
    return line["id"], line.get("scenario") or "", line["status"]
