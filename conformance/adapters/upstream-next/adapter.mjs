// Conformance adapter for an EMULATION of the newest upstream generation
// (rc.8 wrapped with the documented deltas; see README.md and emulation.mjs).
// Protocol: one JSON request per line on stdin, one JSON response per line on
// stdout (spec/adapter-protocol.md).
import { v2Ops } from "./emulation.mjs";
import { serve } from "../common/serve.mjs";

await serve(v2Ops);
