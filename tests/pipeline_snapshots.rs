//! Reviewable renders of newest-generation behaviour that no installable
//! upstream package runs: the prompt and source record of selected `-v2`
//! vectors, as the reference renders them. The vectors' `expect` fields come
//! from the emulation adapter; these snapshots let a person read the same
//! bytes (omission notices, spill notices, `capturedFormatVersion`) and pin
//! them against silent change. insta trims line ends, so each test also
//! asserts the exact byte length of the prompt.

use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::js::json;
use dsh_session_reference::protocol::dispatch;
use dsh_session_reference::protocol::wire::Outcome;
use dsh_session_reference::Json;
use std::path::Path;

fn render(id: &str) -> (String, usize) {
    let suite = Suite::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/vectors"))
        .unwrap_or_else(|error| panic!("{error}"));
    let (_, vector) = suite
        .vectors()
        .find(|(_, vector)| vector.id == id)
        .unwrap_or_else(|| panic!("no vector {id}"));
    let Outcome::Output(output) = dispatch::handle(&vector.op, &vector.input) else {
        panic!("{id} failed");
    };
    let contexts: Vec<&Json> = match vector.op.as_str() {
        "prepare" => output.get("additionalContext").into_iter().collect(),
        _ => output
            .as_array()
            .unwrap_or_default()
            .iter()
            .filter(|message| {
                message
                    .get("source")
                    .and_then(|s| s.get("kind"))
                    .and_then(Json::as_string)
                    .as_deref()
                    == Some("session-reference")
            })
            .collect(),
    };
    let mut rendered = String::new();
    let mut bytes = 0;
    for context in contexts {
        let prompt = context
            .get("content")
            .and_then(Json::as_array)
            .and_then(|blocks| blocks.first())
            .and_then(|block| block.get("text"))
            .and_then(Json::as_js_str)
            .expect("a text block");
        bytes += prompt.to_string_lossy().len();
        rendered.push_str("--- prompt\n");
        rendered.push_str(&prompt.to_string_lossy());
        rendered.push_str("\n--- source\n");
        rendered.push_str(&json::to_pretty(context.get("source").expect("source"), 2));
    }
    (rendered, bytes)
}

fn check(id: &str, expected_prompt_bytes: usize) {
    let (rendered, bytes) = render(id);
    assert_eq!(bytes, expected_prompt_bytes, "{id}: prompt bytes");
    insta::with_settings!({snapshot_path => "snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(id, rendered);
    });
}

#[test]
fn omissions_with_a_saved_spill() {
    check("prepare.omissions.saves", 939);
}

#[test]
fn omissions_when_the_save_fails() {
    check("prepare.omissions.save-fails", 877);
}

#[test]
fn omissions_for_some_of_three_sources() {
    check("prepare.omissions.mixed-three", 1643);
}

#[test]
fn captured_format_version_two() {
    check("prepare.omissions.version-two", 453);
}

#[test]
fn transcript_example_of_the_facts() {
    check("prepare.omissions.transcript-t1", 886);
}

#[test]
fn pre_step_spill_names_per_message() {
    check("pre-step.generations.v2-spill-names-per-message", 2048);
}
