// The protocol round trip, side by side: the three requests of issue #13
// sent to the reference adapter and to the upstream npm adapter, each
// timed from writing the request line to reading the response line, best of
// RUNS (default 3), in one run, the two adapters taking turns.
//
//   node benches/round-trip.mjs                     # both adapters, best of 3
//   RUNS=5 node benches/round-trip.mjs
//   OURS="target/release/dsh-session-reference adapter" node benches/round-trip.mjs
//   SKIP_UPSTREAM_PREPARE=1 node benches/round-trip.mjs   # upstream prepare is ~25 s a call
//
// The requests (inputs built with the benches' xorshift32 generator):
// - candidates/list over 100 000 sessions (the listing of
//   benches/candidates.rs without subagent labels, ~7.5 MB), query "plan",
//   agent in /work/project;
// - mention/parse of a 1.28 MB text with a mention about every 46 bytes (the
//   `dense` text of benches/parse.rs at that size);
// - prepare with one reference to a session of 8 000 messages (the
//   workload of benches/retention.rs and benches/oracle/prepare.mjs).
// Each adapter answers a `describe` first, so process start-up is not timed.
// The outputs of mention/parse are compared; candidates/list and prepare
// answer in the newest generation's form here (upstream is rc.8), so their
// sizes are printed instead (the differential compares them by generation).
// ORACLE_JSON=1: one JSON line per request on stdout, the table on stderr.
// DUMP_DIR=dir: only write the three request lines to dir/<name>.jsonl (for
// profiling an adapter on its own: `adapter < dir/candidates.jsonl`).
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { upstream } from "../conformance/adapters/upstream-npm/oracle.mjs";
import { Rng, log, emit, SESSION_WORDS, PROSE_WORDS, MESSAGE_WORDS } from "./oracle/common.mjs";

const RUNS = Number(process.env.RUNS ?? 3);
const OURS = process.env.OURS ?? "target/release/dsh-session-reference adapter";
const UPSTREAM = process.env.UPSTREAM ?? "node conformance/adapters/upstream-npm/adapter.mjs";


function candidatesRequest(count) {
  const rng = new Rng();
  const sessions = [];
  for (let index = 0; index < count; index++) {
    const words = 2 + rng.below(3);
    const title = [];
    for (let w = 0; w < words; w++) title.push(rng.pick(SESSION_WORDS));
    const id = `session-${String(index).padStart(6, "0")}-${rng.next().toString(16).padStart(8, "0")}`;
    const session = { id };
    if (index % 3 === 0) session.cwd = "/work/project";
    else if (index % 3 === 2) session.cwd = `/work/other-${index % 97}`;
    session.createdAt = index;
    if (index % 10 !== 0) session.title = title.join(" ");
    sessions.push(session);
  }
  return {
    op: "candidates/list",
    input: { agent: { id: "session-000001-00000000", cwd: "/work/project" }, query: "plan", sessions },
  };
}

function mentionRequest(len) {
  const rng = new Rng();
  const parts = [];
  let size = 0;
  let count = 0;
  for (;;) {
    const word = rng.pick(PROSE_WORDS);
    const uri = upstream.encodeSessionReferenceUri(`session-${count}`);
    const segment = rng.below(2) === 0 ? `${word} @[label ${count}](${uri}) ` : `${word} ${uri} `;
    if (size + segment.length > len) break;
    parts.push(segment);
    size += segment.length;
    count++;
  }
  return { op: "mention/parse", input: { text: parts.join("") + " ".repeat(len - size) }, mentions: count };
}

function prepareRequest(n) {
  const rng = new Rng();
  const message = () => {
    const len = 160 + rng.below(41);
    let out = "";
    while (out.length < len) {
      if (out.length > 0) out += " ";
      out += MESSAGE_WORDS[rng.below(MESSAGE_WORDS.length)];
    }
    return out.slice(0, len);
  };
  const events = [];
  for (let index = 0; index < n; index++) {
    const content = [{ type: "text", text: message() }];
    events.push(
      index % 2 === 0
        ? { type: "user/message", data: { source: { kind: "user" }, content } }
        : { type: "assistant/message", data: { message: { role: "assistant", content } } },
    );
  }
  const snapshot = { session: { id: "bench-session", cwd: "/workspace/bench" }, capturedThroughSeq: 2 * n, events };
  return {
    op: "prepare",
    input: {
      agent: { id: "bench-agent" },
      content: [{ type: "text", text: "see @Bench session" }],
      references: [{ sessionId: "bench-session", label: "Bench session" }],
      sessions: { "bench-session": snapshot },
    },
  };
}

/** An adapter process answering one request at a time. */
class Adapter {
  constructor(command) {
    const [program, ...args] = command.split(" ").filter(Boolean);
    this.child = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
    this.waiting = [];
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on("line", (line) => {
      this.waiting.shift()?.(line);
    });
    this.next = 0;
  }
  /** Sends one request line; resolves with [seconds, response line]. */
  async send(op, input) {
    const line = JSON.stringify({ id: String(this.next++), op, input }) + "\n";
    const answered = new Promise((resolve) => this.waiting.push(resolve));
    const started = process.hrtime.bigint();
    this.child.stdin.write(line);
    const response = await answered;
    return [Number(process.hrtime.bigint() - started) / 1e9, response];
  }
  close() {
    this.child.stdin.end();
  }
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
const ms = (s) => `${(s * 1e3).toFixed(s < 0.01 ? 2 : 1)} ms`;
const outputOf = (line) => JSON.stringify(JSON.parse(line).output ?? JSON.parse(line).error);

const requests = [
  ["candidates/list, 100 000 sessions, query \"plan\"", "round-trip/candidates-100k", candidatesRequest(100_000), false, 3],
  ["mention/parse, dense 1.28 MB", "round-trip/mention-dense", mentionRequest(1_280_000), true, 5],
  ["prepare, one session of 8 000 messages", "round-trip/prepare-8000", prepareRequest(8000), false, 1000],
];

if (process.env.DUMP_DIR) {
  mkdirSync(process.env.DUMP_DIR, { recursive: true });
  for (const [, id, { op, input }] of requests) {
    const name = id.split("/").pop();
    writeFileSync(`${process.env.DUMP_DIR}/${name}.jsonl`, JSON.stringify({ id: "1", op, input }) + "\n");
  }
  process.exit(0);
}

const ours = new Adapter(OURS);
const theirs = new Adapter(UPSTREAM);
await ours.send("describe", {});
await theirs.send("describe", {});

log(`round trip through the adapter process, best of ${RUNS} (${OURS} vs ${UPSTREAM})`);
log(`${"request".padEnd(48)}${"bytes".padStart(10)}${"upstream".padStart(12)}${"ours".padStart(12)}${"ratio".padStart(10)}  goal  answers`);
let failed = 0;
for (const [name, id, request, compare, goal] of requests) {
  const size = Buffer.byteLength(JSON.stringify(request.input));
  const skipUpstream = request.op === "prepare" && process.env.SKIP_UPSTREAM_PREPARE === "1";
  // The two adapters take turns, run by run, so that a slow spell of the
  // machine falls on both sides rather than on one side's whole series.
  let [oursS, upS] = [Infinity, Infinity];
  let [oursLine, upLine] = [undefined, undefined];
  for (let run = 0; run < RUNS; run++) {
    const [seconds, line] = await ours.send(request.op, request.input);
    [oursS, oursLine] = [Math.min(oursS, seconds), line];
    if (skipUpstream) continue;
    const [upSeconds, upAnswer] = await theirs.send(request.op, request.input);
    [upS, upLine] = [Math.min(upS, upSeconds), upAnswer];
  }
  const ratio = upS / oursS;
  const ok = Number.isFinite(ratio) ? ratio >= goal : undefined;
  if (ok === false) failed++;
  let answers = "";
  if (compare && upLine !== undefined) answers = outputOf(oursLine) === outputOf(upLine) ? "same" : "DIFFERENT";
  else answers = `ours ${mb(Buffer.byteLength(oursLine))}`;
  log(
    `${name.padEnd(48)}${mb(size).padStart(10)}${(skipUpstream ? "skipped" : ms(upS)).padStart(12)}` +
      `${ms(oursS).padStart(12)}${(Number.isFinite(ratio) ? `${ratio.toFixed(ratio >= 100 ? 0 : 1)}×` : "n/a").padStart(10)}` +
      `  ≥${goal}× ${ok === undefined ? "n/a " : ok ? "PASS" : "FAIL"} ${answers}`,
  );
  emit({ id, request_bytes: size, upstream_best_s: skipUpstream ? null : upS, ours_best_s: oursS, ratio, goal, answers });
}
ours.close();
theirs.close();
process.exitCode = failed ? 1 : 0;
