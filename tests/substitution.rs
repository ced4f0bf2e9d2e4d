//! Attribution by substitution (spec `runner.probes`): each op the runner
//! probes is the composition of its lower ops, so that putting an
//! implementation's lower answers in place of the reference's is a run of
//! the reference with that implementation's lower layer. These tests hold
//! the composition to the reference: given the reference's own lower
//! answers, it answers every vector of the suite as the reference does.

use dsh_session_reference::harness::runner::probes::{agrees, Probe};
use dsh_session_reference::harness::runner::substitution::{compose, Composed};
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::harness::runner::{ops, reference_profiles};
use dsh_session_reference::protocol::dispatch;
use std::path::Path;

#[test]
fn composed_of_the_references_lower_answers_the_reference_answers_every_vector() {
    let suite = Suite::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/vectors"))
        .expect("the suite");
    let mut composed = 0;
    let mut wrong = Vec::new();
    for (_, vector) in suite.vectors() {
        for (profile, features) in reference_profiles(vector) {
            let own = dispatch::handle_in(features, &vector.op, &vector.input);
            let mut reference = |probe: &Probe| {
                Some(Composed::Answer(dispatch::handle_in(
                    features,
                    probe.op,
                    &probe.input,
                )))
            };
            let Some(Composed::Answer(answer)) =
                compose(features, &vector.op, &vector.input, &own, &mut reference)
            else {
                continue;
            };
            composed += 1;
            if !agrees(&own, &Ok(answer.clone())) {
                wrong.push(format!(
                    "{} {} ({profile}): {:?} vs {:?}",
                    vector.op, vector.id, answer, own
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {composed} compositions differ from the reference: {}",
        wrong.len(),
        {
            let mut seen = std::collections::BTreeMap::new();
            for w in &wrong {
                seen.entry(w.split(' ').next().unwrap().to_owned())
                    .or_insert_with(Vec::new)
                    .push(w.clone());
            }
            seen.values()
                .map(|v| format!("{} x{}", &v[0][..v[0].len().min(1500)], v.len()))
                .collect::<Vec<_>>()
                .join("\n\n")
        }
    );
    assert!(composed > 2000, "only {composed} vectors composed");
    let _ = ops::known_ops;
}

#[test]
fn a_json_spelling_is_learned_gap_by_gap_and_spells_only_what_it_saw() {
    use dsh_session_reference::harness::runner::substitution::{Learned, Spelling};
    let units = |text: &str| text.encode_utf16().collect::<Vec<u16>>();
    let mut spelling = Spelling::default();
    assert_eq!(
        spelling.learn(
            &units(r#"{"a":[1,"x,y"],"b":{"c":null}}"#),
            &units(r#"{"a": [1, "x,y"], "b": {"c": null}}"#)
        ),
        Learned::Spelling
    );
    assert_eq!(
        spelling.spell(&units(r#"{"k":"v: w","l":[true,2]}"#)),
        Some(units(r#"{"k": "v: w", "l": [true, 2]}"#))
    );
    // An empty array's inside was never seen.
    assert_eq!(spelling.spell(&units(r#"{"k":[]}"#)), None);
    // A string spelled otherwise teaches nothing; a gap spaced otherwise
    // refutes the spelling.
    let mut other = spelling.clone();
    assert_eq!(
        other.learn(&units(r#"["\u003c"]"#), &units(r#"["\u003C"]"#)),
        Learned::Nothing
    );
    assert_eq!(other, spelling);
    assert_eq!(
        other.learn(&units("[1,2]"), &units("[1,  2]")),
        Learned::Refuted
    );
}

#[test]
fn member_edits_are_learned_only_when_they_make_the_whole_answer() {
    use dsh_session_reference::harness::runner::substitution::{
        apply_edits, member_edits, MemberEdit,
    };
    use dsh_session_reference::js::json::parse;
    use dsh_session_reference::js::JsString;
    let ours = parse(r#"{"data":{"id":"s","cwd":"/w","seq":4},"stats":{"compacted":false,"n":1}}"#)
        .expect("JSON");
    let theirs = parse(r#"{"data":{"id":"s","cwd":null,"seq":4},"stats":{"n":1}}"#).expect("JSON");
    let edits = member_edits(&ours, &theirs).expect("two member edits");
    assert_eq!(
        edits,
        [
            MemberEdit::Null(JsString::from("cwd")),
            MemberEdit::Missing(JsString::from("compacted"))
        ]
    );
    // Applied to another answer, at any depth.
    let other = parse(r#"[{"cwd":"/x","compacted":true,"k":1}]"#).expect("JSON");
    assert_eq!(
        apply_edits(&other, &edits),
        parse(r#"[{"cwd":null,"k":1}]"#).expect("JSON")
    );
    // A member added as null after another.
    let added = parse(r#"{"id":"s","cwd":"/w","seq":null}"#).expect("JSON");
    let without = parse(r#"{"id":"s","cwd":"/w"}"#).expect("JSON");
    let edits = member_edits(&without, &added).expect("one edit");
    assert_eq!(apply_edits(&without, &edits), added);
    // Members renamed in another case style, at any depth.
    let snake = parse(r#"{"data":{"session_id":"s","cwd":"/w"},"stats":{"omitted_bytes":0}}"#)
        .expect("JSON");
    let camel =
        parse(r#"{"data":{"sessionId":"s","cwd":"/w"},"stats":{"omittedBytes":0}}"#).expect("JSON");
    let edits = member_edits(&camel, &snake).expect("two renames");
    assert_eq!(
        edits,
        [
            MemberEdit::Renamed(JsString::from("sessionId"), JsString::from("session_id")),
            MemberEdit::Renamed(
                JsString::from("omittedBytes"),
                JsString::from("omitted_bytes")
            )
        ]
    );
    assert_eq!(apply_edits(&camel, &edits), snake);
    // Another value, not null, is no member edit.
    let changed =
        parse(r#"{"data":{"id":"s","cwd":"/v","seq":4},"stats":{"compacted":false,"n":1}}"#)
            .expect("JSON");
    assert_eq!(member_edits(&ours, &changed), None);
}
