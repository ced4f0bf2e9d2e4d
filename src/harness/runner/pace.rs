//! How long each answer is awaited (spec `runner.slow`): the timeout and
//! its grace period, until an op hangs; from then on, that op's answers
//! are awaited in proportion to how fast the implementation answers it.
//!
//! A hang costs its own request, not its op's: an op that hung once still
//! gets every later request, each awaited [`HUNG_OP_FACTOR`] times the
//! op's slowest answer so far to a request at most twice as large (the
//! slowest answer of any op when there is none; at least
//! [`HUNG_OP_FLOOR`], at most the timeout), with no grace period. A port
//! answering in milliseconds whose op loops on some inputs is tested on
//! the rest and waited on for fractions of a second, not for the timeout,
//! on each input it loops on; one large input it answered slowly does not
//! lengthen the wait on small ones.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// After an op hung, its answers are awaited this many times its slowest
/// answer so far.
pub const HUNG_OP_FACTOR: u32 = 50;

/// After an op hung, its answers are awaited at least this long (a process
/// that answered in microseconds still gets time to be scheduled).
pub const HUNG_OP_FLOOR: Duration = Duration::from_millis(500);

/// How long to wait for one answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    /// The limit the answer is held to.
    pub limit: Duration,
    /// How much longer an answer is awaited after it before the
    /// implementation is taken to hang: an answer then is slow.
    pub grace: Duration,
    /// Whether the limit is scaled to the op's own answers, after a hang.
    pub scaled: bool,
}

/// What one implementation's answers have taken so far, per op.
#[derive(Clone, Debug)]
pub struct Pace {
    timeout: Duration,
    grace: Duration,
    /// Each op's answers: the request's size in bytes and how long the
    /// answer took.
    answers: BTreeMap<String, Vec<(usize, Duration)>>,
    /// The ops that hung at least once.
    hung: BTreeSet<String>,
}

impl Pace {
    /// A pace that waits `timeout`, then `grace`, for every op that has not
    /// hung.
    pub fn new(timeout: Duration, grace: Duration) -> Pace {
        Pace {
            timeout,
            grace,
            answers: BTreeMap::new(),
            hung: BTreeSet::new(),
        }
    }

    /// The same, with another grace period.
    pub fn with_grace(self, grace: Duration) -> Pace {
        Pace { grace, ..self }
    }

    /// How long to wait for an answer of `op` to a request of `bytes`.
    pub fn wait_for(&self, op: &str, bytes: usize) -> Wait {
        if !self.hung.contains(op) {
            return Wait {
                limit: self.timeout,
                grace: self.grace,
                scaled: false,
            };
        }
        // The slowest answer to a request at most twice as large; when
        // the op answered none, any op's (the implementation's pace, as
        // far as it is known).
        let comparable = |answers: &Vec<(usize, Duration)>| {
            answers
                .iter()
                .filter(|(size, _)| *size <= bytes.saturating_mul(2))
                .map(|(_, took)| *took)
                .max()
        };
        let slowest = self
            .answers
            .get(op)
            .and_then(comparable)
            .or_else(|| self.answers.values().filter_map(comparable).max())
            .unwrap_or(self.timeout);
        Wait {
            limit: (slowest * HUNG_OP_FACTOR).clamp(HUNG_OP_FLOOR.min(self.timeout), self.timeout),
            grace: Duration::ZERO,
            scaled: true,
        }
    }

    /// Counts an answer of `op` to a request of `bytes` that took `took`.
    pub fn answered(&mut self, op: &str, bytes: usize, took: Duration) {
        self.answers
            .entry(op.to_owned())
            .or_default()
            .push((bytes, took));
    }

    /// Counts a request of `op` not answered in time.
    pub fn hung(&mut self, op: &str) {
        self.hung.insert(op.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMEOUT: Duration = Duration::from_secs(10);
    const GRACE: Duration = Duration::from_secs(50);

    #[test]
    fn an_op_that_never_hung_gets_the_timeout_and_the_grace() {
        // runner.slow
        let mut pace = Pace::new(TIMEOUT, GRACE);
        pace.answered("retain", 100, Duration::from_millis(2));
        pace.hung("prepare");
        let wait = pace.wait_for("retain", 100);
        assert_eq!(
            (wait.limit, wait.grace, wait.scaled),
            (TIMEOUT, GRACE, false)
        );
    }

    #[test]
    fn an_op_that_hung_is_awaited_in_proportion_to_its_answers_of_that_size() {
        // runner.slow
        let mut pace = Pace::new(TIMEOUT, GRACE);
        pace.answered("retain", 100, Duration::from_millis(30));
        pace.answered("retain", 150, Duration::from_millis(40));
        pace.answered("retain", 1000, Duration::from_millis(900));
        pace.answered("prepare", 100, Duration::from_millis(100));
        pace.hung("retain");
        let wait = pace.wait_for("retain", 100);
        assert_eq!(wait.limit, Duration::from_millis(40) * HUNG_OP_FACTOR);
        assert_eq!((wait.grace, wait.scaled), (Duration::ZERO, true));
        // A request of 500 bytes or more is held to the slow large answer.
        assert_eq!(pace.wait_for("retain", 500).limit, TIMEOUT);
    }

    #[test]
    fn the_scaled_wait_lies_between_the_floor_and_the_timeout() {
        // runner.slow
        let mut pace = Pace::new(TIMEOUT, GRACE);
        pace.answered("retain", 100, Duration::from_micros(20));
        pace.answered("prepare", 100, Duration::from_secs(3));
        pace.hung("retain");
        pace.hung("prepare");
        assert_eq!(pace.wait_for("retain", 100).limit, HUNG_OP_FLOOR);
        assert_eq!(pace.wait_for("prepare", 100).limit, TIMEOUT);
        let short = Pace::new(Duration::from_millis(100), GRACE);
        let mut short = short.with_grace(Duration::ZERO);
        short.hung("retain");
        assert_eq!(
            short.wait_for("retain", 100).limit,
            Duration::from_millis(100)
        );
    }

    #[test]
    fn an_op_that_never_answered_is_held_to_the_implementation_s_pace() {
        // runner.slow
        let mut pace = Pace::new(TIMEOUT, GRACE);
        pace.hung("retain");
        assert_eq!(pace.wait_for("retain", 100).limit, TIMEOUT);
        pace.answered("uri/encode", 50, Duration::from_millis(1));
        pace.answered("prepare", 100, Duration::from_millis(20));
        assert_eq!(
            pace.wait_for("retain", 100).limit,
            Duration::from_millis(20) * HUNG_OP_FACTOR
        );
    }
}
