"""Loading case files: YAML -> schema -> semantic checks -> typed cases.

Every problem becomes a ``CaseError`` that names the file, the line, the case id
and what to change; a bad case never stops the other cases or files from
loading (DESIGN.md section 5).
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import jsonschema
import yaml

from conformance.model import (
    Cube,
    FalseHitMark,
    Match,
    ModelError,
    effective_rules,
    Position,
    decode_position_id,
    decode_xgid,
    encode_position_id,
    encode_xgid,
    notation_to_position,
    parse_dice,
    parse_play,
)

from . import resources

KIND_REQUIRES = {
    "legal_plays": "legal-plays",
    "play_check": "play-check",
    "apply_play": "apply-play",
    "codec": "codec.gnubg",
    "codec.xgid": "codec.xgid",
    "game_result": "game-result",
    "cube_action": "cube",
    "opening_roll": "opening-roll",
    "match_transition": "match",
    "perft": "perft",
}
CAPABILITIES = frozenset({
    "legal-plays", "play-check", "apply-play", "game-result", "cube", "match", "opening-roll",
    "codec.gnubg", "codec.xgid", "perft",
})
USER_SUFFIX = ".bgcase.yaml"


@dataclass(frozen=True)
class CaseError:
    """One problem in a case file: ``file`` (display path), ``line`` (1-based or 0
    when unknown), ``case_id`` (or None), ``message`` (what is wrong and the fix)."""

    file: str
    line: int
    case_id: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.case_id + ': ' if self.case_id else ''}{self.message}"


@dataclass
class Case:
    """A validated case. ``position`` is a Position; ``dice`` a 2-tuple or None;
    ``steps`` the play's moves as written (play_check, apply_play; a move may span several dice); ``expected``
    the parsed expectation (see ``_semantic``)."""

    id: str
    title: str
    kind: str
    spec: tuple[str, ...]
    level: str
    tags: tuple[str, ...]
    requires: tuple[str, ...]
    rules: dict
    file: str
    line: int
    position: Position | None
    dice: tuple[int, int] | None
    play: str | None
    steps: list[tuple[int, int]] | None
    expect: dict
    expected: Any
    provenance: dict
    raw: dict = field(repr=False)
    effective_rules: dict = field(default_factory=dict, repr=False)
    cube: Cube | None = None
    match: Match | None = None
    scenario: str = ""
    position_format: str = "board"

    @property
    def name(self) -> str:
        """The id, with the scenario in brackets when there is one: ``bg-7Q3K[swapped]``."""
        return f"{self.id}[{self.scenario}]" if self.scenario else self.id

    @property
    def nodeid(self) -> str:
        """``cases/<file>.yaml::<id>`` (with ``[scenario]``)."""
        return f"{self.file}::{self.name}"

    @property
    def section(self) -> str:
        """The spec section of the first anchor: ``move``, ``bar``, ``bearoff``..."""
        return self.spec[0].split(".", 1)[0]

    def request(self) -> dict:
        """The engine request for this case (a plain, JSON-able dict; DESIGN.md §6).

        ``rules`` carries every rule option, defaults filled in."""
        req: dict = {"kind": self.kind, "case": self.id, "rules": dict(self.effective_rules)}
        if self.position is not None:
            if self.position_format == "gnubg_id":
                req["position"] = {"gnubg_id": encode_position_id(self.position), "on_roll": self.position.on_roll}
            elif self.position_format == "xgid":
                req["position"] = {"xgid": encode_xgid(self.position)}
            else:
                req["position"] = self.position.to_wire()
        if self.dice is not None:
            req["dice"] = list(self.dice)
        if self.play is not None:
            req["play"] = self.play
            req["steps"] = [list(s) for s in self.steps or []]
        if self.kind == "codec":
            req["format"] = self.raw["codec"]
            req[self.raw["codec"]] = self.expected
        if self.cube is not None:
            req["cube"] = self.cube.to_dict()
        if self.match is not None:
            req["match"] = self.match.to_dict()
        if self.kind == "perft":
            req["roll_set"] = self.raw.get("roll_set", "all21")
            req["depths"] = sorted(self.expected)
        for key in ("on_roll", "moment", "action", "throws", "result"):
            if key in self.raw:
                req[key] = self.raw[key]
        return req


@dataclass
class Suite:
    """Loaded cases, the errors met, and the files read (display paths)."""

    cases: list[Case]
    errors: list[CaseError]
    files: list[str]
    content_hash: str

    def by_id(self) -> dict[str, Case]:
        return {c.id: c for c in self.cases}


# -- YAML with line numbers ----------------------------------------------------
class _CaseLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # LibYAML's parser when present
    """Safe loader with YAML 1.2 booleans (only true/false, so that ``off:`` and
    ``on:`` stay strings; YAML 1.1 would read them as False and True), and no
    silent duplicate keys (a key given twice is an error)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice (first at line {seen[key]}); keep one",
                    key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


_CaseLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_CaseLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def _compose(text: str):
    loader = _CaseLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return node, data


def _line_of(node, path: Iterable[Any]) -> int:
    """1-based line of the YAML node at ``path`` (keys and indexes), or of the
    deepest node reached."""
    line = node.start_mark.line + 1 if node is not None else 0
    for key in path:
        child = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if str(k.value) == str(key):
                    child = v
                    line = k.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            child = node.value[key]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


def _schema_message(err: jsonschema.ValidationError) -> str:
    path = "/".join(str(p) for p in err.absolute_path) or "case"
    if err.validator == "unevaluatedProperties" or err.validator == "additionalProperties":
        return f"at {path}: {err.message} (remove the key or fix its spelling)"
    if err.validator == "oneOf" and err.absolute_path and "position" in [str(p) for p in err.absolute_path]:
        return (f"at {path}: not a valid position: use 'start', {{on_roll, x: {{points, bar, off}},"
                f" o: {{...}}}} or {{gnubg_id: ...}}")
    return f"at {path}: {err.message}"


@functools.lru_cache(maxsize=None)
def _case_validators():
    """The validator of the case schema, and for each kind a flattened equivalent:
    the common properties plus that kind's branch, no other key allowed. Checking a
    case against its own kind's schema gives the same verdict as the full schema
    (whose if/then branches and unevaluatedProperties say exactly this), much faster."""
    schema = resources.case_schema()
    defs = schema["$defs"]
    full = jsonschema.Draft202012Validator({"$defs": defs, "$ref": "#/$defs/case"})
    case = defs["case"]
    by_kind = {}
    for branch in case["allOf"]:
        kind = branch["if"]["properties"]["kind"]["const"]
        then = branch["then"]
        by_kind[kind] = jsonschema.Draft202012Validator({
            "$defs": defs, "type": "object",
            "properties": {**case["properties"], **then.get("properties", {})},
            "required": list(dict.fromkeys(case["required"] + then.get("required", []))),
            "additionalProperties": False})
    return full, by_kind


def _best_errors(validator, instance) -> list[jsonschema.ValidationError]:
    errors = list(validator.iter_errors(instance))
    out = []
    for err in errors:
        best = jsonschema.exceptions.best_match([err]) if err.context else err
        out.append(best)
    return out


# -- loading ----------------------------------------------------------------------
def display_path(path: Path) -> str:
    """``cases/...`` for bundled files, the path as given otherwise."""
    path = Path(path)
    try:
        return path.resolve().relative_to(resources.data_root().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def load_file(path: Path, display: str | None = None) -> tuple[list[Case], list[CaseError]]:
    """Load one case file. Returns (cases, errors); never raises for bad content."""
    path = Path(path)
    shown = display or display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [CaseError(shown, 0, None, f"cannot read the file: {exc}")]
    try:
        node, data = _compose(text)
    except yaml.YAMLError as exc:
        # the context (e.g. the bracket left open) is where the fix goes, when known
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if getattr(exc, "context", None):
            problem = f"{problem} ({exc.context})"
        return [], [CaseError(shown, mark.line + 1 if mark else 0, None,
                              f"not valid YAML: {problem}; fix the syntax (indentation, quotes, colons)")]
    schema = resources.case_schema()
    if not isinstance(data, dict):
        return [], [CaseError(shown, 1, None, "a case file is a mapping with 'format: 1' and 'cases:'")]
    file_schema = {k: v for k, v in schema.items() if k != "$defs"}
    file_schema["properties"] = dict(file_schema["properties"], cases={"type": "array"})
    file_schema["$defs"] = schema["$defs"]
    errors: list[CaseError] = []
    for err in jsonschema.Draft202012Validator(file_schema).iter_errors(data):
        errors.append(CaseError(shown, _line_of(node, err.absolute_path), None, _schema_message(err)))
    if errors:
        return [], errors
    full_validator, by_kind = _case_validators()
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(data["cases"]):
        line = _line_of(node, ["cases", i])
        cid = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        kind = raw.get("kind") if isinstance(raw, dict) else None
        validator = by_kind.get(kind, full_validator) if isinstance(kind, str) else full_validator
        problems = sorted(_best_errors(validator, raw), key=lambda e: list(map(str, e.absolute_path)))
        # an unevaluated-key complaint is only news when nothing else is wrong
        # (a failing kind branch leaves its own keys unevaluated)
        real = [e for e in problems if e.validator != "unevaluatedProperties"
                and not (e.validator == "additionalProperties" and not e.absolute_path)]
        if real:
            problems = real
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
                errors.append(CaseError(shown, _line_of(node, ["cases", i, *path]), cid, message))
            continue
        if cid in seen:
            errors.append(CaseError(shown, line, cid, f"id used twice in this file (first at line {seen[cid]}); "
                                                      f"give one of them a fresh id (bgconf new-id)"))
            continue
        seen[cid] = line
        try:
            cases.append(_semantic(raw, shown, line))
        except _Problem as exc:
            errors.append(CaseError(shown, _line_of(node, ["cases", i, *exc.path]) or line, cid, exc.message))
    return cases, errors


class _Problem(Exception):
    def __init__(self, path: list, message: str):
        super().__init__(message)
        self.path, self.message = path, message


def _position(value, path) -> Position:
    try:
        return Position.from_dict(value)
    except ModelError as exc:
        raise _Problem(path, f"impossible position: {exc}") from None


def _check_hit_marks(position: Position, play: str) -> None:
    """Raise NotationError when a ``*`` marks a point where no blot is hit. A play
    that is physically impossible for another reason is left to the case (an
    illegal play may be the point of a play_check)."""
    try:
        notation_to_position(position, play)
    except FalseHitMark:
        raise
    except ModelError:
        pass


def _written_moves(play: str) -> list[tuple[int, int]]:
    steps = []
    for points, _marks in parse_play(play):
        steps.extend(zip(points, points[1:]))
    return steps


def _semantic(raw: dict, shown: str, line: int) -> Case:
    kind = raw["kind"]
    anchors = resources.spec_clauses()
    for j, anchor in enumerate(raw["spec"]):
        if anchors and anchor not in anchors:
            raise _Problem(["spec", j], f"unknown spec anchor {anchor!r}; anchors are defined in spec/rules.md")
    tags = resources.registered_tags()
    for j, tag in enumerate(raw.get("tags", [])):
        if tag not in tags:
            raise _Problem(["tags", j], f"tag {tag!r} is not registered; add it to cases/tags.yaml or fix it")
    if raw["id"] in resources.retired_ids():
        raise _Problem(["id"], f"id {raw['id']} is retired (cases/RETIRED); use bgconf new-id")
    default_need = KIND_REQUIRES["codec.xgid" if kind == "codec" and raw.get("codec") == "xgid" else kind]
    requires = tuple(raw.get("requires") or [default_need])
    for j, cap in enumerate(requires):
        if cap not in CAPABILITIES:
            raise _Problem(["requires", j], f"unknown capability {cap!r}; known: {', '.join(sorted(CAPABILITIES))}")
    try:
        rules = effective_rules(raw.get("rules"))
    except ModelError as exc:
        raise _Problem(["rules"], str(exc)) from None
    cube = match = None
    try:
        if kind in ("game_result", "cube_action"):
            cube = Cube.from_dict(raw.get("cube"))
    except ModelError as exc:
        raise _Problem(["cube"], f"impossible cube: {exc}") from None
    try:
        if kind in ("game_result", "cube_action", "opening_roll", "match_transition"):
            match = Match.from_dict(raw.get("match"))
    except ModelError as exc:
        raise _Problem(["match"], f"impossible match state: {exc}") from None
    if cube is not None:
        if rules["max_cube"] is not None and cube.value > rules["max_cube"]:
            raise _Problem(["cube", "value"], f"cube value {cube.value} is above max_cube {rules['max_cube']}")
        if cube.owner == "center" and cube.value > 1:
            limit = 2 ** rules["automatic_doubles"] if match is None or match.money else 1
            if cube.value > limit:
                raise _Problem(["cube"], f"a centred cube at {cube.value} needs that many automatic doubles"
                                         f" (rules: automatic_doubles), in money play; a turned cube has an owner")
    if match is not None and match.crawford and not rules["crawford"]:
        raise _Problem(["match", "crawford"], "a Crawford game with the rule option crawford: false; drop one")
    position = _position(raw["position"], ["position"]) if "position" in raw else None
    dice = None
    if "dice" in raw:
        dice = parse_dice(raw["dice"])
    play = raw.get("play")
    steps = None
    expect = raw["expect"]
    expected: Any = None
    try:
        if play is not None:
            steps = _written_moves(play)
            if "*" in play:
                _check_hit_marks(position, play)
    except ModelError as exc:
        raise _Problem(["play"], f"bad play notation: {exc}") from None
    if kind in ("legal_plays", "play_check", "apply_play") and 15 in (position.x[0], position.o[0]):
        raise _Problem(["position"], "the game is over in this position (a side has borne off all 15):"
                                     " nobody plays; use a game_result case")
    if kind == "legal_plays":
        expected = _expected_plays(position, expect)
    elif kind == "apply_play":
        try:
            notation_to_position(position, play)
        except ModelError as exc:
            raise _Problem(["play"], f"the play cannot be applied to the position: {exc}") from None
        expected = _position(expect["position"], ["expect", "position"])
    elif kind == "play_check":
        if expect.get("legal") and "reason" in expect:
            raise _Problem(["expect", "reason"], "a legal play has no reason; remove 'reason'")
        if not expect.get("legal") and "reason" not in expect:
            raise _Problem(["expect"], "an illegal play needs 'reason' (see spec/schema/case.schema.json)")
        expected = (expect["legal"], expect.get("reason"))
    elif kind == "game_result":
        if sorted(position.side(n)[0] for n in ("x", "o"))[1] != 15 or position.x[0] == position.o[0] == 15:
            raise _Problem(["position"], "a finished game needs exactly one side with all 15 checkers borne"
                                         " off (off: 15)")
        expected = dict(expect)
    elif kind == "cube_action":
        if expect["allowed"] != ("reason" not in expect):
            raise _Problem(["expect"], "an allowed action has no reason; a refused one needs 'reason'")
        if expect["allowed"] and ("game_over" in expect) == ("cube" in expect or "moment" in expect):
            raise _Problem(["expect"], "an allowed action gives either 'game_over' or the new 'moment' and 'cube'")
        if expect["allowed"] and "game_over" not in expect and not ("cube" in expect and "moment" in expect):
            raise _Problem(["expect"], "give both the new 'moment' and the new 'cube'")
        expected = dict(expect)
    elif kind == "opening_roll":
        throws = raw["throws"]
        for j, (a, b) in enumerate(throws):
            last = j == len(throws) - 1
            if last and a == b:
                raise _Problem(["throws", j], f"the last throw [{a}, {b}] is a tie: ties are thrown again")
            if not last and a != b:
                raise _Problem(["throws", j], f"throw [{a}, {b}] already decides who starts; nothing follows it")
        expected = dict(expect)
    elif kind == "match_transition":
        expected = dict(expect)
    elif kind == "perft":
        expected = {int(d): n for d, n in expect["counts"].items()}
    elif kind == "codec":
        fmt = raw["codec"]
        if fmt not in expect:
            raise _Problem(["expect"], f"a {fmt} codec case expects {{{fmt}: ...}}")
        expected = expect[fmt]
        try:
            decoded = (decode_position_id(expected, position.on_roll) if fmt == "gnubg_id"
                       else decode_xgid(expected))
        except ModelError as exc:
            raise _Problem(["expect", fmt], str(exc)) from None
        if decoded != position:
            raise _Problem(["expect", fmt], f"{expected} decodes to {decoded}, not to the case's position")
    return Case(
        id=raw["id"], title=raw["title"], kind=kind, spec=tuple(raw["spec"]),
        level=raw.get("level", "must"), tags=tuple(raw.get("tags", [])), requires=requires,
        rules=dict(raw.get("rules") or {}), file=shown, line=line, position=position, dice=dice,
        play=play, steps=steps, expect=expect, expected=expected,
        provenance=raw["provenance"], raw=raw, effective_rules=rules, cube=cube, match=match)


@dataclass(frozen=True)
class ExpectedPlays:
    """A legal_plays expectation: ``exact`` (position -> notation) when the full set
    is given, else ``count`` plus ``includes`` and ``excludes`` (position -> notation)."""

    exact: dict | None
    count: int | None
    includes: dict
    excludes: dict


def _plays_map(position: Position, plays: list, key: str) -> dict:
    out: dict = {}
    for j, text in enumerate(plays):
        try:
            result = notation_to_position(position, text)
        except ModelError as exc:
            raise _Problem(["expect", key, j], f"expected play {text!r} cannot be applied: {exc}") from None
        if result in out:
            raise _Problem(["expect", key, j],
                           f"{text!r} and {out[result]!r} are the same play (same resulting position);"
                           f" list it once")
        out[result] = text
    return out


def _expected_plays(position: Position, expect: dict) -> ExpectedPlays:
    exact = None
    if "plays" in expect:
        exact = _plays_map(position, expect["plays"], "plays")
        if not exact:
            exact = {position.passed(): "none"}
        if "count" in expect and expect["count"] != len(exact):
            raise _Problem(["expect", "count"], f"count {expect['count']} but {len(exact)} plays are listed")
    includes = _plays_map(position, expect.get("includes", []), "includes")
    excludes = _plays_map(position, expect.get("excludes", []), "excludes")
    both = set(includes) & set(excludes)
    if both:
        raise _Problem(["expect"], f"a play is both included and excluded: {includes[next(iter(both))]!r}")
    return ExpectedPlays(exact, expect.get("count"), includes, excludes)


def case_files(paths: Iterable[Path] | None = None) -> list[Path]:
    """The case files under ``paths`` (files or directories), or the bundled suite.

    In the bundled ``cases/`` directory: every ``*.yaml`` but ``tags.yaml``; in
    any other directory: every ``*.bgcase.yaml`` (as pytest collects them), so
    that other YAML files beside them are left alone. A file named explicitly is
    always read. Sorted per directory.
    """
    bundled = resources.cases_dir().resolve()
    roots = list(paths) if paths else [bundled]
    files: list[Path] = []
    for root in roots:
        root = Path(root)
        if root.is_dir():
            pattern = "*.yaml" if root.resolve() == bundled else "*" + USER_SUFFIX
            files.extend(p for p in sorted(root.rglob(pattern)) if p.name != "tags.yaml")
        else:
            files.append(root)
    return files


def load_suite(paths: Iterable[Path] | None = None) -> Suite:
    """Load every case file (see ``case_files``); check ids are unique across files."""
    files = case_files(paths)
    cases: list[Case] = []
    errors: list[CaseError] = []
    digest = hashlib.sha256()
    first: dict[str, Case] = {}
    for path in files:
        if not path.exists():
            errors.append(CaseError(path.as_posix(), 0, None, "no such file or directory"))
            continue
        digest.update(path.read_bytes())
        loaded, errs = load_file(path)
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
    return Suite(cases, errors, [display_path(f) for f in files], digest.hexdigest())
