//! Checks on the suite itself: the spec's rule ids and the vectors' citations
//! match, vector files are well-formed and canonical, and no two vectors ask
//! the same question.

use dsh_session_reference::harness::runner::vectors::{required_capabilities, Expect, Suite};
use dsh_session_reference::harness::spec;
use dsh_session_reference::js::json;
use dsh_session_reference::js::json::Json;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn suite() -> Suite {
    Suite::load(&root().join("conformance/vectors")).unwrap_or_else(|error| panic!("{error}"))
}

/// Every `r[id]` line of `spec/*.md`, with the file it is in, read from the
/// source tree by the harness's own rule parser.
fn spec_rules() -> BTreeMap<String, PathBuf> {
    let mut rules = BTreeMap::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root().join("spec"))
        .expect("spec/ exists")
        .map(|entry| entry.expect("readable").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("readable");
        for rule in spec::parse(&path.display().to_string(), &text) {
            assert!(!rule.text.is_empty(), "rule {} has no text", rule.id);
            let previous = rules.insert(rule.id.clone(), path.clone());
            assert!(previous.is_none(), "rule {} is defined twice", rule.id);
        }
    }
    rules
}

/// The embedded specification is the one in the source tree.
#[test]
fn embedded_spec_matches_the_source_tree() {
    let embedded: Vec<&String> = spec::rules().keys().collect();
    let on_disk = spec_rules();
    let on_disk: Vec<&String> = on_disk.keys().collect();
    assert_eq!(embedded, on_disk);
}

/// Every vector requires exactly the capabilities its content needs: a lone
/// surrogate in its input or expected outcome means `lone-surrogates`, a
/// snapshot without `capturedThroughSeq` means `optional-seq`, and nothing
/// else requires anything (spec `protocol.capabilities`).
#[test]
fn requires_is_derived_from_each_vectors_content() {
    let mut tagged: BTreeMap<String, usize> = BTreeMap::new();
    for (_, vector) in suite().vectors() {
        let expect = match &vector.expect {
            Expect::Output(output) => output.clone(),
            Expect::Error(_) => Json::Null,
        };
        let needed = required_capabilities(&vector.op, &vector.input, &expect);
        assert_eq!(
            vector.requires, needed,
            "{}: requires {:?}, its content needs {:?} (run regen)",
            vector.id, vector.requires, needed
        );
        for capability in needed {
            *tagged.entry(capability).or_default() += 1;
        }
    }
    let count = |capability: &str| tagged.get(capability).copied().unwrap_or(0);
    assert!(count("lone-surrogates") > 40, "{tagged:?}");
    assert!(count("optional-seq") >= 6, "{tagged:?}");
}

/// Every rule is cited by a vector and every cited rule exists; prints the
/// rule → vector-count matrix (`cargo test spec_coverage -- --nocapture`).
#[test]
fn spec_coverage() {
    let rules = spec_rules();
    assert!(rules.len() > 30, "only {} rules found", rules.len());
    let mut cited: BTreeMap<&str, usize> = BTreeMap::new();
    let suite = suite();
    for (_, vector) in suite.vectors() {
        for rule in &vector.rules {
            assert!(
                rules.contains_key(rule),
                "vector {} cites unknown rule {rule}",
                vector.id
            );
            *cited.entry(rule).or_default() += 1;
        }
    }
    let mut uncovered = Vec::new();
    let tests = runner_rule_citations();
    for (id, file) in &rules {
        let count = if id.starts_with("runner.") {
            // Rules about the tool itself are cited by the tests that check
            // them (spec/conformance.md, "The runner").
            tests.iter().filter(|text| cites(text, id)).count()
        } else {
            cited.get(id.as_str()).copied().unwrap_or(0)
        };
        println!("{id:45} {count:4} vectors ({})", file.display());
        if count == 0 {
            uncovered.push(id.as_str());
        }
    }
    assert!(uncovered.is_empty(), "rules without vectors: {uncovered:?}");
}

/// The text of every test file and runner source file.
fn runner_rule_citations() -> Vec<String> {
    let mut texts = Vec::new();
    for dir in ["tests", "src/harness/runner"] {
        for entry in std::fs::read_dir(root().join(dir)).expect("directory exists") {
            let path = entry.expect("readable").path();
            if path.extension().is_some_and(|ext| ext == "rs") {
                texts.push(std::fs::read_to_string(&path).expect("readable"));
            }
        }
    }
    texts
}

/// `text` names the rule `id` as a whole word (`a.b` is not cited by `a.bc`).
fn cites(text: &str, id: &str) -> bool {
    text.match_indices(id).any(|(at, _)| {
        !text[at + id.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_')
    })
}

/// Every vector file, read and written again, comes back byte for byte:
/// numbers included (-0 keeps its sign, every double its shortest
/// round-trip spelling; the writer's unit tests cover the spellings), and
/// the negative-zero vector really sends -0.
#[test]
fn vector_files_are_canonical() {
    let suite = suite();
    let (_, negative_zero) = suite
        .find("json.parse-semantics.negative-zero")
        .expect("the negative-zero vector exists");
    let Json::Array(items) = negative_zero.input.get("value").expect("a value") else {
        panic!("json.parse-semantics.negative-zero sends an array");
    };
    assert!(
        items
            .iter()
            .any(|item| matches!(item, Json::Number(n) if *n == 0.0 && n.is_sign_negative())),
        "json.parse-semantics.negative-zero must send -0"
    );
    for file in &suite.files {
        let text = std::fs::read_to_string(&file.path).expect("readable");
        assert_eq!(
            text,
            file.rewritten(&|_| None),
            "{} is not in canonical form: run `cargo run -- regen` or reformat",
            file.path.display()
        );
    }
}

#[test]
fn no_two_vectors_ask_the_same_question() {
    let mut seen: HashMap<String, String> = HashMap::new();
    for (_, vector) in suite().vectors() {
        let key = format!("{} {}", vector.op, json::to_wire(&vector.input));
        if let Some(first) = seen.insert(key, vector.id.clone()) {
            panic!("{} repeats the input of {first}", vector.id);
        }
    }
}

#[test]
fn descriptions_are_short_statements() {
    for (_, vector) in suite().vectors() {
        let description = vector.description.to_lowercase();
        assert!(
            description.len() <= 100,
            "{}: description too long",
            vector.id
        );
        assert!(
            !description.contains("should") && !description.contains("test that"),
            "{}: describe the behaviour, not the test",
            vector.id
        );
    }
}

#[test]
fn ids_start_with_their_area() {
    for (file, vector) in suite().vectors() {
        let area = file
            .path
            .parent()
            .and_then(Path::file_name)
            .and_then(|name| name.to_str())
            .expect("vectors live in conformance/vectors/<area>/");
        assert!(
            vector.id.starts_with(&format!("{area}.")),
            "{} is not in {area}/",
            vector.id
        );
    }
}

#[test]
fn wire_group_runs_first() {
    let suite = suite();
    let first = suite.files.first().expect("at least one file");
    assert!(
        first.path.to_string_lossy().contains("/wire/"),
        "first file is {}",
        first.path.display()
    );
    let ops: Vec<&str> = suite.files[0]
        .vectors
        .iter()
        .map(|v| v.op.as_str())
        .collect();
    assert!(ops.contains(&"mention/parse") && ops.contains(&"json/tag-safe"));
}

#[test]
fn enough_vectors_per_foundation_area() {
    let suite = suite();
    let count = |prefix: &str| {
        suite
            .vectors()
            .filter(|(_, v)| v.id.starts_with(prefix))
            .count()
    };
    let foundation = count("uri.") + count("mention.") + count("json.");
    assert!(
        foundation >= 150,
        "only {foundation} uri/mention/json vectors"
    );
    assert!(count("wire.") >= 10);
}

/// A `candidates-v2` vector keeps to what upstream documents (spec
/// `candidates.v2.match`): with a non-empty query it lists at most one
/// candidate, found by substring, and no other session of its listing
/// holds the query even as a subsequence of its label or display title, so
/// that any fuzzy matcher (the newer upstream build's substring match
/// included) answers alike. Ranking and fuzzy-only matches are
/// `candidates-fuzzy`'s.
#[test]
fn candidates_v2_vectors_with_a_query_list_at_most_one_candidate() {
    use dsh_session_reference::js::case::to_lower;
    let text = |value: Option<&Json>| value.and_then(Json::as_js_str).map(|s| to_lower(s.units()));
    let mut checked = 0;
    for (_, vector) in suite().vectors() {
        let candidates_op = vector.op == "candidates/list" || vector.op == "candidates/remote";
        if !candidates_op || !vector.features.iter().any(|f| f == "candidates-v2") {
            continue;
        }
        let Some(query) = text(vector.input.get("query")).filter(|q| !q.is_empty()) else {
            continue;
        };
        let Expect::Output(Json::Array(listed)) = &vector.expect else {
            continue;
        };
        assert!(
            listed.len() <= 1,
            "{}: a candidates-v2 vector with a non-empty query lists {} candidates (ranking is candidates-fuzzy's)",
            vector.id,
            listed.len()
        );
        let contains = |field: &[u16]| field.windows(query.len()).any(|w| w == query.as_slice());
        let in_order = |field: &[u16]| {
            let mut rest = field.iter();
            query.iter().all(|unit| rest.any(|other| other == unit))
        };
        let agent = vector.input.get("agent").and_then(|agent| agent.get("id"));
        let listed_id = listed
            .first()
            .and_then(|candidate| candidate.get("sessionId"));
        for session in vector
            .input
            .get("sessions")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            let id = session.get("id");
            if id == agent {
                continue;
            }
            let id_text = text(id).unwrap_or_default();
            let label = text(session.get("title")).unwrap_or_else(|| id_text.clone());
            let display = text(session.get("subagentLabel")).unwrap_or_else(|| label.clone());
            let cwd = text(session.get("cwd"));
            let by_substring = [Some(&id_text), Some(&label), Some(&display), cwd.as_ref()]
                .into_iter()
                .flatten()
                .any(|field| contains(field));
            if id.is_some() && id == listed_id {
                assert!(
                    by_substring,
                    "{}: the listed candidate is no substring match",
                    vector.id
                );
            } else {
                assert!(
                    !by_substring && !in_order(&label) && !in_order(&display),
                    "{}: session {:?} matches the query, at least fuzzily (candidates-fuzzy)",
                    vector.id,
                    id
                );
            }
        }
        checked += 1;
    }
    assert!(
        checked >= 10,
        "only {checked} candidates-v2 vectors with a query"
    );
}

/// The features of our own decisions stand alone: a vector of
/// `candidates-fuzzy` or `config-fraction-type` holds only where the
/// specification's own rules are followed, so it lists no feature that an
/// upstream build declares (spec `protocol.features`).
#[test]
fn features_of_our_decisions_stand_alone() {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, vector) in suite().vectors() {
        for ours in ["candidates-fuzzy", "config-fraction-type"] {
            if vector.features.iter().any(|f| f == ours) {
                assert_eq!(vector.features, [ours], "{}", vector.id);
                *counts.entry(ours).or_default() += 1;
            }
        }
    }
    assert!(
        counts.get("candidates-fuzzy").copied().unwrap_or(0) >= 30,
        "{counts:?}"
    );
    assert!(
        counts.get("config-fraction-type").copied().unwrap_or(0) >= 2,
        "{counts:?}"
    );
}
