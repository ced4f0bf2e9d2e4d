//! What a run may send for probes (spec `runner.probes`): requests, and
//! bytes of requests, per failure and per run, and which failures may
//! still send once most of the run's allowance is spent.

use crate::harness::runner::causes::Cause;
use std::collections::{HashMap, HashSet};

/// Requests sent to the implementation for one failure, at most (answers
/// already cached are not counted).
pub const MAX_PROBES: usize = 32;

/// Requests a run may send for probes whatever its size; past it, at most
/// as many as the vectors it runs.
pub const MIN_ALLOWANCE: usize = 64;

/// Bytes of requests a run may send for probes whatever its size; past it,
/// at most half the bytes of its vectors' inputs.
pub const MIN_ALLOWANCE_BYTES: usize = 64 * 1024;

/// What a run may send for probes (spec `runner.probes`): requests, and
/// bytes of requests, each of which bounds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allowance {
    /// Requests.
    pub requests: usize,
    /// Bytes of requests (their inputs as JSON text, with the op).
    pub bytes: usize,
}

impl Allowance {
    /// The allowance of a run of `vectors` vectors whose inputs are
    /// `bytes` bytes of JSON text.
    pub fn of_run(vectors: usize, bytes: usize) -> Allowance {
        Allowance {
            requests: MIN_ALLOWANCE.max(vectors),
            bytes: MIN_ALLOWANCE_BYTES.max(bytes / 2),
        }
    }
}

/// After this many failures of one op with the same own causes sent
/// probes that explained nothing (nor told their conversation apart),
/// another sends none: it keeps its own causes, as they did, unless
/// answers already had or what was learned explain it.
const UNEXPLAINED_KIND: usize = 3;

/// A kind of failure: its op and its own causes (its causes without
/// probing).
pub(super) type Kind = (String, Vec<Cause>);

/// What a run has sent for probes, against its allowance.
#[derive(Default)]
pub(super) struct Spending {
    /// The run's allowance, once a failure was attributed within it.
    allowance: Option<Allowance>,
    /// Requests sent to the implementation so far.
    pub(super) sent: usize,
    /// Bytes of requests charged to the allowance so far.
    sent_bytes: usize,
    /// Each kind of failure that was probed for.
    probed: HashSet<Kind>,
    /// For each kind of failure, how many sent probes that explained
    /// nothing.
    unexplained: HashMap<Kind, usize>,
}

impl Spending {
    /// The requests and bytes the run's allowance still leaves, and
    /// whether its shared part (three quarters of either) is spent.
    pub(super) fn left(&self) -> (usize, usize, bool) {
        let Some(allowance) = self.allowance else {
            return (usize::MAX, usize::MAX, false);
        };
        let requests = allowance.requests.saturating_sub(self.sent);
        let bytes = allowance.bytes.saturating_sub(self.sent_bytes);
        let spent = requests <= allowance.requests / 4 || bytes <= allowance.bytes / 4;
        (requests, bytes, spent)
    }

    /// Whether a request of `bytes` bytes fits the failure's `budget` and
    /// the run's allowance; if so, it is charged to both.
    pub(super) fn charge(&mut self, budget: &mut usize, bytes: usize) -> bool {
        let (_, bytes_left, _) = self.left();
        if *budget == 0 || bytes > bytes_left {
            return false;
        }
        *budget -= 1;
        self.sent_bytes += bytes;
        true
    }

    /// The requests a failure of `kind` may send within the run's
    /// `allowance`: once three quarters of its requests or bytes have been
    /// sent, only the first failure of a kind, within the last quarter;
    /// none after `UNEXPLAINED_KIND` failures of its kind whose probes
    /// explained nothing.
    pub(super) fn budget(&mut self, kind: &Kind, allowance: Allowance) -> usize {
        self.allowance = Some(allowance);
        let (left, _, spent) = self.left();
        let first_of_its_kind = self.probed.insert(kind.clone());
        let unexplained = self.unexplained.get(kind).copied().unwrap_or(0);
        if (spent && !first_of_its_kind) || unexplained >= UNEXPLAINED_KIND {
            0
        } else {
            left.min(MAX_PROBES)
        }
    }

    /// Counts a failure of `kind` whose probes explained nothing (nor told
    /// its conversation apart).
    pub(super) fn explained_nothing(&mut self, kind: Kind) {
        *self.unexplained.entry(kind).or_default() += 1;
    }
}
