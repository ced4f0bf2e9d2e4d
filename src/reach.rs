//! Rule reach (spec `runner.reach`, ours): which rules of the
//! specification a request's decisions exercised, so that a suite can say
//! where it looked instead of hoping.
//!
//! Each decision the specification names calls [`point`] with the rule's id
//! (`reach::point("uri.decode.prefix")`) where the reference takes it. A
//! point costs one relaxed atomic load while nothing records; a caller that
//! asks runs a request inside [`recording`] and gets the ids its decisions
//! reached on that thread. The reference never reads what was recorded: the
//! harness does (per-rule vector lists, `differential`'s coverage).

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads are recording now: zero makes every point a no-op.
static RECORDING_THREADS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The rules reached on this thread while it records, in first-reached
    /// order; `None` when it does not record.
    static REACHED: RefCell<Option<Vec<&'static str>>> = const { RefCell::new(None) };
}

/// Marks the decision of spec rule `rule` as reached by the request being
/// recorded on this thread, if any.
#[inline]
pub fn point(rule: &'static str) {
    if is_recording() {
        mark(rule);
    }
}

/// Whether any thread records: a point that needs work to find out
/// whether its decision was taken (a pass over the results) does it only
/// then.
#[inline]
pub fn is_recording() -> bool {
    RECORDING_THREADS.load(Ordering::Relaxed) != 0
}

#[cold]
fn mark(rule: &'static str) {
    REACHED.with(|reached| {
        if let Some(reached) = reached.borrow_mut().as_mut() {
            if !reached.contains(&rule) {
                reached.push(rule);
            }
        }
    });
}

/// Runs `request` and returns its result with the rules its decisions
/// reached on this thread, sorted. Recording ends even if `request`
/// panics; a recording inside another gives the inner one its own set and
/// leaves the outer one as it was.
pub fn recording<T>(request: impl FnOnce() -> T) -> (T, Vec<&'static str>) {
    /// Ends one recording: restores what the thread recorded before.
    struct Recording {
        outer: Option<Vec<&'static str>>,
    }
    impl Drop for Recording {
        fn drop(&mut self) {
            let outer = self.outer.take();
            REACHED.with(|reached| *reached.borrow_mut() = outer);
            RECORDING_THREADS.fetch_sub(1, Ordering::Relaxed);
        }
    }
    let outer = REACHED.with(|reached| reached.borrow_mut().replace(Vec::new()));
    RECORDING_THREADS.fetch_add(1, Ordering::Relaxed);
    let recording = Recording { outer };
    let result = request();
    let mut reached = REACHED.with(|reached| reached.borrow_mut().take().unwrap_or_default());
    drop(recording);
    reached.sort_unstable();
    (result, reached)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_holds_the_points_its_request_reached_once_each() {
        // runner.reach
        let ((), reached) = recording(|| {
            point("b.rule");
            point("a.rule");
            point("b.rule");
        });
        assert_eq!(reached, ["a.rule", "b.rule"]);
    }

    #[test]
    fn points_outside_a_recording_are_not_kept() {
        point("before.rule");
        let ((), reached) = recording(|| point("inside.rule"));
        assert_eq!(reached, ["inside.rule"]);
    }

    #[test]
    fn a_nested_recording_leaves_the_outer_one_as_it_was() {
        let ((), outer) = recording(|| {
            point("outer.rule");
            let ((), inner) = recording(|| point("inner.rule"));
            assert_eq!(inner, ["inner.rule"]);
        });
        assert_eq!(outer, ["outer.rule"]);
    }
}
