"""Loading case files and the suite: the stages in order, file by file.

``load_file`` reads one file (``conformance.cases.read``), checks its top level and
each case against the schema (``conformance.cases.schema``), then each case's meaning
(``conformance.cases.checks``), and returns the cases and a ``CaseError`` for each
problem, never raising for bad content. ``load_suite`` does so for every file of
``case_files`` (one at a time, keeping only the cases) and checks ids are unique
across files; ``display_path`` names a file as messages and node ids show it.
"""

from __future__ import annotations

import gc
import hashlib
import re
from pathlib import Path
from typing import Callable, Iterable

import yaml

from conformance.cases import resources
from conformance.cases.checks import _Problem, _semantic
from conformance.cases.read import (
    ALIAS_MESSAGE,
    _AliasRefused,
    _check_no_anchors,
    _compose,
    _Lines,
    _read_limited,
    _read_yaml,
    _SlowPath,
    _yaml_error,
    max_file_bytes,
)
from conformance.cases.schema import _case_problems, _case_validators, _fast_checks, _file_validator, _schema_message
from conformance.cases.typed import USER_SUFFIX, Case, CaseError, Suite


def display_path(path: Path) -> str:
    """``cases/...`` for bundled files, the path as given otherwise."""
    path = Path(path)
    try:
        return path.resolve().relative_to(resources.data_root().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def load_file(path: Path, display: str | None = None, *,
              max_bytes: int | None = None) -> tuple[list[Case], list[CaseError]]:
    """Load one case file. Returns (cases, errors); never raises for bad content.

    A file over ``max_bytes`` (default: ``max_file_bytes()``) is not read, and YAML
    anchors and aliases are refused before anything is built from them."""
    path = Path(path)
    shown = display or display_path(path)
    data = _read_limited(path, shown, max_file_bytes(max_bytes))
    if isinstance(data, CaseError):
        return [], [data]
    return _load_bytes(data, shown)


def _load_bytes(text: bytes, shown: str, sides: dict | None = None) -> tuple[list[Case], list[CaseError]]:
    """``load_file`` on the file's bytes. ``sides``: one tuple for equal sides of the
    positions of many cases (one dict for a whole suite: positions repeat, as colours
    swapped, with other dice, as the result of other plays)."""
    sides = {} if sides is None else sides
    # The parser reads the UTF-8 bytes as they are (no decoded copy of the file; YAML
    # takes CR LF and CR as line breaks, as text mode would).
    try:
        try:
            data, case_lines = _read_yaml(text)
            lines = _Lines(text, case_lines)
        except _SlowPath:
            _check_no_anchors(text)
            node, data = _compose(text)
            lines = _Lines(text, [], node)
    except _AliasRefused as refused:
        return [], [CaseError(shown, refused.line, None, ALIAS_MESSAGE)]
    except yaml.YAMLError as exc:
        if isinstance(exc, yaml.reader.ReaderError):
            try:
                text.decode("utf-8")
            except UnicodeDecodeError as bad:
                return [], [CaseError(shown, 0, None, f"cannot read the file: {bad}")]
        return [], [_yaml_error(shown, exc)]
    if not isinstance(data, dict):
        return [], [CaseError(shown, 1, None, "a case file is a mapping with 'format: 1' and 'cases:'")]
    file_check, fast_by_kind = _fast_checks()
    errors: list[CaseError] = []
    if file_check is None or not file_check(data):
        for err in _file_validator().iter_errors(data):
            errors.append(CaseError(shown, lines.of(list(err.absolute_path)), None, _schema_message(err)))
        if errors:
            return [], errors
    full_validator, by_kind = _case_validators()
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(data["cases"]):
        line = lines.of(["cases", i])
        cid = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        kind = raw.get("kind") if isinstance(raw, dict) else None
        fast = fast_by_kind.get(kind) if isinstance(kind, str) else None
        if fast is None or not fast(raw):
            problems = _case_problems(raw, kind, full_validator, by_kind)
            if problems:
                for err in problems[:3]:
                    path = list(err.absolute_path)
                    if err.validator == "unevaluatedProperties" or (
                            err.validator == "additionalProperties" and not err.absolute_path):
                        names = re.findall(r"'([^']+)'", err.message.split("(")[-1])
                        path += names[:1]
                        message = (f"unknown key(s) {', '.join(names)} in the case; remove or fix the spelling"
                                   f" (case keys: see spec/schema/case.schema.json)")
                    else:
                        message = _schema_message(err)
                    errors.append(CaseError(shown, lines.of(["cases", i, *path]), cid, message))
                continue
        if cid in seen:
            errors.append(CaseError(shown, line, cid, f"id used twice in this file (first at line {seen[cid]}); "
                                                      f"give one of them a fresh id (bgconf new-id)"))
            continue
        seen[cid] = line
        try:
            cases.append(_semantic(raw, shown, line, sides))
        except _Problem as exc:
            errors.append(CaseError(shown, lines.of(["cases", i, *exc.path]) or line, cid, exc.message))
    return cases, errors


def case_files(paths: Iterable[Path] | None = None) -> list[Path]:
    """The case files under ``paths`` (files or directories), or the bundled suite.

    In the bundled ``cases/`` directory and its folders (``cases/variants``...): every ``*.yaml``
    but ``tags.yaml`` and those of ``cases/replays/`` (records with their expected verdicts,
    ``harness.replay_verdicts``); in any other directory: every ``*.bgcase.yaml`` (as pytest collects them), so
    that other YAML files beside them are left alone. A file named explicitly is
    always read. Sorted per directory.
    """
    bundled = resources.cases_dir().resolve()
    roots = list(paths) if paths else [bundled]
    files: list[Path] = []
    for root in roots:
        root = Path(root)
        if root.is_dir():
            inside = root.resolve().is_relative_to(bundled)
            pattern = "*.yaml" if inside else "*" + USER_SUFFIX
            replays = bundled / "replays"
            files.extend(p for p in sorted(root.rglob(pattern)) if p.name != "tags.yaml"
                         and not (inside and p.resolve().is_relative_to(replays)))
        else:
            files.append(root)
    return files


def load_suite(paths: Iterable[Path] | None = None, *, progress: Callable[[int, int, int], None] | None = None,
               max_bytes: int | None = None) -> Suite:
    """Load every case file (see ``case_files``); check ids are unique across files.

    Files are read one at a time and only their cases are kept, so memory grows
    with the cases, not with the files' text. ``progress(files_done, files_total,
    cases_so_far)`` is called after each file. ``max_bytes``: see ``load_file``.
    Raises ValueError when BGCONF_MAX_CASE_FILE_BYTES is not a size."""
    files = case_files(paths)
    limit = max_file_bytes(max_bytes)
    # The cases loaded are long-lived and hold no cycles: the collector's full passes
    # over them while they pile up would cost a third of the time of a large suite.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load_files(files, limit, progress)
    finally:
        if collecting:
            gc.enable()


def _load_files(files: list[Path], limit: int, progress) -> Suite:
    sides: dict = {}
    cases: list[Case] = []
    errors: list[CaseError] = []
    digest = hashlib.sha256()
    first: dict[str, Case] = {}
    shown_files = []
    for done, path in enumerate(files, 1):
        shown = display_path(path)
        shown_files.append(shown)
        if not path.exists():
            errors.append(CaseError(path.as_posix(), 0, None, "no such file or directory"))
        else:
            data = _read_limited(path, shown, limit)
            if isinstance(data, CaseError):
                loaded, errs = [], [data]
            else:
                digest.update(data)
                loaded, errs = _load_bytes(data, shown, sides)
                del data
            errors.extend(errs)
            for case in loaded:
                if case.id in first:
                    prior = first[case.id]
                    errors.append(CaseError(case.file, case.line, case.id,
                                            f"id already used at {prior.file}:{prior.line}; give one a fresh id"
                                            f" (bgconf new-id)"))
                    continue
                first[case.id] = case
                cases.append(case)
        if progress is not None:
            progress(done, len(files), len(cases))
    return Suite(cases, errors, shown_files, digest.hexdigest())
