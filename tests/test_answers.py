"""Requests with pinned answers (tests/data/answers/reference.yaml): `bgconf serve reference`
answers each exactly as pinned, and ``answer_differences``, the check the mutation run calls,
finds an engine that answers one otherwise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance.engines.adapters.reference import RULES, ReferenceEngine
from conformance.harness.answers import answer_differences, load_answers

ANSWERS = Path(__file__).parent / "data" / "answers" / "reference.yaml"


def test_bgconf_serve_reference_gives_every_pinned_answer():
    entries = load_answers(ANSWERS)
    sent = [{"cmd": "run", "seq": i, **e["request"]} for i, e in enumerate(entries)] + [{"cmd": "stop"}]
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "serve", "reference"], text=True,
                          input="".join(json.dumps(m) + "\n" for m in sent), capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    received = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r.pop("seq") for r in received] == list(range(len(entries)))
    for entry, reply in zip(entries, received):
        assert reply == entry["answer"], entry["id"]


def test_the_pinned_requests_cover_refusals_and_answers_of_each_kind():
    entries = load_answers(ANSWERS)
    kinds = {e["request"]["kind"] for e in entries}
    assert {"opening_roll", "game_result", "cube_action", "match_transition", "game_record"} <= kinds
    assert sum("errored" in e["answer"] for e in entries) >= 5
    assert all(e["why"].strip() for e in entries)
    assert answer_differences(ANSWERS, ReferenceEngine()) == []


def test_an_engine_that_answers_otherwise_is_found():
    def opening_roll(throws, match, rules):  # the opening dice listed x's first, whoever starts
        got = RULES.opening_roll(throws, match, rules)
        return {**got, "dice": [throws[-1][0], throws[-1][1]]}

    class Mutant(ReferenceEngine):
        rules = SimpleNamespace(**{**vars(RULES), "opening_roll": opening_roll})

    differences = answer_differences(ANSWERS, Mutant())
    assert differences and all(d.startswith("reference.yaml:opening-dice-o-starts:") for d in differences)
    assert '"dice": [2, 5]' in differences[0] and '"dice": [5, 2]' in differences[0]


@pytest.mark.parametrize("text, problem", [
    ("[]", "non-empty list"),
    ("- {id: a, why: b, request: {kind: opening_roll}}", "exactly the keys"),
    ("- {id: a, why: b, request: [], answer: {}}", "request and answer are mappings"),
    ("- {id: a, why: b, request: {}, answer: {}}\n- {id: a, why: b, request: {}, answer: {}}", "used twice"),
    ("- [", "cannot be read"),
])
def test_a_malformed_answers_file_is_named(tmp_path, text, problem):
    path = tmp_path / "answers.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=problem) as info:
        load_answers(path)
    assert str(path) in str(info.value)


def test_the_refusals_no_request_reaches_are_made_by_direct_calls():
    """The mutation run's last check (tools/mutation/suite_on_reference.py): reference_impl refuses
    dice outside 1..6 and a position not of the variant when called directly, with its own errors."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "tools" / "mutation" / "suite_on_reference.py"
    spec = importlib.util.spec_from_file_location("suite_on_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.refusal_differences() == []
