//! Properties that must hold for any input, shared by the fuzz targets in
//! `fuzz/` and the corpus replay test, so both check the same thing.
//!
//! Each public property function takes raw fuzzer bytes and **panics when a
//! property is violated** — that is how a fuzzer reports a finding. How the
//! bytes are read depends on the target:
//!
//! - [`mention_parse`], [`uri_decode`]: little-endian UTF-16 code units, so
//!   lone surrogates occur ([`units_from_bytes`]).
//! - [`protocol_request`]: a control byte, then one request line.
//! - [`prepare_snapshot`], [`retain_differential`]: structured cases drawn
//!   from the bytes by [`draw`]; retention results are compared with the
//!   slow [`retention_model`].

pub mod draw;
pub mod retention_model;

use crate::error::{ErrorCode, Failure};
use crate::features::{self, Features};
use crate::js::json::{self, Json};
use crate::prepare::{self, Agent, Services};
use crate::projection;
use crate::protocol::dispatch;
use crate::protocol::wire::{Outcome, Request, Response, INTERNAL, UNSUPPORTED};
use crate::retention::{self, Stats};
use crate::spill::{SimulatedSpillStore, SpillStore};
use crate::surface::{is_session_seq, JsonSessions, Snapshot};
use crate::tag_safe::stringify_tag_safe;
use crate::{mention, uri, JsString};
use draw::{Draw, DrawnReference, PrepareCase, SpillChoice, Stored, Target};
use std::borrow::Cow;

/// Reads bytes as little-endian UTF-16 code units; an odd last byte is
/// dropped.
pub fn units_from_bytes(data: &[u8]) -> Vec<u16> {
    data.chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect()
}

/// `mention::parse` never panics; what it returns is consistent: each
/// reference formats to a mention that parses back to `@label` and itself.
pub fn mention_parse(data: &[u8]) {
    let text = units_from_bytes(data);
    let Ok(parsed) = mention::parse(&text) else {
        return;
    };
    if parsed.references.is_empty() {
        assert_eq!(
            parsed.text.units(),
            text.as_slice(),
            "text without references changed"
        );
    }
    for reference in &parsed.references {
        let mention = mention::format(reference.session_id.units(), Some(reference.label.units()));
        let again = mention::parse(mention.units()).expect("a formatted mention parses");
        let mut expected_text = vec![u16::from(b'@')];
        expected_text.extend_from_slice(reference.label.units());
        assert_eq!(
            again.text.units(),
            expected_text.as_slice(),
            "parse(format(r)).text"
        );
        assert_eq!(
            again.references,
            std::slice::from_ref(reference),
            "parse(format(r)).references"
        );
    }
}

/// `uri::decode` never panics, accepts only what `encode` produces, and
/// `encode` of the input read as an id decodes back to it.
pub fn uri_decode(data: &[u8]) {
    let units = units_from_bytes(data);
    if let Ok(session_id) = uri::decode(&units) {
        let again: Vec<u16> = uri::encode(session_id.units()).encode_utf16().collect();
        assert_eq!(
            again, units,
            "decode accepted a URI that encode does not produce"
        );
    }
    let encoded: Vec<u16> = uri::encode(&units).encode_utf16().collect();
    assert_eq!(
        uri::decode(&encoded),
        Ok(JsString::from_units(units)),
        "decode(encode(id))"
    );
}

// ---------------------------------------------------------------------------
// JSON and the protocol
// ---------------------------------------------------------------------------

/// Structural equality with numbers compared bit for bit, so that `-0` and
/// `0` differ: `to_wire` writes `-0` as `-0`, and it must read back so.
pub fn same_json(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.to_bits() == y.to_bits(),
        (Json::Array(xs), Json::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_json(x, y))
        }
        (Json::Object(xs), Json::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .zip(ys)
                    .all(|((kx, x), (ky, y))| kx == ky && same_json(x, y))
        }
        _ => a == b,
    }
}

/// Panics unless `text` parses to exactly `value` (numbers bit for bit).
fn assert_reads_back(text: &str, value: &Json, writer: &str) {
    match json::parse(text) {
        Ok(again) => assert!(
            same_json(&again, value),
            "parse({writer}(v)) != v\n  v = {value:?}\n  {writer}(v) = {text}\n  read back = {again:?}"
        ),
        Err(error) => panic!("{writer} wrote text that does not parse ({error}): {text}"),
    }
}

/// For any text `json::parse` accepts, the writers write what reads back:
/// `parse(to_wire(v))` and `parse(to_pretty(v, expand_depth))` are `v`
/// exactly (member order, duplicates, `-0`, lone surrogates); `stringify`
/// writes JSON that `stringify` writes again unchanged (JavaScript's object
/// model, applied once, is applied for good); `stringify_tag_safe` writes
/// the same value with no raw `<`.
pub fn json_text(text: &str, expand_depth: usize) {
    let Ok(value) = json::parse(text) else {
        return;
    };
    assert_reads_back(&json::to_wire(&value), &value, "to_wire");
    assert_reads_back(&json::to_pretty(&value, expand_depth), &value, "to_pretty");
    let plain = json::stringify(&value);
    let reparsed = json::parse(&plain).unwrap_or_else(|error| {
        panic!("stringify wrote text that does not parse ({error}): {plain}")
    });
    assert_eq!(
        json::stringify(&reparsed),
        plain,
        "stringify(parse(stringify(v)))"
    );
    let safe = stringify_tag_safe(&value);
    assert!(!safe.contains('<'), "raw < in tag-safe JSON: {safe}");
    assert_reads_back(&safe, &reparsed, "stringify_tag_safe");
}

/// A JavaScript string of any code units (lone surrogates included)
/// survives JSON as a value and as a key, through every writer; the
/// measured lengths are those of the written literal and of the lossy UTF-8.
pub fn json_units(units: &[u16]) {
    let string = Json::String(JsString::from_units(units.to_vec()));
    let value = Json::Array(vec![
        string.clone(),
        Json::Object(vec![(JsString::from_units(units.to_vec()), string.clone())]),
    ]);
    assert_reads_back(&json::to_wire(&value), &value, "to_wire");
    assert_reads_back(&json::stringify(&value), &value, "stringify");
    assert_reads_back(&json::quote(units), &string, "quote");
    assert_reads_back(&json::quote_visible(units), &string, "quote_visible");
    let utf8 = String::from_utf16_lossy(units).len();
    for tag_safe in [false, true] {
        let mut literal = String::new();
        json::push_quoted(units, tag_safe, &mut literal);
        assert!(!tag_safe || !literal.contains('<'), "raw < in {literal}");
        assert_reads_back(&literal, &string, "push_quoted");
        let measured = json::measure(units, tag_safe);
        assert_eq!(
            measured.quoted,
            literal.len(),
            "measure(tag_safe={tag_safe}).quoted"
        );
        assert_eq!(
            json::quoted_len(units, tag_safe),
            literal.len(),
            "quoted_len"
        );
        assert_eq!(measured.utf8, utf8, "measure(tag_safe={tag_safe}).utf8");
    }
}

/// The `k`th op a request may name (`describe` first, then the protocol's
/// ops, `features::OPS`), `None` past them.
pub fn known_op(k: usize) -> Option<&'static str> {
    match k {
        0 => Some("describe"),
        k => features::OPS.get(k - 1).copied(),
    }
}

/// How many ops [`known_op`] names.
pub fn known_op_count() -> usize {
    features::OPS.len() + 1
}

/// An op no implementation knows.
pub const UNKNOWN_OP: &str = "no/such-op";

/// The outcome of `op` is one the protocol allows: an output that reads
/// back exactly from its wire form and whose `stringify` is JSON, or an
/// error with one of the seven stable codes or `INTERNAL`, or
/// `UNSUPPORTED` exactly when the op is unknown.
fn check_outcome(op: &str, outcome: &Outcome) {
    match outcome {
        Outcome::Output(output) => {
            assert_reads_back(&json::to_wire(output), output, "to_wire");
            let plain = json::stringify(output);
            assert!(json::parse(&plain).is_ok(), "stringify(output): {plain}");
        }
        Outcome::Error { code, .. } => {
            assert_eq!(
                code == UNSUPPORTED,
                op != "describe" && !features::OPS.contains(&op),
                "{op}: error {code}"
            );
            assert!(
                code == UNSUPPORTED || code == INTERNAL || ErrorCode::from_wire(code).is_some(),
                "{op}: unknown error code {code}"
            );
        }
    }
}

fn same_outcome(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Output(x), Outcome::Output(y)) => same_json(x, y),
        _ => a == b,
    }
}

/// One protocol request, end to end. The first byte controls the run: bit
/// 0 picks the generation (newest, rc8), bit 1 how the rest is read as text
/// (lossy UTF-8, or strict: invalid UTF-8 is skipped), and bits 2–7 the op
/// (`0`: the request's own; `k`: [`known_op`]'s then `UNKNOWN_OP`, the
/// `(k − 1)`th modulo their number). The rest is one request line.
///
/// - The line, as JSON text, satisfies [`json_text`]; its bytes as UTF-16
///   code units satisfy [`json_units`].
/// - A request that reads writes back to a line that reads back the same.
/// - Dispatching it does not panic, its outcome satisfies the protocol
///   (see `check_outcome`), and the response line reads back the same.
pub fn protocol_request(data: &[u8]) {
    let Some((&control, line)) = data.split_first() else {
        return;
    };
    let text: Cow<'_, str> = if control & 0x02 == 0 {
        String::from_utf8_lossy(line)
    } else {
        match std::str::from_utf8(line) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => return,
        }
    };
    json_text(&text, usize::from(control >> 2) % 4);
    json_units(&units_from_bytes(line));
    let Ok(request) = Request::from_line(&text) else {
        return;
    };
    let written = request.to_line();
    let again = Request::from_line(&written)
        .unwrap_or_else(|error| panic!("a written request does not read ({error}): {written}"));
    assert!(
        again.id == request.id && again.op == request.op && same_json(&again.input, &request.input),
        "request changed on its way through a line: {written}"
    );
    let op = match usize::from(control >> 2) {
        0 => request.op.as_str(),
        k => known_op((k - 1) % (known_op_count() + 1)).unwrap_or(UNKNOWN_OP),
    };
    let outcome = if control & 0x01 == 0 {
        dispatch::handle(op, &request.input)
    } else {
        dispatch::handle_in(Features::RC8, op, &request.input)
    };
    check_outcome(op, &outcome);
    let response = Response {
        id: Some(request.id),
        outcome,
    };
    let written = response.to_line();
    let back = Response::from_line(&written)
        .unwrap_or_else(|error| panic!("a written response does not read ({error}): {written}"));
    assert!(
        back.id == response.id && same_outcome(&back.outcome, &response.outcome),
        "response changed on its way through a line: {written}"
    );
}

// ---------------------------------------------------------------------------
// Retention and preparation against the model
// ---------------------------------------------------------------------------

/// `retention::retain` as (data JSON, stats), checking that its two
/// renderings (`write_tag_safe`, `data_json`) agree.
pub fn fast_retain(snapshot: &Snapshot, label: &[u16], max_bytes: u64) -> Option<(String, Stats)> {
    let retained = retention::retain(snapshot, label, projection::project(snapshot), max_bytes)?;
    let mut written = String::new();
    retained.write_tag_safe(&mut written);
    assert_eq!(
        written,
        stringify_tag_safe(&retained.data_json()),
        "write_tag_safe and data_json disagree"
    );
    Some((written, retained.stats))
}

/// Fast retention against the slow model on a drawn snapshot, label and
/// budget ([`draw::snapshot`], [`draw::short_text`], [`draw::budget`]):
///
/// - same data bytes, same stats, same `None`;
/// - the data never exceeds the budget, and parses, with one conversation
///   item per retained message;
/// - data that fits whole is returned whole, with nothing omitted;
/// - retained + omitted = original messages = projected items, and
///   `truncated` is exactly "something was omitted";
/// - `truncate_with_notice` alone agrees with the model on a drawn text and
///   output budget.
pub fn retain_differential(data: &[u8]) {
    let mut draw = Draw::new(data);
    let value = draw::snapshot(&mut draw);
    let snapshot = draw::read_snapshot(&value);
    let label = draw::short_text(&mut draw);
    let whole = retention_model::whole(&snapshot, &label);
    let max = draw::budget(&mut draw, whole.len());
    let actual = fast_retain(&snapshot, &label, max);
    let expected = retention_model::retain(&snapshot, &label, max as usize);
    assert_eq!(actual, expected, "fast and model disagree at budget {max}");
    let items = projection::project(&snapshot);
    if let Some((data, stats)) = &actual {
        assert!(data.len() as u64 <= max, "{} > {max}: {data}", data.len());
        assert_eq!(stats.original_messages, items.len());
        assert_eq!(
            stats.retained_messages + stats.omitted_messages,
            stats.original_messages
        );
        assert_eq!(
            stats.truncated,
            stats.omitted_messages > 0 || stats.omitted_bytes > 0
        );
        let parsed = json::parse(data).expect("retained data parses");
        let conversation = parsed
            .get("conversation")
            .and_then(Json::as_array)
            .map(<[Json]>::len);
        assert_eq!(conversation, Some(stats.retained_messages));
    }
    if whole.len() as u64 <= max {
        let (data, stats) = actual.expect("data that fits whole is kept");
        assert_eq!(data, whole, "data that fits whole was changed");
        assert!(!stats.truncated, "data that fits whole was truncated");
    }
    let pick = draw.below(items.len() + 1);
    if let Some(item) = items.get(pick) {
        let total = retention_model::byte_length(&item.text);
        let max_out = match draw.byte() % 4 {
            0 => 30 + draw.below(9),
            _ => (total + 2) * draw.below(1001) / 1000,
        };
        assert_eq!(
            retention::truncate_with_notice(&item.text, max_out),
            retention_model::truncate_with_notice(&item.text, max_out),
            "truncate_with_notice at {max_out}"
        );
    }
}

/// One reference as the model prepares it.
struct ModelSource {
    snapshot: Snapshot,
    label: Vec<u16>,
    data: String,
    stats: Stats,
}

/// What `prepare` must do with `case`, decided from the rules in their
/// order (spec `prepare.normalize.*`, `prepare.cancel`,
/// `prepare.read-failed`, then, reference by reference, the newest
/// generation's `capturedThroughSeq` check and retention by the model):
/// an error code (`None` for a failure outside the contract), or each
/// distinct reference's model data and stats.
fn expected_prepare(case: &PrepareCase) -> Result<Vec<ModelSource>, Option<ErrorCode>> {
    let mut normalized: Vec<(&Target, Vec<u16>)> = Vec::new();
    for reference in &case.references {
        let DrawnReference::Entry { target, label } = reference else {
            return Err(Some(ErrorCode::InvalidReference));
        };
        let label = match label {
            None => None,
            Some(Json::String(label)) => Some(label.units().to_vec()),
            Some(_) => return Err(Some(ErrorCode::InvalidReference)),
        };
        if *target == Target::OwnSession {
            return Err(Some(ErrorCode::SelfReference));
        }
        if normalized.iter().any(|(seen, _)| *seen == target) {
            continue;
        }
        let label = label.unwrap_or_else(|| PrepareCase::target_id(target).into_units());
        normalized.push((target, label));
    }
    if normalized.len() > case.max_references {
        return Err(Some(ErrorCode::TooMany));
    }
    if case.cancelled {
        return Err(Some(ErrorCode::Cancelled));
    }
    let mut snapshots = Vec::with_capacity(normalized.len());
    for (target, _) in &normalized {
        match target {
            Target::Session(index) => match &case.sessions[*index] {
                Stored::Snapshot(value) => snapshots.push(draw::read_snapshot(value)),
                Stored::ReadError => return Err(Some(ErrorCode::ReadFailed)),
            },
            Target::Missing | Target::OwnSession => return Err(Some(ErrorCode::ReadFailed)),
        }
    }
    let max = usize::try_from(case.expected_budget()).unwrap_or(usize::MAX);
    snapshots
        .into_iter()
        .zip(normalized)
        .map(|(snapshot, (_, label))| {
            // surface.seq-outside-domain: checked when the reference is
            // retained, before its budget.
            if snapshot
                .captured_through_seq
                .as_ref()
                .is_some_and(|seq| *seq != Json::Null && !is_session_seq(seq))
            {
                return Err(None);
            }
            let (data, stats) = retention_model::retain(&snapshot, &label, max)
                .ok_or(Some(ErrorCode::BudgetExceeded))?;
            Ok(ModelSource {
                snapshot,
                label,
                data,
                stats,
            })
        })
        .collect()
}

/// The omission notice the model expects for the `index`th source; a saved
/// transcript's byte count is taken from `actual` once checked to be a
/// positive integer.
fn expected_notice(case: &PrepareCase, index: usize, source: &ModelSource, actual: &Json) -> Json {
    let unavailable = |reason: &str| {
        Json::object([
            ("status", Json::str("unavailable")),
            ("reason", Json::str(reason)),
        ])
    };
    let full_snapshot = match case.spill {
        SpillChoice::None => unavailable("storage-not-configured"),
        SpillChoice::Fails => unavailable("save-failed"),
        SpillChoice::Saves => {
            let bytes = actual
                .get("fullSnapshot")
                .and_then(|full| full.get("bytes"))
                .cloned()
                .unwrap_or(Json::Null);
            assert!(
                matches!(bytes, Json::Number(n) if n > 0.0 && n.fract() == 0.0),
                "saved transcript bytes: {bytes:?}"
            );
            Json::object([
                ("status", Json::str("saved")),
                (
                    "locator",
                    Json::str(&format!("spill://session-reference-{}.txt", index + 1)),
                ),
                ("bytes", bytes),
                ("retrievalHint", Json::str("read the locator")),
            ])
        }
    };
    let mut members: Vec<(JsString, Json)> =
        source.snapshot.session.id_member().into_iter().collect();
    if let Some(seq) = &source.snapshot.captured_through_seq {
        members.push((JsString::from("capturedThroughSeq"), seq.clone()));
    }
    members.push((
        JsString::from("omittedMessages"),
        Json::Number(source.stats.omitted_messages as f64),
    ));
    members.push((
        JsString::from("omittedBytes"),
        Json::Number(source.stats.omitted_bytes as f64),
    ));
    members.push((JsString::from("fullSnapshot"), full_snapshot));
    Json::Object(members)
}

/// The source record the model expects (spec `prepare.source-record`).
fn expected_source_record(sources: &[ModelSource]) -> Json {
    let references = sources
        .iter()
        .enumerate()
        .map(|(index, source)| {
            let header = &source.snapshot.session;
            let mut members: Vec<(JsString, Json)> = header.id_member().into_iter().collect();
            members.push((
                JsString::from("label"),
                Json::String(JsString::from_units(source.label.clone())),
            ));
            if let Some(version) = &header.version {
                members.push((JsString::from("capturedFormatVersion"), version.clone()));
            }
            if let Some(seq) = &source.snapshot.captured_through_seq {
                members.push((JsString::from("capturedThroughSeq"), seq.clone()));
            }
            members.extend(source.stats.members());
            members.push((JsString::from("inputIndex"), Json::Number(index as f64)));
            Json::Object(members)
        })
        .collect();
    Json::object([
        ("kind", Json::str("session-reference")),
        ("form", Json::str("recall")),
        ("version", Json::Number(1.0)),
        ("references", Json::Array(references)),
    ])
}

/// Checks a successful preparation against the model's sources.
fn check_prepared(
    case: &PrepareCase,
    sources: &[ModelSource],
    content: &Json,
    prepared: &prepare::Prepared,
) {
    assert!(same_json(&prepared.content, content), "content changed");
    let context = prepared
        .context
        .as_ref()
        .expect("references give a context");
    let prompt = &context.prompt;
    let prefix = prepare::prompt_prefix();
    let rest = prompt
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("prompt without its prefix: {prompt}"));
    let end = rest
        .find(prepare::PROMPT_SUFFIX)
        .unwrap_or_else(|| panic!("prompt without its closing tag: {prompt}"));
    let data = &rest[..end];
    assert!(!data.contains('<'), "raw < in the snapshot data: {data}");
    let parsed = json::parse(data)
        .unwrap_or_else(|error| panic!("snapshot data is not JSON ({error}): {data}"));
    let items = parsed.as_array().expect("the snapshot data is an array");
    assert_eq!(items.len(), sources.len(), "one data object per reference");
    let budget = case.expected_budget();
    for (item, source) in items.iter().zip(sources) {
        assert!(matches!(item, Json::Object(_)), "a data object: {item:?}");
        let written = stringify_tag_safe(item);
        assert!(
            written.len() as u64 <= budget,
            "{} > {budget}: {written}",
            written.len()
        );
        assert_eq!(written, source.data, "data object differs from the model's");
    }
    let joined: Vec<&str> = sources.iter().map(|source| source.data.as_str()).collect();
    assert_eq!(
        data,
        format!("[{}]", joined.join(",")),
        "snapshot data text"
    );

    let after = &rest[end + prepare::PROMPT_SUFFIX.len()..];
    let truncated: Vec<(usize, &ModelSource)> = sources
        .iter()
        .enumerate()
        .filter(|(_, source)| source.stats.truncated)
        .collect();
    if truncated.is_empty() {
        assert_eq!(after, "", "omissions without a truncated reference");
    } else {
        let notices = after
            .strip_prefix(prepare::OMISSIONS_HEADER)
            .unwrap_or_else(|| panic!("truncated references without omissions: {after:?}"));
        assert!(!notices.contains('<'), "raw < in the omissions: {notices}");
        let notices = json::parse(notices)
            .unwrap_or_else(|error| panic!("omissions are not JSON ({error}): {notices}"));
        let notices = notices.as_array().expect("the omissions are an array");
        assert_eq!(
            notices.len(),
            truncated.len(),
            "one notice per truncated reference"
        );
        for (notice, (index, source)) in notices.iter().zip(truncated) {
            let expected = expected_notice(case, index, source, notice);
            assert!(
                same_json(notice, &expected),
                "notice {index}: {notice:?}, expected {expected:?}"
            );
        }
    }
    let expected = expected_source_record(sources);
    assert!(
        same_json(&context.source, &expected),
        "source record {:?}, expected {expected:?}",
        context.source
    );
}

/// `prepare::prepare` (newest generation) on a drawn case
/// ([`PrepareCase::draw`]): 1–3 stored snapshots, 1–4 references, a fixed
/// budget of 1–2000 bytes or an automatic one from [`draw::TinyModels`], a
/// simulated spill store or none, rarely a cancelled turn.
///
/// - It fails exactly as the rules say, in their order: malformed entry,
///   self reference, too many, cancelled, failed read, and
///   `BUDGET_EXCEEDED` exactly when the model cannot fit a reference.
/// - On success the data between `<referenced-sessions>\n` and
///   `\n</referenced-sessions>` has no raw `<`, parses as JSON, and holds
///   the model's data objects, each within the budget; the omissions block
///   lists exactly the truncated references with the spill outcome; the
///   source record carries the model's stats.
pub fn prepare_snapshot(data: &[u8]) {
    let mut draw = Draw::new(data);
    let case = PrepareCase::draw(&mut draw);
    let sessions = case.sessions_json();
    let references = case.references_json();
    let content = Json::Array(vec![Json::object([
        ("type", Json::str("text")),
        ("text", Json::str("see <these>")),
    ])]);
    let config = case.config();
    let agent = Agent {
        id: Some(JsString::from(draw::AGENT_ID)),
        route: case.route(),
    };
    let reader = JsonSessions::new(&sessions);
    let store = match case.spill {
        SpillChoice::None => None,
        SpillChoice::Saves => Some(SimulatedSpillStore { saves: true }),
        SpillChoice::Fails => Some(SimulatedSpillStore { saves: false }),
    };
    let cancelled = case.cancelled;
    let services = Services {
        reader: &reader,
        spill: store.as_ref().map(|store| store as &dyn SpillStore),
        models: &draw::TinyModels,
        cancelled: &|| cancelled,
    };
    let result = prepare::prepare(&config, &agent, &content, &references, &services);
    match (expected_prepare(&case), result) {
        (Err(Some(code)), Err(Failure::Contract(error))) => {
            assert_eq!(error.code, code, "{}", error.message);
        }
        (Err(None), Err(Failure::Internal(_))) => {}
        (Err(Some(code)), other) => panic!("expected {code}, got {other:?}"),
        (Err(None), other) => panic!("expected a failure outside the contract, got {other:?}"),
        (Ok(sources), Ok(prepared)) => check_prepared(&case, &sources, &content, &prepared),
        (Ok(_), Err(failure)) => panic!("expected success, got {failure:?}"),
    }
    let route = agent.route.as_ref().map(|(p, m)| (p.units(), m.units()));
    assert_eq!(
        crate::config::budget(&config, route, &draw::TinyModels),
        Ok(case.expected_budget()),
        "budget of {:?}",
        case.budget
    );
}
