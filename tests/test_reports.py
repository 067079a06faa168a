"""Reports and certificates: JUnit XML, Markdown, HTML certificate, badge, and strict
expectations files, produced from a real run of a deliberately broken engine."""

import json
import xml.etree.ElementTree as ET

from test_cli import CASE, bgconf

BROKEN = "python:engines_for_tests:no_larger_die"


def test_certify_writes_every_rendering_and_refuses_a_failing_engine(tmp_path):
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASE)
    proc = bgconf("certify", "--engine", BROKEN, "--profile", "movement", "--cases", str(path),
                  "--out", str(tmp_path / "out"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    stem = tmp_path / "out" / "python_engines_for_tests_no_larger_die-movement"
    lines = [json.loads(x) for x in stem.with_suffix(".jsonl").read_text().splitlines()]
    failed = [x for x in lines if x.get("status") == "fail"]
    # the mutant also judges 13/8 legal, so the play check fails too
    assert [x["id"] for x in failed] == ["bg-GQQD", "bg-GQQE"]
    assert failed[0]["repro"] == f"bgconf run --engine {BROKEN} --case bg-GQQD --cases {path}"
    assert "X on roll" in failed[0]["diagram"] and failed[0]["extra"] == ["13/8"]
    junit = ET.fromstring((tmp_path / "out" / (stem.name + ".junit.xml")).read_text())
    assert junit.get("tests") == "2" and junit.get("failures") == "2"
    html = (tmp_path / "out" / (stem.name + ".html")).read_text()
    assert "Not certified" in html and "bg-GQQD" in html and "13/8" in html and "<pre>" in html
    md = (tmp_path / "out" / (stem.name + ".md")).read_text()
    assert "**Not certified** for profile `movement`" in md
    badge = json.loads((tmp_path / "out" / (stem.name + ".badge.json")).read_text())
    assert badge["message"] == "0/2 must" and badge["color"] == "red"


def test_the_reference_is_certified(tmp_path):
    proc = bgconf("certify", "--engine", "reference", "--profile", "movement", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stdout
    assert "**Certified** for profile `movement`" in proc.stdout


def test_expectations_are_strict(tmp_path):
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASE)
    report = tmp_path / "r.jsonl"
    bgconf("run", "--engine", BROKEN, "--cases", str(path), "--report", str(report))
    exp = tmp_path / "exp.yaml"
    exp.write_text(bgconf("expectations", str(report)).stdout)
    assert "bg-GQQD" in exp.read_text()
    # the known failure becomes xfail, and the run passes
    proc = bgconf("run", "--engine", BROKEN, "--cases", str(path), "--expectations", str(exp))
    assert proc.returncode == 0 and "2 xfail" in proc.stdout
    # an engine that now passes the listed case: xpass fails the run
    proc = bgconf("run", "--engine", "reference", "--cases", str(path), "--expectations", str(exp))
    assert proc.returncode == 1 and "2 xpass" in proc.stdout
    # a stale entry fails the run
    exp.write_text(exp.read_text() + "  bg-ZZZZ: {reason: gone}\n")
    proc = bgconf("run", "--engine", BROKEN, "--cases", str(path), "--expectations", str(exp))
    assert proc.returncode == 1 and "bg-ZZZZ is not a case of the suite" in proc.stderr
