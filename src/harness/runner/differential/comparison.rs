//! How two answers to one request compare (spec `conformance.comparison`):
//! a [`Mismatch`] when they disagree, with its class, every further cause
//! it shows, and what tracing or an irregularity makes of it.

use super::irregular::Irregularity;
use super::normalize::normalize;
use super::plan::Scope;
use super::signature::{self, Signature};
use crate::harness::runner::adapter::is_hang;
use crate::harness::runner::causes::{self, Cause};
use crate::harness::runner::diff;
use crate::harness::runner::members;
use crate::harness::runner::ops;
use crate::harness::runner::probes::Chain;
use crate::protocol::wire::Outcome;

/// How two answers to one request compare: `None` when they agree, else
/// the disagreement's class and an explanation. Outputs compare exactly,
/// errors by code (spec `conformance.comparison`); where the sides'
/// behaviours differ ([`Scope::is_mixed`]) the newer additions are
/// hidden first.
pub fn compare(
    op: &str,
    scope: Scope,
    a: Result<Outcome, String>,
    b: Result<Outcome, String>,
    stderr: [&str; 2],
) -> Option<Mismatch> {
    let prepare = |outcome: Result<Outcome, String>| {
        outcome.map(|outcome| {
            if scope.is_mixed() {
                normalize(op, outcome)
            } else {
                outcome
            }
        })
    };
    let (a, b) = (prepare(a), prepare(b));
    let signature = signature::signature(op, &a, &b, stderr)?;
    let (explanation, also) = match (&a, &b) {
        (Ok(Outcome::Output(x)), Ok(Outcome::Output(y))) => (
            diff::explain_as(x, y, ["A", "B"]),
            causes::causes_per_region(op, x, y)
                .into_iter()
                .map(|(_, cause)| cause)
                .filter(|cause| *cause != signature.cause)
                .collect(),
        ),
        _ => (format!("A: {}\n  B: {}", show(&a), show(&b)), Vec::new()),
    };
    Some(Mismatch {
        signature,
        also,
        explanation,
        a,
        b,
        chain: None,
    })
}

/// Two answers that disagree.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// Its class.
    pub signature: Signature,
    /// Every further cause it shows, each counted in its own class too
    /// (spec `runner.differential.classes`, `runner.causes`: every edit
    /// counts): another region's, or what a substituted run reproduced
    /// beside what it left.
    pub also: Vec<Cause>,
    /// Both sides and the first difference, for a person.
    pub explanation: String,
    /// A's answer, as compared.
    pub a: Result<Outcome, String>,
    /// B's answer, as compared.
    pub b: Result<Outcome, String>,
    /// The failing probes down to the lowest op where B answers otherwise
    /// than A (spec `runner.probes`), when one does.
    pub chain: Option<Chain>,
}

impl Mismatch {
    /// Whether a side did not answer at all (spec `runner.slow`).
    pub(super) fn hung(&self) -> bool {
        [&self.a, &self.b]
            .into_iter()
            .any(|answer| matches!(answer, Err(problem) if is_hang(problem)))
    }

    /// This disagreement, which `irregularity` alone makes of a request
    /// that agrees without it (spec `runner.differential.classes`): its
    /// class is the irregularity's, in `op`'s family for a value of
    /// another type, everywhere for an integer-like key; what the answers
    /// show is its other reading.
    pub(super) fn irregular_by(mut self, op: &str, irregularity: &Irregularity) -> Mismatch {
        // What the answers show stays the other reading: a bug of another
        // layer that only an irregular value brings out joins its class
        // when that class is larger (spec runner.causes).
        let shown = self.signature.cause.clone();
        self.signature.cause = if irregularity.index_key {
            Cause {
                family: None,
                edit: members::INDEX_KEYS.to_owned(),
            }
        } else {
            Cause {
                family: Some(ops::family(op)),
                edit: format!("a value of another type at {}", irregularity.locus),
            }
        };
        self.signature.alternative = Some(shown);
        self.chain = None;
        self.also.clear();
        self
    }

    /// This disagreement explained by `chain` (spec `runner.probes`): when
    /// the substituted run reproduces all of it, its class is the lowest
    /// probe's cause, shown at that probe; else it is the first cause the
    /// substituted run leaves, the disagreement's own.
    pub(super) fn traced(mut self, chain: Chain) -> Mismatch {
        let first = chain
            .residual()
            .first()
            .cloned()
            .unwrap_or_else(|| chain.cause());
        self.also = chain
            .causes()
            .into_iter()
            .filter(|cause| *cause != first)
            .collect();
        if !chain.residual().is_empty() {
            self.signature.cause = first;
            self.signature.alternative = None;
            return self;
        }
        let lowest = chain.lowest();
        let (_, path) = lowest.cause_at();
        self.signature.alternative = (first == chain.cause())
            .then(|| chain.alternative())
            .flatten();
        self.signature.cause = first;
        self.signature.op = lowest.op.clone();
        self.signature.path = path;
        self.chain = Some(chain);
        self
    }
}

/// An answer as a case's report shows it.
fn show(answer: &Result<Outcome, String>) -> String {
    diff::show_answer(
        answer.as_ref().map_err(String::as_str),
        diff::Shown::WithMessage,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Features;

    /// runner.differential.classes: a case counts in the class of each
    /// cause it shows, a cut beside members renamed everywhere too.
    #[test]
    fn a_disagreement_shows_each_of_its_causes() {
        let answer = |text: &str| Ok(Outcome::Output(crate::js::json::parse(text).unwrap()));
        let a = answer(
            r#"{"data":{"sessionId":"s","conversation":[{"role":"user","text":"abc"}]},"stats":{"omittedBytes":0}}"#,
        );
        let b = answer(
            r#"{"data":{"session_id":"s","conversation":[{"role":"user","text":"ab"}]},"stats":{"omitted_bytes":1}}"#,
        );
        let mismatch =
            compare("retain", Scope::of(Features::RC8), a, b, ["", ""]).expect("disagree");
        assert_eq!(
            mismatch.signature.cause.to_string(),
            "members renamed camelCase → snake_case"
        );
        let also: Vec<String> = mismatch.also.iter().map(ToString::to_string).collect();
        assert_eq!(also, ["snapshot: conversation differs"]);
    }
}
