// Runs an adapter as if it declared more capabilities (spec
// adapter-protocol, protocol.capabilities):
//
//   node conformance/adapters/common/declare.mjs CAPABILITY[,CAPABILITY…] -- COMMAND [ARGS…]
//
// Every request goes to COMMAND unchanged and every answer comes back
// unchanged, except that the answer to `describe` lists the capabilities
// too. For an adapter that answers as its capabilities say but does not
// declare them, such as the newer build's (`../shared/oracles/upstream-un-a`):
// a JavaScript adapter reads every input as `JSON.parse` builds it, so it
// may declare `dynamic-inputs`. It changes no answer, so nothing upstream's
// code decides.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const separator = process.argv.indexOf("--");
if (separator !== 3 || process.argv.length < 5) {
  process.stderr.write("usage: declare.mjs CAPABILITY[,CAPABILITY…] -- COMMAND [ARGS…]\n");
  process.exit(2);
}
const added = process.argv[2].split(",").filter((name) => name !== "");
const [command, ...args] = process.argv.slice(separator + 1);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
child.on("exit", (code) => process.exit(code ?? 1));

/** The ids of the `describe` requests whose answers are still to come. */
const describes = new Set();

createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on("line", (line) => {
    try {
      const request = JSON.parse(line);
      if (request?.op === "describe") describes.add(request.id);
    } catch {
      // Not JSON: the adapter answers it as it does.
    }
    child.stdin.write(`${line}\n`);
  })
  .on("close", () => child.stdin.end());

createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
  let out = line;
  try {
    const response = JSON.parse(line);
    if (describes.delete(response?.id) && response.output !== null && typeof response.output === "object") {
      const declared = Array.isArray(response.output.capabilities) ? response.output.capabilities : [];
      response.output.capabilities = [...declared, ...added.filter((name) => !declared.includes(name))];
      out = JSON.stringify(response);
    }
  } catch {
    // Passed on as it is.
  }
  process.stdout.write(`${out}\n`);
});
