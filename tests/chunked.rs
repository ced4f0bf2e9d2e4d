//! `candidates/*` read a chunk of the listing at a time answers as the
//! request read whole (spec `candidates.rank`; issue #61), over drawn
//! requests: plain listings, which it must answer, and listings with
//! values of other types, duplicate members, sessions that are not
//! objects, invalid limits and queries, which it may leave to the whole
//! reading but never answer otherwise.

use dsh_session_reference::features::Features;
use dsh_session_reference::js::json;
use dsh_session_reference::protocol::chunked;
use dsh_session_reference::protocol::dispatch;
use dsh_session_reference::protocol::wire::{Request, Response};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// The answer to `line` read whole, as the adapter gives it.
fn whole(line: &str, features: Features) -> String {
    let mut request = Request::from_line(line).expect("a request");
    let outcome = dispatch::handle_taking(features, &request.op, &mut request.input);
    Response {
        id: Some(request.id),
        outcome,
    }
    .to_line()
}

/// The answer to `line` read `chunk` sessions at a time, if given.
fn in_chunks(line: &str, chunk: usize, features: Features) -> Option<String> {
    chunked::respond(line, chunk, features, |op, input| {
        dispatch::handle_taking(features, op, input)
    })
    .map(|response| response.to_line())
}

/// A listed field: mostly short text the query may match, now and then a
/// value of another type.
fn field(plain: bool) -> BoxedStrategy<String> {
    let text = prop::collection::vec(
        prop::sample::select(vec!["a", "b", "P", "/w", "-", "ß", "\\u0061", "İ", " "]),
        0..5,
    )
    .prop_map(|pieces| format!("\"{}\"", pieces.concat()));
    if plain {
        return text.boxed();
    }
    prop_oneof![
        8 => text,
        1 => prop::sample::select(vec!["null", "7", "true", "[]", "{}"]).prop_map(str::to_owned),
    ]
    .boxed()
}

/// One listed session's text: an object with an id, maybe a cwd, a
/// creation time, a title and a subagent label; unless `plain`, now and
/// then an id of another type, a duplicate member, or no object at all.
fn session(index: usize, plain: bool) -> BoxedStrategy<String> {
    let cwds = if plain {
        vec!["\"/w\"", "\"/o\"", "\"/w/a\""]
    } else {
        vec!["\"/w\"", "\"/o\"", "\"/w/a\"", "7", "null", "7", "{}"]
    };
    let cwd = prop::option::of(prop::sample::select(cwds));
    let member = |name: &'static str| {
        prop::option::of(field(plain)).prop_map(move |value| {
            value.map_or_else(String::new, |value| format!(",\"{name}\":{value}"))
        })
    };
    let session = (cwd, member("title"), member("subagentLabel"), 0..3u8).prop_map(
        move |(cwd, title, label, oddity)| {
            let cwd = cwd.map_or_else(String::new, |cwd| format!(",\"cwd\":{cwd}"));
            let id = match (plain, oddity) {
                (false, 0) => "7".to_owned(),
                _ => format!("\"s{index}\""),
            };
            let again = if !plain && oddity == 1 {
                ",\"title\":\"a\""
            } else {
                ""
            };
            format!("{{\"id\":{id}{cwd},\"createdAt\":{index}{title}{label}{again}}}")
        },
    );
    if plain {
        return session.boxed();
    }
    prop_oneof![9 => session, 1 => Just("3".to_owned())].boxed()
}

/// A `candidates/list` or `candidates/remote` request line over up to 12
/// sessions, with whitespace between them now and then.
fn request(plain: bool) -> impl Strategy<Value = String> {
    let sessions = (0usize..12).prop_flat_map(move |count| {
        (0..count)
            .map(|index| session(index, plain))
            .collect::<Vec<_>>()
    });
    let limit = prop::sample::select(vec!["", ",\"limit\":1", ",\"limit\":3", ",\"limit\":0"]);
    let query = prop::sample::select(vec![
        "",
        ",\"query\":\"\"",
        ",\"query\":\"a\"",
        ",\"query\":\"p\"",
        ",\"query\":7",
    ]);
    let agent = prop::sample::select(vec![
        "{\"id\":\"s1\",\"cwd\":\"/w\"}",
        "{\"id\":\"s2\"}",
        "{\"id\":3,\"cwd\":\"/o\"}",
        "{\"id\":\"s0\",\"cwd\":7}",
        "{\"cwd\":null}",
        "{}",
    ]);
    let op = prop::sample::select(vec!["candidates/list", "candidates/remote"]);
    (sessions, limit, query, agent, op, any::<bool>()).prop_map(
        |(sessions, limit, query, agent, op, spaced)| {
            let separator = if spaced { " ,\n " } else { "," };
            format!(
                "{{\"id\":\"r\",\"op\":\"{op}\",\"input\":{{\"agent\":{agent},\"sessions\":[{}]{query}{limit}}}}}",
                sessions.join(separator)
            )
        },
    )
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/chunked.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// A plain listing is answered in chunks of any size, as read whole.
    #[test]
    fn a_plain_listing_in_chunks_answers_as_whole(line in request(true), chunk in 1usize..4, fuzzy in any::<bool>()) {
        let features = if fuzzy { Features::NEWEST } else { Features::RC8 };
        prop_assert!(json::parse(&line).is_ok(), "{line}");
        let expected = whole(&line, features);
        let answered = in_chunks(&line, chunk, features);
        // A ranking error (a limit of 0, a query of another type) is left
        // to the whole reading.
        if !expected.contains("\"error\"") {
            prop_assert_eq!(answered.as_deref(), Some(expected.as_str()), "{}", line);
        } else if let Some(answered) = answered {
            prop_assert_eq!(answered, expected, "{}", line);
        }
    }

    /// Any listing: answered as read whole, or left to the whole reading.
    #[test]
    fn any_listing_in_chunks_answers_as_whole_or_not_at_all(line in request(false), chunk in 1usize..4, fuzzy in any::<bool>()) {
        let features = if fuzzy { Features::NEWEST } else { Features::RC8 };
        if let Some(answered) = in_chunks(&line, chunk, features) {
            prop_assert_eq!(answered, whole(&line, features), "{}", line);
        }
    }
}

/// What is not a plain `candidates/*` request line is left to the whole
/// reading: another op, an op written after the input, a listing that is
/// not an array, text that is not JSON, a session nested deeper than the
/// parser reads counted from the line's outermost value (spec
/// `wire.json.depth`), though not counted from the session.
#[test]
fn leaves_what_it_cannot_answer_alike() {
    let depth = json::MAX_DEPTH - 2;
    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    for line in [
        r#"{"id":"r","op":"uri/encode","input":{"sessionId":"a","sessions":[]}}"#.to_owned(),
        r#"{"id":"r","input":{"sessions":[{"id":"a"}]},"op":"candidates/list"}"#.to_owned(),
        r#"{"id":"r","op":"candidates/list","input":{"sessions":{}}}"#.to_owned(),
        r#"{"id":"r","op":"candidates/list","input":{"sessions":[{"id":"a"},]}}"#.to_owned(),
        r#"{"id":"r","op":"candidates/list","input":{"sessions":[{"id":"a"}]}} x"#.to_owned(),
        format!(
            r#"{{"id":"r","op":"candidates/list","input":{{"sessions":[{{"id":"a","createdAt":{deep}}}]}}}}"#
        ),
    ] {
        assert_eq!(in_chunks(&line, 1, Features::RC8), None, "{line}");
    }
}

/// The last `input` and the last `sessions` are the ones read, as
/// `JSON.parse` keeps them, keys spelled with escapes included.
#[test]
fn reads_the_last_member_of_a_name() {
    let line = r#"{"id":"r","op":"candidates/list","input":{"sessions":[{"id":"x"}]},"input":{"agent":{"id":"q"},"sessions":[{"id":"y"}],"s\u0065ssions":[{"id":"b"},{"id":"a","title":"A"}]}}"#;
    let answered = in_chunks(line, 1, Features::RC8).expect("a plain listing");
    assert_eq!(answered, whole(line, Features::RC8));
    assert!(
        answered.contains("\"sessionId\":\"a\"") && !answered.contains("\"y\""),
        "{answered}"
    );
}
