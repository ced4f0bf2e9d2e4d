//! What hangs cost a run (spec `runner.slow`): per op, the vectors it did
//! not answer in time, and the ops answered on under half the vectors
//! sent to them, which the run tested too little to judge.

use crate::harness::runner::adapter::is_hang;
use crate::harness::runner::{Report, Status, VectorResult};
use std::collections::BTreeMap;

/// At most this many hung vectors are named on the human line (the JSON
/// report names them all).
const NAMED: usize = 20;

/// One op's vectors sent, and those of them not answered in time.
#[derive(Debug, Default)]
struct OpHangs<'a> {
    sent: usize,
    hung: Vec<&'a str>,
}

/// Whether `result`'s vector was sent and not answered in time.
fn hung(result: &VectorResult) -> bool {
    matches!(&result.status, Status::Failed(detail) if matches!(&detail.actual, Err(problem) if is_hang(problem)))
}

/// Per op that hung, its vectors sent and hung, in suite order.
fn per_op(report: &Report) -> BTreeMap<&str, OpHangs<'_>> {
    let mut ops: BTreeMap<&str, OpHangs> = BTreeMap::new();
    for result in &report.results {
        if !matches!(result.status, Status::Passed | Status::Failed(_)) {
            continue;
        }
        let op = ops.entry(&result.op).or_default();
        op.sent += 1;
        if hung(result) {
            op.hung.push(&result.id);
        }
    }
    ops.retain(|_, op| !op.hung.is_empty());
    ops
}

/// How many vectors of each op were not answered in time.
pub fn hang_counts(report: &Report) -> BTreeMap<String, u64> {
    per_op(report)
        .into_iter()
        .map(|(op, hangs)| (op.to_owned(), hangs.hung.len() as u64))
        .collect()
}

/// The vectors not answered in time, in suite order.
pub fn hung_vectors(report: &Report) -> Vec<String> {
    report
        .results
        .iter()
        .filter(|result| hung(result))
        .map(|result| result.id.clone())
        .collect()
}

/// `not answered in time: N of M OP vectors: IDS` per op that hung, then
/// `tested too little: OP answered K of M vectors in time (under half)`
/// for each op that answered under half of them.
pub fn hangs_lines(report: &Report) -> Vec<String> {
    let ops = per_op(report);
    let mut lines = Vec::new();
    for (op, hangs) in &ops {
        let mut named = hangs.hung[..hangs.hung.len().min(NAMED)].join(", ");
        if hangs.hung.len() > NAMED {
            named.push_str(&format!(
                " and {} more (the JSON report's `hung` names them all)",
                hangs.hung.len() - NAMED
            ));
        }
        lines.push(format!(
            "not answered in time: {} of {} {op} vectors: {named}",
            hangs.hung.len(),
            hangs.sent
        ));
    }
    for (op, hangs) in &ops {
        let answered = hangs.sent - hangs.hung.len();
        if answered * 2 < hangs.sent {
            lines.push(format!(
                "tested too little: {op} answered {answered} of {} vectors in time (under half)",
                hangs.sent
            ));
        }
    }
    lines
}
