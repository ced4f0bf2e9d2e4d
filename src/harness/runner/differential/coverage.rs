//! The coverage of a run (spec `runner.reach`,
//! `runner.differential.guided`): the rules each compared case reached on
//! the reference, under the behaviours both sides have, and the rules the
//! run could reach (as the vectors both sides run, and its kept cases,
//! show) that no case did.

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The rules the compared cases reached, with how many cases reached each.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Per rule, the compared cases that reached it.
    pub reached: BTreeMap<&'static str, u64>,
    /// The rules the run could reach.
    pub reachable: BTreeSet<&'static str>,
    /// The guided cases sent (spec `runner.differential.guided`).
    pub guided: u64,
    /// The value-class cases sent (spec `runner.differential.valued`).
    pub valued: u64,
}

impl Coverage {
    /// Counts one compared case that reached `rules`.
    pub fn count(&mut self, rules: &[&'static str]) {
        for &rule in rules {
            *self.reached.entry(rule).or_default() += 1;
        }
    }

    /// The rules the run could reach that no compared case did.
    pub fn unreached(&self) -> Vec<&'static str> {
        self.reachable
            .iter()
            .copied()
            .filter(|rule| !self.reached.contains_key(rule))
            .collect()
    }

    /// The JSON form: `{reached, unreached}`.
    pub fn to_report(&self) -> JsonCoverage {
        JsonCoverage {
            reached: self.reached.clone(),
            unreached: self.unreached(),
            guided: self.guided,
            valued: self.valued,
        }
    }
}

/// `coverage` of `differential --format json`.
#[derive(Debug, Serialize)]
pub struct JsonCoverage {
    /// Per rule, the compared cases that reached it.
    pub reached: BTreeMap<&'static str, u64>,
    /// The rules the run could reach that no compared case did.
    pub unreached: Vec<&'static str>,
    /// The guided cases sent.
    pub guided: u64,
    /// The value-class cases sent.
    pub valued: u64,
}
