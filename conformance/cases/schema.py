"""Checking plain data against the case schema (spec/schema/case.schema.json).

The second stage of loading. ``_file_validator`` checks a file's top level and
``_case_validators`` each case, with the schema's per-kind branches flattened into one
schema a kind (the same verdict, faster); ``_compile`` turns a schema into a predicate
that accepts exactly what draft 2020-12 validation accepts, for the keywords the case
schema uses, and ``_fast_checks`` gives those predicates: data they refuse goes to
jsonschema, whose errors (``_case_problems``, ``_schema_message``) say what to change.
"""

from __future__ import annotations

import functools
import re

from conformance.cases import resources

# jsonschema is imported where it is used: it is a third of the start-up time of commands that
# load no case (a replay, each --jobs worker)


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
    import jsonschema

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
    import jsonschema

    schema = resources.case_schema()
    file_schema = {k: v for k, v in schema.items() if k != "$defs"}
    file_schema["properties"] = dict(file_schema["properties"], cases={"type": "array"})
    file_schema["$defs"] = schema["$defs"]
    return jsonschema.Draft202012Validator(file_schema)


def _best_errors(validator, instance) -> list[jsonschema.ValidationError]:
    import jsonschema

    errors = list(validator.iter_errors(instance))
    out = []
    for err in errors:
        best = jsonschema.exceptions.best_match([err]) if err.context else err
        out.append(best)
    return out


def _case_problems(raw, kind, full_validator, by_kind) -> list[jsonschema.ValidationError]:
    """The schema errors of one case, the most useful first."""
    validator = by_kind.get(kind, full_validator) if isinstance(kind, str) else full_validator
    problems = sorted(_best_errors(validator, raw), key=lambda e: list(map(str, e.absolute_path)))
    # an unevaluated-key complaint is only news when nothing else is wrong
    # (a failing kind branch leaves its own keys unevaluated)
    real = [e for e in problems if e.validator != "unevaluatedProperties"
            and not (e.validator == "additionalProperties" and not e.absolute_path)]
    return real or problems
