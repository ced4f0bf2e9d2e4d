//! A conformance adapter in Rust, built on the reference crate's protocol
//! kit. As shipped it answers with the reference itself; a port replaces
//! each `reference` call with its own code and keeps the rest.
//!
//! Run the suite against it:
//!
//! ```sh
//! cargo build --release --manifest-path conformance/adapters/rust/Cargo.toml
//! dsh-session-reference conformance --impl conformance/adapters/rust/target/release/dsh-session-reference-adapter
//! ```

#![forbid(unsafe_code)]

use dsh_session_reference::config::positive_safe_integer;
use dsh_session_reference::error::Failure;
use dsh_session_reference::js::json::Json;
use dsh_session_reference::protocol::kit::{string_field, Adapter, OpResult};
use dsh_session_reference::surface::Snapshot;
use dsh_session_reference::{mention, projection, retention, tag_safe, uri};
use std::io;

fn main() -> io::Result<()> {
    Adapter::new("rust-adapter-template", env!("CARGO_PKG_VERSION"))
        // `Snapshot::from_json` reads snapshots as the newest generation
        // does: a `capturedThroughSeq` outside the session sequence numbers
        // is refused (seq-domain) and developer and system messages are
        // skipped (developer-events-ignored). Declare the behaviours you
        // implement, so that the runner sends the vectors of your side.
        .features([
            "uri",
            "mention",
            "json",
            "retain",
            "seq-domain",
            "developer-events-ignored",
        ])
        // Our strings are JavaScript strings (UTF-16 code units), so we can
        // hold lone surrogates. A port on Rust `String` leaves this out: the
        // runner then skips the vectors that need it (see README.md). We
        // also read snapshots without `capturedThroughSeq` (optional-seq).
        .capabilities(["lone-surrogates", "optional-seq"])
        .op("uri/encode", uri_encode)
        .op("uri/decode", uri_decode)
        .op("mention/format", mention_format)
        .op("mention/parse", mention_parse)
        .op("json/tag-safe", json_tag_safe)
        .op("retain", retain)
        .serve(io::stdin().lock(), io::stdout().lock())
}

/// `{sessionId}` → the canonical URI.
fn uri_encode(input: &Json) -> OpResult {
    let session_id = string_field(input, "sessionId")?;
    Ok(Json::str(&uri::encode(session_id.units())))
}

/// `{uri}` → the session id, or `SESSION_REFERENCE_INVALID_REFERENCE`.
fn uri_decode(input: &Json) -> OpResult {
    let text = string_field(input, "uri")?;
    Ok(Json::String(uri::decode(text.units())?))
}

/// `{sessionId, label?}` → the mention text; a null or absent label
/// defaults to the id.
fn mention_format(input: &Json) -> OpResult {
    let session_id = string_field(input, "sessionId")?;
    let label = match input.get("label") {
        None | Some(Json::Null) => None,
        Some(Json::String(label)) => Some(label.units()),
        Some(_) => return Err(Failure::Internal("input.label must be a string".into())),
    };
    Ok(Json::String(mention::format(session_id.units(), label)))
}

/// `{text}` → `{text, references: [{sessionId, label}]}`.
fn mention_parse(input: &Json) -> OpResult {
    let parsed = mention::parse(string_field(input, "text")?.units())?;
    let references = parsed
        .references
        .into_iter()
        .map(|reference| {
            Json::object([
                ("sessionId", Json::String(reference.session_id)),
                ("label", Json::String(reference.label)),
            ])
        })
        .collect();
    Ok(Json::object([
        ("text", Json::String(parsed.text)),
        ("references", Json::Array(references)),
    ]))
}

/// `{value}` → the value as tag-safe JSON text.
fn json_tag_safe(input: &Json) -> OpResult {
    let value = input
        .get("value")
        .ok_or_else(|| Failure::Internal("input.value is missing".into()))?;
    Ok(Json::str(&tag_safe::stringify_tag_safe(value)))
}

/// `{snapshot, label, maxBytes}` → `{data, stats}`, or `null` when even the
/// fixed fields do not fit.
fn retain(input: &Json) -> OpResult {
    let snapshot = Snapshot::from_json(input.get("snapshot").unwrap_or(&Json::Null))?;
    let label = string_field(input, "label")?;
    let max_bytes = input
        .get("maxBytes")
        .and_then(positive_safe_integer)
        .ok_or_else(|| {
            Failure::Internal("input.maxBytes must be a positive safe integer".into())
        })?;
    let Some(retained) = retention::retain(
        &snapshot,
        label.units(),
        projection::project(&snapshot),
        max_bytes,
    ) else {
        return Ok(Json::Null);
    };
    Ok(Json::object([
        ("data", retained.data_json()),
        ("stats", Json::Object(retained.stats.members())),
    ]))
}
