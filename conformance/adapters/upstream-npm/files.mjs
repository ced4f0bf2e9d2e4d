// Drives the installed upstream packages @deepseek-ai/dsh-file-reference and
// @deepseek-ai/dsh-file-reference-local (both 0.1.0-rc.8, pinned in
// package.json) for the file-reference ops (spec/files.md). Every answer comes
// from the packages' own code: this module only materializes the requested
// working directory in a fresh temporary directory, builds the smallest host
// the local provider needs (a cordis Context with an `agents` service) and
// calls its Remote face `remoteExportList` (which delegates to `list`).
import { activeAtToken, formatFileMention } from "@deepseek-ai/dsh-file-reference";
import { LocalFileReferenceService } from "@deepseek-ai/dsh-file-reference-local";
import { Context } from "@deepseek-ai/cordis";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A string without lone surrogates (a real file name on the wire). */
function isWellFormed(text) {
  return !/\p{Surrogate}/u.test(text);
}

/**
 * The tree's entries checked and resolved: `path → kind` (parents implied as
 * directories) in the protocol's terms (spec `files.list.tree`). Throws on
 * anything the protocol does not allow; the caller answers INTERNAL.
 */
export function planTree(tree) {
  const entries = tree?.entries;
  if (!Array.isArray(entries)) throw new Error("files/list: tree.entries must be an array");
  const kinds = new Map();
  const targets = new Map();
  const declare = (path, kind) => {
    const previous = kinds.get(path);
    if (previous === undefined) kinds.set(path, kind);
    else if (!(previous === "directory" && kind === "directory")) {
      throw new Error(`files/list: ${JSON.stringify(path)} is declared twice`);
    }
  };
  for (const entry of entries) {
    const path = entry?.path;
    const kind = entry?.kind;
    if (typeof path !== "string" || !isWellFormed(path) || path.includes("\u0000")) {
      throw new Error("files/list: an entry path must be a well-formed string without NUL");
    }
    const segments = path.split("/");
    if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
      throw new Error(`files/list: ${JSON.stringify(path)} is not a relative path of names`);
    }
    if (kind !== "file" && kind !== "directory" && kind !== "symlink") {
      throw new Error(`files/list: unknown entry kind ${JSON.stringify(kind)}`);
    }
    for (let end = 1; end < segments.length; end += 1) declare(segments.slice(0, end).join("/"), "directory");
    declare(path, kind);
    if (kind === "symlink") {
      const target = entry.target;
      if (typeof target !== "string" || target === "" || target.startsWith("/") || !isWellFormed(target) || target.includes("\u0000")) {
        throw new Error("files/list: a symlink target must be a non-empty relative well-formed string");
      }
      targets.set(path, target);
    }
  }
  return { kinds, targets };
}

/** Writes the planned tree under `root`: directories, then empty files, then symlinks. */
function materialize(root, { kinds, targets }) {
  const sorted = [...kinds.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  for (const [path, kind] of sorted) if (kind === "directory") mkdirSync(join(root, path), { recursive: true });
  for (const [path, kind] of sorted) if (kind === "file") writeFileSync(join(root, path), "", { flag: "wx" });
  for (const [path, kind] of sorted) if (kind === "symlink") symlinkSync(targets.get(path), join(root, path));
}

/** Runs `body(root)` on the requested tree in a fresh temporary directory, removed afterwards. */
export async function withTree(tree, body) {
  const plan = planTree(tree);
  const root = mkdtempSync(join(tmpdir(), "dsh-files-oracle-"));
  try {
    materialize(root, plan);
    return await body(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * rc.8's local provider on a fresh Context: its constructor applies the
 * defaults (`??`) and validates the configuration (a plain Error → INTERNAL).
 */
export function newLocalService(config) {
  const ctx = new Context();
  ctx.provide("agents");
  ctx.agents = { list: () => [], get: () => undefined };
  return new LocalFileReferenceService(ctx, config ?? undefined);
}

/** The file-reference ops (feature `files`). */
export const fileOps = {
  "files/token": ({ line, cursor }) => activeAtToken(line, cursor),
  "files/format": ({ candidate, preserveQuote }) => formatFileMention(candidate, preserveQuote),
  "files/list": async ({ tree, query, config }) => {
    const service = newLocalService(config);
    return withTree(tree, (root) => {
      // One agent whose session works in the materialized directory. The
      // Remote face `fileReferences/list` (remoteExportList) answers, as a
      // host's remote caller reaches it; it carries list's contract
      // (spec `files.remote`).
      const agent = { session: { header: { cwd: root } } };
      return service.remoteExportList(agent, query, new AbortController().signal);
    });
  },
};
