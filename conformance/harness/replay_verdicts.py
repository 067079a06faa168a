"""Record files with known verdicts (``cases/replays/``): what ``bgconf replay`` must say of each.

Beside each record (``NAME.mat``) is its expected verdict, ``NAME.verdict.yaml``::

    record: NAME.mat
    source: where the record comes from, under which licence, and what was changed
    why: the verdict derived from the rules (clause by clause)
    summary: {games: 3, plays: 88, no_plays: 4, cube_actions: 8, illegal: 1, errors: 0, unjudged: 0}
    illegal:                       # every illegal event, in the order of the record
      - {game: 1, move: 11, side: x, kind: play, spec: move.separate-dice}
    errors:                        # every record error: its line (0: the file) and game (null: the file)
      - {line: 92, game: null}

``verdict_differences`` replays a directory of them with the reference (``record_judge``,
as ``bgconf replay`` does) and returns every difference from the expected verdicts: the
suite's own check of replay, and a killer for a mutant of the rules (a mutated
``reference_impl`` is judged through the same call).
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from .record_judge import FileResult, record_files, replay_files

#: the counts a verdict states (``FileResult``'s)
SUMMARY = ("games", "plays", "no_plays", "cube_actions", "illegal", "errors", "unjudged")
#: what each illegal event states
EVENT_KEYS = ("game", "move", "side", "kind", "spec")
VERDICT_SUFFIX = ".verdict.yaml"


def replays_dir() -> Path:
    """The bundled ``cases/replays/`` directory."""
    from conformance.cases import resources

    return resources.cases_dir() / "replays"


def observed(result: FileResult) -> dict:
    """A judgement in the shape of a verdict file: ``summary``, ``illegal``, ``errors``."""
    summary = {k: getattr(result, k) for k in SUMMARY}
    illegal = [{"game": e.game, "move": e.move, "side": e.side, "kind": e.kind, "spec": e.anchor}
               for e in result.events if e.level == "illegal"]
    errors = [{"line": e.line, "game": e.game} for e in result.events if e.level == "error"]
    return {"summary": summary, "illegal": illegal, "errors": errors}


def _expected(path: Path) -> tuple[dict | None, str | None]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return None, f"{path}: cannot be read: {exc}"
    if not isinstance(data, dict) or not isinstance(data.get("summary"), dict):
        return None, f"{path}: a verdict is a mapping with record, summary, illegal and errors"
    missing = [k for k in SUMMARY if k not in data["summary"]]
    if missing:
        return None, f"{path}: summary lacks {', '.join(missing)}"
    return data, None


def compare_verdict(expected: dict, got: dict, name: str) -> list[str]:
    """The differences between an expected verdict and an observed one (``observed``), one line
    each, naming the record ``name``."""
    out = []
    for k in SUMMARY:
        if expected["summary"][k] != got["summary"][k]:
            out.append(f"{name}: {k} expected {expected['summary'][k]}, got {got['summary'][k]}")
    want = [{k: e.get(k) for k in EVENT_KEYS} for e in expected.get("illegal") or []]
    if want != got["illegal"]:
        extra = [e for e in got["illegal"] if e not in want]
        lost = [e for e in want if e not in got["illegal"]]
        out.append(f"{name}: illegal events differ: expected but not found {lost}, found but not expected {extra}"
                   if extra or lost else f"{name}: illegal events in another order: {got['illegal']}")
    errors = [{"line": e.get("line"), "game": e.get("game")} for e in expected.get("errors") or []]
    if errors != got["errors"]:
        out.append(f"{name}: record errors expected {errors}, got {got['errors']}")
    return out


def verdict_differences(directory: str | os.PathLike | None = None) -> list[str]:
    """Replay every record in ``directory`` (default: the bundled ``cases/replays/``) with the
    reference and compare it with its ``NAME.verdict.yaml``. Returns the differences, one
    human-readable line each (empty: every verdict reproduced); a record without a verdict, a
    verdict without its record, an unreadable verdict and an empty directory are differences
    too. Never raises for files it can list; touches no file and starts no engine."""
    root = Path(directory) if directory is not None else replays_dir()
    if not root.is_dir():
        return [f"{root}: no such directory"]
    files, problems = record_files([str(root)])
    out = [f"{p.file}: {p.message}" for p in problems]
    verdicts = {p.name[:-len(VERDICT_SUFFIX)]: p for p in root.rglob("*" + VERDICT_SUFFIX)}
    records = {f.name.rsplit(".", 1)[0]: f for f in files}
    for stem in sorted(set(verdicts) - set(records)):
        out.append(f"{verdicts[stem]}: a verdict without its record")
    for result, path in zip(replay_files(files), files):
        stem = path.name.rsplit(".", 1)[0]
        if stem not in verdicts:
            out.append(f"{path}: a record without its verdict ({stem}{VERDICT_SUFFIX})")
            continue
        expected, problem = _expected(verdicts[stem])
        if problem:
            out.append(problem)
            continue
        if expected.get("record") not in (None, path.name):
            out.append(f"{verdicts[stem]}: names the record {expected.get('record')!r}, beside {path.name}")
        out.extend(compare_verdict(expected, observed(result), path.name))
    return out
