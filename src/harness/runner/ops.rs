//! The ops of the protocol as the runner knows them (spec
//! `protocol.ops`): each with the features that define it in each
//! generation, which `differential` plans from and `conformance`'s probes
//! (spec `runner.probes`) are gated by.

use super::adapter::Description;
use crate::config::Generation;

/// Every op the command can generate, with the features that define it in
/// each generation: `(op, rc.8 feature, newest feature)`; one feature for
/// both when the op is the same in every generation.
pub const OPS: &[(&str, &str, &str)] = &[
    ("uri/encode", "uri", "uri"),
    ("uri/decode", "uri", "uri"),
    ("mention/format", "mention", "mention"),
    ("mention/parse", "mention", "mention"),
    ("json/tag-safe", "json", "json"),
    // The newest generation's retain ignores developer/system events
    // (`surface-v2`); rc.8's throws on them.
    ("retain", "retain", "surface-v2"),
    ("prepare", "prepare-v1", "prepare-v2"),
    ("pre-step", "pre-step-v1", "pre-step-v2"),
    ("config/check", "config-v1", "config-v2"),
    ("candidates/list", "candidates-v1", "candidates-v2"),
    ("candidates/remote", "candidates-v1", "candidates-v2"),
    ("files/token", "files", "files"),
    ("files/format", "files", "files"),
    ("files/list", "files", "files"),
];

/// The generation of the reference to compare `b` with (spec
/// `runner.differential`): rc.8's when `b` declares a feature only rc.8
/// defines and none only the newest defines, else the newest.
pub fn reference_generation(b: &Description) -> Generation {
    let only_in = |one: Generation, other: Generation| {
        b.features.iter().any(|feature| {
            one.features().contains(&feature.as_str())
                && !other.features().contains(&feature.as_str())
        })
    };
    if only_in(Generation::Rc8, Generation::Newest) && !only_in(Generation::Newest, Generation::Rc8)
    {
        Generation::Rc8
    } else {
        Generation::Newest
    }
}

/// The op names `differential` can generate.
pub fn known_ops() -> impl Iterator<Item = &'static str> {
    OPS.iter().map(|(op, _, _)| *op)
}

/// Whether `description` declares a feature that defines `op` in either
/// generation.
pub fn declares_op(description: &Description, op: &str) -> bool {
    OPS.iter()
        .filter(|(known, _, _)| *known == op)
        .any(|(_, v1, v2)| {
            description
                .features
                .iter()
                .any(|feature| feature == v1 || feature == v2)
        })
}

/// Whether `op` answers prepared messages: outputs that hold, for each
/// source, what `retain` answers beside the op's own part (spec
/// `runner.causes`: two regions).
pub fn prepares_messages(op: &str) -> bool {
    matches!(op, "prepare" | "pre-step")
}
