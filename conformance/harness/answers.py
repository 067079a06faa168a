"""Requests with pinned answers: what an engine must answer, exactly, to requests no case can make.

A case describes a situation the rules reach, so no case asks an engine about a request that
describes no game (an opening throw after the deciding one, a game to score that no side has
finished, an event type of the request's own), and no case sees what an answer carries beyond
what its comparison reads (the order of the opening dice, a refusal's wording). ``bgconf serve
reference`` answers such requests all the same, and its answers are pinned in a YAML file, a list
of entries::

    - id: opening-throw-after-the-deciding-one
      why: the first throw (3, 5) decides who starts (spec: opening.roll): none may follow it
      request: {kind: opening_roll, throws: [[3, 5], [2, 2]]}
      answer: {errored: "GameRuleError: throw 1 (3, 5) already decides who starts; later throws cannot follow"}

``request`` is a protocol ``run`` message without ``cmd`` and ``seq`` (spec/protocol.md);
``answer`` the whole reply without ``seq``, compared with ``==``. ``answer_differences`` puts
every request to an engine and returns every difference: the suite's check of the reference
(tests/test_answers.py) and a killer of the mutation run (tools/mutation/suite_on_reference.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

ENTRY_KEYS = {"id", "why", "request", "answer"}


def load_answers(path: str | os.PathLike) -> list[dict]:
    """The entries of a pinned-answers file, each a dict with ``id``, ``why``, ``request`` and
    ``answer``. Raises ValueError naming the file (and the entry) when it cannot be read, is not a
    list of such entries, or repeats an id."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot be read: {exc}") from None
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path}: a pinned-answers file is a non-empty list of entries")
    seen: set = set()
    for n, entry in enumerate(data, 1):
        if not isinstance(entry, dict) or set(entry) != ENTRY_KEYS:
            raise ValueError(f"{path}: entry {n}: an entry has exactly the keys {sorted(ENTRY_KEYS)}")
        if not isinstance(entry["request"], dict) or not isinstance(entry["answer"], dict):
            raise ValueError(f"{path}: entry {entry['id']}: request and answer are mappings")
        if entry["id"] in seen:
            raise ValueError(f"{path}: entry {entry['id']}: the id is used twice")
        seen.add(entry["id"])
    return data


def answer_differences(path: str | os.PathLike, engine) -> list[str]:
    """Every entry of the file at ``path`` whose request ``engine`` (an ``Engine``) does not
    answer exactly as pinned, one line each: ``FILE:ID: answered ..., pinned ...``. Each request
    goes through JSON first, so the engine gets it as ``bgconf serve`` does (strings of its own,
    not the reader's). Raises ValueError as ``load_answers`` does."""
    out = []
    for entry in load_answers(path):
        got = engine.run(json.loads(json.dumps(entry["request"])))
        if got != entry["answer"]:
            out.append(f"{Path(path).name}:{entry['id']}: answered {json.dumps(got)}, "
                       f"pinned {json.dumps(entry['answer'])}")
    return out
