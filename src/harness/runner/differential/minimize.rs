//! Shrinking by removal (spec `runner.differential.classes`): after the
//! generator's own shrinking, a disagreement's request is made smaller by
//! removing parts of its JSON (array items: events, messages, blocks,
//! candidates; object members: sessions; runs of characters of strings)
//! as long as the disagreement keeps its class, until no single removal
//! keeps it or the probe budget is spent.
//!
//! Removals are tried in chunks that halve (half of an array, then
//! quarters, … then one item), so that a long text or a long event list
//! goes in a few probes, and the last pass tries every single removal.

use crate::js::json::Json;
use crate::js::JsString;

/// The result of [`minimize`].
#[derive(Debug)]
pub struct Minimized {
    /// The smallest input found that keeps the class.
    pub input: Json,
    /// Removals kept.
    pub steps: usize,
    /// Probes made.
    pub probes: usize,
    /// Whether the last pass tried every single removal and none kept the
    /// class (the input is 1-minimal).
    pub minimal: bool,
}

/// Removes parts of `input` while `keeps` says the smaller input still
/// shows the same disagreement, at most `budget` probes.
pub fn minimize(input: Json, budget: usize, mut keeps: impl FnMut(&Json) -> bool) -> Minimized {
    let mut current = input;
    let mut steps = 0;
    let mut probes = 0;
    loop {
        let mut progress = false;
        let mut site = 0;
        while let Some(path) = sites(&current).into_iter().nth(site) {
            let Some(length) = at(&current, &path).map(parts) else {
                break;
            };
            let mut chunk = length.next_power_of_two() / 2;
            if chunk == 0 {
                chunk = 1;
            }
            while chunk >= 1 {
                let mut start = 0;
                loop {
                    let length = at(&current, &path).map_or(0, parts);
                    if start >= length {
                        break;
                    }
                    if probes >= budget {
                        return Minimized {
                            input: current,
                            steps,
                            probes,
                            minimal: false,
                        };
                    }
                    let end = (start + chunk).min(length);
                    let mut candidate = current.clone();
                    if let Some(node) = at_mut(&mut candidate, &path) {
                        remove(node, start, end);
                    }
                    probes += 1;
                    if keeps(&candidate) {
                        current = candidate;
                        steps += 1;
                        progress = true;
                    } else {
                        start = end;
                    }
                }
                chunk /= 2;
            }
            site += 1;
        }
        if !progress {
            return Minimized {
                input: current,
                steps,
                probes,
                minimal: true,
            };
        }
    }
}

/// The number of removable parts of a node: items, members, or code
/// points (a surrogate pair is one).
fn parts(node: &Json) -> usize {
    match node {
        Json::Array(items) => items.len(),
        Json::Object(members) => members.len(),
        Json::String(text) => code_points(text.units()).len(),
        _ => 0,
    }
}

/// The start of each code point of `units`.
fn code_points(units: &[u16]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(units.len());
    let mut at = 0;
    while at < units.len() {
        starts.push(at);
        let pair = (0xD800..0xDC00).contains(&units[at])
            && units
                .get(at + 1)
                .is_some_and(|next| (0xDC00..0xE000).contains(next));
        at += if pair { 2 } else { 1 };
    }
    starts
}

/// Removes parts `start..end` of `node`.
fn remove(node: &mut Json, start: usize, end: usize) {
    match node {
        Json::Array(items) => {
            items.drain(start..end);
        }
        Json::Object(members) => {
            members.drain(start..end);
        }
        Json::String(text) => {
            let units = text.units();
            let starts = code_points(units);
            let from = starts[start];
            let to = starts.get(end).copied().unwrap_or(units.len());
            let mut kept = units[..from].to_vec();
            kept.extend_from_slice(&units[to..]);
            *text = JsString::from_units(kept);
        }
        _ => {}
    }
}

/// The paths (child positions) of every non-empty array, object and
/// string, outermost first.
fn sites(value: &Json) -> Vec<Vec<usize>> {
    fn walk(value: &Json, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if parts(value) > 0 {
            out.push(path.clone());
        }
        let children: Vec<&Json> = match value {
            Json::Array(items) => items.iter().collect(),
            Json::Object(members) => members.iter().map(|(_, member)| member).collect(),
            _ => Vec::new(),
        };
        for (position, child) in children.into_iter().enumerate() {
            path.push(position);
            walk(child, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

fn at<'a>(value: &'a Json, path: &[usize]) -> Option<&'a Json> {
    path.iter().try_fold(value, |node, &position| match node {
        Json::Array(items) => items.get(position),
        Json::Object(members) => members.get(position).map(|(_, member)| member),
        _ => None,
    })
}

fn at_mut<'a>(value: &'a mut Json, path: &[usize]) -> Option<&'a mut Json> {
    path.iter().try_fold(value, |node, &position| match node {
        Json::Array(items) => items.get_mut(position),
        Json::Object(members) => members.get_mut(position).map(|(_, member)| member),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json;

    /// runner.differential.classes: the result keeps the class and no
    /// single removal does.
    #[test]
    fn removal_stops_when_no_single_removal_keeps_the_class() {
        let input = json::parse(
            r#"{"events":[{"text":"hello world"},{"text":"a  b"},{"text":"zzz"}],"sessions":{"s1":1,"s2":2}}"#,
        )
        .unwrap();
        // The "class": some text holds two spaces in a row and there is a
        // session s2.
        let keeps = |value: &Json| {
            let text = json::stringify(value);
            text.contains("  ") && text.contains("\"s2\"")
        };
        let result = minimize(input, 10_000, keeps);
        assert!(result.minimal);
        assert_eq!(
            json::stringify(&result.input),
            r#"{"events":[{"text":"  "}],"sessions":{"s2":2}}"#
        );
        for path in sites(&result.input) {
            for position in 0..at(&result.input, &path).map_or(0, parts) {
                let mut smaller = result.input.clone();
                remove(at_mut(&mut smaller, &path).unwrap(), position, position + 1);
                assert!(!keeps(&smaller), "{}", json::stringify(&smaller));
            }
        }
    }

    #[test]
    fn a_spent_budget_stops_with_what_was_found() {
        let input = json::parse(r#"["aaaaaaaa","b"]"#).unwrap();
        let result = minimize(input, 2, |_| false);
        assert_eq!((result.probes, result.minimal), (2, false));
        let pair = Json::String(JsString::from_units(vec![0xD83D, 0xDE00, 0x61]));
        let result = minimize(pair, 100, |value| parts(value) >= 1);
        assert_eq!(parts(&result.input), 1);
        assert!(!result.input.has_lone_surrogate());
    }
}
