// Loaded with `node --import` before an oracle's adapter (run.mjs builds the
// command): ONE module of upstream's code is replaced, as Node loads it, by
// its instrumented version, in which every mutant of the run sits behind a
// switch (Stryker's mutation switching). Nothing mutated is written to the
// repository; the instrumented source lives under target/.
//
// Environment:
//   UPSTREAM_MUTANTS_TARGET    the module's file (absolute)
//   UPSTREAM_MUTANTS_CODE      the file holding its instrumented source
//   __STRYKER_ACTIVE_MUTANT__  the active mutant's id; absent, none is (the
//                              faithful oracle, through the same machinery)
//   UPSTREAM_MUTANTS_COVERAGE  a file to append, per answer line, the id of
//                              the request and how often it reached each mutant
//   UPSTREAM_MUTANTS_HIT_LIMIT how often the active mutant's switch may be
//                              passed within one request (default 5e6)
//
// The rc.8 adapter also reads pieces of the bundle with readFileSync (see
// conformance/adapters/upstream-npm/oracle.mjs); that read sees the same
// instrumented text, and the switch helpers are global so that the pieces it
// evaluates apart from the module reach the same switches.
import fs, { appendFileSync, readFileSync } from "node:fs";
import { register } from "node:module";
import { pathToFileURL } from "node:url";
import { readFileAs } from "./read-as.mjs";

const targetPath = fs.realpathSync(process.env.UPSTREAM_MUTANTS_TARGET);
const instrumented = readFileSync(process.env.UPSTREAM_MUTANTS_CODE, "utf8");
const coverageFile = process.env.UPSTREAM_MUTANTS_COVERAGE;

// The namespace Stryker's helpers read: the active mutant and the coverage.
const ns = (globalThis.__stryker__ ??= {});
if (ns.activeMutant === undefined && process.env.__STRYKER_ACTIVE_MUTANT__) {
  ns.activeMutant = process.env.__STRYKER_ACTIVE_MUTANT__;
}
ns.mutantCoverage ??= { static: {}, perTest: {} };
// A mutant that loops forever would hang each vector until the runner's
// timeout: past this many passes through its switch within one request, the
// switch throws instead (Stryker's hit limit), and the request fails at once.
if (ns.activeMutant !== undefined) {
  ns.hitCount = 0;
  ns.hitLimit = Number(process.env.UPSTREAM_MUTANTS_HIT_LIMIT ?? 5e6);
}
globalThis.stryNS_9fa48 = () => ns;
globalThis.stryMutAct_9fa48 = (id) => {
  if (ns.activeMutant !== id) return false;
  if (ns.hitCount !== undefined && ++ns.hitCount > ns.hitLimit) {
    throw new Error(`mutant ${id}: hit limit reached (${ns.hitCount})`);
  }
  return true;
};
globalThis.stryCov_9fa48 = (...ids) => {
  const reached = ns.mutantCoverage.static;
  for (const id of ids) reached[id] = (reached[id] ?? 0) + 1;
};

register("./switch-hooks.mjs", import.meta.url, {
  data: { url: pathToFileURL(targetPath).href, source: instrumented },
});

readFileAs(targetPath, instrumented);

// Each answer line closes the request it answers: the hit count starts
// again, and with coverage, the mutants reached since the previous line
// (module loading included, for the first) are that request's.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (ns.hitCount !== undefined) ns.hitCount = 0;
  if (coverageFile) {
    let id = null;
    try {
      id = JSON.parse(String(chunk)).id ?? null;
    } catch {
      // Not an answer line: it still closes what was reached.
    }
    const reached = ns.mutantCoverage.static;
    ns.mutantCoverage.static = {};
    appendFileSync(coverageFile, `${JSON.stringify({ id, reached })}\n`);
  }
  return write(chunk, ...rest);
};
