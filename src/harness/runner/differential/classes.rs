//! The classes a run sorts its disagreements into (spec
//! `runner.differential.classes`): each with its cases, its other reading,
//! and the shrunk example that shows it.

use super::comparison::Mismatch;
use super::signature::Signature;
use crate::harness::runner::causes::Cause;
use crate::js::json::Json;

/// One class of disagreements, with its shrunk example.
#[derive(Clone, Debug)]
pub struct Class {
    /// What identifies it (its cause), and where its first case showed.
    pub signature: Signature,
    /// The ops its cases came from, in the order first seen.
    pub ops: Vec<&'static str>,
    /// The other reading all its cases share, if they do.
    pub alternative: Option<Cause>,
    /// Cases that fell in it.
    pub count: u64,
    /// The first case numbers (at most [`CASES_KEPT`]).
    pub cases: Vec<u64>,
    /// The smallest request input found with the same signature.
    pub input: Json,
    /// The answers to it.
    pub example: Mismatch,
    /// Shrinking steps that kept the signature.
    pub shrink_steps: usize,
}

impl Class {
    /// The class case number `case` of `op` opens, shown by `example` (the
    /// answers to `input`, found in `shrink_steps` steps).
    pub(super) fn first(
        op: &'static str,
        case: u64,
        input: Json,
        example: Mismatch,
        shrink_steps: usize,
    ) -> Class {
        Class {
            alternative: example.signature.alternative.clone(),
            signature: example.signature.clone(),
            ops: vec![op],
            count: 1,
            cases: vec![case],
            input,
            example,
            shrink_steps,
        }
    }

    /// Counts case number `case` of `op` in the class; `alternative` is
    /// the case's other reading when the class is its first cause's (a
    /// class keeps an other reading only all its cases share), `None` when
    /// the class is a further cause of the case.
    pub(super) fn add(&mut self, op: &'static str, case: u64, alternative: Option<&Option<Cause>>) {
        self.count += 1;
        if !self.ops.contains(&op) {
            self.ops.push(op);
        }
        if alternative.is_some_and(|alternative| *alternative != self.alternative) {
            self.alternative = None;
        }
        if self.cases.len() < CASES_KEPT && !self.cases.contains(&case) {
            self.cases.push(case);
        }
    }
}

/// How many case numbers a class keeps.
pub const CASES_KEPT: usize = 10;

/// Moves each class whose cases all have another reading into the class of
/// that reading, when that class is larger (spec `runner.causes`: a
/// disagreement with two readings counts under the one more share).
pub(super) fn merge_other_readings(classes: &mut Vec<Class>) {
    let mut at = 0;
    while at < classes.len() {
        let target = classes[at].alternative.as_ref().and_then(|other| {
            classes.iter().position(|class| {
                class.signature.cause == *other && class.count > classes[at].count
            })
        });
        let Some(target) = target else {
            at += 1;
            continue;
        };
        let merged = classes.remove(at);
        let target = if target > at { target - 1 } else { target };
        let class = &mut classes[target];
        class.count += merged.count;
        class.cases.extend(merged.cases);
        class.cases.sort_unstable();
        class.cases.truncate(CASES_KEPT);
        for op in merged.ops {
            if !class.ops.contains(&op) {
                class.ops.push(op);
            }
        }
    }
}
