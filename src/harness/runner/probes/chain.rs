//! How a failure was explained (spec `runner.probes`): the failing probes
//! down to the lowest op that answers wrong, what the substituted run
//! reproduced and what it left, as reports show them.

use super::questions::Probe;
use crate::harness::runner::causes::{self, Cause, Side};
use crate::harness::runner::diff::{show_answer, Shown};
use crate::js::json::{self, Json};
use crate::protocol::wire::Outcome;

/// A probe that failed: the question, the expected answer (the
/// reference's, or side A's in `differential`) and the implementation's.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeStep {
    /// The lower op.
    pub op: String,
    /// Its input.
    pub input: Json,
    /// The expected answer.
    pub expected: Outcome,
    /// The implementation's answer, or the protocol failure in its place.
    pub actual: Result<Outcome, String>,
    /// What the implementation wrote to stderr while answering.
    pub stderr: String,
    /// Whether the answer is the implementation's JSON spelling as learned
    /// from its other answers, not asked (spec `runner.probes`).
    pub learned: bool,
}

impl ProbeStep {
    /// A probe asked: the implementation's answer and its stderr.
    pub(super) fn asked(
        probe: &Probe,
        expected: Outcome,
        actual: Result<Outcome, String>,
        stderr: String,
    ) -> ProbeStep {
        ProbeStep {
            op: probe.op.to_owned(),
            input: probe.input.clone(),
            expected,
            actual,
            stderr,
            learned: false,
        }
    }

    /// A probe not asked: what was learned of the implementation answers
    /// it.
    pub(super) fn learned(probe: &Probe, expected: Outcome, learned: Outcome) -> ProbeStep {
        ProbeStep {
            learned: true,
            ..ProbeStep::asked(probe, expected, Ok(learned), String::new())
        }
    }

    /// The probe's cause (spec `runner.causes`), as a vector of its op that
    /// failed the same way would have.
    pub fn cause(&self) -> Cause {
        self.cause_at().0
    }

    /// The probe's cause and the folded path where it shows (`$` for a
    /// whole outcome).
    pub fn cause_at(&self) -> (Cause, String) {
        let expected = Side::expected(&self.expected);
        let actual = Side::of(&self.actual, &self.stderr);
        causes::cause_or_differs(&self.op, expected, actual)
    }

    /// `uri/encode {"sessionId":"\ud800"} answers "…" (expected "…")`.
    pub fn describe(&self) -> String {
        format!(
            "{} {} {} {} (expected {})",
            self.op,
            shortened(&json::to_ascii(&self.input)),
            if self.learned {
                "would answer, as learned from its other answers,"
            } else {
                "answers"
            },
            shortened(&show_answer(
                self.actual.as_ref().map_err(String::as_str),
                Shown::Brief
            )),
            shortened(&show_answer(Ok(&self.expected), Shown::Brief))
        )
    }

    /// The size of the probe's input as JSON text.
    pub fn input_bytes(&self) -> usize {
        json::stringify(&self.input).len()
    }
}

/// How a failure was explained by substitution (spec `runner.probes`):
/// the lower ops whose answers, put in place of the reference's, reproduce
/// some of it, the first path of failing probes down to its lowest op, and
/// what the substituted run reproduced and did not.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The first explaining path: never empty; each step a probe of the one
    /// before, the last the lowest.
    pub steps: Vec<ProbeStep>,
    /// The causes of the substituted lower ops, each traced down as far as
    /// substitution reproduces it; never empty, the first the lowest
    /// step's.
    pub(super) traced: Vec<Cause>,
    /// The ops whose answers were substituted.
    pub(super) substituted: Vec<String>,
    /// What the substituted run reproduced: how it differs from the
    /// reference's answer.
    pub(super) reproduced: Vec<Cause>,
    /// What it did not: how the implementation's answer differs from it,
    /// each its own cause.
    pub(super) residual: Vec<Cause>,
}

impl Chain {
    /// The lowest failing probe of the first path.
    pub fn lowest(&self) -> &ProbeStep {
        self.steps.last().expect("a chain has a step")
    }

    /// The failure's first cause: its lowest probe's.
    pub fn cause(&self) -> Cause {
        self.traced[0].clone()
    }

    /// The other reading of the failure's first cause, when its lowest
    /// probe's answer has one (spec `runner.causes`).
    pub fn alternative(&self) -> Option<Cause> {
        let lowest = self.lowest();
        let expected = Side::expected(&lowest.expected);
        let actual = Side::of(&lowest.actual, &lowest.stderr);
        causes::alternative(&lowest.op, expected, actual)
    }

    /// Every cause of the failure: the traced ones, then what substitution
    /// left, each once.
    pub fn causes(&self) -> Vec<Cause> {
        let mut all: Vec<Cause> = Vec::new();
        for cause in self.traced.iter().chain(&self.residual) {
            if !all.contains(cause) {
                all.push(cause.clone());
            }
        }
        all
    }

    /// What substitution left: how the implementation's answer differs
    /// from the substituted run's (spec `runner.probes`).
    pub fn residual(&self) -> &[Cause] {
        &self.residual
    }

    /// `the implementation's json/tag-safe in place of the reference's
    /// reproduces its whole answer (snapshot: retention differs)`, or what
    /// it reproduces and what it leaves.
    pub fn substitution(&self) -> String {
        let named = |causes: &[Cause]| {
            causes
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        let ops = self.substituted.join(", ");
        let reproduced = named(&self.reproduced);
        if self.residual.is_empty() {
            format!("the implementation's {ops} in place of the reference's reproduces its whole answer ({reproduced})")
        } else {
            format!(
                "the implementation's {ops} in place of the reference's reproduces {reproduced}, not {}",
                named(&self.residual)
            )
        }
    }

    /// `OP fails because uri/encode {…} answers … (expected …)`, through
    /// every step.
    pub fn explain(&self, op: &str) -> String {
        let mut text = op.to_owned();
        for step in &self.steps[..self.steps.len() - 1] {
            text.push_str(" fails because ");
            text.push_str(&step.op);
        }
        format!("{text} fails because {}", self.lowest().describe())
    }
}

/// At most 160 characters, the rest elided.
fn shortened(text: &str) -> String {
    const SHOWN: usize = 160;
    match text.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
