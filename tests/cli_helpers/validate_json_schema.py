#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validates a JSON document against the subset of JSON Schema (2020-12) that docs/json-schema.json uses:
type (one or a list), const, enum, required, properties, additionalProperties: false, items, minimum, and
local $ref to #/$defs/... Keywords for objects and arrays apply only to instances of that type, as the
specification says. Unknown keywords in the schema are an error here, so that the schema cannot grow a
constraint this checker silently ignores.

usage: validate_json_schema.py SCHEMA [DOCUMENT]   (DOCUMENT defaults to stdin)
Exit 0 when valid; 1 with one line per violation otherwise."""
import json
import sys

KNOWN = {"$schema", "$id", "title", "description", "type", "const", "enum", "required", "properties",
         "additionalProperties", "items", "minimum", "$ref", "$defs"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def validate(root, schema, value, path, errors):
    unknown = set(schema) - KNOWN
    if unknown:
        errors.append(f"schema at {path}: unsupported keywords {sorted(unknown)}")
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), ref
        validate(root, root["$defs"][ref[len("#/$defs/"):]], value, path, errors)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            errors.append(f"{path}: {value!r:.60} is not of type {types}")
            return
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: {value!r} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
        errors.append(f"{path}: {value} < minimum {schema['minimum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing required '{key}'")
        props = schema.get("properties", {})
        for key, item in value.items():
            if key in props:
                validate(root, props[key], item, f"{path}.{key}", errors)
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected property '{key}'")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate(root, schema["items"], item, f"{path}[{i}]", errors)


def main():
    schema = json.load(open(sys.argv[1]))
    text = open(sys.argv[2]).read() if len(sys.argv) > 2 else sys.stdin.read()
    document = json.loads(text)
    errors = []
    validate(schema, schema, document, "$", errors)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
