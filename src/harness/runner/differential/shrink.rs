//! The shrinking of a new class's first case (spec
//! `runner.differential.classes`): to the smallest request found whose
//! disagreement keeps the class, through the generator's own shrinking,
//! then by removing parts of the request ([`minimize`](super::minimize)).

use super::comparison::Mismatch;
use super::isolation::Isolated;
use super::minimize;
use super::options::Options;
use super::plan::{PlannedOp, Scope};
use super::sides::{CaseVerdict, Sides};
use crate::harness::runner::causes::Cause;
use crate::js::json::Json;
use proptest::strategy::ValueTree;

/// At most this many shrinking probes for a class whose example hangs,
/// each waiting the timeout only (spec `runner.slow`).
pub const HANG_SHRINK_PROBES: usize = 8;

/// At most this many shrinking probes per new class through the
/// generator's own shrinking (each probe asks both implementations once).
const SHRINK_PROBES: usize = 400;

/// At most this many probes per new class removing parts of the request
/// ([`minimize`](minimize::minimize)).
const REMOVAL_PROBES: usize = 1_500;

/// A new class's example being shrunk: the smallest request found (`op`'s
/// `input`), the disagreement on it, and the steps that kept the class, its
/// cause `target`; every probe is compared within the case's `scope`.
pub(super) struct Shrinking<'s, 'r> {
    sides: &'s mut Sides<'r>,
    options: &'s Options<'s>,
    scope: Scope,
    target: Cause,
    op: String,
    input: Json,
    example: Mismatch,
    steps: usize,
}

impl<'s, 'r> Shrinking<'s, 'r> {
    /// The smallest request found for the class that `isolated`, a case
    /// of `planned` drawn by `tree`, opens, the disagreement on it, and the
    /// steps it took. A class named by an edit keeps the input that edit
    /// alone makes: a shrunk one would lose the edit.
    pub(super) fn smallest(
        sides: &'s mut Sides<'r>,
        options: &'s Options<'s>,
        planned: &PlannedOp,
        tree: &mut dyn ValueTree<Value = Json>,
        isolated: Isolated,
    ) -> (Json, Mismatch, usize) {
        let mut shrinking = Shrinking {
            sides,
            options,
            scope: planned.scope,
            target: isolated.mismatch.signature.cause.clone(),
            op: planned.op.to_owned(),
            input: isolated.input,
            example: isolated.mismatch,
            steps: 0,
        };
        shrinking.move_to_lowest_probe();
        // spec runner.slow: a hang's shrinking is bounded in probes, each
        // waiting the timeout only.
        let (shrink_probes, removal_probes) = if shrinking.example.hung() {
            (HANG_SHRINK_PROBES / 2, HANG_SHRINK_PROBES / 2)
        } else {
            (SHRINK_PROBES, REMOVAL_PROBES)
        };
        let shrink = options.shrink && !isolated.renamed;
        if shrinking.op == planned.op && shrink {
            shrinking.through_the_generator(tree, shrink_probes);
        }
        shrinking.by_removal(if shrink { removal_probes } else { 0 });
        (shrinking.input, shrinking.example, shrinking.steps)
    }

    /// The disagreement on `candidate` when it keeps the class: a step
    /// keeps it when its disagreement, traced, has the same cause, and the
    /// same kind (which sides answered errors) as the example it shrinks,
    /// when `kind` says: shrinking never walks to another bug (spec
    /// runner.differential.classes).
    fn same(&mut self, op: &str, candidate: &Json, kind: Option<&str>) -> Option<Mismatch> {
        match self.sides.ask(op, self.scope, candidate) {
            CaseVerdict::Disagree(found) => {
                let found = self.sides.trace(op, candidate, *found);
                let same_kind = kind.is_none_or(|kind| kind == found.signature.kind);
                (found.signature.cause == self.target && same_kind).then_some(found)
            }
            _ => None,
        }
    }

    /// A traced class is shown, and shrunk, at its lowest probe: the
    /// smallest request of all, when it keeps the class.
    fn move_to_lowest_probe(&mut self) {
        let Some(chain) = &self.example.chain else {
            return;
        };
        let lowest = chain.lowest();
        let (op, probe) = (lowest.op.clone(), lowest.input.clone());
        if let Some(found) = self.same(&op, &probe, None) {
            (self.op, self.input, self.example) = (op, probe, found);
        }
    }

    /// Shrinks through `tree`, the generator's own shrinking, in at most
    /// `probes` probes.
    fn through_the_generator(&mut self, tree: &mut dyn ValueTree<Value = Json>, probes: usize) {
        if !tree.simplify() {
            return;
        }
        let kind = self.example.signature.kind;
        let op = self.op.clone();
        for _ in 0..probes {
            if self.options.is_interrupted() {
                break;
            }
            let candidate = self.sides.request(tree);
            let moved = match self.same(&op, &candidate, Some(kind)) {
                Some(found) => {
                    (self.input, self.example) = (candidate, found);
                    self.steps += 1;
                    tree.simplify()
                }
                None => tree.complicate(),
            };
            if !moved {
                break;
            }
        }
    }

    /// Shrinks by removing parts of the request, in at most `budget`
    /// probes.
    fn by_removal(&mut self, budget: usize) {
        let kind = self.example.signature.kind;
        let op = self.op.clone();
        let mut last = None;
        let removed = minimize::minimize(self.input.clone(), budget, |candidate| {
            if self.options.is_interrupted() {
                return false;
            }
            match self.same(&op, candidate, Some(kind)) {
                Some(found) => {
                    last = Some(found);
                    true
                }
                None => false,
            }
        });
        if removed.steps > 0 {
            self.steps += removed.steps;
            if let Some(found) = last {
                (self.input, self.example) = (removed.input, found);
            }
        }
    }
}
