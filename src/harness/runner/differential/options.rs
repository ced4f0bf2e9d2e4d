//! What a run is asked to do (spec `runner.differential.operation`): its
//! cases, seed, limits and reach, and the progress it reports on the way.

use crate::js::json::Json;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How a run goes.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// Cases to generate.
    pub cases: u64,
    /// The seed: the same seed sends the same requests.
    pub seed: u64,
    /// Stop generating after this long, and report what was found.
    pub time_limit: Option<Duration>,
    /// Set (by a signal handler) to stop and report what was found.
    pub interrupted: Option<&'a AtomicBool>,
    /// Stop at the first disagreement (after shrinking it).
    pub first_class_only: bool,
    /// Shrink each new class's first case (on by default; off where only
    /// the classes and their counts matter).
    pub shrink: bool,
    /// Per op, the vector inputs a share of its cases grow from
    /// ([`corpus::seeds`](super::corpus::seeds); spec
    /// `runner.differential.corpus`); none for `--corpus none`.
    pub seeds: BTreeMap<&'static str, Vec<Json>>,
    /// Type-confuse every eighth case of an op where both sides declare
    /// `dynamic-inputs` (spec `runner.differential.reach`; on by
    /// default).
    pub type_confusion: bool,
    /// After the drawn cases, send every case of the small scope of the
    /// order of checks ([`order::cases`](super::order::cases)) when
    /// `pre-step` is drawn (spec `runner.differential.reach`; on by
    /// default).
    pub order_scope: bool,
    /// After the drawn and ordered cases, send cases aimed at the rules
    /// reached least (spec `runner.differential.guided`; on by default).
    pub guided: bool,
}

impl Options<'_> {
    /// `cases` cases seeded with `seed`, no limits.
    pub fn new(cases: u64, seed: u64) -> Options<'static> {
        Options {
            cases,
            seed,
            time_limit: None,
            interrupted: None,
            first_class_only: false,
            shrink: true,
            seeds: BTreeMap::new(),
            type_confusion: true,
            order_scope: true,
            guided: true,
        }
    }

    /// Whether the run was interrupted.
    pub(super) fn is_interrupted(&self) -> bool {
        self.interrupted
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

/// Where a run is, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Cases done (compared or not).
    pub done: u64,
    /// Cases asked for.
    pub total: u64,
    /// Classes found so far.
    pub classes: usize,
    /// Time since the run started.
    pub elapsed: Duration,
}
