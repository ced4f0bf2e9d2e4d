//! Mutation tests of the conformance suite (issue #5): the upstream oracle
//! with ONE rule of its code broken must be flagged by the runner, on the
//! vectors of that rule.
//!
//! Each mutation of `tests/fixtures/mutants/mutations.json` patches one
//! file (the rc.8 bundle or the newest-generation emulation) as Node loads
//! it (`register.mjs`, `hooks.mjs`); its search text must occur exactly once,
//! so a package update cannot silently turn a mutant into the oracle. Each
//! test runs the whole suite on one mutant through the real runner and
//! asserts that
//!
//! 1. at least `minFailed` vectors fail, `catches` among them, and none by a
//!    protocol failure (a crash is not a verdict on a rule);
//! 2. every failing vector cites one of the mutation's `rules` (or, for a
//!    mutation that shows in every output of an op, has one of its `ops`),
//!    and every listed rule is cited by some failing vector.
//!
//! The rows from `longest-by-units` on are the porting bugs that issue
//! #22's mutation runs (cargo-mutants over the reference, StrykerJS over
//! upstream) found only by vectors: a byte count without its two-byte case,
//! the longest text picked by UTF-16 units, unknown event types ignored, a
//! fractional automatic budget rounded up, transcripts of ten or more
//! messages, a spill named by its notice's position, and, in the files
//! ranking, a subsequence search resumed at its match, a gap not held at
//! 100, no directory bonus on a subsequence match, gaps counted in code
//! points. Their reach rows show what the differential's generators reach
//! since.
//!
//! The last twelve rows (issue #35) are single porting bugs written into
//! the newest generation's behaviour, where `differential` used to reach
//! nothing: the automatic budget (its floor, the configured fraction, tokens
//! as bytes), omission notices, spill notices and transcript sizes,
//! transcript numbering, fragments and header, and the fraction's `null`
//! and upper bound.
//!
//! The control tests run the same suite on the unmutated adapters and
//! through the hooks with an identity patch: no failure, so a mutant's
//! failures cannot be blamed on the environment or on the machinery.

use dsh_session_reference::features::Features;
use dsh_session_reference::harness::runner::adapter::{BuiltIn, External, Implementation};
use dsh_session_reference::harness::runner::differential::{self, Options};
use dsh_session_reference::harness::runner::vectors::{Suite, Vector};
use dsh_session_reference::harness::runner::{self, rule_reach, Report, Selection};
use dsh_session_reference::js::json::{self, Json};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

mod oracle;
use oracle::require_oracle;

/// One answer may take this long (the suite's largest vectors take well
/// under a second on upstream).
const TIMEOUT: Duration = Duration::from_secs(30);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/mutants")
}

/// One row of the mutation table.
#[derive(Debug)]
struct Mutation {
    name: String,
    adapter: String,
    description: String,
    rules: Vec<String>,
    ops: Vec<String>,
    min_failed: usize,
    catches: Vec<String>,
    /// Why `differential` cannot reach the mutant, if it cannot.
    differential_unreachable: Option<String>,
    /// How many causes `conformance` reports for it (spec
    /// `runner.causes`): 1 unless the table says otherwise.
    causes: usize,
}

fn strings(value: Option<&Json>, what: &str) -> Vec<String> {
    match value {
        None => Vec::new(),
        Some(value) => value
            .as_array()
            .unwrap_or_else(|| panic!("{what} must be an array"))
            .iter()
            .map(|item| {
                item.as_string()
                    .unwrap_or_else(|| panic!("{what} must hold strings"))
            })
            .collect(),
    }
}

fn table() -> &'static [Mutation] {
    static TABLE: OnceLock<Vec<Mutation>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let path = fixtures().join("mutations.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
        let tree = json::parse(&text)
            .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()));
        let rows = tree
            .get("mutations")
            .and_then(Json::as_array)
            .expect("mutations.json has an array \"mutations\"");
        rows.iter()
            .map(|row| {
                let text = |key: &str| {
                    row.get(key)
                        .and_then(Json::as_string)
                        .unwrap_or_else(|| panic!("a mutation has no string {key:?}"))
                };
                let name = text("name");
                let min_failed = match row.get("minFailed") {
                    Some(Json::Number(n)) if *n >= 1.0 && n.fract() == 0.0 => *n as usize,
                    _ => panic!("{name}: minFailed must be a positive integer"),
                };
                let causes = match row.get("causes") {
                    None => 1,
                    Some(Json::Number(n)) if *n >= 1.0 && n.fract() == 0.0 => *n as usize,
                    _ => panic!("{name}: causes must be a positive integer"),
                };
                Mutation {
                    causes,
                    adapter: text("adapter"),
                    description: text("description"),
                    rules: strings(row.get("rules"), "rules"),
                    ops: strings(row.get("ops"), "ops"),
                    catches: strings(row.get("catches"), "catches"),
                    differential_unreachable: row
                        .get("differentialUnreachable")
                        .and_then(Json::as_string),
                    min_failed,
                    name,
                }
            })
            .collect()
    })
}

fn mutation(name: &str) -> &'static Mutation {
    table()
        .iter()
        .find(|mutation| mutation.name == name)
        .unwrap_or_else(|| panic!("no mutation {name:?} in mutations.json"))
}

fn suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| {
        Suite::load(&root().join("conformance/vectors"))
            .unwrap_or_else(|error| panic!("cannot load vectors: {error}"))
    })
}

fn vectors_by_id() -> &'static HashMap<String, Vector> {
    static BY_ID: OnceLock<HashMap<String, Vector>> = OnceLock::new();
    BY_ID.get_or_init(|| {
        suite()
            .vectors()
            .map(|(_, vector)| (vector.id.clone(), vector.clone()))
            .collect()
    })
}

fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

fn adapter_script(adapter: &str) -> PathBuf {
    root().join(format!("conformance/adapters/{adapter}/adapter.mjs"))
}

/// `node ADAPTER`, or the adapter with `MUTANT=mutant` under the hooks.
fn command(adapter: &str, mutant: Option<&str>) -> String {
    let script = quoted(&adapter_script(adapter));
    match mutant {
        None => format!("exec node {script}"),
        Some(mutant) => format!(
            "MUTANT='{mutant}' exec node --import {} {script}",
            quoted(&fixtures().join("register.mjs"))
        ),
    }
}

/// Runs the selection on the implementation `command` starts; returns the
/// features it declared and the report.
fn run(command: &str) -> (Vec<String>, Report) {
    let mut adapter = External::new(command, TIMEOUT);
    let description = adapter.describe().unwrap_or_else(|error| {
        panic!("`{command}` cannot describe itself: {error} (its stderr above says why)")
    });
    // Every vector runs: the whole suite takes about 1.5 s per adapter, and
    // a mutant must not fail any vector outside its rules, in any area.
    let report = runner::run(
        suite(),
        &mut adapter,
        &description,
        &Selection::default(),
        |_, _| {},
    );
    (description.features, report)
}

/// The features the unmutated adapter declares.
fn features_of(adapter: &str) -> &'static [String] {
    static FEATURES: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    let all = FEATURES.get_or_init(|| {
        require_oracle();
        ["upstream-npm", "upstream-next"]
            .into_iter()
            .map(|adapter| {
                let mut running = External::new(&command(adapter, None), TIMEOUT);
                let features = running
                    .describe()
                    .unwrap_or_else(|error| panic!("{adapter} cannot describe itself: {error}"))
                    .features;
                (adapter.to_owned(), features)
            })
            .collect()
    });
    all.get(adapter)
        .unwrap_or_else(|| panic!("unknown adapter {adapter:?}"))
}

/// The failed vectors of a report, with their failure texts.
fn failures(report: &Report) -> Vec<(&str, String)> {
    report
        .failures()
        .map(|(result, detail)| (result.id.as_str(), detail.explanation()))
        .collect()
}

fn assert_clean(what: &str, features: &[String], report: &Report) {
    let failed = failures(report);
    assert!(
        failed.is_empty(),
        "{what}: the unmutated oracle fails {} vectors ({}), so mutant verdicts would mean nothing:\n{}",
        failed.len(),
        report.summary(),
        failed
            .iter()
            .map(|(id, detail)| format!("{id}: {detail}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let declared =
        dsh_session_reference::features::Declared::from_names(features.iter().map(String::as_str));
    let expected = suite()
        .vectors()
        .filter(|(_, vector)| declared.satisfies(&vector.op, &vector.features))
        .count();
    assert_eq!(
        report.passed(),
        expected,
        "{what}: every vector of a declared feature must pass ({})",
        report.summary()
    );
    assert!(expected > 0, "{what}: no vector ran");
}

fn check_mutant(name: &str) {
    require_oracle();
    let mutation = mutation(name);
    let (features, report) = run(&command(&mutation.adapter, Some(name)));
    assert_eq!(
        features,
        features_of(&mutation.adapter),
        "{name}: the mutant must declare the oracle's features"
    );
    let failed = failures(&report);
    let by_id = vectors_by_id();
    let listing = |ids: &mut dyn Iterator<Item = &str>| {
        ids.map(|id| format!("  {id} {:?}", by_id[id].rules))
            .collect::<Vec<_>>()
            .join("\n")
    };
    // (c) One bug, one cause (spec `runner.causes`).
    let causes = runner::report::causes(&report);
    let listed: Vec<String> = causes
        .iter()
        .map(|cause| format!("{} ({})", cause.signature, cause.count))
        .collect();
    assert_eq!(
        causes.len(),
        mutation.causes,
        "{name}: conformance reports {} causes, the table says {}: {}",
        causes.len(),
        mutation.causes,
        listed.join(" | ")
    );
    println!(
        "{name} ({}): {} — {}; e.g. {}",
        mutation.rules[0],
        mutation.description,
        report.summary(),
        failed
            .iter()
            .take(3)
            .map(|(id, _)| *id)
            .collect::<Vec<_>>()
            .join(", ")
    );

    // (a) Flagged at all, by verdicts on outputs, not by a broken adapter.
    let crashed: Vec<&str> = failed
        .iter()
        .filter(|(_, detail)| detail.starts_with("protocol failure"))
        .map(|(id, _)| *id)
        .collect();
    assert!(
        crashed.is_empty(),
        "{name}: the mutant broke the adapter instead of a rule on {crashed:?}"
    );
    assert!(
        failed.len() >= mutation.min_failed,
        "{name} ({}) is caught by only {} vectors, {} expected — a vector that caught it was \
         changed or removed, or the patch no longer breaks the rule ({}):\n{}",
        mutation.description,
        failed.len(),
        mutation.min_failed,
        report.summary(),
        listing(&mut failed.iter().map(|(id, _)| *id))
    );
    let failed_ids: BTreeSet<&str> = failed.iter().map(|(id, _)| *id).collect();
    let missed: Vec<&str> = mutation
        .catches
        .iter()
        .map(String::as_str)
        .filter(|id| !failed_ids.contains(id))
        .collect();
    assert!(
        missed.is_empty(),
        "{name}: these vectors no longer catch the mutant: {missed:?}"
    );

    // (b) On the right vectors: each failure tests a broken rule, by
    // citing it or by reaching its decision on the reference (spec
    // runner.reach), or shows the broken behaviour in every output of its
    // op.
    let wrong: Vec<&str> = failed
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| {
            let tested = tested_rules(id);
            !mutation.rules.iter().any(|rule| tested.contains(rule))
                && !mutation.ops.contains(&by_id[*id].op)
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{name} breaks {:?}, yet these failing vectors neither cite nor reach any of them:\n{}",
        mutation.rules,
        listing(&mut wrong.iter().copied())
    );
    for rule in &mutation.rules {
        assert!(
            failed.iter().any(|(id, _)| tested_rules(id).contains(rule)),
            "{name}: no failing vector cites or reaches {rule}; remove it from the mutation's \
             rules (or a vector of it no longer catches the mutant)"
        );
    }
}

/// The rules vector `id` tests: those it cites, and those whose decisions
/// its request reaches on the reference (spec `runner.reach`): a vector
/// written for a value of an input member (`runner.value-reach`) cites the
/// rules of the vector it grew from, and reaches the one its value decides.
fn tested_rules(id: &str) -> BTreeSet<String> {
    static REACHED: OnceLock<std::sync::Mutex<HashMap<String, Vec<&'static str>>>> =
        OnceLock::new();
    let vector = &vectors_by_id()[id];
    let reached = REACHED
        .get_or_init(Default::default)
        .lock()
        .expect("the reach cache")
        .entry(id.to_owned())
        .or_insert_with(|| rule_reach::of_vector(vector))
        .clone();
    vector
        .rules
        .iter()
        .cloned()
        .chain(reached.into_iter().map(str::to_owned))
        .collect()
}

#[test]
fn the_table_is_sound() {
    let mut names = BTreeSet::new();
    let by_id = vectors_by_id();
    for mutation in table() {
        assert!(
            names.insert(mutation.name.as_str()),
            "mutation {} is listed twice",
            mutation.name
        );
        assert!(
            adapter_script(&mutation.adapter).is_file(),
            "{}: no adapter {}",
            mutation.name,
            mutation.adapter
        );
        assert!(
            !mutation.rules.is_empty(),
            "{}: no rules listed",
            mutation.name
        );
        for id in &mutation.catches {
            assert!(
                by_id.contains_key(id),
                "{}: catches unknown vector {id}",
                mutation.name
            );
        }
        assert!(
            mutation.catches.len() <= mutation.min_failed,
            "{}: more catches than minFailed",
            mutation.name
        );
    }
    // runner.causes, runner.probes: one bug, one cause, for at least 95 %
    // of the mutants (the cross-layer ones included), and never more than
    // two (each test checks its own count).
    let single = table()
        .iter()
        .filter(|mutation| mutation.causes == 1)
        .count();
    assert!(
        single * 20 >= table().len() * 19,
        "only {single} of {} mutants are one cause each",
        table().len()
    );
    for mutation in table() {
        assert!(
            mutation.causes <= 2,
            "{}: more than two causes",
            mutation.name
        );
    }
    for name in QUICK_SAMPLE {
        let sampled = mutation(name);
        assert!(
            sampled.differential_unreachable.is_none() && sampled.causes == 1,
            "{name}: the quick sample needs mutants the differential reaches, one cause each"
        );
    }
    let tested: BTreeSet<&str> = TESTED.iter().copied().collect();
    assert_eq!(
        names, tested,
        "every mutation of mutations.json needs its test in tests/mutants.rs, and vice versa"
    );
    for required in [
        "member-order",
        "whitespace",
        "canonical-check",
        "drop-order",
        "notice-text",
    ] {
        let mutation = mutation(required);
        assert!(
            mutation.ops.is_empty(),
            "{required}: the mutations of issue #5 must be flagged by the vectors of their rules alone"
        );
    }
}

#[test]
fn control_upstream_npm() {
    require_oracle();
    let (features, report) = run(&command("upstream-npm", None));
    assert_clean("upstream-npm", &features, &report);
}

#[test]
fn control_upstream_next() {
    require_oracle();
    let (features, report) = run(&command("upstream-next", None));
    assert_clean("upstream-next", &features, &report);
}

/// The hooks with an identity patch of each target file change nothing.
#[test]
fn control_through_the_hooks() {
    require_oracle();
    for adapter in ["upstream-npm", "upstream-next"] {
        let first = table()
            .iter()
            .find(|mutation| mutation.adapter == adapter)
            .unwrap_or_else(|| panic!("no mutation runs on {adapter}"));
        let identity = format!("identity:{}", first.name);
        let (features, report) = run(&command(adapter, Some(&identity)));
        assert_eq!(features, features_of(adapter));
        assert_clean(&format!("{adapter} with {identity}"), &features, &report);
    }
}

/// A search text that is not in the target stops the adapter before it
/// answers: a mutant can never silently be the oracle.
#[test]
fn an_unknown_mutant_does_not_start() {
    require_oracle();
    // Its error goes to stderr, which the adapter inherits: silenced here.
    let quiet = format!(
        "{} 2>/dev/null",
        command("upstream-npm", Some("no-such-mutation"))
    );
    let answer = External::new(&quiet, TIMEOUT).describe();
    assert!(answer.is_err(), "an unknown mutant answered: {answer:?}");
}

/// The mutants the quick tier runs (issue #33): one per layer the machinery
/// patches (rc.8's URI codec under mention parsing, its retention, the
/// emulation's spill, the files ranking of rc.8's file-reference package),
/// so that a broken hook, runner or cause model fails `cargo test`; every
/// mutant, and the reach table over all of them at [`REACH_CASES`], is the
/// heavy tier's.
const QUICK_SAMPLE: &[&str] = &[
    "canonical-check",
    "drop-order",
    "spill-name",
    "subsequence-resume-at-match",
];

/// Each mutant of the table, one heavy test each (`cargo test --test
/// mutants -- --ignored`); [`QUICK_SAMPLE`] runs in the quick tier.
macro_rules! mutants {
    ($($test:ident => $name:literal,)*) => {
        /// The mutations that have a test, in table order.
        const TESTED: &[&str] = &[$($name),*];
        $(
            #[test]
            #[ignore = "heavy: the whole suite on one mutant of the oracle"]
            fn $test() {
                if in_shard($name) {
                    check_mutant($name);
                }
            }
        )*
    };
}

/// The quick form of the per-mutant tests: the sample's mutants, each
/// through the same checks.
#[test]
fn a_sample_of_mutants_is_caught_on_its_rules() {
    for name in QUICK_SAMPLE {
        check_mutant(name);
    }
}

mutants! {
    member_order => "member-order",
    whitespace => "whitespace",
    canonical_check => "canonical-check",
    drop_order => "drop-order",
    notice_text => "notice-text",
    whitespace_unicode => "whitespace-unicode",
    bare_greedy => "bare-greedy",
    label_escape_line => "label-escape-line",
    label_unescape => "label-unescape",
    member_order_parse => "member-order-parse",
    label_escape => "label-escape",
    format_default_label => "format-default-label",
    tag_safe => "tag-safe",
    self_reference => "self-reference",
    dedupe => "dedupe",
    normalize_label => "normalize-label",
    config_positive => "config-positive",
    config_max_references => "config-max-references",
    exclude_self => "exclude-self",
    text_join => "text-join",
    excluded_sources => "excluded-sources",
    empty_dropped => "empty-dropped",
    longest_tie => "longest-tie",
    cut_search_zero => "cut-search-zero",
    head_tail_split => "head-tail-split",
    member_order_stats => "member-order-stats",
    format_version_order => "format-version-order",
    spill_name => "spill-name",
    automatic_fraction => "automatic-fraction",
    surface_system => "surface-system",
    transcript_fragment => "transcript-fragment",
    word_start_bonus => "word-start-bonus",
    longest_by_units => "longest-by-units",
    unknown_event_ignored => "unknown-event-ignored",
    automatic_round_up => "automatic-round-up",
    transcript_number_digit => "transcript-number-digit",
    transcript_bytes_two_byte => "transcript-bytes-two-byte",
    spill_name_by_notice => "spill-name-by-notice",
    subsequence_resume_at_match => "subsequence-resume-at-match",
    subsequence_gap_unbounded => "subsequence-gap-unbounded",
    subsequence_no_directory_bonus => "subsequence-no-directory-bonus",
    subsequence_gap_code_points => "subsequence-gap-code-points",
    uri_escape_upper_hex => "uri-escape-upper-hex",
    uri_escaped_slash => "uri-escaped-slash",
    uri_lossy_surrogates => "uri-lossy-surrogates",
    uri_ascii_only => "uri-ascii-only",
    uri_base64_padded => "uri-base64-padded",
    json_raw_lone_surrogates => "json-raw-lone-surrogates",
    json_negative_zero => "json-negative-zero",
    json_large_number_spelling => "json-large-number-spelling",
    json_python_separators => "json-python-separators",
    tag_safe_html => "tag-safe-html",
    utf8_measure_units => "utf8-measure-units",
    config_null_refused => "config-null-refused",
    config_boolean_as_number => "config-boolean-as-number",
    label_escape_open_bracket => "label-escape-open-bracket",
    automatic_floor_missing => "automatic-floor-missing",
    automatic_fraction_ignored => "automatic-fraction-ignored",
    automatic_window_as_bytes => "automatic-window-as-bytes",
    omission_counts_swapped => "omission-counts-swapped",
    omission_seq_missing => "omission-seq-missing",
    spill_failed_as_unconfigured => "spill-failed-as-unconfigured",
    spill_bytes_utf16 => "spill-bytes-utf16",
    transcript_number_from_zero => "transcript-number-from-zero",
    transcript_fragments_utf16 => "transcript-fragments-utf16",
    transcript_version_null => "transcript-version-null",
    config_fraction_null_refused => "config-fraction-null-refused",
    config_fraction_one_refused => "config-fraction-one-refused",
    cancel_before_validation => "cancel-before-validation",
    read_failure_over_cancel => "read-failure-over-cancel",
    sequential_messages => "sequential-messages",
    stats_compacted_missing => "stats-compacted-missing",
    data_cwd_null => "data-cwd-null",
    seq_null => "seq-null",
}

/// A mutant caught by `differential`: the first case that caught it, and
/// its classes (cause and count each), largest first.
type Caught = (u64, Vec<String>);

/// Cases `differential` may take to catch a mutant (issue #11).
const REACH_CASES: u64 = 3000;

/// Cases the quick tier gives each mutant of [`QUICK_SAMPLE`], without
/// type confusion: at seed 1 they are caught at cases 436, 35, 50 and 448
/// (with it, as the heavy reach table runs and prints, `canonical-check`
/// at 970).
const QUICK_REACH_CASES: u64 = 600;

/// Mutants whose reach is measured at once.
const REACH_WORKERS: usize = 4;

/// The differential's reach (spec `runner.differential.classes`): every
/// mutant of the table is also caught by `differential` (the reference in
/// the mutant's generation against the mutated adapter, seed 1) within
/// [`REACH_CASES`] cases (type confusion on, as `differential` runs by
/// default, then the small scope of the order of checks), unless the table
/// says why no random input can
/// reach it (`differentialUnreachable`); a mutant caught despite such a
/// reason fails too, so the table stays true. Each caught mutant gives at
/// most two classes, and at least 95 % of them one. Prints the reach table
/// with the classes (`cargo test --test mutants differential_reaches --
/// --include-ignored --nocapture`).
#[test]
#[ignore = "heavy: 3 000 differential cases on each of the table's mutants"]
fn differential_reaches_every_mutant() {
    let rows: Vec<&Mutation> = table()
        .iter()
        .filter(|mutation| in_shard(&mutation.name))
        .collect();
    assert_reach(&rows, REACH_CASES, true, shard().is_none());
}

/// The shard of the table the heavy mutant tests run, from `MUTANTS_SHARD`
/// (`k/n`: the mutants whose place in the table is k modulo n), or `None`
/// for the whole table. The gate (`.ci/run`, issue #61) runs a shard that
/// rotates with the commit, so that every mutant runs over n commits;
/// `.ci/heavy` runs them all.
fn shard() -> Option<(usize, usize)> {
    let value = std::env::var("MUTANTS_SHARD").ok()?;
    let parsed = value
        .split_once('/')
        .and_then(|(k, n)| Some((k.parse().ok()?, n.parse().ok()?)))
        .filter(|(k, n): &(usize, usize)| k < n);
    Some(parsed.unwrap_or_else(|| panic!("MUTANTS_SHARD={value:?} is not k/n with k < n")))
}

/// Whether the mutant `name` is in the shard run ([`shard`]).
fn in_shard(name: &str) -> bool {
    shard().is_none_or(|(k, n)| {
        table()
            .iter()
            .position(|mutation| mutation.name == name)
            .is_some_and(|place| place % n == k)
    })
}

/// The quick form of the reach table: the sample's mutants, each caught
/// within [`QUICK_REACH_CASES`] cases without type confusion, one class
/// each.
#[test]
fn differential_reaches_a_sample_of_mutants() {
    let rows: Vec<&Mutation> = QUICK_SAMPLE.iter().map(|name| mutation(name)).collect();
    assert_reach(&rows, QUICK_REACH_CASES, false, true);
}

/// `differential` of the reference (in the mutant's behaviours) against a
/// mutant, `cases` cases at seed 1 over the ops `only` names (all when
/// `None`): the first case that caught it and its classes, or `None`.
fn classes_of(
    mutation: &Mutation,
    only: Option<&[String]>,
    cases: u64,
    type_confusion: bool,
) -> Option<Caught> {
    let generation = if mutation.adapter == "upstream-next" {
        Features::NEWEST
    } else {
        Features::RC8
    };
    let mut reference = BuiltIn(generation);
    let mut mutant =
        External::new(&command(&mutation.adapter, Some(&mutation.name)), TIMEOUT).quiet();
    let description = mutant
        .describe()
        .unwrap_or_else(|error| panic!("{}: describe failed: {error}", mutation.name));
    let reference_description = reference
        .describe()
        .expect("the reference describes itself");
    let plan = differential::plan(&reference_description, &description, only);
    // The whole run, not only up to the first class: its classes are
    // counted (spec `runner.differential.classes`: one bug, one class),
    // type-confused cases included where asked: substitution keeps a
    // mutant seen on an irregular request in its own class.
    let options = Options {
        shrink: false,
        type_confusion,
        ..Options::new(cases, 1)
    };
    let summary = differential::run(&plan, &mut reference, &mut mutant, &options, |_| {});
    let first = summary
        .classes
        .iter()
        .map(|class| class.cases[0] + 1)
        .min()?;
    let classes = summary
        .classes_by_size()
        .iter()
        .map(|class| format!("{} ({})", class.signature, class.count))
        .collect();
    Some((first, classes))
}

/// Runs `differential` for `cases` cases on each of `rows` and checks the
/// reach table's claims (see [`differential_reaches_every_mutant`]), the
/// share of mutants of one class with `one_class_share`.
fn assert_reach(rows: &[&Mutation], cases: u64, type_confusion: bool, one_class_share: bool) {
    require_oracle();
    let reach = |mutation: &Mutation| classes_of(mutation, None, cases, type_confusion);
    // Four workers taking the next mutant as they finish: a case waits on
    // Node's answer more than it computes, so two cores keep four busy.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, String, Option<Caught>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..REACH_WORKERS)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(mutation) = rows.get(at) else {
                            return done;
                        };
                        done.push((at, mutation.name.clone(), reach(mutation)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a reach worker panicked"))
            .collect()
    });
    results.sort_by_key(|(at, _, _)| *at);
    let results: Vec<(String, Option<Caught>)> = results
        .into_iter()
        .map(|(_, name, caught)| (name, caught))
        .collect();
    println!("mutant → caught by differential within N cases (of {cases}), and its classes");
    let mut problems = Vec::new();
    let (mut caught_count, mut one_class) = (0, 0);
    for (name, caught) in &results {
        let unreachable = &mutation(name).differential_unreachable;
        match (caught, unreachable) {
            (Some((first, classes)), None) => {
                println!("  {name:24} {first:5} {}", classes.join(" | "));
                caught_count += 1;
                if classes.len() == 1 {
                    one_class += 1;
                }
                if classes.len() > 2 {
                    problems.push(format!("{name}: {} classes (at most 2)", classes.len()));
                }
            }
            (None, Some(why)) => println!("  {name:24} not reachable: {why}"),
            (None, None) => problems.push(format!("{name}: not caught within {cases} cases")),
            (Some((first, _)), Some(_)) => problems.push(format!(
                "{name}: caught within {first} cases, but the table says it is unreachable"
            )),
        }
    }
    // runner.differential.classes, runner.probes: one bug, one class, for
    // at least 95 % of the mutants caught: a share of the whole table or of
    // a chosen sample, not of a shard (one mutant of two classes in a shard
    // of five would fail it).
    if one_class_share && one_class * 20 < caught_count * 19 {
        problems.push(format!(
            "only {one_class} of the {caught_count} mutants caught give one class each"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A draw narrowed to some ops (`differential --ops`) still probes the
/// lower ops both sides answer (spec `runner.probes`,
/// `runner.differential.classes`): a mutant of rc.8's URI codec seen only
/// through `mention/format` is one class, traced to `uri/encode`; when the
/// prober knew only the drawn ops it was named for the mention's text, and
/// with `uri/decode` drawn too the same bug was two classes. (The mutant is
/// the padded payload: a JSON literal spelled otherwise, such as upper-case
/// hex escapes, is now the spelling's cause wherever it shows, spec
/// `runner.causes`, so it no longer tells whether the lower op was asked.)
#[test]
fn a_narrowed_draw_still_probes_the_lower_ops() {
    require_oracle();
    let only = ["mention/format".to_owned()];
    let (_, classes) = classes_of(mutation("uri-base64-padded"), Some(&only), 300, true)
        .expect("caught within 300 mention/format cases");
    assert_eq!(classes.len(), 1, "{classes:?}");
    assert!(classes[0].starts_with("uri"), "{classes:?}");
}

/// The conformance causes and the differential classes (2 000 cases at
/// seed 1) of a fixture port: rc.8 through `adapter` with the mutations
/// `mutants` (`a+b`) written into its code.
fn causes_and_classes(adapter: &str, mutants: &str) -> (Vec<String>, Vec<String>) {
    let command = port_command(adapter, mutants);
    let causes = conformance_causes(&command);
    let mut reference = BuiltIn(Features::RC8);
    let mut port = External::new(&command, TIMEOUT).quiet();
    let description = port
        .describe()
        .unwrap_or_else(|error| panic!("{mutants}: describe failed: {error}"));
    let reference_description = reference
        .describe()
        .expect("the reference describes itself");
    let plan = differential::plan(&reference_description, &description, None);
    let options = Options {
        shrink: false,
        ..Options::new(2_000, 1)
    };
    let summary = differential::run(&plan, &mut reference, &mut port, &options, |_| {});
    let classes = summary
        .classes_by_size()
        .iter()
        .map(|class| format!("{} ({})", class.signature, class.count))
        .collect();
    (causes, classes)
}

/// The command that starts the fixture port `adapter` with `mutants`.
fn port_command(adapter: &str, mutants: &str) -> String {
    format!(
        "MUTANT='{mutants}' exec node --import {} {}",
        quoted(&fixtures().join("register.mjs")),
        quoted(&root().join(adapter))
    )
}

/// The causes `conformance` reports for the implementation `command` starts.
fn conformance_causes(command: &str) -> Vec<String> {
    let (_, report) = run(command);
    runner::report::causes(&report)
        .into_iter()
        .map(|cause| cause.signature)
        .collect()
}

/// Issue #45 (spec `runner.probes`): a lower op's bug explains a failure
/// only when substituting its answers reproduces it, so a pervasive bug of
/// a port's JSON layer (Python's `json.dumps` separators) or of its member
/// names (serde without `rename_all`) hides no other bug beside it. Each
/// fixture port's divergences are each one cause in `conformance` and one
/// class of the same name in `differential` (a bug that shows only beside
/// the rename too); the pervasive bug alone is one, and so is each bug of
/// a port that does not declare `retain`, a retention bug there included
/// (seen through its preparations, `prepare.retention.*`). The ports were
/// written before the suite was run on them.
#[test]
#[ignore = "heavy: thirteen whole runs of the suite and of 2 000 differential cases, on fixture ports"]
fn a_pervasive_lower_bug_hides_no_other_bug() {
    require_oracle();
    const NPM: &str = "conformance/adapters/upstream-npm/adapter.mjs";
    const RENAME: &str = "tests/fixtures/adapters/rename-port.mjs";
    const SPELLED: &str = "JSON spelled otherwise";
    const RENAMED: &str = "members renamed camelCase → snake_case";
    const RETENTION: &str = "snapshot: retention differs";
    // Without `retain`, no probe tells retention from projection: a
    // retention bug is named by what differs, the conversation.
    const CUT_UNTOLD: &str = "snapshot: conversation differs";
    let ports: &[(&str, &str, &[&str])] = &[
        (NPM, "json-python-separators", &[SPELLED]),
        (
            NPM,
            "json-python-separators+stats-compacted-missing",
            &["snapshot: member compacted missing", SPELLED],
        ),
        (
            NPM,
            "json-python-separators+data-cwd-null",
            &["snapshot: null written at cwd", SPELLED],
        ),
        (
            NPM,
            "json-python-separators+drop-order",
            &[SPELLED, RETENTION],
        ),
        // The URI's JSON literal with every non-ASCII unit escaped is the
        // escape it is, read through the base64url payload (issue #60).
        (
            NPM,
            "uri-ascii-only+whitespace",
            &["escape added", "mention: unexpected error"],
        ),
        // The rename alone (its control mutant changes nothing), then beside
        // a retention bug.
        (RENAME, "identity:head-tail-split", &[RENAMED]),
        (RENAME, "head-tail-split", &[RENAMED, RETENTION]),
        // A crash named for what differs, not for a stage of the pipeline.
        (
            "tests/fixtures/adapters/deep-copy-crash.mjs",
            "identity:head-tail-split",
            &["snapshot: unexpected error"],
        ),
    ];
    // A port that does not declare `retain` (no `retain` probe can be
    // asked): what its preparations' data show of it is learned instead.
    let without_retain: &[(&str, &[&str])] = &[
        (
            "json-python-separators+stats-compacted-missing",
            &["snapshot: member compacted missing", SPELLED],
        ),
        (
            "json-python-separators+data-cwd-null",
            &["snapshot: null written at cwd", SPELLED],
        ),
        (
            "seq-null",
            &["snapshot: null written at capturedThroughSeq"],
        ),
        ("json-python-separators+drop-order", &[SPELLED, CUT_UNTOLD]),
    ];
    const WITHOUT_RETAIN: &str = "tests/fixtures/adapters/without-retain.mjs";
    let every_port = ports
        .iter()
        .copied()
        .chain(
            without_retain
                .iter()
                .map(|(mutants, expected)| (WITHOUT_RETAIN, *mutants, *expected)),
        )
        .chain([(
            "tests/fixtures/adapters/rename-port-without-retain.mjs",
            "head-tail-split",
            &[RENAMED, CUT_UNTOLD][..],
        )]);
    let sorted = |names: &[&str]| {
        let mut names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        names.sort();
        names
    };
    let mut problems = Vec::new();
    for (adapter, mutants, expected) in every_port {
        let (causes, classes) = causes_and_classes(adapter, mutants);
        // Each bug one cause in `conformance`, and one class of the same
        // name in `differential`.
        let expected = sorted(expected);
        let mut causes_sorted = causes.clone();
        causes_sorted.sort();
        if causes_sorted != expected {
            problems.push(format!(
                "{adapter} {mutants}: conformance causes {causes:?}, expected {expected:?}"
            ));
        }
        let mut class_causes: Vec<String> = classes
            .iter()
            .map(|class| {
                class
                    .rsplit_once(" (")
                    .map_or(class.clone(), |(cause, _)| cause.to_owned())
            })
            .collect();
        class_causes.sort();
        if class_causes != expected {
            problems.push(format!(
                "{adapter} {mutants}: differential classes {classes:?}, expected {expected:?}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
