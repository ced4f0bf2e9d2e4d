//! Rule reach by execution (spec `runner.reach`): the reference's
//! reach points and the specification's rules are held to each other, and
//! every rule with a point is reached by a vector run on the reference.

use dsh_session_reference::harness::runner::rule_reach;
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::harness::spec::{self, REFERENCE_AREAS};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every `reach::point("id")` in the reference's sources (not the
/// harness, the fuzz properties or the recorder), with where it is.
fn points() -> BTreeMap<String, Vec<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    let mut points: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).expect("under src").to_owned();
        let outside = ["harness", "checks", "checks.rs", "reach.rs"];
        if outside.iter().any(|name| relative.starts_with(name)) {
            continue;
        }
        let text = fs::read_to_string(&file).expect("a source file");
        for (number, line) in text.lines().enumerate() {
            for piece in line.split("reach::point(\"").skip(1) {
                let id = piece.split('"').next().unwrap_or_default();
                let place = format!("{}:{}", relative.display(), number + 1);
                points.entry(id.to_owned()).or_default().push(place);
            }
        }
    }
    points
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// The rules of the reference's areas.
fn decidable_area_rules() -> BTreeSet<&'static str> {
    spec::rules()
        .values()
        .filter(|rule| REFERENCE_AREAS.contains(&rule.file.as_str()))
        .map(|rule| rule.id.as_str())
        .collect()
}

#[test]
fn every_point_is_a_rule_of_the_reference_areas() {
    // runner.reach
    let rules = decidable_area_rules();
    let strays: Vec<String> = points()
        .into_iter()
        .filter(|(id, _)| !rules.contains(id.as_str()))
        .map(|(id, places)| format!("{id} at {}", places.join(", ")))
        .collect();
    assert!(
        strays.is_empty(),
        "points naming no rule of the reference's areas:\n{}",
        strays.join("\n")
    );
}

#[test]
fn every_rule_of_the_reference_areas_has_a_point_or_is_decided_in_prose() {
    // runner.reach
    let points = points();
    let prose = spec::decided_in_prose();
    let rules = decidable_area_rules();
    let neither: Vec<&str> = rules
        .iter()
        .copied()
        .filter(|id| !points.contains_key(*id) && !prose.contains_key(id))
        .collect();
    let both: Vec<&str> = prose
        .keys()
        .copied()
        .filter(|id| points.contains_key(*id))
        .collect();
    let unknown: Vec<&str> = prose
        .keys()
        .copied()
        .filter(|id| !rules.contains(id))
        .collect();
    assert!(
        neither.is_empty() && both.is_empty() && unknown.is_empty(),
        "no point and not in prose: {neither:?}\nboth a point and in prose: {both:?}\n\
         in prose but no rule of the reference's areas: {unknown:?}"
    );
    for (id, reason) in &prose {
        assert!(
            !reason.is_empty(),
            "{id} is decided in prose without a reason"
        );
    }
}

#[test]
fn every_rule_with_a_point_is_reached_by_a_vector() {
    // runner.reach
    let suite = Suite::embedded().expect("the embedded suite");
    let reached = rule_reach::by_rule(suite.vectors().map(|(_, vector)| vector));
    let points = points();
    let unreached: Vec<String> = points
        .iter()
        .filter(|(id, _)| !reached.contains_key(id.as_str()))
        .map(|(id, places)| format!("{id} (point at {})", places.join(", ")))
        .collect();
    eprintln!(
        "reach: {} rules of the reference's areas, {} with a point, {} reached by vectors, {} decided in prose",
        decidable_area_rules().len(),
        points.len(),
        points.len() - unreached.len(),
        spec::decided_in_prose().len()
    );
    assert!(
        unreached.is_empty(),
        "rules no vector reaches:\n{}",
        unreached.join("\n")
    );
}
