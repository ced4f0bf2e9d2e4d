//! A conformance adapter for a port built on serde: each op's input is the
//! port's own `Deserialize` struct, each answer its own `Serialize` type,
//! and the kit (`Adapter::op_serde`) does the protocol. It declares no
//! capability: its strings are Rust `String`s (no lone surrogates, no
//! `lone-surrogates`), its members have one type each (no `dynamic-inputs`:
//! the kit answers an ill-typed input with upstream's code before the port
//! sees it), and it types `capturedThroughSeq` as present (no
//! `optional-seq`). As shipped, the ops call the reference library.
//!
//! ```sh
//! cargo build --release --manifest-path conformance/adapters/rust-serde/Cargo.toml
//! dsh-session-reference conformance --impl conformance/adapters/rust-serde/target/release/dsh-session-reference-serde-adapter
//! ```

#![forbid(unsafe_code)]

use dsh_session_reference::error::Failure;
use dsh_session_reference::js::json::{self, Json};
use dsh_session_reference::protocol::kit::Adapter;
use dsh_session_reference::surface::Snapshot;
use dsh_session_reference::{mention, projection, retention, uri, JsString};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::io;

fn main() -> io::Result<()> {
    Adapter::new("rust-serde-adapter-example", env!("CARGO_PKG_VERSION"))
        .features(["uri", "mention", "retain"])
        .op_serde("uri/encode", uri_encode)
        .op_serde("uri/decode", uri_decode)
        .op_serde("mention/format", mention_format)
        .op_serde("mention/parse", mention_parse)
        .op_serde("retain", retain)
        .serve(io::stdin().lock(), io::stdout().lock())
}

/// `uri/encode` input.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UriEncode {
    session_id: String,
}

/// `uri/decode` input.
#[derive(Deserialize)]
struct UriDecode {
    uri: String,
}

/// `mention/format` input: a null or absent label is the id.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MentionFormat {
    session_id: String,
    label: Option<String>,
}

/// `mention/parse` input.
#[derive(Deserialize)]
struct MentionParse {
    text: String,
}

/// `mention/parse` output, members in the protocol's order:
/// `{text, references: [{sessionId, label}]}`.
#[derive(Serialize)]
struct Parsed {
    text: String,
    references: Vec<Reference>,
}

/// One parsed reference: `{sessionId, label}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Reference {
    session_id: String,
    label: String,
}

/// `retain` input. A real port decodes the snapshot into its own type; this
/// one hands its text to the reference's reader. `maxBytes` is a JSON
/// number, so an `f64` (a fraction is the op's own error, not a decode
/// error).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Retain {
    snapshot: Box<RawValue>,
    label: String,
    max_bytes: f64,
}

/// `retain` output: `{data, stats}`.
#[derive(Serialize)]
struct Retained {
    data: Box<RawValue>,
    stats: RetentionStats,
}

/// A port's own retention stats, serialized in the protocol's shape (spec
/// `retention.stats`): exactly these members, camelCase, in this order —
/// `{compacted, originalMessages, retainedMessages, omittedMessages,
/// omittedBytes, truncated}` — booleans and integers. `rename_all` gives
/// the names; the order is the field order, so do not sort the fields.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RetentionStats {
    compacted: bool,
    original_messages: u64,
    retained_messages: u64,
    omitted_messages: u64,
    omitted_bytes: u64,
    truncated: bool,
}

impl From<&retention::Stats> for RetentionStats {
    fn from(stats: &retention::Stats) -> Self {
        RetentionStats {
            compacted: stats.compacted,
            original_messages: stats.original_messages as u64,
            retained_messages: stats.retained_messages as u64,
            omitted_messages: stats.omitted_messages as u64,
            omitted_bytes: stats.omitted_bytes as u64,
            truncated: stats.truncated,
        }
    }
}

/// UTF-16 code units of a Rust string, as the reference takes them.
fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// A reference string as Rust text; one holding a lone surrogate cannot
/// be, and fails clearly (such vectors require `lone-surrogates`).
fn text(string: &JsString) -> Result<String, Failure> {
    string
        .to_str()
        .ok_or_else(|| Failure::Internal("a lone surrogate cannot be a Rust String".into()))
}

fn uri_encode(input: UriEncode) -> Result<String, Failure> {
    Ok(uri::encode(&units(&input.session_id)))
}

fn uri_decode(input: UriDecode) -> Result<String, Failure> {
    text(&uri::decode(&units(&input.uri))?)
}

fn mention_format(input: MentionFormat) -> Result<String, Failure> {
    let label = input.label.as_deref().map(units);
    text(&mention::format(
        &units(&input.session_id),
        label.as_deref(),
    ))
}

fn mention_parse(input: MentionParse) -> Result<Parsed, Failure> {
    let parsed = mention::parse(&units(&input.text))?;
    Ok(Parsed {
        text: text(&parsed.text)?,
        references: parsed
            .references
            .iter()
            .map(|reference| {
                Ok(Reference {
                    session_id: text(&reference.session_id)?,
                    label: text(&reference.label)?,
                })
            })
            .collect::<Result<_, Failure>>()?,
    })
}

/// `{data, stats}`, or `null` (`None`) when even the fixed fields do not fit.
fn retain(input: Retain) -> Result<Option<Retained>, Failure> {
    let snapshot = json::parse(input.snapshot.get())
        .map_err(|error| Failure::Internal(format!("snapshot: {error}")))?;
    let snapshot = Snapshot::from_json(&snapshot)?;
    let max_bytes =
        dsh_session_reference::config::positive_safe_integer(&Json::Number(input.max_bytes))
            .ok_or_else(|| Failure::Internal("maxBytes must be a positive safe integer".into()))?;
    let label = units(&input.label);
    let Some(retained) =
        retention::retain(&snapshot, &label, projection::project(&snapshot), max_bytes)
    else {
        return Ok(None);
    };
    let data = RawValue::from_string(json::to_wire(&retained.data_json()))
        .map_err(|error| Failure::Internal(format!("data: {error}")))?;
    Ok(Some(Retained {
        data,
        stats: RetentionStats::from(&retained.stats),
    }))
}
