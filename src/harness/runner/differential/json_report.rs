//! The JSON report of a run (`differential --format json`, spec
//! `runner.differential`): the summary as one object, every class with its
//! shrunk example.

use super::classes::Class;
use super::coverage::JsonCoverage;
use super::plan::Plan;
use super::summary::{Starved, Summary};
use crate::harness::runner::report::{actual_json, raw};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::time::Duration;

/// The JSON report of a run (`differential --format json`).
#[derive(Debug, Serialize)]
pub struct JsonDifferential {
    /// The seed.
    pub seed: u64,
    /// Cases compared.
    pub compared: u64,
    /// Cases where both agreed.
    pub agree: u64,
    /// Per op: `{op, agree, compared, drawn}`.
    #[serde(rename = "perOp")]
    pub per_op: Vec<OpCount>,
    /// Every class, largest first (counts complete even when
    /// `--max-classes` caps the human report).
    pub classes: Vec<JsonClass>,
    /// What was not compared, and why.
    #[serde(rename = "notCompared")]
    pub not_compared: NotCompared,
    /// The cases answered after the timeout, within the grace period
    /// (spec `runner.slow`): `{op, side, cases, seconds, limit}`, the
    /// latest answer's seconds.
    pub slow: Vec<JsonSlowCase>,
    /// Per op: the cases a side did not answer at all.
    pub hangs: BTreeMap<&'static str, u64>,
    /// The rules the compared cases reached, and those the run's ops can
    /// reach that none did (spec `runner.reach`).
    pub coverage: JsonCoverage,
    /// Why the run ended early, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Seconds the run took.
    pub seconds: f64,
}

/// An op a side answered late.
#[derive(Debug, Serialize)]
pub struct JsonSlowCase {
    /// The op.
    pub op: &'static str,
    /// `A` or `B`.
    pub side: &'static str,
    /// The cases answered late.
    pub cases: u64,
    /// Seconds the latest answer took.
    pub seconds: f64,
    /// The timeout, in seconds.
    pub limit: f64,
}

/// Agreement on one op.
#[derive(Debug, Serialize)]
pub struct OpCount {
    /// The op.
    pub op: &'static str,
    /// Cases agreed.
    pub agree: u64,
    /// Cases compared.
    pub compared: u64,
    /// Cases drawn, compared or not.
    pub drawn: u64,
}

/// What a run left out.
#[derive(Debug, Serialize)]
pub struct NotCompared {
    /// Ops not generated: `{op, reason}`.
    pub ops: Vec<OpReason>,
    /// Cases whose answer held a lone surrogate while one side lacks the
    /// capability.
    #[serde(rename = "beyondCapability")]
    pub beyond_capability: u64,
    /// Ops a side answered `UNSUPPORTED`: `{op, side, cases}`.
    #[serde(rename = "notImplemented")]
    pub not_implemented: Vec<NotImplemented>,
    /// Ops that compared under 5 % of their planned cases (the run fails):
    /// `{op, planned, compared, reason}`.
    pub starved: Vec<Starved>,
}

/// An op a side does not implement.
#[derive(Debug, Serialize)]
pub struct NotImplemented {
    /// The op.
    pub op: &'static str,
    /// `A` or `B`.
    pub side: &'static str,
    /// The cases it answered `UNSUPPORTED`.
    pub cases: u64,
}

/// An op left out, and why.
#[derive(Debug, Serialize)]
pub struct OpReason {
    /// The op.
    pub op: String,
    /// Why.
    pub reason: String,
}

/// One class in the JSON report.
#[derive(Debug, Serialize)]
pub struct JsonClass {
    /// The op of its shrunk example.
    pub op: String,
    /// The ops its cases came from.
    pub ops: Vec<&'static str>,
    /// The cause, as one line (spec `runner.causes`).
    pub signature: String,
    /// `output/output`, `error/output`, `output/error`, `error/error`,
    /// `protocol`.
    pub kind: &'static str,
    /// The folded path of the example's first difference.
    pub path: String,
    /// The cause's edit (the signature without its op family).
    pub detail: String,
    /// Cases in the class.
    pub count: u64,
    /// The first case numbers.
    pub cases: Vec<u64>,
    /// The shrunk example.
    pub example: JsonExample,
}

/// A class's shrunk example.
#[derive(Debug, Serialize)]
pub struct JsonExample {
    /// `{op, input}`.
    pub request: Box<RawValue>,
    /// A's answer.
    pub a: Box<RawValue>,
    /// B's answer.
    pub b: Box<RawValue>,
    /// Shrinking steps that kept the signature.
    #[serde(rename = "shrinkSteps")]
    pub shrink_steps: usize,
}

impl Summary {
    /// The run as a [`JsonDifferential`].
    pub fn to_report(&self, plan: &Plan, seed: u64, elapsed: Duration) -> JsonDifferential {
        JsonDifferential {
            seed,
            compared: self.cases,
            agree: self.agreed,
            per_op: self.op_counts(),
            classes: self
                .classes_by_size()
                .into_iter()
                .map(JsonClass::of)
                .collect(),
            not_compared: self.not_compared(plan),
            slow: self
                .slow
                .iter()
                .map(|((op, side), (cases, latest))| JsonSlowCase {
                    op,
                    side,
                    cases: *cases,
                    seconds: latest.took.as_secs_f64(),
                    limit: latest.limit.as_secs_f64(),
                })
                .collect(),
            hangs: self.hung.clone(),
            coverage: self.coverage.to_report(),
            stopped: self.stopped.as_ref().map(ToString::to_string),
            seconds: elapsed.as_secs_f64(),
        }
    }

    /// Per op drawn: its cases agreed, compared and drawn.
    fn op_counts(&self) -> Vec<OpCount> {
        self.drawn
            .iter()
            .map(|(op, drawn)| {
                let (agree, compared) = self.per_op.get(op).copied().unwrap_or_default();
                OpCount {
                    op,
                    agree,
                    compared,
                    drawn: *drawn,
                }
            })
            .collect()
    }

    /// What the run, planned as `plan`, left out.
    fn not_compared(&self, plan: &Plan) -> NotCompared {
        NotCompared {
            ops: plan
                .left_out
                .iter()
                .map(|(op, reason)| OpReason {
                    op: op.clone(),
                    reason: reason.clone(),
                })
                .collect(),
            beyond_capability: self.beyond_capability(),
            not_implemented: self
                .not_implemented_by_side()
                .map(|(op, side, cases)| NotImplemented { op, side, cases })
                .collect(),
            starved: self.starved(),
        }
    }
}

impl JsonClass {
    /// `class` in the JSON report.
    fn of(class: &Class) -> JsonClass {
        JsonClass {
            op: class.signature.op.clone(),
            ops: class.ops.clone(),
            signature: class.signature.to_string(),
            kind: class.signature.kind,
            path: class.signature.path.clone(),
            detail: class.signature.cause.edit.clone(),
            count: class.count,
            cases: class.cases.clone(),
            example: JsonExample {
                request: raw(&class.example_request()),
                a: raw(&actual_json(&class.example.a)),
                b: raw(&actual_json(&class.example.b)),
                shrink_steps: class.shrink_steps,
            },
        }
    }
}
