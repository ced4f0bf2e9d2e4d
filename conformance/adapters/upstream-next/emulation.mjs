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
//   seq   capturedThroughSeq is a session sequence number: a present value
//         that is neither null nor a non-negative safe integer fails when the
//         reference is retained (a code-less TypeError, as the newer upstream
//         build's SessionSeq brand throws); an absent one stays absent (the
//         newest documents type the member optional).
//   §6.6  automatic budget from the agent's route and the request's `models`.
//   §6.7  "Reference omissions" block after the prompt for truncated sources.
//   §6.8  capturedFormatVersion (the source header's version) after `label`.
//   §6.9  full-snapshot spill transcript, with the protocol's `spill` store.
//   §8    candidates-v2 discovery (C6–C8): displayTitle, sameWorkspace, and the
//         spec-defined fuzzy matching of spec/candidates.md, implemented here
//         from the spec text (not from rc.8, whose matching is a substring).
import {
  PROMPT_PREFIX,
  keptIds,
  newResolver,
  turnSignal,
  readSurfaceFrom,
  retainOnce,
  stringifyTagSafeJson,
  upstream,
  wireMessage,
  wirePrepared,
} from "../upstream-npm/oracle.mjs";

const INVALID_CONFIG = "SESSION_REFERENCE_INVALID_CONFIG";
/** The failures a message meets before its reads (tiers 1 and 2 of `pre-step.errors`); any other comes after them (tier 3). */
const BEFORE_THE_READS = new Set([
  "SESSION_REFERENCE_INVALID_CONFIG",
  "SESSION_REFERENCE_INVALID_REFERENCE",
  "SESSION_REFERENCE_SELF_REFERENCE",
  "SESSION_REFERENCE_TOO_MANY",
  "SESSION_REFERENCE_CANCELLED",
]);

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

/**
 * A model lookup that fails for another reason than a missing adapter
 * (`models["provider/model"]` = `{"lookupError": MESSAGE}`): the newer build
 * rethrows it, a plain error without a stable code (INTERNAL), before any
 * read (spec `prepare.budget.lookup-failed`).
 */
class ModelLookupError extends Error {}

/** The per-reference byte budget: explicit, else automatic from the route. */
export function referenceBudget(config, agent, models) {
  if (config.maxReferenceBytes !== undefined) return config.maxReferenceBytes;
  const route = agent?.route;
  if (route == null || route.provider == null || route.model == null) return AUTOMATIC_MIN_BYTES;
  const key = `${route.provider}/${route.model}`;
  // No adapter for the route (LlmError NO_ADAPTER) → 64 KiB.
  if (models == null || typeof models !== "object" || !Object.hasOwn(models, key)) return AUTOMATIC_MIN_BYTES;
  const info = models[key];
  if (info !== null && typeof info === "object" && Object.hasOwn(info, "lookupError")) {
    return new ModelLookupError(String(info.lookupError));
  }
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

/** A session sequence number: a non-negative safe integer (-0 is not one). */
function isSessionSeq(value) {
  return Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0);
}

/**
 * The snapshot with developer/system message events removed (others
 * untouched), and a capturedThroughSeq outside the session-sequence domain
 * turned into a member that throws when retention reads it: rc.8 reads it
 * exactly where the newer build validates it (after projecting the events,
 * before measuring the data), so the failure comes, as there, when that
 * reference is retained, in input order.
 */
export function surfaceV2(snapshot) {
  if (snapshot === null || typeof snapshot !== "object" || !Array.isArray(snapshot.events)) return snapshot;
  const out = { ...snapshot, events: snapshot.events.filter((event) => !IGNORED_EVENT_TYPES.has(event?.type)) };
  const seq = snapshot.capturedThroughSeq;
  if (Object.hasOwn(snapshot, "capturedThroughSeq") && seq !== null && !isSessionSeq(seq)) {
    Object.defineProperty(out, "capturedThroughSeq", {
      enumerable: true,
      get() {
        throw new TypeError(`capturedThroughSeq must be a session sequence number, got ${JSON.stringify(seq)}`);
      },
    });
  }
  return out;
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

/**
 * The full, untruncated projection, from rc.8 itself (a budget nothing
 * exceeds). rc.8 is driven through a reference, whose id must be a string:
 * a session id of another value (or none) is retained under "" and put back,
 * as the newer build copies it (or leaves it out when undefined).
 */
async function fullProjection(snapshot, label) {
  const id = snapshot?.session?.id;
  const asRetained = typeof id === "string" ? snapshot : { ...snapshot, session: { ...snapshot?.session, id: "" } };
  const retained = await retainOnce(asRetained, label, Number.MAX_SAFE_INTEGER);
  if (retained === null) throw new Error("full projection did not fit the largest budget");
  const data = { ...retained.data };
  if (id === undefined) delete data.sessionId;
  else data.sessionId = id;
  return data;
}

/** `fullSnapshot` of one omission notice, per the request's `spill` store. */
async function fullSnapshotNotice(spill, inputIndex, snapshot, label, formatVersion, onSave) {
  // Absent, or any mode but the two stores, is no store (spec
  // adapter-protocol: the protocol's stand-in, ours).
  const mode = spill?.mode;
  switch (mode) {
    case "fails":
      onSave?.();
      return { status: "unavailable", reason: "save-failed" };
    case "saves": {
      onSave?.();
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
      return { status: "unavailable", reason: "storage-not-configured" };
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
function preparerV2(input, turn) {
  const config = checkConfigV2(input.config);
  const budget = referenceBudget(config, input.agent, input.models);
  const lookupFailure = budget instanceof ModelLookupError ? budget : undefined;
  const rc8Config = {
    maxReferences: config.maxReferences,
    candidateLimit: config.candidateLimit,
    maxReferenceBytes: lookupFailure === undefined ? rc8Budget(budget) : AUTOMATIC_MIN_BYTES,
  };
  return async (agent, content, references, signal) => {
    // rc.8 reads every normalized source once, synchronously in input order,
    // so the i-th read is the source of references[i].
    const reads = [];
    const readSurface = readSurfaceFrom(input.sessions, {
      transformSnapshot: surfaceV2,
      onRead: (_id, snapshot) => reads.push(snapshot),
      onStart: turn.onRead,
    });
    // The newer build looks the model up after the cancel check and before
    // any read: where rc.8 starts its first read, the lookup fails instead.
    const reader = lookupFailure === undefined ? readSurface : async () => { throw lookupFailure; };
    // The newer build awaits the budget between the cancel check and the
    // reads: in a pre-step every message is checked before any read starts
    // (spec `pre-step.errors`, `prepare.cancel.stage`).
    const afterBudget = async (id) => {
      await undefined;
      return reader(id);
    };
    let result;
    try {
      result = await newResolver(rc8Config, afterBudget).prepare(agent, content, references, signal);
    } catch (error) {
      if (lookupFailure !== undefined && error?.cause === lookupFailure) throw lookupFailure;
      throw error;
    }
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
        fullSnapshot: await fullSnapshotNotice(input.spill, i, reads[i], reference.label, versions[i], turn.onSave),
      });
    }
    // A cancel while the saves run: nothing is published (the newer build
    // settles the saves with the signal, then checks it again).
    if (signal?.aborted === true) {
      throw new upstream.SessionReferenceError("session reference preparation was cancelled", "SESSION_REFERENCE_CANCELLED");
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

// --------------------------------------------- candidates (candidates-v2)
// Written from spec/candidates.md alone (the newest generation's fuzzy
// matcher is documented but not published): a second, independent
// implementation of the spec's rules, so that candidates-v2 vectors get their
// expectations from it. Lower-casing is String.prototype.toLowerCase
// (candidates.lowercase); indices and lengths are UTF-16 code units.

const INVALID_REFERENCE = "SESSION_REFERENCE_INVALID_REFERENCE";

/** JavaScript whitespace, exactly as mention.parse.js-whitespace lists it. */
function isJsWhitespace(unit) {
  return (
    (unit >= 0x09 && unit <= 0x0d) ||
    unit === 0x20 ||
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

function isAsciiLetterOrDigit(unit) {
  return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a);
}

/** candidates.fuzzy.word-start: position 0, or after ASCII non-alphanumeric, or after JS whitespace. */
function isWordStart(field, position) {
  if (position === 0) return true;
  const before = field.charCodeAt(position - 1);
  return (before < 0x80 && !isAsciiLetterOrDigit(before)) || isJsWhitespace(before);
}

/** candidates.fuzzy.subsequence: greedy left-to-right indexOf scan; undefined = no match. */
function subsequenceScore(q, field) {
  let previous = -1;
  let first = -1;
  let gap = 0;
  for (let i = 0; i < q.length; i++) {
    const found = field.indexOf(q[i], previous + 1);
    if (found === -1) return undefined;
    if (i === 0) first = found;
    else gap += found - previous - 1;
    previous = found;
  }
  return 300 + Math.max(0, 100 - gap) + (isWordStart(field, first) ? 50 : 0);
}

/** candidates.fuzzy.score of a (non-empty) lower-cased query against a lower-cased field. */
export function fuzzyScore(q, field) {
  if (field === q) return 1000;
  if (field.startsWith(q)) return 900;
  let anywhere = false;
  for (let at = field.indexOf(q); at !== -1; at = field.indexOf(q, at + 1)) {
    if (isWordStart(field, at)) return 800;
    anywhere = true;
  }
  if (anywhere) return 700;
  return subsequenceScore(q, field);
}

/** candidates.fuzzy.relevance; undefined when nothing applies (the candidate is left out). */
function relevanceOf(q, candidate) {
  const scores = [
    fuzzyScore(q, candidate.label.toLowerCase()),
    fuzzyScore(q, candidate.displayTitle.toLowerCase()),
    candidate.sessionId.toLowerCase().includes(q) ? 500 : undefined,
    candidate.cwd !== undefined && candidate.cwd.toLowerCase().includes(q) ? 500 : undefined,
  ].filter((score) => score !== undefined);
  return scores.length === 0 ? undefined : Math.max(...scores);
}

/** candidates.rank: 0 same cwd (both present), 1 no cwd, 2 otherwise. */
function rankOf(cwd, agentCwd) {
  if (cwd !== undefined && agentCwd !== undefined && cwd === agentCwd) return 0;
  if (cwd === undefined) return 1;
  return 2;
}

/** A listing member's optional string field: recorded when present (an empty string counts). */
function recorded(session, name) {
  return Object.hasOwn(session, name) && session[name] !== null ? session[name] : undefined;
}

/**
 * The v2 discovery: config (candidates.config), limit (candidates.limit),
 * self exclusion, label/displayTitle, rank, fuzzy relevance, ordering, limit.
 * `limit` undefined = absent (configured candidateLimit).
 */
export function listCandidatesV2(input, limitInput) {
  const config = checkConfigV2(input.config);
  const limit = limitInput === undefined ? config.candidateLimit : limitInput;
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new upstream.SessionReferenceError("candidate limit must be a positive safe integer", INVALID_REFERENCE);
  }
  const query = input.query === undefined ? "" : input.query;
  if (typeof query !== "string") throw new TypeError("candidate query must be a string");
  const q = query.toLowerCase();
  const agentId = input.agent?.id;
  const agentCwd = recorded(input.agent ?? {}, "cwd");
  const listing = Array.isArray(input.sessions) ? input.sessions : [];

  const matches = [];
  let index = 0;
  for (const session of listing) {
    if (session.id === agentId) continue;
    const title = recorded(session, "title");
    const subagentLabel = recorded(session, "subagentLabel");
    const cwd = recorded(session, "cwd");
    const label = title !== undefined ? title : session.id;
    const candidate = {
      sessionId: session.id,
      label,
      displayTitle: subagentLabel !== undefined ? subagentLabel : label,
      cwd,
      createdAt: session.createdAt,
    };
    const rank = rankOf(cwd, agentCwd);
    const relevance = query === "" ? 0 : relevanceOf(q, candidate);
    if (relevance !== undefined) matches.push({ candidate, rank, relevance, index });
    index += 1;
  }
  matches.sort((a, b) => a.rank - b.rank || b.relevance - a.relevance || a.index - b.index);
  return matches.slice(0, limit).map(({ candidate, rank }) => ({
    sessionId: candidate.sessionId,
    label: candidate.label,
    displayTitle: candidate.displayTitle,
    ...(candidate.cwd === undefined ? {} : { cwd: candidate.cwd }),
    sameWorkspace: rank === 0,
    createdAt: candidate.createdAt,
  }));
}

/** candidates.remote: configured limit, then the mention of each candidate's displayTitle, last. */
export function remoteCandidatesV2(input) {
  return listCandidatesV2(input, undefined).map((candidate) => ({
    ...candidate,
    mention: upstream.formatSessionReferenceMention({ sessionId: candidate.sessionId, label: candidate.displayTitle }),
  }));
}

// ------------------------------------------------------------------------ ops

export const v2Ops = {
  describe: () => ({
    name: "upstream-next-emulation",
    version: "0.1.0-rc.8+facts",
    features: [
      "retain",
      "surface-v2",
      "prepare-v2",
      "pre-step-v2",
      "config-v2",
      "config-fraction-type",
      "candidates-v2",
      "candidates-fuzzy",
    ],
    capabilities: ["lone-surrogates", "optional-seq", "model-lookup-errors", "staged-cancel", "message-ids", "dynamic-inputs"],
  }),
  "candidates/list": (input) => listCandidatesV2(input, input.limit),
  "candidates/remote": (input) => remoteCandidatesV2(input),
  retain: ({ snapshot, label, maxBytes }) => retainOnce(surfaceV2(snapshot), label, maxBytes),
  "config/check": (input) => {
    checkConfigV2(input.config);
    return true;
  },
  prepare: async (input) => {
    const turn = turnSignal(input.cancel);
    const prepare = preparerV2(input, turn);
    return wirePrepared(await prepare(input.agent, input.content, input.references, turn.signal));
  },
  "pre-step": async (input) => {
    const turn = turnSignal(input.cancel, true);
    const prepare = preparerV2(input, turn);
    // rc.8's listener body with the emulated prepare in place of its own.
    // The newer build's saves settle with the signal: a cancel while an
    // earlier message saves rejects that message at once, before a later
    // message's failure after its reads surfaces (spec `pre-step.errors`,
    // tier 3 in message order). Such a failure waits for the earlier
    // messages here, since the emulated saves run after rc.8's prepare.
    const resolver = newResolver({ maxReferences: 3 });
    let earlier;
    resolver.prepare = (agent, content, references, signal) => {
      const before = earlier;
      const own = prepare(agent, content, references, signal);
      earlier = Promise.allSettled([before, own]);
      return own.catch(async (error) => {
        if (before !== undefined && !BEFORE_THE_READS.has(error?.code)) {
          await before;
          // A macrotask: by then an earlier rejection has reached Promise.all.
          await new Promise((resolve) => setImmediate(resolve));
        }
        throw error;
      });
    };
    const messages = await resolver.prepareDirectMessages(input.agent, input.messages, turn.signal);
    const ids = keptIds(input);
    return messages.map((message) => wireMessage(message, ids));
  },
};
