// Conformance adapter for the upstream oracle,
// @deepseek-ai/dsh-session-reference@0.1.0-rc.8 (pinned in package.json).
// Protocol: one JSON request per line on stdin, one JSON response per line on
// stdout (spec/adapter-protocol.md). Every answer comes from the package's
// own code; nothing here re-implements its behaviour.
import * as upstream from "@deepseek-ai/dsh-session-reference";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const PACKAGE = "@deepseek-ai/dsh-session-reference";
const bundlePath = fileURLToPath(import.meta.resolve(PACKAGE));
const packageJson = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.resolve(PACKAGE)), "utf8"),
);

// stringifyTagSafeJson is internal to the bundle (not exported). Load the
// function's own source text from the installed bundle, so that json/tag-safe
// answers with upstream's code rather than a copy of it.
const stringifyTagSafeJson = (() => {
  const bundle = readFileSync(bundlePath, "utf8");
  const found = /function stringifyTagSafeJson\(value\) \{[\s\S]*?\n\}/.exec(bundle);
  if (found === null) throw new Error(`stringifyTagSafeJson not found in ${bundlePath}`);
  return new Function(`${found[0]}\nreturn stringifyTagSafeJson;`)();
})();

const FEATURES = ["uri", "mention", "json"];

const ops = {
  describe: () => ({ name: PACKAGE, version: packageJson.version, features: FEATURES }),
  "uri/encode": ({ sessionId }) => upstream.encodeSessionReferenceUri(sessionId),
  "uri/decode": ({ uri }) => upstream.decodeSessionReferenceUri(uri),
  "mention/format": (input) => upstream.formatSessionReferenceMention(input),
  "mention/parse": ({ text }) => upstream.parseSessionReferenceText(text),
  "json/tag-safe": (input) => stringifyTagSafeJson(input.value),
};

const STABLE_CODES = new Set([
  "SESSION_REFERENCE_INVALID_CONFIG",
  "SESSION_REFERENCE_INVALID_REFERENCE",
  "SESSION_REFERENCE_SELF_REFERENCE",
  "SESSION_REFERENCE_TOO_MANY",
  "SESSION_REFERENCE_READ_FAILED",
  "SESSION_REFERENCE_BUDGET_EXCEEDED",
  "SESSION_REFERENCE_CANCELLED",
]);

function failure(error) {
  const code = STABLE_CODES.has(error?.code) ? error.code : "INTERNAL";
  return { code, message: String(error?.message ?? error) };
}

async function answer(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { id: null, error: { code: "INTERNAL", message: `request is not JSON: ${error.message}` } };
  }
  const op = ops[request.op];
  if (op === undefined) {
    return { id: request.id, error: { code: "UNSUPPORTED", message: `unknown op ${request.op}` } };
  }
  try {
    return { id: request.id, output: await op(request.input ?? {}) };
  } catch (error) {
    return { id: request.id, error: failure(error) };
  }
}

// Requests are answered strictly in order, one line each.
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  process.stdout.write(`${JSON.stringify(await answer(line))}\n`);
}
