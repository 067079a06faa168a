"""Bad case files: one clear line per problem (file, line, case id), no traceback,
and the other files of the run still load."""

import copy
import io
import subprocess
import sys
import time

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from conformance import cases as cases_module
from conformance.cases import load as cases_load, positions as cases_positions, read as cases_read
from conformance.cases import schema as cases_schema

from conformance.harness import strategies
from conformance.cases import ALIAS_MESSAGE, DEFAULT_MAX_FILE_BYTES, MAX_FILE_BYTES_ENV, load_file, load_suite
from conformance.cli import main

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


def test_a_folder_of_the_bundled_suite_yields_its_case_files():
    """``--cases cases/variants`` reads that folder's case files, named ``*.yaml`` as everywhere
    in the bundled suite; the records of ``cases/replays`` are not case files there either."""
    from conformance.cases import case_files, resources

    bundled = resources.cases_dir()
    whole = case_files()
    variants = case_files([bundled / "variants"])
    assert variants and set(variants) <= set(whole)
    assert {p.name for p in variants} == {p.name for p in (bundled / "variants").glob("*.yaml")}
    assert case_files([bundled / "replays"]) == []


def test_the_per_kind_schemas_agree_with_the_full_schema():
    """The loader checks a case against its kind's flattened schema (for speed); it must
    accept and refuse exactly what the full case schema does."""
    from conformance.cases import case_files
    from conformance.cases.read import _compose
    from conformance.cases.schema import _case_validators, _fast_checks

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
    _file_check, fast = _fast_checks()
    for raw in variants:
        valid = full.is_valid(raw)
        assert valid == by_kind[raw["kind"]].is_valid(raw), raw.get("id")
        assert valid == fast[raw["kind"]](raw), raw.get("id")


# -- unbounded input: YAML aliases, huge files, progress ---------------------------------
LOADERS = ["python"] + (["libyaml"] if hasattr(yaml, "CSafeLoader") else [])


@pytest.fixture(params=LOADERS)
def loader(request, monkeypatch):
    """Every test using this runs with LibYAML's parser (when installed) and PyYAML's own."""
    if request.param == "python":
        monkeypatch.setattr(cases_read, "_CaseLoader", cases_read._PyCaseLoader)
    return request.param


def _bomb(indent: str, first: str = "x") -> list[str]:
    """Nine nested levels of nine aliases each (9**9 leaves once expanded): lines of a
    mapping at ``indent``; the first alias is on the second line."""
    lines = [f"{indent}l0: &l0 [{', '.join([first] * 9)}]"]
    for n in range(1, 10):
        lines.append(f"{indent}l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]")
    return lines


def _good_lines() -> list[str]:
    return GOOD.rstrip("\n").split("\n")


def _with_bomb(place: str) -> tuple[str, int]:
    """A case file with an alias bomb at ``place``; (text, line of the first alias)."""
    lines = _good_lines()
    if place == "top level":
        out = lines[:1] + ["x-extra:"] + _bomb("  ") + lines[1:]
        return "\n".join(out) + "\n", 4
    at = lines.index("    dice: [6, 5]") + 1
    if place == "rules":
        out = lines[:at] + ["    rules:"] + _bomb("      ") + lines[at:]
    elif place == "comment":
        out = lines[:at] + ["    comment:"] + _bomb("      ") + lines[at:]
    else:  # expect.plays: the list of plays itself
        expect = lines.index('    expect: {plays: ["13/7"]}')
        bomb = [f"        - {line.strip().split(': ', 1)[1]}" for line in _bomb("")]
        out = lines[:expect] + ["    expect:", "      plays:"] + bomb + lines[expect + 1:]
        return "\n".join(out) + "\n", expect + 4
    return "\n".join(out) + "\n", at + 3


@pytest.mark.parametrize("place", ["top level", "rules", "comment", "expect.plays"])
def test_an_alias_bomb_is_refused_at_once_with_the_line_of_the_first_alias(tmp_path, loader, place):
    text, line = _with_bomb(place)
    assert "*l0" in text.split("\n")[line - 1]
    path = write(tmp_path, "bomb", text)
    start = time.perf_counter()
    cases, errors = load_file(path)
    assert time.perf_counter() - start < 0.5
    assert cases == []
    (err,) = errors
    assert err.line == line and err.case_id is None
    assert err.message == ALIAS_MESSAGE
    assert str(err) == f"{path.as_posix()}:{line}: {ALIAS_MESSAGE}"


@pytest.mark.parametrize("place", ["top level", "rules", "comment", "expect.plays"])
def test_cli_validate_refuses_an_alias_bomb_in_one_line(tmp_path, capsys, place):
    text, line = _with_bomb(place)
    path = write(tmp_path, "bomb", text)
    start = time.perf_counter()
    code = main(["validate", str(path)])
    assert time.perf_counter() - start < 1
    out, err = capsys.readouterr()
    assert code == 3
    assert err.splitlines() == [f"error: {path.as_posix()}:{line}: {ALIAS_MESSAGE}"]
    assert "Traceback" not in out + err and "0 valid cases, 1 error" in out


def test_an_anchor_without_alias_is_refused_too(tmp_path, loader):
    text = GOOD.replace("    dice: [6, 5]", "    dice: &roll [6, 5]")
    (err,) = load_file(write(tmp_path, "anchor", text))[1]
    assert err.line == 8 and err.message == ALIAS_MESSAGE


def test_an_alias_after_a_construct_the_fast_reader_leaves_to_pyyaml_is_refused(tmp_path, loader):
    """An explicit tag sends the file to PyYAML's own composer; aliases are refused there too."""
    text = GOOD.replace("    dice: [6, 5]", "    dice: !!seq [6, 5]\n    comment: &c [x]\n    notes: *c")
    (err,) = load_file(write(tmp_path, "tagged", text))[1]
    assert err.line == 10 and err.message == ALIAS_MESSAGE


def test_hit_marks_and_ampersands_are_not_aliases(tmp_path, loader):
    text = GOOD.replace("A good case beside the bad ones", "x & o play a *good* case, &more").replace(
        "kind: legal_plays", "kind: play_check").replace(
        '    expect: {plays: ["13/7"]}', '    play: "13/7"\n    expect: {legal: true}')
    text += text.split("cases:\n", 1)[1].replace("bg-GQQD", "bg-GQQE").replace(
        "{points: {24: 2, 23: 2, 6: 11}}", "{points: {18: 1, 24: 1, 23: 2, 6: 11}}").replace(
        '"13/7"', "13/7*")
    cases, errors = load_file(write(tmp_path, "stars", text))
    assert not errors, [str(e) for e in errors]
    assert [c.id for c in cases] == ["bg-GQQD", "bg-GQQE"]
    assert cases[0].title == "x & o play a *good* case, &more" and cases[1].play == "13/7*"
    assert [c.line for c in cases] == [3, 12]


def test_an_over_large_file_is_refused_unread(tmp_path, loader, monkeypatch):
    path = write(tmp_path, "large", GOOD + "  - [unclosed\n" * 50)
    size = path.stat().st_size

    def no_yaml(*args, **kwargs):
        raise AssertionError("the YAML of an over-large file was read")

    monkeypatch.setattr(cases_load, "_read_yaml", no_yaml)
    (err,) = load_file(path, max_bytes=1000)[1]
    assert err.line == 0 and err.case_id is None
    assert err.message.startswith(f"file is {size} bytes, over the limit of 1000 bytes for a case file")
    assert "--max-file-size" in err.message and MAX_FILE_BYTES_ENV in err.message
    monkeypatch.setenv(MAX_FILE_BYTES_ENV, "1kB")
    assert load_suite([path]).errors == [err]


def test_the_size_limit_is_raised_by_the_environment_or_the_option(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, "good", GOOD)
    monkeypatch.setenv(MAX_FILE_BYTES_ENV, "100")
    assert "over the limit of 100 bytes" in load_file(path)[1][0].message
    assert main(["validate", "--no-reference", str(path)]) == 3
    assert "over the limit of 100 bytes" in capsys.readouterr().err
    assert main(["validate", "--no-reference", "--max-file-size", "1MB", str(path)]) == 0
    assert "1 valid case," in capsys.readouterr().out
    monkeypatch.setenv(MAX_FILE_BYTES_ENV, "lots")
    assert main(["validate", str(path)]) == 2
    assert f"{MAX_FILE_BYTES_ENV}: 'lots' is not a size" in capsys.readouterr().err
    monkeypatch.delenv(MAX_FILE_BYTES_ENV)
    with pytest.raises(SystemExit) as exc:
        main(["validate", "--max-file-size", "5 parsecs", str(path)])
    assert exc.value.code == 2
    assert cases_module.max_file_bytes() == DEFAULT_MAX_FILE_BYTES == 5_000_000


@pytest.mark.parametrize("text,size", [("5000000", 5_000_000), ("500kB", 500_000), ("20MB", 20_000_000),
                                       ("2M", 2_000_000), ("1MiB", 1_048_576), (" 1.5 gb ", 1_500_000_000)])
def test_sizes(text, size):
    assert cases_module.parse_size(text) == size


def test_the_bundled_files_are_well_under_the_default_limit():
    largest = max(p.stat().st_size for p in cases_module.case_files())
    assert largest < DEFAULT_MAX_FILE_BYTES / 20


def test_load_suite_reports_progress_file_by_file(tmp_path):
    paths = [write(tmp_path, "a", GOOD), write(tmp_path, "b", "format: 1\ncases: [\n"),
             write(tmp_path, "c", GOOD.replace("bg-GQQD", "bg-GQQE"))]
    calls = []
    suite = load_suite(paths, progress=lambda *a: calls.append(a))
    assert calls == [(1, 3, 1), (2, 3, 1), (3, 3, 2)]
    assert len(suite.cases) == 2 and len(suite.errors) == 1


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_validate_shows_progress_on_a_terminal_only(tmp_path, capsys, monkeypatch):
    write(tmp_path, "a", GOOD)
    write(tmp_path, "b", GOOD.replace("bg-GQQD", "bg-GQQE"))
    assert main(["validate", "--no-reference", str(tmp_path)]) == 0
    plain_out, plain_err = capsys.readouterr()
    assert plain_err == "" and "\r" not in plain_out
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["validate", "--no-reference", str(tmp_path)]) == 0
    assert "validating: 2/2 files, 2 cases so far" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r")  # the line is cleared for what follows
    assert capsys.readouterr().out == plain_out


def test_loading_keeps_no_file_text_or_yaml_nodes(tmp_path):
    """What a loaded case holds: its own values, not the text or node tree of its file."""
    import gc

    for i in range(3):
        write(tmp_path, f"f{i}", GOOD.replace("bg-GQQD", f"bg-GQQ{'EFG'[i]}"))
    suite = load_suite([tmp_path])
    assert len(suite.cases) == 3
    gc.collect()
    held = [o for c in suite.cases for o in gc.get_referents(*vars(c).values())]
    assert not [o for o in held if isinstance(o, (yaml.Node, yaml.Mark))]
    assert not [o for o in gc.get_objects() if isinstance(o, yaml.Node)]
    assert not any(isinstance(v, str) and "format: 1" in v for c in suite.cases for v in vars(c).values())


# the fast event reader and the compiled schema checks against PyYAML and jsonschema
_scalars = (st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False)
            | st.text(max_size=12) | st.sampled_from(["on", "off", "yes", "013", "0x1F", "1_000", "1:20", "~",
                                                      "2024-01-01", "<<", "=", "-", "13/7*", "&x", "*y"]))
_documents = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=6) | st.integers(0, 30), inner, max_size=4),
                          max_leaves=20)


@settings(max_examples=100, deadline=None)
@given(data=_documents, flow=st.sampled_from([None, True, False]), python=st.booleans())
def test_the_event_reader_reads_what_pyyaml_reads(data, flow, python):
    loader = cases_read._PyCaseLoader if python else cases_read._CaseLoader
    # three copies, so that the dump has no aliases of its own
    text = yaml.safe_dump({"format": 1, "x": copy.deepcopy(data), "cases": [copy.deepcopy(data), {"id": data}]},
                          default_flow_style=flow)
    try:
        fast, lines = cases_read._read_yaml(text, loader)
    except cases_read._SlowPath:
        return  # left to PyYAML (a timestamp, a merge key...)
    node, slow = cases_read._compose(text, loader)
    assert fast == slow
    assert lines == [cases_read._line_of(node, ["cases", 0]), cases_read._line_of(node, ["cases", 1])]


@pytest.mark.parametrize("text", [
    "a: !!str 5\n", "a: 2024-01-01\n", "<<: {a: 1}\nb: 2\n", "? [a]\n: 1\n", "a: 1\n---\nb: 2\n", "a: 1\na: 2\n",
])
def test_what_the_event_reader_leaves_to_pyyaml(text):
    with pytest.raises(cases_read._SlowPath):
        cases_read._read_yaml(text)


def _variants(raw: dict, draw) -> dict:
    """``raw`` with one key dropped, added or given another value, somewhere inside."""
    raw = copy.deepcopy(raw)
    spots = [raw]
    stack = [raw]
    while stack:
        node = stack.pop()
        for child in (node.values() if isinstance(node, dict) else node):
            if isinstance(child, (dict, list)):
                spots.append(child)
                stack.append(child)
    spot = draw(st.sampled_from(spots))
    value = draw(_documents)
    if isinstance(spot, dict):
        keys = sorted(spot, key=str)
        action = draw(st.sampled_from(["drop", "add", "set"] if keys else ["add"]))
        if action == "drop":
            del spot[draw(st.sampled_from(keys))]
        elif action == "add":
            spot[draw(st.text(max_size=8) | st.integers(0, 30))] = value
        else:
            spot[draw(st.sampled_from(keys))] = value
    elif spot:
        spot[draw(st.integers(0, len(spot) - 1))] = value
    else:
        spot.append(value)
    return raw


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_the_compiled_schema_checks_agree_with_jsonschema(data):
    _full, by_kind = cases_schema._case_validators()
    file_check, fast = cases_schema._fast_checks()
    raws = _suite_raws()
    raw = _variants(data.draw(st.sampled_from(raws)), data.draw)
    kind = raw.get("kind")
    if isinstance(kind, str) and kind in by_kind:
        assert fast[kind](raw) == by_kind[kind].is_valid(raw)
    top = {"format": data.draw(st.sampled_from([1, True, 1.0, "1"])), "cases": [raw]}
    if data.draw(st.booleans()):
        top[data.draw(st.sampled_from(["topic", "description", "extra"]))] = data.draw(_documents)
    assert file_check(top) == cases_schema._file_validator().is_valid(top)


def _suite_raws() -> list:
    if not _SUITE_RAWS:
        for path in cases_module.case_files():
            _SUITE_RAWS.extend(cases_read._compose(path.read_text())[1]["cases"])
    return _SUITE_RAWS


_SUITE_RAWS: list = []


def _outcome(f, *args):
    try:
        return f(*args)
    except Exception as exc:  # the error, compared by type and message
        return (type(exc), str(exc))


_counts = st.integers(0, 16) | st.sampled_from([-1, True, 2.0, "3", None])
_sides = st.fixed_dictionaries({}, optional={
    "points": st.dictionaries(st.integers(0, 25) | st.sampled_from(["6", True, 6.0]), _counts, max_size=8)
    | st.none(),
    "bar": _counts, "off": _counts, "extra": _counts})


def _board_forms():
    """Board forms: of valid positions (as written by to_dict, or sparse), then maybe
    with one side's value replaced, or arbitrary ones."""
    def written(position, sparse, change, side, value):
        form = position.to_dict()
        if sparse:
            for name in ("x", "o"):
                form[name] = {k: v for k, v in form[name].items() if v or k == "points"}
        if change:
            form[side] = value
        return form

    valid = st.builds(written, strategies.positions(), st.booleans(), st.booleans(), st.sampled_from(["x", "o"]),
                      _sides)
    arbitrary = st.builds(lambda on_roll, x, o: {"on_roll": on_roll, "x": x, "o": o},
                          st.sampled_from(["x", "o", "z"]), _sides, _sides)
    return valid | arbitrary | st.builds(lambda f: {**f, "xgid": "XGID=-"}, valid)


@settings(max_examples=200, deadline=None)
@given(value=_board_forms())
def test_the_fast_board_form_reader_agrees_with_position_from_dict(value):
    from conformance.model import Position

    fast = cases_positions._board_position(value)
    want = _outcome(Position.from_dict, value)
    if fast is not None:
        assert fast == want and (fast.x, fast.o) == (want.x, want.o)


def test_the_fast_board_form_reader_reads_the_bundled_positions():
    from conformance.model import Position

    read = 0
    for raw in _suite_raws():
        for value in (raw.get("position"), raw.get("expect", {}).get("position")):
            if isinstance(value, dict):
                fast = cases_positions._board_position(value)
                assert fast is None or fast == Position.from_dict(value)
                read += fast is not None
    assert read > 200


@settings(max_examples=150, deadline=None)
@given(example=st.sampled_from(["legal_plays", "play_check"]).flatmap(strategies.examples))
def test_the_fast_play_result_agrees_with_notation_to_position(example):
    from conformance.model import format_play, notation_to_position
    from reference_impl import legal_plays

    texts = [format_play(example.position, steps) for steps in legal_plays(example.position, example.dice).values()]
    if example.play:
        texts.append(example.play)
        texts.append(" ".join(reversed(example.play.split())))
    for text in texts:
        want = _outcome(notation_to_position, example.position, text)
        assert _outcome(cases_positions._play_result, example.position, text, {}) == want, text


# -- codec cases: the expectation is checked against the model (spec: format.refusal) -----------
CODEC = """\
format: 1
cases:
  - id: {id}
    title: A codec case with one thing wrong
    kind: codec
    spec: [format.match-id]
{body}
    provenance: {{source: test, verified_by: [reference]}}
"""


@pytest.mark.parametrize("name,body,line,fragment", [
    ("accepted-refusal", '    codec: gnubg_match_id\n    decode: "QYkqASAAIAAA"\n    expect: {refused: wrong_length}',
     8, "accepts this input"),
    ("other-reason", '    codec: gnubg_match_id\n    decode: "QYkqASAAIAA"\n    expect: {refused: not_base64}',
     9, "refuses this input as 'wrong_length'"),
    ("refusal-with-state", '    codec: gnubg_match_id\n    decode: "QYkqASAAIAA"\n    state: {on_roll: x}\n'
     '    expect: {refused: wrong_length}', 9, "a refusal case has no 'state'"),
    ("wrong-state", '    codec: gnubg_match_id\n    state: {on_roll: o, dice: [5, 2]}\n'
     '    expect: {gnubg_match_id: "QYkqASAAIAAA"}', 9, "on_roll is 'x', expected 'o'"),
    ("xgid-cube-as-value", '    codec: xgid\n    position: start\n    state: {cube: {value: 8, owner: x}}\n'
     '    expect: {xgid: "XGID=-b----E-C---eE---c-e----B-:8:1:1:00:0:0:0:0:10"}', 10, "cube is {'value': 256"),
])
def test_a_codec_case_that_the_model_contradicts_is_refused_at_its_line(tmp_path, name, body, line, fragment):
    suite = load_suite([write(tmp_path, name, CODEC.format(id="bg-QQQQ", body=body))])
    assert not suite.cases
    (err,) = suite.errors
    assert err.case_id == "bg-QQQQ" and err.line == line and fragment in err.message, str(err)


def test_a_match_id_in_the_position_must_agree_with_the_cube_written_beside_it(tmp_path):
    text = CODEC.format(id="bg-RRRR", body=(
        '    position: {gnubg_id: "4HPwATDgc/ABMA", match_id: "8AmgACAAIAAE"}\n'
        '    cube: {value: 2, owner: x}\n    action: {by: x, type: double}\n'
        '    expect: {allowed: false, reason: crawford-game}')).replace("kind: codec", "kind: cube_action")
    suite = load_suite([write(tmp_path, "mid", text)])
    (err,) = suite.errors
    assert err.case_id == "bg-RRRR" and "give it in one place" in err.message and err.line == 8, str(err)
