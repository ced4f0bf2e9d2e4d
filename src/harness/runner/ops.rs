//! The ops of the protocol as the runner knows them (spec `protocol.ops`),
//! one row each: the family its causes are named by, the ops one step
//! below it (the op graph's edges), and whether it prepares messages. Questions,
//! composition, causes and the report read these rows; a new op is one
//! new row.

use super::adapter::Description;
use crate::features::{self, Features};
use std::sync::OnceLock;

/// What the runner knows of one op.
pub struct Op {
    /// Its name on the wire.
    pub name: &'static str,
    /// The family its causes are named by (`snapshot: …`, `uri: …`; spec
    /// `runner.causes`).
    pub family: &'static str,
    /// The op graph's edges: the ops one step below, whose answers its
    /// answer is composed of and whose questions its failures are asked
    /// through (spec `runner.probes`; `pre-step` parses mentions and
    /// prepares). [`composed_of`] follows them all the way down.
    pub below: &'static [&'static str],
    /// Ops its questions ask that its answer is not composed of: a
    /// parse's references are asked of `mention/format`, which tells a
    /// label's escapes, though a parse formats nothing.
    pub asks_only: &'static [&'static str],
    /// Whether it answers prepared messages: outputs that hold, for each
    /// source, what `retain` answers beside the op's own part (spec
    /// `runner.causes`: two regions).
    pub prepares_messages: bool,
}

const fn op(name: &'static str, family: &'static str, below: &'static [&'static str]) -> Op {
    Op {
        name,
        family,
        below,
        asks_only: &[],
        prepares_messages: false,
    }
}

const fn preparing(name: &'static str, below: &'static [&'static str]) -> Op {
    Op {
        prepares_messages: true,
        ..op(name, "snapshot", below)
    }
}

/// One row per op of `features::OPS`, and `describe`.
pub const OPS: &[Op] = &[
    op("describe", "describe", &[]),
    op("uri/encode", "uri", &[]),
    op("uri/decode", "uri", &["uri/encode"]),
    op("mention/format", "mention", &["uri/encode"]),
    Op {
        asks_only: &["mention/format"],
        ..op("mention/parse", "mention", &["uri/decode"])
    },
    op("json/tag-safe", "json", &[]),
    // A retention is composed of its projection: `retain` unbounded.
    op("retain", "snapshot", &["json/tag-safe", "retain"]),
    preparing("prepare", &["config/check", "retain", "json/tag-safe"]),
    preparing("pre-step", &["mention/parse", "prepare"]),
    op("config/check", "config", &[]),
    op("candidates/list", "candidates", &["config/check"]),
    op(
        "candidates/remote",
        "candidates",
        &["config/check", "candidates/list", "mention/format"],
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

/// The op graph followed down ([`Op::below`], each op once, depth first
/// in the rows' order): substitution composes an answer of these lower ops
/// (when none is substituted, the composition is the reference's own
/// answer), and the report counts the vectors that wait on each op
/// through it.
pub fn composed_of(op: &str) -> &'static [&'static str] {
    static CLOSURES: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    let closures = CLOSURES.get_or_init(|| {
        OPS.iter()
            .map(|row| {
                let mut reached = Vec::new();
                reach(row, &mut reached);
                reached
            })
            .collect()
    });
    OPS.iter()
        .position(|row| row.name == op)
        .map_or(&[], |at| closures[at].as_slice())
}

/// Adds the ops below `row` to `reached`, each once, depth first.
fn reach(row: &Op, reached: &mut Vec<&'static str>) {
    for &lower in row.below {
        if !reached.contains(&lower) {
            reached.push(lower);
            if let Some(lower_row) = of(lower) {
                reach(lower_row, reached);
            }
        }
    }
}

/// The ops the questions of a request of `op` may ask: those one step
/// below it, and those it only asks.
pub fn asked_by(op: &str) -> impl Iterator<Item = &'static str> {
    of(op)
        .into_iter()
        .flat_map(|row| row.below.iter().chain(row.asks_only).copied())
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
            for lower in row.below.iter().chain(row.asks_only) {
                assert!(of(lower).is_some(), "{} is composed of {lower}", row.name);
            }
        }
    }
}
