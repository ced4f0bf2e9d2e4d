//! Guided generation (spec `runner.differential.guided`, ours): after the
//! drawn and ordered cases, cases aimed at the rules the run reached least.
//!
//! A case that reaches a rule no earlier case reached is kept. The rules a
//! run can reach are those the vectors both sides run reach on the
//! reference, under the behaviours both have. While one of them has fewer
//! than [`ENOUGH`] cases, the next case aims at the one with fewest: it
//! grows from a kept case or a vector input that reaches it, mutated as
//! the corpus mutates ([`corpus::strategy`]), and is sent as drawn when it
//! still reaches the rule on the reference, else its base is sent
//! unchanged. A rule whose bases are never compared (a side refuses them)
//! is given up after [`ATTEMPTS`] cases.

use super::corpus;
use super::draws::case_rng;
use super::plan::{Plan, PlannedOp};
use super::requests::typed_within;
use crate::features::Features;
use crate::js::json::Json;
use crate::protocol::dispatch;
use crate::reach;
use proptest::strategy::{Just, Strategy, ValueTree};
use proptest::test_runner::{Config, TestRunner};
use std::collections::{BTreeMap, BTreeSet};

/// The cases a reachable rule should have before guidance leaves it.
pub const ENOUGH: u64 = 5;

/// The guided cases aimed at one rule before it is given up.
pub const ATTEMPTS: u32 = 12;

/// The inputs that reached a rule: the op's index in the plan, and the
/// input.
type Bases = Vec<(usize, Json)>;

/// What guidance knows: per rule, the inputs that reach it.
pub(super) struct Guide<'r> {
    plan: &'r Plan,
    bases: BTreeMap<&'static str, Bases>,
    attempts: BTreeMap<&'static str, u32>,
    seed: u64,
}

/// One guided case: its op, and a value tree to send and shrink.
pub(super) struct Aimed<'r> {
    pub(super) planned: &'r PlannedOp,
    pub(super) tree: Box<dyn ValueTree<Value = Json>>,
}

impl<'r> Guide<'r> {
    /// Guidance for `plan`, its bases the vector inputs `seeds` of each op
    /// whose behaviours are the same on both sides.
    pub(super) fn new(
        plan: &'r Plan,
        seeds: &BTreeMap<&'static str, Vec<Json>>,
        seed: u64,
    ) -> Self {
        let mut guide = Guide {
            plan,
            bases: BTreeMap::new(),
            attempts: BTreeMap::new(),
            seed,
        };
        for (at, planned) in plan.ops.iter().enumerate() {
            let inputs = seeds.get(planned.op).into_iter().flatten();
            for input in inputs.filter(|_| !planned.scope.is_mixed()) {
                for rule in reached(planned.scope.both, planned.op, input) {
                    guide
                        .bases
                        .entry(rule)
                        .or_default()
                        .push((at, input.clone()));
                }
            }
        }
        guide
    }

    /// The rules the run can reach: those some base reaches.
    pub(super) fn reachable(&self) -> BTreeSet<&'static str> {
        self.bases.keys().copied().collect()
    }

    /// Keeps a case of `planned` with `input` that reached `rules` for
    /// each rule among them that nothing reached before (`counts` before
    /// this case).
    pub(super) fn keep(
        &mut self,
        planned: &PlannedOp,
        input: &Json,
        rules: &[&'static str],
        counts: &BTreeMap<&'static str, u64>,
    ) {
        let Some(at) = self.plan.ops.iter().position(|op| op.op == planned.op) else {
            return;
        };
        for &rule in rules.iter().filter(|rule| !counts.contains_key(*rule)) {
            self.bases
                .entry(rule)
                .or_default()
                .insert(0, (at, input.clone()));
        }
    }

    /// Case number `case`, aimed at the reachable rule with fewest cases
    /// (`counts`) below [`ENOUGH`], or `None` when every one has enough
    /// or has been given up.
    pub(super) fn aim(
        &mut self,
        case: u64,
        counts: &BTreeMap<&'static str, u64>,
    ) -> Option<Aimed<'r>> {
        let rule = self.target(counts)?;
        *self.attempts.entry(rule).or_default() += 1;
        let bases = &self.bases[rule];
        let mut runner = TestRunner::new_with_rng(Config::default(), case_rng(self.seed, case));
        let (at, base) = &bases[case as usize % bases.len()];
        let planned = &self.plan.ops[*at];
        let grown = corpus::strategy(planned.op, vec![base.clone()]);
        let strategy = typed_within(planned.op, self.plan.reach, grown);
        let tree = strategy.new_tree(&mut runner).ok();
        let tree = match tree {
            Some(tree)
                if reached(planned.scope.both, planned.op, &tree.current()).contains(&rule) =>
            {
                tree
            }
            _ => Just(base.clone()).boxed().new_tree(&mut runner).ok()?,
        };
        Some(Aimed { planned, tree })
    }

    /// The rule to aim at: fewest cases first, then by id.
    fn target(&self, counts: &BTreeMap<&'static str, u64>) -> Option<&'static str> {
        self.bases
            .keys()
            .copied()
            .map(|rule| (counts.get(rule).copied().unwrap_or(0), rule))
            .filter(|&(count, rule)| {
                count < ENOUGH && self.attempts.get(rule).copied().unwrap_or(0) < ATTEMPTS
            })
            .min()
            .map(|(_, rule)| rule)
    }
}

/// The rules `op` with `input` reaches on the reference with `features`.
pub(super) fn reached(features: Features, op: &str, input: &Json) -> Vec<&'static str> {
    reach::recording(|| dispatch::handle_in(features, op, input)).1
}
