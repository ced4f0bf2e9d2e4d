#!/usr/bin/env bash
# Ours against upstream on the same workloads, in one table.
#
#   benches/side-by-side.sh            # default run (about 5–6 minutes)
#   benches/side-by-side.sh --full     # also upstream prepare at N = 8 000
#                                      # (quadratic: ~20–30 s a call, 4 calls)
#   benches/side-by-side.sh --no-memory   # skip benches/memory.sh and
#                                      # benches/adapter-memory.sh
#   benches/side-by-side.sh --round-trip  # only the protocol round trip:
#                                      # benches/round-trip.mjs, the three
#                                      # requests of issue #13 through both
#                                      # adapter processes, best of 3 (~2 min,
#                                      # most of it upstream's prepare)
#
# Ours: `cargo bench --bench NAME -- --noplot [FILTER]`, each result read
# from <criterion home>/**/new/estimates.json (median point estimate), only
# if written by this run. Upstream: the Node scripts in benches/oracle/ with
# ORACLE_JSON=1 (one JSON line per measurement on stdout, their usual text
# on stderr), median per call as well. Inputs are identical on both sides
# (the benches and scripts check the same FNV-1a checksums).
#
# Goals (issues): parse 1 MiB prose ≥ 1 GB/s; prepare one session of 8 000
# messages ≤ 5 ms and of 1 000 000 ≤ 1 s; candidates over 100 000 sessions
# ≤ 3 ms per query of 1–12 characters; files over 100 000 paths ≤ 3 ms per
# query; prepare's peak memory at 1 000 000 messages ≤ 3× the snapshot's own
# size (benches/memory.sh).
#
# Exit status: 2 when a tool is missing (cargo, node, the npm packages,
# /usr/bin/time); 0 otherwise: a goal FAIL, or a bench that could not run,
# is printed in the table and the summary, not turned into an exit status.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FULL=0
MEMORY=1
ROUND_TRIP=0
for arg in "$@"; do
  case "$arg" in
    --full) FULL=1 ;;
    --round-trip) ROUND_TRIP=1 ;;
    --no-memory) MEMORY=0 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "side-by-side.sh: unknown argument: $arg (try --help)" >&2
      exit 2
      ;;
  esac
done

missing() {
  echo "side-by-side.sh: missing tool: $*" >&2
  exit 2
}
command -v cargo >/dev/null 2>&1 || missing "cargo"
command -v node >/dev/null 2>&1 || missing "node (Node.js ≥ 20)"
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"
[[ "$NODE_MAJOR" -ge 20 ]] || missing "node ≥ 20 (found $(node --version))"
ADAPTER=conformance/adapters/upstream-npm
for package in dsh-session-reference dsh-file-reference-local cordis; do
  [[ -f "$ADAPTER/node_modules/@deepseek-ai/$package/package.json" ]] ||
    missing "npm package @deepseek-ai/$package (run: (cd $ADAPTER && npm ci))"
done
if [[ $ROUND_TRIP -eq 1 ]]; then
  # The reference adapter as `cargo run --release -- adapter` builds it, then
  # both adapters side by side; the script prints the table and ratios.
  cargo build --release --quiet
  TARGET_DIR="${CARGO_TARGET_DIR:-target}"
  OURS="$TARGET_DIR/release/dsh-session-reference adapter" node benches/round-trip.mjs
  exit 0
fi
if [[ $MEMORY -eq 1 && ! -x /usr/bin/time ]]; then
  missing "/usr/bin/time for the memory run (Debian: apt-get install -y time; or pass --no-memory)"
fi

TARGET_DIR="${CARGO_TARGET_DIR:-$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).target_directory)}catch{console.log("target")}})')}"
CRITERION_DIR="${CRITERION_HOME:-$TARGET_DIR/criterion}"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/side-by-side.XXXXXX")"
START_MS="$(node -p 'Date.now()')"
SECONDS=0

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "n/a"; }
echo "side-by-side: ours (criterion) vs upstream (node) — $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "  commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ has uncommitted changes)'), $(rustc --version 2>/dev/null), node $(node --version)"
echo "  $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), load average at start $(load)"
echo "  logs: $OUT"
echo "$(load)" >"$OUT/load-start"

# Each step: a title, a log, a command; failures are recorded, not fatal.
step() {
  local title="$1" log="$2"
  shift 2
  local started=$SECONDS status=0
  printf '  %-58s' "$title"
  "$@" >"$log" 2>&1 || status=$?
  if [[ $status -eq 0 ]]; then
    printf '%4ds  (load %s)\n' $((SECONDS - started)) "$(load)"
  else
    printf '%4ds  ERROR (status %d, log %s)\n' $((SECONDS - started)) "$status" "$log"
    echo "$title: status $status, log $log" >>"$OUT/errors"
  fi
}

upstream() {
  local script="$1" jsonl="$2"
  shift 2
  ORACLE_JSON=1 node "benches/oracle/$script" "$@" >"$jsonl"
}

echo
echo "build"
step "cargo bench --no-run (5 benches)" "$OUT/build.log" \
  cargo bench --no-run --bench parse --bench uri --bench retention --bench candidates --bench files

echo "ours (cargo bench --bench NAME -- --noplot)"
step "parse" "$OUT/ours-parse.log" cargo bench --bench parse -- --noplot
step "uri" "$OUT/ours-uri.log" cargo bench --bench uri -- --noplot
step "retention: prepare/one-session N=1000,2000,8000,1000000" "$OUT/ours-retention.log" \
  cargo bench --bench retention -- --noplot '^prepare/one-session/(1000|2000|8000|1000000)$'
step "candidates" "$OUT/ours-candidates.log" cargo bench --bench candidates -- --noplot
step "files" "$OUT/ours-files.log" cargo bench --bench files -- --noplot

PREPARE_SIZES=(1000 2000)
if [[ $FULL -eq 1 ]]; then PREPARE_SIZES+=(8000); fi
echo "upstream (node benches/oracle/*.mjs, ORACLE_JSON=1)"
step "parse.mjs (parse and uri)" "$OUT/upstream-parse.log" \
  upstream parse.mjs "$OUT/upstream-parse.jsonl"
step "prepare.mjs ${PREPARE_SIZES[*]}" "$OUT/upstream-prepare.log" \
  upstream prepare.mjs "$OUT/upstream-prepare.jsonl" "${PREPARE_SIZES[@]}"
step "candidates.mjs" "$OUT/upstream-candidates.log" \
  upstream candidates.mjs "$OUT/upstream-candidates.jsonl"
step "files.mjs" "$OUT/upstream-files.log" upstream files.mjs "$OUT/upstream-files.jsonl"

if [[ $MEMORY -eq 1 ]]; then
  echo "memory"
  step "benches/memory.sh (prepare, 1 000 000 messages)" "$OUT/memory.log" benches/memory.sh
  step "benches/adapter-memory.sh (peak resident set of each adapter process, both sides)" \
    "$OUT/adapter-memory.log" benches/adapter-memory.sh
fi
echo "$(load)" >"$OUT/load-end"

OUT="$OUT" CRITERION_DIR="$CRITERION_DIR" START_MS="$START_MS" FULL="$FULL" MEMORY="$MEMORY" \
  ELAPSED="$SECONDS" node --input-type=module - <<'NODE'
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const { OUT, CRITERION_DIR, START_MS, FULL, MEMORY, ELAPSED } = process.env;
const startMs = Number(START_MS);

// Ours: every <criterion>/**/new/{benchmark,estimates}.json written by this run.
const ours = new Map();
const stale = new Set();
function walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (entry.name === "new") {
      const bench = join(path, "benchmark.json");
      const estimates = join(path, "estimates.json");
      if (!existsSync(bench) || !existsSync(estimates)) continue;
      const id = JSON.parse(readFileSync(bench, "utf8")).full_id;
      if (statSync(estimates).mtimeMs < startMs) stale.add(id);
      else ours.set(id, JSON.parse(readFileSync(estimates, "utf8")).median.point_estimate / 1e9);
    } else walk(path);
  }
}
walk(CRITERION_DIR);

// Upstream: JSON lines by id.
const upstream = new Map();
for (const name of ["parse", "prepare", "candidates", "files"]) {
  const file = join(OUT, `upstream-${name}.jsonl`);
  if (!existsSync(file)) continue;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const record = JSON.parse(line);
    upstream.set(record.id, record);
  }
}

const fmtTime = (s) => {
  if (s >= 1) return `${s.toPrecision(3)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toPrecision(3)} ms`;
  if (s >= 1e-6) return `${(s * 1e6).toPrecision(3)} µs`;
  return `${(s * 1e9).toPrecision(3)} ns`;
};
const fmtRate = (bytesPerS) =>
  bytesPerS >= 1e9 ? `${(bytesPerS / 1e9).toPrecision(3)} GB/s` : `${(bytesPerS / 1e6).toPrecision(3)} MB/s`;
const fmtRatio = (r) => {
  const n = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  return r >= 1 ? `×${n(r)} faster` : `×${n(1 / r)} slower`;
};
const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;

const MIB = 1_048_576;
const rows = [];
const section = (title) => rows.push({ section: title });
const row = (r) => rows.push(r);
const atMost = (limit, text) => ({ text, ok: (s) => s <= limit });
const missingOurs = (id) => (stale.has(id) ? "stale (not rerun)" : "MISSING");

section("mention::parse vs parseSessionReferenceText");
row({ name: "parse prose, 1 MiB", id: "mention/parse/prose", bytes: MIB, goal: { text: "≥ 1 GB/s ours", ok: (s) => MIB / s >= 1e9 } });
row({ name: "parse dense, 1 MiB (22 725 mentions)", id: "mention/parse/dense", bytes: MIB });
row({ name: "parse unclosed, 40 000 × \"@[\"", id: "mention/parse/unclosed", bytes: 80_000 });
section("uri::encode / uri::decode per call vs encode/decodeSessionReferenceUri");
for (const op of ["encode", "decode"])
  for (const id of ["short", "uuid", "emoji_lone_surrogate"]) row({ name: `uri ${op} ${id}`, id: `uri/${op}/${id}` });
section("prepare, one session of N messages, default budget 65 536 B");
for (const n of [1000, 2000, 8000, 1_000_000]) {
  const goal = n === 8000 ? atMost(5e-3, "≤ 5 ms ours") : n === 1_000_000 ? atMost(1, "≤ 1 s ours") : undefined;
  const skipped = n === 8000 && FULL !== "1" ? "skipped (--full)" : n === 1_000_000 ? "not run (N²)" : undefined;
  row({ name: `prepare N=${n.toLocaleString("en-US").replace(/,/g, " ")}`, id: `prepare/one-session/${n}`, goal, skipped });
}
section("candidates, 100 000 sessions, top 50 (upstream is rc.8: compared with our rc8 profile)");
const CASES = [
  ["empty", "\"\""],
  ["1-char", "\"p\""],
  ["4-chars", "\"plan\""],
  ["8-chars", "\"refactor\""],
  ["12-chars", "\"release note\""],
  ["scattered", "\"rfctr\""],
  ["no-match", "\"zzzz\""],
];
for (const generation of ["rc8", "newest"])
  for (const [name, query] of CASES)
    row({
      name: `candidates ${generation} ${query}`,
      id: `candidates/100k/${generation}/${name}`,
      upstreamId: generation === "rc8" ? `candidates/100k/rc8/${name}` : null,
      skipped: generation === "rc8" ? undefined : "n/a (rc.8 only)",
      goal: name === "empty" ? undefined : atMost(3e-3, "≤ 3 ms ours"),
    });
section("files, 100 000 paths, top 50 (WorkspaceFileSearch rc.8)");
for (const [name, query] of [["q1", "s"], ["q4", "conf"], ["q8", "userserv"], ["q12", "apihandlerts"]])
  row({ name: `files search ${JSON.stringify(query)}`, id: `files/search/${name}`, goal: atMost(3e-3, "≤ 3 ms ours") });
row({ name: "files index: scan the tree on disk", id: "files/index/scan-disk" });
row({ name: "files index: from listed entries", id: "files/index/from-entries", skipped: "n/a" });

// Memory (benches/memory.sh).
let memory = null;
if (MEMORY === "1") {
  const log = join(OUT, "memory.log");
  const line = existsSync(log) && readFileSync(log, "utf8").split("\n").find((l) => l.startsWith("json: "));
  if (line) memory = JSON.parse(line.slice(6));
  section("memory (benches/memory.sh)");
  rows.push({ memory: true });
}

// Render.
const W = [40, 22, 20, 15, 15];
const header = ["workload", "ours", "upstream", "upstream/ours", "goal"];
const pad = (cells) => cells.map((c, i) => (i < W.length ? String(c).padEnd(W[i]) : c)).join(" ").trimEnd();
const lines = [];
const verdicts = { PASS: 0, FAIL: 0, MISSING: 0 };
const failures = [];
lines.push(pad([...header, "verdict"]));
lines.push("-".repeat(W.reduce((a, b) => a + b + 1, 0) + 8));
for (const r of rows) {
  if (r.section) {
    lines.push(`${r.section}`);
    continue;
  }
  if (r.memory) {
    let oursCell = "MISSING";
    let verdict = "MISSING";
    if (memory) {
      oursCell = `${memory.ratio_rss.toFixed(2)}× (${mib(memory.peak_rss_prepare)})`;
      verdict = memory.ratio_rss <= 3 ? "PASS" : "FAIL";
    }
    verdicts[verdict]++;
    if (verdict !== "PASS") failures.push(`peak RSS during prepare N=1 000 000: ${verdict}`);
    lines.push(pad(["  peak RSS in prepare / snapshot size", oursCell, "not run", "", "≤ 3× snapshot", verdict === "FAIL" ? "FAIL  <<<" : verdict]));
    if (memory)
      lines.push(
        `    snapshot's own size ${mib(memory.snapshot_bytes)}; RSS after build ${mib(memory.rss_after_build)}; ` +
          `peak heap ${mib(memory.peak_heap_prepare)} (${memory.ratio_heap.toFixed(2)}×); prepare ${fmtTime(memory.prepare_s)} cold`,
      );
    continue;
  }
  const o = ours.get(r.id);
  const u = r.skipped ? undefined : upstream.get(r.upstreamId === undefined ? r.id : r.upstreamId)?.median_s;
  let oursCell = o === undefined ? missingOurs(r.id) : fmtTime(o);
  let upCell = r.skipped ?? (u === undefined ? "MISSING" : fmtTime(u));
  if (r.bytes && o !== undefined) oursCell += ` ${fmtRate(r.bytes / o)}`;
  if (r.bytes && u !== undefined) upCell += ` ${fmtRate(r.bytes / u)}`;
  const ratio = o !== undefined && u !== undefined ? fmtRatio(u / o) : "";
  let verdict = "";
  if (r.goal) {
    verdict = o === undefined ? "MISSING" : r.goal.ok(o) ? "PASS" : "FAIL";
    verdicts[verdict]++;
    if (verdict !== "PASS") failures.push(`${r.name.trim()}: ours ${oursCell}, goal ${r.goal.text}: ${verdict}`);
  }
  lines.push(pad([`  ${r.name}`, oursCell, upCell, ratio, r.goal?.text ?? "", verdict === "FAIL" ? "FAIL  <<<" : verdict]));
}

console.log("");
console.log(lines.join("\n"));

// Same answers on both sides: prepare's data array and stats.
console.log("");
const retentionLog = join(OUT, "ours-retention.log");
const oursData = new Map();
if (existsSync(retentionLog))
  for (const m of readFileSync(retentionLog, "utf8").matchAll(
    /N=(\d+): texts fnv1a (\w+), data (\d+) B fnv1a (\w+), stats retained (\d+) omittedMessages (\d+) omittedBytes (\d+) truncated (\w+)/g,
  ))
    oursData.set(Number(m[1]), { texts: m[2], bytes: Number(m[3]), data: m[4], retained: Number(m[5]), omitted: Number(m[6]), omittedBytes: Number(m[7]) });
for (const [id, rec] of upstream) {
  if (!id.startsWith("prepare/")) continue;
  const n = Number(id.split("/").pop());
  const mine = oursData.get(n);
  const same =
    mine &&
    mine.texts === rec.texts_fnv1a &&
    mine.bytes === rec.data_bytes &&
    mine.data === rec.data_fnv1a &&
    mine.retained === rec.retained &&
    mine.omitted === rec.omitted_messages &&
    mine.omittedBytes === rec.omitted_bytes;
  console.log(
    `check prepare N=${n}: ${same ? "same" : mine ? "DIFFERENT" : "no ours line for"} data on both sides ` +
      `(upstream: ${rec.data_bytes} B, fnv1a ${rec.data_fnv1a}, retained ${rec.retained}, omitted ${rec.omitted_messages} messages / ${rec.omitted_bytes} B)`,
  );
}
console.log(
  "check parse, uri, files: identical inputs on both sides (FNV-1a checksums asserted by each bench and script; " +
    "files answers asserted equal too); candidates: same listing generator, answers not compared (rc.8 has no subagent labels)",
);

const loadStart = readFileSync(join(OUT, "load-start"), "utf8").trim();
const loadEnd = readFileSync(join(OUT, "load-end"), "utf8").trim();
console.log("");
console.log(
  `goals: ${verdicts.PASS} PASS, ${verdicts.FAIL} FAIL${verdicts.MISSING ? `, ${verdicts.MISSING} MISSING` : ""}; ` +
    `load average ${loadStart} at start, ${loadEnd} at end; ${Math.floor(ELAPSED / 60)} min ${ELAPSED % 60} s in all`,
);
for (const failure of failures) console.log(`  *** ${failure}`);
if (existsSync(join(OUT, "errors"))) {
  console.log("errors (see the logs):");
  for (const line of readFileSync(join(OUT, "errors"), "utf8").trim().split("\n")) console.log(`  *** ${line}`);
}
NODE
if [[ -f "$OUT/adapter-memory.log" ]]; then
  echo
  echo "peak resident set through the adapter, rc.8 on both sides (benches/adapter-memory.sh; goal: candidates-100k ≤ 34 MB)"
  grep -E '^(request|candidates|mention|prepare)' "$OUT/adapter-memory.log"
fi
