//! Property tests for the URI codec, the mention parser and tag-safe JSON.
//!
//! Strings are JavaScript strings, so every strategy here builds UTF-16
//! code-unit vectors (`any::<String>()` never yields a lone surrogate),
//! biased toward the characters the grammar cares about. Property 7 checks
//! the linear mention parser against `model`, a direct position-by-position
//! reading of the upstream pattern that serves as the test oracle.
//!
//! Failing cases are saved to `tests/properties.proptest-regressions`.

use dsh_session_reference::harness::strategies::*;
use dsh_session_reference::js::json;
use dsh_session_reference::{mention, tag_safe, uri, ErrorCode, JsString};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/properties.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// The oracle: a naive model of the mention pattern
// ---------------------------------------------------------------------------

mod model {
    /// JavaScript `\s`, written out from the ECMAScript definition.
    pub fn is_js_space(unit: u16) -> bool {
        matches!(
            unit,
            0x09..=0x0D
                | 0x20
                | 0xA0
                | 0x1680
                | 0x2000..=0x200A
                | 0x2028
                | 0x2029
                | 0x202F
                | 0x205F
                | 0x3000
                | 0xFEFF
        )
    }

    fn is_line_terminator(unit: u16) -> bool {
        matches!(unit, 0x0A | 0x0D | 0x2028 | 0x2029)
    }

    /// Code units in the code point at `i`: a surrogate pair is one code point.
    pub fn cp_len(text: &[u16], i: usize) -> usize {
        let high = (0xD800..=0xDBFF).contains(&text[i]);
        let low_next = text
            .get(i + 1)
            .is_some_and(|u| (0xDC00..=0xDFFF).contains(u));
        if high && low_next {
            2
        } else {
            1
        }
    }

    fn is_payload(unit: u16) -> bool {
        matches!(unit, 0x41..=0x5A | 0x61..=0x7A | 0x30..=0x39 | 0x2D | 0x5F)
    }

    fn starts_with(text: &[u16], at: usize, literal: &str) -> bool {
        let literal: Vec<u16> = literal.encode_utf16().collect();
        text.get(at..)
            .is_some_and(|rest| rest.starts_with(&literal))
    }

    /// One match: its span, its URI span and (alternative A) its raw label span.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Span {
        pub start: usize,
        pub end: usize,
        pub uri: (usize, usize),
        pub label: Option<(usize, usize)>,
    }

    /// Alternative A at `at`: `@[` label `](dsh-session:` [^\s)]* `)`.
    fn try_a(text: &[u16], at: usize) -> Option<Span> {
        if !starts_with(text, at, "@[") {
            return None;
        }
        let label_start = at + 2;
        let mut i = label_start;
        // Label units. The two kinds start with different code units and a
        // label unit never starts with an unescaped `]`, so the first `]`
        // the loop meets is the only place the label can end.
        loop {
            let unit = *text.get(i)?;
            if unit == u16::from(b']') {
                break;
            }
            if unit == u16::from(b'\\') {
                let next = *text.get(i + 1)?;
                if is_line_terminator(next) {
                    return None;
                }
                i += 1 + cp_len(text, i + 1);
            } else {
                i += cp_len(text, i);
            }
        }
        let label_end = i;
        if !starts_with(text, label_end, "](dsh-session:") {
            return None;
        }
        let uri_start = label_end + 2;
        let mut j = uri_start + "dsh-session:".len();
        // [^\s)]* never contains `)`, so it must stop right before the `)`.
        while j < text.len() && !is_js_space(text[j]) && text[j] != u16::from(b')') {
            j += cp_len(text, j);
        }
        if text.get(j) != Some(&u16::from(b')')) {
            return None;
        }
        Some(Span {
            start: at,
            end: j + 1,
            uri: (uri_start, j),
            label: Some((label_start, label_end)),
        })
    }

    /// Alternative B at `at`: `dsh-session:` [A-Za-z0-9_-]+, greedy.
    fn try_b(text: &[u16], at: usize) -> Option<Span> {
        if !starts_with(text, at, "dsh-session:") {
            return None;
        }
        let payload_start = at + "dsh-session:".len();
        let mut j = payload_start;
        while j < text.len() && is_payload(text[j]) {
            j += 1;
        }
        (j > payload_start).then_some(Span {
            start: at,
            end: j,
            uri: (at, j),
            label: None,
        })
    }

    /// Every match of the global, Unicode-mode pattern, left to right.
    pub fn matches(text: &[u16]) -> Vec<Span> {
        let mut spans = Vec::new();
        let mut i = 0;
        while i < text.len() {
            match try_a(text, i).or_else(|| try_b(text, i)) {
                Some(span) => {
                    i = span.end;
                    spans.push(span);
                }
                None => i += cp_len(text, i),
            }
        }
        spans
    }

    /// The label with each `\` + code point replaced by that code point.
    pub fn unescape(raw: &[u16]) -> Vec<u16> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < raw.len() {
            if raw[i] == u16::from(b'\\') {
                i += 1;
            }
            let n = cp_len(raw, i);
            out.extend_from_slice(&raw[i..i + n]);
            i += n;
        }
        out
    }
}

#[test]
fn model_finds_the_expected_spans() {
    let cases: &[(&str, &[(usize, usize)])] = &[
        ("", &[]),
        ("hi @[Lab](dsh-session:InMxIg) x", &[(3, 29)]),
        ("dsh-session:InMxIg.", &[(0, 18)]),
        ("dsh-session:", &[]),
        ("xdsh-session:a-b_c d", &[(1, 18)]),
        // A broken explicit mention falls through to the bare URI inside it.
        ("@[x](dsh-session:InMxIg )", &[(5, 23)]),
        // The label runs to the first unescaped `]`, even across an `@[`.
        (
            "@[@[x](dsh-session:InMxIg)](dsh-session:InMyIg)",
            &[(0, 26), (28, 46)],
        ),
        // Escaped `]` and `\` stay in the label.
        (r"@[a\]b\\c](dsh-session:ImFdYlxcYyI)", &[(0, 35)]),
        // A backslash before a line terminator ends the label attempt.
        ("@[a\\\nb](dsh-session:x)", &[(8, 21)]),
        // The URI run of an explicit mention is not restricted to base64url.
        ("@[a](dsh-session:!?)", &[(0, 20)]),
        ("@[a](dsh-session:)", &[(0, 18)]),
        ("@[]](dsh-session:x)", &[(5, 18)]),
        ("@[@[a](dsh-session:x)", &[(0, 21)]),
        ("dsh-session:dsh-session:x", &[(0, 23)]),
    ];
    for (text, expected) in cases {
        let spans: Vec<(usize, usize)> = model::matches(&units(text))
            .into_iter()
            .map(|span| (span.start, span.end))
            .collect();
        assert_eq!(&spans, expected, "spans of {text:?}");
    }
    // U+FEFF is JavaScript whitespace and ends the URI run; U+0085 is not.
    assert_eq!(
        model::matches(&units("@[a](dsh-session:x\u{feff})"))[0].start,
        5
    );
    assert_eq!(
        model::matches(&units("@[a](dsh-session:x\u{85})"))[0].end,
        20
    );
    // A backslash escapes a whole surrogate pair; a lone surrogate is one code point.
    let mut text = units("@[\\");
    text.extend([0xD83D, 0xDE00, 0xDC00]);
    text.extend(units("](dsh-session:InMxIg)"));
    let spans = model::matches(&text);
    assert_eq!((spans[0].start, spans[0].end), (0, text.len()));
    assert_eq!(model::unescape(&text[2..6]), vec![0xD83D, 0xDE00, 0xDC00]);
    // `@[` then `\` at the very end, and a bare scheme at the very end.
    assert!(model::matches(&units("@[\\")).is_empty());
    assert!(model::matches(&units("a dsh-session:")).is_empty());
}

#[test]
fn near_miss_texts_exercise_both_alternatives_and_failures() {
    // Guard against a vacuous property 7: the text strategy must produce
    // explicit matches, bare matches, failing URIs and clean texts.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strategy = text();
    let (mut explicit, mut bare, mut failing, mut ok) = (0, 0, 0, 0);
    for _ in 0..512 {
        let text = strategy.new_tree(&mut runner).expect("tree").current();
        let spans = model::matches(&text);
        explicit += spans.iter().filter(|s| s.label.is_some()).count();
        bare += spans.iter().filter(|s| s.label.is_none()).count();
        if spans
            .iter()
            .any(|s| uri::decode(&text[s.uri.0..s.uri.1]).is_err())
        {
            failing += 1;
        } else if !spans.is_empty() {
            ok += 1;
        }
    }
    assert!(explicit > 200, "explicit matches: {explicit}");
    assert!(bare > 200, "bare matches: {bare}");
    assert!(failing > 50, "texts with a failing URI: {failing}");
    assert!(ok > 50, "texts whose matches all decode: {ok}");
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// 1. decode ∘ encode is the identity on ids.
    #[test]
    fn uri_decode_inverts_encode(id in js_units(16)) {
        let encoded = units(&uri::encode(&id));
        prop_assert_eq!(uri::decode(&encoded), Ok(JsString::from_units(id)));
    }

    /// 2. decode never panics, and accepts exactly the image of encode.
    #[test]
    fn uri_decode_accepts_only_canonical_uris(input in near_uri()) {
        match uri::decode(&input) {
            Ok(id) => prop_assert_eq!(units(&uri::encode(id.units())), input),
            Err(error) => {
                prop_assert_eq!(error.code, ErrorCode::InvalidReference);
                prop_assert_eq!(
                    error.message,
                    format!("invalid session reference URI {}", json::quote(&input))
                );
            }
        }
    }

    /// 3. parse ∘ format gives one reference and `@` + label.
    #[test]
    fn parse_inverts_format(id in js_units(10), label in prop::option::of(js_units(10))) {
        let formatted = mention::format(&id, label.as_deref());
        let parsed = mention::parse(formatted.units()).expect("a formatted mention parses");
        let shown = label.unwrap_or_else(|| id.clone());
        prop_assert_eq!(parsed.text.units(), &[&[0x40u16][..], &shown[..]].concat()[..]);
        prop_assert_eq!(parsed.references.len(), 1);
        prop_assert_eq!(parsed.references[0].session_id.units(), &id[..]);
        prop_assert_eq!(parsed.references[0].label.units(), &shown[..]);
    }

    /// 4. parse never panics; without references the text is unchanged.
    #[test]
    fn parse_is_total(text in prop_oneof![text(), js_units(48)]) {
        if let Ok(parsed) = mention::parse(&text) {
            if parsed.references.is_empty() {
                prop_assert_eq!(parsed.text.units(), &text[..]);
            }
        }
    }

    /// 5a. Tag-safe JSON has no `<` and parses back to the same JS value.
    #[test]
    fn tag_safe_json_round_trips(value in json_tree(finite_number())) {
        let out = tag_safe::stringify_tag_safe(&value);
        prop_assert!(!out.contains('<'), "{}", out);
        let back = json::parse(&out).expect("tag-safe output is JSON");
        prop_assert_eq!(json::stringify(&back), json::stringify(&value));
    }

    /// 5b. The wire form keeps the tree exactly: order and duplicates.
    #[test]
    fn wire_json_round_trips(
        value in json_tree(finite_number().prop_filter("not -0", |n| {
            !(*n == 0.0 && n.is_sign_negative())
        }))
    ) {
        let wire = json::to_wire(&value);
        prop_assert_eq!(json::parse(&wire), Ok(value));
    }

    /// 7. The linear parser agrees with the naive model.
    #[test]
    fn parse_agrees_with_the_model(text in text()) {
        let spans = model::matches(&text);
        let first_failure = spans
            .iter()
            .map(|span| &text[span.uri.0..span.uri.1])
            .find_map(|uri_units| uri::decode(uri_units).err());
        match (mention::parse(&text), first_failure) {
            (Err(actual), Some(expected)) => prop_assert_eq!(actual, expected),
            (Err(actual), None) => {
                prop_assert!(false, "parse failed with {} but the model decodes all of {:?}", actual, spans)
            }
            (Ok(parsed), Some(expected)) => {
                prop_assert!(false, "parse succeeded with {:?} but the model expects {}", parsed, expected)
            }
            (Ok(parsed), None) => {
                let mut out = Vec::new();
                let mut references = Vec::new();
                let mut copied = 0;
                for span in &spans {
                    let id = uri::decode(&text[span.uri.0..span.uri.1]).expect("decodes");
                    let label = match span.label {
                        Some((start, end)) => model::unescape(&text[start..end]),
                        None => id.units().to_vec(),
                    };
                    out.extend_from_slice(&text[copied..span.start]);
                    out.push(0x40);
                    out.extend_from_slice(&label);
                    copied = span.end;
                    references.push(mention::Reference {
                        session_id: id,
                        label: JsString::from_units(label),
                    });
                }
                out.extend_from_slice(&text[copied..]);
                prop_assert_eq!(parsed.text, JsString::from_units(out));
                prop_assert_eq!(parsed.references, references);
            }
        }
    }
}
