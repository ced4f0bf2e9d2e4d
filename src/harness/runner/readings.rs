//! The two-readings rule, once (spec `runner.causes`): a failure whose
//! expected error did not come, another error coming instead, reads two
//! ways, and counts under the reading more failures have as their cause.
//! A report's causes (`report::causes`) decide it here, one failure at a
//! time, and so can `differential`'s classes, a class weighing its count.

use std::collections::HashMap;
use std::hash::Hash;

/// The reading each of `items` counts under (spec `runner.causes`), where
/// `readings` tells an item's cause, its other reading if it has one, and
/// how many failures it stands for: the other reading when more failures
/// have that one as their cause than have the item's, else the item's
/// cause (when they tie too). The counts are taken before anything moves,
/// so no item's reading depends on the order of the others.
pub fn counted_under<'a, T, R: Eq + Hash>(
    items: &'a [T],
    readings: impl Fn(&'a T) -> (&'a R, Option<&'a R>, u64),
) -> Vec<&'a R> {
    let mut causes: HashMap<&R, u64> = HashMap::new();
    for (cause, _, weight) in items.iter().map(&readings) {
        *causes.entry(cause).or_default() += weight;
    }
    let count = |reading: &R| causes.get(reading).copied().unwrap_or(0);
    items
        .iter()
        .map(|item| match readings(item) {
            (cause, Some(other), _) if count(other) > count(cause) => other,
            (cause, ..) => cause,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // runner.causes: the other reading wins only when more failures have
    // it as their cause; a tie keeps the item's own.
    #[test]
    fn an_item_counts_under_the_reading_more_failures_share() {
        let items = [
            ("a", Some("b"), 1),
            ("b", None, 2),
            ("c", Some("b"), 2),
            ("d", Some("e"), 1),
        ];
        let counted = counted_under(&items, |(cause, other, weight)| {
            (cause, other.as_ref(), *weight)
        });
        assert_eq!(counted, [&"b", &"b", &"c", &"d"]);
    }
}
