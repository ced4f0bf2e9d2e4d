// Protocol framing shared by the JavaScript adapters (shared/protocol.md,
// spec/adapter-protocol.md): one JSON request per line on stdin, exactly one
// JSON response line per request on stdout, strictly in request order.
// No dependencies, no session-reference behaviour.
import { createInterface } from "node:readline";

/** The seven stable contract codes; any other failure answers INTERNAL. */
export const STABLE_CODES = new Set([
  "SESSION_REFERENCE_INVALID_CONFIG",
  "SESSION_REFERENCE_INVALID_REFERENCE",
  "SESSION_REFERENCE_SELF_REFERENCE",
  "SESSION_REFERENCE_TOO_MANY",
  "SESSION_REFERENCE_READ_FAILED",
  "SESSION_REFERENCE_BUDGET_EXCEEDED",
  "SESSION_REFERENCE_CANCELLED",
]);

/** Map a thrown value to a protocol error: its stable code, else INTERNAL. */
export function failure(error) {
  const code = STABLE_CODES.has(error?.code) ? error.code : "INTERNAL";
  let message;
  try {
    message = String(error?.message ?? error);
  } catch {
    message = "unprintable error";
  }
  return { code, message };
}

async function answer(ops, line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { id: null, error: { code: "INTERNAL", message: `request is not JSON: ${error.message}` } };
  }
  const id = request?.id ?? null;
  const op = typeof request?.op === "string" && Object.hasOwn(ops, request.op) ? ops[request.op] : undefined;
  if (op === undefined) {
    return { id, error: { code: "UNSUPPORTED", message: `unknown op ${String(request?.op)}` } };
  }
  try {
    const output = await op(request.input ?? {});
    return { id, output: output === undefined ? null : output };
  } catch (error) {
    return { id, error: failure(error) };
  }
}

function render(response) {
  try {
    return JSON.stringify(response);
  } catch (error) {
    return JSON.stringify({ id: response.id, error: failure(error) });
  }
}

/**
 * Serve `ops` (name → async (input) => output) on stdin/stdout until stdin
 * closes. Every non-blank line gets exactly one answer line, in order.
 */
export async function serve(ops) {
  // A stray rejection inside the package must not kill the process and leave
  // later requests unanswered; log it and carry on.
  process.on("unhandledRejection", (reason) => {
    process.stderr.write(`unhandled rejection: ${failure(reason).message}\n`);
  });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    process.stdout.write(`${render(await answer(ops, line))}\n`);
  }
}
