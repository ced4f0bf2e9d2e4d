#!/usr/bin/env python3
"""Validate the conformance vectors against the JSON Schemas of this folder.

    pip install jsonschema        # 4.18 or newer
    python3 conformance/schema/check.py [VECTORS_DIR]
    python3 conformance/schema/check.py --report REPORT.json...

Checks, in order:
  1. vectors.schema.json and protocol-v1.schema.json against the JSON Schema
     2020-12 metaschema;
  2. every *.json file under conformance/vectors/ (or VECTORS_DIR) against
     vectors.schema.json, vector ids unique across the suite;
  3. for every vector, the request the runner sends,
     {"id": "1", "op": OP, "input": INPUT}, against protocol-v1's request
     (not for a vector requiring dynamic-inputs, whose input has a member
     of another type by definition, and whose output may copy it); the
     expected outcome as a response ({"id": "1", "output": OUTPUT} or
     {"id": "1", "error": {"code": CODE, "message": ""}}) against its
     response, and an expected output against the op's output shape.

With --report, validates JSON reports of `conformance --format json`
against report.schema.json instead, and checks that every failed result
carries its input, both outcomes, the difference and stderr.

Prints one line per problem (file, vector id, JSON path, message) and a
summary; exits 1 on any problem, 2 when the schemas themselves are unusable.
Vector strings may hold lone surrogates (\\ud800 escapes): Python's json
module reads them as lone surrogate code points, which `re` matches like any
other code point; they are printed escaped.
"""
import json
import re
import sys
from pathlib import Path

try:
    import jsonschema
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match
    from referencing import Registry, Resource
except ImportError:  # pragma: no cover
    sys.exit("check.py needs the jsonschema package (4.18 or newer): pip install jsonschema")

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parent / "vectors"


def ecma_pattern(validator, pattern, instance, schema):
    """`pattern` with ECMA-262 anchors: Python's `$` also matches before a
    final newline, ECMA-262's (as JSON Schema specifies) only at the end."""
    if not validator.is_type(instance, "string"):
        return
    anchored = pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern
    if not re.search(anchored, instance):
        yield jsonschema.ValidationError(f"{shorten(instance)} does not match {pattern!r}")


Validator = jsonschema.validators.extend(Draft202012Validator, {"pattern": ecma_pattern})


def shorten(value, limit=160):
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, str) else ascii(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show_id(value):
    """A vector id as printed: as is when plain, else JSON-escaped."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text if re.fullmatch(r"[\x21-\x7e]+", text) else json.dumps(text, ensure_ascii=True)


def json_path(prefix, path):
    out = prefix
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if re.fullmatch(r"[A-Za-z_][\w-]*", part) else f"[{json.dumps(part)}]")
    return out


def problems(validator, instance, prefix, strip=0):
    """(json path, message) of every error, each narrowed to its best cause."""
    for error in validator.iter_errors(instance):
        error = best_match([error])
        path = list(error.absolute_path)[strip:]
        message = error.message if len(error.message) <= 300 else error.message[:297] + "..."
        yield json_path(prefix, path), message


def reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def conclude(failures, failed_line, passed_line):
    """Prints each problem and the summary line; the exit status."""
    for where, path, message in failures:
        print(f"FAIL {where}: {path}: {message}")
    print(failed_line if failures else passed_line)
    return 1 if failures else 0


def check_reports(paths):
    schema = json.loads((HERE / "report.schema.json").read_text("utf-8"))
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        print(f"FAIL report.schema.json: not a valid JSON Schema 2020-12: {error.message}")
        return 2
    validator = Validator(schema)
    failures, failed_results = [], 0
    for path in paths:
        try:
            report = json.loads(Path(path).read_text("utf-8"), parse_constant=reject_constant)
        except (ValueError, UnicodeDecodeError) as error:
            failures.append((path, "$", f"not JSON: {error}"))
            continue
        failures += [(path, where, message) for where, message in problems(validator, report, "$")]
        failed_results += sum(1 for r in report.get("results", []) if r.get("status") == "failed")
    return conclude(failures, f"report schema: {len(failures)} problems in {len(paths)} reports",
                    f"report schema: {len(paths)} reports valid, {failed_results} failed results with every field")


def main():
    sys.stdout.reconfigure(errors="backslashreplace")
    if sys.argv[1:2] == ["--report"]:
        return check_reports(sys.argv[2:])
    vectors_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else VECTORS
    vectors_schema = json.loads((HERE / "vectors.schema.json").read_text("utf-8"))
    protocol_schema = json.loads((HERE / "protocol-v1.schema.json").read_text("utf-8"))
    broken = False
    for name, schema in (("vectors.schema.json", vectors_schema), ("protocol-v1.schema.json", protocol_schema)):
        try:
            Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as error:
            print(f"FAIL {name}: not a valid JSON Schema 2020-12 at {json_path('$', error.absolute_path)}: {error.message}")
            broken = True
    if broken:
        return 2

    base = protocol_schema["$id"]
    registry = Registry().with_resource(base, Resource.from_contents(protocol_schema))
    defs = protocol_schema["$defs"]

    def protocol(name):
        return Validator({"$ref": f"{base}#/$defs/{name}"}, registry=registry)

    file_validator = Validator(vectors_schema)
    message_validator = Validator(protocol_schema, registry=registry)
    request, response = protocol("request"), protocol("response")
    outputs = {name[len("output-"):]: protocol(name) for name in defs if name.startswith("output-")}

    failures = []  # (where, path, message)

    # The transcript of the README, as a smoke test of the message schema.
    for line in (
        '{"id":"0","op":"describe","input":{}}',
        '{"id":"0","output":{"name":"my-port","version":"1.0.0","features":["uri"],"protocol":1}}',
        '{"id":"2","error":{"code":"SESSION_REFERENCE_INVALID_REFERENCE","message":"bad"}}',
    ):
        for path, message in problems(message_validator, json.loads(line), "$"):
            failures.append(("protocol-v1.schema.json (self-test)", path, message))

    files = sorted(vectors_dir.rglob("*.json"))
    seen = {}
    count = 0
    for file in files:
        where = file.relative_to(vectors_dir.parent.parent) if vectors_dir == VECTORS else file
        try:
            document = json.loads(file.read_text("utf-8"), parse_constant=reject_constant)
        except (ValueError, UnicodeDecodeError) as error:
            failures.append((where, "$", f"not JSON: {error}"))
            continue
        for path, message in problems(file_validator, document, "$"):
            index = re.match(r"\$\.vectors\[(\d+)\]", path)
            vector = document["vectors"][int(index.group(1))] if index else None
            label = f"{where}, {show_id(vector.get('id', '?'))}" if isinstance(vector, dict) else str(where)
            failures.append((label, path, message))
        entries = document.get("vectors") if isinstance(document, dict) else None
        for index, vector in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(vector, dict):
                continue
            count += 1
            vector_id = vector.get("id", "?")
            label, prefix = f"{where}, {show_id(vector_id)}", f"$.vectors[{index}]"
            if isinstance(vector_id, str) and vector_id in seen:
                failures.append((label, f"{prefix}.id", f"duplicate id (first in {seen[vector_id]})"))
            if isinstance(vector_id, str):
                seen.setdefault(vector_id, where)
            op, expect = vector.get("op"), vector.get("expect")
            if not isinstance(op, str) or not isinstance(vector.get("input"), dict) or not isinstance(expect, dict):
                continue  # already reported against vectors.schema.json
            # An input with an ill-typed member is outside the typed request
            # by definition (protocol.input-types); vectors.schema.json has
            # checked that it is an object.
            if "dynamic-inputs" not in (vector.get("requires") or []):
                message = {"id": "1", "op": op, "input": vector["input"]}
                failures += [(label, path, text) for path, text in problems(request, message, prefix, strip=0)]
            if "output" in expect:
                answer = {"id": "1", "output": expect["output"]}
                failures += [(label, path, text) for path, text in problems(response, answer, f"{prefix}.expect")]
                # An output may copy an ill-typed member as given.
                if op.replace("/", "-") in outputs and "dynamic-inputs" not in (vector.get("requires") or []):
                    checker = outputs[op.replace("/", "-")]
                    failures += [(label, path, text) for path, text in problems(checker, expect["output"], f"{prefix}.expect.output")]
            elif "error" in expect:
                answer = {"id": "1", "error": {"code": expect["error"], "message": ""}}
                failures += [(label, path.replace(".expect.error.code", ".expect.error"), text)
                             for path, text in problems(response, answer, f"{prefix}.expect")]

    failures = list(dict.fromkeys(failures))  # one report per problem, in order
    return conclude(failures, f"schema: {len(failures)} problems in {count} vectors in {len(files)} files",
                    f"schema: {count} vectors in {len(files)} files valid")


def main_with_deep_stack():
    """Runs main() where Python's recursive JSON reader and the schema
    validator reach the depth vectors (spec wire.json.depth: 1 500 levels):
    a higher recursion limit, on a thread with the stack for it."""
    import threading

    sys.setrecursionlimit(100_000)
    threading.stack_size(512 * 1024 * 1024)
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(main()))
    worker.start()
    worker.join()
    return outcome[0] if outcome else 1


if __name__ == "__main__":
    sys.exit(main_with_deep_stack())
