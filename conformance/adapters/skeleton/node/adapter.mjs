#!/usr/bin/env node
// A conformance adapter for your port of session references.
//
// Written by `dsh-session-reference init --lang node`: the protocol's framing
// (spec/adapter-protocol.md), `describe`, and one stub per op. Every stub
// answers UNSUPPORTED, so the suite skips its vectors and nothing fails;
// replace a stub's body with a call into your port and that op's vectors run.
// Node's standard library only. Run the suite from this folder:
//
//     dsh-session-reference conformance --impl "node adapter.mjs"
//
// The report's line `implement first: OP` names the op most vectors wait on.

// What `describe` answers (spec protocol.describe). `release` names the
// upstream release your port follows: 0.1.0-rc.8 is the npm package
// @deepseek-ai/dsh-session-reference@0.1.0-rc.8 (`dsh-session-reference
// adapter --help` lists the others). With a release and no `features`, every
// op is yours to answer.
const DESCRIBE = {
  name: "my-port",
  version: "0.0.0",
  protocol: 1,
  release: "0.1.0-rc.8",
  // What your port can hold (spec protocol.capabilities): "lone-surrogates"
  // (JavaScript strings do: declare it once your code keeps them),
  // "optional-seq" once it reads a snapshot without capturedThroughSeq,
  // "dynamic-inputs" once it answers members of another JSON type as
  // upstream does. Vectors that need one you leave out are skipped.
  capabilities: [],
};

/** An op not written yet: answered UNSUPPORTED, its vectors skipped. */
class Unsupported extends Error {}

/** The seven stable codes (spec protocol.errors): throw an error whose
 * `code` is one of them, e.g. Object.assign(new Error("…"), { code:
 * "SESSION_REFERENCE_INVALID_REFERENCE" }); anything else is INTERNAL. */
const STABLE_CODES = new Set([
  "SESSION_REFERENCE_INVALID_CONFIG",
  "SESSION_REFERENCE_INVALID_REFERENCE",
  "SESSION_REFERENCE_SELF_REFERENCE",
  "SESSION_REFERENCE_TOO_MANY",
  "SESSION_REFERENCE_READ_FAILED",
  "SESSION_REFERENCE_BUDGET_EXCEEDED",
  "SESSION_REFERENCE_CANCELLED",
]);

// One stub per op (spec protocol.ops); each takes the request's `input`
// object and returns the output (or a promise of it), or throws.
const OPS = {
  describe: () => DESCRIBE,
  /** {sessionId} -> the URI string (spec/uri.md). */
  "uri/encode": (input) => { throw new Unsupported(); },
  /** {uri} -> the session id, or SESSION_REFERENCE_INVALID_REFERENCE (spec/uri.md). */
  "uri/decode": (input) => { throw new Unsupported(); },
  /** {sessionId, label?} -> the mention string (spec/mention.md). */
  "mention/format": (input) => { throw new Unsupported(); },
  /** {text} -> {text, references} (spec/mention.md). */
  "mention/parse": (input) => { throw new Unsupported(); },
  /** {value} -> the tag-safe JSON text (spec/json.md). */
  "json/tag-safe": (input) => { throw new Unsupported(); },
  /** {snapshot, label, maxBytes} -> {data, stats} or null (spec/retention.md). */
  retain: (input) => { throw new Unsupported(); },
  /** {config?, agent, content, references, sessions, …} -> {content, additionalContext?} (spec/prepare.md). */
  prepare: (input) => { throw new Unsupported(); },
  /** {config?, agent, messages, sessions, …} -> the message list (spec/pre-step.md). */
  "pre-step": (input) => { throw new Unsupported(); },
  /** {config} -> true, or SESSION_REFERENCE_INVALID_CONFIG (spec/config.md). */
  "config/check": (input) => { throw new Unsupported(); },
  /** {config?, agent, sessions, query?, limit?} -> the candidate list (spec/candidates.md). */
  "candidates/list": (input) => { throw new Unsupported(); },
  /** {config?, agent, sessions, query?} -> the candidates with their mentions (spec/candidates.md). */
  "candidates/remote": (input) => { throw new Unsupported(); },
  /** {line, cursor} -> the file token (spec/files.md). */
  "files/token": (input) => { throw new Unsupported(); },
  /** {candidate, preserveQuote?} -> the mention string or null (spec/files.md). */
  "files/format": (input) => { throw new Unsupported(); },
  /** {tree, query, config?} -> [{path, kind}] (spec/files.md). */
  "files/list": (input) => { throw new Unsupported(); },
};

/** The response to one request line (spec protocol.framing). */
async function answer(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { id: null, error: { code: "INTERNAL", message: `bad request: ${error.message}` } };
  }
  const id = request?.id ?? null;
  const name = request?.op;
  try {
    if (typeof name !== "string" || !Object.hasOwn(OPS, name)) throw new Unsupported();
    const output = await OPS[name](request.input);
    return { id, output: output === undefined ? null : output };
  } catch (error) {
    if (error instanceof Unsupported) {
      return { id, error: { code: "UNSUPPORTED", message: `${String(name)} is not implemented` } };
    }
    const code = STABLE_CODES.has(error?.code) ? error.code : "INTERNAL";
    return { id, error: { code, message: String(error?.message ?? error) } };
  }
}

/** Reads standard input as bytes, one request per line feed (a carriage
 * return is JSON whitespace, never a line end), and writes exactly one
 * response line per request, in order, until standard input closes. A
 * request line of megabytes arrives in many chunks: they are joined once,
 * when its line feed comes. */
async function serve() {
  const decoder = new TextDecoder("utf-8");
  let parts = [];
  for await (const chunk of process.stdin) {
    let start = 0;
    let end;
    while ((end = chunk.indexOf(0x0a, start)) >= 0) {
      parts.push(chunk.subarray(start, end));
      const line = decoder.decode(Buffer.concat(parts));
      parts = [];
      start = end + 1;
      if (line.trim() === "") continue;
      // JSON.stringify escapes lone surrogates: one line of valid JSON.
      process.stdout.write(`${JSON.stringify(await answer(line))}\n`);
    }
    parts.push(chunk.subarray(start));
  }
}

await serve();
