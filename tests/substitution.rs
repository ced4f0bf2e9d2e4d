//! Attribution by substitution (spec `runner.probes`): each op the runner
//! probes is the composition of its lower ops, so that putting an
//! implementation's lower answers in place of the reference's is a run of
//! the reference with that implementation's lower layer. These tests hold
//! the composition to the reference: given the reference's own lower
//! answers, it answers every vector of the suite as the reference does.

use dsh_session_reference::harness::runner::probes::substitution::{compose, Composed};
use dsh_session_reference::harness::runner::probes::{agrees, reference_answer, Probe};
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
                Some(Composed::Answer(reference_answer(
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
    use dsh_session_reference::harness::runner::probes::learned::{Learned, Spelling};
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
    use dsh_session_reference::harness::runner::members::{
        apply_edits, member_edits, names_read_back, MemberEdit,
    };
    use dsh_session_reference::js::json::parse;
    use dsh_session_reference::js::JsString;
    let ours = parse(r#"{"data":{"id":"s","cwd":"/w","seq":4},"stats":{"compacted":false,"n":1}}"#)
        .expect("JSON");
    let theirs = parse(r#"{"data":{"id":"s","cwd":null,"seq":4},"stats":{"n":1}}"#).expect("JSON");
    let edits = member_edits(&ours, &theirs).expect("two member edits");
    // A member left out where its value was empty is known to be left out
    // when empty (issue #60: a writer that omits empty values), no more.
    assert_eq!(
        edits,
        [
            MemberEdit::Null(JsString::from("cwd")),
            MemberEdit::LeftOutWhenEmpty(JsString::from("compacted"))
        ]
    );
    // Applied to another answer, at any depth.
    let other =
        parse(r#"[{"cwd":"/x","compacted":true,"k":1},{"compacted":false}]"#).expect("JSON");
    assert_eq!(
        apply_edits(&other, &edits),
        parse(r#"[{"cwd":null,"compacted":true,"k":1},{}]"#).expect("JSON")
    );
    // A member with a value left out is left out always.
    let ours = parse(r#"{"compacted":true,"n":1}"#).expect("JSON");
    let theirs = parse(r#"{"n":1}"#).expect("JSON");
    let edits = member_edits(&ours, &theirs).expect("one member edit");
    assert_eq!(edits, [MemberEdit::Missing(JsString::from("compacted"))]);
    assert_eq!(
        apply_edits(&other, &edits),
        parse(r#"[{"cwd":"/x","k":1},{}]"#).expect("JSON")
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
    // What a composition reads: the renames undone, what was written
    // `null` or left out kept.
    let mut both = edits.clone();
    both.push(MemberEdit::Null(JsString::from("cwd")));
    let written = apply_edits(&camel, &both);
    assert_eq!(
        apply_edits(&written, &names_read_back(&both)),
        parse(r#"{"data":{"sessionId":"s","cwd":null},"stats":{"omittedBytes":0}}"#).expect("JSON")
    );
    // Another value, not null, is no member edit.
    let changed =
        parse(r#"{"data":{"id":"s","cwd":"/v","seq":4},"stats":{"compacted":false,"n":1}}"#)
            .expect("JSON");
    assert_eq!(member_edits(&ours, &changed), None);
}

/// A preparation's composition splices each source's retention into its
/// own record, even when two sources' stats are alike (both retained
/// whole by the reference); and a source whose snapshot has no string id,
/// which `retain` refuses, is retained as the preparation asks it.
#[test]
fn each_source_is_spliced_into_its_own_record() {
    use dsh_session_reference::features::Features;
    use dsh_session_reference::harness::runner::probes::refused_by_its_op;
    use dsh_session_reference::js::json::{parse, Json};
    use dsh_session_reference::protocol::wire::Outcome;
    let long = |c: &str| c.repeat(150);
    let input = parse(&format!(
        r#"{{"config":{{"maxReferenceBytes":263}},"agent":{{"id":"me"}},"content":[{{"type":"text","text":"@s1 @s2"}}],"references":[{{"sessionId":"s1"}},{{"sessionId":"s2"}}],"sessions":{{"s1":{{"session":{{"cwd":"/w"}},"events":[{{"type":"user/message","data":{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"{}"}}]}}}}]}},"s2":{{"session":{{"id":"s2","cwd":"/w"}},"events":[{{"type":"user/message","data":{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"{}"}}]}}}}]}}}}}}"#,
        long("a"),
        long("b")
    ))
    .expect("JSON");
    let features = Features::RC8;
    let own = dispatch::handle_in(features, "prepare", &input);
    let records = |answer: &Outcome| -> Vec<Json> {
        let Outcome::Output(output) = answer else {
            panic!("an output: {answer:?}")
        };
        output
            .get("additionalContext")
            .and_then(|context| context.get("source"))
            .and_then(|source| source.get("references"))
            .and_then(Json::as_array)
            .expect("records")
            .to_vec()
    };
    let truncated = |record: &Json| record.get("truncated").cloned();
    assert_eq!(truncated(&records(&own)[0]), truncated(&records(&own)[1]));
    // The second source's retention answered with a cut: the budget one
    // byte short of its whole size.
    let mut cut_second = |probe: &Probe| {
        let mut answer = reference_answer(features, probe.op, &probe.input);
        let second = probe.op == "retain"
            && !refused_by_its_op(probe.op, &probe.input)
            && probe.input.get("maxBytes") != Some(&Json::Number(9007199254740991.0));
        if second {
            let Outcome::Output(Json::Object(members)) = &mut answer else {
                panic!("an output")
            };
            for (name, stats) in members.iter_mut() {
                if name.is("stats") {
                    let Json::Object(stats) = stats else {
                        panic!("stats")
                    };
                    for (stat, value) in stats.iter_mut() {
                        if stat.is("truncated") {
                            *value = Json::Bool(true);
                        }
                    }
                }
            }
        }
        Some(Composed::Answer(answer))
    };
    let Some(Composed::Answer(composed)) =
        compose(features, "prepare", &input, &own, &mut cut_second)
    else {
        panic!("composed")
    };
    let records = records(&composed);
    assert_eq!(truncated(&records[0]), Some(Json::Bool(false)));
    assert_eq!(truncated(&records[1]), Some(Json::Bool(true)));
    // The first source's question: `retain` refuses it, the reference
    // answers it as the preparation retains it.
    let snapshot = input
        .get("sessions")
        .and_then(|sessions| sessions.get("s1"))
        .cloned()
        .expect("s1");
    let question = Json::object([
        ("snapshot", snapshot),
        ("label", Json::str("s1")),
        ("maxBytes", Json::Number(263.0)),
    ]);
    assert!(refused_by_its_op("retain", &question));
    assert!(matches!(
        dispatch::handle_in(features, "retain", &question),
        Outcome::Error { .. }
    ));
    assert!(matches!(
        reference_answer(features, "retain", &question),
        Outcome::Output(Json::Object(_))
    ));
}
