"""Reading a case file: its bytes -> plain data, and the line of each case.

The first stage of loading. Input is bounded: the size limit (``max_file_bytes``,
``parse_size``; a file over it is not read, ``_read_limited``), and YAML anchors and
aliases refused on the parser's events before anything is built from them
(``ALIAS_MESSAGE``). The loaders read YAML 1.2 booleans and refuse a key given twice;
``_read_yaml`` builds plain data straight from the parser's events, and leaves what it
does not handle (``_SlowPath``) to PyYAML's composer (``_compose``). ``_Lines`` gives
the later stages the line of any path in the file; ``_yaml_error`` turns a syntax
error into a ``CaseError``.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path
from typing import Any, Iterable

import yaml

from conformance.cases.typed import CaseError


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
                try:
                    hash(key)
                except TypeError:  # a complex key (``? [1, 2] : 14``): no case field is one
                    raise yaml.constructor.ConstructorError(
                        None, None, f"a key must be a plain value, not a {type(key).__name__}",
                        key_node.start_mark) from None
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


# -- the size limit ------------------------------------------------------------
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
