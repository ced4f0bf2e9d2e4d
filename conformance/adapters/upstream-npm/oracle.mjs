// Drives the installed upstream package
// @deepseek-ai/dsh-session-reference@0.1.0-rc.8 (pinned in package.json) for
// the protocol ops. Every answer comes from the package's own code: this module
// only builds a host around it (a cordis Context with a `sessionQuery` service
// fed from the request) and reshapes its results for the wire. It lives next to
// node_modules so that the package and its peers resolve from here; the
// upstream-next emulation imports it too.
import * as upstream from "@deepseek-ai/dsh-session-reference";
import { Context } from "@deepseek-ai/cordis";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fileOps } from "./files.mjs";

export { upstream };

export const PACKAGE = "@deepseek-ai/dsh-session-reference";
const bundlePath = fileURLToPath(import.meta.resolve(PACKAGE));
export const packageJson = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.resolve(PACKAGE)), "utf8"),
);

// Some pieces are internal to the bundle (not exported). Load their own source
// text from the installed bundle, so that answers use upstream's code and
// constants rather than copies of them.
const bundle = readFileSync(bundlePath, "utf8");
function fromBundle(pattern, what, body) {
  const found = pattern.exec(bundle);
  if (found === null) throw new Error(`${what} not found in ${bundlePath}`);
  return new Function(`${found[0]}\n${body}`)();
}

/** Upstream's tag-safe JSON serializer. */
export const stringifyTagSafeJson = fromBundle(
  /function stringifyTagSafeJson\(value\) \{[\s\S]*?\n\}/,
  "stringifyTagSafeJson",
  "return stringifyTagSafeJson;",
);
/** Upstream's prompt envelope around the tag-safe data array. */
// Each declaration is read up to its `;` outside string literals, so that an
// instrumented bundle (conformance/mutants/upstream/) reads the same way.
export const PROMPT_PREFIX = fromBundle(/const PROMPT_PREFIX = (?:[^;`]|`[^`]*`)*;/, "PROMPT_PREFIX", "return PROMPT_PREFIX;");
export const PROMPT_SUFFIX = fromBundle(
  /const PROMPT_SUFFIX = (?:[^;"]|"(?:[^"\\]|\\.)*")*;/,
  "PROMPT_SUFFIX",
  "return PROMPT_SUFFIX;",
);

/** Stable code rc.8 uses for a retention that cannot fit. */
export const BUDGET_EXCEEDED = "SESSION_REFERENCE_BUDGET_EXCEEDED";

/** `null` or absent configuration means the defaults (protocol: null = absent). */
function configOf(input) {
  return input.config ?? undefined;
}

/**
 * The `readSurface` a request describes. `sessions` maps id → snapshot, or
 * id → {"readError": MESSAGE}; a missing id also fails its read. Own members
 * only, so ids such as "__proto__" or "constructor" behave like any other.
 * `transformSnapshot` lets an emulation adjust snapshots before the package
 * sees them; `onRead(id, snapshot)` observes each read in call order.
 */
export function readSurfaceFrom(sessions, { transformSnapshot = (s) => s, onRead, onStart } = {}) {
  const table = sessions ?? {};
  return async (id) => {
    onStart?.(id);
    if (typeof table !== "object" || !Object.hasOwn(table, id)) {
      onRead?.(id, undefined);
      throw new Error(`session not found: ${id}`);
    }
    const entry = table[id];
    if (entry !== null && typeof entry === "object" && Object.hasOwn(entry, "readError")) {
      onRead?.(id, undefined);
      throw new Error(String(entry.readError));
    }
    const snapshot = transformSnapshot(entry);
    onRead?.(id, snapshot);
    return snapshot;
  };
}

/**
 * A fresh resolver on a fresh cordis Context (the service name can be
 * provided once per Context, and each request has its own config and
 * sessions). Throws what the constructor throws (INVALID_CONFIG).
 */
export function newResolver(config, readSurface = readSurfaceFrom({})) {
  const ctx = new Context();
  ctx.provide("sessionQuery");
  ctx.sessionQuery = { readSurface };
  return new upstream.SessionReferenceResolver(ctx, config);
}

/** `cancel: true` → a signal already aborted when preparation starts. */
export function abortedSignal() {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

/**
 * The turn's signal as the protocol's `cancel` describes it (spec
 * `prepare.cancel`, `prepare.cancel.stage`): `true` is aborted from the
 * start; `{"onRead": N}` aborts when the N-th session read starts,
 * `{"onSave": N}` when the N-th spill save starts (each then completes as
 * it would). `signal` is undefined when nothing can abort and `always` is
 * false (rc.8's `prepare` called without a signal).
 */
export function turnSignal(cancel, always = false) {
  const controller = new AbortController();
  if (cancel === true) controller.abort();
  const staged = cancel !== null && typeof cancel === "object";
  const at = (name) => (staged && Number.isSafeInteger(cancel[name]) && cancel[name] > 0 ? cancel[name] : undefined);
  const counter = (limit) => {
    let count = 0;
    return () => {
      count += 1;
      if (count === limit) controller.abort();
    };
  };
  return {
    signal: always || cancel === true || staged ? controller.signal : undefined,
    onRead: counter(at("onRead")),
    onSave: counter(at("onSave")),
  };
}

/**
 * A message as it leaves on the wire: without `role`, and without its `id`
 * unless `keepIds` keeps the ids of messages that come from input messages
 * (spec `pre-step.ids`); a context message's id is generated and dropped.
 */
export function wireMessage(message, inputIds = undefined) {
  const { role: _role, id, ...rest } = message;
  if (inputIds === undefined || !inputIds.has(id)) return rest;
  const out = {};
  for (const key of Object.keys(message)) if (key !== "role") out[key] = message[key];
  return out;
}

/** The ids of the input messages when the request keeps ids (`keepIds: true`). */
export function keptIds(input) {
  if (input.keepIds !== true || !Array.isArray(input.messages)) return undefined;
  return new Set(input.messages.filter((m) => m !== null && typeof m === "object" && Object.hasOwn(m, "id")).map((m) => m.id));
}

/** `prepare`'s result on the wire: {content, additionalContext?: {source, content}}. */
export function wirePrepared(result) {
  const out = { content: result.content };
  if (result.additionalContext !== undefined) {
    const { source, content } = result.additionalContext;
    out.additionalContext = { source, content };
  }
  return out;
}

/** The data array rendered inside an rc.8 prompt text (tag-safe JSON parses back unchanged). */
export function promptData(text) {
  if (
    typeof text !== "string" ||
    !text.startsWith(PROMPT_PREFIX) ||
    !text.endsWith(PROMPT_SUFFIX) ||
    text.length < PROMPT_PREFIX.length + PROMPT_SUFFIX.length
  ) {
    throw new Error("prompt text does not have the expected envelope");
  }
  return JSON.parse(text.slice(PROMPT_PREFIX.length, text.length - PROMPT_SUFFIX.length));
}

const STAT_KEYS = ["compacted", "originalMessages", "retainedMessages", "omittedMessages", "omittedBytes", "truncated"];

/**
 * One retention of one snapshot through the package's public API:
 * `retainReferencedSession` is internal, so run `prepare` with exactly one
 * reference and the budget as `maxReferenceBytes`, then read the data object
 * back out of the prompt and the stats out of the source record.
 * Returns `{data, stats}`, or `null` when the fixed fields cannot fit.
 */
export async function retainOnce(snapshot, label, maxBytes) {
  // The op's budget is a positive safe integer; upstream's config would reject
  // anything else (and would replace null with its default), so such a request
  // is outside the contract.
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new Error(`retain: maxBytes must be a positive safe integer, got ${JSON.stringify(maxBytes)}`);
  }
  const sessionId = snapshot?.session?.id;
  const resolver = newResolver({ maxReferenceBytes: maxBytes }, readSurfaceFrom({ [sessionId]: snapshot }));
  // An agent id that can never equal the source id (it is longer than it).
  const agent = { id: `${String(sessionId)}\u0000retain-agent` };
  let result;
  try {
    result = await resolver.prepare(agent, [], [{ sessionId, label }]);
  } catch (error) {
    if (error?.code === BUDGET_EXCEEDED) return null;
    throw error;
  }
  const context = result.additionalContext;
  const data = promptData(context.content[0].text)[0];
  const reference = context.source.references[0];
  const stats = {};
  for (const key of STAT_KEYS) stats[key] = reference[key];
  return { data, stats };
}

// ------------------------------------------------- candidates (candidates-v1)
// The protocol's listing `[{id, cwd?, createdAt, title?, subagentLabel?}]`
// becomes the host rc.8 discovery reads: `sessionQuery.listSessions` answers
// the records in the given (listing) order, `sessionQuery.readTitleSnapshots`
// one fulfilled observation per id. rc.8 knows no subagent labels.

/** A resolver whose `sessionQuery` serves a protocol candidate listing. */
export function candidateResolver(config, sessions) {
  const listing = Array.isArray(sessions) ? sessions : [];
  // Titles are read by id (as a real host would); vectors keep ids unique.
  const titles = new Map();
  for (const session of listing) {
    if (!titles.has(session.id)) titles.set(session.id, session.title);
  }
  const ctx = new Context();
  ctx.provide("sessionQuery");
  ctx.sessionQuery = {
    readSurface: readSurfaceFrom({}),
    listSessions: async (_signal) =>
      listing.map((session) => ({
        header: {
          id: session.id,
          ...(Object.hasOwn(session, "cwd") ? { cwd: session.cwd } : {}),
          createdAt: session.createdAt,
        },
      })),
    readTitleSnapshots: async (ids, _signal) =>
      ids.map((id) => {
        const title = titles.get(id);
        return { status: "fulfilled", value: { title: title === undefined ? undefined : { title } } };
      }),
  };
  return new upstream.SessionReferenceResolver(ctx, config);
}

/** The protocol agent `{id, cwd?}` as rc.8 discovery reads it. */
function candidateAgent(agent) {
  return { id: agent?.id, session: { header: { cwd: agent?.cwd } } };
}

const candidateOps = {
  // Absent query/limit reach rc.8 as undefined (its defaults); present values as they are.
  "candidates/list": (input) =>
    candidateResolver(configOf(input), input.sessions).listCandidates(
      candidateAgent(input.agent),
      input.query,
      input.limit,
      undefined,
    ),
  "candidates/remote": (input) =>
    candidateResolver(configOf(input), input.sessions).remoteExportCandidates(
      candidateAgent(input.agent),
      input.query,
      undefined,
    ),
};

/** The ops this package answers (rc.8 generation). */
export const v1Ops = {
  describe: () => ({
    name: PACKAGE,
    version: packageJson.version,
    features: ["uri", "mention", "json", "retain", "prepare-v1", "pre-step-v1", "config-v1", "files", "candidates-v1"],
    // JavaScript strings hold lone surrogates, and rc.8 copies an absent
    // capturedThroughSeq as absent (protocol.capabilities). rc.8 never looks
    // up a model (its budget is fixed), so a failing lookup is taken by
    // ignoring it; staged cancellation and kept ids drive rc.8's own code.
    // Inputs reach rc.8 as JSON.parse builds them, of any type
    // (dynamic-inputs, protocol.input-types).
    capabilities: ["lone-surrogates", "optional-seq", "model-lookup-errors", "staged-cancel", "message-ids", "dynamic-inputs"],
  }),
  // rc.8 discovery: listCandidates / remoteExportCandidates.
  ...candidateOps,
  // @deepseek-ai/dsh-file-reference(-local)@0.1.0-rc.8 (files.mjs).
  ...fileOps,
  "uri/encode": ({ sessionId }) => upstream.encodeSessionReferenceUri(sessionId),
  "uri/decode": ({ uri }) => upstream.decodeSessionReferenceUri(uri),
  "mention/format": (input) => upstream.formatSessionReferenceMention(input),
  "mention/parse": ({ text }) => upstream.parseSessionReferenceText(text),
  "json/tag-safe": (input) => stringifyTagSafeJson(input.value),
  retain: ({ snapshot, label, maxBytes }) => retainOnce(snapshot, label, maxBytes),
  "config/check": (input) => {
    newResolver(configOf(input));
    return true;
  },
  prepare: async (input) => {
    const turn = turnSignal(input.cancel);
    const resolver = newResolver(configOf(input), readSurfaceFrom(input.sessions, { onStart: turn.onRead }));
    return wirePrepared(await resolver.prepare(input.agent, input.content, input.references, turn.signal));
  },
  "pre-step": async (input) => {
    // What the agent/pre-step listener runs; a turn always has a signal.
    const turn = turnSignal(input.cancel, true);
    const resolver = newResolver(configOf(input), readSurfaceFrom(input.sessions, { onStart: turn.onRead }));
    const messages = await resolver.prepareDirectMessages(input.agent, input.messages, turn.signal);
    const ids = keptIds(input);
    return messages.map((message) => wireMessage(message, ids));
  },
};
