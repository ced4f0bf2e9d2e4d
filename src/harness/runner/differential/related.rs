//! Related-value cases (spec `runner.differential.related`, ours): two
//! string members of one request made equal, or equal but for letter case.
//!
//! A value class changes one member; many porting bugs live in a
//! *relation* between two: a reference to an id that another reference
//! names in another case (a dedupe that folds case), a query that equals
//! an id but for case (an id compared case-sensitively), a fragment equal
//! to a hidden entry's name (a dotfile rule that ignores the fragment).
//! Random draws make two members equal only by luck. So, for each op, for
//! each ordered pair of its string leaves (a leaf with itself included, at
//! two places), from the first of up to [`TRIES`] bases the run's seed
//! picks that holds both with different values `v` at `p` and `w` at `q`:
//!
//! - **equal**: `q` set to `v`;
//! - **held, not at the start**: `q` set to `v` without its first unit (a
//!   substring test spelled as a prefix test), and, where `v` holds a `/`,
//!   to what follows its last `/` (a path's name, as a whole path's test
//!   spelled for a name's);
//! - **equal but for case**: `q` set to `v` in the other case (upper-cased,
//!   or lower-cased when `v` is already upper case), and `p` set to `v`
//!   upper-cased with `q` lower-cased, as JavaScript maps them.
//!
//! A case is sent only where the relation matters to the reference: its
//! answer differs from the same request with `q` left as it was.

use super::valued::{lower, set, upper, OpCases, TRIES};
use crate::harness::runner::json_path::{self, node_at};
use crate::harness::runner::value_classes::{leaves, Leaf, LeafPath};
use crate::js::json::Json;
use crate::js::JsString;

/// A string's place and value in one base.
type Place = (Vec<json_path::Step>, Json);

impl OpCases<'_> {
    /// The related-value cases of the op.
    pub(super) fn related(&self) -> Vec<Json> {
        let strings: Vec<LeafPath> = leaves(self.planned.op)
            .into_iter()
            .filter(|leaf| leaf.leaf == Leaf::String)
            .collect();
        let mut out = Vec::new();
        for (first, from) in strings.iter().enumerate() {
            for (second, to) in strings.iter().enumerate() {
                let nth = 10_000 + first * strings.len() + second;
                out.extend(self.related_pair(from, to, nth));
            }
        }
        out
    }

    /// The cases of one ordered pair of leaves, from the first base where
    /// some matter.
    fn related_pair(&self, from: &LeafPath, to: &LeafPath, nth: usize) -> Vec<Json> {
        let holding: Vec<(&Json, Vec<Place>, Vec<Place>)> = self
            .bases
            .iter()
            .map(|base| (base, strings_at(base, from), strings_at(base, to)))
            .filter(|(_, ps, qs)| !ps.is_empty() && !qs.is_empty())
            .collect();
        for step in 0..TRIES.min(holding.len()) {
            let (base, ps, qs) = &holding[self.pick(nth, 1000 * step, holding.len())];
            let (p, v) = &ps[self.pick(nth, 1 + 1000 * step, ps.len())];
            let Some((q, _)) = pick_other(qs, p, v, self.pick(nth, 2 + 1000 * step, qs.len()))
            else {
                continue;
            };
            let found = self.relations(base, p, v, q);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// The equal and equal-but-for-case cases of `p` (holding `v`) and `q`
    /// in `base` that the reference tells from `q` left as it was.
    fn relations(
        &self,
        base: &Json,
        p: &[json_path::Step],
        v: &Json,
        q: &[json_path::Step],
    ) -> Vec<Json> {
        let Json::String(text) = v else {
            return Vec::new();
        };
        let units = text.units();
        let string = |units: &[u16]| Json::String(JsString::from_units(units.to_vec()));
        // Set at `q` alone: equal; held, not at the start; a path's name;
        // the other case.
        let slash = units.iter().rposition(|&unit| unit == u16::from(b'/'));
        let mut at_q = vec![v.clone()];
        at_q.extend((units.len() > 1).then(|| string(&units[1..])));
        at_q.extend(
            slash
                .filter(|at| at + 1 < units.len())
                .map(|at| string(&units[at + 1..])),
        );
        let (high, low) = (upper(text), lower(text));
        let cased = high != low;
        if cased {
            let other_case = if high == *text { &low } else { &high };
            at_q.push(string(other_case.units()));
        }
        let untouched = self.answer(base);
        let mut out: Vec<Json> = at_q
            .into_iter()
            .map(|value| set(base.clone(), q, Some(value)))
            .filter(|case| self.answer(case) != untouched)
            .collect();
        // Equal but for case, both set.
        if cased {
            let raised = set(base.clone(), p, Some(string(high.units())));
            let lowered = set(raised.clone(), q, Some(string(low.units())));
            if self.answer(&lowered) != self.answer(&raised) {
                out.push(lowered);
            }
        }
        out
    }
}

/// The places of `leaf` in `base` that hold strings, with their values.
fn strings_at(base: &Json, leaf: &LeafPath) -> Vec<Place> {
    leaf.places(base)
        .into_iter()
        .filter_map(|place| match node_at(base, &place) {
            Some(value @ Json::String(_)) => Some((place.clone(), value.clone())),
            _ => None,
        })
        .collect()
}

/// A place of `places` other than `p` whose value is not `v`, the
/// `start`th first, in turn.
fn pick_other<'a>(
    places: &'a [Place],
    p: &[json_path::Step],
    v: &Json,
    start: usize,
) -> Option<&'a Place> {
    (0..places.len())
        .map(|offset| &places[(start + offset) % places.len()])
        .find(|(q, w)| q.as_slice() != p && w != v)
}

#[cfg(test)]
mod tests {
    use super::super::plan::plan;
    use super::*;
    use crate::features::Features;
    use crate::harness::runner::adapter::{BuiltIn, Implementation};
    use crate::js::json::parse;
    use crate::js::JsString;

    /// runner.differential.related: from a base where no query relates to
    /// an id, the cases hold a query equal to an id, one equal but for
    /// case, and an upper-cased id with its lower-cased query.
    #[test]
    fn relations_are_sent() {
        let mut a = BuiltIn(Features::RC8);
        let description = a.describe().expect("describe");
        let plan = plan(&description, &description, None);
        let planned = plan
            .ops
            .iter()
            .find(|planned| planned.op == "candidates/list")
            .expect("candidates/list");
        let base = parse(
            r#"{"agent":{"id":"me","cwd":"/w"},"sessions":[{"id":"Ab1","cwd":"/w","createdAt":1},{"id":"cd2","cwd":"/w","createdAt":2}],"query":"zz"}"#,
        )
        .expect("fixture");
        let bases = [base];
        let op_cases = OpCases {
            plan: &plan,
            planned,
            bases: &bases,
            seed: 1,
        };
        let written: Vec<String> = op_cases
            .related()
            .iter()
            .map(crate::js::json::to_ascii)
            .collect();
        let has = |id: &str, query: &str| {
            written.iter().any(|input| {
                input.contains(&format!(r#""id":"{id}""#))
                    && input.ends_with(&format!(r#""query":"{query}"}}"#))
            })
        };
        assert!(has("Ab1", "Ab1") || has("cd2", "cd2"), "{written:#?}");
        assert!(has("Ab1", "AB1") || has("cd2", "CD2"), "{written:#?}");
        assert!(has("AB1", "ab1") || has("CD2", "cd2"), "{written:#?}");
    }

    /// runner.differential.related: the other place is neither the first
    /// nor one holding its value.
    #[test]
    fn the_other_place_differs_in_place_and_value() {
        let base = parse(r#"{"a":["x","x","y"]}"#).expect("fixture");
        let leaf = LeafPath {
            steps: vec![
                crate::harness::runner::value_classes::LeafStep::Member("a"),
                crate::harness::runner::value_classes::LeafStep::Items,
            ],
            leaf: Leaf::String,
        };
        let places = strings_at(&base, &leaf);
        assert_eq!(places.len(), 3);
        let (p, v) = &places[0];
        for start in 0..3 {
            let (_, w) = pick_other(&places, p, v, start).expect("a place");
            assert_eq!(w, &Json::String(JsString::from("y")));
        }
        let same = parse(r#"{"a":["x","x"]}"#).expect("fixture");
        let places = strings_at(&same, &leaf);
        assert!(pick_other(&places, &places[0].0, &places[0].1, 0).is_none());
    }
}
