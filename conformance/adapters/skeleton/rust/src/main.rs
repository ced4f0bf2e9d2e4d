//! The conformance adapter of your port of session references.
//!
//! Written by `dsh-session-reference init --lang rust`: the protocol kit of
//! the reference crate speaks the protocol (spec/adapter-protocol.md),
//! answers `describe`, and answers `UNSUPPORTED` for every op not
//! registered, so the suite skips its vectors and nothing fails. Register
//! an op as you write it, calling into your port (README.md lists each
//! op's input and output). Run the suite from this folder:
//!
//! ```sh
//! cargo build --release && dsh-session-reference conformance --impl target/release/my-port-adapter
//! ```
//!
//! The report's line `implement first: OP` names the op most vectors wait
//! on.

#![forbid(unsafe_code)]

use dsh_session_reference::protocol::kit::Adapter;
use std::io;

/// The op features of the release your port follows (spec
/// `protocol.features`): these nine alone, with no behaviour, are
/// 0.1.0-rc.8, the npm package `@deepseek-ai/dsh-session-reference`.
const FEATURES: [&str; 9] = [
    "uri",
    "mention",
    "json",
    "retain",
    "prepare",
    "pre-step",
    "config",
    "candidates",
    "files",
];

fn main() -> io::Result<()> {
    Adapter::new("my-port", env!("CARGO_PKG_VERSION"))
        .features(FEATURES)
        // What your port can hold (spec `protocol.capabilities`): a port on
        // Rust `String` cannot hold lone surrogates and leaves
        // `lone-surrogates` out; add `optional-seq` once it reads a
        // snapshot without `capturedThroughSeq`.
        .capabilities([])
        // Each op, once written: `.op("uri/encode", uri_encode)` with
        // `fn uri_encode(input: &Json) -> OpResult`, reading members with
        // `kit::string_field` and failing with `Failure::Contract` (one of
        // the seven codes) or `Failure::Internal`.
        .serve(io::stdin().lock(), io::stdout().lock())
}
