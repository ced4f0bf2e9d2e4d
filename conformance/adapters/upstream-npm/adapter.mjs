// Conformance adapter for the upstream oracle,
// @deepseek-ai/dsh-session-reference@0.1.0-rc.8 (pinned in package.json).
// Protocol: one JSON request per line on stdin, one JSON response per line on
// stdout (spec/adapter-protocol.md). Every answer comes from the package's
// own code (see oracle.mjs; the file-reference ops: files.mjs, driving
// @deepseek-ai/dsh-file-reference(-local)@0.1.0-rc.8); nothing here
// re-implements their behaviour.
import { v1Ops } from "./oracle.mjs";
import { serve } from "../common/serve.mjs";

await serve(v1Ops);
