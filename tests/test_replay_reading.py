"""bgconf replay on records edited the ways real ones differ: the side of an action is its column
(never a name), an unreadable play is an illegal event of its game, a file is one match, and the
command's small promises (cases for every illegal play, shards, encodings, counts)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.cli import main
from conformance.harness.record_judge import judge_record
from conformance.harness.record_reader import read_record

MATCHES = Path(__file__).parent / "data" / "matches"
ALL = sorted(p.name for p in MATCHES.glob("*.mat"))


def judged(path: Path):
    return judge_record(read_record(path))


def verdict(r) -> tuple:
    """What a judgement says, where and about whom: the counts and every illegal event and error."""
    return ((r.games, r.plays, r.no_plays, r.cube_actions, r.unjudged),
            [(e.level, e.game, e.move, e.side, e.line, e.kind, e.reason, e.anchor) for e in r.events
             if e.level in ("illegal", "error")], r.results)


def _names(text: str) -> tuple[str, str]:
    return (re.search(r'\[Player 1 "([^"]+)"\]', text)[1], re.search(r'\[Player 2 "([^"]+)"\]', text)[1])


def _edit(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (MATCHES / name).read_text(encoding="utf-8")
    assert old in text
    out = tmp_path / name
    out.write_text(text.replace(old, new, 1), encoding="utf-8")
    return out


# -- 1. sides by column ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_two_players_with_one_name_change_no_verdict(tmp_path, name):
    text = (MATCHES / name).read_text(encoding="utf-8")
    p1, p2 = _names(text)
    same = tmp_path / name
    same.write_text(text.replace(p2, p1), encoding="utf-8")
    assert verdict(judged(same)) == verdict(judged(MATCHES / name))


@pytest.mark.parametrize("name", ["3WNK_g1Z-PLsh_HyvQ5j4a.mat", "5nqfGw9bWG3deTaU.mat"])
def test_a_name_spelt_otherwise_or_swapped_on_a_score_line_changes_no_verdict(tmp_path, name):
    text = (MATCHES / name).read_text(encoding="utf-8")
    p1, p2 = _names(text)
    lines = text.splitlines(keepends=True)
    scores = [i for i, ln in enumerate(lines) if ln.lstrip().startswith(p1 + ":") and p2 + ":" in ln]
    assert len(scores) >= 3
    lines[scores[1]] = lines[scores[1]].replace(p1, p1[::-1].upper(), 1)  # misspelt in game 2
    a, b = lines[scores[2]].split(p2 + ":")  # game 3: the two names exchanged, the columns kept
    lines[scores[2]] = a.replace(p1 + ":", p2 + ":", 1) + p1 + ":" + b
    edited = tmp_path / name
    edited.write_text("".join(lines), encoding="utf-8")
    assert verdict(judged(edited)) == verdict(judged(MATCHES / name))


NAMES = st.text(st.characters(whitelist_categories=("L", "N"), whitelist_characters=" _-.,'"),
                min_size=1, max_size=24).map(str.strip).filter(bool)


@settings(max_examples=25, deadline=None)
@given(left=NAMES, right=NAMES, same=st.booleans())
def test_no_name_on_the_score_lines_or_in_the_header_changes_a_verdict(tmp_path_factory, left, right, same):
    name = "baR-U643iUDpvzTC.mat"
    text = (MATCHES / name).read_text(encoding="utf-8")
    p1, p2 = _names(text)
    right = left if same else right
    lines = []
    for ln in text.splitlines(keepends=True):
        if ln.lstrip().startswith(p1 + ":") and p2 + ":" in ln:  # a score line: each column's label replaced
            a, b = ln.split(p2 + ":")
            ln = a.replace(p1 + ":", left + ":", 1) + right + ":" + b
        lines.append(ln.replace(f'"{p1}"', f'"{left}"').replace(f'"{p2}"', f'"{right}"'))
    edited = tmp_path_factory.mktemp("names") / name
    edited.write_text("".join(lines), encoding="utf-8")
    assert verdict(judged(edited)) == verdict(judged(MATCHES / name))


# -- 3. an unreadable play is an illegal event, and the game goes on ------------------------------------
def test_a_backwards_step_is_an_illegal_play_and_the_game_is_followed_as_written(tmp_path):
    path = _edit(tmp_path, "eXBNG5wZHS5Alu3P.mat", "  3) 56: 24/18 18/13", "  3) 56: 24/18 13/18")
    r = judged(path)
    illegal = [e for e in r.events if e.level == "illegal"]
    first = illegal[0]
    assert (first.game, first.move, first.side, first.line) == (1, 3, "x", 19)
    assert (first.kind, first.reason, first.anchor) == ("play", "backward-move", "move.direction")
    assert first.recorded == "24/18 13/18" and first.position is not None
    # followed from where the written moves lead: x has one checker fewer on 13 from then on
    assert any(e.game == 1 and e.move > 3 for e in illegal)
    assert r.games == 3 and r.errors == 0


def test_a_roll_that_is_not_two_dice_is_an_illegal_play(tmp_path):
    path = _edit(tmp_path, "eXBNG5wZHS5Alu3P.mat", "  3) 56: 24/18 18/13", "  3) 73: 13/6 13/10")
    r = judged(path)
    first = [e for e in r.events if e.level == "illegal"][0]
    assert (first.game, first.move, first.side, first.reason, first.anchor) == (1, 3, "x", "not-a-roll",
                                                                                  "record.events")
    assert r.errors == 0


def test_moves_that_cannot_be_made_leave_the_rest_of_the_game_counted_unjudged(tmp_path, capsys):
    # 20/13: x has no checker on 20, so the position after the play is not determined
    path = _edit(tmp_path, "eXBNG5wZHS5Alu3P.mat", "  3) 56: 24/18 18/13", "  3) 56: 24/18 20/13")
    r = judged(path)
    game1 = read_record(MATCHES / "eXBNG5wZHS5Alu3P.mat").games[0].events
    after = [e for e in game1 if e.line > 19 or (e.line == 19 and e.side == "o")]
    assert r.unjudged == len(after) > 20
    [note] = [e for e in r.events if e.kind == "unjudged"]
    assert (note.game, note.move, note.line) == (1, 3, 19)
    main(["replay", "--quiet", str(path)])
    assert f"{r.unjudged} unjudged" in capsys.readouterr().out


# -- 4. a file is one match -------------------------------------------------------------------------
def _two_matches(tmp_path: Path) -> tuple[Path, int]:
    first = (MATCHES / "MYdvw1qGuyaRUH__.mat").read_text(encoding="utf-8")
    second = (MATCHES / "baR-U643iUDpvzTC.mat").read_text(encoding="utf-8")
    path = tmp_path / "two.mat"
    path.write_text(first.rstrip("\n") + "\n" + second, encoding="utf-8")
    return path, len(first.splitlines()) + 1


def test_two_matches_in_one_file_are_a_file_error_at_the_second(tmp_path, capsys):
    path, line = _two_matches(tmp_path)
    r = judged(path)
    [e] = [e for e in r.events if e.level == "error"]
    assert e.line == line and e.game is None and "second match" in e.message
    alone = judged(MATCHES / "MYdvw1qGuyaRUH__.mat")
    assert (r.games, r.plays, r.illegal) == (alone.games, alone.plays, 0)
    assert main(["replay", "--quiet", str(path)]) == 3
    assert f"{path}:{line}" in capsys.readouterr().err


def test_pytest_node_ids_are_unique_and_each_item_fails_only_with_its_own_game(pytester, tmp_path):
    path, _line = _two_matches(tmp_path)
    text = (MATCHES / "5nqfGw9bWG3deTaU.mat").read_text(encoding="utf-8")
    renumbered = pytester.path / "renumbered.mat"  # game 2 written as a second "Game 1"
    renumbered.write_text(re.sub(r"(?m)^ Game 2$", " Game 1", text, count=1), encoding="utf-8")
    shutil.copy(path, pytester.path / "two.mat")
    result = pytester.runpytest("-p", "no:cacheprovider", "--bg-replay", str(pytester.path), "--co", "-q")
    ids = [ln for ln in result.stdout.str().splitlines() if "::" in ln]
    assert len(ids) == len(set(ids)) == 3 + 1 + 6
    assert any(i.endswith("two.mat::file") for i in ids)
    assert sum("renumbered.mat::game-1-line-" in i for i in ids) == 2
    run = pytester.runpytest("-p", "no:cacheprovider", "--bg-replay", str(pytester.path), "-q", "-rf")
    run.assert_outcomes(passed=8, failed=2)
    failed = [ln for ln in run.stdout.str().splitlines() if ln.startswith("FAILED")]
    assert any("two.mat::file" in f for f in failed)
    assert any("renumbered.mat::game-1-line-13" in f for f in failed)  # the illegal play of game 1 only


# -- 5. the small ones ------------------------------------------------------------------------------
def test_write_cases_writes_a_case_for_an_illegal_no_play(tmp_path, capsys):
    from conformance.cases import load_file
    from conformance.harness.compare import compare
    from conformance.engines.adapters.reference import ReferenceEngine

    path = _edit(tmp_path, "eXBNG5wZHS5Alu3P.mat", "  3) 56: 24/18 18/13", "  3) 56:")
    out = tmp_path / "found.bgcase.yaml"
    assert main(["replay", "--quiet", "--write-cases", str(out), str(path)]) == 1
    r = judged(path)
    [first] = [e for e in r.events if e.level == "illegal"][:1]
    assert (first.kind, first.reason, first.anchor) == ("no-play", "must-use-more-dice", "move.maximum-dice")
    cases, errors = load_file(out)
    assert not errors
    assert len(cases) == sum(e.kind in ("play", "no-play") for e in r.events if e.level == "illegal") >= 1
    engine = ReferenceEngine()
    assert all(compare(c, engine.run(c.request())).status == "pass" for c in cases)
    assert any(c.request().get("steps") == [] for c in cases)


def test_an_empty_replay_shard_is_refused_and_shards_follow_the_sorted_order(tmp_path, capsys):
    one = MATCHES / "MYdvw1qGuyaRUH__.mat"
    assert main(["replay", "--quiet", "--shard", "2/2", str(one)]) == 2
    assert "--shard 2/2" in capsys.readouterr().err
    named = [MATCHES / n for n in reversed(ALL)]
    report = tmp_path / "r.jsonl"
    main(["replay", "--quiet", "--shard", "1/2", "--report", str(report), *map(str, named)])
    files = [json.loads(ln)["file"] for ln in report.read_text().splitlines() if '"type": "file"' in ln]
    assert files == [str(MATCHES / n) for n in ALL[::2]]


def test_encodings_utf16_is_read_and_undecodable_bytes_are_named(tmp_path, capsys):
    source = MATCHES / "MYdvw1qGuyaRUH__.mat"
    text = source.read_text(encoding="utf-8")
    marked = tmp_path / "marked.mat"
    marked.write_bytes(text.encode("utf-16"))  # with its byte-order mark
    assert verdict(judged(marked))[:2] == verdict(judged(source))[:2]
    unmarked = tmp_path / "unmarked.mat"
    unmarked.write_bytes(text.encode("utf-16-le"))
    assert main(["replay", "--quiet", str(unmarked)]) == 3
    assert "UTF-16" in capsys.readouterr().err
    latin = tmp_path / "latin.mat"
    latin.write_bytes(text.replace("Game 2", "Game 2").encode("utf-8").replace(b"Jade1", b"J\xe9de1", 1))
    assert main(["replay", "--quiet", str(latin)]) == 3
    err = capsys.readouterr().err
    assert "0xe9" in err and f"{latin}:5" in err and "Traceback" not in err


def test_counts_are_printed_with_their_plurals(capsys):
    main(["replay", "--quiet", str(MATCHES / "5nqfGw9bWG3deTaU.mat")])
    out = capsys.readouterr().out
    assert "1 illegal event\n" in out and "1 file: 6 games" in out and "1 illegal event," in out
