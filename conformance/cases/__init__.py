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

from conformance.cases.load import case_files, display_path, load_file, load_suite
from conformance.cases.read import ALIAS_MESSAGE, DEFAULT_MAX_FILE_BYTES, MAX_FILE_BYTES_ENV, max_file_bytes, parse_size
from conformance.cases.typed import (
    CAPABILITIES,
    CODEC_FIELDS,
    ID_ALPHABET,
    KIND_REQUIRES,
    USER_SUFFIX,
    Case,
    case_name,
    CaseError,
    ExpectedPlays,
    ExpectedRecord,
    RecordGame,
    Suite,
)

__all__ = [
    "ALIAS_MESSAGE", "CAPABILITIES", "CODEC_FIELDS", "DEFAULT_MAX_FILE_BYTES", "ID_ALPHABET", "KIND_REQUIRES",
    "MAX_FILE_BYTES_ENV", "USER_SUFFIX", "Case", "CaseError", "ExpectedPlays", "ExpectedRecord", "RecordGame",
    "Suite", "case_files", "case_name", "display_path", "load_file", "load_suite", "max_file_bytes", "parse_size",
]
