#!/usr/bin/env node
// Writes the package.json files of the npm packages (packaging/build calls
// it; issue #56). The platform packages are the Rust targets of
// platforms.json, each named after what npm and Node call the platform:
// dsh-session-reference-conformance-<os>-<cpu>[-musl], the name the
// launcher (launcher/bin/dsh-session-reference.js) computes from
// process.platform, process.arch and the C library.
//
//   node manifest.js launcher VERSION           the launcher's package.json
//   node manifest.js platform VERSION TARGET    the package.json of TARGET's binary
//   node manifest.js name TARGET                the name of TARGET's package
//
// The names are unscoped and end in -conformance so that nobody takes them
// for upstream's @deepseek-ai/* packages.
"use strict";
const fs = require("fs");
const path = require("path");

const LAUNCHER = "dsh-session-reference-conformance";
const platforms = JSON.parse(fs.readFileSync(path.join(__dirname, "platforms.json"), "utf8"));

function fail(message) {
  process.stderr.write(`manifest.js: ${message}\n`);
  process.exit(2);
}

function platformName(target) {
  const p = platforms[target];
  if (!p) fail(`no npm package for the target ${target} (known: ${Object.keys(platforms).join(", ")})`);
  return `${LAUNCHER}-${p.os}-${p.cpu}${p.libc === "musl" ? "-musl" : ""}`;
}

const common = {
  license: "MIT",
  homepage: "https://crates.io/crates/dsh-session-reference",
  engines: { node: ">=18" },
};

function launcher(version) {
  const optionalDependencies = {};
  for (const target of Object.keys(platforms)) optionalDependencies[platformName(target)] = version;
  return {
    name: LAUNCHER,
    version,
    description:
      "Conformance suite and reference implementation of DeepSeek Harness session references: the dsh-session-reference command line (unofficial; not an @deepseek-ai package)",
    keywords: ["conformance", "session", "reference", "specification"],
    ...common,
    bin: { "dsh-session-reference": "bin/dsh-session-reference.js" },
    files: ["bin/dsh-session-reference.js"],
    optionalDependencies,
  };
}

function platform(version, target) {
  const p = platforms[target];
  const name = platformName(target);
  const binary = `bin/dsh-session-reference${p.os === "win32" ? ".exe" : ""}`;
  return {
    name,
    version,
    description: `The ${p.os} ${p.cpu}${p.libc ? ` (${p.libc})` : ""} binary of ${LAUNCHER} (Rust target ${target}); install ${LAUNCHER}, which runs it`,
    ...common,
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    files: [binary],
    // Yarn Plug'n'Play: a binary must be on disk to be run.
    preferUnplugged: true,
  };
}

const [command, ...args] = process.argv.slice(2);
let out;
if (command === "launcher" && args.length === 1) out = JSON.stringify(launcher(args[0]), null, 2) + "\n";
else if (command === "platform" && args.length === 2) out = JSON.stringify(platform(args[0], args[1]), null, 2) + "\n";
else if (command === "name" && args.length === 1) out = platformName(args[0]) + "\n";
else fail("usage: manifest.js launcher VERSION | platform VERSION TARGET | name TARGET");
process.stdout.write(out);
