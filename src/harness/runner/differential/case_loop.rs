//! The case loop of a run (spec `runner.differential`): each case drawn,
//! sent to both sides, counted, and a disagreement traced, isolated and
//! sorted into its classes, until the cases run out or the run stops.

use super::classes::{merge_other_readings, Class};
use super::comparison::Mismatch;
use super::draws::Draws;
use super::guide::{self, Guide};
use super::isolation::{self, Isolated};
use super::options::{Options, Progress};
use super::plan::{Plan, PlannedOp};
use super::shrink::Shrinking;
use super::sides::{CaseVerdict, Sides};
use super::summary::{Stopped, Summary};
use super::valued;
use crate::harness::runner::adapter::Implementation;
use crate::harness::runner::causes::{self, Cause};
use crate::js::json::Json;
use crate::protocol::wire::Outcome;
use proptest::strategy::{Just, Strategy, ValueTree};
use std::collections::HashMap;
use std::time::Instant;

/// Runs the planned ops on `a` and `b` as `options` says, sorting every
/// disagreement into its class (spec `runner.differential.classes`): the
/// first case of a class is shrunk to the smallest input found **with the
/// same signature** (a step that changes the class is rejected); later
/// cases of the class are only counted. `on_progress` is called after each
/// case.
pub fn run(
    plan: &Plan,
    a: &mut dyn Implementation,
    b: &mut dyn Implementation,
    options: &Options,
    on_progress: impl FnMut(&Progress),
) -> Summary {
    let started = Instant::now();
    let Some(draws) = Draws::new(plan, options) else {
        return Summary::default();
    };
    CaseLoop {
        plan,
        options,
        draws,
        guide: Guide::new(plan, &options.seeds, options.seed),
        valued: if options.guided {
            valued::cases(plan, &options.seeds, options.seed)
        } else {
            Vec::new()
        },
        sides: Sides::new(plan, a, b),
        summary: Summary::default(),
        index: HashMap::new(),
        started,
    }
    .run(on_progress)
}

/// A run under way.
struct CaseLoop<'r> {
    plan: &'r Plan,
    options: &'r Options<'r>,
    draws: Draws<'r>,
    guide: Guide<'r>,
    /// The value-class cases, sent after the drawn ones: each op's index
    /// in the plan and the input.
    valued: Vec<(usize, Json)>,
    sides: Sides<'r>,
    summary: Summary,
    /// Each class's place in the summary, by its cause.
    index: HashMap<Cause, usize>,
    started: Instant,
}

impl<'r> CaseLoop<'r> {
    /// Every case in turn, drawn, ordered, valued, then guided (at most a
    /// quarter as many as drawn), until they run out or the run stops.
    fn run(mut self, mut on_progress: impl FnMut(&Progress)) -> Summary {
        let drawn = self.draws.total();
        let valued = drawn + self.valued.len() as u64;
        let guided = valued..valued + u64::from(self.options.guided) * self.options.cases / 4;
        for case in (0..valued).chain(guided) {
            if let Some(stopped) = self.stops_before() {
                self.summary.stopped = Some(stopped);
                break;
            }
            let next = if case < drawn {
                self.drawn(case)
            } else if case < valued {
                self.valued(case - drawn)
            } else {
                let Some(aimed) = self.guide.aim(case, &self.summary.coverage.reached) else {
                    break;
                };
                self.summary.coverage.guided += 1;
                Some((aimed.planned, aimed.tree))
            };
            let Some((planned, mut tree)) = next else {
                continue;
            };
            self.case(case, planned, &mut *tree);
            on_progress(&self.progress(case));
            if let Some(stopped) = self.stops_after() {
                self.summary.stopped = Some(stopped);
                break;
            }
        }
        self.summary.coverage.reachable = self.guide.reachable();
        merge_other_readings(&mut self.summary.classes);
        self.summary
    }

    /// Where the run is after case number `case`.
    fn progress(&self, case: u64) -> Progress {
        Progress {
            done: case + 1,
            total: self.draws.total(),
            classes: self.summary.classes.len(),
            elapsed: self.started.elapsed(),
        }
    }

    /// Why the run stops before the next case, if it does.
    fn stops_before(&self) -> Option<Stopped> {
        if self.options.is_interrupted() {
            return Some(Stopped::Interrupted);
        }
        self.options
            .time_limit
            .is_some_and(|limit| self.started.elapsed() >= limit)
            .then_some(Stopped::TimeLimit)
    }

    /// Why the run stops after the case just done, if it does.
    fn stops_after(&mut self) -> Option<Stopped> {
        if let Some(problem) = self.sides.dead.take() {
            return Some(Stopped::Dead(problem));
        }
        (self.options.first_class_only && !self.summary.classes.is_empty())
            .then_some(Stopped::FirstClass)
    }

    /// Drawn case number `case`: its op and value tree, or `None` when it
    /// is not sent (nothing could be drawn).
    #[allow(clippy::type_complexity)]
    fn drawn(&mut self, case: u64) -> Option<(&'r PlannedOp, Box<dyn ValueTree<Value = Json>>)> {
        let planned = self.draws.planned(case);
        Some((planned, self.draws.tree(case)?))
    }

    /// Value-class case number `nth`: its op and a value tree holding its
    /// input alone, or `None` when there is no such case.
    #[allow(clippy::type_complexity)]
    fn valued(&mut self, nth: u64) -> Option<(&'r PlannedOp, Box<dyn ValueTree<Value = Json>>)> {
        let (at, input) = self.valued.get(nth as usize)?;
        let planned = &self.plan.ops[*at];
        self.summary.coverage.valued += 1;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let tree = Just(input.clone()).boxed().new_tree(&mut runner).ok()?;
        Some((planned, tree))
    }

    /// Sends case number `case` of `planned`, drawn by `tree`, and counts
    /// what it shows.
    fn case(&mut self, case: u64, planned: &'r PlannedOp, tree: &mut dyn ValueTree<Value = Json>) {
        self.sides.start_case();
        let input = self.sides.request(tree);
        *self.summary.drawn.entry(planned.op).or_default() += 1;
        let verdict = self.sides.ask(planned.op, planned.scope, &input);
        let late = std::mem::take(&mut self.sides.late);
        self.summary.count_slow(planned.op, late);
        if matches!(&verdict, CaseVerdict::Disagree(mismatch) if mismatch.hung()) {
            *self.summary.hung.entry(planned.op).or_default() += 1;
            // What follows only asks whether it still hangs: the timeout
            // is enough (spec runner.slow).
            self.sides.set_patient(false);
        }
        if matches!(verdict, CaseVerdict::Agree | CaseVerdict::Disagree(_)) {
            self.cover(planned, &input);
        }
        if let Some(mismatch) = self.tally(planned.op, verdict) {
            let mismatch = self.sides.trace(planned.op, &input, *mismatch);
            let dynamic_inputs = self.plan.reach.dynamic_inputs;
            let isolated =
                isolation::isolate(&mut self.sides, planned, input, mismatch, dynamic_inputs);
            self.sort(case, planned, tree, isolated);
        }
    }

    /// Counts the rules a compared case of `planned` with `input` reached
    /// on the reference, keeping it where it reached one first.
    fn cover(&mut self, planned: &PlannedOp, input: &Json) {
        let rules = guide::reached(planned.scope.both, planned.op, input);
        let coverage = &mut self.summary.coverage;
        self.guide.keep(planned, input, &rules, &coverage.reached);
        coverage.count(&rules);
    }

    /// Counts how a case of `op` came out; the disagreement, when it is
    /// one.
    fn tally(&mut self, op: &'static str, verdict: CaseVerdict) -> Option<Box<Mismatch>> {
        let summary = &mut self.summary;
        match verdict {
            CaseVerdict::Beyond(why) => summary.keep_out(op, why),
            CaseVerdict::NotImplemented { by_b } => {
                summary.not_implemented.entry(op).or_default()[usize::from(by_b)] += 1;
            }
            CaseVerdict::Agree => {
                summary.cases += 1;
                summary.agreed += 1;
                let counts = summary.per_op.entry(op).or_default();
                counts.0 += 1;
                counts.1 += 1;
            }
            CaseVerdict::Disagree(mismatch) => {
                summary.cases += 1;
                summary.per_op.entry(op).or_default().1 += 1;
                return Some(mismatch);
            }
        }
        None
    }

    /// Sorts the disagreement of case number `case` of `planned`, drawn by
    /// `tree`, into the class of each of its causes, opening (and
    /// shrinking) those not found yet, unless a side died in the case.
    fn sort(
        &mut self,
        case: u64,
        planned: &PlannedOp,
        tree: &mut dyn ValueTree<Value = Json>,
        mut isolated: Isolated,
    ) {
        let op = planned.op;
        // spec runner.differential.classes: every further cause of the
        // case counts in its own class, shown by this case unshrunk
        // (shrinking keeps the first cause, which may leave it).
        for cause in std::mem::take(&mut isolated.mismatch.also) {
            if !self.counted(&cause, op, case, None) && self.sides.dead.is_none() {
                let mut example = isolated.mismatch.clone();
                example.signature.alternative = match (&example.a, &example.b) {
                    (Ok(Outcome::Output(a)), Ok(Outcome::Output(b))) => {
                        causes::alternative_of(op, a, b, &cause)
                    }
                    _ => None,
                };
                example.signature.cause = cause;
                self.open(Class::first(op, case, isolated.input.clone(), example, 0));
            }
        }
        let signature = &isolated.mismatch.signature;
        if self.counted(&signature.cause, op, case, Some(&signature.alternative))
            || self.sides.dead.is_some()
        {
            return;
        }
        let (input, example, steps) =
            Shrinking::smallest(&mut self.sides, self.options, planned, tree, isolated);
        self.open(Class::first(op, case, input, example, steps));
    }

    /// Counts case number `case` of `op` in the class of `cause`, when
    /// there is one, as [`Class::add`] takes `alternative`.
    fn counted(
        &mut self,
        cause: &Cause,
        op: &'static str,
        case: u64,
        alternative: Option<&Option<Cause>>,
    ) -> bool {
        let Some(&known) = self.index.get(cause) else {
            return false;
        };
        self.summary.classes[known].add(op, case, alternative);
        true
    }

    /// Adds `class`, new.
    fn open(&mut self, class: Class) {
        self.index
            .insert(class.signature.cause.clone(), self.summary.classes.len());
        self.summary.classes.push(class);
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::plan;
    use super::*;
    use crate::features::Features;
    use crate::harness::runner::adapter::BuiltIn;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    /// runner.differential.operation: a time limit that has passed, or an
    /// interrupt, stops the run before the next case, and the summary says
    /// why.
    #[test]
    fn a_time_limit_or_an_interrupt_stops_the_run_with_its_reason() {
        let mut a = BuiltIn(Features::NEWEST);
        let mut b = BuiltIn(Features::NEWEST);
        let (da, db) = (
            a.describe().expect("describe"),
            b.describe().expect("describe"),
        );
        let plan = plan(&da, &db, Some(&["uri/encode".to_owned()]));
        let mut options = Options::new(1_000, 7);
        options.time_limit = Some(Duration::ZERO);
        let summary = run(&plan, &mut a, &mut b, &options, |_| {});
        assert!(matches!(summary.stopped, Some(Stopped::TimeLimit)));
        assert_eq!(summary.cases, 0);
        let flag = AtomicBool::new(true);
        let mut options = Options::new(1_000, 7);
        options.interrupted = Some(&flag);
        let summary = run(&plan, &mut a, &mut b, &options, |_| {});
        assert!(matches!(summary.stopped, Some(Stopped::Interrupted)));
        let summary = run(&plan, &mut a, &mut b, &Options::new(20, 7), |_| {});
        assert!(summary.stopped.is_none());
        // The 20 drawn cases, the value-class cases of the op's leaves
        // (runner.differential.valued; none without a corpus), then those
        // guided to rules under five cases (runner.differential.guided), at
        // most a quarter as many as drawn.
        let (valued, guided) = (summary.coverage.valued, summary.coverage.guided);
        assert!(guided <= 5, "{guided}");
        let sent = 20 + valued + guided;
        assert_eq!((summary.cases, summary.agreed), (sent, sent));
    }
}
