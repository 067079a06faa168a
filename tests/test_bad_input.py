"""Bad case files: one clear line per problem (file, line, case id), no traceback,
and the other files of the run still load."""

import subprocess
import sys

import pytest

from conformance.cases import load_suite

GOOD = """\
format: 1
cases:
  - id: bg-GQQD
    title: A good case beside the bad ones
    kind: legal_plays
    spec: [move.larger-die]
    position: {on_roll: x, x: {points: {13: 1, 6: 14}}, o: {points: {24: 2, 23: 2, 6: 11}}}
    dice: [6, 5]
    expect: {plays: ["13/7"]}
    provenance: {source: test, verified_by: [reference]}
"""

CASE = """\
format: 1
cases:
  - id: {id}
    title: A case with one thing wrong
    kind: legal_plays
    spec: [move.larger-die]
    position: {position}
    dice: [6, 5]
    expect: {{plays: [{plays}]}}
    provenance: {{source: test, verified_by: [reference]}}
"""

OK_POSITION = "{on_roll: x, x: {points: {13: 1, 6: 14}}, o: {points: {24: 2, 23: 2, 6: 11}}}"

BAD = {
    "malformed-yaml": ("format: 1\ncases:\n  - id: bg-AAAA\n    title: [unclosed\n", 4, None, "not valid YAML"),
    "unknown-key": (GOOD.replace("bg-GQQD", "bg-HHHH").replace("    dice: [6, 5]\n", "    dice: [6, 5]\n    dicee: 3\n"),
                    9, "bg-HHHH", "unknown key(s) dicee"),
    "sixteen-checkers": (CASE.format(id="bg-JJJJ", plays='"13/7"',
                                     position="{on_roll: x, x: {points: {13: 10, 6: 6}}, o: {points: {6: 5}}}"),
                         7, "bg-JJJJ", "side x has 16 checkers"),
    "shared-point": (CASE.format(id="bg-KKKK", plays='"13/7"',
                                 position="{on_roll: x, x: {points: {13: 1, 20: 1}}, o: {points: {5: 2}}}"),
                     7, "bg-KKKK", "shared by both sides"),
    "bad-notation": (CASE.format(id="bg-LLLL", plays='"13-7"', position=OK_POSITION), 9, "bg-LLLL", "'13-7'"),
    "false-hit": (CASE.format(id="bg-MMMM", plays='"13/7*"', position=OK_POSITION), 9, "bg-MMMM", "no blot"),
    "unknown-anchor": (GOOD.replace("bg-GQQD", "bg-NNNN").replace("move.larger-die", "move.largest-die"),
                       6, "bg-NNNN", "unknown spec anchor"),
    "bad-id": (GOOD.replace("bg-GQQD", "bg-0OI1"), 3, "bg-0OI1", "does not match"),
}


def write(tmp_path, name, text):
    path = tmp_path / f"{name}.bgcase.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_bad_file_gives_one_clear_error_and_the_good_file_still_loads(tmp_path, name):
    text, line, case_id, fragment = BAD[name]
    good = write(tmp_path, "good", GOOD)
    bad = write(tmp_path, name, text)
    suite = load_suite([good, bad])
    assert [c.id for c in suite.cases] == ["bg-GQQD"]
    assert len(suite.errors) == 1, [str(e) for e in suite.errors]
    err = suite.errors[0]
    assert err.file.endswith(f"{name}.bgcase.yaml")
    assert err.line == line, str(err)
    assert err.case_id == case_id
    assert fragment in err.message, str(err)
    assert "\n" not in str(err)


def test_an_id_used_twice_is_reported_at_its_second_use(tmp_path):
    a = write(tmp_path, "a", GOOD)
    b = write(tmp_path, "b", GOOD)
    suite = load_suite([a, b])
    assert len(suite.cases) == 1
    (err,) = suite.errors
    assert err.case_id == "bg-GQQD" and err.file.endswith("b.bgcase.yaml") and err.line == 3
    assert "already used at" in err.message and "a.bgcase.yaml:3" in err.message


def test_an_id_used_twice_in_one_file(tmp_path):
    text = GOOD + GOOD.split("cases:\n", 1)[1]
    suite = load_suite([write(tmp_path, "twice", text)])
    assert len(suite.cases) == 1
    (err,) = suite.errors
    assert err.line == 11 and "used twice" in err.message


def test_cli_validate_prints_errors_without_traceback(tmp_path):
    write(tmp_path, "good", GOOD)
    for name, (text, *_rest) in BAD.items():
        write(tmp_path, name, text)
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "validate", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 3
    assert "Traceback" not in proc.stderr + proc.stdout
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == len(BAD)
    assert "1 valid case," in proc.stdout
    for line in errors:
        assert ".bgcase.yaml:" in line


@pytest.mark.parametrize("name,text,line,fragment", [
    ("duplicate-key", GOOD.replace("    dice: [6, 5]\n", "    dice: [6, 6]\n    dice: [6, 5]\n"), 9,
     "key 'dice' is given twice (first at line 8)"),
    ("false-hit-in-play", GOOD.replace("kind: legal_plays", "kind: play_check").replace(
        '    expect: {plays: ["13/7"]}', '    play: "13/7*"\n    expect: {legal: true}'), 9, "no blot"),
    ("game-over", GOOD.replace("x: {points: {13: 1, 6: 14}}", "x: {points: {}}"), 7, "the game is over"),
])
def test_more_bad_input_is_caught(tmp_path, name, text, line, fragment):
    suite = load_suite([write(tmp_path, name, text)])
    assert not suite.cases
    (err,) = suite.errors
    assert err.line == line and fragment in err.message, str(err)


def test_a_directory_yields_only_bgcase_files(tmp_path):
    write(tmp_path, "good", GOOD)
    (tmp_path / "docker-compose.yaml").write_text("services: {}\n")
    suite = load_suite([tmp_path])
    assert len(suite.files) == 1 and not suite.errors


def test_the_per_kind_schemas_agree_with_the_full_schema():
    """The loader checks a case against its kind's flattened schema (for speed); it must
    accept and refuse exactly what the full case schema does."""
    from conformance.cases import _case_validators, case_files
    from conformance.cases import _compose

    full, by_kind = _case_validators()
    raws = []
    for path in case_files():
        raws.extend(_compose(path.read_text())[1]["cases"])
    variants = []
    for raw in raws:
        variants.append(raw)
        variants.append(dict(raw, unknown_key=1))
        variants.append({k: v for k, v in raw.items() if k != "expect"})
        variants.append(dict(raw, dice=[7, 1]) if "dice" in raw else dict(raw, title=""))
    for raw in variants:
        assert full.is_valid(raw) == by_kind[raw["kind"]].is_valid(raw), raw.get("id")
