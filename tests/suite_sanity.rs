//! Checks on the suite itself: the spec's rule ids and the vectors' citations
//! match, vector files are well-formed and canonical, and no two vectors ask
//! the same question.

use dsh_session_reference::checks::{known_op, known_op_count};
use dsh_session_reference::harness::runner::vectors::{
    required_capabilities, Expect, Suite, Vector,
};
use dsh_session_reference::harness::spec;
use dsh_session_reference::js::json;
use dsh_session_reference::js::json::Json;
use dsh_session_reference::protocol::input_types::{
    first_ill_typed, input_members, Member, Otherwise, Type,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
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
/// snapshot without `capturedThroughSeq` means `optional-seq`, a failing
/// model lookup `model-lookup-errors`, a staged `cancel` `staged-cancel`,
/// `keepIds` `message-ids`, an ill-typed input member `dynamic-inputs`
/// (`protocol.input-types`), and nothing else requires anything (spec
/// `protocol.capabilities`).
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
    assert!(count("dynamic-inputs") >= 60, "{tagged:?}");
    for capability in ["model-lookup-errors", "staged-cancel", "message-ids"] {
        assert!(count(capability) >= 2, "{capability}: {tagged:?}");
    }
}

/// The typed members of an op whose ill-typed value upstream answers with a
/// code, each as `(path, code)`; a path writes an array's item or a map's
/// entry as `[]`, as [`normalized`] writes the path of an ill-typed member.
fn coded_members(members: &[Member], prefix: &str, found: &mut BTreeSet<(String, String)>) {
    for member in members {
        let path = format!("{prefix}{}", member.name);
        coded_type(member.ty, member.otherwise, &path, found);
    }
}

fn coded_type(ty: Type, otherwise: Otherwise, path: &str, found: &mut BTreeSet<(String, String)>) {
    if let Otherwise::Code(code) = otherwise {
        found.insert((path.to_owned(), code.to_owned()));
    }
    match ty {
        Type::Object(members) | Type::BooleanOrObject(members) => {
            coded_members(members, &format!("{path}."), found)
        }
        Type::Array(Type::Any) => {}
        Type::Array(item) => coded_type(*item, otherwise, &format!("{path}[]"), found),
        Type::Map(entry, entry_otherwise) => {
            coded_type(*entry, entry_otherwise, &format!("{path}[]"), found)
        }
        Type::String | Type::Number | Type::Boolean | Type::Any => {}
    }
}

/// `references[2].label` as `references[].label`.
fn normalized(path: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '[' => {
                if depth == 0 {
                    out.push_str("[]");
                }
                depth += 1;
            }
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Every typed member whose ill-typed value upstream answers with a code
/// has a vector of its op in which it is the first ill-typed member and
/// the expected error is that code: the table of `protocol.input-types` is
/// the oracles' behaviour, not a guess (the vectors' outcomes come from
/// the oracles).
#[test]
fn every_coded_input_type_is_shown_by_a_vector() {
    let suite = suite();
    let mut shown: BTreeSet<(String, String, String)> = BTreeSet::new();
    for (_, vector) in suite.vectors() {
        if let (Some(found), Expect::Error(code)) =
            (first_ill_typed(&vector.op, &vector.input), &vector.expect)
        {
            shown.insert((vector.op.clone(), normalized(&found.path), code.clone()));
        }
    }
    let mut missing = Vec::new();

    for op in (0..known_op_count()).filter_map(known_op) {
        let mut coded = BTreeSet::new();
        coded_members(input_members(op).expect("a known op"), "", &mut coded);
        for (path, code) in coded {
            // A configuration's members are one shape, shown once.
            let shared_config =
                path.starts_with("config.") && op != "config/check" && op != "files/list";
            // So are the snapshot members of `prepare`'s and `pre-step`'s sessions (`retain`'s snapshot).
            let shared_snapshot = path.starts_with("sessions[].");
            let shown_here = shown.contains(&(op.to_owned(), path.clone(), code.clone()));
            let entry = format!("{op} {path} {code}");
            if !shown_here && !shared_config && !shared_snapshot {
                missing.push(entry);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "no vector shows these coded input types:\n{}",
        missing.join("\n")
    );
}

/// Each vector's id with the rules it cites, cost vectors included.
fn citations(suite: &Suite) -> impl Iterator<Item = (&str, &[String])> {
    suite
        .vectors()
        .map(|(_, vector)| (vector.id.as_str(), vector.rules.as_slice()))
        .chain(
            suite
                .cost_vectors()
                .map(|(_, vector)| (vector.id.as_str(), vector.rules.as_slice())),
        )
}

/// Every rule is cited by a vector and every cited rule exists; prints the
/// rule → vector-count matrix (`cargo test spec_coverage -- --nocapture`).
#[test]
fn spec_coverage() {
    let rules = spec_rules();
    assert!(rules.len() > 30, "only {} rules found", rules.len());
    let mut cited: BTreeMap<&str, usize> = BTreeMap::new();
    let suite = suite();
    for (id, cited_rules) in citations(&suite) {
        for rule in cited_rules {
            assert!(
                rules.contains_key(rule),
                "vector {id} cites unknown rule {rule}"
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
        if count < 2 {
            uncovered.push(id.as_str());
        }
    }
    assert!(
        uncovered.is_empty(),
        "rules cited by fewer than two vectors: {uncovered:?}"
    );
}

/// The string members of each op's input (spec adapter-protocol.md), as
/// paths: `a.b` a member, `a[]` every item of an array, `a.*` every member
/// of an object; `text:label` is the label of the first explicit mention
/// in `text` (between `@[` and `](`). Each needs edge vectors (spec
/// `conformance.depth`).
const STRING_FIELDS: &[(&str, &str)] = &[
    ("uri/encode", "sessionId"),
    ("uri/decode", "uri"),
    ("mention/format", "sessionId"),
    ("mention/format", "label"),
    ("mention/parse", "text"),
    ("mention/parse", "text:label"),
    ("json/tag-safe", "value"),
    ("retain", "label"),
    ("retain", "snapshot.session.id"),
    ("retain", "snapshot.session.cwd"),
    ("retain", "snapshot.events[].data.content[].text"),
    ("retain", "snapshot.events[].data.message.content[].text"),
    ("retain", "snapshot.events[].data.source.kind"),
    ("retain", "snapshot.events[].data.content[].type"),
    ("retain", "snapshot.events[].type"),
    ("prepare", "agent.id"),
    ("prepare", "agent.cwd"),
    ("prepare", "content[].text"),
    ("prepare", "references[].sessionId"),
    ("prepare", "references[].label"),
    ("prepare", "sessions.*.session.cwd"),
    ("prepare", "sessions.*.events[].data.content[].text"),
    ("prepare", "sessions.*.events[].data.message.content[].text"),
    ("prepare", "sessions.*.readError"),
    ("prepare", "content[].type"),
    ("prepare", "sessions.*.session.id"),
    ("prepare", "sessions.*.events[].data.source.kind"),
    ("prepare", "sessions.*.events[].data.content[].type"),
    ("prepare", "sessions.*.events[].type"),
    ("prepare", "agent.route.provider"),
    ("prepare", "agent.route.model"),
    ("prepare", "models.*.lookupError"),
    ("pre-step", "agent.id"),
    ("pre-step", "agent.cwd"),
    ("pre-step", "messages[].content[].text"),
    ("pre-step", "sessions.*.session.cwd"),
    ("pre-step", "sessions.*.events[].data.content[].text"),
    (
        "pre-step",
        "sessions.*.events[].data.message.content[].text",
    ),
    ("pre-step", "sessions.*.readError"),
    ("pre-step", "messages[].content[].type"),
    ("pre-step", "messages[].source.kind"),
    ("pre-step", "sessions.*.session.id"),
    ("pre-step", "sessions.*.events[].data.source.kind"),
    ("pre-step", "sessions.*.events[].data.content[].type"),
    ("pre-step", "sessions.*.events[].type"),
    ("pre-step", "agent.route.provider"),
    ("pre-step", "agent.route.model"),
    ("pre-step", "models.*.lookupError"),
    ("candidates/list", "agent.id"),
    ("candidates/list", "agent.cwd"),
    ("candidates/list", "query"),
    ("candidates/list", "sessions[].id"),
    ("candidates/list", "sessions[].cwd"),
    ("candidates/list", "sessions[].title"),
    ("candidates/list", "sessions[].subagentLabel"),
    ("candidates/remote", "agent.id"),
    ("candidates/remote", "agent.cwd"),
    ("candidates/remote", "query"),
    ("candidates/remote", "sessions[].id"),
    ("candidates/remote", "sessions[].cwd"),
    ("candidates/remote", "sessions[].title"),
    ("candidates/remote", "sessions[].subagentLabel"),
    ("files/token", "line"),
    ("files/format", "candidate.path"),
    ("files/format", "candidate.kind"),
    ("files/list", "query"),
    ("files/list", "tree.entries[].path"),
    ("files/list", "tree.entries[].target"),
    ("files/list", "config.excludedDirectories[]"),
    // Excluded on purpose: `spill.mode` (`prepare`, `pre-step`) and
    // `tree.entries[].kind` (`files/list`) are selectors of the adapter
    // protocol, read by the adapter to choose a spill store or what to
    // create on disk; they never reach the implementation as text, so an
    // edge class there asks nothing of it.
];

/// The edge classes every string field starts and ends with in some vector
/// (spec `conformance.depth`): each JavaScript `\s` whitespace character,
/// U+0085 (not `\s`), escape characters repeated, `]`, `\`, and lone
/// surrogates.
const EDGE_CLASSES: &[(&str, &[u16])] = &[
    ("space", &[0x20]),
    ("tab", &[0x09]),
    ("lf", &[0x0A]),
    ("cr", &[0x0D]),
    ("vt", &[0x0B]),
    ("ff", &[0x0C]),
    ("nbsp", &[0xA0]),
    ("u1680", &[0x1680]),
    ("u2000", &[0x2000]),
    ("u2001", &[0x2001]),
    ("u2002", &[0x2002]),
    ("u2003", &[0x2003]),
    ("u2004", &[0x2004]),
    ("u2005", &[0x2005]),
    ("u2006", &[0x2006]),
    ("u2007", &[0x2007]),
    ("u2008", &[0x2008]),
    ("u2009", &[0x2009]),
    ("u200a", &[0x200A]),
    ("u2028", &[0x2028]),
    ("u2029", &[0x2029]),
    ("u202f", &[0x202F]),
    ("u205f", &[0x205F]),
    ("u3000", &[0x3000]),
    ("bom", &[0xFEFF]),
    ("nel", &[0x0085]),
    ("backslashes", &[0x5C, 0x5C]),
    ("quotes", &[0x22, 0x22]),
    ("newlines", &[0x0A, 0x0A]),
    ("bracket", &[0x5D]),
    ("backslash", &[0x5C]),
    ("lone-high", &[0xD800]),
    ("lone-low", &[0xDC00]),
];

/// Every string at `path` (see [`STRING_FIELDS`]) below `value`.
fn strings_at<'a>(value: &'a Json, path: &str, out: &mut Vec<&'a [u16]>) {
    let Some((head, rest)) = path.split_once('.').map_or(Some((path, "")), Some) else {
        return;
    };
    let (name, each) = match head.strip_suffix("[]") {
        Some(name) => (name, true),
        None => (head, false),
    };
    let children: Vec<&Json> = if name == "*" {
        value
            .as_object()
            .into_iter()
            .flatten()
            .map(|(_, v)| v)
            .collect()
    } else {
        value.get(name).into_iter().collect()
    };
    for child in children {
        let items: Vec<&Json> = if each {
            child.as_array().into_iter().flatten().collect()
        } else {
            vec![child]
        };
        for item in items {
            if rest.is_empty() {
                if let Some(text) = item.as_js_str() {
                    out.push(text.units());
                }
            } else {
                strings_at(item, rest, out);
            }
        }
    }
}

/// The label of the first explicit mention `@[LABEL](` in `text`.
fn explicit_label(text: &[u16]) -> Option<&[u16]> {
    let open = [u16::from(b'@'), u16::from(b'[')];
    let close = [u16::from(b']'), u16::from(b'(')];
    let start = text.windows(2).position(|w| w == open)? + 2;
    // The last `](` closes the label (a label may hold `]`).
    let end = text.windows(2).rposition(|w| w == close)?;
    (end >= start).then(|| &text[start..end])
}

/// Everything in the suite below the depth bar (spec `conformance.depth`):
/// rules cited by fewer than two vectors (or tests), declared sides without
/// a vector, and string fields without a vector whose value starts and ends
/// with an edge class.
fn below_the_bar() -> Vec<String> {
    let rules = spec::rules();
    let suite = suite();
    let tests = runner_rule_citations();
    let mut below = Vec::new();
    let mut cited: BTreeMap<&str, usize> = BTreeMap::new();
    let mut sides: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (_, cited_rules) in citations(&suite) {
        for rule in cited_rules {
            *cited.entry(rule).or_default() += 1;
        }
    }
    for (_, vector) in suite.vectors() {
        for (rule, side) in &vector.sides {
            let declared = rules.get(rule).map(|rule| &rule.sides);
            if !declared.is_some_and(|declared| declared.contains(side)) {
                below.push(format!(
                    "{}: side {side:?} of {rule} is not declared (declared: {declared:?})",
                    vector.id
                ));
            }
            *sides.entry((rule, side)).or_default() += 1;
        }
    }
    for (id, rule) in rules {
        let count = if id.starts_with("runner.") {
            tests.iter().filter(|text| cites(text, id)).count()
        } else {
            cited.get(id.as_str()).copied().unwrap_or(0)
        };
        if count < 2 {
            below.push(format!("{id}: cited by {count} (at least 2)"));
        }
        for side in &rule.sides {
            if !sides.contains_key(&(id.as_str(), side.as_str())) {
                below.push(format!("{id}: no vector on the side {side:?}"));
            }
        }
    }
    for (op, path) in STRING_FIELDS {
        let mut values = Vec::new();
        let (member, label) = match path.strip_suffix(":label") {
            Some(member) => (member, true),
            None => (*path, false),
        };
        for (_, vector) in suite.vectors().filter(|(_, vector)| vector.op == *op) {
            let mut found = Vec::new();
            strings_at(&vector.input, member, &mut found);
            if label {
                found = found.into_iter().filter_map(explicit_label).collect();
            }
            values.extend(found);
        }
        let missing: Vec<&str> = EDGE_CLASSES
            .iter()
            .filter(|(_, edge)| {
                !values.iter().any(|value| {
                    value.len() > edge.len() && value.starts_with(edge) && value.ends_with(edge)
                })
            })
            .map(|(name, _)| *name)
            .collect();
        if !missing.is_empty() {
            below.push(format!(
                "{op} {path}: no vector starting and ending with {}",
                missing.join(", ")
            ));
        }
    }
    below
}

/// The suite reaches the depth bar (spec `conformance.depth`,
/// `conformance.sides`): prints the rules with their sides and everything
/// below the bar, and fails when anything is.
#[test]
fn suite_depth() {
    for (id, rule) in spec::rules() {
        if !rule.sides.is_empty() {
            println!("{id:45} sides {}", rule.sides.join(", "));
        }
    }
    let below = below_the_bar();
    for line in &below {
        println!("below the bar: {line}");
    }
    let sided = spec::rules()
        .values()
        .filter(|rule| !rule.sides.is_empty())
        .count();
    assert!(sided >= 20, "only {sided} rules declare sides");
    assert!(
        below.is_empty(),
        "{} entries below the depth bar:\n{}",
        below.len(),
        below.join("\n")
    );
}

/// The text of every test file (`tests/*.rs`, not its fixtures) and runner
/// source file (the runner's subfolders, such as `differential/`, included).
fn runner_rule_citations() -> Vec<String> {
    fn collect(dir: &Path, deep: bool, texts: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("directory exists") {
            let path = entry.expect("readable").path();
            if path.is_dir() {
                if deep {
                    collect(&path, deep, texts);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                texts.push(std::fs::read_to_string(&path).expect("readable"));
            }
        }
    }
    let mut texts = Vec::new();
    collect(&root().join("tests"), false, &mut texts);
    collect(&root().join("src/harness/runner"), true, &mut texts);
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

/// Whether two vectors' feature conditions exclude each other: one names a
/// behaviour the other names absent (`x` and `!x`), so no implementation
/// runs both (spec `protocol.features`).
fn exclusive(a: &[String], b: &[String]) -> bool {
    let excludes = |names: &[String], others: &[String]| {
        names.iter().any(|name| {
            !name.starts_with('!')
                && others
                    .iter()
                    .any(|other| other.strip_prefix('!') == Some(name))
        })
    };
    excludes(a, b) || excludes(b, a)
}

/// No two vectors send the same input, unless no implementation runs both:
/// a release's own expectation (`by-release.json`) repeats its vector's
/// input under conditions that exclude the other's.
#[test]
fn no_two_vectors_ask_the_same_question() {
    let mut seen: HashMap<String, Vec<&Vector>> = HashMap::new();
    let suite = suite();
    let mut repeats = 0;
    for (_, vector) in suite.vectors() {
        let key = format!("{} {}", vector.op, json::to_wire(&vector.input));
        let earlier = seen.entry(key).or_default();
        for first in earlier.iter() {
            assert!(
                exclusive(&first.features, &vector.features),
                "{} repeats the input of {} and both may run on one implementation",
                vector.id,
                first.id
            );
            repeats += 1;
        }
        earlier.push(vector);
    }
    assert!(repeats >= 500, "only {repeats} release variants");
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

/// Whether a candidates vector's expectation is what upstream documents
/// for `candidates-v2` (spec `candidates.v2.match`), whatever the relevance:
/// with a non-empty query it lists at most one candidate, found by
/// substring, and no other session of its listing holds the query even as a
/// subsequence of its label or display title, so that any fuzzy matcher (the
/// newer upstream build's substring match included) answers alike; an empty
/// query, or an error, involves no relevance at all. `Err` says on what the
/// expectation depends beyond the documents (our `candidates.fuzzy.*`).
fn documented_v2_answer(vector: &Vector) -> Result<(), String> {
    use dsh_session_reference::js::case::to_lower;
    let text = |value: Option<&Json>| value.and_then(Json::as_js_str).map(|s| to_lower(s.units()));
    let Some(query) = text(vector.input.get("query")).filter(|q| !q.is_empty()) else {
        return Ok(());
    };
    let Expect::Output(Json::Array(listed)) = &vector.expect else {
        return Ok(());
    };
    if listed.len() > 1 {
        return Err(format!(
            "a non-empty query lists {} candidates: their order within a group is relevance",
            listed.len()
        ));
    }
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
            if !by_substring {
                return Err("the listed candidate is no substring match".to_owned());
            }
        } else if by_substring || in_order(&label) || in_order(&display) {
            return Err(format!(
                "session {} matches the query, at least fuzzily, and is not listed",
                id.map(json::to_wire).unwrap_or_default()
            ));
        }
    }
    Ok(())
}

fn candidates_vectors_of(suite: &Suite, feature: &str) -> Vec<Vector> {
    suite
        .vectors()
        .map(|(_, vector)| vector)
        .filter(|vector| vector.op == "candidates/list" || vector.op == "candidates/remote")
        .filter(|vector| vector.features.iter().any(|f| f == feature))
        .cloned()
        .collect()
}

/// A candidates vector of the newer upstream behaviours (`display-title`)
/// that does not depend on our relevance (`candidates-fuzzy`) keeps to what
/// upstream documents ([`documented_v2_answer`]). Ranking and fuzzy-only
/// matches are `candidates-fuzzy`'s.
#[test]
fn candidates_v2_vectors_with_a_query_list_at_most_one_candidate() {
    let suite = suite();
    let mut checked = 0;
    let mut beyond_documents = Vec::new();
    for vector in candidates_vectors_of(&suite, "display-title") {
        if vector.features.iter().any(|f| f == "candidates-fuzzy") {
            continue;
        }
        if let Err(beyond) = documented_v2_answer(&vector) {
            beyond_documents.push(format!("{}: {beyond}", vector.id));
        }
        let query = vector.input.get("query").and_then(Json::as_js_str);
        checked += usize::from(query.is_some_and(|q| !q.units().is_empty()));
    }
    assert!(
        beyond_documents.is_empty(),
        "these depend on candidates-fuzzy's relevance and do not name it:\n{}",
        beyond_documents.join("\n")
    );
    assert!(
        checked >= 10,
        "only {checked} display-title vectors with a query"
    );
}

/// A vector carries `candidates-fuzzy` only when its expectation depends on
/// our relevance (issue #22): one whose answer the documents decide
/// ([`documented_v2_answer`]) belongs to `candidates-v2`, where a port of
/// the newer upstream build, which matches by substring in listing order and
/// does not declare `candidates-fuzzy`, runs it too.
#[test]
fn candidates_fuzzy_vectors_depend_on_our_relevance() {
    let suite = suite();
    let fuzzy = candidates_vectors_of(&suite, "candidates-fuzzy");
    let documented: Vec<&str> = fuzzy
        .iter()
        .filter(|vector| documented_v2_answer(vector).is_ok())
        .map(|vector| vector.id.as_str())
        .collect();
    assert!(
        documented.is_empty(),
        "these candidates-fuzzy vectors are answered by the documents alone; list them under candidates-v2: {documented:?}"
    );
    assert!(
        fuzzy.len() >= 30,
        "only {} candidates-fuzzy vectors",
        fuzzy.len()
    );
}

/// The features of our own decisions stand alone: a vector that needs
/// `candidates-fuzzy` or `config-fraction-type` holds only where the
/// specification's own rules are followed, so no upstream release runs it
/// (spec `protocol.features`, `runner.releases`).
#[test]
fn features_of_our_decisions_stand_alone() {
    let upstream: Vec<_> = dsh_session_reference::features::RELEASES
        .iter()
        .filter(|release| release.name != "newest")
        .map(dsh_session_reference::features::Declared::release)
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, vector) in suite().vectors() {
        for ours in ["candidates-fuzzy", "config-fraction-type"] {
            if vector.features.iter().any(|f| f == ours) {
                for release in &upstream {
                    assert!(
                        !release.satisfies(&vector.op, &vector.features),
                        "{} runs on {}",
                        vector.id,
                        release.release_name().unwrap_or_default()
                    );
                }
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

/// A vector names every behaviour its expectation depends on (spec
/// `protocol.features`): on the reference, in each profile the vector runs
/// on, turning any behaviour of its op that it does not name on or off
/// (with the behaviours that act only beside it) leaves the expectation
/// holding. A vector that forgot one fails here, before a port of a
/// release between two others meets it.
#[test]
fn vectors_name_every_behaviour_they_depend_on() {
    use dsh_session_reference::features::{self, Features};
    use dsh_session_reference::harness::runner::adapter::{BuiltIn, Implementation};
    use dsh_session_reference::harness::runner::{self, Status};
    // A behaviour that acts only beside another is turned on with it.
    let beside = |name: &str| match name {
        "context-fraction" => vec!["config-fraction-type"],
        "omission-notices" => vec!["spill"],
        _ => vec![],
    };
    let mut unnamed = Vec::new();
    for (_, vector) in suite().vectors() {
        let named = |name: &str| {
            vector
                .features
                .iter()
                .any(|feature| feature.trim_start_matches('!') == name)
        };
        for (profile, features) in runner::reference_profiles(vector) {
            for behaviour in features::behaviours_of(&vector.op) {
                if named(behaviour.name) {
                    continue;
                }
                let on = !(behaviour.get)(&features);
                let mut toggled: Features = features.with(behaviour.name, on);
                if on {
                    for other in beside(behaviour.name) {
                        if !named(other) {
                            toggled = toggled.with(other, true);
                        }
                    }
                }
                let answer = BuiltIn(toggled).call(&vector.op, &vector.input);
                if !matches!(runner::check(vector, answer), Status::Passed) {
                    unnamed.push(format!(
                        "{} ({profile}): depends on {} {}",
                        vector.id,
                        if on { "the absence of" } else { "" },
                        behaviour.name
                    ));
                }
            }
        }
    }
    assert!(
        unnamed.is_empty(),
        "{} vectors depend on behaviours they do not name:\n{}",
        unnamed.len(),
        unnamed.join("\n")
    );
}

/// The release table of the specification is the binary's (spec
/// `runner.releases`): each row's name, behaviours and ops.
#[test]
fn the_release_table_is_the_binarys() {
    use dsh_session_reference::features::RELEASES;
    let text = std::fs::read_to_string(root().join("spec/conformance.md")).expect("spec");
    for release in RELEASES {
        let row = text
            .lines()
            .find(|line| line.starts_with(&format!("| `{}`", release.name)))
            .unwrap_or_else(|| panic!("no row for {}", release.name));
        let behaviours = row.split('|').nth(2).expect("a behaviours column");
        let ops = row.split('|').nth(3).expect("an ops column");
        let served = dsh_session_reference::features::Declared::release(release);
        let missing: Vec<&str> = dsh_session_reference::features::OPS
            .iter()
            .copied()
            .filter(|op| !served.answers(op))
            .collect();
        if missing.is_empty() {
            assert_eq!(ops.trim(), "every op", "{row}");
        } else {
            assert!(ops.contains("every op but"), "{row}");
            for op in missing {
                assert!(ops.contains(&format!("`{op}`")), "{row} misses {op}");
            }
        }
        let named: Vec<&str> = release.features.names().collect();
        match release.name {
            "0.1.0-rc.8" => assert!(named.is_empty() && behaviours.contains("none")),
            "newer-62dde13e" => assert_eq!(named.len(), features_count() - 2),
            "newest" => assert_eq!(named.len(), features_count()),
            _ => {
                for name in &named {
                    assert!(behaviours.contains(&format!("`{name}`")), "{row}");
                }
            }
        }
    }
}

fn features_count() -> usize {
    dsh_session_reference::features::BEHAVIOURS.len()
}
