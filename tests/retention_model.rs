//! Retention against a slow, obviously-correct model written directly from
//! the upstream facts R1–R7 (`/work/shared/upstream-facts.md` §5): it lives
//! in `checks::retention_model`, shared with the fuzz targets.
//!
//! The model does what upstream's loop does, step by step: it keeps the data
//! object as a [`Json`] tree and re-serializes the whole of it with
//! `stringify_tag_safe` after every single change; it drops the lowest
//! droppable index one at a time (R2), truncates the longest current text
//! from its original (R3) with the binary search of R4 over a naive
//! head/tail retainer on the UTF-8 bytes (R5: code-point trimming, one
//! leading BOM dropped from each decoded part but still counted as kept).
//! The fast `retention::retain` keeps running sums instead; the two must
//! agree exactly.
//!
//! Properties (each over random snapshots built from JSON text, parsed with
//! `Snapshot::from_json_in` as rc.8 reads them and projected with `projection::project`):
//!
//! 1. fast and model agree: same data JSON, same stats, same `None`;
//! 2. the serialized data never exceeds the budget;
//! 3. data that fits whole is returned whole, with nothing omitted;
//! 4. retained + omitted = original messages, and `truncated` is exactly
//!    "something was omitted";
//! 5. `prepare::prepare` over 1–3 snapshots renders a prompt whose data
//!    part has no raw `<` and parses back to the model's data objects;
//! 6. `retention::truncate_with_notice` alone agrees with the model's R4.
//!
//! Deterministic tests: the facts' vectors V1, V2, V3, V5, V7, V10, V11 and
//! the BOM-in-tail sweep (§12), an exhaustive sweep of small cut budgets,
//! and a check that the generators reach every branch of the model.
//!
//! Failing cases are saved to `tests/retention_model.proptest-regressions`.

use dsh_session_reference::checks::retention_model as model;
use dsh_session_reference::config::{Config, NoModels};
use dsh_session_reference::features::Features;
use dsh_session_reference::js::json;
use dsh_session_reference::prepare::{self, Agent, Services};
use dsh_session_reference::projection;
use dsh_session_reference::retention::{self, Stats};
use dsh_session_reference::surface::{JsonSessions, Snapshot};
use dsh_session_reference::tag_safe::stringify_tag_safe;
use dsh_session_reference::{ErrorCode, Failure, JsString, Json};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/retention_model.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

// The model (facts R1–R7) lives in `checks::retention_model`, shared with
// the fuzz targets: one model for every check.

// ---------------------------------------------------------------------------
// The fast implementation, rendered
// ---------------------------------------------------------------------------

use dsh_session_reference::checks::fast_retain as fast;

// ---------------------------------------------------------------------------
// Strategies: snapshots as JSON text
// ---------------------------------------------------------------------------

/// A JSON string literal of exactly these code units: printable ASCII as is,
/// everything else as `\uXXXX` (so lone surrogates survive).
fn literal(units: &[u16]) -> String {
    let mut out = String::from("\"");
    for &unit in units {
        match unit {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x20..=0x7E => out.push(char::from(unit as u8)),
            _ => out.push_str(&format!("\\u{unit:04x}")),
        }
    }
    out.push('"');
    out
}

/// One character of text, as code units: biased to what changes JSON size
/// (`<`, `\n`, `"`, `\`, NUL), multi-byte UTF-8, U+FEFF and lone surrogates.
fn atom() -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![
        4 => Just(vec![0x3C]),
        3 => Just(vec![0x0A]),
        2 => Just(vec![0x22]),
        2 => Just(vec![0x5C]),
        10 => prop_oneof![0x41u16..=0x5A, 0x61u16..=0x7A].prop_map(|u| vec![u]),
        2 => Just(vec![0x20]),
        2 => prop::sample::select(vec![0xE9u16, 0xDF, 0x3B1, 0x7FF]).prop_map(|u| vec![u]),
        2 => prop::sample::select(vec![0x754Cu16, 0x20AC, 0x2026, 0xFFFD]).prop_map(|u| vec![u]),
        2 => prop::sample::select(vec![
            vec![0xD83Du16, 0xDE00],
            vec![0xD800, 0xDC00],
            vec![0xDBFF, 0xDFFF],
        ]),
        2 => Just(vec![0xFEFF]),
        2 => prop::sample::select(vec![0xD800u16, 0xDBFF, 0xDC00, 0xDFFF]).prop_map(|u| vec![u]),
        1 => Just(vec![0x00]),
        1 => prop::sample::select(vec![0x01u16, 0x1F, 0x7F, 0x08]).prop_map(|u| vec![u]),
    ]
}

/// Text of at most `max` characters, sometimes led by a BOM: characters
/// drawn from `atom` one by one, or in runs of one repeated character (so
/// that texts tie in length and mix plain and escape-heavy stretches).
fn text(max: usize) -> impl Strategy<Value = Vec<u16>> {
    let atoms = prop_oneof![
        3 => prop::collection::vec(atom(), 0..=max),
        3 => prop::collection::vec(
            (
                prop_oneof![atom(), (0x61u16..=0x63).prop_map(|u| vec![u])],
                prop_oneof![Just(1usize), Just(50), Just(100), Just(200), 0..=max],
            ),
            1..=3,
        )
        .prop_map(move |runs| {
            let mut atoms = Vec::new();
            for (atom, count) in runs {
                atoms.extend(std::iter::repeat_n(atom, count));
            }
            atoms.truncate(max);
            atoms
        }),
    ];
    (prop::bool::weighted(0.15), atoms).prop_map(|(bom, atoms)| {
        let mut units: Vec<u16> = if bom { vec![0xFEFF] } else { Vec::new() };
        units.extend(atoms.into_iter().flatten());
        units
    })
}

/// Short texts: ids, labels, working directories.
fn short_text() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(
        prop_oneof![
            4 => prop_oneof![0x61u16..=0x7A, Just(0x2F), Just(0x2D)].prop_map(|u| vec![u]),
            1 => Just(vec![0x3C]),
            1 => prop::sample::select(vec![0xD800u16, 0xDC00]).prop_map(|u| vec![u]),
            1 => prop::sample::select(vec![0x22u16, 0x5C, 0x0A, 0x754C]).prop_map(|u| vec![u]),
        ],
        0..8,
    )
    .prop_map(|atoms| atoms.into_iter().flatten().collect())
}

/// Content blocks of a message: text blocks (whose texts are joined) and,
/// sometimes, blocks projection skips.
fn content() -> impl Strategy<Value = String> {
    let block = prop_oneof![
        8 => text(300).prop_map(|t| format!(r#"{{"type":"text","text":{}}}"#, literal(&t))),
        1 => text(20).prop_map(|t| format!(r#"{{"type":"reasoning","text":{}}}"#, literal(&t))),
        1 => Just(r#"{"type":"text","text":7}"#.to_owned()),
    ];
    prop_oneof![
        6 => prop::collection::vec(block.clone(), 1..=1),
        2 => prop::collection::vec(block, 0..=3),
    ]
    .prop_map(|blocks| format!("[{}]", blocks.join(",")))
}

fn event() -> impl Strategy<Value = String> {
    let user = |source: &'static str| {
        content().prop_map(move |content| {
            format!(r#"{{"type":"user/message","data":{{"source":{source},"content":{content}}}}}"#)
        })
    };
    prop_oneof![
        4 => user(r#"{"kind":"user"}"#),
        3 => user(r#"{"kind":"plugin","plugin":"compact","compactionId":"c1"}"#),
        4 => content().prop_map(|content| format!(
            r#"{{"type":"assistant/message","data":{{"source":{{"kind":"model"}},"message":{{"role":"assistant","content":{content}}}}}}}"#
        )),
        1 => user(r#"{"kind":"plugin","plugin":"memory"}"#),
        1 => user(r#"{"kind":"session-reference"}"#),
        1 => Just(r#"{"type":"tool/result","data":{"callId":"t1","output":"<x>"}}"#.to_owned()),
    ]
}

/// A snapshot as JSON text: 0–8 events.
fn snapshot_json() -> impl Strategy<Value = String> {
    (
        short_text(),
        prop_oneof![
            2 => short_text().prop_map(|cwd| Some(literal(&cwd))),
            1 => Just(Some("null".to_owned())),
            1 => Just(None),
        ],
        prop_oneof![
            3 => (0u32..100_000).prop_map(|n| Some(n.to_string())),
            1 => Just(Some("null".to_owned())),
            1 => Just(Some("1.5".to_owned())),
            1 => Just(None),
        ],
        // Sometimes an event repeats the one before it, so that texts tie.
        prop::collection::vec((event(), prop::bool::weighted(0.2)), 0..=8).prop_map(|drawn| {
            let mut events: Vec<String> = Vec::new();
            for (event, repeat) in drawn {
                match events.last() {
                    Some(previous) if repeat => events.push(previous.clone()),
                    _ => events.push(event),
                }
            }
            events
        }),
    )
        .prop_map(|(id, cwd, seq, events)| {
            let mut header = format!(r#""id":{}"#, literal(&id));
            if let Some(cwd) = cwd {
                header.push_str(&format!(r#","cwd":{cwd}"#));
            }
            let mut text = format!(r#"{{"session":{{{header}}}"#);
            if let Some(seq) = seq {
                text.push_str(&format!(r#","capturedThroughSeq":{seq}"#));
            }
            text.push_str(&format!(r#","events":[{}]}}"#, events.join(",")));
            text
        })
}

/// The snapshot read as rc.8 reads it, which copies a `capturedThroughSeq`
/// outside the session-sequence domain (`1.5`) instead of refusing it as
/// the newest generation does (spec `surface.seq-outside-domain`); the
/// generated events are ones both generations read alike.
fn parse_snapshot(text: &str) -> (Json, Snapshot) {
    let value = json::parse(text).expect("generated snapshot JSON parses");
    let snapshot =
        Snapshot::from_json_in(&value, Features::RC8).expect("generated snapshot is well formed");
    (value, snapshot)
}

/// How the budget is chosen once the snapshot's whole size is known.
#[derive(Clone, Debug)]
enum Budget {
    /// A fixed budget, 1..=1200.
    Fixed(u64),
    /// The whole size plus -1, 0 or 1.
    AroundWhole(i64),
    /// A share of the whole size, in per mille.
    Share(u64),
}

fn budget() -> impl Strategy<Value = Budget> {
    prop_oneof![
        4 => (1u64..=1200).prop_map(Budget::Fixed),
        2 => (-1i64..=1).prop_map(Budget::AroundWhole),
        3 => (0u64..=1000).prop_map(Budget::Share),
    ]
}

fn resolve(budget: &Budget, whole: usize) -> u64 {
    let resolved = match *budget {
        Budget::Fixed(bytes) => bytes,
        Budget::AroundWhole(delta) => (whole as i64 + delta) as u64,
        Budget::Share(per_mille) => whole as u64 * per_mille / 1000,
    };
    resolved.max(1)
}

/// A snapshot, its label and a budget.
fn case() -> impl Strategy<Value = (String, Vec<u16>, Budget)> {
    (snapshot_json(), short_text(), budget())
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    /// 1. Fast and model agree exactly.
    #[test]
    fn fast_retention_matches_the_model((text, label, budget) in case()) {
        let (_, snapshot) = parse_snapshot(&text);
        let max = resolve(&budget, model::whole(&snapshot, &label).len());
        let expected = model::retain(&snapshot, &label, max as usize);
        let actual = fast(&snapshot, &label, max);
        prop_assert_eq!(actual, expected, "budget {}", max);
    }

    /// 2. The serialized data never exceeds the budget.
    #[test]
    fn retained_data_fits_the_budget((text, label, budget) in case()) {
        let (_, snapshot) = parse_snapshot(&text);
        let max = resolve(&budget, model::whole(&snapshot, &label).len());
        if let Some((data, _)) = fast(&snapshot, &label, max) {
            prop_assert!(data.len() as u64 <= max, "{} > {}: {}", data.len(), max, data);
        }
    }

    /// 3. Data that fits whole is returned whole, nothing omitted.
    #[test]
    fn data_that_fits_is_kept_whole(
        (text, label, _) in case(),
        slack in prop_oneof![Just(0u64), 1u64..=64],
    ) {
        let (_, snapshot) = parse_snapshot(&text);
        let whole = model::whole(&snapshot, &label);
        let max = whole.len() as u64 + slack;
        let (data, stats) = fast(&snapshot, &label, max).expect("whole data fits");
        prop_assert_eq!(&data, &whole);
        let items = projection::project(&snapshot);
        prop_assert_eq!(stats, Stats {
            compacted: items.iter().any(|item| item.checkpoint),
            original_messages: items.len(),
            retained_messages: items.len(),
            omitted_messages: 0,
            omitted_bytes: 0,
            truncated: false,
        });
    }

    /// 4. Message accounting and the truncated flag.
    #[test]
    fn stats_are_consistent((text, label, budget) in case()) {
        let (_, snapshot) = parse_snapshot(&text);
        let max = resolve(&budget, model::whole(&snapshot, &label).len());
        if let Some((data, stats)) = fast(&snapshot, &label, max) {
            prop_assert_eq!(
                stats.retained_messages + stats.omitted_messages,
                stats.original_messages
            );
            prop_assert_eq!(stats.original_messages, projection::project(&snapshot).len());
            prop_assert_eq!(
                stats.truncated,
                stats.omitted_messages > 0 || stats.omitted_bytes > 0
            );
            let parsed = json::parse(&data).expect("data parses");
            let conversation = parsed.get("conversation").and_then(Json::as_array).map(<[Json]>::len);
            prop_assert_eq!(conversation, Some(stats.retained_messages));
        }
    }
}

/// A text and a `truncateWithNotice` output budget: anywhere up to the
/// text's size, or near the size of a bare notice (31 + digits bytes),
/// where the search ends at a cut of 0 bytes.
fn cut_case() -> impl Strategy<Value = (Vec<u16>, usize)> {
    (
        text(300),
        prop_oneof![
            2 => (0usize..=1000).prop_map(|per_mille| (per_mille, None)),
            1 => (30usize..=38).prop_map(|bytes| (0, Some(bytes))),
        ],
    )
        .prop_map(|(text, (per_mille, near_notice))| {
            let total = model::byte_length(&text);
            let max_out = near_notice.unwrap_or((total + 2) * per_mille / 1000);
            (text, max_out)
        })
}

proptest! {
    #![proptest_config(config(512))]

    /// 6. `truncateWithNotice` alone: fast and model agree.
    #[test]
    fn cut_search_matches_the_model((text, max_out) in cut_case()) {
        prop_assert_eq!(
            retention::truncate_with_notice(&text, max_out),
            model::truncate_with_notice(&text, max_out),
            "max_out {}", max_out
        );
    }
}

/// 1–3 snapshots with labels, and one budget for all.
fn prepare_case() -> impl Strategy<Value = (Vec<(String, Vec<u16>)>, Budget)> {
    (
        prop::collection::vec((snapshot_json(), short_text()), 1..=3),
        budget(),
    )
}

const OPEN: &str = "<referenced-sessions>\n";
const CLOSE: &str = "\n</referenced-sessions>";

proptest! {
    #![proptest_config(config(256))]

    /// 5. `prepare` renders tag-safe data that parses back to the model's
    ///    data objects, and fails with BUDGET_EXCEEDED exactly when one
    ///    reference cannot fit.
    #[test]
    fn prepared_prompt_is_tag_safe_and_parses((sources, budget) in prepare_case()) {
        let mut members = Vec::new();
        let mut references = Vec::new();
        let mut snapshots = Vec::new();
        for (index, (text, label)) in sources.iter().enumerate() {
            let (value, snapshot) = parse_snapshot(text);
            // Requested ids are distinct; the header id (which the data
            // shows) is whatever the snapshot says.
            let key = JsString::from(format!("ref-{index}"));
            members.push((key.clone(), value));
            references.push(Json::object([
                ("sessionId", Json::String(key)),
                ("label", Json::String(JsString::from_units(label.clone()))),
            ]));
            snapshots.push(snapshot);
        }
        let whole = snapshots
            .iter()
            .zip(&sources)
            .map(|(snapshot, (_, label))| model::whole(snapshot, label).len())
            .max()
            .unwrap_or(0);
        let max = resolve(&budget, whole);
        let expected: Vec<Option<String>> = snapshots
            .iter()
            .zip(&sources)
            .map(|(snapshot, (_, label))| model::retain(snapshot, label, max as usize).map(|(d, _)| d))
            .collect();

        let sessions = Json::Object(members);
        // Read as parse_snapshot reads them.
        let reader = JsonSessions::with_features(&sessions, Features::RC8);
        let config = Config { max_reference_bytes: Some(max), ..Config::default() };
        let agent = Agent { id: Some(JsString::from("agent-self")), route: None };
        let services = Services { reader: &reader, spill: None, models: &NoModels, cancelled: &|| false };
        let content = Json::Array(vec![Json::object([
            ("type", Json::str("text")),
            ("text", Json::str("hi")),
        ])]);
        let result = prepare::prepare(
            &config,
            &agent,
            &content,
            &Json::Array(references),
            &services,
        );
        if expected.iter().any(Option::is_none) {
            match result {
                Err(Failure::Contract(error)) => {
                    prop_assert_eq!(error.code, ErrorCode::BudgetExceeded);
                }
                other => prop_assert!(false, "expected BUDGET_EXCEEDED, got {:?}", other),
            }
            return Ok(());
        }
        let prepared = result.expect("prepare succeeds when every reference fits");
        prop_assert_eq!(&prepared.content, &content);
        let prompt = prepared.context.expect("a context").prompt;
        let start = prompt.find(OPEN).expect("opening tag") + OPEN.len();
        let end = start + prompt[start..].find(CLOSE).expect("closing tag");
        let data = &prompt[start..end];
        prop_assert!(!data.contains('<'), "raw < in {}", data);
        let parsed = json::parse(data).expect("the data array parses");
        let items = parsed.as_array().expect("an array");
        prop_assert_eq!(items.len(), expected.len());
        for (item, expected) in items.iter().zip(&expected) {
            prop_assert!(matches!(item, Json::Object(_)));
            prop_assert_eq!(Some(stringify_tag_safe(item)), expected.clone());
        }
    }
}

// ---------------------------------------------------------------------------
// Vectors (facts §12), with the fast implementation
// ---------------------------------------------------------------------------

fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// Events: `U` direct user, `A` assistant, `C` checkpoint.
fn vector_snapshot(events: &[(char, Vec<u16>)]) -> Snapshot {
    let events: Vec<String> = events
        .iter()
        .map(|(kind, text)| {
            let content = format!(r#"[{{"type":"text","text":{}}}]"#, literal(text));
            match kind {
                'U' => format!(
                    r#"{{"type":"user/message","data":{{"source":{{"kind":"user"}},"content":{content}}}}}"#
                ),
                'C' => format!(
                    r#"{{"type":"user/message","data":{{"source":{{"kind":"plugin","plugin":"compact"}},"content":{content}}}}}"#
                ),
                'A' => format!(
                    r#"{{"type":"assistant/message","data":{{"message":{{"content":{content}}}}}}}"#
                ),
                _ => unreachable!("event kind {kind}"),
            }
        })
        .collect();
    let text = format!(
        r#"{{"session":{{"id":"s","cwd":"/w"}},"capturedThroughSeq":7,"events":[{}]}}"#,
        events.join(",")
    );
    parse_snapshot(&text).1
}

fn notice(omitted: usize) -> String {
    format!("\n[\u{2026} omitted {omitted} UTF-8 bytes \u{2026}]")
}

/// The expected tag-safe data object for a conversation of (role, text).
fn vector_data(conversation: &[(&str, String)]) -> String {
    let items: Vec<String> = conversation
        .iter()
        .map(|(role, text)| {
            let mut quoted = String::new();
            json::push_quoted(&units(text), true, &mut quoted);
            format!(r#"{{"role":"{role}","text":{quoted}}}"#)
        })
        .collect();
    format!(
        r#"{{"sessionId":"s","label":"L","cwd":"/w","capturedThroughSeq":7,"conversation":[{}]}}"#,
        items.join(",")
    )
}

fn stats(
    compacted: bool,
    original_messages: usize,
    retained_messages: usize,
    omitted_messages: usize,
    omitted_bytes: usize,
    truncated: bool,
) -> Stats {
    Stats {
        compacted,
        original_messages,
        retained_messages,
        omitted_messages,
        omitted_bytes,
        truncated,
    }
}

fn check_vector(
    name: &str,
    events: &[(char, Vec<u16>)],
    max: u64,
    expected: Option<(String, Stats)>,
) {
    let snapshot = vector_snapshot(events);
    let label = units("L");
    let actual = fast(&snapshot, &label, max);
    assert_eq!(actual, expected, "{name}: fast");
    assert_eq!(
        model::retain(&snapshot, &label, max as usize),
        expected,
        "{name}: model"
    );
}

#[test]
fn facts_vectors() {
    let repeat = |text: &str, n: usize| units(&text.repeat(n));
    assert_eq!(
        fast(&vector_snapshot(&[]), &units("L"), 1000)
            .expect("fits")
            .0
            .len(),
        81,
        "fixed data object"
    );

    check_vector(
        "V1",
        &[
            ('U', units("small1")),
            ('U', units("small2")),
            ('A', repeat("x", 500)),
        ],
        281,
        Some((
            vector_data(&[("assistant", "x".repeat(135) + &notice(365))]),
            stats(false, 3, 1, 2, 377, true),
        )),
    );
    check_vector(
        "V2",
        &[
            ('U', units("u1")),
            ('C', units("cp1")),
            ('A', units("a1")),
            ('U', units("u2")),
            ('C', units("cp2")),
            ('A', units("newest")),
        ],
        231,
        Some((
            vector_data(&[
                ("user", "cp1".to_owned()),
                ("user", "u2".to_owned()),
                ("user", "cp2".to_owned()),
                ("assistant", "newest".to_owned()),
            ]),
            stats(true, 6, 4, 2, 4, true),
        )),
    );
    check_vector(
        "V3",
        &[('A', repeat("<", 100))],
        281,
        Some((
            vector_data(&[("assistant", String::new())]),
            stats(false, 1, 1, 0, 100, true),
        )),
    );
    check_vector(
        "V5",
        &[('A', units(&format!("\u{FEFF}{}", "q".repeat(200))))],
        201,
        Some((
            vector_data(&[("assistant", "q".repeat(55) + &notice(145))]),
            stats(false, 1, 1, 0, 145, true),
        )),
    );
    check_vector("V7", &[('A', repeat("z", 100))], 110, None);
    check_vector(
        "V10",
        &[('C', repeat("C", 300)), ('A', repeat("y", 100))],
        281,
        Some((
            vector_data(&[
                ("user", "C".repeat(10) + &notice(290)),
                ("assistant", "y".repeat(65) + &notice(35)),
            ]),
            stats(true, 2, 2, 0, 325, true),
        )),
    );
    check_vector(
        "V11",
        &[('C', repeat("a", 200)), ('A', repeat("b", 200))],
        331,
        Some((
            vector_data(&[
                ("user", String::new()),
                ("assistant", "b".repeat(160) + &notice(40)),
            ]),
            stats(true, 2, 2, 0, 240, true),
        )),
    );
}

/// Facts §12, BOM-in-tail sweep: for budgets 168–172 the tail cut lands on
/// the U+FEFF, which the decoder drops while the accounting keeps it.
#[test]
fn bom_in_tail_sweep() {
    let text = units(&format!("{}\u{FEFF}{}", "q".repeat(100), "r".repeat(10)));
    let snapshot = vector_snapshot(&[('A', text)]);
    let label = units("L");
    for max in 150..=189u64 {
        let (data, stats) = fast(&snapshot, &label, max).expect("fits");
        assert_eq!(
            Some((data.clone(), stats)),
            model::retain(&snapshot, &label, max as usize),
            "max {max}: model"
        );
        let parsed = json::parse(&data).expect("data parses");
        let text = parsed
            .get("conversation")
            .and_then(Json::as_array)
            .and_then(|items| items.first())
            .and_then(|item| item.get("text"))
            .and_then(Json::as_string)
            .expect("one text");
        let visible = text.len() - notice(stats.omitted_bytes).len();
        let expected = if (168..=172).contains(&max) { 110 } else { 113 };
        assert_eq!(
            visible + stats.omitted_bytes,
            expected,
            "max {max}: {text:?}"
        );
    }
}

/// The generators reach every branch of retention: whole fits, drops,
/// cuts with a notice, texts wiped to `""`, failures, and BOMs stripped.
#[test]
fn generators_reach_every_case() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let strategy = case();
    let mut counts = [0usize; 8];
    for _ in 0..512 {
        let (text, label, budget) = strategy.new_tree(&mut runner).expect("a case").current();
        let (_, snapshot) = parse_snapshot(&text);
        let max = resolve(&budget, model::whole(&snapshot, &label).len());
        let before = model::TRACE.get();
        let outcome = model::retain(&snapshot, &label, max as usize);
        let after = model::TRACE.get();
        let cases = match &outcome {
            None => [0, 0, 0, 0, 1],
            Some((_, stats)) if !stats.truncated => [1, 0, 0, 0, 0],
            Some((data, stats)) => [
                0,
                usize::from(stats.omitted_messages > 0),
                usize::from(data.contains(" UTF-8 bytes \u{2026}]\"")),
                usize::from(data.contains(r#""text":""}"#)),
                0,
            ],
        };
        let branches = [
            after.boms_stripped > before.boms_stripped,
            after.recuts > before.recuts,
            after.ties > before.ties,
        ];
        for (count, hit) in counts
            .iter_mut()
            .zip(cases.into_iter().chain(branches.map(usize::from)))
        {
            *count += hit;
        }
    }
    eprintln!("whole, dropped, cut, wiped, failed, BOM stripped, re-cut, tie: {counts:?}");
    assert!(counts.iter().all(|&count| count >= 10), "{counts:?}");

    // The cut search alone: excerpts, a bare notice (a cut of 0 bytes), "".
    let strategy = cut_case();
    let mut counts = [0usize; 3];
    for _ in 0..512 {
        let (text, max_out) = strategy.new_tree(&mut runner).expect("a case").current();
        let (cut, omitted) = model::truncate_with_notice(&text, max_out);
        let cut = String::from_utf16_lossy(&cut);
        let bare = notice(omitted);
        let index = if cut.is_empty() {
            2
        } else if cut == bare {
            1
        } else {
            0
        };
        counts[index] += usize::from(omitted > 0);
    }
    eprintln!("excerpt, bare notice, empty: {counts:?}");
    assert!(counts.iter().all(|&count| count >= 10), "{counts:?}");
}

/// `truncateWithNotice` on every small output budget, for texts whose byte
/// length crosses a digit boundary of the notice (10, 100, 1000), with
/// multi-byte characters and BOMs at either end.
#[test]
fn cut_search_small_budgets_exhaustive() {
    let lengths = (1..=40).chain(95..=105).chain(995..=1005);
    for count in lengths {
        let texts = [
            "a".repeat(count),
            "\u{754C}".repeat(count),
            "\u{1F600}".repeat(count),
            format!("\u{FEFF}{}", "q".repeat(count)),
            format!("{}\u{FEFF}", "q".repeat(count)),
            format!("\u{E9}{}\u{1F600}", "<".repeat(count)),
        ];
        for text in texts {
            let text = units(&text);
            let total = model::byte_length(&text);
            for max_out in (0..=60).chain(total.saturating_sub(3)..=total + 1) {
                assert_eq!(
                    retention::truncate_with_notice(&text, max_out),
                    model::truncate_with_notice(&text, max_out),
                    "{} bytes, max_out {max_out}",
                    total
                );
            }
        }
    }
}
