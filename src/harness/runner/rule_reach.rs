//! The rules the suite's vectors reach (spec `runner.reach`): each
//! vector run on the reference, in each profile it runs in, under
//! [`reach::recording`], gives the rules whose
//! decisions it exercised. The JSON report lists them per rule, and the
//! reach test holds every rule with a point to a vector.

use super::reference_profiles;
use super::vectors::Vector;
use crate::protocol::dispatch;
use crate::reach;
use std::collections::BTreeMap;

/// The rules `vector`'s request reaches on the reference, in any profile
/// it runs in, sorted.
pub fn of_vector(vector: &Vector) -> Vec<&'static str> {
    let mut rules: Vec<&'static str> = reference_profiles(vector)
        .into_iter()
        .flat_map(|(_, features)| {
            reach::recording(|| dispatch::handle_in(features, &vector.op, &vector.input)).1
        })
        .collect();
    rules.sort_unstable();
    rules.dedup();
    rules
}

/// Per rule, the ids of `vectors` that reach it, in the order given.
pub fn by_rule<'v>(
    vectors: impl Iterator<Item = &'v Vector>,
) -> BTreeMap<&'static str, Vec<String>> {
    let mut reached: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    for vector in vectors {
        for rule in of_vector(vector) {
            reached.entry(rule).or_default().push(vector.id.clone());
        }
    }
    reached
}
