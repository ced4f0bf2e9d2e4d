//! The caching prober (spec `runner.probes`): asks a failure's probes of
//! both sides, keeps every answer for the run and learns from them, and
//! explains the failure by substitution, one phase at a time.

use super::allowance::{Allowance, Spending, MAX_PROBES};
use super::chain::{Chain, ProbeStep};
use super::learned::LearnedModel;
use super::questions::{agrees, derive, key, reference_answer, refused_by_its_op, Probe};
use super::substitution::{compose, Composed};
use super::telling::Teller;
use crate::features::Features;
use crate::harness::runner::adapter::{Description, Implementation};
use crate::harness::runner::causes::{self, Cause, Side};
use crate::harness::runner::ops;
use crate::harness::runner::vectors::required_capabilities;
use crate::js::json::Json;
use crate::protocol::dispatch;
use crate::protocol::wire::{Outcome, UNSUPPORTED};
use std::collections::HashMap;

/// How deep a chain of probes goes: pre-step, prepare, retain, the
/// projection, its JSON.
const MAX_DEPTH: usize = 5;

/// A failed request as probing takes it: its op and input, and what the
/// implementation answered (or the protocol failure in its place) with
/// what it wrote to stderr.
#[derive(Clone, Copy, Debug)]
pub struct Failure<'a> {
    /// The op.
    pub op: &'a str,
    /// Its input.
    pub input: &'a Json,
    /// The implementation's answer.
    pub answer: &'a Result<Outcome, String>,
    /// What it wrote to stderr while answering.
    pub stderr: &'a str,
}

/// The two sides a failure's probes are asked of: the expected one (the
/// reference, or side A in `differential`) and the implementation.
type Pair<'a> = [&'a mut dyn Implementation; 2];

/// Sends a run's probes and keeps their answers (spec `runner.probes`).
pub struct Prober {
    features: Features,
    declared: Vec<&'static str>,
    capabilities: Vec<String>,
    expected: HashMap<String, Result<Outcome, String>>,
    answers: HashMap<String, (Result<Outcome, String>, String)>,
    /// What the run sent for probes, against its allowance.
    spending: Spending,
    /// The reference's answers computed in this run, by request.
    references: HashMap<String, Outcome>,
    /// What was learned of the implementation from its answers.
    learned: LearnedModel,
    /// For each learned op, the first question a substituted run answered
    /// otherwise than the reference (asked before, or as learned), with that
    /// answer: the step shown for a learned behaviour that stood in.
    first_learned: Vec<ProbeStep>,
}

impl Prober {
    /// A prober for the implementation `description` describes, compared
    /// with the reference at its declared behaviours (`conformance`).
    pub fn new(description: &Description) -> Prober {
        let declared = description.declared();
        Prober::within(
            declared.features,
            ops::known_ops().filter(|op| declared.answers(op)).collect(),
            description.capabilities.clone(),
        )
    }

    /// A prober that derives probes as the reference with `features` does,
    /// sends only ops of `declared`, and only requests that need no
    /// capability but `capabilities` (`differential`: what both sides
    /// declare; spec `protocol.capabilities`).
    pub fn within(
        features: Features,
        declared: Vec<&'static str>,
        capabilities: Vec<String>,
    ) -> Prober {
        Prober {
            features,
            learned: LearnedModel::new(declared.contains(&"retain")),
            declared,
            capabilities,
            expected: HashMap::new(),
            answers: HashMap::new(),
            spending: Spending::default(),
            references: HashMap::new(),
            first_learned: Vec::new(),
        }
    }

    /// Requests sent to the implementation for probes so far.
    pub fn sent(&self) -> usize {
        self.spending.sent
    }

    /// The behaviours of the reference probes are derived with.
    pub fn features(&self) -> Features {
        self.features
    }

    /// How the failed request of `op`, to which the implementation gave
    /// `actual` (writing `stderr`), is explained by its lower ops' answers,
    /// or `None` when no substitution reproduces any of it (the failure
    /// keeps its own causes).
    pub fn attribute(
        &mut self,
        expected: &mut dyn Implementation,
        actual: &mut dyn Implementation,
        failure: Failure<'_>,
    ) -> Option<Chain> {
        let mut budget = MAX_PROBES;
        self.explain(&mut [expected, actual], failure, 0, &mut budget)
    }

    /// [`Prober::attribute`] within a run's allowance, which it never
    /// exceeds: once three quarters of its requests or bytes have been
    /// sent, only the first failure of an op with its own causes (its
    /// causes without probing, `own`) sends requests, within the last
    /// quarter; after three failures of a kind whose probes explained
    /// nothing (nor told its conversation apart), another sends none; such
    /// a failure is explained only by answers already had and what was
    /// learned (spec `runner.probes`: no failure borrows another's
    /// explanation).
    pub fn attribute_within(
        &mut self,
        expected: &mut dyn Implementation,
        actual: &mut dyn Implementation,
        failure: Failure<'_>,
        own: Vec<Cause>,
        allowance: Allowance,
    ) -> Option<Chain> {
        let kind = (failure.op.to_owned(), own);
        let mut budget = self.spending.budget(&kind, allowance);
        let asked = budget > 0;
        let chain = self.explain(&mut [expected, actual], failure, 0, &mut budget);
        // Probes that told the failure's conversation apart told something.
        let told = || {
            kind.1.iter().any(|cause| {
                *cause == causes::conversation_cause()
                    && self.tell(failure.op, failure.input, cause.clone()) != *cause
            })
        };
        if chain.is_none() && asked && !told() {
            self.spending.explained_nothing(kind);
        }
        chain
    }

    /// What a failed request of `op` whose conversation differs tells once
    /// its probes were answered (spec `runner.causes`, `runner.probes`):
    /// `cause` itself unless it is the conversation's; then the
    /// projection's, retention's or the budget's, as the probes show it.
    pub fn tell(&self, op: &str, input: &Json, cause: Cause) -> Cause {
        self.teller().tell(op, input, cause)
    }

    /// [`Prober::tell`], but an `INTERNAL` error one side answered where no
    /// conversation is implicated is that error's cause (spec
    /// `runner.causes`); and when that leaves a `retain`'s conversation
    /// untold, what the implementation's answer `actual` itself shows: the
    /// projection's or retention's, when what it kept is of its projection.
    pub fn tell_answered(
        &self,
        op: &str,
        input: &Json,
        cause: Cause,
        actual: &Result<Outcome, String>,
    ) -> Cause {
        self.teller().tell_answered(op, input, cause, actual)
    }

    /// What telling reads of this prober.
    fn teller(&self) -> Teller<'_> {
        Teller {
            features: self.features,
            expected: &self.expected,
            answers: &self.answers,
            learned: &self.learned,
        }
    }

    /// Takes the implementation's answer to a vector whose expected answer
    /// is `expected` as an observation of it, learned from at no cost (a
    /// passing answer of another op than `json/tag-safe` teaches nothing).
    pub fn observe(&mut self, op: &str, expected: &Outcome, answer: &Result<Outcome, String>) {
        if op == "json/tag-safe" || !agrees(expected, answer) {
            self.learned.learn(op, expected, answer);
        }
    }

    /// The reference's answer to a request, computed once per run.
    fn reference(&mut self, op: &str, input: &Json) -> Outcome {
        let key = key(op, input);
        if let Some(known) = self.references.get(&key) {
            return known.clone();
        }
        let answer = reference_answer(self.features, op, input);
        self.references.insert(key, answer.clone());
        answer
    }

    /// Explains `failure` by substitution (spec `runner.probes`): asks its
    /// probes; puts the implementation's answers of the ops that answer
    /// wrong in place of the reference's ([`compose`]); when that
    /// reproduces some of the failure, the ops whose substitution alone
    /// changes the answer explain it, each traced down the same way, and
    /// what the substituted run does not reproduce keeps its own causes.
    fn explain(
        &mut self,
        sides: &mut Pair,
        failure: Failure<'_>,
        depth: usize,
        budget: &mut usize,
    ) -> Option<Chain> {
        if depth == MAX_DEPTH {
            return None;
        }
        // What answers already had and what was learned of the
        // implementation explain without asking when, substituted, they
        // reproduce some of the failure (what they leave keeps its own
        // causes) and tell its conversation apart; only else are probes
        // asked.
        if *budget > 0 {
            let known = self.explain(sides, failure, depth, &mut 0);
            let told = |chain: &Chain| !chain.causes().contains(&causes::conversation_cause());
            if let Some(chain) = known.filter(told) {
                return Some(chain);
            }
        }
        // A failure's own answer is its op's, a question the op refuses
        // included (a probe's is the question's).
        let own = if depth == 0 && refused_by_its_op(failure.op, failure.input) {
            dispatch::handle_in(self.features, failure.op, failure.input)
        } else {
            self.reference(failure.op, failure.input)
        };
        let mut failing = self.failing_probes(sides, failure, &own, budget);
        // `retain`'s own answer, asked (or had): not one stood in for by
        // what was learned, which retains as the reference does.
        let retain_answered = failing.iter().any(|step| step.op == "retain");
        let (substituted, stood_in) = self.to_substitute(failure.op, &failing, *budget);
        if substituted.is_empty() {
            return None;
        }
        let run = self.changed_run(&mut *sides[1], failure, &own, &substituted, budget)?;
        if stood_in {
            for step in std::mem::take(&mut self.first_learned) {
                if !failing.iter().any(|failed| failed.op == step.op) {
                    failing.push(step);
                }
            }
        }
        let explaining = self.explaining(&mut *sides[1], failure, &own, &substituted, budget);
        let (steps, traced) = self.traced(sides, &failing, &explaining, depth, budget)?;
        let (reproduced, residual) = self.reproduced(failure, &own, &run, retain_answered)?;
        Some(Chain {
            steps,
            traced,
            substituted: explaining.iter().map(|op| (*op).to_owned()).collect(),
            reproduced,
            residual,
        })
    }

    /// The ops to substitute in a failed request of `op`: those its
    /// failing probes show; past the budget, what was learned of its lower
    /// ops stands in for them too, without asking (then `true`).
    fn to_substitute(
        &self,
        op: &str,
        failing: &[ProbeStep],
        budget: usize,
    ) -> (Vec<&'static str>, bool) {
        let mut substituted = ops_of(failing);
        let mut stood_in = false;
        if budget == 0 || self.spending.left().1 == 0 {
            for lower in ops::composed_of(op) {
                if self.learned.differs_within(lower) && !substituted.contains(lower) {
                    substituted.push(lower);
                    stood_in = true;
                }
            }
        }
        (substituted, stood_in)
    }

    /// The substituted run of a failed request when it changes the
    /// reference's answer `own`; the composition must be the reference's
    /// for this input before an implementation's answers are put into it.
    fn changed_run(
        &mut self,
        actual_side: &mut dyn Implementation,
        failure: Failure<'_>,
        own: &Outcome,
        substituted: &[&'static str],
        budget: &mut usize,
    ) -> Option<Composed> {
        let faithful = self.substituted_run(actual_side, failure, own, &[], budget)?;
        if !matches!(&faithful, Composed::Answer(faithful) if agrees(own, &Ok(faithful.clone()))) {
            return None;
        }
        self.first_learned.clear();
        let run = self.substituted_run(actual_side, failure, own, substituted, budget)?;
        changes(own, &run).then_some(run)
    }

    /// The ops whose substitution alone changes the answer to a failed
    /// request: they explain it; when none does alone, all of them
    /// together.
    fn explaining(
        &mut self,
        actual_side: &mut dyn Implementation,
        failure: Failure<'_>,
        own: &Outcome,
        substituted: &[&'static str],
        budget: &mut usize,
    ) -> Vec<&'static str> {
        let mut explaining: Vec<&'static str> = Vec::new();
        for lower in substituted.iter().filter(|_| substituted.len() > 1) {
            let alone = self.substituted_run(actual_side, failure, own, &[lower], budget);
            if alone.is_some_and(|alone| changes(own, &alone)) {
                explaining.push(lower);
            }
        }
        if explaining.is_empty() {
            explaining = substituted.to_vec();
        }
        explaining
    }

    /// The failing probes of the `explaining` ops, each traced down as far
    /// as substitution reproduces it: the first path of failing probes
    /// down to its lowest op, and every cause traced, each once; `None`
    /// when no failing probe is of an explaining op.
    fn traced(
        &mut self,
        sides: &mut Pair,
        failing: &[ProbeStep],
        explaining: &[&'static str],
        depth: usize,
        budget: &mut usize,
    ) -> Option<(Vec<ProbeStep>, Vec<Cause>)> {
        let mut steps: Vec<ProbeStep> = Vec::new();
        let mut traced: Vec<Cause> = Vec::new();
        for step in failing
            .iter()
            .filter(|step| explaining.iter().any(|op| *op == step.op))
        {
            let below = Failure {
                op: &step.op,
                input: &step.input,
                answer: &step.actual,
                stderr: &step.stderr,
            };
            let (path, causes) = match self.explain(sides, below, depth + 1, budget) {
                Some(chain) => (chain.steps.clone(), chain.causes()),
                None => (Vec::new(), self.own_causes(below, &step.expected)),
            };
            if steps.is_empty() {
                steps.push(step.clone());
                steps.extend(path);
            }
            for cause in causes {
                if !traced.contains(&cause) {
                    traced.push(cause);
                }
            }
        }
        (!steps.is_empty()).then_some((steps, traced))
    }

    /// What the substituted run `run` of a failed request reproduced (how
    /// it differs from the reference's answer `own`) and what it did not
    /// (how the implementation's answer differs from it, each its own
    /// cause); `None` when it changes the answer otherwise than the failure
    /// does: it reproduces none of it, and explains nothing.
    fn reproduced(
        &self,
        failure: Failure<'_>,
        own: &Outcome,
        run: &Composed,
        retain_answered: bool,
    ) -> Option<(Vec<Cause>, Vec<Cause>)> {
        // A lower answer that raises no error where the reference's did
        // reproduces the failure's disagreement, and nothing is left to
        // compare past it.
        let Composed::Answer(run) = run else {
            return Some((self.own_causes(failure, own), Vec::new()));
        };
        let ran = Failure {
            answer: &Ok(run.clone()),
            stderr: "",
            ..failure
        };
        let reproduced = self.own_causes(ran, own);
        let mut residual = self.residual(failure, run, retain_answered);
        if !residual.is_empty() {
            let failure = self.own_causes(failure, own);
            // What is left is some of the failure's own causes: an edit
            // the answer shows only against the composed run (a member
            // the reference does not write, placed otherwise) is how the
            // composition writes, not the implementation's.
            residual.retain(|left| failure.iter().any(|shown| causes::same_cause(shown, left)));
            if !reproduced.iter().any(|cause| failure.contains(cause)) {
                return None;
            }
            // What the substituted run changes that the failure does not
            // show is the composition's (it measured the implementation's
            // answer where the implementation measured otherwise), not the
            // implementation's: nor is its mirror in what the run leaves.
            let introduced: Vec<&Cause> = reproduced
                .iter()
                .filter(|cause| !failure.iter().any(|shown| causes::same_cause(shown, cause)))
                .collect();
            residual.retain(|left| {
                !introduced
                    .iter()
                    .any(|cause| causes::same_cause(cause, left))
            });
        }
        Some((reproduced, residual))
    }

    /// How the implementation's answer to a failed request differs from
    /// the substituted run's `run`: nothing when they agree; with
    /// `retain`'s own answers in (`retain_answered`), what still differs
    /// in the region it answers (the prompt's conversation and what is
    /// derived from it, the stats) is what the composition does not model
    /// of them: `retain`'s.
    fn residual(&self, failure: Failure<'_>, run: &Outcome, retain_answered: bool) -> Vec<Cause> {
        let (op, answer) = (failure.op, failure.answer);
        match (run, answer) {
            (run, answer) if agrees(run, answer) => Vec::new(),
            (Outcome::Output(run), Ok(Outcome::Output(actual)))
                if ops::prepares_messages(op) && retain_answered =>
            {
                causes::causes_per_region(op, run, actual)
                    .into_iter()
                    .filter(|(region, _)| *region == causes::Region::Own)
                    .map(|(_, cause)| self.tell_answered(op, failure.input, cause, answer))
                    .collect()
            }
            _ => self.own_causes(failure, run),
        }
    }

    /// The causes of the answer to `failure` differing from `expected`
    /// (spec `runner.causes`): each region's, the conversation's told
    /// apart by the probes already answered.
    fn own_causes(&self, failure: Failure<'_>, expected: &Outcome) -> Vec<Cause> {
        let (op, input, answer) = (failure.op, failure.input, failure.answer);
        let every = causes::every(
            op,
            Side::expected(expected),
            Side::of(answer, failure.stderr),
        );
        let told = |cause| self.tell_answered(op, input, cause, answer);
        every.into_iter().map(told).collect()
    }

    /// The probes of a failed request on which the implementation answers
    /// otherwise than the expected side, each asked of both (answers cached
    /// for the run) while the budget lasts, then only as already answered,
    /// or as learned; no more once the ops that failed so far, substituted,
    /// reproduce the implementation's whole answer.
    fn failing_probes(
        &mut self,
        sides: &mut Pair,
        failure: Failure<'_>,
        own: &Outcome,
        budget: &mut usize,
    ) -> Vec<ProbeStep> {
        let (op, input, answer) = (failure.op, failure.input, failure.answer);
        let mut failing = Vec::new();
        for probe in derive(self.features, op, input, own) {
            if !self.askable(&probe) || (probe.op == op && probe.input == *input) {
                continue;
            }
            let key = key(probe.op, &probe.input);
            let cached = self.expected.contains_key(&key) && self.answers.contains_key(&key);
            if !cached && !self.spending.charge(budget, key.len()) {
                // Past the budget, a probe is not asked: its op is not
                // substituted, and what it would explain stays its own.
                failing.extend(self.learned_failing(&probe));
                continue;
            }
            let Some(step) = self.ask(sides, &probe, key) else {
                continue;
            };
            failing.push(step);
            // The later probes are not asked once the ops that failed so
            // far reproduce the whole answer.
            let substituted = ops_of(&failing);
            let run = self.substituted_run(&mut *sides[1], failure, own, &substituted, budget);
            if matches!(run, Some(Composed::Answer(run)) if agrees(&run, answer)) {
                break;
            }
        }
        failing
    }

    /// A probe not asked as what was learned of the implementation answers
    /// it, when that answer fails.
    fn learned_failing(&mut self, probe: &Probe) -> Option<ProbeStep> {
        let learned = self.learned.stand_in(self.features, probe)?;
        let expected = self.reference(probe.op, &probe.input);
        let agreed = agrees(&expected, &Ok(learned.clone()));
        (!agreed).then(|| ProbeStep::learned(probe, expected, learned))
    }

    /// Asks `probe` of both sides (each answer cached for the run) and
    /// learns from the implementation's: the failing step when it answers
    /// otherwise than the expected side. A probe the expected side cannot
    /// answer proves nothing; nor does one whose expected answer needs a
    /// capability not declared (a lone surrogate decoded from an escape).
    fn ask(&mut self, sides: &mut Pair, probe: &Probe, key: String) -> Option<ProbeStep> {
        let [expected_side, actual_side] = sides;
        let expected = self
            .expected
            .entry(key.clone())
            .or_insert_with(|| {
                let answer = expected_side.call(probe.op, &probe.input);
                expected_side.take_stderr();
                answer
            })
            .clone();
        let (actual, stderr) = self
            .answers
            .entry(key)
            .or_insert_with(|| {
                self.spending.sent += 1;
                let answer = actual_side.call(probe.op, &probe.input);
                (answer, actual_side.take_stderr())
            })
            .clone();
        let expected = expected.ok()?;
        if let Outcome::Output(output) = &expected {
            if !self.capable(probe.op, &probe.input, output) {
                return None;
            }
        }
        self.learned.learn(probe.op, &expected, &actual);
        let agreed = agrees(&expected, &actual);
        (!agreed).then(|| ProbeStep::asked(probe, expected, actual, stderr))
    }

    /// What was learned of the implementation's `probe.op` standing in for
    /// its answer: composed of the lower ops as they are substituted, when
    /// the op has a composition (a `retain` measured with the learned
    /// spelling, of a projection with the learned edits), then with the
    /// learned edits made ([`LearnedModel::stand_in`] otherwise).
    fn stood_in(
        &mut self,
        actual_side: &mut dyn Implementation,
        probe: &Probe,
        substituted: &[&'static str],
        budget: &mut usize,
        depth: usize,
    ) -> Option<Outcome> {
        if !self.learned.differs_within(probe.op) {
            return None;
        }
        if depth < MAX_DEPTH && !ops::composed_of(probe.op).is_empty() {
            let features = self.features;
            let reference = self.reference(probe.op, &probe.input);
            let mut lower = |below: &Probe| {
                self.lower_answer(&mut *actual_side, below, substituted, budget, depth + 1)
            };
            let composed = compose(features, probe.op, &probe.input, &reference, &mut lower);
            if let Some(Composed::Answer(Outcome::Output(composed))) = composed {
                return Some(Outcome::Output(self.learned.edited(probe.op, &composed)));
            }
        }
        self.learned.stand_in(self.features, probe)
    }

    /// Keeps `step` as its op's first learned step, unless one is kept.
    fn first_learned_of(&mut self, step: ProbeStep) {
        if !self.first_learned.iter().any(|known| known.op == step.op) {
            self.first_learned.push(step);
        }
    }

    /// Whether a question may be sent to the implementation: its op is
    /// declared, and it needs no capability not declared.
    fn askable(&self, probe: &Probe) -> bool {
        self.declared.contains(&probe.op)
            && self.capable(probe.op, &probe.input, &Json::Null)
            && !refused_by_its_op(probe.op, &probe.input)
    }

    fn capable(&self, op: &str, input: &Json, output: &Json) -> bool {
        required_capabilities(op, input, output)
            .iter()
            .all(|needed| self.capabilities.contains(needed))
    }

    /// The reference's answer `own` to a failed request composed with the
    /// implementation's answers for the ops `substituted` names and its
    /// own composition for the others ([`compose`]); `None` when it has no
    /// composition or an answer could not be had within `budget`.
    fn substituted_run(
        &mut self,
        actual_side: &mut dyn Implementation,
        failure: Failure<'_>,
        own: &Outcome,
        substituted: &[&'static str],
        budget: &mut usize,
    ) -> Option<Composed> {
        let features = self.features;
        let mut lower =
            |probe: &Probe| self.lower_answer(&mut *actual_side, probe, substituted, budget, 0);
        compose(features, failure.op, failure.input, own, &mut lower)
    }

    /// A lower op's answer in a substituted run: the implementation's
    /// (asked within `budget`, past it as learned) when its op is
    /// substituted; else the reference's composition of it, which is the
    /// reference's own answer when nothing it is composed of is
    /// substituted.
    fn lower_answer(
        &mut self,
        actual_side: &mut dyn Implementation,
        probe: &Probe,
        substituted: &[&'static str],
        budget: &mut usize,
        depth: usize,
    ) -> Option<Composed> {
        let reference = self.reference(probe.op, &probe.input);
        if !substituted.contains(&probe.op) {
            let composed_of = ops::composed_of(probe.op);
            if depth == MAX_DEPTH || !substituted.iter().any(|op| composed_of.contains(op)) {
                return Some(Composed::Answer(reference));
            }
            let features = self.features;
            let mut lower = |below: &Probe| {
                self.lower_answer(&mut *actual_side, below, substituted, budget, depth + 1)
            };
            let composed = compose(features, probe.op, &probe.input, &reference, &mut lower);
            return Some(composed.unwrap_or(Composed::Answer(reference)));
        }
        let key = key(probe.op, &probe.input);
        if !self.answers.contains_key(&key) {
            if !self.askable(probe) || !self.spending.charge(budget, key.len()) {
                let stood_in =
                    self.stood_in(&mut *actual_side, probe, substituted, budget, depth)?;
                if !agrees(&reference, &Ok(stood_in.clone())) {
                    self.first_learned_of(ProbeStep::learned(probe, reference, stood_in.clone()));
                }
                return Some(Composed::Answer(self.learned.read_back(probe.op, stood_in)));
            }
            self.spending.sent += 1;
            let answer = actual_side.call(probe.op, &probe.input);
            let stderr = actual_side.take_stderr();
            self.answers.insert(key.clone(), (answer, stderr));
        }
        let (answer, stderr) = self.answers.get(&key)?;
        let answer = match answer {
            Ok(Outcome::Error { code, .. }) if code == UNSUPPORTED => {
                return Some(Composed::Answer(reference))
            }
            Ok(answer) => answer.clone(),
            Err(_) => return None,
        };
        if self.learned.differs(probe.op) && !agrees(&reference, &Ok(answer.clone())) {
            let step = ProbeStep::asked(probe, reference, Ok(answer.clone()), stderr.clone());
            self.first_learned_of(step);
        }
        Some(Composed::Answer(self.learned.read_back(probe.op, answer)))
    }
}

/// Whether a substituted run changes the reference's answer `own`.
fn changes(own: &Outcome, run: &Composed) -> bool {
    match run {
        Composed::Answer(run) => !agrees(own, &Ok(run.clone())),
        Composed::Unraised => true,
    }
}

/// The ops of `steps`, each once, in order.
fn ops_of(steps: &[ProbeStep]) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = Vec::new();
    for step in steps {
        if let Some(op) = ops::known_ops().find(|known| *known == step.op) {
            if !found.contains(&op) {
                found.push(op);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::INTERNAL;

    fn parse(text: &str) -> Json {
        crate::js::json::parse(text).expect("test JSON")
    }

    /// A prober whose caches hold the reference's answer as the
    /// implementation's to every probe of `op` with `input` that is a
    /// `retain`: each such probe was asked and agreed.
    fn agreeing_on_retain(op: &str, input: &Json) -> Prober {
        let mut prober = Prober::within(Features::RC8, vec!["retain"], Vec::new());
        let own = dispatch::handle_in(Features::RC8, op, input);
        for probe in derive(Features::RC8, op, input, &own) {
            if probe.op == "retain" {
                let answer = dispatch::handle_in(Features::RC8, probe.op, &probe.input);
                let key = key(probe.op, &probe.input);
                prober.expected.insert(key.clone(), Ok(answer.clone()));
                prober.answers.insert(key, (Ok(answer), String::new()));
            }
        }
        prober
    }

    #[test]
    fn a_failed_model_lookup_is_not_the_conversation() {
        // prepare.budget.lookup-failed, runner.causes: the reference fails
        // on the lookup before reading any session, so a port answering
        // otherwise is told the lookup, not the conversation.
        let request = |models: &str| {
            parse(&format!(
                r#"{{"agent":{{"id":"me","cwd":"/w","route":{{"provider":"p","model":"m"}}}},"content":[],"references":[{{"sessionId":"s1"}}],"sessions":{{"s1":{{"session":{{"id":"s1","cwd":"/w"}},"capturedThroughSeq":1,"events":[]}}}}{models}}}"#
            ))
        };
        let prober = Prober::within(Features::NEWEST, vec!["prepare"], Vec::new());
        let told = |input: &Json| {
            prober
                .tell("prepare", input, causes::conversation_cause())
                .to_string()
        };
        assert_eq!(
            told(&request(r#","models":{"p/m":{"lookupError":"down"}}"#)),
            "snapshot: model lookup failure differs"
        );
        // The lookup fails, but a check before it fails the request alike
        // without it: a configuration that is invalid.
        let invalid = parse(
            r#"{"agent":{"id":"me","route":{"provider":"p","model":"m"}},"content":[],"references":[{"sessionId":"s1"}],"sessions":{},"config":{"maxReferences":0},"models":{"p/m":{"lookupError":"down"}}}"#,
        );
        assert_eq!(told(&invalid), "snapshot: conversation differs");
        assert_eq!(
            told(&request(r#","models":{"p/m":{"contextWindow":1000}}"#)),
            "snapshot: conversation differs"
        );
    }

    #[test]
    fn probing_tells_a_conversation_apart() {
        // runner.probes, runner.causes: projection, retention, budget.
        let snapshot = r#"{"session":{"id":"s1","cwd":"/w"},"capturedThroughSeq":1,"events":[{"type":"user/message","data":{"source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]}}]}"#;
        let conversation = causes::conversation_cause();
        let told = |prober: &mut Prober, op: &str, input: &Json| {
            prober.tell(op, input, conversation.clone()).to_string()
        };
        let unbounded = parse(&format!(
            r#"{{"snapshot":{snapshot},"label":"l","maxBytes":9007199254740991}}"#
        ));
        let mut nothing_asked = Prober::within(Features::RC8, vec!["retain"], Vec::new());
        assert_eq!(
            told(&mut nothing_asked, "retain", &unbounded),
            "snapshot: projection differs"
        );
        let bounded = parse(&format!(
            r#"{{"snapshot":{snapshot},"label":"l","maxBytes":100}}"#
        ));
        assert_eq!(
            told(&mut nothing_asked, "retain", &bounded),
            "snapshot: conversation differs"
        );
        assert_eq!(
            told(
                &mut agreeing_on_retain("retain", &bounded),
                "retain",
                &bounded
            ),
            "snapshot: retention differs"
        );
        let prepare = parse(&format!(
            r#"{{"agent":{{"id":"me"}},"content":[],"references":[{{"sessionId":"s1"}}],"sessions":{{"s1":{snapshot}}},"config":null}}"#
        ));
        assert_eq!(
            told(&mut nothing_asked, "prepare", &prepare),
            "snapshot: conversation differs"
        );
        assert_eq!(
            told(
                &mut agreeing_on_retain("prepare", &prepare),
                "prepare",
                &prepare
            ),
            "snapshot: budget differs"
        );
        // A side's `INTERNAL` where every source retains alike is that
        // error, not the budget (a crash copying the content).
        let crash = Ok(Outcome::Error {
            code: INTERNAL.to_owned(),
            message: "RecursionError".to_owned(),
        });
        assert_eq!(
            agreeing_on_retain("prepare", &prepare)
                .tell_answered("prepare", &prepare, conversation.clone(), &crash)
                .to_string(),
            "snapshot: unexpected error"
        );
        // Only the conversation's cause is told apart.
        let other = Cause {
            family: Some("snapshot"),
            edit: "member x missing".to_owned(),
        };
        assert_eq!(
            agreeing_on_retain("retain", &bounded).tell("retain", &bounded, other.clone()),
            other
        );
    }
}
