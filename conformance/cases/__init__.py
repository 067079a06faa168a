"""The suite's cases: reading case files, checking them, and the typed cases they become.

May import the engines and the model (it needs the model only); never the harness, the reports or the commands.

Loading a case file goes through these stages, one module each, in order:

  read       its bytes -> plain data and the line of each case: the size limit
             (``max_file_bytes``), YAML anchors and aliases refused on the parser's events
  schema     the data checked against spec/schema/case.schema.json (compiled predicates,
             jsonschema for the messages)
  checks     each case's meaning checked against the spec and the model -> a ``Case``
             (with ``positions``: positions and plays as cases write them, read fast)
  load       ``load_file``, ``load_suite``, ``case_files``: the stages, file by file, and ids
             unique across files

``typed`` holds what they produce (``Case``, ``Suite``, ``CaseError``, the expectations, the
names cases are written with) and ``resources`` where the bundled ``cases/`` and ``spec/`` live.

Every problem becomes a ``CaseError`` that names the file, the line, the case id
and what to change; a bad case never stops the other cases or files from
loading. Files are read one at a time, straight from the parser's events into
plain data (no node tree unless an error needs a line number), and only the
cases are kept.

This module re-exports the public names: ``from conformance.cases import load_suite``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

#: each public name and the module of this package that defines it; a name is imported when it is
#: first asked for (PEP 562), so that ``from conformance.cases import case_name`` does not load the
#: case loader and YAML: a command that reads no case (a replay without an engine) starts without them
_HOMES = {
    **dict.fromkeys(("case_files", "display_path", "load_file", "load_suite"), "load"),
    **dict.fromkeys(("ALIAS_MESSAGE", "DEFAULT_MAX_FILE_BYTES", "MAX_FILE_BYTES_ENV", "max_file_bytes", "parse_size"),
                    "read"),
    **dict.fromkeys(("CAPABILITIES", "CODEC_FIELDS", "ID_ALPHABET", "KIND_REQUIRES", "USER_SUFFIX", "Case",
                     "case_name", "CaseError", "ExpectedPlays", "ExpectedRecord", "RecordGame", "Suite"), "typed"),
}

__all__ = sorted(_HOMES)

if TYPE_CHECKING:
    from conformance.cases.load import case_files, display_path, load_file, load_suite
    from conformance.cases.read import (
        ALIAS_MESSAGE, DEFAULT_MAX_FILE_BYTES, MAX_FILE_BYTES_ENV, max_file_bytes, parse_size,
    )
    from conformance.cases.typed import (
        CAPABILITIES, CODEC_FIELDS, ID_ALPHABET, KIND_REQUIRES, USER_SUFFIX, Case, CaseError, ExpectedPlays,
        ExpectedRecord, RecordGame, Suite, case_name,
    )


def __getattr__(name: str):
    """A public name of the package, imported from its module on first use (``_HOMES``);
    AttributeError for any other name."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
