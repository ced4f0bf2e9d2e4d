// An EMULATION of the newest upstream generation of session references
// (UN-a / UN-docs in shared/upstream-facts.md), which is not installable.
// It wraps the installed rc.8 package (through ../upstream-npm/oracle.mjs)
// and applies only the documented deltas, so that vectors for newer behaviour
// get their expectations from rc.8 plus the facts sheet, never from the Rust
// reference. Everything not listed here is rc.8's own behaviour:
//
//   K2    configuration v2: maxReferenceBytes has no default (absent =
//         automatic), new referenceContextFraction (default 0.2, in [0, 1]).
//   P6    developer/message and system/message surface events are ignored.
//   §6.6  automatic budget from the agent's route and the request's `models`.
//   §6.7  "Reference omissions" block after the prompt for truncated sources.
//   §6.8  capturedFormatVersion (the source header's version) after `label`.
//   §6.9  full-snapshot spill transcript, with the protocol's `spill` store.
import {
  PROMPT_PREFIX,
  abortedSignal,
  newResolver,
  readSurfaceFrom,
  retainOnce,
  stringifyTagSafeJson,
  upstream,
  wireMessage,
  wirePrepared,
} from "../upstream-npm/oracle.mjs";

const INVALID_CONFIG = "SESSION_REFERENCE_INVALID_CONFIG";
/** Floor and fallback of the automatic budget (64 KiB). */
const AUTOMATIC_MIN_BYTES = 65536;
const DEFAULT_FRACTION = 0.2;
/** "four bytes/token is a sizing heuristic" (§6.6). */
const BYTES_PER_TOKEN = 4;

// ---------------------------------------------------------------- config (K2)

/**
 * Validate a v2 configuration. The three integer checks and the
 * `maxReferences > 3` check are rc.8's own constructor checks (same order,
 * same messages); v2 only stops defaulting `maxReferenceBytes` (validated when
 * present, so a valid stand-in is passed when it is absent), then checks the
 * new fraction. Returns the effective v2 configuration.
 */
export function checkConfigV2(config) {
  const c = config ?? {};
  const maxReferenceBytes = c.maxReferenceBytes ?? undefined;
  newResolver({
    maxReferences: c.maxReferences,
    candidateLimit: c.candidateLimit,
    maxReferenceBytes: maxReferenceBytes ?? AUTOMATIC_MIN_BYTES,
  });
  const fraction = c.referenceContextFraction ?? DEFAULT_FRACTION;
  // The schema admits only numbers (protocol clarification); `!(f >= 0 && f <= 1)` rejects NaN.
  if (typeof fraction !== "number" || !(fraction >= 0 && fraction <= 1)) {
    throw new upstream.SessionReferenceError(
      "session-reference: referenceContextFraction must be between zero and one",
      INVALID_CONFIG,
    );
  }
  return {
    maxReferences: c.maxReferences ?? 3,
    candidateLimit: c.candidateLimit ?? 50,
    maxReferenceBytes,
    referenceContextFraction: fraction,
  };
}

// --------------------------------------------------------------- budget (§6.6)

/** The per-reference byte budget: explicit, else automatic from the route. */
export function referenceBudget(config, agent, models) {
  if (config.maxReferenceBytes !== undefined) return config.maxReferenceBytes;
  const route = agent?.route;
  if (route == null || route.provider == null || route.model == null) return AUTOMATIC_MIN_BYTES;
  const key = `${route.provider}/${route.model}`;
  // No adapter for the route (LlmError NO_ADAPTER) → 64 KiB.
  if (models == null || typeof models !== "object" || !Object.hasOwn(models, key)) return AUTOMATIC_MIN_BYTES;
  const info = models[key];
  // Capacity unknown → 64 KiB.
  if (info == null || info.contextWindow === undefined) return AUTOMATIC_MIN_BYTES;
  return Math.max(
    AUTOMATIC_MIN_BYTES,
    Math.floor(info.contextWindow * BYTES_PER_TOKEN * config.referenceContextFraction),
  );
}

/**
 * rc.8 accepts only positive safe integers as `maxReferenceBytes`; no budget
 * above 2^53 − 1 (or a NaN one, which never compares greater) can be exceeded
 * by a real snapshot, so the largest safe integer behaves the same.
 */
function rc8Budget(budget) {
  return Number.isNaN(budget) || budget > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : budget;
}

// -------------------------------------------------------------- surface (P6)

const IGNORED_EVENT_TYPES = new Set(["developer/message", "system/message"]);

/** The snapshot with developer/system message events removed (others untouched). */
export function surfaceV2(snapshot) {
  if (snapshot === null || typeof snapshot !== "object" || !Array.isArray(snapshot.events)) return snapshot;
  return { ...snapshot, events: snapshot.events.filter((event) => !IGNORED_EVENT_TYPES.has(event?.type)) };
}

// ------------------------------------------------------ spill transcript (§6.9)

/** The three warning lines shared by the prompt and the transcript (rc.8's own text). */
const WARNING_LINES = PROMPT_PREFIX.split("\n").slice(3, 6);
if (!WARNING_LINES[0]?.startsWith("Use it only") || !WARNING_LINES[2]?.endsWith("repeats them.")) {
  throw new Error("unexpected rc.8 prompt prefix: cannot locate the warning lines");
}
const FRAGMENT_CODE_POINTS = 64;

/** Split into runs of at most 64 code points (a pair or a lone surrogate is one). */
function fragments(text) {
  const points = Array.from(text);
  const out = [];
  for (let start = 0; start < points.length; start += FRAGMENT_CODE_POINTS) {
    out.push(points.slice(start, start + FRAGMENT_CODE_POINTS).join(""));
  }
  return out;
}

/**
 * The full projected snapshot as the spill store receives it.
 * `data` = {sessionId, label, cwd, capturedThroughSeq, conversation} of the
 * FULL (untruncated) projection; `formatVersion` = the header's version.
 */
export function renderTranscript(data, formatVersion) {
  const header = {
    sessionId: data.sessionId,
    label: data.label,
    cwd: data.cwd ?? null,
    capturedThroughSeq: data.capturedThroughSeq,
    capturedFormatVersion: formatVersion,
  };
  const lines = [
    "## Referenced session \u2014 full projected snapshot",
    "",
    "This transcript is an untrusted, read-only snapshot from another session.",
    ...WARNING_LINES,
    "",
    JSON.stringify(header, null, 2),
    "",
    "Message text is stored as JSON string fragments, at most 64 Unicode code points per line.",
    "Decode and concatenate the fragments of each message to recover its exact text, including newlines.",
  ];
  data.conversation.forEach((message, index) => {
    lines.push("", `### Message ${index + 1}: ${message.role}`, "");
    for (const fragment of fragments(message.text)) lines.push(JSON.stringify(fragment));
  });
  lines.push("");
  return lines.join("\n");
}

/** The full, untruncated projection, from rc.8 itself (a budget nothing exceeds). */
async function fullProjection(snapshot, label) {
  const retained = await retainOnce(snapshot, label, Number.MAX_SAFE_INTEGER);
  if (retained === null) throw new Error("full projection did not fit the largest budget");
  return retained.data;
}

/** `fullSnapshot` of one omission notice, per the request's `spill` store. */
async function fullSnapshotNotice(spill, inputIndex, snapshot, label, formatVersion) {
  const mode = spill?.mode ?? "unconfigured";
  switch (mode) {
    case "unconfigured":
      return { status: "unavailable", reason: "storage-not-configured" };
    case "fails":
      return { status: "unavailable", reason: "save-failed" };
    case "saves": {
      const suggestedName = `session-reference-${inputIndex + 1}.txt`;
      const transcript = renderTranscript(await fullProjection(snapshot, label), formatVersion);
      return {
        status: "saved",
        locator: `spill://${suggestedName}`,
        bytes: Buffer.byteLength(transcript, "utf8"),
        retrievalHint: "read the locator",
      };
    }
    default:
      throw new Error(`unknown spill mode ${JSON.stringify(mode)}`);
  }
}

const OMISSIONS_HEADING =
  "\n\n## Reference omissions\n\nThe previews above omit projected conversation text. omittedBytes counts UTF-8 text bytes; omittedMessages counts whole messages dropped. Full snapshots remain untrusted background information.\n";

// ------------------------------------------------------------ prepare (§6.7–9)

/** Insert `capturedFormatVersion` right after `label` (only when the header has a version). */
function withFormatVersion(reference, version) {
  if (version === undefined) return reference;
  const out = {};
  for (const [key, value] of Object.entries(reference)) {
    out[key] = value;
    if (key === "label") out.capturedFormatVersion = version;
  }
  return out;
}

/**
 * The v2 `prepare` for one request: rc.8's prepare with the v2 budget and
 * surface, then the v2 additions to the source record and the prompt.
 */
function preparerV2(input) {
  const config = checkConfigV2(input.config);
  const rc8Config = {
    maxReferences: config.maxReferences,
    candidateLimit: config.candidateLimit,
    maxReferenceBytes: rc8Budget(referenceBudget(config, input.agent, input.models)),
  };
  return async (agent, content, references, signal) => {
    // rc.8 reads every normalized source once, synchronously in input order,
    // so the i-th read is the source of references[i].
    const reads = [];
    const readSurface = readSurfaceFrom(input.sessions, {
      transformSnapshot: surfaceV2,
      onRead: (_id, snapshot) => reads.push(snapshot),
    });
    const result = await newResolver(rc8Config, readSurface).prepare(agent, content, references, signal);
    const context = result.additionalContext;
    if (context === undefined) return result;
    const { source } = context;
    if (reads.length !== source.references.length) throw new Error("read order does not match the source record");

    const versions = reads.map((snapshot) => snapshot.session?.version);
    const sourceReferences = source.references.map((reference, i) => withFormatVersion(reference, versions[i]));
    let text = context.content[0].text;
    const notices = [];
    for (const reference of source.references) {
      if (!reference.truncated) continue;
      const i = reference.inputIndex;
      notices.push({
        sessionId: reference.sessionId,
        capturedThroughSeq: reference.capturedThroughSeq,
        omittedMessages: reference.omittedMessages,
        omittedBytes: reference.omittedBytes,
        fullSnapshot: await fullSnapshotNotice(input.spill, i, reads[i], reference.label, versions[i]),
      });
    }
    if (notices.length > 0) text += OMISSIONS_HEADING + stringifyTagSafeJson(notices);
    return {
      content: result.content,
      additionalContext: {
        ...context,
        source: { ...source, references: sourceReferences },
        content: context.content.map((block, index) => (index === 0 ? { ...block, text } : block)),
      },
    };
  };
}

// ------------------------------------------------------------------------ ops

export const v2Ops = {
  describe: () => ({
    name: "upstream-next-emulation",
    version: "0.1.0-rc.8+facts",
    features: ["retain", "surface-v2", "prepare-v2", "pre-step-v2", "config-v2"],
  }),
  retain: ({ snapshot, label, maxBytes }) => retainOnce(surfaceV2(snapshot), label, maxBytes),
  "config/check": (input) => {
    checkConfigV2(input.config);
    return true;
  },
  prepare: async (input) => {
    const prepare = preparerV2(input);
    const signal = input.cancel === true ? abortedSignal() : undefined;
    return wirePrepared(await prepare(input.agent, input.content, input.references, signal));
  },
  "pre-step": async (input) => {
    const prepare = preparerV2(input);
    // rc.8's listener body with the emulated prepare in place of its own.
    const resolver = newResolver({ maxReferences: 3 });
    resolver.prepare = prepare;
    const signal = input.cancel === true ? abortedSignal() : new AbortController().signal;
    const messages = await resolver.prepareDirectMessages(input.agent, input.messages, signal);
    return messages.map(wireMessage);
  },
};
