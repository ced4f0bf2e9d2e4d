//! The `differential` command's engine (spec `runner.differential`): what it
//! plans from two `describe` answers, that its requests reach the
//! interesting outcomes, that it finds and shrinks a disagreement, and that a
//! comparison across generations hides exactly the newer one's additions.

use dsh_session_reference::features::Features;
use dsh_session_reference::harness::runner::adapter::{
    BuiltIn, Description, External, Implementation,
};
use dsh_session_reference::harness::runner::differential::requests::{
    drawn_inputs, input_strategy, input_strategy_within, Reach, Scope,
};
use dsh_session_reference::harness::runner::differential::{self, corpus, plan, Options, Plan};
use dsh_session_reference::harness::runner::report::actual_json;
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::js::json;
use dsh_session_reference::protocol::input_types::first_ill_typed;
use dsh_session_reference::protocol::wire::Outcome;
use dsh_session_reference::surface::is_session_seq;
use dsh_session_reference::{JsString, Json};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn describe(features: Features) -> Description {
    BuiltIn(features)
        .describe()
        .expect("the reference describes itself")
}

/// The reference with one rule broken: `mention/parse` reports labels with
/// their last code unit dropped when the label is longer than one unit.
struct ChopsLabels(BuiltIn);

impl Implementation for ChopsLabels {
    fn describe(&mut self) -> Result<Description, String> {
        self.0.describe()
    }

    fn call(&mut self, op: &str, input: &Json) -> Result<Outcome, String> {
        let outcome = self.0.call(op, input)?;
        let Outcome::Output(Json::Object(mut members)) = outcome else {
            return Ok(outcome);
        };
        if op == "mention/parse" {
            for (key, value) in &mut members {
                if key.units() != JsString::from("references").units() {
                    continue;
                }
                let Json::Array(references) = value else {
                    continue;
                };
                for reference in references {
                    let Json::Object(fields) = reference else {
                        continue;
                    };
                    for (name, label) in fields {
                        match label {
                            Json::String(text)
                                if name.units() == JsString::from("label").units()
                                    && text.len() >= 2 =>
                            {
                                let mut units = text.units().to_vec();
                                units.pop();
                                *text = JsString::from_units(units);
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok(Outcome::Output(Json::Object(members)))
    }
}

#[test]
fn the_two_generations_of_the_reference_agree_on_what_both_define() {
    // runner.differential
    let plan = plan(&describe(Features::NEWEST), &describe(Features::RC8), None);
    let mixed: Vec<&str> = plan.mixed.iter().map(|(op, _)| op.as_str()).collect();
    assert_eq!(
        mixed,
        [
            "retain",
            "prepare",
            "pre-step",
            "config/check",
            "candidates/list",
            "candidates/remote"
        ]
    );
    assert!(plan.left_out.is_empty(), "{:?}", plan.left_out);
    let summary = differential::run(
        &plan,
        &mut BuiltIn(Features::NEWEST),
        &mut BuiltIn(Features::RC8),
        &Options::new(1300, 7),
        |_| {},
    );
    assert!(summary.classes.is_empty(), "{:?}", summary.classes);
    assert!(summary.line().starts_with("agree "), "{}", summary.line());
    assert!(summary.starved().is_empty(), "{}", summary.line());
    assert_eq!(summary.per_op.len(), 14);
}

#[test]
fn a_broken_rule_is_found_and_shrunk() {
    // runner.differential
    let newest = describe(Features::NEWEST);
    let only = ["mention/parse".to_owned()];
    let plan = plan(&newest, &newest, Some(&only));
    let summary = differential::run(
        &plan,
        &mut BuiltIn(Features::NEWEST),
        &mut ChopsLabels(BuiltIn(Features::NEWEST)),
        &Options::new(300, 3),
        |_| {},
    );
    assert!(summary.agreed < summary.cases, "{}", summary.line());
    // runner.differential.classes: every disagreement is counted in a class,
    // and each class's example is shrunk within the class.
    let counted: u64 = summary.classes.iter().map(|class| class.count).sum();
    assert_eq!(summary.agreed + counted, summary.cases);
    let class = summary
        .classes
        .iter()
        .find(|class| class.signature.path == "$.references[].label")
        .unwrap_or_else(|| panic!("no label class: {:?}", summary.classes));
    assert_eq!(class.signature.kind, "output/output");
    let smallest = json::to_wire(&class.input).len();
    // The smallest text that shows it is one mention with a two-unit label.
    assert!(smallest < 60, "shrunk input still {smallest} bytes long");
    assert!(class.shrink_steps > 0);
    assert!(
        class
            .example
            .explanation
            .contains("first difference at $.references[0].label"),
        "{}",
        class.example.explanation
    );
    assert!(class.count > 1, "later cases of the class are counted");
}

#[test]
fn the_same_seed_sends_the_same_requests() {
    // runner.differential
    let strategy =
        input_strategy("prepare", Scope::of(Features::NEWEST)).expect("prepare is generated");
    let draw = |seed: u64| {
        let config = proptest::test_runner::Config::default();
        let mut runner = TestRunner::new_with_rng(
            config,
            proptest::test_runner::TestRng::from_seed(
                proptest::test_runner::RngAlgorithm::ChaCha,
                &[seed as u8; 32],
            ),
        );
        json::to_wire(&strategy.new_tree(&mut runner).expect("tree").current())
    };
    assert_eq!(draw(1), draw(1));
    assert_ne!(draw(1), draw(2));
}

/// The outcome classes (`output`, `null`, each error code) of `cases`
/// requests for `op` as its strategy draws them (without type confusion),
/// answered by the reference.
fn outcome_classes(op: &str, scope: Scope, cases: usize) -> BTreeMap<String, usize> {
    let strategy = drawn_inputs(op, scope, Reach::ALL).expect("generated op");
    let mut runner = TestRunner::deterministic();
    let mut classes = BTreeMap::new();
    for _ in 0..cases {
        let input = strategy.new_tree(&mut runner).expect("tree").current();
        let class = match BuiltIn(Features::NEWEST).call(op, &input) {
            Ok(Outcome::Output(Json::Null)) => "null".to_owned(),
            Ok(Outcome::Output(Json::Array(items))) if items.is_empty() => "[]".to_owned(),
            Ok(Outcome::Output(output)) => {
                let text = json::to_wire(&output);
                if text.contains("## Reference omissions") {
                    "output with omissions".to_owned()
                } else {
                    "output".to_owned()
                }
            }
            Ok(Outcome::Error { code, .. }) => code,
            Err(problem) => panic!("{problem}"),
        };
        *classes.entry(class).or_default() += 1;
    }
    classes
}

#[test]
fn generated_requests_reach_every_kind_of_outcome() {
    // runner.differential: a generator that only ever produced errors (or
    // only small snapshots that fit) would agree on everything and prove
    // nothing.
    let prepare = outcome_classes("prepare", Scope::of(Features::NEWEST), 600);
    for class in [
        "output",
        "output with omissions",
        "SESSION_REFERENCE_READ_FAILED",
        "SESSION_REFERENCE_TOO_MANY",
        "SESSION_REFERENCE_SELF_REFERENCE",
        "SESSION_REFERENCE_INVALID_REFERENCE",
        "SESSION_REFERENCE_BUDGET_EXCEEDED",
    ] {
        assert!(
            prepare.get(class).copied().unwrap_or(0) >= 3,
            "{class}: {prepare:?}"
        );
    }
    // One retain request in 32 carries an event of an unknown type, and
    // fails (INTERNAL).
    let retain = outcome_classes("retain", Scope::of(Features::RC8), 300);
    assert!(retain.get("null").copied().unwrap_or(0) >= 10, "{retain:?}");
    assert!(
        retain.get("output").copied().unwrap_or(0) >= 90,
        "{retain:?}"
    );
    assert!(
        retain.get("INTERNAL").copied().unwrap_or(0) >= 3,
        "{retain:?}"
    );
    let files = outcome_classes("files/list", Scope::of(Features::RC8), 200);
    assert!(files.get("output").copied().unwrap_or(0) >= 80, "{files:?}");
    assert!(files.get("[]").copied().unwrap_or(0) >= 10, "{files:?}");
    let candidates = outcome_classes("candidates/list", Scope::of(Features::NEWEST), 300);
    assert!(
        candidates.get("output").copied().unwrap_or(0) >= 80,
        "{candidates:?}"
    );
    assert!(
        candidates
            .get("SESSION_REFERENCE_INVALID_CONFIG")
            .copied()
            .unwrap_or(0)
            >= 5,
        "requests carry a config now and then: {candidates:?}"
    );
    let decode = outcome_classes("uri/decode", Scope::of(Features::RC8), 300);
    assert!(
        decode.get("output").copied().unwrap_or(0) >= 50,
        "{decode:?}"
    );
    assert!(
        decode
            .get("SESSION_REFERENCE_INVALID_REFERENCE")
            .copied()
            .unwrap_or(0)
            >= 50,
        "{decode:?}"
    );
}

#[test]
fn across_generations_only_the_newer_additions_are_hidden() {
    // runner.differential
    let newer = json::parse(
        r#"{"content":[],"additionalContext":{"source":{"kind":"session-reference","references":[{"sessionId":"a","label":"A","capturedFormatVersion":2,"truncated":true}]},"content":[{"type":"text","text":"PROMPT</referenced-sessions>\n\n## Reference omissions\n\nThe previews above…\n[{}]"}]}}"#,
    )
    .expect("test JSON");
    let older = json::parse(
        r#"{"content":[],"additionalContext":{"source":{"kind":"session-reference","references":[{"sessionId":"a","label":"A","truncated":true}]},"content":[{"type":"text","text":"PROMPT</referenced-sessions>"}]}}"#,
    )
    .expect("test JSON");
    let agree = differential::compare(
        "prepare",
        Scope::between("prepare", Features::NEWEST, Features::RC8),
        Ok(Outcome::Output(newer.clone())),
        Ok(Outcome::Output(older.clone())),
        ["", ""],
    );
    assert!(agree.is_none());
    // Within one generation nothing is hidden.
    assert!(differential::compare(
        "prepare",
        Scope::of(Features::NEWEST),
        Ok(Outcome::Output(newer)),
        Ok(Outcome::Output(older.clone())),
        ["", ""],
    )
    .is_some());
    // A difference in the prompt itself still shows across generations.
    let other = json::parse(&json::to_wire(&older).replace("PROMPT", "PROMPt")).expect("JSON");
    assert!(differential::compare(
        "prepare",
        Scope::between("prepare", Features::NEWEST, Features::RC8),
        Ok(Outcome::Output(other)),
        Ok(Outcome::Output(older)),
        ["", ""],
    )
    .is_some());
    // Candidates: displayTitle and sameWorkspace hidden, the rest compared.
    let v2 = json::parse(
        r#"[{"sessionId":"s","label":"L","displayTitle":"L","sameWorkspace":false,"createdAt":1}]"#,
    )
    .expect("JSON");
    let v1 = json::parse(r#"[{"sessionId":"s","label":"L","createdAt":1}]"#).expect("JSON");
    assert!(differential::compare(
        "candidates/list",
        Scope::between("prepare", Features::NEWEST, Features::RC8),
        Ok(Outcome::Output(v2)),
        Ok(Outcome::Output(v1)),
        ["", ""],
    )
    .is_none());
    // Errors compare by code; a protocol failure never agrees.
    let error = |code: &str| {
        Ok(Outcome::Error {
            code: code.to_owned(),
            message: String::new(),
        })
    };
    assert!(differential::compare(
        "uri/decode",
        Scope::of(Features::RC8),
        error("X"),
        error("X"),
        ["", ""]
    )
    .is_none());
    assert!(differential::compare(
        "uri/decode",
        Scope::of(Features::RC8),
        error("X"),
        error("Y"),
        ["", ""]
    )
    .is_some());
    assert!(differential::compare(
        "uri/decode",
        Scope::of(Features::RC8),
        error("X"),
        Err("hung".into()),
        ["", ""]
    )
    .is_some());
}

#[test]
fn ops_one_side_lacks_are_left_out_and_named() {
    // runner.differential
    let newest = describe(Features::NEWEST);
    let uri_only = Description {
        name: "uri-only".to_owned(),
        version: "0".to_owned(),
        features: vec!["uri".to_owned()],
        release: None,
        capabilities: Vec::new(),
    };
    let Plan {
        ops,
        left_out,
        lone_surrogates,
        reach,
        ..
    } = plan(&newest, &uri_only, None);
    assert!(!lone_surrogates, "one side lacks the capability");
    assert!(!reach.dynamic_inputs, "one side lacks the capability");
    let ops: Vec<&str> = ops.iter().map(|planned| planned.op).collect();
    assert_eq!(ops, ["uri/encode", "uri/decode"]);
    assert_eq!(left_out.len(), 12);
    assert!(left_out
        .iter()
        .all(|(_, why)| why.starts_with("uri-only does not declare the feature ")));
    // The finding of issue #43: a feature is named once ("files", not
    // "neither files nor files").
    assert!(left_out.iter().any(
        |(op, why)| op == "files/list" && why == "uri-only does not declare the feature files"
    ));
}

/// An implementation of upstream's newest generation that follows none of
/// our own decisions: the newer upstream build's `describe`.
fn newer_build() -> Description {
    Description {
        name: "newer-build".to_owned(),
        version: "0".to_owned(),
        features: [
            "uri",
            "mention",
            "json",
            "retain",
            "surface-v2",
            "prepare-v2",
            "pre-step-v2",
            "config-v2",
            "candidates-v2",
        ]
        .map(str::to_owned)
        .to_vec(),
        release: None,
        capabilities: Vec::new(),
    }
}

/// `count` inputs of `planned`'s op as the run would generate them.
fn planned_inputs(plan: &Plan, op: &str, count: usize) -> Vec<Json> {
    let planned = plan
        .ops
        .iter()
        .find(|planned| planned.op == op)
        .expect("op planned");
    let strategy = input_strategy_within(op, planned.scope, plan.reach).expect("generated op");
    let mut runner = TestRunner::deterministic();
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).expect("tree").current())
        .collect()
}

#[test]
fn requests_stay_inside_what_both_declare() {
    // runner.differential, runner.capabilities: against an implementation
    // without candidates-fuzzy, config-fraction-type and optional-seq, no
    // ranking case, no fuzzy-only match, no non-number fraction and no
    // snapshot without capturedThroughSeq is generated; with them on both
    // sides, all of these are.
    let newest = describe(Features::NEWEST);
    let narrow = plan(&newest, &newer_build(), None);
    assert_eq!(
        narrow.reach,
        Reach {
            fuzzy: false,
            fraction_types: false,
            optional_seq: false,
            dynamic_inputs: false,
        }
    );
    assert_eq!(narrow.narrowed().len(), 4);
    assert!(
        !narrow.reach.dynamic_inputs,
        "the newer build declares no capability"
    );
    let wide = plan(&newest, &newest, None);
    assert_eq!(wide.reach, Reach::ALL);
    assert!(wide.narrowed().is_empty());

    let ranked = |plan: &Plan| {
        planned_inputs(plan, "candidates/list", 400)
            .iter()
            .filter(|input| {
                let query = input.get("query").and_then(Json::as_js_str);
                let listed = BuiltIn(Features::NEWEST).call("candidates/list", input);
                query.is_some_and(|q| !q.is_empty())
                    && matches!(listed, Ok(Outcome::Output(Json::Array(items))) if items.len() > 1)
            })
            .count()
    };
    assert_eq!(ranked(&narrow), 0, "ranking cases without candidates-fuzzy");
    let wide_ranked = ranked(&wide);
    assert!(wide_ranked > 0, "no ranking case with candidates-fuzzy");

    let odd_fraction = |plan: &Plan| {
        planned_inputs(plan, "config/check", 400)
            .iter()
            .filter(|input| {
                let fraction = input
                    .get("config")
                    .and_then(|config| config.get("referenceContextFraction"));
                matches!(fraction, Some(Json::String(_) | Json::Bool(_)))
            })
            .count()
    };
    assert_eq!(odd_fraction(&narrow), 0);
    assert!(odd_fraction(&wide) > 0);

    let without_seq = |plan: &Plan| {
        planned_inputs(plan, "retain", 300)
            .iter()
            .filter(|input| {
                input
                    .get("snapshot")
                    .is_some_and(|snapshot| snapshot.get("capturedThroughSeq").is_none())
            })
            .count()
    };
    assert_eq!(without_seq(&narrow), 0);
    assert!(without_seq(&wide) > 20);
}

/// Input classes that the vectors had to catch alone before issue #22:
/// every one is among 800 generated requests of its op (newest generation
/// on both sides). Budgets that are no whole number of bytes come with the
/// route `p/odd` (100 003 tokens × 4 × 0.2) over a snapshot above the
/// 64 KiB floor; unknown event types in `retain` and `prepare`; an
/// untruncated reference before a truncated one with a saving spill store.
#[test]
fn generators_reach_the_input_classes_only_vectors_reached() {
    let newest = describe(Features::NEWEST);
    let wide = plan(&newest, &newest, None);
    let events = |snapshot: &Json| -> Vec<String> {
        snapshot
            .get("events")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .filter_map(|event| event.get("type").and_then(Json::as_string))
            .collect()
    };
    let known = |kind: &String| {
        [
            "user/message",
            "assistant/message",
            "tool/result",
            "developer/message",
            "system/message",
        ]
        .contains(&kind.as_str())
    };
    let retains = planned_inputs(&wide, "retain", 800);
    let unknown_in_retain = retains
        .iter()
        .filter(|input| {
            input
                .get("snapshot")
                .is_some_and(|s| events(s).iter().any(|k| !known(k)))
        })
        .count();
    let prepares = planned_inputs(&wide, "prepare", 800);
    let sessions = |input: &Json| -> Vec<Json> {
        match input.get("sessions") {
            Some(Json::Object(members)) => members.iter().map(|(_, value)| value.clone()).collect(),
            _ => Vec::new(),
        }
    };
    let unknown_in_prepare = prepares
        .iter()
        .filter(|input| {
            sessions(input)
                .iter()
                .any(|s| events(s).iter().any(|k| !known(k)))
        })
        .count();
    let wire_length = |value: &Json| json::to_wire(value).len();
    let above_floor_odd_route = prepares
        .iter()
        .filter(|input| {
            let route = input.get("agent").and_then(|agent| agent.get("route"));
            route
                .and_then(|r| r.get("model"))
                .and_then(Json::as_string)
                .as_deref()
                == Some("odd")
                && sessions(input).iter().any(|s| wire_length(s) > 65_536)
        })
        .count();
    let whole_then_saved = prepares
        .iter()
        .filter(|input| {
            let saves = input
                .get("spill")
                .and_then(|s| s.get("mode"))
                .and_then(Json::as_string);
            let Ok(Outcome::Output(output)) = BuiltIn(Features::NEWEST).call("prepare", input)
            else {
                return false;
            };
            let text = json::to_wire(&output);
            saves.as_deref() == Some("saves")
                && text.contains("session-reference-2.txt")
                && !text.contains("session-reference-1.txt")
        })
        .count();
    let counts = [
        ("unknown event in retain", unknown_in_retain),
        ("unknown event in prepare", unknown_in_prepare),
        (
            "odd window over a snapshot above 64 KiB",
            above_floor_odd_route,
        ),
        ("whole reference, then a saved one", whole_then_saved),
    ];
    for (class, count) in counts {
        assert!(count >= 5, "{class}: {count} of 800 ({counts:?})");
    }
}

#[test]
fn across_generations_no_seq_outside_its_domain_is_generated() {
    // runner.differential: rc.8 copies a capturedThroughSeq such as 1.5, the
    // newest generation refuses it (surface.seq-outside-domain).
    let across = plan(&describe(Features::NEWEST), &describe(Features::RC8), None);
    for input in planned_inputs(&across, "retain", 300) {
        let seq = input
            .get("snapshot")
            .and_then(|snapshot| snapshot.get("capturedThroughSeq"));
        assert!(
            seq.is_none_or(|seq| *seq == Json::Null || is_session_seq(seq)),
            "{seq:?}"
        );
    }
}

/// The CLI's JSON report on a fixture port with five bugs at once
/// (`tests/fixtures/adapters/well-formed.mjs`): every string made
/// well-formed while claiming `lone-surrogates` (pervasive), padded URIs
/// accepted, mention labels trimmed, stats in snake_case, and a rare
/// off-by-one in candidate limits. Each bug's family gets a class whose
/// shrunk example still shows that bug, though the pervasive one fails a
/// third of all cases (spec `runner.differential.classes`).
#[test]
fn five_bugs_give_five_families_of_classes() {
    let binary = env!("CARGO_BIN_EXE_dsh-session-reference");
    let port = format!(
        "node '{}' '{binary}'",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/adapters/well-formed.mjs")
            .display()
    );
    let output = Command::new(binary)
        .args([
            "differential",
            "--b",
            &port,
            "--cases",
            "3000",
            "--format",
            "json",
        ])
        .env(
            "PORT_BUGS",
            "padded-uri,label-trim,snake-stats,limit-off-by-one",
        )
        .env("WELL_FORMED_CLAIMS_LONE_SURROGATES", "1")
        .output()
        .expect("run differential");
    assert_eq!(output.status.code(), Some(1));
    let report = json::parse(&String::from_utf8_lossy(&output.stdout)).expect("a JSON report");
    let classes = report
        .get("classes")
        .and_then(Json::as_array)
        .expect("classes");
    let field = |class: &Json, name: &str| {
        class
            .get(name)
            .and_then(Json::as_string)
            .unwrap_or_default()
    };
    let request = |class: &Json| {
        class
            .get("example")
            .and_then(|example| example.get("request"))
            .cloned()
            .unwrap_or(Json::Null)
    };
    let find = |what: &str, test: &dyn Fn(&Json) -> bool| {
        classes
            .iter()
            .find(|class| test(class))
            .unwrap_or_else(|| {
                let all: Vec<String> = classes.iter().map(|c| field(c, "signature")).collect();
                panic!("no class for {what}: {all:#?}")
            })
            .clone()
    };
    // Pervasive: lone surrogates come back as U+FFFD.
    let pervasive = find("well-formed strings", &|class| {
        field(class, "signature") == "lone surrogate replaced by U+FFFD"
    });
    assert!(request(&pervasive).has_lone_surrogate());
    // uri: a padded URI is accepted.
    let padded = find("padded URIs", &|class| {
        field(class, "op") == "uri/decode"
            && field(class, "signature") == "error SESSION_REFERENCE_INVALID_REFERENCE not raised"
    });
    let uri = request(&padded)
        .get("input")
        .and_then(|i| i.get("uri"))
        .and_then(Json::as_string);
    assert!(
        uri.as_deref().is_some_and(|uri| uri.ends_with('=')),
        "{uri:?}"
    );
    // mention: labels trimmed.
    let trimmed = find("trimmed labels", &|class| {
        field(class, "op") == "mention/parse" && field(class, "path") == "$.references[].label"
    });
    assert_eq!(field(&trimmed, "detail"), "whitespace trimmed at label");
    // retain: snake_case stats.
    let snake = find("snake_case stats", &|class| {
        field(class, "op") == "retain"
            && field(class, "signature") == "members renamed camelCase → snake_case"
    });
    assert_eq!(field(&snake, "path"), "$.stats");
    // candidates (rare): one candidate too many under a limit.
    let limit = find("the limit off-by-one", &|class| {
        field(class, "op") == "candidates/list"
            && field(class, "signature") == "candidates: items differ at candidates"
    });
    assert!(request(&limit)
        .get("input")
        .and_then(|i| i.get("limit"))
        .is_some());
    let compared = report.get("compared").and_then(|n| match n {
        Json::Number(n) => Some(*n),
        _ => None,
    });
    assert!(compared.is_some_and(|n| n > 2900.0), "{compared:?}");
}

/// The fixture port's command, with `prefix` (shell assignments or a
/// guard) before it.
fn fixture_port(prefix: &str) -> String {
    format!(
        "{prefix} exec node '{}' '{}'",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/adapters/well-formed.mjs")
            .display(),
        env!("CARGO_BIN_EXE_dsh-session-reference")
    )
}

/// Runs the command line's `differential` with `--b b`; returns its exit
/// code and standard output, after checking that the implementations' own
/// stderr (the fixture's panic messages) was not passed through.
fn differential_cli(b: &str, extra: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_dsh-session-reference"))
        .args(["differential", "--b", b])
        .args(extra)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run differential");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked at src/port.rs"), "{stderr}");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// A port that declares no capability (a typed port of the newest
/// generation) gets well-typed requests of every op it declares, the
/// pipeline included (spec `runner.differential.reach`): at least 15 % of
/// the `prepare` and `pre-step` cases drawn are compared, and agree.
#[test]
fn a_port_without_capabilities_gets_typed_requests_of_every_op() {
    let port = fixture_port(
        "WELL_FORMED_TYPED=1 WELL_FORMED_DROP_CAPABILITIES=optional-seq,model-lookup-errors,staged-cancel,message-ids",
    );
    let run = [
        "--ops",
        "prepare,pre-step,candidates/list,config/check",
        "--cases",
        "240",
        "--no-guide",
        "--seed",
        "3",
        "--format",
        "json",
    ];
    let (code, text) = differential_cli(&port, &run);
    assert_eq!(code, Some(0), "{text}");
    let report = json::parse(text.trim()).expect("a JSON report");
    let per_op = report.get("perOp").and_then(Json::as_array).expect("perOp");
    assert_eq!(per_op.len(), 4, "{text}");
    for counts in per_op {
        let count = |name: &str| match counts.get(name) {
            Some(Json::Number(count)) => *count,
            _ => panic!("{name}: {text}"),
        };
        // pre-step also gets the small scope of the order of checks, its
        // 155 cases without a cancel stage (spec runner.differential.reach).
        let scope = if counts.get("op") == Some(&Json::str("pre-step")) {
            155.0
        } else {
            0.0
        };
        assert_eq!(count("drawn"), 60.0 + scope, "{text}");
        assert!(count("compared") >= 0.15 * count("drawn"), "{text}");
        assert_eq!(count("agree"), count("compared"), "{text}");
    }
    let starved = report
        .get("notCompared")
        .and_then(|not| not.get("starved"))
        .and_then(Json::as_array);
    assert_eq!(starved.map(<[Json]>::len), Some(0), "{text}");
}

/// Without `dynamic-inputs` on both sides, no generated request of any op
/// has an input member of another JSON type than the protocol declares
/// (spec `protocol.input-types`): the generators draw typed requests, they
/// do not drop the others.
#[test]
fn every_generator_draws_well_typed_requests_for_a_typed_port() {
    let typed = plan(&describe(Features::NEWEST), &newer_build(), None);
    assert!(!typed.reach.dynamic_inputs);
    for planned in &typed.ops {
        for input in planned_inputs(&typed, planned.op, 200) {
            assert_eq!(
                first_ill_typed(planned.op, &input),
                None,
                "{} {}",
                planned.op,
                json::to_ascii(&input)
            );
        }
    }
    // With the capability on both sides, the same generators draw them.
    let dynamic = plan(
        &describe(Features::NEWEST),
        &describe(Features::NEWEST),
        None,
    );
    let ill_typed: usize = dynamic
        .ops
        .iter()
        .map(|planned| {
            planned_inputs(&dynamic, planned.op, 200)
                .iter()
                .filter(|input| first_ill_typed(planned.op, input).is_some())
                .count()
        })
        .sum();
    assert!(ill_typed > 100, "{ill_typed}");
}

/// An op whose cases are nearly all left out fails the run, named with
/// what kept them out (spec `runner.differential.reach`): a port whose
/// `json/tag-safe` answers hold a lone surrogate, and which does not
/// declare `lone-surrogates`, has every such case left out, which would
/// otherwise read as agreement.
#[test]
fn a_run_whose_declared_op_compares_nothing_fails() {
    let (code, text) = differential_cli(
        &fixture_port("PORT_BUGS=lone-tag-safe"),
        &[
            "--ops",
            "json/tag-safe,uri/encode",
            "--cases",
            "100",
            "--no-guide",
            "--seed",
            "1",
            "--corpus",
            "none",
        ],
    );
    assert_eq!(code, Some(1), "{text}");
    // A type-confused case may hold no lone surrogate and be compared.
    let starved = text
        .lines()
        .find(|line| line.starts_with("too few compared: json/tag-safe compared "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        starved.ends_with("of 50 cases (under 5 %): an answer holds a lone surrogate (the capability lone-surrogates is not declared by both)"),
        "{text}"
    );
}

/// A port that answers `UNSUPPORTED` for an op it declares has not
/// implemented it: `differential` compares nothing there and lists it
/// (spec `runner.differential`), as `conformance` skips the vectors.
#[test]
fn an_op_answered_unsupported_is_not_implemented_not_a_disagreement() {
    let port = fixture_port("WELL_FORMED_UNSUPPORTED=candidates/remote");
    let run = [
        "--ops",
        "candidates/list,candidates/remote",
        "--cases",
        "200",
        "--seed",
        "1",
        "--corpus",
        "none",
    ];
    let (code, text) = differential_cli(&port, &run);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("classes 0"), "{text}");
    assert!(
        text.contains("not implemented: candidates/remote by B ("),
        "{text}"
    );
    assert!(
        text.contains("candidates/remote 0/0 (") && text.contains(" not implemented)\n"),
        "{text}"
    );
    let (_, json) = differential_cli(&port, &[&run[..], &["--format", "json"]].concat());
    assert!(
        json.contains(r#""notImplemented":[{"op":"candidates/remote","side":"B","cases":"#),
        "{json}"
    );
}

/// A class's example stays inside what the run says every request holds
/// (spec `runner.differential.classes`): shrinking a retention bug's
/// example against a port without `optional-seq` never removes a
/// snapshot's `capturedThroughSeq`.
#[test]
fn shrinking_stays_inside_what_both_declare() {
    let (code, json_text) = differential_cli(
        &fixture_port("WELL_FORMED_DROP_CAPABILITIES=optional-seq PORT_BUGS=notice-ascii"),
        &[
            "--ops", "retain", "--cases", "300", "--seed", "1", "--format", "json",
        ],
    );
    assert_eq!(code, Some(1), "{json_text}");
    let report = json::parse(json_text.trim()).expect("a JSON report");
    let classes = report
        .get("classes")
        .and_then(Json::as_array)
        .expect("classes");
    assert!(!classes.is_empty(), "{json_text}");
    for class in classes {
        let request = class
            .get("example")
            .and_then(|example| example.get("request"));
        if request.and_then(|request| request.get("op")) != Some(&Json::str("retain")) {
            continue;
        }
        let snapshot = request
            .and_then(|request| request.get("input"))
            .and_then(|input| input.get("snapshot"));
        assert!(
            snapshot.is_some_and(|snapshot| snapshot.get("capturedThroughSeq").is_some()),
            "{}",
            json::to_ascii(class)
        );
    }
}

#[test]
fn time_limits_dead_implementations_and_backtraces() {
    // runner.differential.operation
    // A time limit stops the run and still reports it; crashes are classes.
    // (The limit leaves room for a loaded machine: the run plans its value
    // cases before the first case, and a crash restarts the port.)
    let (code, text) = differential_cli(
        &fixture_port("PORT_BUGS=crash-tenth"),
        &[
            "--cases",
            "1000000",
            "--time-limit",
            "8",
            "--max-classes",
            "1",
        ],
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("stopped early: the time limit passed"),
        "{text}"
    );
    assert!(
        text.contains("\n  crash: thread 'main' panicked at src/port.rs:N:N:\n"),
        "{text}"
    );
    assert!(
        text.lines().any(|line| line.starts_with("classes ")),
        "{text}"
    );

    // An implementation that cannot be started again ends the run: the
    // report so far, the reason, exit 2.
    let flag = std::env::temp_dir().join(format!("dsh-differential-dead-{}", std::process::id()));
    let _ = std::fs::remove_file(&flag);
    let once = format!(
        "[ -e '{0}' ] && exit 3; touch '{0}'; PORT_BUGS=crash-tenth",
        flag.display()
    );
    let (code, text) = differential_cli(&fixture_port(&once), &["--cases", "100"]);
    let _ = std::fs::remove_file(&flag);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("stopped early: an implementation is dead"),
        "{text}"
    );
    assert!(text.contains("agree "), "{text}");

    // RUST_BACKTRACE is not passed on (this process has it set): the guard
    // refuses to start when it is.
    let guard = r#"[ -n "$RUST_BACKTRACE" ] && exit 4;"#;
    let (code, text) = differential_cli(
        &fixture_port(guard),
        &["--cases", "30", "--ops", "uri/encode"],
    );
    assert_eq!(code, Some(0), "{text}");
    let (code, _) = differential_cli(
        &fixture_port(guard),
        &["--cases", "30", "--ops", "uri/encode", "--backtrace"],
    );
    assert_eq!(code, Some(2), "with --backtrace the variable is passed on");

    // runner.exit-status: conformance does not pass it on either, unless
    // --backtrace.
    let conformance = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_dsh-session-reference"))
            .args([
                "conformance",
                "--impl",
                &fixture_port(guard),
                "--filter",
                "uri.encode.ascii",
            ])
            .args(extra)
            .env("RUST_BACKTRACE", "1")
            .output()
            .expect("run conformance")
            .status
            .code()
    };
    assert_eq!(conformance(&[]), Some(0));
    assert_eq!(conformance(&["--backtrace"]), Some(2));
}

/// runner.differential: without --a, A is the reference in the generation
/// B's features come from, so a port of rc.8 is compared on every query.
#[test]
fn the_reference_generation_follows_b() {
    let binary = env!("CARGO_BIN_EXE_dsh-session-reference");
    let run = |b: &str| {
        let output = Command::new(binary)
            .args([
                "differential",
                "--b",
                b,
                "--cases",
                "60",
                "--ops",
                "candidates/list",
            ])
            .output()
            .expect("run differential");
        assert_eq!(output.status.code(), Some(0));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let rc8 = run(&format!("{binary} adapter --generation rc8"));
    assert!(
        rc8.contains("A is the reference with B's behaviours")
            && rc8.contains("release 0.1.0-rc.8"),
        "{rc8}"
    );
    assert!(
        !rc8.contains("behaviours differ for candidates/list"),
        "{rc8}"
    );
    // runner.releases (issue #43): a release between two others, and any set a port
    // declares, is compared with the reference at exactly that set.
    let between = run(&format!("{binary} adapter --release 0.1.2-rc.1"));
    assert!(
        between.contains("release 0.1.2-rc.1") && between.contains("classes 0"),
        "{between}"
    );
    let declared = run(&format!(
        "{binary} adapter --features candidates-v1,same-workspace"
    ));
    assert!(
        !declared.contains("behaviours differ") && declared.contains("classes 0"),
        "{declared}"
    );
    let newest = run(&format!("{binary} adapter"));
    assert!(
        newest.contains("A is the reference with B's behaviours")
            && newest.contains("release newest"),
        "{newest}"
    );
    // Compared on non-empty queries: both in rc.8, requests use the v1 scope.
    let newest_b = describe(Features::NEWEST);
    let rc8_b = describe(Features::RC8);
    assert_eq!(differential::reference_features(&rc8_b), Features::RC8);
    assert_eq!(
        differential::reference_features(&newest_b),
        Features::NEWEST
    );
    let plan = plan(&rc8_b, &rc8_b, Some(&["candidates/list".to_owned()]));
    assert!(plan.mixed.is_empty());
    let queries = planned_inputs(&plan, "candidates/list", 200)
        .into_iter()
        .filter(|input| {
            input
                .get("query")
                .and_then(Json::as_string)
                .is_some_and(|query| !query.is_empty())
        })
        .count();
    assert!(queries > 20, "{queries} non-empty queries of 200");
}

/// An answer after the timeout but within the grace period is compared
/// and said, not taken for a hang (spec `runner.slow`): the fixture port
/// answers its first `retain` correctly after 2.5 s, against a timeout of
/// one second.
#[test]
fn a_slow_answer_is_compared_and_reported_slow() {
    let (code, text) = differential_cli(
        &fixture_port("PORT_BUGS=slow-first-retain"),
        &[
            "--ops",
            "retain,uri/encode",
            "--cases",
            "10",
            "--no-guide",
            "--seed",
            "1",
            "--timeout",
            "1",
            "--grace",
            "8",
        ],
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("per op: retain 5/5, uri/encode 5/5"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|line| line.starts_with("slow: retain by B answered in ")
                && line.ends_with(" s (limit 1 s) at the latest, 1 cases")),
        "{text}"
    );
    assert!(!text.contains("hangs:"), "{text}");
    assert!(text.contains("classes 0"), "{text}");
}

/// A port that loops forever on one op is reported within a bounded time
/// (spec `runner.slow`): its first hang waits the timeout and the grace
/// period; its later cases are still sent, each awaited only in proportion
/// to the port's answers (the floor, half a second); the hang's shrinking
/// is bounded in probes; the run says how it waits before it starts, and
/// names the op answered on under half its cases. The other op is still
/// compared.
#[test]
fn a_port_that_loops_forever_on_one_op_is_reported_in_bounded_time() {
    let (code, text) = differential_cli(
        &fixture_port("PORT_BUGS=loop-retain"),
        &[
            "--ops",
            "retain,uri/encode",
            "--cases",
            "40",
            "--no-guide",
            "--seed",
            "1",
            "--timeout",
            "1",
            "--grace",
            "1",
        ],
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("after an op hangs, its answers are awaited 50 times its slowest answer (at least 0.5 s, at most 1 s), and a hang shrinks in at most 8 probes"),
        "{text}"
    );
    assert!(text.contains("CLASS 1 of 1: "), "{text}");
    assert!(
        text.contains("  hang: no answer within the timeout\n"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|line| line.starts_with("not answered in time: ")
                && line.ends_with(" of 20 retain cases")),
        "{text}"
    );
    assert!(
        text.contains("tested too little: retain answered "),
        "{text}"
    );
    assert!(
        text.contains("per op: retain ") && text.contains(", uri/encode 20/20\n"),
        "{text}"
    );
    let shrink_steps: usize = text
        .split("example, shrunk in ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|steps| steps.parse().ok())
        .expect("a shrunk example");
    assert!(shrink_steps <= 8, "{text}");
}

/// Every class example of the JSON report, sent again, reproduces its
/// class (spec `runner.differential.classes`): the report's request is the
/// exact request that was sent, `-0` included, so both sides answer it as
/// the report says, and differently. Over a fixture port with six bugs,
/// one of which (Rust's `-0`) shows only on a negative zero.
#[test]
fn every_class_example_sent_again_reproduces_its_class() {
    let bugs = "rust-negative-zero,padded-uri,label-trim,snake-stats,limit-off-by-one,notice-ascii";
    let port = fixture_port(&format!("PORT_BUGS={bugs}"));
    let (code, text) = differential_cli(
        &port,
        &["--cases", "1500", "--seed", "1", "--format", "json"],
    );
    assert_eq!(code, Some(1), "{text}");
    let report = json::parse(text.trim()).expect("a JSON report");
    let classes = report
        .get("classes")
        .and_then(Json::as_array)
        .expect("classes");
    assert!(classes.len() >= 5, "{text}");
    let mut reference = BuiltIn(Features::NEWEST);
    let mut fixture = External::new(&port, std::time::Duration::from_secs(10)).quiet();
    let mut negative_zero = false;
    for class in classes {
        let example = class.get("example").expect("example");
        let request = example.get("request").expect("request");
        let op = request.get("op").and_then(Json::as_string).expect("op");
        let input = request.get("input").expect("input");
        negative_zero |= json::to_ascii(input).contains("-0");
        let a = actual_json(&reference.call(&op, input));
        let b = actual_json(&fixture.call(&op, input));
        let shown = json::to_ascii(class);
        assert_eq!(Some(&a), example.get("a"), "{shown}");
        assert_eq!(Some(&b), example.get("b"), "{shown}");
        assert_ne!(json::to_ascii(&a), json::to_ascii(&b), "{shown}");
    }
    assert!(negative_zero, "no class example holds -0: {text}");
}

/// A share of the cases grows from the vectors' inputs, on by default and
/// off with `--corpus none` (spec `runner.differential.corpus`): grown
/// inputs are the seeds, some unchanged and most mutated, and a member the
/// protocol types is never removed.
#[test]
fn the_corpus_grows_cases_from_the_vectors_unless_turned_off() {
    let newest = describe(Features::NEWEST);
    let plan = plan(&newest, &newest, None);
    let suite = Suite::embedded().expect("the embedded suite");
    let seeds = corpus::seeds(&plan, &newest, &newest, &suite);
    let retain_seeds = seeds.get("retain").expect("retain seeds");
    assert!(retain_seeds.len() > 100, "{}", retain_seeds.len());
    let strategy = corpus::strategy("retain", retain_seeds.clone());
    let mut runner = TestRunner::deterministic();
    let grown: Vec<Json> = (0..300)
        .map(|_| strategy.new_tree(&mut runner).expect("tree").current())
        .collect();
    let unchanged = grown
        .iter()
        .filter(|input| retain_seeds.contains(input))
        .count();
    assert!(unchanged > 10 && unchanged < 150, "{unchanged}");
    // A typed member is never removed: mutations of seeds that have all
    // three keep them (some seeds lack one on purpose: spec
    // runner.value-reach's `absent`).
    let members = ["snapshot", "label", "maxBytes"];
    let whole = retain_seeds
        .iter()
        .filter(|seed| members.iter().all(|member| seed.get(member).is_some()));
    for seed in whole.take(40) {
        for choice in (0..=255u8).step_by(7) {
            let mutated = corpus::mutate("retain", seed.clone(), [choice, choice / 3, choice / 5]);
            for member in members {
                assert!(
                    mutated.get(member).is_some(),
                    "{member} removed: {}",
                    json::to_ascii(&mutated)
                );
            }
        }
    }
    // The command line says which, and --corpus none turns it off.
    let port = fixture_port("");
    let run = ["--ops", "retain", "--cases", "40", "--seed", "1"];
    let (code, text) = differential_cli(&port, &run);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("corpus: one case in four grows from a vector's input, mutated (retain "),
        "{text}"
    );
    let (code, text) = differential_cli(&port, &[&run[..], &["--corpus", "none"]].concat());
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("corpus: none (every case drawn by its op's strategy)"),
        "{text}"
    );
}

/// runner.differential.guided: with the default cases, under seeds 3 and
/// 17, a run against the reference adapter reaches every rule it could
/// reach, each by at least five compared cases, and says so in `coverage`
/// (runner.reach).
#[test]
fn the_default_cases_reach_every_reachable_rule_five_times() {
    let adapter = format!("'{}' adapter", env!("CARGO_BIN_EXE_dsh-session-reference"));
    for seed in ["3", "17"] {
        let (code, stdout) = differential_cli(&adapter, &["--seed", seed, "--format", "json"]);
        assert_eq!(code, Some(0), "seed {seed}: {stdout}");
        let report = json::parse(&stdout).expect("a JSON report");
        let coverage = report.get("coverage").expect("coverage");
        let unreached = coverage.get("unreached").and_then(Json::as_array);
        assert_eq!(
            unreached.map(<[Json]>::len),
            Some(0),
            "seed {seed}: {coverage:?}"
        );
        let reached = coverage
            .get("reached")
            .and_then(Json::as_object)
            .unwrap_or_default();
        assert!(
            reached.len() > 150,
            "seed {seed}: {} rules reached",
            reached.len()
        );
        let few: Vec<String> = reached
            .iter()
            .filter(|(_, cases)| !matches!(cases, Json::Number(cases) if *cases >= 5.0))
            .map(|(rule, cases)| format!("{rule:?}: {cases:?}"))
            .collect();
        assert!(
            few.is_empty(),
            "seed {seed}: rules under five cases: {few:?}"
        );
    }
}
