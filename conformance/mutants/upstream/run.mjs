// Mutation run over upstream's own code (issue #22): how many realistic bugs
// in the oracles' JavaScript the conformance vectors catch.
//
//   node conformance/mutants/upstream/run.mjs --oracle rc8|un-a [options]
//
// 1. Instrument: Stryker's instrumenter (pinned in package.json) reads the
//    oracle's module (rc.8: the package's lib/index.js; un-a: the newer
//    build's lib/index.js, as its adapter loads it) and places every mutant
//    its standard operators make behind a switch (mutation switching). The
//    instrumented source goes to target/upstream-mutants/ORACLE/, never into
//    the repository; switch.mjs loads it in place of the module.
// 2. Control and coverage: the conformance runner runs the whole suite on the
//    oracle with no mutant active. It must pass every vector it runs (the
//    machinery changes nothing), and each answer records which mutants its
//    request reached.
// 3. Mutants: each mutant is run, by the same runner, on the vectors whose
//    requests reach it (all of them for a mutant reached while the module
//    loads). Killed: a vector fails, or the oracle cannot start. Survived:
//    none fails. No coverage: no vector reaches it.
// 4. Witnesses: for each survivor, `differential` between the faithful and
//    the mutated oracle looks for a request on which they disagree; a
//    witness becomes a vector whose expectation comes from `regen`.
//
// Outcomes are appended as they come to target/upstream-mutants/ORACLE/
// outcomes.jsonl (a stopped run resumes where it stopped: kills stand while
// their vectors do, other outcomes while the suite is the same) and
// summarised into
// conformance/mutants/upstream/ORACLE.json, with the score over the mutants
// that are not ignored (an error's message: errors are compared by code only)
// or listed as equivalent in equivalent.json.
//
// Options:
//   --binary PATH        the harness binary (default target/release/dsh-session-reference)
//   --only ID,ID         these mutants only (their outcomes are merged)
//   --witness-cases N    differential cases per survivor (default 3000; 0: none)
//   --timeout SECS       per vector, for a mutant (default 5; the control has 30)
//   --no-summary         leave ORACLE.json as it is (a smoke run, as CI's)
//   --no-resume          run the mutants again, whatever outcomes.jsonl holds
// touch target/upstream-mutants/ORACLE/STOP: stops after the mutant under way
// and writes the summary.
import { Instrumenter } from "@stryker-mutator/instrumenter";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
}

const oracleName = option("oracle");
const binary = resolve(root, option("binary", "target/release/dsh-session-reference"));
const only = option("only")?.split(",").filter(Boolean);
const witnessCases = Number(option("witness-cases", "3000"));
const timeout = option("timeout", "5");
const work = join(root, "target/upstream-mutants", oracleName ?? "");
/** Vectors in the first, sampled run of a mutant. */
const SAMPLE = 40;

/** Where an oracle's mutated module and adapter are, installed if needed. */
function oracle(name) {
  if (name === "rc8") {
    const dir = join(root, "conformance/adapters/upstream-npm");
    if (!existsSync(join(dir, "node_modules"))) npm(dir);
    const module = realpathSync(join(dir, "node_modules/@deepseek-ai/dsh-session-reference/lib/index.js"));
    return {
      module,
      label: "@deepseek-ai/dsh-session-reference@0.1.0-rc.8 lib/index.js",
      adapter: join(dir, "adapter.mjs"),
    };
  }
  if (name === "un-a") {
    // shared/ is read-only and outside the repository: a copy is installed
    // under target/ (the oracle's README says so).
    const source = resolve(process.env.UPSTREAM_UN_A ?? join(root, "../shared/oracles/upstream-un-a"));
    const copy = join(work, "oracle");
    if (!existsSync(join(copy, "node_modules"))) {
      rmSync(copy, { recursive: true, force: true });
      cpSync(source, copy, { recursive: true });
      npm(copy);
    }
    return {
      module: realpathSync(join(copy, "lib/index.test-exports.js")),
      label: "the newer upstream build's lib/index.js (shared/oracles/upstream-un-a, with its test exports line)",
      adapter: join(copy, "adapter.mjs"),
    };
  }
  throw new Error(`--oracle rc8 or --oracle un-a, not ${JSON.stringify(name)}`);
}

function npm(dir) {
  execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" });
}

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** Mutants whose only effect is an error's message: the runner compares errors by code. */
const messageIgnorer = {
  shouldIgnore(path) {
    const parent = path.parentPath;
    if (parent?.isNewExpression() && path.listKey === "arguments" && path.key === 0) {
      const callee = parent.node.callee;
      if (callee.type === "Identifier" && callee.name.endsWith("Error")) {
        return "an error's message: errors are compared by code only (conformance.comparison)";
      }
    }
    return undefined;
  },
};

const silent = () => {};
const logger = {
  trace: silent, debug: silent, info: silent, warn: console.warn, error: console.error, fatal: console.error,
  isTraceEnabled: () => false, isDebugEnabled: () => false, isInfoEnabled: () => false,
  isWarnEnabled: () => true, isErrorEnabled: () => true, isFatalEnabled: () => true,
};

/**
 * The lines (from 1) of what the TypeScript compiler emits into the bundle
 * to apply decorators: its helpers (`var __esDecorate = function(…) {` down
 * to the closing `};`), the class's `static {` block that calls them, and
 * the field initializer that runs their initializers.
 */
function emittedHelpers(lines) {
  const helpers = [];
  lines.forEach((text, index) => {
    const helper = /^var (__\w+) = function\(/.exec(text);
    if (helper !== null) {
      const end = lines.findIndex((line, at) => at > index && line === "};");
      if (end !== -1) helpers.push({ name: helper[1], start: index + 1, end: end + 1 });
    }
    const block = /^(\s*)static \{$/.exec(text);
    if (block !== null && /^\s*return class \w+ extends _classSuper \{$/.test(lines[index - 1] ?? "")) {
      const end = lines.findIndex((line, at) => at > index && line === `${block[1]}}`);
      if (end !== -1) helpers.push({ name: "the decorators' static block", start: index + 1, end: end + 1 });
    }
    if (/= __runInitializers\(this, /.test(text)) {
      helpers.push({ name: "__runInitializers", start: index + 1, end: index + 1 });
    }
  });
  return helpers;
}

async function instrument(module) {
  const source = readFileSync(module, "utf8");
  const result = await new Instrumenter(logger).instrument([{ name: module, content: source, mutate: true }], {
    plugins: null,
    ignorers: [messageIgnorer],
    excludedMutations: [],
  });
  const lines = source.split("\n");
  const original = ({ start, end }) => {
    // Stryker's mutant locations count lines and columns from 0.
    if (start.line === end.line) return lines[start.line].slice(start.column, end.column);
    const middle = lines.slice(start.line + 1, end.line);
    return [lines[start.line].slice(start.column), ...middle, lines[end.line].slice(0, end.column)].join("\n");
  };
  const helpers = emittedHelpers(lines);
  const mutants = result.mutants.map((mutant) => {
    const line = mutant.location.start.line + 1;
    const helper = helpers.find(({ start, end }) => start <= line && line <= end);
    const ignored = mutant.status === "Ignored"
      ? mutant.statusReason
      : helper && `in ${helper.name}, emitted by the TypeScript compiler to apply decorators: not upstream's code`;
    return {
      id: mutant.id,
      mutator: mutant.mutatorName,
      line,
      column: mutant.location.start.column + 1,
      original: original(mutant.location),
      replacement: mutant.replacement,
      ...(ignored ? { ignored } : {}),
    };
  });
  return { source, code: result.files[0].content, mutants };
}

/** Runs the conformance runner; its JSON report, or null when it could not use the oracle (exit 2). */
function conformance(command, env, filters = [], seconds = timeout) {
  const args = ["conformance", "--impl", command, "--format", "json", "--timeout", seconds];
  for (const filter of filters) args.push("--filter", filter);
  const run = spawnSync(binary, args, { env: { ...process.env, ...env }, maxBuffer: 1 << 30, encoding: "utf8" });
  if (run.status === 2) return { unusable: run.stderr.trim().split("\n").slice(-3).join(" | ") };
  if (run.status !== 0 && run.status !== 1) throw new Error(`conformance exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

function differential(faithful, mutated, env) {
  const args = ["differential", "--a", faithful, "--b", mutated, "--cases", String(witnessCases), "--seed", "1",
    "--format", "json", "--time-limit", "300", "--timeout", timeout];
  const run = spawnSync(binary, args, { env: { ...process.env, ...env }, maxBuffer: 1 << 30, encoding: "utf8" });
  if (run.status === 2 && run.stdout.trim() === "") return { unusable: run.stderr.trim().split("\n").slice(-3).join(" | ") };
  const report = JSON.parse(run.stdout);
  const first = report.classes?.[0];
  return {
    agree: `${report.agree}/${report.compared}`,
    classes: report.classes?.length ?? 0,
    ...(first ? { witness: { op: first.op, signature: first.signature, request: first.example?.request } } : {}),
  };
}

const { module, label, adapter } = oracle(oracleName);
mkdirSync(work, { recursive: true });
const { source, code, mutants } = await instrument(module);
const codeFile = join(work, "instrumented.js");
writeFileSync(codeFile, code);
writeFileSync(join(work, "mutants.json"), JSON.stringify(mutants, null, 1));
const switchModule = join(here, "switch.mjs");
const command = `node --import '${switchModule}' '${adapter}'`;
const baseEnv = { UPSTREAM_MUTANTS_TARGET: module, UPSTREAM_MUTANTS_CODE: codeFile, __STRYKER_ACTIVE_MUTANT__: "" };

// Control and coverage.
const coverageFile = join(work, "coverage.jsonl");
rmSync(coverageFile, { force: true });
const control = conformance(command, { ...baseEnv, UPSTREAM_MUTANTS_COVERAGE: coverageFile }, [], "30");
if (control.unusable || control.summary.failed !== 0) {
  throw new Error(`the control (no mutant active) must pass: ${JSON.stringify(control.unusable ?? control.summary)}`);
}
const records = readFileSync(coverageFile, "utf8").trim().split("\n").map((line) => JSON.parse(line));
const ran = control.results.filter((result) => !result.status.startsWith("skipped"));
if (records.length !== ran.length + 1) {
  throw new Error(`coverage: ${records.length} answers for describe and ${ran.length} vectors`);
}
const suite = control.suite;
const reachedAtLoad = new Set(Object.keys(records[0].reached));
const reachedBy = new Map();
// The most passes through each switch within one faithful request: a
// mutant may take 100 times as many (at least 10 000) before its request
// is failed as a hang (Stryker's hit limit).
const mostHits = new Map();
records.forEach((record, index) => {
  for (const [id, hits] of Object.entries(record.reached)) {
    mostHits.set(id, Math.max(mostHits.get(id) ?? 0, hits));
    if (index === 0) continue;
    if (!reachedBy.has(id)) reachedBy.set(id, []);
    reachedBy.get(id).push(ran[index - 1].id);
  }
});
console.error(`${label}: ${mutants.length} mutants, control passed ${control.summary.passed} vectors`);

// Outcomes, resumed where the same instrumented code left them: a kill
// stands while the vectors that killed it are in the suite; any other
// outcome stands only for the same suite (a new vector may kill it).
const key = sha256(code);
const vectorIds = new Set(control.results.map((result) => result.id));
const outcomesFile = join(work, "outcomes.jsonl");
const done = new Map();
// A survivor's differential does not depend on the suite: kept for a re-run.
const witnessSearched = new Map();
if (existsSync(outcomesFile) && !process.argv.includes("--no-resume")) {
  // The latest outcome of each mutant decides: an earlier one, run before
  // a fix to this script or on another suite, never stands in for it.
  const latest = new Map();
  for (const line of readFileSync(outcomesFile, "utf8").split("\n").filter(Boolean)) {
    const outcome = JSON.parse(line);
    if (outcome.key !== key) continue;
    latest.set(outcome.id, outcome);
    if (outcome.differential !== undefined) witnessSearched.set(outcome.id, outcome.differential);
  }
  for (const outcome of latest.values()) {
    const stands = outcome.status === "killed"
      ? (outcome.killers ?? []).every((id) => vectorIds.has(id))
      : outcome.suite === suite.hash;
    if (stands) done.set(outcome.id, outcome);
  }
}
const faithfulCommand = command;
// A file STOP in the work folder: finish the mutant under way, then write
// the summary of what was run (the rest counts as not run), so that a
// bounded run commits. (The loop never yields to Node's event loop, so a
// signal handler would not run.)
const stopFile = join(work, "STOP");
rmSync(stopFile, { force: true });
for (const mutant of mutants) {
  if (existsSync(stopFile)) break;
  if (mutant.ignored || done.has(mutant.id) || (only && !only.includes(mutant.id))) continue;
  const atLoad = reachedAtLoad.has(mutant.id);
  const vectors = atLoad ? null : reachedBy.get(mutant.id) ?? [];
  const hitLimit = String(Math.max(10_000, 100 * (mostHits.get(mutant.id) ?? 0)));
  const env = { ...baseEnv, __STRYKER_ACTIVE_MUTANT__: mutant.id, UPSTREAM_MUTANTS_HIT_LIMIT: hitLimit };
  let outcome;
  if (vectors !== null && vectors.length === 0) {
    outcome = { status: "no coverage" };
  } else {
    // A sample spread over the vectors first: most mutants fail many, and
    // two failures settle that no single vector stands alone; otherwise
    // every vector that reaches the mutant runs, and the count is exact.
    const reaching = vectors ?? ran.map((result) => result.id);
    const sample = reaching.length > SAMPLE ? reaching.filter((_, i) => i % Math.ceil(reaching.length / SAMPLE) === 0) : null;
    let report = sample === null ? null : conformance(command, env, sample);
    const failedIn = (run) => run.results.filter((result) => result.status === "failed").map((result) => result.id);
    if (report === null || (!report.unusable && failedIn(report).length < 2)) {
      report = conformance(command, env, vectors ?? []);
    }
    // An oracle that gives no usable answer within the mutant's timeout may
    // only be slow to load on a busy machine: it is tried once more with the
    // control's 30 s before the mutant counts as killed.
    if (report.unusable) report = conformance(command, env, vectors ?? [], "30");
    if (report.unusable) {
      outcome = { status: "killed", by: "the oracle cannot start", detail: report.unusable };
    } else {
      const failed = failedIn(report);
      const exact = report.summary.passed + failed.length >= reaching.length;
      outcome = failed.length > 0
        ? { status: "killed", vectors: exact ? failed.length : `at least ${failed.length}`, killers: failed.slice(0, 5) }
        : { status: "survived", ran: report.summary.passed };
    }
  }
  if (outcome.status !== "killed" && witnessSearched.has(mutant.id)) {
    outcome.differential = witnessSearched.get(mutant.id);
  } else if (outcome.status !== "killed" && witnessCases > 0) {
    const mutated = command.replace("node ", `__STRYKER_ACTIVE_MUTANT__=${mutant.id} UPSTREAM_MUTANTS_HIT_LIMIT=${hitLimit} node `);
    outcome.differential = differential(faithfulCommand, mutated, baseEnv);
  }
  const row = { key, suite: suite.hash, id: mutant.id, ...outcome };
  appendFileSync(outcomesFile, `${JSON.stringify(row)}\n`);
  done.set(mutant.id, row);
  console.error(`${mutant.id} ${mutant.mutator} ${mutant.line}:${mutant.column} ${outcome.status}${outcome.killers ? ` (${outcome.vectors} vectors)` : ""}`);
}

// The summary, committed.
if (process.argv.includes("--no-summary")) process.exit(0);
const equivalent = JSON.parse(readFileSync(join(here, "equivalent.json"), "utf8"))[oracleName] ?? {};
const counts = {
  mutants: mutants.length, ignored: 0, equivalent: 0, "outside the protocol": 0,
  killed: 0, survived: 0, "no coverage": 0, "not run": 0,
};
const rows = mutants.map((mutant) => {
  const outcome = done.get(mutant.id);
  const { key: _key, suite: _suite, id: _id, ...rest } = outcome ?? {};
  let status = mutant.ignored ? "ignored" : outcome?.status ?? "not run";
  const reason = equivalent[mutant.id];
  if (reason !== undefined && status !== "killed") {
    if (reason.replacement !== mutant.replacement) {
      throw new Error(`equivalent.json: mutant ${mutant.id} of ${oracleName} is now ${mutant.replacement}, not ${reason.replacement}`);
    }
    status = reason.outside ? "outside the protocol" : "equivalent";
  }
  counts[status] += 1;
  return { ...mutant, ...rest, status, ...(reason !== undefined && status !== "killed" ? { reason: reason.why } : {}) };
});
const judged = counts.killed + counts.survived + counts["no coverage"];
const summary = {
  oracle: oracleName,
  module: label,
  moduleSha256: sha256(source),
  instrumenter: `@stryker-mutator/instrumenter ${JSON.parse(readFileSync(join(here, "node_modules/@stryker-mutator/instrumenter/package.json"), "utf8")).version}`,
  suite,
  counts,
  score: judged === 0 ? null : Number((counts.killed / judged).toFixed(4)),
  mutants: rows,
};
writeFileSync(join(here, `${oracleName}.json`), `${JSON.stringify(summary, null, 1)}\n`);
console.error(`${relative(root, join(here, `${oracleName}.json`))}: ${JSON.stringify(counts)}, score ${summary.score}`);
