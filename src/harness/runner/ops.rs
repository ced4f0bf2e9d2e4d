//! The ops of the protocol as the runner knows them (spec
//! `protocol.ops`): each with the op feature that declares it, which
//! `differential` plans from and `conformance`'s probes (spec
//! `runner.probes`) are gated by.

use super::adapter::Description;
use crate::features::{self, Features};

/// The op names `differential` can generate.
pub fn known_ops() -> impl Iterator<Item = &'static str> {
    features::OPS.iter().copied()
}

/// The behaviours of the reference to compare `b` with (spec
/// `runner.differential`): exactly those B declares.
pub fn reference_features(b: &Description) -> Features {
    b.declared().features
}

/// Whether `op` answers prepared messages: outputs that hold, for each
/// source, what `retain` answers beside the op's own part (spec
/// `runner.causes`: two regions).
pub fn prepares_messages(op: &str) -> bool {
    matches!(op, "prepare" | "pre-step")
}

/// The op graph: the lower ops whose answers `op`'s answer is composed
/// of, however deep (`pre-step` parses mentions, decodes URIs, prepares,
/// retains…). Substitution composes an answer of them (when none is
/// substituted, the composition is the reference's own answer), and the
/// report counts the vectors that wait on each op through it.
pub fn composed_of(op: &str) -> &'static [&'static str] {
    match op {
        "uri/decode" | "mention/format" => &["uri/encode"],
        "mention/parse" => &["uri/decode", "uri/encode"],
        "retain" => &["json/tag-safe", "retain"],
        "prepare" => &["config/check", "retain", "json/tag-safe"],
        "pre-step" => &[
            "mention/parse",
            "uri/decode",
            "uri/encode",
            "prepare",
            "config/check",
            "retain",
            "json/tag-safe",
        ],
        "candidates/list" => &["config/check"],
        "candidates/remote" => &[
            "config/check",
            "candidates/list",
            "mention/format",
            "uri/encode",
        ],
        _ => &[],
    }
}
