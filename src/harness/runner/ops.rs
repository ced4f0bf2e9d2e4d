//! The ops of the protocol as the runner knows them (spec `protocol.ops`),
//! one row each: the family its causes are named by, the lower ops its
//! answer is composed of, and whether it prepares messages. Questions,
//! composition, causes and the report read these rows; a new op is one
//! new row.

use super::adapter::Description;
use crate::features::{self, Features};

/// What the runner knows of one op.
pub struct Op {
    /// Its name on the wire.
    pub name: &'static str,
    /// The family its causes are named by (`snapshot: …`, `uri: …`; spec
    /// `runner.causes`).
    pub family: &'static str,
    /// The lower ops whose answers its answer is composed of, however deep
    /// (`pre-step` parses mentions, decodes URIs, prepares, retains…).
    pub composed_of: &'static [&'static str],
    /// Whether it answers prepared messages: outputs that hold, for each
    /// source, what `retain` answers beside the op's own part (spec
    /// `runner.causes`: two regions).
    pub prepares_messages: bool,
}

const fn op(name: &'static str, family: &'static str, composed_of: &'static [&'static str]) -> Op {
    Op {
        name,
        family,
        composed_of,
        prepares_messages: false,
    }
}

const fn preparing(name: &'static str, composed_of: &'static [&'static str]) -> Op {
    Op {
        prepares_messages: true,
        ..op(name, "snapshot", composed_of)
    }
}

/// One row per op of `features::OPS`, and `describe`.
pub const OPS: &[Op] = &[
    op("describe", "describe", &[]),
    op("uri/encode", "uri", &[]),
    op("uri/decode", "uri", &["uri/encode"]),
    op("mention/format", "mention", &["uri/encode"]),
    op("mention/parse", "mention", &["uri/decode", "uri/encode"]),
    op("json/tag-safe", "json", &[]),
    op("retain", "snapshot", &["json/tag-safe", "retain"]),
    preparing("prepare", &["config/check", "retain", "json/tag-safe"]),
    preparing(
        "pre-step",
        &[
            "mention/parse",
            "uri/decode",
            "uri/encode",
            "prepare",
            "config/check",
            "retain",
            "json/tag-safe",
        ],
    ),
    op("config/check", "config", &[]),
    op("candidates/list", "candidates", &["config/check"]),
    op(
        "candidates/remote",
        "candidates",
        &[
            "config/check",
            "candidates/list",
            "mention/format",
            "uri/encode",
        ],
    ),
    op("files/token", "files", &[]),
    op("files/format", "files", &[]),
    op("files/list", "files", &[]),
];

/// The row of `op`, if it is one.
pub fn of(op: &str) -> Option<&'static Op> {
    OPS.iter().find(|row| row.name == op)
}

/// The op names `differential` can generate.
pub fn known_ops() -> impl Iterator<Item = &'static str> {
    features::OPS.iter().copied()
}

/// The behaviours of the reference to compare `b` with (spec
/// `runner.differential`): exactly those B declares.
pub fn reference_features(b: &Description) -> Features {
    b.declared().features
}

/// Whether `op` answers prepared messages ([`Op::prepares_messages`]).
pub fn prepares_messages(op: &str) -> bool {
    of(op).is_some_and(|row| row.prepares_messages)
}

/// The family of `op`'s causes ([`Op::family`]; `other` for an op the
/// protocol does not have).
pub fn family(op: &str) -> &'static str {
    of(op).map_or("other", |row| row.family)
}

/// The op graph ([`Op::composed_of`]): substitution composes an answer of
/// these lower ops (when none is substituted, the composition is the
/// reference's own answer), and the report counts the vectors that wait on
/// each op through it.
pub fn composed_of(op: &str) -> &'static [&'static str] {
    of(op).map_or(&[], |row| row.composed_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every op of the protocol has its row, and every lower op is one.
    #[test]
    fn every_op_has_one_row() {
        for name in features::OPS {
            assert!(of(name).is_some(), "{name}");
        }
        assert_eq!(OPS.len(), features::OPS.len() + 1);
        for row in OPS {
            for lower in row.composed_of {
                assert!(of(lower).is_some(), "{} is composed of {lower}", row.name);
            }
        }
    }
}
