//! The causes of a run's failures (spec `runner.causes`): the failed
//! vectors grouped by what went wrong, each cause with its ops, rules and
//! smallest vector, and the probe that shows it when probing traced it.

use super::rules::is_behaviour_rule;
use crate::harness::runner::readings;
use crate::harness::runner::{FailureDetail, Report, VectorResult};
use serde::Serialize;
use std::collections::HashMap;

/// One cause of a run's failures (spec `runner.causes`): the failed
/// vectors whose failures have the same [`Cause`](crate::harness::runner::causes::Cause).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CauseCount {
    /// The cause, on one line (`family: edit at locus`).
    pub signature: String,
    /// Failed vectors with this cause.
    pub count: usize,
    /// Their ops, most vectors first.
    pub ops: Vec<String>,
    /// The rules they cite (not `conformance.*`), most vectors first.
    pub rules: Vec<String>,
    /// Their ids, in suite order.
    pub vectors: Vec<String>,
    /// The one with the fewest input bytes (the first such, in suite
    /// order); when probing traced the cause, the fewest among the traced
    /// ones, so that the probe shown is this vector's own.
    pub example: String,
    /// When probing traced the cause to a lower op (spec `runner.probes`):
    /// the example's lowest failing probe, as `OP INPUT answers X
    /// (expected Y)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
    /// The chain that led to that probe from a failed vector: `OP fails
    /// because OP … answers …`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    /// What substitution reproduced of that vector's failure: `the
    /// implementation's OP in place of the reference's reproduces …`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub substitution: Option<String>,
}

/// The causes of a run's failures, most vectors first (ties: found first).
pub fn causes(report: &Report) -> Vec<CauseCount> {
    let failures: Vec<(&VectorResult, &FailureDetail)> = report.failures().collect();
    let readings: Vec<FailureReadings> = failures
        .iter()
        .map(|(result, detail)| FailureReadings::of(result, detail))
        .collect();
    let counted = readings::counted_under(&readings, |failure| {
        (&failure.first, failure.other.as_ref(), 1)
    });
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (&(result, detail), (reading, first)) in failures.iter().zip(readings.iter().zip(counted)) {
        // Every edit counts (spec runner.causes): the vector is counted
        // under each of its causes.
        for signature in std::iter::once(first).chain(&reading.further) {
            let at = *index.entry(signature).or_insert_with(|| {
                groups.push(Group::open(signature, result, detail));
                groups.len() - 1
            });
            groups[at].count(result, detail);
        }
    }
    let mut causes: Vec<CauseCount> = groups.into_iter().map(Group::into_cause).collect();
    causes.sort_by_key(|cause| std::cmp::Reverse(cause.count));
    causes
}

/// A failure's causes as signatures: the one it shows, its further ones,
/// and its other reading.
struct FailureReadings {
    first: String,
    further: Vec<String>,
    other: Option<String>,
}

impl FailureReadings {
    fn of(result: &VectorResult, detail: &FailureDetail) -> FailureReadings {
        // A cost vector's failure is its growth, whatever it answered.
        if result.cost.is_some() {
            return FailureReadings {
                first: format!("cost: {} grows faster than linearly", result.op),
                further: Vec::new(),
                other: None,
            };
        }
        let (first, other) = detail.causes(&result.op);
        let all = detail.all_causes(&result.op);
        FailureReadings {
            first: first.to_string(),
            further: all.iter().skip(1).map(ToString::to_string).collect(),
            other: other.map(|other| other.to_string()),
        }
    }
}

/// The failed vectors counted under one signature, as they are gathered.
struct Group<'a> {
    signature: String,
    ops: Vec<(&'a str, usize)>,
    rules: Vec<(&'a str, usize)>,
    vectors: Vec<&'a str>,
    /// The vector with the fewest input bytes: its size and id.
    example: (usize, &'a str),
    /// The traced vector with the fewest input bytes.
    traced: Option<Traced<'a>>,
}

/// A vector whose failure probing traced to the group's cause.
struct Traced<'a> {
    input_bytes: usize,
    id: &'a str,
    /// Its lowest failing probe, the chain to it, and what substitution
    /// reproduced.
    probe: String,
    chain: String,
    substitution: String,
}

impl<'a> Group<'a> {
    /// The group of `signature`, opened by `result`'s failure.
    fn open(signature: &str, result: &'a VectorResult, detail: &FailureDetail) -> Group<'a> {
        Group {
            signature: signature.to_owned(),
            ops: Vec::new(),
            rules: Vec::new(),
            vectors: Vec::new(),
            example: (detail.input_bytes, &result.id),
            traced: None,
        }
    }

    /// Counts `result`'s failure in the group, once however many of its
    /// readings the group's signature is.
    fn count(&mut self, result: &'a VectorResult, detail: &FailureDetail) {
        if self.vectors.last() == Some(&result.id.as_str()) {
            return;
        }
        tally(&mut self.ops, &result.op);
        for rule in result.rules.iter().filter(|rule| is_behaviour_rule(rule)) {
            tally(&mut self.rules, rule);
        }
        self.vectors.push(&result.id);
        if detail.input_bytes < self.example.0 {
            self.example = (detail.input_bytes, &result.id);
        }
        self.trace(result, detail);
    }

    /// Keeps `result`'s probe when probing traced its failure to the
    /// group's cause and it is the smallest such vector yet.
    fn trace(&mut self, result: &'a VectorResult, detail: &FailureDetail) {
        let Some(chain) = &detail.chain else {
            return;
        };
        let smaller = self
            .traced
            .as_ref()
            .is_none_or(|traced| detail.input_bytes < traced.input_bytes);
        if smaller && chain.cause().to_string() == self.signature {
            self.traced = Some(Traced {
                input_bytes: detail.input_bytes,
                id: &result.id,
                probe: chain.lowest().describe(),
                chain: chain.explain(&result.op),
                substitution: chain.substitution(),
            });
        }
    }

    fn into_cause(self) -> CauseCount {
        let example = self
            .traced
            .as_ref()
            .map_or(self.example.1, |traced| traced.id);
        CauseCount {
            signature: self.signature,
            count: self.vectors.len(),
            ops: most_first(self.ops),
            rules: most_first(self.rules),
            vectors: self.vectors.iter().map(|id| (*id).to_owned()).collect(),
            example: example.to_owned(),
            probe: self.traced.as_ref().map(|traced| traced.probe.clone()),
            chain: self.traced.as_ref().map(|traced| traced.chain.clone()),
            substitution: self.traced.map(|traced| traced.substitution),
        }
    }
}

fn tally<'a>(counts: &mut Vec<(&'a str, usize)>, key: &'a str) {
    match counts.iter_mut().find(|(known, _)| *known == key) {
        Some((_, count)) => *count += 1,
        None => counts.push((key, 1)),
    }
}

fn most_first(mut counts: Vec<(&str, usize)>) -> Vec<String> {
    counts.sort_by_key(|count| std::cmp::Reverse(count.1));
    counts.into_iter().map(|(key, _)| key.to_owned()).collect()
}
