// Times upstream @deepseek-ai/dsh-session-reference on the same workloads as
// benches/parse.rs and benches/uri.rs, with identical, deterministic inputs
// (same xorshift32 generator, same words, same layout).
//
//   node benches/oracle/parse.mjs
//
// Prints, per workload, the median time per iteration and the throughput
// (MB/s = 1e6 bytes/s, MiB/s as criterion reports it; ops/s for URIs).
import { readFileSync } from "node:fs";
import { Rng, log, emit, PROSE_WORDS as WORDS } from "./common.mjs";


const PACKAGE_DIR = new URL(
  "../../conformance/adapters/upstream-npm/node_modules/@deepseek-ai/dsh-session-reference/",
  import.meta.url,
);
const packageJson = JSON.parse(readFileSync(new URL("package.json", PACKAGE_DIR), "utf8"));
const upstream = await import(new URL(packageJson.exports["."].default, PACKAGE_DIR).href);
const { parseSessionReferenceText, encodeSessionReferenceUri, decodeSessionReferenceUri } = upstream;

const MIB = 1_048_576;
const UNCLOSED_REPEATS = 40_000;



function prose(rng, len) {
  const parts = [];
  let size = 0;
  const push = (s) => {
    parts.push(s);
    size += s.length;
  };
  while (size < len) {
    const words = 6 + rng.below(12);
    for (let index = 0; index < words; index++) {
      const word = rng.pick(WORDS);
      push(index === 0 ? word[0].toUpperCase() + word.slice(1) : word);
      if (index + 1 < words) {
        const r = rng.below(16);
        push(r === 0 ? ", " : r === 1 ? "; " : " ");
      }
    }
    const r = rng.below(20);
    push(r === 0 ? "?" : r === 1 ? "!" : r === 2 || r === 3 ? ":" : ".");
    push(rng.below(6) === 0 ? "\n\n" : " ");
  }
  return parts.join("").slice(0, len);
}

function dense(rng, len) {
  const parts = [];
  let size = 0;
  let count = 0;
  for (;;) {
    const word = rng.pick(WORDS);
    const uri = encodeSessionReferenceUri(`session-${count}`);
    const segment = rng.below(2) === 0 ? `${word} @[label ${count}](${uri}) ` : `${word} ${uri} `;
    if (size + segment.length > len) break;
    parts.push(segment);
    size += segment.length;
    count++;
  }
  return { text: parts.join("") + " ".repeat(len - size), count };
}

// FNV-1a over the UTF-16 code units, to compare inputs with the Rust side.
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

// Same values as in benches/parse.rs: both sides time identical inputs.
const EXPECTED = {
  prose: { fnv1a: "6b3c99b3", mentions: 0 },
  dense: { fnv1a: "e5d75f42", mentions: 22_725 },
  unclosed: { fnv1a: "bc8c2ac5", mentions: 0 },
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const now = () => Number(process.hrtime.bigint()) / 1e9;
let sink = 0;

// Runs `fn` (one iteration = `batch` calls) for warm-up then until `budget`
// seconds or `maxIters` samples have passed; returns seconds per call.
function measure(fn, { warmup = 0.5, budget = 3, minIters = 3, maxIters = 1000, batch = 1 } = {}) {
  const warmEnd = now() + warmup;
  while (now() < warmEnd) fn();
  const samples = [];
  const end = now() + budget;
  while (samples.length < minIters || (now() < end && samples.length < maxIters)) {
    const t0 = now();
    fn();
    samples.push((now() - t0) / batch);
  }
  return { perCall: median(samples), samples: samples.length };
}

const fmtRate = (x) => (x >= 100 ? x.toFixed(1) : x.toPrecision(3));
const fmtTime = (s) =>
  s >= 1 ? `${s.toFixed(3)} s` : s >= 1e-3 ? `${(s * 1e3).toFixed(3)} ms` : s >= 1e-6 ? `${(s * 1e6).toFixed(3)} µs` : `${(s * 1e9).toFixed(1)} ns`;

log(`upstream ${packageJson.name}@${packageJson.version}, node ${process.version}`);

const rng = new Rng();
const proseText = prose(rng, MIB);
const denseInput = dense(rng, MIB);
const unclosedText = "@[".repeat(UNCLOSED_REPEATS);
if (denseInput.count !== EXPECTED.dense.mentions) throw new Error(`dense: ${denseInput.count} mentions`);
if (proseText.includes("@") || proseText.includes("dsh-session:")) throw new Error("prose has a mention");

log("\nmention/parse (parseSessionReferenceText)");
for (const [name, text, options] of [
  ["prose", proseText, {}],
  ["dense", denseInput.text, {}],
  // About 2 to 4 s per call upstream (quadratic): three timed runs.
  ["unclosed", unclosedText, { warmup: 0, budget: 0, minIters: 3 }],
]) {
  const bytes = Buffer.byteLength(text, "utf8");
  const { mentions } = EXPECTED[name];
  if (fnv1a(text) !== EXPECTED[name].fnv1a) throw new Error(`${name}: input differs from benches/parse.rs`);
  const parsed = parseSessionReferenceText(text);
  if (parsed.references.length !== mentions) throw new Error(`${name}: ${parsed.references.length} references`);
  const { perCall, samples } = measure(() => {
    sink += parseSessionReferenceText(text).references.length;
  }, options);
  log(
    `  ${name.padEnd(9)} ${String(bytes).padStart(8)} B  fnv1a ${fnv1a(text)}  refs ${String(mentions).padStart(5)}  ` +
      `median ${fmtTime(perCall).padStart(11)}  ${fmtRate(bytes / perCall / 1e6).padStart(8)} MB/s ` +
      `(${fmtRate(bytes / perCall / MIB)} MiB/s)  [${samples} samples]`,
  );
  emit({ id: `mention/parse/${name}`, median_s: perCall, samples, bytes, mentions });
}

const IDS = [
  ["short", "session-01HXYZ"],
  ["uuid", "123e4567-e89b-12d3-a456-426614174000"],
  ["emoji_lone_surrogate", "chat \u{1F600} \uD800 \u{1F680}"],
];
const BATCH = 10_000;
log("\nuri (per call)");
for (const [name, id] of IDS) {
  const uri = encodeSessionReferenceUri(id);
  if (decodeSessionReferenceUri(uri) !== id) throw new Error(`${name}: round trip`);
  for (const [op, fn] of [
    ["encode", () => { for (let i = 0; i < BATCH; i++) sink += encodeSessionReferenceUri(id).length; }],
    ["decode", () => { for (let i = 0; i < BATCH; i++) sink += decodeSessionReferenceUri(uri).length; }],
  ]) {
    const { perCall, samples } = measure(fn, { warmup: 0.3, budget: 1, batch: BATCH });
    emit({ id: `uri/${op}/${name}`, median_s: perCall, samples, batch: BATCH });
    log(
      `  ${`${op}/${name}`.padEnd(28)} median ${fmtTime(perCall).padStart(10)}  ${(1 / perCall / 1e6).toFixed(3)} Mops/s  (${uri})`,
    );
  }
}
if (sink === -1) log(sink);
