#!/usr/bin/env python3
"""A minimal conformance adapter: the `uri` feature in plain Python 3.

Written from spec/uri.md and spec/adapter-protocol.md alone, as a teaching
example. Run it with

    cargo run --release -- conformance --impl "python3 conformance/adapters/python-minimal/adapter.py"

Python strings are sequences of code points, JavaScript strings of UTF-16
code units. json.loads turns a lone-surrogate escape such as "\\ud800" into a
lone surrogate code point (and an escaped pair into one astral character), so
every JavaScript string arrives intact; json.dumps with ensure_ascii=True
writes it back as escapes. Never decode or encode such a string as UTF-8
without first escaping its lone surrogates: that would raise or replace them.
"""
import base64
import binascii
import json
import sys

SCHEME = "dsh-session:"
BASE64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


class ContractError(Exception):
    """A failure with one of the seven stable codes."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def js_string_literal(text):
    """ECMAScript JSON.stringify of a string (uri.encode.json-literal, .lone-surrogate)."""
    out = []
    for char in text:
        point = ord(char)
        if char in SHORT_ESCAPES:
            out.append(SHORT_ESCAPES[char])
        elif point < 0x20 or 0xD800 <= point <= 0xDFFF:
            out.append("\\u%04x" % point)  # lowercase hex; a surrogate here is always lone
        else:
            out.append(char)  # everything else raw: /, U+007F, U+2028, astral characters...
    return '"' + "".join(out) + '"'


def encode(session_id):
    literal = js_string_literal(session_id).encode("utf-8")  # no surrogates left: plain UTF-8
    return SCHEME + base64.urlsafe_b64encode(literal).decode("ascii").rstrip("=")


def decode(uri):
    invalid = ContractError("SESSION_REFERENCE_INVALID_REFERENCE", "invalid session reference URI " + json.dumps(uri))
    if not uri.startswith(SCHEME):
        raise invalid
    payload = uri[len(SCHEME):]
    if not payload or not set(payload) <= BASE64URL or len(payload) % 4 == 1:
        raise invalid
    try:
        data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        value = json.loads(data.decode("utf-8"))  # strict UTF-8: invalid bytes fail
    except (ValueError, binascii.Error, RecursionError):
        raise invalid
    # Only the encoder's exact output is accepted (uri.decode.canonical): this
    # rejects other escapes, whitespace, trailing bits and non-strings at once.
    if not isinstance(value, str) or encode(value) != uri:
        raise invalid
    return value


def string_input(request_input, name):
    value = request_input.get(name) if isinstance(request_input, dict) else None
    if not isinstance(value, str):
        raise TypeError("input.%s must be a string" % name)
    return value


OPS = {
    # Python's json module keeps lone surrogates in str, so this adapter has
    # the capability (spec protocol.capabilities).
    "describe": lambda _: {
        "name": "python-minimal",
        "version": "0.1.0",
        "features": ["uri"],
        "capabilities": ["lone-surrogates"],
    },
    "uri/encode": lambda request_input: encode(string_input(request_input, "sessionId")),
    "uri/decode": lambda request_input: decode(string_input(request_input, "uri")),
}


def answer(raw):
    try:
        request = json.loads(raw.decode("utf-8"))
        if not isinstance(request, dict):
            raise ValueError("a request is an object")
    except ValueError as error:  # bad UTF-8 or bad JSON: there is no id to echo
        return {"id": None, "error": {"code": "INTERNAL", "message": "bad request: %s" % error}}
    request_id, name = request.get("id"), request.get("op")
    op = OPS.get(name) if isinstance(name, str) else None
    if op is None:
        return {"id": request_id, "error": {"code": "UNSUPPORTED", "message": "unknown op %r" % (name,)}}
    try:
        return {"id": request_id, "output": op(request.get("input"))}
    except ContractError as error:
        return {"id": request_id, "error": {"code": error.code, "message": str(error)}}
    except Exception as error:  # anything else is outside the contract
        return {"id": request_id, "error": {"code": "INTERNAL", "message": repr(error)}}


def main():
    for raw in sys.stdin.buffer:  # split on b"\n" only; the loop ends when stdin closes
        if not raw.strip():
            continue
        # ensure_ascii=True escapes every non-ASCII code point, lone surrogates
        # included (as \udxxx), so the line is valid JSON and plain ASCII.
        sys.stdout.write(json.dumps(answer(raw), ensure_ascii=True) + "\n")
        sys.stdout.flush()  # exactly one answer per request, flushed at once


def main_with_deep_stack():
    """Serves where json.loads and json.dumps reach every op's contracted
    depth (spec wire.json.depth: 1 500 levels): both recurse, so Python's
    default recursion limit of 1 000 fails the depth vectors. A higher
    limit alone would overflow the interpreter's C stack: the loop runs on
    a thread with a stack to match."""
    import threading

    sys.setrecursionlimit(50_000)
    threading.stack_size(512 * 1024 * 1024)
    server = threading.Thread(target=main)
    server.start()
    server.join()


if __name__ == "__main__":
    main_with_deep_stack()
