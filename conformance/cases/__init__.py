"""Loading case files: YAML -> schema -> semantic checks -> typed cases.

Every problem becomes a ``CaseError`` that names the file, the line, the case id
and what to change; a bad case never stops the other cases or files from
loading (the format: spec/schema/case.schema.json).

Input is bounded: a file over the size limit (``max_file_bytes``) is not read,
and YAML anchors and aliases are refused on the parser's events, before anything
is built from them. Files are read one at a time, straight from the parser's
events into plain data (no node tree unless an error needs a line number), and
only the cases are kept.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import itertools
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import jsonschema
import yaml

from conformance.model import (
    CHECKERS,
    MATCH_ID_FIELDS,
    XGID_FIELDS,
    CodecError,
    Cube,
    IdState,
    FalseHitMark,
    Match,
    ModelError,
    effective_rules,
    FibsBoard,
    Position,
    decode_match_id,
    decode_position_id,
    decode_xgid_state,
    decode_fibs_board,
    encode_fibs_board,
    fibs_state_differences,
    encode_position_id,
    encode_state_dict,
    encode_xgid,
    notation_to_position,
    parse_dice,
    parse_event,
    parse_play,
    read_position,
    written_steps,
)
from conformance.model.play import _move as _move_checker

from conformance.cases import resources

#: The characters of a case id after ``bg-`` (no 0, 1, I, O: they read alike).
ID_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"

KIND_REQUIRES = {
    "legal_plays": "legal-plays",
    "play_check": "play-check",
    "apply_play": "apply-play",
    "codec": "codec.gnubg",
    "codec.xgid": "codec.xgid",
    "codec.gnubg_match_id": "codec.gnubg-match-id",
    "codec.fibs_board": "codec.fibs",
    "game_result": "game-result",
    "cube_action": "cube",
    "opening_roll": "opening-roll",
    "match_transition": "match",
    "perft": "perft",
    "game_record": "game-record",
}
CAPABILITIES = frozenset({
    "legal-plays", "play-check", "apply-play", "game-result", "cube", "match", "opening-roll",
    "codec.gnubg", "codec.xgid", "codec.gnubg-match-id", "codec.fibs", "perft", "game-record", "chosen-play",
})
#: The state fields each codec format carries and compares (spec: format.match-id, format.xgid).
CODEC_FIELDS = {"gnubg_match_id": MATCH_ID_FIELDS, "xgid": XGID_FIELDS}
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
    games: tuple = ()
    state: IdState | None = None

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
        """The engine request for this case (a plain, JSON-able dict; spec/protocol.md, run).

        ``rules`` carries every rule option, defaults filled in."""
        req: dict = {"kind": self.kind, "case": self.id, "rules": dict(self.effective_rules)}
        if self.position is not None:
            if self.position_format == "gnubg_id":
                req["position"] = {"gnubg_id": encode_position_id(self.position), "on_roll": self.position.on_roll}
            elif self.position_format == "xgid":
                req["position"] = {"xgid": encode_xgid(self.position)}
            elif self.position_format == "fibs_board":
                board = FibsBoard(self.position, self.position.on_roll, dice=self.dice)
                req["position"] = {"fibs_board": encode_fibs_board(board)}
            else:
                req["position"] = self.position.to_wire()
        if self.dice is not None:
            req["dice"] = list(self.dice)
        if self.play is not None:
            req["play"] = self.play
            req["steps"] = [list(s) for s in self.steps or []]
        if self.kind == "codec":
            fmt = req["format"] = self.raw["codec"]
            if "decode" in self.raw:
                req["decode"] = self.raw["decode"]
            elif "encode" in self.raw:
                req["encode"] = self.raw["encode"]
            else:
                req[fmt] = self.expected
                if self.state is not None:
                    req["state"] = self.state.to_dict()
                if "fibs" in self.raw:
                    req["fibs"] = self.raw["fibs"]
        if self.cube is not None:
            req["cube"] = self.cube.to_dict()
        if self.match is not None:
            req["match"] = self.match.to_dict()
        if self.kind == "game_record":
            req["games"] = [game.wire() for game in self.games]
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
def _make_loader(base: type) -> type:
    """A safe loader on ``base`` (LibYAML's CSafeLoader when present, else the
    pure-Python SafeLoader) with YAML 1.2 booleans (only true/false, so that
    ``off:`` and ``on:`` stay strings; YAML 1.1 would read them as False and True),
    and no silent duplicate keys (a key given twice is an error)."""

    class Loader(base):
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

    Loader.__name__ = Loader.__qualname__ = f"_CaseLoader[{base.__name__}]"
    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    return Loader


_PyCaseLoader = _make_loader(yaml.SafeLoader)
_CaseLoader = _make_loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # LibYAML's parser when present

ALIAS_MESSAGE = "case files may not use YAML anchors/aliases; write the value out"
# Both LibYAML and PyYAML read an anchor or alias name as [0-9A-Za-z_-]+ right after
# '&' or '*' (anything else is a syntax error): text without this has neither.
_MAYBE_ANCHOR = re.compile(r"[&*][0-9A-Za-z_-]")
_MAYBE_ANCHOR_BYTES = re.compile(rb"[&*][0-9A-Za-z_-]")


class _AliasRefused(Exception):
    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


def _refuse_anchors(loader, first_anchor_line: int | None = None) -> None:
    """Read the rest of ``loader``'s events (nothing is composed) and raise
    _AliasRefused at the first alias, or at the first anchor when there is no alias."""
    while not loader.check_event(yaml.StreamEndEvent):
        event = loader.get_event()
        if isinstance(event, yaml.AliasEvent):
            raise _AliasRefused(event.start_mark.line + 1)
        if first_anchor_line is None and getattr(event, "anchor", None) is not None:
            first_anchor_line = event.start_mark.line + 1
    if first_anchor_line is not None:
        raise _AliasRefused(first_anchor_line)


def _check_no_anchors(text: str, loader_class: type | None = None) -> None:
    """Raise _AliasRefused if ``text`` has a YAML anchor or alias (found on the parser's
    events, so that nothing is expanded), yaml.YAMLError for a syntax error met first."""
    if not (_MAYBE_ANCHOR_BYTES if isinstance(text, bytes) else _MAYBE_ANCHOR).search(text):
        return
    loader = (loader_class or _CaseLoader)(text)
    try:
        _refuse_anchors(loader)
    finally:
        loader.dispose()


def _compose(text: str, loader_class: type | None = None):
    """(root node, data) of ``text`` with PyYAML's composer and constructor. Call
    ``_check_no_anchors`` first: an alias here is a shared node, and a nest of them
    a structure exponentially larger than the text."""
    loader = (loader_class or _CaseLoader)(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return node, data


def _compose_node(text: str, loader_class: type | None = None):
    loader = (loader_class or _CaseLoader)(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


class _SlowPath(Exception):
    """Something the event reader leaves to PyYAML's composer and constructor
    (an explicit tag, a key given twice, a complex key, a timestamp, several documents...)."""


_STR_TAG = "tag:yaml.org,2002:str"
_FAST_TAGS = frozenset({_STR_TAG, "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                        "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"})
_PLAIN_LIMIT = 50_000


@functools.lru_cache(maxsize=None)
def _plain_values(loader_class: type) -> tuple[dict, Any]:
    """A cache of plain scalar text -> value (resolved and constructed exactly as
    ``loader_class`` does), and the loader instance that fills it."""
    return {}, loader_class("")


def _plain(value: str, loader_class: type) -> Any:
    cache, helper = _plain_values(loader_class)
    try:
        return cache[value]
    except KeyError:
        pass
    tag = helper.resolve(yaml.ScalarNode, value, (True, False))
    if tag not in _FAST_TAGS:
        raise _SlowPath(tag)
    out = value if tag == _STR_TAG else helper.yaml_constructors[tag](helper, yaml.ScalarNode(tag, value))
    if len(cache) >= _PLAIN_LIMIT:
        cache.clear()
    cache[value] = out
    return out


def _read_yaml(text: str | bytes, loader_class: type | None = None) -> tuple[Any, list[int]]:
    """The data of a one-document YAML text, built straight from the parser's events
    (no node tree: faster, and memory for the data only), and the 1-based line of
    each item of the top-level ``cases`` sequence.

    Raises _AliasRefused at an alias (or an anchor), yaml.YAMLError for a syntax
    error, and _SlowPath for what only PyYAML's constructor handles; then
    ``_compose`` gives the same data, or the constructor's error."""
    loader_class = loader_class or _CaseLoader
    loader = loader_class(text)
    Scalar, MappingStart, SequenceStart = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent
    MappingEnd, SequenceEnd = yaml.MappingEndEvent, yaml.SequenceEndEvent
    cache, _helper = _plain_values(loader_class)
    get, intern = loader.get_event, sys.intern
    try:
        get()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            return None, []
        get()  # document start
        if not loader.check_event(MappingStart, SequenceStart):
            raise _SlowPath("a document that is not a mapping or a sequence")
        root: list = []
        container: Any = root  # the mapping or sequence being filled
        key: Any = _SEQ        # _SEQ in a sequence, else the mapping's pending key (_NO_KEY: none yet)
        stack: list = []       # (container, key) of the enclosing collections
        case_lines: list[int] = []
        cases_list = None
        while True:
            event = get()
            kind = event.__class__
            if kind is Scalar:
                if event.anchor is not None:
                    _refuse_anchors(loader, event.start_mark.line + 1)
                if event.tag is not None:
                    raise _SlowPath(event.tag)
                value = event.value
                if event.implicit[0]:
                    try:
                        value = cache[value]
                    except KeyError:
                        value = _plain(value, loader_class)
                else:  # one copy of each key, play, name... in memory
                    value = intern(value)
                if key is _SEQ:
                    if container is cases_list:
                        case_lines.append(event.start_mark.line + 1)
                    container.append(value)
                elif key is _NO_KEY:
                    if value in container:
                        raise _SlowPath("a key given twice")
                    key = value
                else:
                    container[key] = value
                    key = _NO_KEY
            elif kind is MappingEnd or kind is SequenceEnd:
                done = container
                if key is _SEQ and done is not cases_list:
                    done = done.copy()  # no room left for appends: a list is kept as long as its case
                container, key = stack.pop()
                if key is _SEQ:
                    container.append(done)
                else:
                    container[key] = done
                    key = _NO_KEY
                if not stack:
                    break
            elif kind is MappingStart or kind is SequenceStart:
                if event.anchor is not None:
                    _refuse_anchors(loader, event.start_mark.line + 1)
                if event.tag is not None:
                    raise _SlowPath(event.tag)
                if key is _NO_KEY:
                    raise _SlowPath("a complex key")
                if container is cases_list:
                    case_lines.append(event.start_mark.line + 1)
                stack.append((container, key))
                if kind is MappingStart:
                    container, key = {}, _NO_KEY
                else:
                    new: list = []
                    if len(stack) == 2 and key == "cases" and isinstance(container, dict):
                        cases_list = new
                    container, key = new, _SEQ
            elif kind is yaml.AliasEvent:
                raise _AliasRefused(event.start_mark.line + 1)
            else:  # not expected inside a document
                raise _SlowPath(kind.__name__)
        get()  # document end
        if not loader.check_event(yaml.StreamEndEvent):
            raise _SlowPath("more than one document")
        return root[0], case_lines
    finally:
        loader.dispose()


_NO_KEY = object()
_SEQ = object()


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


class _Unsupported(Exception):
    """A schema keyword the fast checker does not implement (jsonschema then decides)."""


_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples",
                          "deprecated", "readOnly", "writeOnly"})


def _json_equal(a, b) -> bool:
    """Equality as JSON Schema's enum and const mean it: true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    return a == b


def _is_number(x) -> bool:
    return x.__class__ is int or x.__class__ is float or (
        isinstance(x, (int, float)) and not isinstance(x, bool))


def _is_integer(x) -> bool:
    return x.__class__ is int or (isinstance(x, int) and not isinstance(x, bool)) or (
        isinstance(x, float) and x.is_integer())


_TYPE_CHECKS = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": _is_number,
    "integer": _is_integer,
}


def _all_of(checks: list):
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        a, b = checks
        return lambda x: a(x) and b(x)
    checks = tuple(checks)

    def check(x):
        for f in checks:
            if not f(x):
                return False
        return True
    return check


def _object_check(props: dict, extra, closed: bool, required: tuple):
    """properties, additionalProperties (``closed``: false) and required in one pass."""
    def check(x):
        if not isinstance(x, dict):
            return True
        for k, v in x.items():
            f = props.get(k) if isinstance(k, str) else None
            if f is None:
                if closed or (extra is not None and not extra(v)):
                    return False
            elif not f(v):
                return False
        for k in required:
            if k not in x:
                return False
        return True
    return check


def _compile(schema, defs: dict, refs: dict):
    """A predicate instance -> bool equivalent to draft 2020-12 validation against
    ``schema`` for the keywords the case schema uses (``$ref`` only to ``#/$defs/``).
    Raises _Unsupported for any other keyword."""
    if schema is True:
        return lambda x: True
    if schema is False:
        return lambda x: False
    checks = []
    if any(k in schema for k in ("properties", "additionalProperties", "required")):
        if "patternProperties" in schema:
            raise _Unsupported("patternProperties")
        props = {k: _compile(v, defs, refs) for k, v in schema.get("properties", {}).items()}
        more = schema.get("additionalProperties", True)
        extra = None if more is True else _compile(more, defs, refs)
        checks.append(_object_check(props, extra, more is False, tuple(schema.get("required", ()))))
    for key, value in schema.items():
        if key in _ANNOTATIONS or key in ("then", "else", "$defs", "properties", "additionalProperties",
                                          "required"):
            continue
        if key == "type":
            names = [value] if isinstance(value, str) else list(value)
            tests = [_TYPE_CHECKS[n] for n in names]
            checks.append(tests[0] if len(tests) == 1 else (lambda x, t=tests: any(f(x) for f in t)))
        elif key == "$ref":
            if not isinstance(value, str) or not value.startswith("#/$defs/") or value[8:] not in defs:
                raise _Unsupported(value)
            name = value[8:]
            if name not in refs:
                holder: list = []
                refs[name] = holder
                holder.append(_compile(defs[name], defs, refs))
            holder = refs[name]
            checks.append(lambda x, h=holder: h[0](x))
        elif key == "propertyNames":
            f = _compile(value, defs, refs)
            checks.append(lambda x, f=f: not isinstance(x, dict) or all(f(k) for k in x))
        elif key in ("minProperties", "maxProperties"):
            low = key == "minProperties"
            checks.append(lambda x, v=value, low=low: not isinstance(x, dict)
                          or (len(x) >= v if low else len(x) <= v))
        elif key == "items":
            if "prefixItems" in schema:
                raise _Unsupported("prefixItems")
            f = _compile(value, defs, refs)

            def items(x, f=f):
                if isinstance(x, list):
                    for v in x:
                        if not f(v):
                            return False
                return True
            checks.append(items)
        elif key in ("minItems", "maxItems"):
            low = key == "minItems"
            checks.append(lambda x, v=value, low=low: not isinstance(x, list)
                          or (len(x) >= v if low else len(x) <= v))
        elif key in ("minLength", "maxLength"):
            low = key == "minLength"
            checks.append(lambda x, v=value, low=low: not isinstance(x, str)
                          or (len(x) >= v if low else len(x) <= v))
        elif key == "pattern":
            search = re.compile(value).search
            checks.append(lambda x, s=search: not isinstance(x, str) or s(x) is not None)
        elif key == "minimum":
            checks.append(lambda x, v=value: not _is_number(x) or x >= v)
        elif key == "maximum":
            checks.append(lambda x, v=value: not _is_number(x) or x <= v)
        elif key == "exclusiveMinimum":
            checks.append(lambda x, v=value: not _is_number(x) or x > v)
        elif key == "exclusiveMaximum":
            checks.append(lambda x, v=value: not _is_number(x) or x < v)
        elif key == "enum":
            options = list(value)
            if all(isinstance(v, str) for v in options):  # a str equals only a str
                names = frozenset(options)
                checks.append(lambda x, n=names: isinstance(x, str) and x in n)
            else:
                checks.append(lambda x, o=options: any(_json_equal(x, v) for v in o))
        elif key == "const":
            if isinstance(value, str):
                checks.append(lambda x, v=value: isinstance(x, str) and x == v)
            else:
                checks.append(lambda x, v=value: _json_equal(x, v))
        elif key in ("allOf", "anyOf", "oneOf"):
            subs = [_compile(v, defs, refs) for v in value]
            if key == "allOf":
                checks.append(_all_of(subs))
            elif key == "anyOf":
                checks.append(lambda x, s=subs: any(f(x) for f in s))
            else:
                checks.append(lambda x, s=subs: sum(1 for f in s if f(x)) == 1)
        elif key == "if":
            cond = _compile(value, defs, refs)
            then = _compile(schema.get("then", True), defs, refs)
            other = _compile(schema.get("else", True), defs, refs)
            checks.append(lambda x, c=cond, t=then, e=other: t(x) if c(x) else e(x))
        else:
            raise _Unsupported(key)
    return _all_of(checks)


@functools.lru_cache(maxsize=None)
def _fast_checks():
    """Predicates that accept what the validators of ``_file_validator`` and
    ``_case_validators`` accept, much faster; a case they refuse (or a schema they
    cannot compile: None) goes to jsonschema, which says what is wrong."""
    def compiled(schema):
        try:
            return _compile(schema, schema.get("$defs", {}), {})
        except _Unsupported:
            return None

    _full, by_kind = _case_validators()
    return (compiled(_file_validator().schema),
            {kind: compiled(v.schema) for kind, v in by_kind.items()})


@functools.lru_cache(maxsize=None)
def _file_validator():
    """The validator of a file's top level (its cases only as an array)."""
    schema = resources.case_schema()
    file_schema = {k: v for k, v in schema.items() if k != "$defs"}
    file_schema["properties"] = dict(file_schema["properties"], cases={"type": "array"})
    file_schema["$defs"] = schema["$defs"]
    return jsonschema.Draft202012Validator(file_schema)


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


#: the largest case file read, in bytes, unless BGCONF_MAX_CASE_FILE_BYTES or an
#: explicit limit (bgconf validate/run --max-file-size) says otherwise
DEFAULT_MAX_FILE_BYTES = 5_000_000
MAX_FILE_BYTES_ENV = "BGCONF_MAX_CASE_FILE_BYTES"
_SIZE_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "m": 1000 ** 2, "mb": 1000 ** 2, "g": 1000 ** 3,
               "gb": 1000 ** 3, "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3}


def parse_size(text: str) -> int:
    """Bytes from ``5000000``, ``500kB``, ``5MB``, ``5M`` or ``2MiB`` (kB and MB are
    powers of 1000). Raises ValueError."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(text))
    unit = m.group(2).lower() if m else ""
    if not m or unit not in _SIZE_UNITS or float(m.group(1)) * _SIZE_UNITS[unit] < 1:
        raise ValueError(f"{text!r} is not a size: give bytes, or a number with kB, MB or GB (e.g. 20MB)")
    return int(float(m.group(1)) * _SIZE_UNITS[unit])


def max_file_bytes(limit: int | None = None) -> int:
    """``limit`` when given, else BGCONF_MAX_CASE_FILE_BYTES when set (see
    ``parse_size``), else DEFAULT_MAX_FILE_BYTES. Raises ValueError for a bad value."""
    if limit is not None:
        return limit
    value = os.environ.get(MAX_FILE_BYTES_ENV, "").strip()
    if not value:
        return DEFAULT_MAX_FILE_BYTES
    try:
        return parse_size(value)
    except ValueError as exc:
        raise ValueError(f"{MAX_FILE_BYTES_ENV}: {exc}") from None


def _size_text(n: int) -> str:
    if n < 10_000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.3g} kB"
    return f"{n / 1e6:.3g} MB" if n < 100e6 else f"{n / 1e6:.0f} MB"


def _read_limited(path: Path, shown: str, limit: int) -> bytes | CaseError:
    """The file's bytes, or a CaseError when it cannot be read or is over ``limit``
    (then only ``limit`` + 1 bytes are read)."""
    try:
        size = path.stat().st_size
        if size <= limit:
            with path.open("rb") as f:
                data = f.read(size + 1)  # one buffer of the file's size, not of the limit
                if len(data) > size:  # a file growing, or a pipe (size 0)
                    data += f.read(limit + 1 - len(data))
            size = max(size, len(data))
    except OSError as exc:
        return CaseError(shown, 0, None, f"cannot read the file: {exc}")
    if size > limit:
        return CaseError(shown, 0, None,
                         f"file is {_size_text(size)}, over the limit of {_size_text(limit)} for a case file;"
                         f" split it into smaller files, or raise the limit (bgconf validate --max-file-size"
                         f" SIZE, or {MAX_FILE_BYTES_ENV}=SIZE for every command, e.g. 20MB)")
    return data


class _Lines:
    """Line numbers in one file's text: the line of each case from the event
    reader, any other path from a node tree composed only when asked for."""

    def __init__(self, text: str | bytes, case_lines: list[int], node=None):
        self.text, self.case_lines, self.node = text, case_lines, node

    def of(self, path: list) -> int:
        if len(path) == 2 and path[0] == "cases" and isinstance(path[1], int) \
                and path[1] < len(self.case_lines):
            return self.case_lines[path[1]]
        if self.node is None:
            self.node = _compose_node(self.text)
        return _line_of(self.node, path)


def _yaml_error(shown: str, exc: yaml.YAMLError) -> CaseError:
    # the context (e.g. the bracket left open) is where the fix goes, when known
    mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if getattr(exc, "context", None):
        problem = f"{problem} ({exc.context})"
    return CaseError(shown, mark.line + 1 if mark else 0, None,
                     f"not valid YAML: {problem}; fix the syntax (indentation, quotes, colons)")


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


def _case_problems(raw, kind, full_validator, by_kind) -> list[jsonschema.ValidationError]:
    """The schema errors of one case, the most useful first."""
    validator = by_kind.get(kind, full_validator) if isinstance(kind, str) else full_validator
    problems = sorted(_best_errors(validator, raw), key=lambda e: list(map(str, e.absolute_path)))
    # an unevaluated-key complaint is only news when nothing else is wrong
    # (a failing kind branch leaves its own keys unevaluated)
    real = [e for e in problems if e.validator != "unevaluatedProperties"
            and not (e.validator == "additionalProperties" and not e.absolute_path)]
    return real or problems


class _Problem(Exception):
    def __init__(self, path: list, message: str):
        super().__init__(message)
        self.path, self.message = path, message


def _board_side(spec) -> tuple | None:
    """The 26-tuple of a side in the board form, when it is plainly valid (int point
    keys 1..24, int counts, at most 15 checkers, ``off`` right if given); None for
    anything else, left to read_position."""
    if spec.__class__ is not dict or not spec.keys() <= _SIDE_KEYS:
        return None
    board = [0] * 26
    points = spec.get("points") or {}
    if points.__class__ is not dict:
        return None
    for p, n in points.items():
        if p.__class__ is not int or not 1 <= p <= 24 or n.__class__ is not int or n < 0:
            return None
        board[p] = n
    bar = spec.get("bar", 0)
    if bar.__class__ is not int or bar < 0:
        return None
    board[25] = bar
    on_board = sum(board)
    off = spec.get("off", CHECKERS - on_board)
    if on_board > CHECKERS or off.__class__ is not int or off != CHECKERS - on_board:
        return None
    board[0] = off
    return tuple(board)


_SIDE_KEYS = frozenset({"points", "bar", "off"})


def _board_position(value) -> Position | None:
    """``Position.from_dict(value)`` for a plainly valid board form (see _board_side),
    with no point held by both sides; None for anything else."""
    if value.__class__ is not dict or len(value) != 3 or value.get("on_roll") not in ("x", "o"):
        return None
    x, o = _board_side(value.get("x")), _board_side(value.get("o"))
    if x is None or o is None or (x[0] == CHECKERS and o[0] == CHECKERS):
        return None
    for p in range(1, 25):
        if x[p] and o[25 - p]:
            return None
    return _unchecked_position(value["on_roll"], x, o)


def _position(value, path, sides: dict | None = None) -> Position:
    position = _board_position(value)
    if position is None:
        try:
            position = read_position(value)
        except ModelError as exc:
            raise _Problem(path, f"impossible position: {exc}") from None
    if sides is None:
        return position
    x, o = sides.setdefault(position.x, position.x), sides.setdefault(position.o, position.o)
    if x is position.x and o is position.o:
        return position
    return _unchecked_position(position.on_roll, x, o)


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
    return [tuple(step) for step in written_steps(play)]


def _semantic(raw: dict, shown: str, line: int, sides: dict | None = None) -> Case:
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
    default_need = KIND_REQUIRES[f"codec.{raw.get('codec')}" if kind == "codec" and raw.get("codec") != "gnubg_id"
                                 else kind]
    requires = tuple(raw.get("requires") or [default_need])
    for j, cap in enumerate(requires):
        if cap not in CAPABILITIES:
            raise _Problem(["requires", j], f"unknown capability {cap!r}; known: {', '.join(sorted(CAPABILITIES))}")
    try:
        rules = effective_rules(raw.get("rules"))
    except ModelError as exc:
        raise _Problem(["rules"], str(exc)) from None
    carried = _match_id_state(raw, kind, rules)
    if carried:
        raw = {**raw, **carried}
    cube = match = None
    try:
        if kind in ("game_result", "cube_action"):
            cube = Cube.from_dict(raw.get("cube"))
    except ModelError as exc:
        raise _Problem(["cube"], f"impossible cube: {exc}") from None
    try:
        if kind in ("game_result", "cube_action", "opening_roll", "match_transition", "game_record"):
            match = Match.from_dict(raw.get("match"))
    except ModelError as exc:
        raise _Problem(["match"], f"impossible match state: {exc}") from None
    for key in {"cube_action": ("on_roll", "moment", "cube"), "match_transition": ("match",)}.get(kind, ()):
        if key not in raw:
            raise _Problem([], f"a {kind} case needs '{key}' (or a position {{gnubg_id, match_id}} that carries it)")
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
    position = _position(raw["position"], ["position"], sides) if "position" in raw else None
    dice = None
    if "dice" in raw:
        dice = parse_dice(raw["dice"])
    play = raw.get("play")
    steps = None
    expect = raw["expect"]
    expected: Any = None
    state = None
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
        expected = _expected_plays(position, expect, sides)
    elif kind == "apply_play":
        try:
            notation_to_position(position, play)
        except ModelError as exc:
            raise _Problem(["play"], f"the play cannot be applied to the position: {exc}") from None
        expected = _position(expect["position"], ["expect", "position"], sides)
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
    elif kind == "game_record":
        games, expected = _record(raw, sides)
    elif kind == "codec":
        expected, state = _codec_expectation(raw, position)
    return Case(
        id=raw["id"], title=raw["title"], kind=kind, spec=_shared(tuple(raw["spec"])),
        level=raw.get("level", "must"), tags=_shared(tuple(raw.get("tags", []))), requires=_shared(requires),
        rules=dict(raw.get("rules") or {}), file=shown, line=line, position=position, dice=dice,
        play=play, steps=steps, expect=expect, expected=expected,
        provenance=raw["provenance"], raw=raw, effective_rules=_shared_rules(rules), cube=cube, match=match,
        games=games if kind == "game_record" else (),
        state=state)


def _match_id_state(raw: dict, kind: str, rules: dict) -> dict:
    """What a ``position: {gnubg_id, match_id}`` carries into a case (spec: format.match-id):
    the cube, the match (post-Crawford inferred from the score, as GNU Backgammon does) and,
    for cube_action, the side on roll and the moment. Keys the case gives itself must agree.
    Returns the keys to add to the case ({} without a Match ID)."""
    value = raw.get("position")
    if not isinstance(value, dict) or value.get("match_id") is None:
        return {}
    if kind == "codec":
        raise _Problem(["position", "match_id"], "a codec case tests one format: give the Match ID to a"
                                                 " gnubg_match_id case")
    try:
        state = decode_match_id(value["match_id"])
    except ModelError as exc:
        raise _Problem(["position", "match_id"], str(exc)) from None
    m = state.match
    carried: dict = {"cube": state.cube.to_dict(),
                     "match": {"length": m.length, "score": dict(m.score), "crawford": m.crawford,
                               "post_crawford": state.post_crawford(rules["crawford"])}}
    if kind == "cube_action":
        carried["on_roll"] = state.on_roll
        carried["moment"] = ("double_offered" if state.double_offered else "after_roll" if state.dice
                             else "before_roll")
    if kind in ("legal_plays", "play_check", "apply_play", "perft") and state.dice and "dice" in raw:
        try:
            if sorted(parse_dice(raw["dice"])) != sorted(state.dice):
                raise _Problem(["dice"], f"dice {raw['dice']} but the Match ID {value['match_id']} has"
                                         f" {list(state.dice)}")
        except ModelError:
            pass  # the dice are checked where they are read
    if kind not in ("game_result", "cube_action", "match_transition"):
        return {}
    out = {}
    for key, got in carried.items():
        if key not in raw:
            out[key] = got
            continue
        given = raw[key]
        if key == "cube":
            same = Cube.from_dict(given) == state.cube
        elif key == "match":
            try:
                same = Match.from_dict(given).to_dict() == Match.from_dict(got).to_dict()
            except ModelError:
                same = True  # reported where the match is read
        else:
            same = given == got
        if not same and key == "moment" and given in ("beaver_offered", "raccoon_offered") and got == "double_offered":
            same = True  # a Match ID has no field for a beaver or a raccoon offered
        if not same:
            raise _Problem([key], f"{key} is {given!r} but the Match ID {value['match_id']} says {got!r};"
                                  f" give it in one place")
    return out


def _refusal_of(fmt: str, raw: dict) -> str | None:
    """The reason the model refuses the case's ``decode`` or ``encode`` input, or None
    when it accepts it."""
    try:
        if "encode" in raw:
            if fmt != "gnubg_match_id":
                raise _Problem(["encode"], "encode refusals are written for gnubg_match_id states; give an id"
                                           " to refuse with 'decode'")
            encode_state_dict(raw["encode"])
        elif fmt == "gnubg_id":
            decode_position_id(raw["decode"])
        elif fmt == "xgid":
            decode_xgid_state(raw["decode"])
        else:
            decode_match_id(raw["decode"])
    except CodecError as exc:
        return exc.reason
    return None


def _codec_expectation(raw: dict, position: Position | None) -> tuple[Any, IdState | None]:
    """A codec case's expectation: the id (with the state it decodes to for Match IDs and
    XGIDs), or ``("refused", reason)``; checked against the model (spec: format.refusal)."""
    fmt, expect = raw["codec"], raw["expect"]
    refusing = [k for k in ("decode", "encode") if k in raw]
    if len(refusing) > 1:
        raise _Problem([refusing[1]], "a refusal case gives one input: 'decode' (an id) or 'encode' (a state)")
    if refusing:
        if "refused" not in expect:
            raise _Problem(["expect"], f"a case with '{refusing[0]}' expects {{refused: reason}}")
        for key in ("position", "state"):
            if key in raw:
                raise _Problem([key], f"a refusal case has no '{key}': the input is '{refusing[0]}' alone")
        found = _refusal_of(fmt, raw)
        if found is None:
            raise _Problem([refusing[0]], f"the {fmt} codec accepts this input; a refusal case needs one it refuses")
        if found != expect["refused"]:
            raise _Problem(["expect", "refused"], f"the {fmt} codec refuses this input as {found!r},"
                                                  f" not {expect['refused']!r}")
        return ("refused", expect["refused"]), None
    if fmt not in expect:
        raise _Problem(["expect"], f"a {fmt} codec case expects {{{fmt}: ...}} or, with 'decode', {{refused: ...}}")
    expected = expect[fmt]
    if fmt == "fibs_board":
        if position is None:
            raise _Problem(["expect"], "a fibs_board codec case gives the 'position' its line decodes to")
        _check_fibs_case(raw, position, expected)
        return expected, None
    state = None
    if fmt == "gnubg_match_id":
        if position is not None:
            raise _Problem(["position"], "a Match ID carries no checkers: give 'state', not 'position'")
        if "state" not in raw:
            raise _Problem(["expect"], "a gnubg_match_id codec case gives the 'state' its Match ID decodes to")
        try:
            state = IdState.from_dict(raw["state"])
            decoded = decode_match_id(expected)
        except ModelError as exc:
            raise _Problem(["state"] if "state" in str(exc) else ["expect", fmt], str(exc)) from None
        wrong = decoded.differences(state, MATCH_ID_FIELDS)
        if wrong:
            raise _Problem(["expect", fmt], f"{expected} does not decode to the case's state: {'; '.join(wrong)}")
        return expected, state
    if position is None:
        raise _Problem(["expect"], f"a {fmt} codec case gives the 'position' its id decodes to")
    if fmt == "xgid":
        given = {"on_roll": position.on_roll, "beavers": False, "max_cube": 1 << 10, **(raw.get("state") or {})}
        try:
            state = IdState.from_dict(given)
        except ModelError as exc:
            raise _Problem(["state"], f"impossible state: {exc}") from None
        try:
            decoded, decoded_state = decode_xgid_state(expected)
        except ModelError as exc:
            raise _Problem(["expect", fmt], str(exc)) from None
        wrong = decoded_state.differences(state, XGID_FIELDS)
        if wrong:
            raise _Problem(["expect", fmt], f"{expected} does not decode to the case's state: {'; '.join(wrong)}")
    else:
        if "state" in raw:
            raise _Problem(["state"], "a Position ID carries no state; a gnubg_match_id case does")
        try:
            decoded = decode_position_id(expected, position.on_roll)
        except ModelError as exc:
            raise _Problem(["expect", fmt], str(exc)) from None
    if decoded != position:
        raise _Problem(["expect", fmt], f"{expected} decodes to {decoded}, not to the case's position")
    return expected, state


def _check_fibs_case(raw: dict, position: Position, line: str) -> None:
    """A fibs_board codec case: its line must decode to the case's position and to every
    field of its ``fibs`` state (spec: format.fibs-board)."""
    try:
        want = FibsBoard.from_state(position, raw.get("fibs"))
    except ModelError as exc:
        raise _Problem(["fibs"], str(exc)) from None
    try:
        got = decode_fibs_board(line)
    except ModelError as exc:
        raise _Problem(["expect", "fibs_board"], str(exc)) from None
    if got.position != position:
        raise _Problem(["expect", "fibs_board"], f"the line decodes to {got.position}, not to the case's position")
    wrong = fibs_state_differences(want.state(), got.state())
    if wrong:
        raise _Problem(["expect", "fibs_board"], f"the line does not say what 'fibs' says: {'; '.join(wrong)}")


_SHARED: dict = {}


def _shared(value):
    """One object for equal small values of many cases (spec, tags, requires)."""
    if len(_SHARED) > 4096:
        _SHARED.clear()
    try:
        return _SHARED.setdefault(value, value)
    except TypeError:
        return value


def _shared_rules(rules: dict) -> dict:
    """One dict for the effective rules of all cases with the same rule options (most
    cases have none); like the cases of a scenario, cases share it: read, do not change it."""
    if len(_SHARED_RULES) > 1024:
        _SHARED_RULES.clear()
    try:
        return _SHARED_RULES.setdefault(tuple(rules.items()), rules)
    except TypeError:
        return rules


_SHARED_RULES: dict = {}


@dataclass(frozen=True)
class ExpectedPlays:
    """A legal_plays expectation: ``exact`` (position -> notation) when the full set
    is given, else ``count`` plus ``includes`` and ``excludes`` (position -> notation)."""

    exact: dict | None
    count: int | None
    includes: dict
    excludes: dict


@dataclass(frozen=True)
class RecordGame:
    """One game of a game_record case: ``position`` (a game in progress) or None (the
    starting position, after an opening throw), ``cube`` (None: centred at 1) and
    ``events`` in their wire form (``conformance.model.parse_event``), each with its
    number ``n`` in the whole record (1-based)."""

    position: Position | None
    cube: Cube | None
    events: tuple

    def wire(self) -> dict:
        out: dict = {"events": [dict(e) for e in self.events]}
        if self.position is not None:
            out["position"] = self.position.to_wire()
        if self.cube is not None:
            out["cube"] = self.cube.to_dict()
        return out


@dataclass(frozen=True)
class ExpectedRecord:
    """A game_record expectation: for each event (by number - 1), ``refused`` (the reason
    code it must be refused with, or None: it must be accepted) and ``states`` (the state
    fields expected after it, or None); ``final``: the fields expected after the last
    event. A state's ``position`` is a Position."""

    refused: tuple
    states: tuple
    final: dict
    texts: tuple


def _record_state(value: dict, path: list, sides: dict | None) -> dict:
    state = dict(value)
    if "position" in state:
        state["position"] = _position(state["position"], path + ["position"], sides)
    if "cube" in state:
        try:
            Cube.from_dict(state["cube"])
        except ModelError as exc:
            raise _Problem(path + ["cube"], f"impossible cube: {exc}") from None
    if state.get("moment") == "opening" and ("position" in state or "on_roll" in state):
        raise _Problem(path, "during the opening throw nobody is on roll yet: no position or on_roll")
    return state


def _record(raw: dict, sides: dict | None) -> tuple[tuple, ExpectedRecord]:
    """The games and the expectation of a game_record case; a _Problem names the event
    (its number in the record and its text) that cannot be read."""
    games, refused, states, texts = [], [], [], []
    n = 0
    for i, game in enumerate(raw["games"]):
        position = cube = None
        if "position" in game:
            position = _position(game["position"], ["games", i, "position"], sides)
            if 15 in (position.x[0], position.o[0]):
                raise _Problem(["games", i, "position"], f"game {i + 1} starts from a finished position"
                                                         f" (a side has borne off all 15)")
        if "cube" in game:
            try:
                cube = Cube.from_dict(game["cube"])
            except ModelError as exc:
                raise _Problem(["games", i, "cube"], f"impossible cube: {exc}") from None
            if position is None:
                raise _Problem(["games", i, "cube"], f"game {i + 1} starts from the starting position, where"
                                                     f" the cube is centred at 1; give a position with the cube")
        events = []
        for j, item in enumerate(game["events"]):
            n += 1
            where = ["games", i, "events", j]
            if isinstance(item, dict) and "event" not in item:  # x 31: 8/5 6/5, which YAML reads as a mapping
                (key, play), = item.items()
                item = f"{key}: {play}"
            text = item if isinstance(item, str) else item["event"]
            try:
                event = parse_event(text)
            except ModelError as exc:
                raise _Problem(where, f"event {n} (game {i + 1}): {exc}") from None
            events.append({"n": n, **event})
            texts.append(event["text"])
            refused.append(None if isinstance(item, str) else item.get("refused"))
            expect = None if isinstance(item, str) else item.get("expect")
            states.append(None if expect is None else _record_state(expect, where + ["expect"], sides))
        games.append(RecordGame(position, cube, tuple(events)))
    final = _record_state(raw["expect"], ["expect"], sides)
    if refused[-1] is not None and not final:
        raise _Problem(["expect"], "give the state expected after the last event")
    return tuple(games), ExpectedRecord(tuple(refused), tuple(states), final, tuple(texts))


_parsed_play = functools.lru_cache(maxsize=4096)(parse_play)


def _play_result(position: Position, text, sides: dict | None = None) -> Position:
    """``notation_to_position(position, text)``, faster: the moves are checked as
    there (model.play._move; the written order first, then the other orders) and
    the result, reached by moving checkers of a valid position, is not validated
    again. A play that cannot be made is left to notation_to_position for its error."""
    try:
        chains = _parsed_play(text)
    except (ModelError, TypeError):
        return notation_to_position(position, text)
    on_roll = position.on_roll
    mover, opponent = position.mover, position.opponent
    for order in itertools.permutations(chains) if len(chains) > 1 else (chains,):
        me, opp = list(mover), list(opponent)
        try:
            for points, marks in order:
                for a, b, star in zip(points, points[1:], marks):
                    if not _move_checker(me, opp, a, b, on_roll) and star:
                        raise FalseHitMark("")
        except ModelError:
            continue
        break
    else:
        return notation_to_position(position, text)
    me_t, opp_t = tuple(me), tuple(opp)
    if opp_t == opponent:  # nothing hit: share the tuple
        opp_t = opponent
    elif sides is not None:
        opp_t = sides.setdefault(opp_t, opp_t)
    if sides is not None:
        me_t = sides.setdefault(me_t, me_t)
    if on_roll == "x":
        return _unchecked_position("o", me_t, opp_t)
    return _unchecked_position("x", opp_t, me_t)


def _unchecked_position(on_roll: str, x: tuple, o: tuple) -> Position:
    """A Position built without validation, as Position.trusted, but with its fields
    set one by one as the dataclass's own __init__ does: in CPython 3.11 that keeps
    them in the object (about 100 bytes) instead of a separate __dict__ (240)."""
    pos = _new_object(Position)
    _set_field(pos, "on_roll", on_roll)
    _set_field(pos, "x", x)
    _set_field(pos, "o", o)
    return pos


_new_object, _set_field = object.__new__, object.__setattr__


def _plays_map(position: Position, plays: list, key: str, sides: dict | None = None) -> dict:
    out: dict = {}
    for j, text in enumerate(plays):
        try:
            result = _play_result(position, text, sides)
        except ModelError as exc:
            raise _Problem(["expect", key, j], f"expected play {text!r} cannot be applied: {exc}") from None
        if result in out:
            raise _Problem(["expect", key, j],
                           f"{text!r} and {out[result]!r} are the same play (same resulting position);"
                           f" list it once")
        out[result] = text
    return out


def _expected_plays(position: Position, expect: dict, sides: dict | None = None) -> ExpectedPlays:
    exact = None
    if "plays" in expect:
        exact = _plays_map(position, expect["plays"], "plays", sides)
        if not exact:
            exact = {position.passed(): "none"}
        if "count" in expect and expect["count"] != len(exact):
            raise _Problem(["expect", "count"], f"count {expect['count']} but {len(exact)} plays are listed")
    includes = _plays_map(position, expect.get("includes", []), "includes", sides)
    excludes = _plays_map(position, expect.get("excludes", []), "excludes", sides)
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
