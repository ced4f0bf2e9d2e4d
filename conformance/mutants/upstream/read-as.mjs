// Makes every `readFileSync` of one file in this process return another
// text, for the pieces of upstream's bundle that an adapter reads as text
// rather than imports (conformance/adapters/upstream-npm/oracle.mjs). Used
// by switch.mjs and by the single-rule mutants of tests/fixtures/mutants/.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { fileURLToPath } from "node:url";

/** From now on, reading the file at `path` (a real path) gives `text`. */
export function readFileAs(path, text) {
  const original = fs.readFileSync;
  fs.readFileSync = function readAs(file, options) {
    if (typeof file === "string" || file instanceof URL) {
      const asPath = file instanceof URL ? fileURLToPath(file) : file;
      if (asPath === path) {
        const encoding = typeof options === "string" ? options : options?.encoding;
        const bytes = Buffer.from(text, "utf8");
        return encoding == null ? bytes : bytes.toString(encoding);
      }
    }
    return original.apply(this, arguments);
  };
  // `import { readFileSync } from "node:fs"` bindings see it too.
  syncBuiltinESMExports();
}
