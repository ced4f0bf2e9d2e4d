//! Named snapshots of representative renderings, stored in `tests/snapshots/`.
//!
//! insta trims trailing whitespace when it compares, so every test also
//! pins the exact byte length of the rendered value.

use dsh_session_reference::js::json;
use dsh_session_reference::{mention, tag_safe, uri, JsString};
use std::fmt::Write as _;

fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// Runs `body` with snapshots in `tests/snapshots/`, named without a module prefix.
fn in_snapshot_dir(body: impl FnOnce()) {
    insta::with_settings!({snapshot_path => "snapshots", prepend_module_to_snapshot => false}, {
        body();
    });
}

#[test]
fn formatted_mention_with_escaped_label() {
    let mention = mention::format(&units("s1"), Some(&units(r"Plan [v2] \ notes]")));
    let rendered = mention.to_str().expect("no lone surrogates");
    assert_eq!(rendered, r"@[Plan [v2\] \\ notes\]](dsh-session:InMxIg)");
    assert_eq!(rendered.len(), 44);
    in_snapshot_dir(|| insta::assert_snapshot!("formatted_mention_escaped_label", rendered));
}

#[test]
fn parse_result_as_readable_text() {
    let mut text = units("see @[Lab \\] one](dsh-session:InMxIg), dsh-session:InMyIg and @[");
    // A lone surrogate and an invisible code point, shown as escapes by Debug.
    text.extend([0xD800, 0x2028]);
    text.extend(units("](dsh-session:ImFcdWQ4MDBiIg)."));
    let parsed = mention::parse(&text).expect("parses");
    let mut rendered = String::new();
    writeln!(rendered, "text: {:?}", parsed.text).unwrap();
    for (index, reference) in parsed.references.iter().enumerate() {
        writeln!(
            rendered,
            "reference {index}: session_id={:?} label={:?}",
            reference.session_id, reference.label
        )
        .unwrap();
    }
    assert_eq!(rendered.len(), 190, "{rendered}");
    in_snapshot_dir(|| insta::assert_snapshot!("parse_result_readable", rendered));
}

#[test]
fn tag_safe_snapshot_data() {
    let data = json::parse(
        r#"{"sessionId":"s1","label":"L","cwd":"/w","capturedThroughSeq":4,"conversation":[{"role":"user","text":"hello <b>"},{"role":"assistant","text":"hi"}]}"#,
    )
    .expect("valid JSON");
    let rendered = tag_safe::stringify_tag_safe(&data);
    // Upstream-verified output.
    assert_eq!(
        rendered,
        r#"{"sessionId":"s1","label":"L","cwd":"/w","capturedThroughSeq":4,"conversation":[{"role":"user","text":"hello \u003cb>"},{"role":"assistant","text":"hi"}]}"#
    );
    assert_eq!(rendered.len(), 154);
    in_snapshot_dir(|| insta::assert_snapshot!("tag_safe_snapshot_data", rendered));
}

#[test]
fn uri_table() {
    let ids: Vec<Vec<u16>> = vec![
        units(""),
        units("s1"),
        units("abc"),
        units("<tag>"),
        units("a\"b\\c"),
        units("line\nbreak"),
        units("café"),
        units("😀"),
        vec![0x61, 0xD800, 0x62],
        vec![0xDC00],
    ];
    let mut rendered = String::new();
    for id in &ids {
        let encoded = uri::encode(id);
        assert_eq!(
            uri::decode(&units(&encoded)),
            Ok(JsString::from_units(id.clone()))
        );
        writeln!(
            rendered,
            "{:?} => {encoded}",
            JsString::from_units(id.clone())
        )
        .unwrap();
    }
    assert_eq!(rendered.len(), 340, "{rendered}");
    in_snapshot_dir(|| insta::assert_snapshot!("uri_table", rendered));
}
