//! What each case of a run draws (spec `runner.differential.reach`,
//! `runner.differential.corpus`): per planned op, its strategy, grown in
//! part from the vectors and type-confused in part, then the small scope of
//! the order of checks; each case from its own seeded random stream.

use super::options::Options;
use super::plan::{Plan, PlannedOp};
use super::{confusion, corpus, order, requests};
use crate::harness::runner::vectors::required_capabilities;
use crate::js::json::Json;
use proptest::prop_oneof;
use proptest::strategy::{BoxedStrategy, Just, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A planned op's strategies: of its plain cases, and of its type-confused
/// cases, when it has them.
struct Drawn<'r> {
    planned: &'r PlannedOp,
    plain: BoxedStrategy<Json>,
    confused: Option<BoxedStrategy<Json>>,
}

/// The cases of a run, in order: the drawn cases, the planned ops in turn,
/// then the ordered ones.
pub(super) struct Draws<'r> {
    drawn: Vec<Drawn<'r>>,
    /// The ordered cases: the index of their op in `drawn`, and the input.
    ordered: Vec<(usize, Json)>,
    cases: u64,
    seed: u64,
}

impl<'r> Draws<'r> {
    /// The cases of `plan` run as `options` say, or `None` when no planned
    /// op is drawn.
    pub(super) fn new(plan: &'r Plan, options: &Options) -> Option<Draws<'r>> {
        let drawn: Vec<Drawn<'r>> = plan
            .ops
            .iter()
            .filter_map(|planned| Drawn::new(planned, plan, options))
            .collect();
        if drawn.is_empty() {
            return None;
        }
        Some(Draws {
            ordered: ordered(&drawn, plan, options),
            drawn,
            cases: options.cases,
            seed: options.seed,
        })
    }

    /// How many cases there are, ordered ones included.
    pub(super) fn total(&self) -> u64 {
        self.cases + self.ordered.len() as u64
    }

    /// The op case number `case` is of.
    pub(super) fn planned(&self, case: u64) -> &'r PlannedOp {
        match case.checked_sub(self.cases) {
            Some(at) => self.drawn[self.ordered[at as usize].0].planned,
            None => self.drawn[(case % self.drawn.len() as u64) as usize].planned,
        }
    }

    /// The value tree of case number `case`, drawn from its own random
    /// stream, or `None` when nothing could be drawn.
    pub(super) fn tree(&self, case: u64) -> Option<Box<dyn ValueTree<Value = Json>>> {
        let mut runner = TestRunner::new_with_rng(Config::default(), case_rng(self.seed, case));
        let ops = self.drawn.len() as u64;
        let tree = match case.checked_sub(self.cases) {
            Some(at) => Just(self.ordered[at as usize].1.clone())
                .boxed()
                .new_tree(&mut runner),
            None => {
                let drawn = &self.drawn[(case % ops) as usize];
                let strategy = match &drawn.confused {
                    Some(confused) if confusion::is_confused(case / ops) => confused,
                    _ => &drawn.plain,
                };
                strategy.new_tree(&mut runner)
            }
        };
        tree.ok()
    }
}

impl<'r> Drawn<'r> {
    /// The strategies of `planned`, or `None` for an op that is not drawn.
    fn new(planned: &'r PlannedOp, plan: &Plan, options: &Options) -> Option<Drawn<'r>> {
        let drawn = requests::input_strategy_within(planned.op, planned.scope, plan.reach)?;
        let plain = match options.seeds.get(planned.op) {
            // spec runner.differential.corpus: one case in four grows from
            // a vector's input, inside what both declare.
            Some(seeds) => {
                let grown = requests::typed_within(
                    planned.op,
                    plan.reach,
                    corpus::strategy(planned.op, seeds.clone()),
                );
                prop_oneof![3 => drawn, 1 => grown].boxed()
            }
            None => drawn,
        };
        // spec runner.differential.reach: every eighth case of an op is
        // type-confused, drawn from the same base so that the other cases
        // are what they would be without it.
        let confused =
            (options.type_confusion && plan.reach.dynamic_inputs && !planned.scope.is_mixed())
                .then(|| confusion::strategy(plain.clone()));
        Some(Drawn {
            planned,
            plain,
            confused,
        })
    }
}

/// spec runner.differential.reach: the small scope of the order of
/// checks (unless `options` leave it out), every case once, numbered after
/// the drawn cases. Only where the op's behaviours are the same on both
/// sides, and only the cases both can take (a stage needs `staged-cancel`).
fn ordered(drawn: &[Drawn<'_>], plan: &Plan, options: &Options) -> Vec<(usize, Json)> {
    let Some(at) = drawn
        .iter()
        .position(|drawn| drawn.planned.op == "pre-step" && !drawn.planned.scope.is_mixed())
        .filter(|_| options.order_scope)
    else {
        return Vec::new();
    };
    order::cases()
        .into_iter()
        .filter(|(_, input)| {
            required_capabilities("pre-step", input, &Json::Null)
                .iter()
                .all(|capability| plan.capabilities.contains(capability))
        })
        .map(|(_, input)| (at, input))
        .collect()
}

/// The RNG of case `case` of a run seeded with `seed`: each case has its
/// own stream, so a case reproduces alone and `--cases` only adds cases.
pub(super) fn case_rng(seed: u64, case: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    let mut state = seed ^ case.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for chunk in bytes.chunks_mut(8) {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}
