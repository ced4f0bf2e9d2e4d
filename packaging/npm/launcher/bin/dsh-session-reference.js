#!/usr/bin/env node
// The `dsh-session-reference` command of the npm package
// dsh-session-reference-conformance (issue #56). The binary itself comes in
// one optional dependency per platform (the way esbuild and biome ship
// theirs): npm installs the one whose `os`, `cpu` and `libc` match, and this
// script finds it and runs it with our arguments, stdin, stdout and stderr
// (the binary's `adapter` command serves a line protocol on stdin/stdout),
// then exits as it did. Plain Node, no dependencies.
"use strict";

const { spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const LAUNCHER = "dsh-session-reference-conformance";

// glibc or musl: Node's diagnostic report names the glibc it runs on, and
// nothing on musl.
function libc() {
  try {
    if (process.report && "excludeNetwork" in process.report) process.report.excludeNetwork = true;
    const header = process.report.getReport().header;
    return header && header.glibcVersionRuntime ? "glibc" : "musl";
  } catch (_) {
    return "glibc";
  }
}

// The platform package's name: <launcher>-<os>-<cpu>[-musl], as
// packaging/npm/manifest.js names them.
const musl = process.platform === "linux" && libc() === "musl";
const platform = `${process.platform} ${process.arch}${process.platform === "linux" ? (musl ? " (musl)" : " (glibc)") : ""}`;
const pkg = `${LAUNCHER}-${process.platform}-${process.arch}${musl ? "-musl" : ""}`;
const exe = `dsh-session-reference${process.platform === "win32" ? ".exe" : ""}`;

let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
  if (!fs.existsSync(binary)) throw new Error(`${binary} is missing`);
} catch (error) {
  process.stderr.write(
    [
      `dsh-session-reference: no binary for this platform (${platform}): the npm package ${pkg} is not installed` +
        (error && error.code !== "MODULE_NOT_FOUND" ? ` (${error.message})` : "") +
        ".",
      `It is an optional dependency of ${LAUNCHER}: npm installs it on its own unless optional dependencies`,
      `are left out (--omit=optional, --no-optional) or no such package is published for this platform.`,
      `Install it alongside:    npm install ${pkg}@${require("../package.json").version}`,
      "Or get the same binary another way:",
      "  pip install dsh-session-reference-conformance",
      "  the release archive dsh-session-reference-<version>-<rust target>.tar.gz (with SHA256SUMS)",
      "  cargo install dsh-session-reference",
      "",
    ].join("\n"),
  );
  process.exit(2);
}

// Ctrl-C reaches the binary too (the same process group): it stops its run
// and prints its report. Keep Node alive meanwhile (a listener, even an empty
// one, replaces the default of dying at once); the child's status tells the
// rest.
const ignore = () => {};
process.on("SIGINT", ignore);

const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
process.removeListener("SIGINT", ignore);
if (result.error) {
  process.stderr.write(`dsh-session-reference: could not run ${binary}: ${result.error.message}\n`);
  process.exit(2);
}
if (result.signal) {
  // Die of the same signal, so that a caller sees what the binary saw.
  process.kill(process.pid, result.signal);
  // Where that did not end the process (Windows), 128 + the signal's number.
  process.exit(128 + (require("os").constants.signals[result.signal] || 0));
}
process.exit(result.status === null ? 2 : result.status);
