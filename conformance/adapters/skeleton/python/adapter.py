#!/usr/bin/env python3
"""A conformance adapter for your port of session references.

Written by `dsh-session-reference init --lang python`: the protocol's framing
(spec/adapter-protocol.md), `describe`, and one stub per op. Every stub
answers UNSUPPORTED, so the suite skips its vectors and nothing fails; replace
a stub's body with a call into your port and that op's vectors run. Standard
library only. Run the suite from this folder:

    dsh-session-reference conformance --impl "python3 adapter.py"

The report's line `implement first: OP` names the op most vectors wait on.
"""
import json
import sys
import threading

# What `describe` answers (spec protocol.describe). `release` names the
# upstream release your port follows: 0.1.0-rc.8 is the npm package
# @deepseek-ai/dsh-session-reference@0.1.0-rc.8 (`dsh-session-reference
# adapter --help` lists the others). With a release and no `features`,
# every op is yours to answer.
DESCRIBE = {
    "name": "my-port",
    "version": "0.0.0",
    "protocol": 1,
    "release": "0.1.0-rc.8",
    # What your port can hold (spec protocol.capabilities): "lone-surrogates"
    # once it keeps strings such as "\ud800" (json.loads and json.dumps with
    # ensure_ascii=True do), "optional-seq" once it reads a snapshot without
    # capturedThroughSeq, "dynamic-inputs" once it answers members of another
    # JSON type as upstream does. Vectors that need one you leave out are
    # skipped.
    "capabilities": [],
}


class Unsupported(Exception):
    """An op not written yet: answered UNSUPPORTED, its vectors skipped."""


class ContractError(Exception):
    """A failure with one of the seven stable codes (spec protocol.errors),
    such as ContractError("SESSION_REFERENCE_INVALID_REFERENCE", "…")."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


# One stub per op (spec protocol.ops); each takes the request's `input`
# object and returns the output, or raises ContractError.


def uri_encode(request_input):
    """{sessionId} -> the URI string (spec/uri.md)."""
    raise Unsupported


def uri_decode(request_input):
    """{uri} -> the session id, or SESSION_REFERENCE_INVALID_REFERENCE (spec/uri.md)."""
    raise Unsupported


def mention_format(request_input):
    """{sessionId, label?} -> the mention string (spec/mention.md)."""
    raise Unsupported


def mention_parse(request_input):
    """{text} -> {text, references} (spec/mention.md)."""
    raise Unsupported


def json_tag_safe(request_input):
    """{value} -> the tag-safe JSON text (spec/json.md)."""
    raise Unsupported


def retain(request_input):
    """{snapshot, label, maxBytes} -> {data, stats} or None (spec/retention.md)."""
    raise Unsupported


def prepare(request_input):
    """{config?, agent, content, references, sessions, …} -> {content, additionalContext?} (spec/prepare.md)."""
    raise Unsupported


def pre_step(request_input):
    """{config?, agent, messages, sessions, …} -> the message list (spec/pre-step.md)."""
    raise Unsupported


def config_check(request_input):
    """{config} -> True, or SESSION_REFERENCE_INVALID_CONFIG (spec/config.md)."""
    raise Unsupported


def candidates_list(request_input):
    """{config?, agent, sessions, query?, limit?} -> the candidate list (spec/candidates.md)."""
    raise Unsupported


def candidates_remote(request_input):
    """{config?, agent, sessions, query?} -> the candidates with their mentions (spec/candidates.md)."""
    raise Unsupported


def files_token(request_input):
    """{line, cursor} -> the file token (spec/files.md)."""
    raise Unsupported


def files_format(request_input):
    """{candidate, preserveQuote?} -> the mention string or None (spec/files.md)."""
    raise Unsupported


def files_list(request_input):
    """{tree, query, config?} -> [{path, kind}] (spec/files.md)."""
    raise Unsupported


OPS = {
    "describe": lambda _: DESCRIBE,
    "uri/encode": uri_encode,
    "uri/decode": uri_decode,
    "mention/format": mention_format,
    "mention/parse": mention_parse,
    "json/tag-safe": json_tag_safe,
    "retain": retain,
    "prepare": prepare,
    "pre-step": pre_step,
    "config/check": config_check,
    "candidates/list": candidates_list,
    "candidates/remote": candidates_remote,
    "files/token": files_token,
    "files/format": files_format,
    "files/list": files_list,
}


def answer(raw):
    """The response to one request line (spec protocol.framing)."""
    try:
        request = json.loads(raw.decode("utf-8"))
        if not isinstance(request, dict):
            raise ValueError("a request is an object")
    except (ValueError, RecursionError) as error:  # no id to echo
        return {"id": None, "error": {"code": "INTERNAL", "message": "bad request: %s" % error}}
    request_id, name = request.get("id"), request.get("op")
    op = OPS.get(name) if isinstance(name, str) else None
    try:
        if op is None:
            raise Unsupported
        return {"id": request_id, "output": op(request.get("input"))}
    except Unsupported:
        return {"id": request_id, "error": {"code": "UNSUPPORTED", "message": "%s is not implemented" % (name,)}}
    except ContractError as error:
        return {"id": request_id, "error": {"code": error.code, "message": str(error)}}
    except Exception as error:  # anything else is outside the contract
        return {"id": request_id, "error": {"code": "INTERNAL", "message": repr(error)}}


def serve():
    for raw in sys.stdin.buffer:  # split on b"\n" only; ends when stdin closes
        if not raw.strip():
            continue
        # ensure_ascii=True writes every non-ASCII code point, lone
        # surrogates included, as an escape: the line is plain ASCII JSON.
        sys.stdout.write(json.dumps(answer(raw), ensure_ascii=True) + "\n")
        sys.stdout.flush()  # exactly one answer per request, at once


def main():
    """Serves on a thread with a deep stack: requests nest up to 1 500
    levels (spec wire.json.depth), and json.loads and json.dumps recurse."""
    sys.setrecursionlimit(50_000)
    threading.stack_size(512 * 1024 * 1024)
    server = threading.Thread(target=serve)
    server.start()
    server.join()


if __name__ == "__main__":
    main()
