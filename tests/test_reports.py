"""Reports and certificates: JUnit XML, Markdown, HTML certificate, badge, and strict
expectations files, produced from a real run of a deliberately broken engine."""

import json
import xml.etree.ElementTree as ET

import pytest

from test_cli import CASE, bgconf

BROKEN = "python:engines_for_tests:no_larger_die"


def test_a_run_of_a_subset_renders_everything_marked_partial(tmp_path):
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASE)
    out = tmp_path / "out"
    proc = bgconf("run", "--engine", BROKEN, "--profile", "movement", "--cases", str(path),
                  "--report", str(out / "r.jsonl"), "--junit", str(out / "r.xml"), "--markdown", str(out / "r.md"),
                  "--html", str(out / "r.html"), "--badge", str(out / "r.badge.json"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = [json.loads(x) for x in (out / "r.jsonl").read_text().splitlines()]
    assert lines[0]["selection"]["full"] is False and lines[0]["selection"]["cases"] == [str(path)]
    every_failure = [x for x in lines if x.get("status") == "fail"]
    failed = [x for x in every_failure if not x["scenario"]]
    # the mutant also judges 13/8 legal, so the play check fails too, and so does the play check
    # derived from bg-GQQD's legal plays that asks 13/8, in both dice orders
    assert [x["id"] for x in failed] == ["bg-GQQD", "bg-GQQE"]
    derived = [(x["id"], x["kind"]) for x in every_failure if x["scenario"]]
    assert derived == [("bg-GQQD", "play_check")] * 2
    assert failed[0]["repro"] == f"bgconf run --engine {BROKEN} --case bg-GQQD --cases {path}"
    assert "X on roll" in failed[0]["diagram"] and failed[0]["extra"] == ["13/8"]
    junit = ET.fromstring((out / "r.xml").read_text())
    assert junit.get("tests") == str(len(lines) - 2) and junit.get("failures") == str(len(every_failure))
    html = (out / "r.html").read_text()
    assert "Partial run, not a certificate" in html and "bg-GQQD" in html and "13/8" in html and "<figure class=\"board\"><svg" in html
    assert "Certified" not in html
    assert "PARTIAL RUN, NOT A CERTIFICATE" in (out / "r.md").read_text()
    badge = json.loads((out / "r.badge.json").read_text())
    assert badge["message"] == "partial, not a certificate" and badge["color"] == "lightgrey"


def test_a_passing_subset_is_never_called_certified(tmp_path):
    out = tmp_path / "out"
    proc = bgconf("run", "--engine", "reference", "--case", "bg-C3Z8", "--profile", "movement",
                  "--markdown", str(out / "r.md"), "--badge", str(out / "b.json"), "--report", str(out / "r.jsonl"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((out / "b.json").read_text())["color"] == "lightgrey"
    assert "**Certified**" not in (out / "r.md").read_text()
    verify = bgconf("certify", "--verify", str(out / "r.jsonl"))
    assert verify.returncode == 1 and "narrowed (--case bg-C3Z8)" in verify.stdout


@pytest.mark.parametrize("narrowing", [["--case", "bg-C3Z8"], ["--tag", "doubles"], ["--spec", "bearoff"],
                                       ["--cases", "CASEFILE"]])
def test_certify_refuses_a_subset(tmp_path, narrowing):
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASE)
    narrowing = [str(path) if a == "CASEFILE" else a for a in narrowing]
    proc = bgconf("certify", "--engine", "reference", "--profile", "movement", *narrowing, "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and narrowing[0] in proc.stderr and "subset" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "o").exists()


def test_certify_writes_every_rendering_and_refuses_a_failing_engine(tmp_path):
    proc = bgconf("certify", "--engine", BROKEN, "--profile", "movement", "--out", str(tmp_path / "out"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    stem = tmp_path / "out" / "python_engines_for_tests_no_larger_die-movement"
    lines = [json.loads(x) for x in stem.with_suffix(".jsonl").read_text().splitlines()]
    failed = [x for x in lines if x.get("status") == "fail"]
    assert failed and all(x["repro"].startswith(f"bgconf run --engine {BROKEN} --case bg-") for x in failed)
    assert any("move.larger-die" in x["spec"] for x in failed)
    junit = ET.fromstring((tmp_path / "out" / (stem.name + ".junit.xml")).read_text())
    assert int(junit.get("failures")) == len(failed)
    html = (tmp_path / "out" / (stem.name + ".html")).read_text()
    assert "Not certified" in html and failed[0]["id"] in html and "<figure class=\"board\"><svg" in html
    md = (tmp_path / "out" / (stem.name + ".md")).read_text()
    assert "**Not certified** for profile `movement`" in md
    badge = json.loads((tmp_path / "out" / (stem.name + ".badge.json")).read_text())
    assert badge["message"].endswith(" must") and badge["color"] == "red"
    verify = bgconf("certify", "--verify", str(stem.with_suffix(".jsonl")))
    assert verify.returncode == 1 and "not certified" in verify.stdout


def test_the_reference_is_certified_and_the_certificate_verifies(tmp_path):
    proc = bgconf("certify", "--engine", "reference", "--profile", "movement", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stdout
    assert "**Certified** for profile `movement`" in proc.stdout
    cert = tmp_path / "reference-movement.jsonl"
    verify = bgconf("certify", "--verify", str(cert))
    assert verify.returncode == 0 and "is certified for profile movement on all" in verify.stdout, verify.stdout
    # a certificate with one case line removed no longer covers the profile
    lines = cert.read_text().splitlines()
    dropped = json.loads(lines[1])["id"]
    (tmp_path / "cut.jsonl").write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    verify = bgconf("certify", "--verify", str(tmp_path / "cut.jsonl"))
    assert verify.returncode == 1 and dropped in verify.stdout
    # one from another suite content
    head = json.loads(lines[0])
    head["content_hash"] = "0" * 64
    (tmp_path / "other.jsonl").write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n")
    verify = bgconf("certify", "--verify", str(tmp_path / "other.jsonl"))
    assert verify.returncode == 1 and "content hash" in verify.stdout


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
    assert proc.returncode == 0 and "4 xfail" in proc.stdout  # the two cases and bg-GQQD[check 4] in both dice orders
    # an engine that now passes the listed case: xpass fails the run
    proc = bgconf("run", "--engine", "reference", "--cases", str(path), "--expectations", str(exp))
    assert proc.returncode == 1 and "2 xpass" in proc.stdout
    # a stale entry fails the run
    exp.write_text(exp.read_text() + "  bg-ZZZZ: {reason: gone}\n")
    proc = bgconf("run", "--engine", BROKEN, "--cases", str(path), "--expectations", str(exp))
    assert proc.returncode == 1 and "bg-ZZZZ is not a case of the suite" in proc.stderr


def test_an_entry_that_varies_keeps_a_pass_a_pass_and_a_failure_xfail(tmp_path):
    """``varies: true``: an answer that changes between runs (a computer player's random choice)
    is xfail when it fails and stays a pass when it passes; any other value of varies is refused."""
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASE)
    exp = tmp_path / "exp.yaml"
    exp.write_text("format: 1\nengine: x\nxfail:\n  bg-GQQD: {reason: random, varies: true}\n"
                   "  bg-GQQE: {reason: random, varies: true}\n")
    failing = bgconf("run", "--engine", BROKEN, "--cases", str(path), "--expectations", str(exp), "--no-play-checks")
    assert failing.returncode == 0 and "2 xfail" in failing.stdout, failing.stdout
    passing = bgconf("run", "--engine", "reference", "--cases", str(path), "--expectations", str(exp), "--no-play-checks")
    assert passing.returncode == 0 and "2 pass" in passing.stdout and "xpass" not in passing.stdout, passing.stdout
    exp.write_text("format: 1\nengine: x\nxfail:\n  bg-GQQD: {reason: random, varies: sometimes}\n")
    bad = bgconf("run", "--engine", "reference", "--cases", str(path), "--expectations", str(exp))
    assert bad.returncode == 2 and "varies must be true or false" in bad.stderr, bad.stderr


def test_an_expectations_link_is_on_the_report_line_and_every_rendering(tmp_path):
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASE)
    link = "https://example.org/acme-bg/issues/12"
    exp = tmp_path / "exp.yaml"
    exp.write_text("format: 1\nengine: mutant\nxfail:\n"
                   f"  bg-GQQD: {{reason: plays the smaller die, link: \"{link}\"}}\n"
                   "  bg-GQQE: {reason: judges the smaller die legal}\n")
    out = tmp_path / "out"
    proc = bgconf("run", "--engine", BROKEN, "--cases", str(path), "--expectations", str(exp), "-v",
                  "--report", str(out / "r.jsonl"), "--markdown", str(out / "r.md"), "--html", str(out / "r.html"),
                  "--junit", str(out / "r.xml"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = {x.get("id"): x for x in map(json.loads, (out / "r.jsonl").read_text().splitlines()) if not x.get("scenario")}
    assert lines["bg-GQQD"]["status"] == "xfail" and lines["bg-GQQD"]["link"] == link
    assert "link" not in lines["bg-GQQE"]
    assert f"(bug report: {link})" in proc.stdout
    assert f"([bug report]({link}))" in (out / "r.md").read_text()
    assert f'<a href="{link}">bug report</a>' in (out / "r.html").read_text()
    site = tmp_path / "site"
    assert bgconf("matrix", str(out / "r.jsonl"), "--cases", str(path), "--out", str(site)).returncode == 0
    assert f'<a href="{link}">bug report</a>' in (site / "cases" / "bg-GQQD.html").read_text()


@pytest.mark.parametrize("link", ["not a url", "ftp://example.org/1", "https://a b", "[1]"])
def test_a_link_that_is_not_an_http_url_is_refused_naming_the_case(tmp_path, link):
    path = tmp_path / "c.bgcase.yaml"
    path.write_text(CASE)
    exp = tmp_path / "exp.yaml"
    exp.write_text(f"format: 1\nengine: e\nxfail:\n  bg-GQQD: {{reason: r, link: {json.dumps(link)}}}\n")
    proc = bgconf("run", "--engine", "reference", "--cases", str(path), "--expectations", str(exp))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{exp}: xfail bg-GQQD: link must be an http(s) URL" in proc.stderr
