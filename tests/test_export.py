"""The suite as data: bgconf export (with its schema) and frozen releases (bgconf release,
bgconf run --suite-version)."""

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from conformance import __version__

from conformance.cases import resources
from conformance.cli import main
from conformance.cases import load_suite
from conformance.model import Position, decode_position_id, decode_xgid, other, play_to_position
from conformance.engines.protocol import PROTOCOL
from conformance.engines.adapters.reference import ReferenceEngine


def schema(name):
    data = json.loads((resources.spec_dir() / "schema" / name).read_text())
    jsonschema.Draft202012Validator.check_schema(data)
    return jsonschema.Draft202012Validator(data)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "suite.json"
    assert main(["export", "--format", "json", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_the_export_matches_its_schema_and_the_versions(exported):
    errors = [f"{e.json_path}: {e.message[:200]}" for e in schema("export.schema.json").iter_errors(exported)]
    assert errors == []
    suite = load_suite()
    assert [c["id"] for c in exported["cases"]] == [c.id for c in suite.cases]
    assert exported["content_hash"] == suite.content_hash
    assert (exported["suite_version"], exported["protocol_version"]) == (__version__, PROTOCOL)
    assert exported["spec_version"] == (resources.spec_dir() / "VERSION").read_text().strip()
    assert exported["case_format"] == 1


def test_every_exported_position_is_the_same_in_its_three_forms(exported):
    forms = [c["position"] for c in exported["cases"] if c["position"]]
    forms += [p for c in exported["cases"] if c["kind"] == "legal_plays" for p in c["expected"].get("plays", [])]
    assert len(forms) > 300
    for form in forms:
        board = Position.from_dict(form["board"])
        assert decode_position_id(form["gnubg_id"], on_roll=form["on_roll"], checkers=board.checkers) == board
        if board.checkers == 15:
            assert decode_xgid(form["xgid"]) == board
        else:  # a hypergammon position: an XGID cannot say how many checkers a side has
            assert form["xgid"] is None


def test_the_clause_texts_are_whole(exported):
    clauses = resources.spec_clauses(limit=None)
    for case in exported["cases"]:
        for clause in case["spec"]:
            assert clause["text"] == clauses[clause["anchor"]] and clause["text"]
    assert any(len(c["text"]) > 240 for case in exported["cases"] for c in case["spec"])


def test_the_exported_requests_and_expected_plays_need_no_harness(exported):
    """An engine given only the exported request returns exactly the exported plays (a roll
    with no play is the one play ``none``: the same board, the opponent on roll)."""
    engine = ReferenceEngine()
    checked = 0
    for case in exported["cases"]:
        if case["kind"] != "legal_plays" or "plays" not in case["expected"]:
            continue
        answer = engine.run(json.loads(json.dumps(case["request"])))["result"]["plays"]
        start = Position.from_dict(case["position"]["board"])
        got = {play_to_position(start, p) for p in answer} or {Position(other(start.on_roll), start.x, start.o)}
        assert got == {Position.from_dict(p["board"]) for p in case["expected"]["plays"]}, case["id"]
        checked += 1
    assert checked > 50


def one_error_line(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


def test_a_release_is_frozen_and_a_run_refuses_other_content(tmp_path, capsys):
    cases = tmp_path / "cases"
    cases.mkdir()
    for path in sorted((resources.cases_dir() / "movement").glob("*.yaml")):
        shutil.copy(path, cases / path.name.replace(".yaml", ".bgcase.yaml"))
    manifest = tmp_path / "release.json"
    assert main(["release", "--cases", str(cases), "--out", str(manifest)]) == 0
    data = json.loads(manifest.read_text())
    assert list(schema("release.schema.json").iter_errors(data)) == []
    assert data["suite_version"] == __version__
    assert sorted(data["case_ids"]) == sorted(c.id for c in load_suite([cases]).cases)
    capsys.readouterr()
    run = ["run", "--engine", "reference", "--cases", str(cases), "--suite-version", str(manifest), "--max-failures", "0"]
    assert main(run) == 0
    assert main(["release", "--cases", str(cases), "--out", str(manifest)]) == 0
    assert "already this content" in capsys.readouterr().out

    bar = cases / "bar.bgcase.yaml"
    bar.write_text(bar.read_text() + "\n# a comment changes the bytes\n")
    assert main(run) == 3
    line = one_error_line(capsys)
    assert f"{bar}: changed since the release" in line and line.startswith("bgconf: --suite-version")
    assert main(["release", "--cases", str(cases), "--out", str(manifest)]) == 2
    assert "frozen with other content" in one_error_line(capsys)
    (cases / "extra.bgcase.yaml").write_text("format: 1\ncases: []\n")
    assert main(run) == 3
    assert f"{cases / 'extra.bgcase.yaml'}: not in the release" in one_error_line(capsys)


def test_an_unknown_release_is_a_usage_error(capsys):
    assert main(["run", "--engine", "reference", "--suite-version", "1999.1.0"]) == 2
    assert "no release '1999.1.0'" in one_error_line(capsys)


def test_a_release_written_by_default_is_where_run_suite_version_looks(tmp_path, monkeypatch, capsys):
    # bgconf run from this checkout (an installed package refuses to write its releases/)
    monkeypatch.setattr(resources, "data_root", lambda: Path(__file__).resolve().parent.parent)
    releases = tmp_path / "releases"
    releases.mkdir()
    monkeypatch.setattr(resources, "releases_dir", lambda: releases)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # not the project's directory
    assert main(["release"]) == 0
    assert (releases / f"{__version__}.json").is_file() and not (elsewhere / "releases").exists()
    assert main(["run", "--engine", "reference", "--suite-version", __version__, "--case", "bg-27HQ"]) == 0
