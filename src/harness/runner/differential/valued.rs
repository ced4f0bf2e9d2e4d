//! Value-class cases (spec `runner.differential.valued`, ours): after the
//! drawn and ordered cases, before the cases aimed at rules, every value
//! class of every typed leaf of each op's input once, and the edges of its
//! numbers and letters.
//!
//! Hypothesis and Schemathesis draw each typed member's boundary values on
//! purpose; random draws reach a `null` where a number is read, a `-0`, a
//! C1 control, or the one budget at which a whole conversation just fits
//! only by luck. So, for each op both sides run alike, from the vector
//! inputs that hold a leaf's place (a base is picked by the run's seed):
//!
//! - **classes**: the base with the leaf at one place set to a
//!   representative of each of its classes ([`value_classes`]: `null`,
//!   `absent`, a number moved to `-0` or past 1e16, a string with a C1
//!   control inserted …);
//! - **number edges**: where the reference's answer changes as the number
//!   moves between 0 and its value (or between its value and twice it),
//!   found by bisection on the reference in process, both numbers of the
//!   edge: a budget at exactly the size of what it holds, a count at
//!   exactly its limit;
//! - **letter cases**: the string upper-cased and lower-cased as
//!   JavaScript does, from the base whose value holds the most letters
//!   beyond ASCII whose case changes (where other languages' case mappings
//!   and case-insensitive comparisons part ways);
//! - **other kinds**: beside a whitespace or control class's case, each
//!   other character of the class at the same place (a tab where a space
//!   passes);
//! - **syntax neighbours**: every ASCII punctuation character, a space, a
//!   tab and U+00A0 beside each kind of syntax edge of `mention/*` and
//!   `files/*` strings (before `@`, around a URI's payload run);
//! - **related values** ([`super::related`]);
//! - for `files/list`, the small scope of its ranking ([`super::ranking`]).
//!
//! Where a side does not declare `dynamic-inputs`, each case is made well
//! typed first, as every request of the run is ([`typed_within`]). They
//! do not count against `--cases`: they are the same list under every
//! seed but for the bases picked (about 3 700 over rc.8's ops with the
//! related values and the ranking scope, about three seconds). The ops
//! take turns, so that a run stopped by its time limit has sent some of
//! every op's.
//!
//! [`typed_within`]: super::requests::typed_within

use super::plan::{Plan, PlannedOp};
use super::ranking;
use crate::checks::same_json;
use crate::harness::runner::json_path::{self, node_at, rewritten};
use crate::harness::runner::value_classes::{
    confused_with, leaves, other_kinds, representative, syntax_edges, with_kind, Leaf, LeafPath,
    EDGE_CHARACTERS,
};
use crate::js::json::Json;
use crate::js::JsString;
use crate::protocol::wire::Outcome;
use crate::protocol::{dispatch, input_types};
use std::collections::BTreeMap;

/// The bases a class is tried on before the first is taken.
pub(super) const TRIES: usize = 4;

/// A place of a string leaf as letter cases score it: how many strings of
/// its request equal and hold its value, its letters beyond ASCII whose
/// case changes, the request, the value and the place.
type Scored<'a> = (
    (usize, usize),
    usize,
    &'a Json,
    JsString,
    Vec<json_path::Step>,
);

/// A syntax edge of a string leaf: the request, the leaf's place, its
/// value and the unit index of the edge.
type Edge<'a> = (&'a Json, Vec<json_path::Step>, JsString, usize);

/// The distinct values of a leaf in one base that letter cases score.
const SCORED: usize = 16;

/// The largest number an edge is looked for below: 2^53 − 1.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// The value-class cases of a run: each with its op's index in the plan.
pub(super) fn cases(
    plan: &Plan,
    seeds: &BTreeMap<&'static str, Vec<Json>>,
    seed: u64,
) -> Vec<(usize, Json)> {
    let per_op: Vec<Vec<(usize, Json)>> = plan
        .ops
        .iter()
        .enumerate()
        .filter(|(_, planned)| !planned.scope.is_mixed())
        .filter_map(|(at, planned)| {
            let bases = seeds.get(planned.op)?;
            let op_cases = OpCases {
                plan,
                planned,
                bases,
                seed,
            };
            Some(
                op_cases
                    .all()
                    .into_iter()
                    .map(|input| (at, input))
                    .collect(),
            )
        })
        .collect();
    taking_turns(per_op)
}

/// The lists merged one item of each in turn (a run stopped by its time
/// limit has sent some of every op's).
fn taking_turns(lists: Vec<Vec<(usize, Json)>>) -> Vec<(usize, Json)> {
    let mut iterators: Vec<_> = lists.into_iter().map(Vec::into_iter).collect();
    let mut out = Vec::new();
    loop {
        let before = out.len();
        for iterator in &mut iterators {
            out.extend(iterator.next());
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The value-class cases of one op.
pub(super) struct OpCases<'r> {
    pub(super) plan: &'r Plan,
    pub(super) planned: &'r PlannedOp,
    pub(super) bases: &'r [Json],
    pub(super) seed: u64,
}

impl OpCases<'_> {
    /// Every case of the op: classes, number edges and letter cases of
    /// each leaf, then its related values (`runner.differential.related`)
    /// and its ranking's small scope (`runner.differential.ranking`),
    /// without repeats.
    fn all(&self) -> Vec<Json> {
        let mut out: Vec<Json> = Vec::new();
        for (nth, leaf) in leaves(self.planned.op).iter().enumerate() {
            let holding: Vec<&Json> = self
                .bases
                .iter()
                .filter(|base| !leaf.places(base).is_empty())
                .collect();
            if holding.is_empty() {
                continue;
            }
            let mut found = self.classes(leaf, &holding, nth);
            match leaf.leaf {
                Leaf::Number => found.extend(self.number_edges(leaf, &holding, nth)),
                Leaf::String => {
                    found.extend(self.letter_cases(leaf, &holding));
                    found.extend(self.syntax_neighbours(leaf, &holding, nth));
                }
                Leaf::Boolean => {}
            }
            self.add_new(found, &mut out);
        }
        self.add_new(self.related(), &mut out);
        self.add_new(ranking::cases(self.planned.op), &mut out);
        out
    }

    /// `found`, each made as the run may send it, added to `out` where
    /// not already there.
    fn add_new(&self, found: Vec<Json>, out: &mut Vec<Json>) {
        for input in found {
            let input = self.typed(input);
            if !out.iter().any(|sent| same_json(sent, &input)) {
                out.push(input);
            }
        }
    }

    /// `input` as the run may send it: well typed unless both sides
    /// declare `dynamic-inputs`.
    fn typed(&self, input: Json) -> Json {
        if self.plan.reach.dynamic_inputs {
            input
        } else {
            input_types::well_typed(self.planned.op, input)
        }
    }

    /// A number from the run's seed, the op, the leaf and `salt`.
    pub(super) fn pick(&self, nth: usize, salt: usize, count: usize) -> usize {
        let mut x = self.seed
            ^ (nth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (salt as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9)
            ^ self.planned.op.len() as u64;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
        (x % count.max(1) as u64) as usize
    }

    /// One case per class of `leaf`, and one per other kind of the class
    /// ([`other_kinds`]: each whitespace and control character) at the
    /// same place: from the first of up to [`TRIES`]
    /// bases the seed picks, at one of its places, where the
    /// reference tells the class from each one ports confuse it with
    /// ([`confused_with`]; the base's own value when none): a class matters
    /// where the member is read, and where reading it wrong shows. Else
    /// from the first.
    fn classes(&self, leaf: &LeafPath, holding: &[&Json], nth: usize) -> Vec<Json> {
        let mut out = Vec::new();
        for (salt, class) in leaf.classes().into_iter().enumerate() {
            let mut chosen = None;
            for step in 0..TRIES.min(holding.len()) {
                // Neighbouring vectors are alike: each try is a pick of
                // its own.
                let base = holding[self.pick(nth, salt + 1000 * step, holding.len())];
                let places = leaf.places(base);
                let place = &places[self.pick(nth, salt + 100, places.len())];
                let old = node_at(base, place);
                let Some(value) = representative(self.planned.op, leaf.leaf, class, old) else {
                    continue;
                };
                let case = set(base.clone(), place, value);
                let others: Vec<Json> = match confused_with(class) {
                    [] => vec![base.clone()],
                    classes => classes
                        .iter()
                        .filter_map(|other| representative(self.planned.op, leaf.leaf, other, old))
                        .map(|value| set(base.clone(), place, value))
                        .collect(),
                };
                let answer = self.answer(&case);
                let told_apart = others.iter().all(|other| self.answer(other) != answer);
                let kinds = other_kinds(class).iter().map(|kind| {
                    let value = with_kind(self.planned.op, class, kind, old);
                    set(base.clone(), place, Some(value))
                });
                let found: Vec<Json> = std::iter::once(case).chain(kinds).collect();
                if told_apart {
                    chosen = Some(found);
                    break;
                }
                chosen.get_or_insert(found);
            }
            out.extend(chosen.into_iter().flatten());
        }
        out
    }

    /// Both numbers of each edge of the reference's answer around the
    /// leaf's value in a base picked by the seed, among those where it is
    /// a non-negative integer.
    fn number_edges(&self, leaf: &LeafPath, holding: &[&Json], nth: usize) -> Vec<Json> {
        let integral: Vec<(&Json, Vec<json_path::Step>, f64)> = holding
            .iter()
            .flat_map(|base| {
                leaf.places(base).into_iter().filter_map(|place| {
                    let Some(Json::Number(x)) = node_at(base, &place) else {
                        return None;
                    };
                    (x.fract() == 0.0 && (0.0..=MAX_SAFE).contains(x)).then_some((*base, place, *x))
                })
            })
            .collect();
        if integral.is_empty() {
            return Vec::new();
        }
        let (base, place, value) = &integral[self.pick(nth, 200, integral.len())];
        let at = |x: f64| set((*base).clone(), place, Some(Json::Number(x)));
        let answer = |x: f64| self.answer(&at(x));
        let mut out = Vec::new();
        for (low, high) in [(0.0, *value), (*value, (2.0 * value + 1.0).min(MAX_SAFE))] {
            if let Some((below, above)) = edge(low, high, &answer) {
                out.extend([at(below), at(above)]);
            }
        }
        out
    }

    /// The reference's answer to the op with `input`, under the behaviours
    /// both sides have: an output, or an error's code.
    pub(super) fn answer(&self, input: &Json) -> Result<Json, String> {
        match dispatch::handle_in(self.planned.scope.both, self.planned.op, input) {
            Outcome::Output(output) => Ok(output),
            Outcome::Error { code, .. } => Err(code),
        }
    }

    /// Letter cases of `leaf`'s value, upper-cased and lower-cased as
    /// JavaScript does, at two places among the bases: where a case
    /// matters most to a comparison (a value that other strings of the
    /// request equal, as ids are compared with ids, then one that others
    /// hold, as a query is held in paths), and where it matters most to a
    /// case mapping (the most letters beyond ASCII whose case changes).
    fn letter_cases(&self, leaf: &LeafPath, holding: &[&Json]) -> Vec<Json> {
        let scored: Vec<Scored<'_>> = holding
            .iter()
            .flat_map(|base| {
                let mut seen: Vec<JsString> = Vec::new();
                leaf.places(base)
                    .into_iter()
                    .filter_map(move |place| match node_at(base, &place) {
                        Some(Json::String(text))
                            if seen.len() < SCORED
                                && !seen.contains(text)
                                && (upper(text) != *text || lower(text) != *text) =>
                        {
                            seen.push(text.clone());
                            let compared = occurrences(base, text);
                            let mapped = cased_beyond_ascii(text);
                            Some((compared, mapped, *base, text.clone(), place))
                        }
                        _ => None,
                    })
            })
            .collect();
        let by_comparison = scored
            .iter()
            .max_by_key(|(compared, mapped, ..)| (*compared, *mapped));
        let by_mapping = scored
            .iter()
            .max_by_key(|(compared, mapped, ..)| (*mapped, *compared));
        by_comparison
            .into_iter()
            .chain(by_mapping)
            .flat_map(|(_, _, base, text, place)| {
                [upper(text), lower(text)]
                    .into_iter()
                    .filter(move |changed| changed != text)
                    .map(move |changed| set((*base).clone(), place, Some(Json::String(changed))))
            })
            .collect()
    }

    /// Each of [`EDGE_CHARACTERS`] inserted at each kind of syntax edge of
    /// the leaf's values ([`syntax_edges`]: before a mention's or a token's
    /// `@`, after an explicit or a bare URI's payload run), at a place the
    /// seed picks among those with an edge of that kind, where the
    /// reference tells the case from the base: what a grammar lets stand
    /// beside its syntax is where ports' patterns part (`[^\\s)]` spelled
    /// `[^ )]`, a padding `=` in a payload run, a token after `(`).
    fn syntax_neighbours(&self, leaf: &LeafPath, holding: &[&Json], nth: usize) -> Vec<Json> {
        let mut by_kind: BTreeMap<&'static str, Vec<Edge<'_>>> = BTreeMap::new();
        for base in holding {
            for place in leaf.places(base) {
                let Some(Json::String(text)) = node_at(base, &place) else {
                    continue;
                };
                for (kind, at) in syntax_edges(self.planned.op, text.units()) {
                    by_kind
                        .entry(kind)
                        .or_default()
                        .push((*base, place.clone(), text.clone(), at));
                }
            }
        }
        let mut out = Vec::new();
        for (salt, edges) in by_kind.values().enumerate() {
            let (base, place, text, at) = &edges[self.pick(nth, 300 + salt, edges.len())];
            let untouched = self.answer(base);
            for character in EDGE_CHARACTERS.encode_utf16() {
                let mut units = text.units().to_vec();
                units.insert(*at, character);
                let case = set(
                    (*base).clone(),
                    place,
                    Some(Json::String(JsString::from_units(units))),
                );
                if self.answer(&case) != untouched {
                    out.push(case);
                }
            }
        }
        out
    }
}

/// How many strings (values and member names) of `input` equal `text`,
/// and how many hold it, itself included.
fn occurrences(input: &Json, text: &JsString) -> (usize, usize) {
    let mut found = (0, 0);
    let mut count = |candidate: &JsString| {
        found.0 += usize::from(candidate == text);
        found.1 += usize::from(
            !text.units().is_empty()
                && candidate
                    .units()
                    .windows(text.units().len())
                    .any(|window| window == text.units()),
        );
    };
    let mut stack = vec![input];
    while let Some(node) = stack.pop() {
        match node {
            Json::String(candidate) => count(candidate),
            Json::Array(items) => stack.extend(items),
            Json::Object(members) => {
                for (key, value) in members {
                    count(key);
                    stack.push(value);
                }
            }
            _ => {}
        }
    }
    found
}

/// `input` with the node at `place` set to `value` (`None` removes it; a
/// member not there is added).
pub(super) fn set(input: Json, place: &[json_path::Step], value: Option<Json>) -> Json {
    let Some((json_path::Step::Member(name), parent)) = place.split_last() else {
        return rewritten(input, place, &|_| value.clone());
    };
    if node_at(&input, place).is_some() {
        return rewritten(input, place, &|_| value.clone());
    }
    let Some(value) = value else {
        return input;
    };
    rewritten(input, parent, &|node| match node {
        Json::Object(mut members) => {
            members.push((name.clone(), value.clone()));
            Some(Json::Object(members))
        }
        other => Some(other),
    })
}

/// Two integers a step apart between `low` and `high` where `answer`
/// changes, when it differs at the ends: bisection keeps one end answering
/// as `high` does and the other not.
fn edge(low: f64, high: f64, answer: &dyn Fn(f64) -> Result<Json, String>) -> Option<(f64, f64)> {
    let at_high = answer(high);
    if low >= high || answer(low) == at_high {
        return None;
    }
    let (mut low, mut high) = (low, high);
    while high - low > 1.0 {
        let middle = (low + (high - low) / 2.0).floor();
        if answer(middle) == at_high {
            high = middle;
        } else {
            low = middle;
        }
    }
    Some((low, high))
}

/// Letters beyond ASCII whose case JavaScript changes.
fn cased_beyond_ascii(text: &JsString) -> usize {
    char::decode_utf16(text.units().iter().copied())
        .filter_map(Result::ok)
        .filter(|c| !c.is_ascii() && (c.is_lowercase() || c.is_uppercase()))
        .count()
}

/// `s.toUpperCase()`: full Unicode mappings, lone surrogates kept.
pub(super) fn upper(text: &JsString) -> JsString {
    let mut out = Vec::with_capacity(text.units().len());
    for decoded in char::decode_utf16(text.units().iter().copied()) {
        match decoded {
            Ok(c) => out.extend(c.to_uppercase().collect::<String>().encode_utf16()),
            Err(lone) => out.push(lone.unpaired_surrogate()),
        }
    }
    JsString::from_units(out)
}

/// `s.toLowerCase()`.
pub(super) fn lower(text: &JsString) -> JsString {
    JsString::from_units(crate::js::case::to_lower(text.units()))
}

#[cfg(test)]
mod tests {
    use super::super::{corpus, plan::plan};
    use super::*;
    use crate::features::Features;
    use crate::harness::runner::adapter::{BuiltIn, Implementation};
    use crate::harness::runner::value_classes::classify_at;
    use crate::harness::runner::vectors::Suite;
    use crate::js::json::parse;
    use std::collections::BTreeSet;

    /// runner.differential.valued: a run of the reference against itself
    /// sends every class of every typed leaf that some vector input holds
    /// a place for, whatever the seed.
    #[test]
    fn every_class_of_every_leaf_with_a_base_is_sent() {
        let mut a = BuiltIn(Features::RC8);
        let description = a.describe().expect("describe");
        let plan = plan(&description, &description, None);
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/vectors");
        let suite = Suite::load(&dir).expect("the suite");
        let seeds = corpus::seeds(&plan, &description, &description, &suite);
        for seed in [1, 2] {
            let sent = cases(&plan, &seeds, seed);
            for (op, bases) in &seeds {
                for leaf in leaves(op) {
                    if bases.iter().all(|base| leaf.places(base).is_empty()) {
                        continue;
                    }
                    let mut found = BTreeSet::new();
                    for (_, input) in sent.iter().filter(|(at, _)| plan.ops[*at].op == *op) {
                        classify_at(op, input, &leaf.steps, leaf.leaf, &mut found);
                    }
                    for class in leaf.classes() {
                        assert!(
                            found.contains(class),
                            "seed {seed}: {op} {} {class}",
                            leaf.written()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn an_edge_is_two_integers_a_step_apart_where_the_answer_changes() {
        let answer = |x: f64| -> Result<Json, String> {
            if x >= 37.0 {
                Ok(Json::Null)
            } else {
                Err("small".to_owned())
            }
        };
        assert_eq!(edge(0.0, 1000.0, &answer), Some((36.0, 37.0)));
        assert_eq!(edge(40.0, 1000.0, &answer), None);
    }

    #[test]
    fn set_replaces_removes_or_adds_a_member() {
        let input = parse(r#"{"a":{"b":1}}"#).expect("fixture");
        let b = [
            json_path::Step::Member(JsString::from("a")),
            json_path::Step::Member(JsString::from("b")),
        ];
        let c = [
            json_path::Step::Member(JsString::from("a")),
            json_path::Step::Member(JsString::from("c")),
        ];
        let written = |json: Json| crate::js::json::to_ascii(&json);
        assert_eq!(
            written(set(input.clone(), &b, Some(Json::Null))),
            r#"{"a":{"b":null}}"#
        );
        assert_eq!(written(set(input.clone(), &b, None)), r#"{"a":{}}"#);
        assert_eq!(
            written(set(input, &c, Some(Json::Bool(true)))),
            r#"{"a":{"b":1,"c":true}}"#
        );
    }

    #[test]
    fn letter_cases_follow_javascript() {
        let text = JsString::from_units(vec![0x61, 0xDF, 0xD800, 0x130]);
        assert_eq!(upper(&text).units(), [0x41, 0x53, 0x53, 0xD800, 0x130]);
        assert_eq!(cased_beyond_ascii(&JsString::from("aÉß")), 2);
    }
}
