// Times upstream @deepseek-ai/dsh-file-reference-local@0.1.0-rc.8
// (`WorkspaceFileSearch`) on the same workload as benches/files.rs: the same
// deterministic 100 000-entry tree (same xorshift32 generator, same words),
// written to a temporary directory, and the same bare queries of 1, 4, 8 and
// 12 characters, top 50 (maxResults 50, maxEntries 200 000).
//
//   node benches/oracle/files.mjs
//
// Prints the median time per query on the prebuilt index, and the time of
// one index build (upstream's breadth-first scan of the tree on disk).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng, log, emit } from "./common.mjs";


const PACKAGE_DIR = new URL(
  "../../conformance/adapters/upstream-npm/node_modules/@deepseek-ai/dsh-file-reference-local/",
  import.meta.url,
);
const packageJson = JSON.parse(readFileSync(new URL("package.json", PACKAGE_DIR), "utf8"));
const { WorkspaceFileSearch, DEFAULT_FILE_SEARCH_EXCLUDED_DIRECTORIES } = await import(
  new URL(packageJson.exports["."].default, PACKAGE_DIR).href
);

const ENTRIES = 100_000;
const MAX_RESULTS = 50;

// Must stay identical to DIRS, STEMS, EXTS and QUERIES in benches/files.rs.
const DIRS = [
  "src", "lib", "test", "tests", "docs", "packages", "components", "utils", "services", "api",
  "server", "client", "models", "views", "controllers", "handlers", "config", "scripts", "assets",
  "styles", "hooks", "store", "types", "internal", "core", "common", "shared", "plugins",
  "fixtures", "examples", "benchmarks", "tools", "runtime", "session", "agent", "context",
  "reference", "Resources", ".github", ".vscode",
];
const STEMS = [
  "index", "main", "app", "user", "users", "account", "auth", "login", "session", "agent",
  "config", "settings", "router", "routes", "handler", "server", "client", "request", "response",
  "service", "store", "reducer", "action", "helpers", "utils", "format", "parse", "render",
  "button", "dialog", "table", "list", "item", "model", "schema", "types", "errors", "logger",
  "cache", "queue", "worker", "retention", "projection", "mention", "README", "CHANGELOG",
  "Makefile", "package", "tsconfig", "webpack",
];
const EXTS = ["ts", "tsx", "js", "mjs", "json", "md", "rs", "py", "go", "css", "html", "yml", "toml", "txt", "snap"];
const QUERIES = [
  ["q1", "s"],
  ["q4", "conf"],
  ["q8", "userserv"],
  ["q12", "apihandlerts"],
];

// FNV-1a of the tree and of each answer; the same constants as benches/files.rs.
const TREE_FNV1A = "82476b08";
const ANSWER_FNV1A = { q1: "b7b83235", q4: "48c95e88", q8: "18bdec4e", q12: "2e0a8ac5" };


/** The tree in generation order, as `tree()` in benches/files.rs. */
function tree() {
  const rng = new Rng();
  const entries = [];
  const seen = new Set();
  while (entries.length < ENTRIES) {
    const depth = rng.below(6);
    const segments = [];
    for (let d = 0; d < depth; d++) {
      let name = rng.pick(DIRS);
      if (rng.below(4) === 0) name += `-${rng.below(50)}`;
      segments.push(name);
    }
    let stem = rng.pick(STEMS);
    if (rng.below(3) === 0) {
      const second = rng.pick(STEMS);
      stem += second[0].toUpperCase() + second.slice(1);
    }
    if (rng.below(5) === 0) stem += String(rng.below(100));
    const file = `${stem}.${rng.pick(EXTS)}`;
    for (let end = 1; end <= depth; end++) {
      const path = segments.slice(0, end).join("/");
      if (entries.length < ENTRIES && !seen.has(path)) {
        seen.add(path);
        entries.push({ path, kind: "directory" });
      }
    }
    segments.push(file);
    const path = segments.join("/");
    if (entries.length < ENTRIES && !seen.has(path)) {
      seen.add(path);
      entries.push({ path, kind: "file" });
    }
  }
  return entries;
}

function fnv1a(hash, text) {
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
function fnv1aEntries(entries) {
  let hash = 0x811c9dc5;
  for (const { path, kind } of entries) hash = fnv1a(fnv1a(fnv1a(hash, kind === "directory" ? "d " : "f "), path), "\n");
  return hash.toString(16).padStart(8, "0");
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const now = () => Number(process.hrtime.bigint()) / 1e9;
const fmtTime = (s) =>
  s >= 1 ? `${s.toFixed(3)} s` : s >= 1e-3 ? `${(s * 1e3).toFixed(3)} ms` : `${(s * 1e6).toFixed(1)} µs`;

async function measure(fn, { warmup = 1, budget = 3, minIters = 5, maxIters = 2000 } = {}) {
  const warmEnd = now() + warmup;
  while (now() < warmEnd) await fn();
  const samples = [];
  const end = now() + budget;
  while (samples.length < minIters || (now() < end && samples.length < maxIters)) {
    const t0 = now();
    await fn();
    samples.push(now() - t0);
  }
  return { perCall: median(samples), samples: samples.length };
}

log(`upstream ${packageJson.name}@${packageJson.version}, node ${process.version}`);
const entries = tree();
const treeHash = fnv1aEntries(entries);
if (treeHash !== TREE_FNV1A) throw new Error(`tree fnv1a ${treeHash}: differs from benches/files.rs`);

const root = mkdtempSync(join(tmpdir(), "dsh-files-bench-oracle-"));
try {
  for (const { path, kind } of entries) {
    const target = join(root, path);
    if (kind === "directory") mkdirSync(target, { recursive: true });
    else {
      mkdirSync(join(target, ".."), { recursive: true });
      writeFileSync(target, "");
    }
  }
  const config = {
    maxResults: MAX_RESULTS,
    maxEntries: 200_000,
    excludedDirectories: [...DEFAULT_FILE_SEARCH_EXCLUDED_DIRECTORIES],
  };
  const signal = new AbortController().signal;
  const search = new WorkspaceFileSearch(root, config);

  log(`\nfiles/search (WorkspaceFileSearch.list on a prebuilt index of ${ENTRIES} entries, top ${MAX_RESULTS})`);
  for (const [name, query] of QUERIES) {
    const found = await search.list(query, signal);
    const hash = fnv1aEntries(found);
    if (hash !== ANSWER_FNV1A[name]) throw new Error(`${name}: answer fnv1a ${hash} differs from benches/files.rs`);
    const { perCall, samples } = await measure(() => search.list(query, signal));
    log(
      `  ${name.padEnd(4)} ${JSON.stringify(query).padEnd(15)} ${found.length} results  fnv1a ${hash}  ` +
        `median ${fmtTime(perCall).padStart(10)}  [${samples} samples]`,
    );
    emit({ id: `files/search/${name}`, query, median_s: perCall, samples, results: found.length, fnv1a: hash });
  }

  log("\nfiles/index (one breadth-first scan of the tree on disk: a fresh search's first bare query)");
  const { perCall, samples } = await measure(
    async () => {
      const fresh = new WorkspaceFileSearch(root, config);
      const indexed = await fresh.ensureIndex();
      if (indexed.length !== ENTRIES) throw new Error(`scan found ${indexed.length} entries`);
    },
    { warmup: 0, budget: 5, minIters: 5, maxIters: 20 },
  );
  log(`  scan-disk  median ${fmtTime(perCall).padStart(10)}  [${samples} samples]`);
  emit({ id: "files/index/scan-disk", median_s: perCall, samples });
} finally {
  rmSync(root, { recursive: true, force: true });
}
