//! The classes a run sorts its disagreements into (spec
//! `runner.differential.classes`): each with its cases, its other reading,
//! and the shrunk example that shows it.

use super::comparison::Mismatch;
use super::signature::Signature;
use crate::harness::runner::causes::Cause;
use crate::harness::runner::readings::counted_under;
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

    /// The example's request, `{op, input}`: the op of the case that
    /// opened the class, whose input it is (its signature's op is where
    /// the cause shows, a lower op's when probing traced it).
    pub fn example_request(&self) -> Json {
        let op = self.ops.first().copied().unwrap_or(&self.signature.op);
        Json::object([("op", Json::str(op)), ("input", self.input.clone())])
    }

    /// Takes in the cases of `merged`, a class of another reading.
    fn absorb(&mut self, merged: Class) {
        self.count += merged.count;
        self.cases.extend(merged.cases);
        self.cases.sort_unstable();
        self.cases.truncate(CASES_KEPT);
        for op in merged.ops {
            if !self.ops.contains(&op) {
                self.ops.push(op);
            }
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
/// that reading, when more cases have that reading as their cause (spec
/// `runner.causes`: a disagreement with two readings counts under the one
/// more share; the rule is `readings::counted_under`, as for a report's
/// causes). A class moves into one that stays; classes move in their order.
pub(super) fn merge_other_readings(classes: &mut Vec<Class>) {
    let readings = counted_under(classes, |class| {
        (
            &class.signature.cause,
            class.alternative.as_ref(),
            class.count,
        )
    });
    let targets: Vec<Option<usize>> = classes
        .iter()
        .zip(readings)
        .map(|(class, reading)| {
            (*reading != class.signature.cause)
                .then(|| {
                    classes
                        .iter()
                        .position(|other| other.signature.cause == *reading)
                })
                .flatten()
        })
        .collect();
    let mut kept: Vec<Option<Class>> = classes.drain(..).map(Some).collect();
    for (at, target) in targets.iter().enumerate() {
        let Some(target) = target.filter(|&target| targets[target].is_none()) else {
            continue;
        };
        let merged = kept[at].take();
        if let (Some(merged), Some(class)) = (merged, kept[target].as_mut()) {
            class.absorb(merged);
        }
    }
    classes.extend(kept.into_iter().flatten());
}
