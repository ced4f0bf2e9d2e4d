//! The messages of the one-session workloads (`benches/retention.rs`,
//! `examples/prepare_memory.rs`); `benches/oracle/prepare.mjs` builds the
//! same ones.

use crate::common::Rng;

/// Must stay identical to MESSAGE_WORDS in `benches/oracle/common.mjs`.
const WORDS: &[&str] = &[
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "it",
    "for",
    "session",
    "model",
    "context",
    "reference",
    "snapshot",
    "message",
    "budget",
    "retention",
    "reply",
    "tool",
    "result",
    "before",
    "after",
    "while",
    "should",
    "would",
    "window",
    "river",
    "garden",
    "letter",
    "number",
    "summary",
];

/// One message: words separated by spaces, cut to exactly 160–200 bytes
/// (all ASCII).
pub fn message(rng: &mut Rng) -> String {
    let len = 160 + rng.below(41);
    let mut out = String::with_capacity(len + 16);
    while out.len() < len {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(rng.pick(WORDS));
    }
    out.truncate(len);
    out
}
