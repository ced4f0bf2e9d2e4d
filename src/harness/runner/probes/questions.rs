//! The questions of each op and the reference's answers to them (spec
//! `runner.probes`): the probes a request's lower ops are asked, derived
//! from the request and the reference's own answer, and whether an answer
//! agrees. Every other room of probing builds on these.

use crate::config::{budget, positive_safe_integer, Config};
use crate::features::Features;
use crate::harness::runner::diff::first_difference;
use crate::harness::runner::members::without;
use crate::js::json::{self, Json};
use crate::js::{is_js_whitespace, JsString};
use crate::protocol::dispatch;
use crate::protocol::wire::{Outcome, UNSUPPORTED};
use crate::uri::SCHEME_UNITS;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use std::collections::HashSet;

/// How many probes of one kind a request gets at most (the URIs of one
/// text, the references of one preparation).
const MAX_OF_A_KIND: usize = 8;

/// `Number.MAX_SAFE_INTEGER`: a budget nothing exceeds, so that `retain`
/// answers the projection alone.
pub(super) const UNBOUNDED: f64 = 9_007_199_254_740_991.0;

/// One lower op's question, derived from a request.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// The lower op.
    pub op: &'static str,
    /// Its input.
    pub input: Json,
}

impl Probe {
    /// The question of `op` with these input members.
    pub fn new<const N: usize>(op: &'static str, members: [(&str, Json); N]) -> Probe {
        Probe {
            op,
            input: Json::object(members),
        }
    }
}

/// A lower op's answer to a question, where only an answer will do;
/// `None` when it cannot be had.
pub type Answers<'a> = dyn FnMut(&Probe) -> Option<Outcome> + 'a;

/// A question as the run's caches key it: its op and its input's text.
pub(super) fn key(op: &str, input: &Json) -> String {
    format!("{op}\n{}", json::stringify(input))
}

/// Whether the implementation's answer passes against the reference's, as
/// a vector's would (spec `conformance.comparison`); `UNSUPPORTED` is no
/// disagreement.
pub fn agrees(expected: &Outcome, actual: &Result<Outcome, String>) -> bool {
    match (expected, actual) {
        (_, Ok(Outcome::Error { code, .. })) if code == UNSUPPORTED => true,
        (Outcome::Output(x), Ok(Outcome::Output(y))) => first_difference(x, y).is_none(),
        (Outcome::Error { code: x, .. }, Ok(Outcome::Error { code: y, .. })) => x == y,
        _ => false,
    }
}

/// The probes of a request of `op` (spec `runner.probes`), lowest ops
/// first, derived from its input and the reference's answer `own`.
pub fn derive(features: Features, op: &str, input: &Json, own: &Outcome) -> Vec<Probe> {
    let output = match own {
        Outcome::Output(output) => Some(output),
        Outcome::Error { .. } => None,
    };
    let encode = |id: Json| vec![Probe::new("uri/encode", [("sessionId", id)])];
    match op {
        "uri/decode" => input
            .get("uri")
            .and_then(Json::as_js_str)
            .and_then(|uri| spelled_id(uri.units()))
            .map_or_else(Vec::new, |id| encode(Json::String(id))),
        "mention/format" => input
            .get("sessionId")
            .cloned()
            .map_or_else(Vec::new, encode),
        "mention/parse" => parse_probes(input, output),
        "retain" => retain_probes(features, input, output),
        "prepare" => prepare_probes(features, input, output),
        "pre-step" => pre_step_probes(features, input),
        "candidates/list" => config_probe(input).into_iter().collect(),
        "candidates/remote" => remote_probes(features, input, output),
        _ => Vec::new(),
    }
}

/// A parse's probes: `uri/decode` of each URI its text holds, then
/// `mention/format` of each reference the reference parsed.
fn parse_probes(input: &Json, output: Option<&Json>) -> Vec<Probe> {
    let mut probes = Vec::new();
    if let Some(text) = input.get("text").and_then(Json::as_js_str) {
        let mut uris = uris_in(text.units());
        let mut seen = HashSet::new();
        uris.retain(|uri| seen.insert(uri.clone()));
        for uri in uris.into_iter().take(MAX_OF_A_KIND) {
            let uri = Json::String(JsString::from_units(uri));
            probes.push(Probe::new("uri/decode", [("uri", uri)]));
        }
    }
    let references = output.and_then(|output| output.get("references"));
    let references = references.and_then(Json::as_array).unwrap_or_default();
    let formatted = references.iter().take(MAX_OF_A_KIND);
    probes.extend(formatted.map(|reference| format_probe(reference, "sessionId", "label")));
    probes
}

/// A retention's probes: `json/tag-safe` of the data the reference
/// measured (the whole projection it measures first, then what it
/// retained), then the projection itself.
fn retain_probes(features: Features, input: &Json, output: Option<&Json>) -> Vec<Probe> {
    let labelled = input
        .get("snapshot")
        .filter(|_| input.get("label").is_some());
    let projection =
        labelled.map(|snapshot| retain_question(snapshot, input.get("label"), UNBOUNDED));
    let whole = projection.as_ref().and_then(|probe| {
        match dispatch::handle_in(features, probe.op, &probe.input) {
            Outcome::Output(whole) => whole.get("data").cloned(),
            Outcome::Error { .. } => None,
        }
    });
    let retained = output.and_then(|output| output.get("data")).cloned();
    let kept = retained.filter(|data| Some(data) != whole.as_ref());
    let mut probes: Vec<Probe> = whole
        .into_iter()
        .chain(kept)
        .map(|data| Probe::new("json/tag-safe", [("value", data)]))
        .collect();
    probes.extend(projection);
    probes
}

/// The `retain` of `snapshot` with `label` (when there is one) and a
/// budget of `max_bytes`: with an unbounded one, it answers the projection
/// alone.
pub(super) fn retain_question(snapshot: &Json, label: Option<&Json>, max_bytes: f64) -> Probe {
    let mut members = vec![(JsString::from("snapshot"), snapshot.clone())];
    members.extend(label.map(|label| (JsString::from("label"), label.clone())));
    members.push((JsString::from("maxBytes"), Json::Number(max_bytes)));
    Probe {
        op: "retain",
        input: Json::Object(members),
    }
}

/// A remote listing's probes: its configuration, the `candidates/list` it
/// lists from, and the mention of each candidate it answered.
fn remote_probes(features: Features, input: &Json, output: Option<&Json>) -> Vec<Probe> {
    let mut probes: Vec<Probe> = config_probe(input).into_iter().collect();
    probes.push(remote_listing(input));
    let candidates = output.and_then(Json::as_array).unwrap_or_default();
    let label = mention_label(features);
    let formatted = candidates.iter().take(MAX_OF_A_KIND);
    probes.extend(formatted.map(|candidate| format_probe(candidate, "sessionId", label)));
    probes
}

/// The `candidates/list` a `candidates/remote` lists from: its input
/// without `limit`, which a remote listing ignores for the configured one
/// (spec `candidates.remote`).
pub(super) fn remote_listing(input: &Json) -> Probe {
    Probe {
        op: "candidates/list",
        input: Json::Object(without(input, &["limit"])),
    }
}

/// The member of a remote candidate its mention shows (spec
/// `candidates.remote`): the display title with `remote-display-label`.
pub(super) fn mention_label(features: Features) -> &'static str {
    if features.remote_display_label {
        "displayTitle"
    } else {
        "label"
    }
}

/// `mention/format` of a record's id and label.
pub(super) fn format_probe(record: &Json, id: &str, label: &str) -> Probe {
    Probe::new(
        "mention/format",
        [
            ("sessionId", record.get(id).cloned().unwrap_or(Json::Null)),
            ("label", record.get(label).cloned().unwrap_or(Json::Null)),
        ],
    )
}

/// `config/check` of the request's configuration, when it has one.
pub(super) fn config_probe(input: &Json) -> Option<Probe> {
    let config = input.get("config")?.clone();
    Some(Probe::new("config/check", [("config", config)]))
}

/// Whether a question of `op` is one its op refuses, which the reference
/// answers as the op composed of it asks it (spec `runner.probes`): the
/// retention of a preparation's source whose snapshot has no string id (a
/// preparation checks its request's reference, `retain` the snapshot's).
/// It is never sent: what was learned of the implementation stands in.
pub fn refused_by_its_op(op: &str, input: &Json) -> bool {
    op == "retain"
        && !matches!(
            input
                .get("snapshot")
                .and_then(|snapshot| snapshot.get("session"))
                .and_then(|session| session.get("id")),
            Some(Json::String(_))
        )
}

/// The reference's answer to a question of `op`: the op's, or what the op
/// composed of it asks where its op refuses it ([`refused_by_its_op`]):
/// what a preparation retains of the source ([`dispatch::retained`]).
pub fn reference_answer(features: Features, op: &str, input: &Json) -> Outcome {
    if !refused_by_its_op(op, input) {
        return dispatch::handle_in(features, op, input);
    }
    let (Some(max_bytes), Some(Json::String(label))) = (
        input.get("maxBytes").and_then(positive_safe_integer),
        input.get("label"),
    ) else {
        return dispatch::handle_in(features, op, input);
    };
    let snapshot = input.get("snapshot").unwrap_or(&Json::Null);
    dispatch::retained(features, snapshot, label, max_bytes)
        .map_or_else(|failure| failure, Outcome::Output)
}

/// A preparation's probes: its configuration, its prompt's data as tag-safe
/// JSON, and each source retained with the budget the reference computed.
pub(super) fn prepare_probes(
    features: Features,
    input: &Json,
    output: Option<&Json>,
) -> Vec<Probe> {
    let mut probes: Vec<Probe> = config_probe(input).into_iter().collect();
    let context = output.and_then(|output| output.get("additionalContext"));
    if let Some(data) = context.and_then(prompt_data) {
        probes.push(Probe::new("json/tag-safe", [("value", data)]));
    }
    let budget = reference_budget(features, input);
    let sessions = input.get("sessions").and_then(Json::as_object);
    // The sources as the request names them (the session store's keys;
    // a snapshot's own id may differ), as the reference normalizes them.
    let references = requested_sources(input);
    for reference in references.iter().take(MAX_OF_A_KIND) {
        let (Some(budget), Some(sessions)) = (budget, sessions) else {
            break;
        };
        let Some(id) = reference.get("sessionId").and_then(Json::as_js_str) else {
            continue;
        };
        // The last member of that name, as JavaScript reads an object.
        let snapshot = sessions
            .iter()
            .rev()
            .find(|(name, _)| name.units() == id.units())
            .map(|(_, snapshot)| snapshot);
        let (Some(snapshot), Some(label)) = (snapshot, reference.get("label")) else {
            continue;
        };
        if snapshot.get("events").is_none() {
            continue;
        }
        // A budget past any size is the unbounded one, which retain
        // accepts (a safe integer).
        let max_bytes = (budget as f64).min(UNBOUNDED);
        probes.push(retain_question(snapshot, Some(label), max_bytes));
    }
    probes
}

/// The per-reference byte budget the reference computes for a preparation
/// (spec `prepare.budget.fixed`, `prepare.budget.automatic`), or `None`
/// when its configuration is refused or its model lookup fails.
fn reference_budget(features: Features, input: &Json) -> Option<u64> {
    let config = Config::from_json(input.get("config"), features).ok()?;
    let route = input.get("agent").and_then(|agent| agent.get("route"));
    let provider = route
        .and_then(|route| route.get("provider"))
        .and_then(Json::as_js_str);
    let model = route
        .and_then(|route| route.get("model"))
        .and_then(Json::as_js_str);
    let route = provider.zip(model).map(|(p, m)| (p.units(), m.units()));
    budget(&config, route, &dispatch::JsonModels(input.get("models"))).ok()
}

/// The request's references as sources: `{sessionId, label}` with the id
/// as label when there is none, each id once.
fn requested_sources(input: &Json) -> Vec<Json> {
    let mut sources: Vec<Json> = Vec::new();
    let references = input
        .get("references")
        .and_then(Json::as_array)
        .unwrap_or_default();
    for reference in references {
        let Some(id @ Json::String(_)) = reference.get("sessionId") else {
            continue;
        };
        if sources
            .iter()
            .any(|known| known.get("sessionId") == Some(id))
        {
            continue;
        }
        let label = match reference.get("label") {
            Some(label @ Json::String(_)) => label.clone(),
            _ => id.clone(),
        };
        sources.push(Json::object([("sessionId", id.clone()), ("label", label)]));
    }
    sources
}

/// The JSON value between a prompt's `<referenced-sessions>` tags.
pub(super) fn prompt_data(context: &Json) -> Option<Json> {
    const OPEN: &str = "<referenced-sessions>\n";
    const CLOSE: &str = "\n</referenced-sessions>";
    let text = context
        .get("content")
        .and_then(Json::as_array)?
        .first()?
        .get("text")?
        .as_string()?;
    let start = text.find(OPEN)? + OPEN.len();
    let end = start + text[start..].find(CLOSE)?;
    json::parse(&text[start..end]).ok()
}

/// A pre-step's probes: `mention/parse` of each direct user message's text
/// blocks, then `prepare` of each message that mentions a session, as the
/// reference builds it.
fn pre_step_probes(features: Features, input: &Json) -> Vec<Probe> {
    let mut reference = |probe: &Probe| Some(dispatch::handle_in(features, probe.op, &probe.input));
    let (mut parses, mut preparations, _) =
        pre_step_questions(input, &mut reference).unwrap_or_default();
    parses.truncate(MAX_OF_A_KIND);
    preparations.truncate(MAX_OF_A_KIND);
    parses.extend(preparations);
    parses
}

/// The `prepare` of each direct user message that mentions a session, as a
/// pre-step builds it from what `parse` answers to each of its text
/// blocks: `Err` with the first parse that fails (the pre-step fails with
/// it, spec `pre-step.errors`), `None` when a parse could not be had.
pub(super) fn pre_step_preparations(
    input: &Json,
    parse: &mut Answers,
) -> Option<Result<Vec<Probe>, Outcome>> {
    let (_, preparations, failed) = pre_step_questions(input, parse)?;
    Some(match failed {
        Some(failed) => Err(failed),
        None => Ok(preparations),
    })
}

/// A pre-step's `mention/parse` questions, its `prepare` questions built
/// from `parse`'s answers, and the first parse that failed.
fn pre_step_questions(
    input: &Json,
    parse: &mut Answers,
) -> Option<(Vec<Probe>, Vec<Probe>, Option<Outcome>)> {
    let mut parses = Vec::new();
    let mut preparations = Vec::new();
    let mut failed = None;
    let messages = input
        .get("messages")
        .and_then(Json::as_array)
        .unwrap_or_default();
    for message in messages {
        let direct = message
            .get("source")
            .and_then(|source| source.get("kind"))
            .and_then(Json::as_js_str)
            .is_some_and(|kind| kind.is("user"));
        if !direct {
            continue;
        }
        let blocks = message
            .get("content")
            .and_then(Json::as_array)
            .unwrap_or_default();
        let asked = message_preparation(input, blocks, parse, &mut parses, &mut failed)?;
        preparations.extend(asked);
    }
    Some((parses, preparations, failed))
}

/// The `prepare` of a direct user message of `blocks`, as a pre-step of
/// `input` builds it, when every text block of it parses and it mentions
/// a session; each text's parse is added to `parses`, and the first
/// that failed kept in `failed`.
fn message_preparation(
    input: &Json,
    blocks: &[Json],
    parse: &mut Answers,
    parses: &mut Vec<Probe>,
    failed: &mut Option<Outcome>,
) -> Option<Option<Probe>> {
    let mut content = Vec::new();
    let mut references = Vec::new();
    let mut readable = true;
    for block in blocks {
        let text = block
            .get("type")
            .and_then(Json::as_js_str)
            .filter(|kind| kind.is("text"))
            .and_then(|_| block.get("text"))
            .filter(|text| matches!(text, Json::String(_)));
        let Some(text) = text else {
            content.push(block.clone());
            continue;
        };
        let question = Probe::new("mention/parse", [("text", text.clone())]);
        match parse(&question)? {
            Outcome::Output(parsed) => {
                content.push(Json::object([
                    ("type", Json::str("text")),
                    ("text", parsed.get("text").cloned().unwrap_or(Json::Null)),
                ]));
                references.extend(
                    parsed
                        .get("references")
                        .and_then(Json::as_array)
                        .unwrap_or_default()
                        .iter()
                        .cloned(),
                );
            }
            error @ Outcome::Error { .. } => {
                readable = false;
                failed.get_or_insert(error);
            }
        }
        parses.push(question);
    }
    if !readable || references.is_empty() {
        return Some(None);
    }
    let mut members = without(input, &["messages", "keepIds"]);
    members.push((JsString::from("content"), Json::Array(content)));
    members.push((JsString::from("references"), Json::Array(references)));
    Some(Some(Probe {
        op: "prepare",
        input: Json::Object(members),
    }))
}

/// The session id a URI's payload spells, read leniently (padding,
/// either base64 alphabet, any JSON string literal): what `uri/encode` must
/// be asked to learn whether the URI is canonical.
pub(super) fn spelled_id(uri: &[u16]) -> Option<JsString> {
    let payload = uri.strip_prefix(&SCHEME_UNITS[..])?;
    let bytes: Vec<u8> = payload
        .iter()
        .filter(|&&unit| unit != u16::from(b'='))
        .map(|&unit| match u8::try_from(unit).ok()? {
            b'+' => Some(b'-'),
            b'/' => Some(b'_'),
            byte => Some(byte),
        })
        .collect::<Option<_>>()?;
    let lenient = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let literal = lenient.decode(bytes).ok()?;
    match json::parse(&String::from_utf8_lossy(&literal)).ok()? {
        Json::String(id) => Some(id),
        _ => None,
    }
}

/// Every `dsh-session:` in a text with what follows it up to whitespace or
/// `)`, as an explicit mention's URI runs (spec `mention.parse.uri`), and
/// with its payload characters only, as a bare URI runs, when that is
/// shorter.
fn uris_in(text: &[u16]) -> Vec<Vec<u16>> {
    let scheme = &SCHEME_UNITS[..];
    let mut uris = Vec::new();
    let mut at = 0;
    while at + scheme.len() <= text.len() {
        if !text[at..].starts_with(scheme) {
            at += 1;
            continue;
        }
        let run_end = |stop: &dyn Fn(u16) -> bool| {
            text[at + scheme.len()..]
                .iter()
                .position(|&unit| stop(unit))
                .map_or(text.len(), |length| at + scheme.len() + length)
        };
        let explicit = run_end(&|unit| is_js_whitespace(unit) || unit == u16::from(b')'));
        let bare = run_end(&|unit| !crate::uri::is_payload_unit(unit));
        uris.push(text[at..explicit].to_vec());
        if bare < explicit {
            uris.push(text[at..bare].to_vec());
        }
        // A run may hold another URI: the scanner may match it alone.
        at += scheme.len();
    }
    uris
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Json {
        json::parse(text).expect("test JSON")
    }

    #[test]
    fn a_uri_is_probed_with_the_id_it_spells_canonical_or_not() {
        // runner.probes
        let id = |uri: &str| spelled_id(&uri.encode_utf16().collect::<Vec<_>>());
        let canonical = crate::uri::encode(&"a/b".encode_utf16().collect::<Vec<_>>());
        assert_eq!(id(&canonical), Some(JsString::from("a/b")));
        assert_eq!(id(&format!("{canonical}==")), Some(JsString::from("a/b")));
        // `"\u00E9"`: upper-case hex, not canonical, still an id.
        assert_eq!(id("dsh-session:Ilx1MDBFOSI"), Some(JsString::from("é")));
        assert_eq!(id("dsh-session:bm90IGpzb24"), None);
        assert_eq!(id("other:Ilx1MDBFOSI"), None);
    }

    #[test]
    fn a_text_is_probed_at_every_uri_it_holds() {
        // runner.probes
        let text: Vec<u16> = "@[a](dsh-session:Ill) and dsh-session:x y dsh-session:"
            .encode_utf16()
            .collect();
        let uris: Vec<String> = uris_in(&text)
            .iter()
            .map(|uri| String::from_utf16_lossy(uri))
            .collect();
        assert_eq!(uris, ["dsh-session:Ill", "dsh-session:x", "dsh-session:"]);
        let bare: Vec<u16> = "see dsh-session:InMi, then".encode_utf16().collect();
        let uris: Vec<String> = uris_in(&bare)
            .iter()
            .map(|uri| String::from_utf16_lossy(uri))
            .collect();
        assert_eq!(uris, ["dsh-session:InMi,", "dsh-session:InMi"]);
    }

    #[test]
    fn each_op_is_probed_at_the_ops_it_is_built_from() {
        // runner.probes
        let ops = |op: &str, input: &str| -> Vec<&'static str> {
            let input = parse(input);
            let own = dispatch::handle_in(Features::RC8, op, &input);
            derive(Features::RC8, op, &input, &own)
                .iter()
                .map(|probe| probe.op)
                .collect()
        };
        assert_eq!(
            ops("mention/format", r#"{"sessionId":"s"}"#),
            ["uri/encode"]
        );
        assert_eq!(
            ops("mention/parse", r#"{"text":"@[l](dsh-session:InMi)"}"#),
            ["uri/decode", "mention/format"]
        );
        let snapshot = r#"{"session":{"id":"s1","cwd":"/w"},"capturedThroughSeq":1,"events":[{"type":"user/message","data":{"source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]}}]}"#;
        assert_eq!(
            ops(
                "retain",
                &format!(r#"{{"snapshot":{snapshot},"label":"l","maxBytes":1000}}"#)
            ),
            ["json/tag-safe", "retain"]
        );
        let prepare = format!(
            r#"{{"agent":{{"id":"me"}},"content":[],"references":[{{"sessionId":"s1"}}],"sessions":{{"s1":{snapshot}}},"config":null}}"#
        );
        assert_eq!(
            ops("prepare", &prepare),
            ["config/check", "json/tag-safe", "retain"]
        );
        let pre_step = format!(
            r#"{{"agent":{{"id":"me"}},"messages":[{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"see dsh-session:InMxIg"}}]}}],"sessions":{{"s1":{snapshot}}}}}"#
        );
        assert_eq!(ops("pre-step", &pre_step), ["mention/parse", "prepare"]);
        assert_eq!(
            ops("uri/encode", r#"{"sessionId":"s"}"#),
            Vec::<&str>::new()
        );
    }
}
