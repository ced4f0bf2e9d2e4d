// Times upstream @deepseek-ai/dsh-session-reference@0.1.0-rc.8 candidate
// discovery (`SessionReferenceResolver.listCandidates`) on the workload of
// benches/candidates.rs: 100 000 listed sessions, limit 50, with no query and
// with queries of 1, 4, 8 and 12 characters (plus the Rust bench's scattered
// and no-match queries).
//
//   node benches/oracle/candidates.mjs            # 100 000 sessions
//   node benches/oracle/candidates.mjs 20000      # another listing size
//
// The listing is the Rust bench's, built with the same xorshift32 generator in
// the same call order: per index, 2–4 title words from WORDS, then the id
// `session-<index, 6 digits>-<8 hex>`; cwd by index mod 3: 0 → the agent's
// `/work/project`, 1 → none, 2 → `/work/other-<index mod 97>`; createdAt =
// index; every tenth session (index mod 10 = 0) untitled, so labelled by its
// id. (The Rust listing's subagent labels do not exist in rc.8.) The listing
// order is the array order. The host's `sessionQuery` answers from prebuilt
// arrays, so the time is rc.8's own filtering, ranking and labelling plus the
// (trivial) host calls. Prints, per query, how many candidates came back, the
// first label and the median time of one listCandidates call.
import { readFileSync } from "node:fs";
import { upstream, packageJson } from "../../conformance/adapters/upstream-npm/oracle.mjs";
import { Rng, log, emit, SESSION_WORDS as WORDS } from "./common.mjs";


// The cordis peer the package itself resolves (same module instance).
const CORDIS_DIR = new URL("../../conformance/adapters/upstream-npm/node_modules/@deepseek-ai/cordis/", import.meta.url);
const cordisJson = JSON.parse(readFileSync(new URL("package.json", CORDIS_DIR), "utf8"));
const { Context } = await import(new URL(cordisJson.exports["."].default, CORDIS_DIR).href);

const SESSIONS = Number(process.argv[2] ?? 100_000);
const LIMIT = 50;
const AGENT_ID = "session-000001-00000000";
const AGENT_CWD = "/work/project";
const WARMUP = 3;
const RUNS = 11;



function listing(count) {
  const rng = new Rng();
  const records = [];
  const titles = new Map();
  for (let index = 0; index < count; index++) {
    const words = 2 + (rng.next() % 3);
    const title = [];
    for (let w = 0; w < words; w++) title.push(WORDS[rng.next() % WORDS.length]);
    const id = `session-${String(index).padStart(6, "0")}-${rng.next().toString(16).padStart(8, "0")}`;
    const header = { id };
    if (index % 3 === 0) header.cwd = AGENT_CWD;
    else if (index % 3 === 2) header.cwd = `/work/other-${index % 97}`;
    header.createdAt = index;
    records.push({ header });
    const recorded = index % 10 !== 0 ? { title: title.join(" ") } : undefined;
    // One observation per id, as readTitleSnapshots answers it.
    titles.set(id, { status: "fulfilled", value: { title: recorded } });
  }
  return { records, titles };
}

function resolverFor({ records, titles }) {
  const ctx = new Context();
  ctx.provide("sessionQuery");
  ctx.sessionQuery = {
    readSurface: async (id) => {
      throw new Error(`not used: ${id}`);
    },
    listSessions: async () => records,
    readTitleSnapshots: async (ids) => ids.map((id) => titles.get(id)),
  };
  return new upstream.SessionReferenceResolver(ctx, {});
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const data = listing(SESSIONS);
const resolver = resolverFor(data);
const agent = { id: AGENT_ID, session: { header: { cwd: AGENT_CWD } } };

// The Rust bench's queries: empty; 1, 4, 8 and 12 characters matching as
// prefixes and word starts; a scattered subsequence; a query matching nothing.
const queries = ["", "p", "plan", "refactor", "release note", "rfctr", "zzzz"];
// Their case names in benches/candidates.rs (for the JSON lines' ids).
const CASES = { "": "empty", p: "1-char", plan: "4-chars", refactor: "8-chars", "release note": "12-chars", rfctr: "scattered", zzzz: "no-match" };

log(
  `${packageJson.name}@${packageJson.version} listCandidates: ${SESSIONS} sessions, limit ${LIMIT}, ` +
    `median of ${RUNS} runs after ${WARMUP} warm-up runs (node ${process.version})`,
);
for (const query of queries) {
  let result;
  for (let i = 0; i < WARMUP; i++) result = await resolver.listCandidates(agent, query, LIMIT);
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    result = await resolver.listCandidates(agent, query, LIMIT);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const label = query === "" ? "no query" : `query ${JSON.stringify(query)} (${query.length} char${query.length === 1 ? "" : "s"})`;
  log(
    `${label.padEnd(34)} ${String(result.length).padStart(3)} returned, first ${JSON.stringify(result[0]?.label)}: ` +
      `median ${median(times).toFixed(2)} ms`,
  );
  emit({
    id: `candidates/${SESSIONS === 100_000 ? "100k" : SESSIONS}/rc8/${CASES[query] ?? query}`,
    query,
    median_s: median(times) / 1e3,
    samples: RUNS,
    returned: result.length,
    first: result[0]?.label ?? null,
  });
}
