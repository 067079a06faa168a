"""pytest plugin (entry point ``pytest11``; README, pytest).

- ``pytest --bg-engine E`` adds the bundled suite as test items with node ids
  ``cases/<file>.yaml::<id>``; ``-k``, ``-m``, ``--deselect`` and
  ``--junitxml`` work as usual.
- Any ``*.bgcase.yaml`` file under the collected paths is collected too (run on
  ``--bg-engine``, or on the reference engine when none is given).
- With ``--bg-engine`` the items are what ``bgconf run`` asks (``selection.asked``): the cases,
  with ``--bg-scenarios`` their scenarios, the play checks derived from each legal_plays case
  for an engine that declares play-check (``bg-7Q3K[check 3]``), the chosen-play forms.
- Each case tag becomes a marker (``-m bear_off``), and so does the kind.
- A failure shows the board diagram, the dice, the spec clause and the missing
  and extra plays; an unsupported case is skipped with the reason.
- ``--bg-fuzz N`` adds differential fuzzing items (``bgconf-fuzz::KIND[seed=S]``,
  see ``conformance.commands.fuzz``); with pytest-xdist each worker runs its own shards.
- ``--bg-replay PATH`` (repeatable; a record file or a folder of them) adds one item per
  recorded game, node id ``FILE::game-N`` (``FILE::game-N-line-L`` when a number is written twice),
  judged by the reference (``conformance.harness.record_judge``); it fails with its own game's first
  illegal event or record error. ``FILE::file`` fails with a problem of the file as a whole (a second
  match in it); ``FILE::read`` with a file that cannot be read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cases import Case, case_files, load_file
from conformance.harness.compare import compare
from conformance.engines.interface import EngineNotFound, EngineStartError
from conformance.engines.registry import start_engine
from conformance.reports.report import failure_text
from conformance.harness.runner import CaseResult, unsupported_reason
from conformance.harness.scenarios import with_variants
from conformance.harness.selection import asked

_ENGINES = pytest.StashKey[dict]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("bgconf", "backgammon rules conformance (bgconf)")
    group.addoption("--bg-engine", metavar="ENGINE", default=None,
                    help="run the bundled bgconf suite against ENGINE (reference, gnubg, "
                         "python:module:factory, or a bgconf.engines entry point)")
    group.addoption("--bg-no-suite", action="store_true", default=False,
                    help="with --bg-engine: run only *.bgcase.yaml files found, not the bundled suite")
    group.addoption("--bg-scenarios", action="store_true", default=False,
                    help="also run every case with colours swapped, dice reversed, and the position as a "
                         "Position ID or XGID when the engine declares it (ids like bg-XXXX[swapped])")
    group.addoption("--bg-fuzz", metavar="N", type=int, default=0,
                    help="also fuzz --bg-engine (default: reference) against the reference engine: N generated "
                         "inputs per kind (legal_plays, play_check, game_result), one item per kind, e.g. "
                         "bgconf-fuzz::legal_plays[seed=0]; a mismatch is shrunk and fails with the diff and a YAML "
                         "case to paste. Under pytest-xdist (-n) each kind is split into one shard per worker, "
                         "each with its own seed (seed + shard)")
    group.addoption("--bg-replay", metavar="PATH", action="append", default=[],
                    help="judge recorded matches (.mat, .sgf; a file or a folder, repeatable) with the reference:"
                         " one item per game, node id FILE::game-N, failing with the game's first illegal event"
                         " (FILE::file: a problem of the file as a whole, such as a second match in it)")
    group.addoption("--bg-fuzz-seed", metavar="S", type=int, default=0,
                    help="with --bg-fuzz: the seed of the first shard (default 0); a run is a function of it")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_ENGINES] = {}
    config.addinivalue_line("markers", "bgconf: a bgconf conformance case")
    from conformance.cases import resources
    from conformance.cases import KIND_REQUIRES

    for name in sorted(set(resources.registered_tags()) | set(KIND_REQUIRES)):
        config.addinivalue_line("markers", f"{name.replace('-', '_')}: bgconf cases tagged or of kind {name}")


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Start the engine once, before collection: an engine that cannot start is one
    usage error, not a failure per case."""
    name = session.config.getoption("--bg-engine")
    if name:
        _start_engine(session.config, name)


def _start_engine(config: pytest.Config, name: str):
    engines = config.stash[_ENGINES]
    if name not in engines:
        try:
            engine, info = start_engine(name)
        except (EngineNotFound, EngineStartError) as exc:
            raise pytest.UsageError(f"--bg-engine {name}: {exc}") from None
        engines[name] = (engine, info, {})
    return engines[name]


_FAULTS = pytest.StashKey[list]()


def pytest_sessionfinish(session: pytest.Session, exitstatus) -> None:
    """An engine that crashed or hung fails the session, whatever verdicts its cases got once
    a fresh process answered them (spec/protocol.md, "Crashes, hangs and restarts"); the
    terminal summary lists each crash and hang."""
    faults = [(name, list(getattr(engine, "incidents", None) or []))
              for name, (engine, _info, _replies) in session.config.stash.get(_ENGINES, {}).items()]
    faults = [(name, listed) for name, listed in faults if listed]
    session.config.stash[_FAULTS] = faults
    if faults and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    for name, listed in config.stash.get(_FAULTS, []):
        crashes = sum(x["kind"] == "crash" for x in listed)
        hangs = len(listed) - crashes
        terminalreporter.section(f"bgconf: the engine {name} crashed {crashes} and hung {hangs} time(s)", red=True)
        for x in listed[:50]:
            terminalreporter.line(f"{x['kind']} while asking {x.get('case') or '(between requests)'}: {x['message']}"
                                  + (f"\n    send it alone: {x['send']}" if x.get("send") else ""))
        if len(listed) > 50:
            terminalreporter.line(f"... {len(listed) - 50} more")


def pytest_unconfigure(config: pytest.Config) -> None:
    for engine, _info, _replies in config.stash.get(_ENGINES, {}).values():
        engine.close()


class CaseLoadError(Exception):
    """A case file's problems, reported as one collection error."""


class BgCaseFile(pytest.File):
    """A YAML file of cases."""

    def collect(self):
        cases, errors = load_file(self.path)
        if errors:
            # the file's good cases still run; its problems fail one item of their own
            yield BgLoadErrors.from_parent(self, name="load-errors", errors=errors)
        scenarios = self.config.getoption("--bg-scenarios")
        if self.config.getoption("--bg-engine"):
            # what bgconf run asks: the cases, their scenarios, the derived play checks, the chosen plays
            cases = asked(cases, _start_engine(self.config, self.config.getoption("--bg-engine"))[1], scenarios)
        elif scenarios:
            cases = with_variants(cases, _start_engine(self.config, "reference")[1])
        for case in cases:
            item = BgCaseItem.from_parent(self, name=case.name, case=case)
            item.add_marker(pytest.mark.bgconf)
            for tag in case.tags:
                item.add_marker(getattr(pytest.mark, tag.replace("-", "_")))
            item.add_marker(getattr(pytest.mark, case.kind))
            yield item


class BgLoadErrors(pytest.Item):
    """Fails with the file's load errors (file:line: case id: message, one per line)."""

    def __init__(self, *, errors, **kwargs):
        super().__init__(**kwargs)
        self.errors = errors

    def runtest(self) -> None:
        raise CaseLoadError("\n".join(str(e) for e in self.errors))

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, 0, "case file errors"


class CaseFailed(Exception):
    """The engine's answer does not match the case."""


class BgCaseItem(pytest.Item):
    """One case run on the session's engine."""

    def __init__(self, *, case: Case, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        self.duplicate_of = ""

    @property
    def engine_name(self) -> str:
        return self.config.getoption("--bg-engine") or "reference"

    def _engine(self):
        return _start_engine(self.config, self.engine_name)

    def _reply(self, engine, replies: dict) -> dict:
        if self.nodeid not in replies:
            # answer every collected case of this engine in one batch (one process round trip)
            batch = [i for i in self.session.items
                     if isinstance(i, BgCaseItem) and i.nodeid not in replies]
            info = engine.describe()
            batch = [i for i in batch if unsupported_reason(i.case, info) is None] or [self]
            for item, reply in zip(batch, engine.run_batch([i.case.request() for i in batch])):
                replies[item.nodeid] = reply
        return replies.pop(self.nodeid)

    def runtest(self) -> None:
        if self.duplicate_of:
            raise CaseLoadError(f"{self.case.file}:{self.case.line}: {self.case.id}: id already used by"
                                f" {self.duplicate_of}; give one of them a fresh id (bgconf new-id)")
        engine, info, replies = self._engine()
        why = unsupported_reason(self.case, info)
        if why:
            pytest.skip(f"unsupported: {why}")
        outcome = compare(self.case, self._reply(engine, replies))
        if outcome.status == "unsupported":
            pytest.skip(f"unsupported: {outcome.message}")
        if outcome.status != "pass":
            raise CaseFailed(failure_text(CaseResult(self.case, outcome, 0.0), self.engine_name))

    def repr_failure(self, excinfo, style=None):
        if excinfo.errisinstance((CaseFailed, CaseLoadError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, self.case.line - 1, f"{self.case.name}: {self.case.title}"


class FuzzFailed(Exception):
    """A fuzzing campaign found a mismatch (the text has the diff and the YAML case)."""


class BgFuzz(pytest.Collector):
    """The fuzzing items (``--bg-fuzz N``): per kind, one shard per xdist worker."""

    def collect(self):
        import math
        import os

        from conformance.harness.strategies import KINDS

        shards = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1))
        total = self.config.getoption("--bg-fuzz")
        first = self.config.getoption("--bg-fuzz-seed")
        for kind in KINDS:
            for shard in range(shards):
                yield BgFuzzItem.from_parent(self, name=f"{kind}[seed={first + shard}]", kind=kind,
                                             seed=first + shard, examples=math.ceil(total / shards))


class BgFuzzItem(pytest.Item):
    """One fuzzing campaign: ``examples`` inputs of ``kind`` from ``seed`` on the session's engine."""

    def __init__(self, *, kind: str, seed: int, examples: int, **kwargs):
        super().__init__(**kwargs)
        self.kind, self.seed, self.examples = kind, seed, examples

    def runtest(self) -> None:
        from conformance.commands.fuzz import campaign_report, summary
        from conformance.harness.fuzz import CAPABILITY, run_campaign

        name = self.config.getoption("--bg-engine") or "reference"
        engine, info, _replies = _start_engine(self.config, name)
        if CAPABILITY[self.kind] not in info.get("capabilities", []):
            pytest.skip(f"unsupported: engine does not declare capability {CAPABILITY[self.kind]}")
        camp = run_campaign(engine, name, self.kind, self.examples, self.seed, info=info)
        self.user_properties.append(("positions_per_second", round(camp.rate)))
        self.add_report_section("call", "bgconf fuzz", summary(camp))
        if camp.findings:
            label = f"{name} ({info.get('name', name)} {info.get('version', '')})".replace(" )", ")")
            raise FuzzFailed(campaign_report(camp, label))

    def repr_failure(self, excinfo, style=None):
        if excinfo.errisinstance(FuzzFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"bgconf fuzz {self.kind}, seed {self.seed}, {self.examples} inputs"


class ReplayFailed(Exception):
    """A recorded game breaks a rule, or its record cannot be read."""


class BgReplayItem(pytest.Item):
    """One recorded game (``--bg-replay``), judged with its whole record (the score history
    decides the Crawford game): the game whose header is on ``lines[0]`` (its events are those
    written on ``lines``, a range of line numbers); ``game`` None stands for the record as a
    whole (a file that cannot be read, or a problem of the file, such as a second match)."""

    def __init__(self, *, record_path: Path, game: int | None, lines: range | None = None, **kwargs):
        super().__init__(**kwargs)
        self.record_path, self.game, self.lines = record_path, game, lines

    def runtest(self) -> None:
        from conformance.harness.record_judge import event_text, judge_record
        from conformance.harness.record_reader import RecordError, read_record

        cache = self.config.stash.setdefault(_REPLAYS, {})
        key = str(self.record_path)
        if key not in cache:
            try:
                cache[key] = judge_record(read_record(self.record_path, key))
            except RecordError as exc:
                cache[key] = exc
        judged = cache[key]
        if isinstance(judged, Exception):
            raise ReplayFailed(f"{key}:{judged.line}: {judged.message}" if judged.line else f"{key}: {judged.message}")
        if self.lines is None:
            bad = [e for e in judged.events if e.level in ("illegal", "error") and e.game is None]
        else:
            bad = [e for e in judged.events if e.level in ("illegal", "error")
                   and ((e.game == self.game and e.line in self.lines) or (e.game is None and not e.line))]
        if bad:
            raise ReplayFailed(event_text(bad[0]) + (f"\n  ({len(bad) - 1} more in this game)" if len(bad) > 1 else ""))

    def repr_failure(self, excinfo, style=None):
        if excinfo.errisinstance(ReplayFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.record_path, None, f"replay {self.record_path} game {self.game}"


_REPLAYS = pytest.StashKey[dict]()


def _replay_items(session: pytest.Session, paths: list[str]) -> list:
    from conformance.harness.record_judge import record_files
    from conformance.harness.record_reader import RecordError, read_record

    files, problems = record_files(paths)
    if problems:
        raise pytest.UsageError("; ".join(f"--bg-replay {e.file}: {e.message}" for e in problems))
    items = []
    for path in files:
        try:
            record = read_record(path, str(path))
        except RecordError:
            items.append(BgReplayItem.from_parent(session, name="read", nodeid=f"{path}::read", record_path=path,
                                                  game=None))
            continue
        games = record.games
        numbers = [g.number for g in games]
        for i, g in enumerate(games):
            end = games[i + 1].line if i + 1 < len(games) else (record.error.line if record.error else 10 ** 9)
            # a game number written twice: each game is also named by its header line
            name = f"game-{g.number}" if numbers.count(g.number) == 1 else f"game-{g.number}-line-{g.line}"
            items.append(BgReplayItem.from_parent(session, name=name, nodeid=f"{path}::{name}", record_path=path,
                                                  game=g.number, lines=range(g.line, end)))
        if record.error is not None:
            items.append(BgReplayItem.from_parent(session, name="file", nodeid=f"{path}::file", record_path=path,
                                                  game=None))
    return items


def pytest_collect_file(file_path: Path, parent):
    if file_path.name.endswith(".bgcase.yaml"):
        return BgCaseFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """Add the bundled suite and the fuzzing items (before -k, -m and --deselect filter the items)."""
    if config.getoption("--bg-engine") and not config.getoption("--bg-no-suite"):
        from conformance.cases import display_path

        for path in case_files():
            node = BgCaseFile.from_parent(session, path=path, nodeid=display_path(path))
            items.extend(session.genitems(node))
    if config.getoption("--bg-replay"):
        items.extend(_replay_items(session, config.getoption("--bg-replay")))
    if config.getoption("--bg-fuzz") > 0:
        items.extend(session.genitems(BgFuzz.from_parent(session, name="bgconf-fuzz", nodeid="bgconf-fuzz")))
    # a case id is permanent and unique: a second use (e.g. a user's file reusing a
    # bundled id) fails instead of borrowing the other case's answer
    first: dict[str, str] = {}
    bundled_first = sorted((i for i in items if isinstance(i, BgCaseItem)),
                           key=lambda i: not i.case.file.startswith("cases/"))
    for item in bundled_first:
        if not item.case.scenario:
            if item.case.id in first and first[item.case.id] != item.nodeid:
                item.duplicate_of = first[item.case.id]
            first.setdefault(item.case.id, item.nodeid)
