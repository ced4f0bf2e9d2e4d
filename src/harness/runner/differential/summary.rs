//! The outcome of a run (spec `runner.differential`): the counts per op,
//! what was not compared and why, the slow answers and hangs, the classes,
//! and why the run ended early.

use super::classes::Class;
use super::coverage::Coverage;
use crate::harness::runner::adapter::Slow;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Why a run ended before its last case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// `--time-limit` passed.
    TimeLimit,
    /// The run was interrupted (SIGINT).
    Interrupted,
    /// An implementation cannot be started or described any more.
    Dead(String),
    /// The caller asked to stop at the first class.
    FirstClass,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stopped::TimeLimit => f.write_str("the time limit passed"),
            Stopped::Interrupted => f.write_str("interrupted"),
            Stopped::Dead(why) => write!(f, "an implementation is dead: {why}"),
            Stopped::FirstClass => f.write_str("the first class was found"),
        }
    }
}

/// The outcome of a run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Cases compared.
    pub cases: u64,
    /// Cases where both agreed.
    pub agreed: u64,
    /// Per op: (agreed, compared).
    pub per_op: BTreeMap<&'static str, (u64, u64)>,
    /// Per op: the cases A and B answered `UNSUPPORTED` (not compared, not
    /// counted in `cases`).
    pub not_implemented: BTreeMap<&'static str, [u64; 2]>,
    /// Per op: the cases drawn (compared or not).
    pub drawn: BTreeMap<&'static str, u64>,
    /// Per op: why its cases were not compared (outside what both declare,
    /// or not sent after hangs), and how many each reason kept out.
    pub kept_out: BTreeMap<&'static str, BTreeMap<String, u64>>,
    /// Per op and side (`A`, `B`): the cases answered after the timeout,
    /// within the grace period, and the latest of them (spec
    /// `runner.slow`).
    pub slow: BTreeMap<(&'static str, &'static str), (u64, Slow)>,
    /// Per op: the cases a side did not answer in time (spec
    /// `runner.slow`; later cases of the op are still sent, each awaited
    /// in proportion to the op's answers).
    pub hung: BTreeMap<&'static str, u64>,
    /// The classes, in the order they were found.
    pub classes: Vec<Class>,
    /// The rules the compared cases reached (spec `runner.reach`).
    pub coverage: Coverage,
    /// Why the run ended early, if it did.
    pub stopped: Option<Stopped>,
}

impl Summary {
    /// `agree N/M`, and the cases left out for a missing capability.
    pub fn line(&self) -> String {
        let mut line = format!("agree {}/{}", self.agreed, self.cases);
        let beyond = self.beyond_capability();
        if beyond > 0 {
            line.push_str(&format!(
                " ({beyond} more cases not compared: outside what both declare, per op above)"
            ));
        }
        line
    }

    /// Cases not compared because they lie outside what both declare (a
    /// capability one side lacks, the protocol's contract), not counted in
    /// `cases`.
    pub fn beyond_capability(&self) -> u64 {
        self.kept_out
            .values()
            .flat_map(|reasons| reasons.values())
            .sum()
    }

    /// The cases of `op` a side answered `UNSUPPORTED`.
    pub fn unsupported(&self, op: &str) -> u64 {
        self.not_implemented
            .get(op)
            .map_or(0, |counts| counts.iter().sum())
    }

    /// `not implemented: OP by B (N cases), …` (spec
    /// `runner.differential`), when a side answered `UNSUPPORTED`.
    pub fn not_implemented_line(&self) -> Option<String> {
        let listed: Vec<String> = self
            .not_implemented_by_side()
            .map(|(op, side, cases)| format!("{op} by {side} ({cases} cases)"))
            .collect();
        (!listed.is_empty()).then(|| format!("not implemented: {}", listed.join(", ")))
    }

    /// Each op a side answered `UNSUPPORTED`, that side and its cases.
    pub(super) fn not_implemented_by_side(
        &self,
    ) -> impl Iterator<Item = (&'static str, &'static str, u64)> + '_ {
        self.not_implemented.iter().flat_map(|(op, counts)| {
            ["A", "B"]
                .into_iter()
                .zip(counts)
                .filter(|(_, cases)| **cases > 0)
                .map(|(side, cases)| (*op, side, *cases))
        })
    }

    /// The ops that compared fewer than [`STARVED_PERCENT`] % of the cases
    /// drawn for them (less those a side does not implement), each with
    /// what kept most of them out (spec `runner.differential.reach`): such
    /// a run fails, since an op it says it compared was hardly tested.
    pub fn starved(&self) -> Vec<Starved> {
        self.drawn
            .iter()
            .filter_map(|(op, &drawn)| {
                let unsupported = self.unsupported(op);
                let planned = drawn - unsupported;
                let compared = self.per_op.get(op).map_or(0, |counts| counts.1);
                // A side that answered every case sent `UNSUPPORTED` does not
                // implement the op: listed as such, not starved.
                let kept_out: u64 = self
                    .kept_out
                    .get(op)
                    .map_or(0, |reasons| reasons.values().sum());
                let not_implemented = unsupported > 0 && unsupported + kept_out >= drawn;
                if planned == 0 || not_implemented || compared * 100 >= planned * STARVED_PERCENT {
                    return None;
                }
                // What kept most cases out: a reason of the contract, or a
                // side's `UNSUPPORTED` to some of them.
                let reasons = self
                    .kept_out
                    .get(op)
                    .into_iter()
                    .flatten()
                    .map(|(why, count)| (*count, why.clone()));
                let unsupported_by_side = self
                    .not_implemented_by_side()
                    .filter(|(side_op, _, _)| side_op == op)
                    .map(|(_, side, cases)| {
                        (
                            cases,
                            format!("{side} answered UNSUPPORTED to {cases} of {drawn} cases"),
                        )
                    });
                let reason = reasons
                    .chain(unsupported_by_side)
                    .max_by_key(|(count, _)| *count)
                    .map_or_else(|| "the run ended".to_owned(), |(_, why)| why);
                Some(Starved {
                    op,
                    planned,
                    compared,
                    reason,
                })
            })
            .collect()
    }

    /// `slow: OP by SIDE answered in N s (limit M s), K cases`, one line
    /// per op and side answered late (spec `runner.slow`).
    pub fn slow_lines(&self) -> Vec<String> {
        self.slow
            .iter()
            .map(|((op, side), (cases, latest))| {
                format!("slow: {op} by {side} {latest} at the latest, {cases} cases")
            })
            .collect()
    }

    /// `not answered in time: N of M OP cases` per op a side hung on, and
    /// `tested too little: …` for an op answered on under half its cases
    /// (spec `runner.slow`).
    pub fn hangs_lines(&self) -> Vec<String> {
        let sent = |op: &str| self.drawn.get(op).copied().unwrap_or(0);
        let mut lines: Vec<String> = self
            .hung
            .iter()
            .map(|(op, hung)| format!("not answered in time: {hung} of {} {op} cases", sent(op)))
            .collect();
        for (op, hung) in &self.hung {
            let answered = sent(op).saturating_sub(*hung);
            if answered * 2 < sent(op) {
                lines.push(format!(
                    "tested too little: {op} answered {answered} of {} cases in time (under half)",
                    sent(op)
                ));
            }
        }
        lines
    }

    /// The classes, largest first (ties: found first).
    pub fn classes_by_size(&self) -> Vec<&Class> {
        let mut classes: Vec<&Class> = self.classes.iter().collect();
        classes.sort_by_key(|class| std::cmp::Reverse(class.count));
        classes
    }

    /// Counts a case of `op` not compared, for `why`.
    pub(super) fn keep_out(&mut self, op: &'static str, why: String) {
        *self.kept_out.entry(op).or_default().entry(why).or_default() += 1;
    }

    /// Counts the answers to a case of `op` that came late, each with its
    /// side, keeping the latest per side (spec `runner.slow`).
    pub(super) fn count_slow(&mut self, op: &'static str, late: Vec<(&'static str, Slow)>) {
        for (side, slow) in late {
            let entry = self.slow.entry((op, side)).or_insert((0, slow));
            entry.0 += 1;
            if slow.took > entry.1.took {
                entry.1 = slow;
            }
        }
    }
}

/// Below this share (in percent) of its planned cases compared, an op
/// fails the run (spec `runner.differential.reach`).
pub const STARVED_PERCENT: u64 = 5;

/// An op whose cases were nearly all left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Starved {
    /// The op.
    pub op: &'static str,
    /// Its cases drawn, less those a side answered `UNSUPPORTED`.
    pub planned: u64,
    /// Its cases compared.
    pub compared: u64,
    /// What kept most of the others out: the member or capability, or a
    /// side's `UNSUPPORTED`.
    pub reason: String,
}

impl fmt::Display for Starved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} compared {} of {} cases (under {STARVED_PERCENT} %): {}",
            self.op, self.compared, self.planned, self.reason
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// runner.differential.reach: a starved op names what kept most of its
    /// cases out, a side's `UNSUPPORTED` to part of them included.
    #[test]
    fn a_starved_op_names_what_kept_most_cases_out() {
        let op = "candidates/remote";
        let summary = Summary {
            drawn: BTreeMap::from([(op, 300)]),
            not_implemented: BTreeMap::from([(op, [0, 295])]),
            kept_out: BTreeMap::from([(
                op,
                BTreeMap::from([("the listing repeats a session id".to_owned(), 3)]),
            )]),
            per_op: BTreeMap::from([(op, (0, 0))]),
            ..Summary::default()
        };
        let starved = summary.starved();
        assert_eq!(starved.len(), 1);
        assert_eq!(
            starved[0].reason,
            "B answered UNSUPPORTED to 295 of 300 cases"
        );
        let fewer = Summary {
            not_implemented: BTreeMap::from([(op, [0, 2])]),
            per_op: BTreeMap::from([(op, (1, 1))]),
            kept_out: BTreeMap::from([(
                op,
                BTreeMap::from([("the listing repeats a session id".to_owned(), 290)]),
            )]),
            ..summary
        };
        assert_eq!(
            fewer.starved()[0].reason,
            "the listing repeats a session id"
        );
    }
}
