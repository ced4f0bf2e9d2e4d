// Times upstream @deepseek-ai/dsh-session-reference `prepare` on the workload
// of benches/retention.rs: one reference to a session of N alternating user
// and assistant messages of 160–200 bytes (same xorshift32 generator, same
// words), default configuration (maxReferenceBytes 65 536).
//
//   node benches/oracle/prepare.mjs            # N = 1000, 2000, 4000, 8000
//   node benches/oracle/prepare.mjs 1000 2000  # chosen N only
//
// Prints, per N, the checksums the Rust bench prints (texts and data array,
// which must match), the stats, and the median time of `prepare`.
import { newResolver, readSurfaceFrom, packageJson, PROMPT_PREFIX, PROMPT_SUFFIX } from "../../conformance/adapters/upstream-npm/oracle.mjs";
import { Rng, log, emit, MESSAGE_WORDS as WORDS } from "./common.mjs";


const SESSION_ID = "bench-session";
const LABEL = "Bench session";



function message(rng) {
  const len = 160 + rng.below(41);
  let out = "";
  while (out.length < len) {
    if (out.length > 0) out += " ";
    out += WORDS[rng.below(WORDS.length)];
  }
  return out.slice(0, len);
}

const FNV_OFFSET = 0x811c9dc5;
function fnv1a(text, hash = FNV_OFFSET) {
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
const hex = (hash) => hash.toString(16).padStart(8, "0");

/** The snapshot of `n` messages, user first, as session query returns it. */
function snapshot(n) {
  const rng = new Rng();
  let checksum = FNV_OFFSET;
  const events = [];
  for (let index = 0; index < n; index++) {
    const text = message(rng);
    checksum = fnv1a(text, checksum);
    const content = [{ type: "text", text }];
    events.push(
      index % 2 === 0
        ? { type: "user/message", data: { source: { kind: "user" }, content } }
        : { type: "assistant/message", data: { message: { role: "assistant", content } } },
    );
  }
  return {
    snapshot: { session: { id: SESSION_ID, cwd: "/workspace/bench" }, capturedThroughSeq: 2 * n, events },
    checksum,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const now = () => Number(process.hrtime.bigint()) / 1e9;
const fmtTime = (s) => (s >= 1 ? `${s.toFixed(3)} s` : `${(s * 1e3).toFixed(3)} ms`);

const agent = { id: "bench-agent" };
const content = [{ type: "text", text: "see @Bench session" }];
const references = [{ sessionId: SESSION_ID, label: LABEL }];

async function prepareOnce(resolver) {
  const result = await resolver.prepare(agent, content, references);
  return result.additionalContext;
}

// Timed runs per N: upstream is quadratic (about 17 s per call at N = 8000).
const RUNS = { 1000: 7, 2000: 5, 4000: 3, 8000: 3 };
const sizes = process.argv.slice(2).map(Number);
const SIZES = sizes.length > 0 ? sizes : [1000, 2000, 4000, 8000];

log(`upstream ${packageJson.name}@${packageJson.version}, node ${process.version}`);
log("prepare/one-session (one reference, default config: maxReferenceBytes 65536)");
let warmed = false;
for (const n of SIZES) {
  const { snapshot: snap, checksum } = snapshot(n);
  const resolver = newResolver(undefined, readSurfaceFrom({ [SESSION_ID]: snap }));
  if (!warmed) {
    // JIT warm-up on a small session.
    const small = newResolver(undefined, readSurfaceFrom({ [SESSION_ID]: snapshot(500).snapshot }));
    for (let i = 0; i < 5; i++) await prepareOnce(small);
    warmed = true;
  }
  const context = await prepareOnce(resolver);
  const text = context.content[0].text;
  const data = text.slice(PROMPT_PREFIX.length, text.length - PROMPT_SUFFIX.length);
  const ref = context.source.references[0];
  log(
    `N=${n}: texts fnv1a ${hex(checksum)}, data ${Buffer.byteLength(data)} B fnv1a ${hex(fnv1a(data))}, ` +
      `stats retained ${ref.retainedMessages} omittedMessages ${ref.omittedMessages} ` +
      `omittedBytes ${ref.omittedBytes} truncated ${ref.truncated}`,
  );
  const samples = [];
  for (let i = 0; i < (RUNS[n] ?? 3); i++) {
    const t0 = now();
    await prepareOnce(resolver);
    samples.push(now() - t0);
  }
  const m = median(samples);
  emit({
    id: `prepare/one-session/${n}`,
    median_s: m,
    samples: samples.length,
    texts_fnv1a: hex(checksum),
    data_bytes: Buffer.byteLength(data),
    data_fnv1a: hex(fnv1a(data)),
    retained: ref.retainedMessages,
    omitted_messages: ref.omittedMessages,
    omitted_bytes: ref.omittedBytes,
    truncated: ref.truncated,
  });
  log(
    `  median ${fmtTime(m).padStart(11)}  (${((m / n) * 1e6).toFixed(2)} µs/message, ` +
      `min ${fmtTime(Math.min(...samples))}, ${samples.length} runs)`,
  );
}
