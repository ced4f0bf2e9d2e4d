//! The pre-step: before the model step, parse mentions in direct user
//! messages, prepare their references, and place each context message right
//! after the message that cited it (spec `pre-step.*`).

use crate::config::Config;
use crate::error::Failure;
use crate::js::json::Json;
use crate::js::JsString;
use crate::mention;
use crate::prepare::{
    check_cancelled, normalize, read_all, reference_budget, render, Agent, Reference, Services,
};
use crate::reach;

/// A direct user message whose text blocks carried references.
struct Cited {
    index: usize,
    /// The message with every text block rebuilt as `{type, text}`.
    rewritten: Json,
    references: Vec<Reference>,
}

fn is_direct_user(message: &Json) -> Result<bool, Failure> {
    let source = message
        .get("source")
        .filter(|source| **source != Json::Null)
        .ok_or_else(|| Failure::Internal("message has no source".to_owned()))?;
    Ok(source.get("kind").and_then(Json::as_string).as_deref() == Some("user"))
}

/// Parses every text block of a direct user message separately (spec
/// `pre-step.blocks`); returns the rewritten message and the raw references
/// of all its blocks in block order, or `None` when it has none.
fn parse_message(message: &Json) -> Result<Option<(Json, Json)>, Failure> {
    let blocks = message
        .get("content")
        .and_then(Json::as_array)
        .ok_or_else(|| Failure::Internal("message content is not an array".to_owned()))?;
    let mut references = Vec::new();
    let mut content = Vec::with_capacity(blocks.len());
    for block in blocks {
        // Upstream reads every block's `type`: a `null` block throws there
        // (spec `protocol.input-types`).
        if *block == Json::Null {
            return Err(Failure::Internal(
                "Cannot read properties of null (reading 'type')".to_owned(),
            ));
        }
        if block.get("type").and_then(Json::as_string).as_deref() != Some("text") {
            content.push(block.clone());
            continue;
        }
        let text = block
            .get("text")
            .and_then(Json::as_js_str)
            .ok_or_else(|| Failure::Internal("text block without a string text".to_owned()))?;
        reach::point("pre-step.blocks");
        let parsed = mention::parse(text.units())?;
        references.extend(parsed.references.into_iter().map(|reference| {
            Json::object([
                ("sessionId", Json::String(reference.session_id)),
                ("label", Json::String(reference.label)),
            ])
        }));
        content.push(Json::object([
            ("type", Json::str("text")),
            ("text", Json::String(parsed.text)),
        ]));
    }
    if references.is_empty() {
        reach::point("pre-step.pass-through");
        return Ok(None);
    }
    reach::point("pre-step.rewrite");
    let Json::Object(members) = message else {
        return Err(Failure::Internal("message is not an object".to_owned()));
    };
    let content_key = JsString::from("content");
    let rewritten = members
        .iter()
        .map(|(key, value)| {
            let value = if *key == content_key {
                Json::Array(content.clone())
            } else {
                value.clone()
            };
            (key.clone(), value)
        })
        .collect();
    Ok(Some((Json::Object(rewritten), Json::Array(references))))
}

/// A message as it leaves on the wire: without `role`, and without `id`
/// unless the request keeps ids (spec `pre-step.ids`): a passed-through or
/// rewritten message keeps the id of the message it comes from.
fn without_identity(message: &Json, keep_ids: bool) -> Json {
    match message {
        Json::Object(members) => Json::Object(
            members
                .iter()
                .filter(|(key, _)| {
                    key.to_str()
                        .is_none_or(|k| k != "role" && (keep_ids || k != "id"))
                })
                .cloned()
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Runs the pre-step over `messages`. Failures follow upstream's order
/// (spec `pre-step.errors`): a mention that does not parse in any message
/// first, then reference checks and cancellation message by message, then
/// reads and budgets message by message.
pub fn pre_step(
    config: &Config,
    agent: &Agent,
    messages: &[Json],
    services: &Services<'_>,
) -> Result<Vec<Json>, Failure> {
    pre_step_keeping_ids(config, agent, messages, services, false)
}

/// [`pre_step`], keeping the `id` of every message that comes from an input
/// message when `keep_ids` is set (spec `pre-step.ids`); a context message
/// has no id on the wire (upstream generates one).
pub fn pre_step_keeping_ids(
    config: &Config,
    agent: &Agent,
    messages: &[Json],
    services: &Services<'_>,
    keep_ids: bool,
) -> Result<Vec<Json>, Failure> {
    // spec `pre-step.errors`: any failure fails the whole step.
    let failed = |_: &Failure| reach::point("pre-step.errors");
    let mut parsed = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if is_direct_user(message)? {
            if let Some(found) = parse_message(message).inspect_err(failed)? {
                parsed.push((index, found));
            }
        } else {
            reach::point("pre-step.direct-only");
        }
    }
    // spec `pre-step.errors`, `prepare.cancel.stage`: without
    // `automatic-budget` nothing is awaited between a message's checks and
    // its reads, so they start message by message, and a read an earlier
    // message started can cancel a later message before its checks pass;
    // with it, every message awaits its budget first, so every message is
    // checked before any read starts.
    let reads_start_when_checked = !config.features.automatic_budget;
    let mut cited = Vec::with_capacity(parsed.len());
    let mut reads = Vec::with_capacity(parsed.len());
    for (index, (rewritten, references)) in parsed {
        let references =
            normalize(agent, &references, config.max_references).inspect_err(failed)?;
        check_cancelled(services).inspect_err(|failure| {
            failed(failure);
            // Nothing is read before the first message's check: a later
            // message's check fails only on a read an earlier one started.
            if cited.is_empty() {
                reach::point("prepare.cancel");
            } else {
                reach::point("prepare.cancel.stage");
            }
        })?;
        if reads_start_when_checked {
            reads.push(read_all(&references, services.reader));
        }
        cited.push(Cited {
            index,
            rewritten,
            references,
        });
    }
    // The budget is looked up before any read the lookup delays (spec
    // `prepare.budget.lookup-failed`), every read starts before any is
    // retained, and a cancel during the reads wins over their failures
    // (spec `prepare.cancel.stage`).
    let mut contexts = Vec::with_capacity(cited.len());
    if !cited.is_empty() {
        let max_bytes = reference_budget(config, agent, services).inspect_err(failed)?;
        if !reads_start_when_checked {
            reads = cited
                .iter()
                .map(|message| read_all(&message.references, services.reader))
                .collect();
        }
        check_cancelled(services).inspect_err(|failure| {
            failed(failure);
            reach::point("prepare.cancel.stage");
        })?;
        for (message, reads) in cited.iter().zip(reads) {
            contexts.push(
                render(
                    config,
                    agent,
                    &message.references,
                    reads.inspect_err(failed)?,
                    max_bytes,
                    services,
                )
                .inspect_err(failed)?,
            );
        }
    }
    if keep_ids {
        reach::point("pre-step.ids");
    }
    let mut out = Vec::with_capacity(messages.len() + contexts.len());
    let mut next = cited.iter().zip(&contexts).peekable();
    for (index, message) in messages.iter().enumerate() {
        match next.peek() {
            Some((cited, context)) if cited.index == index => {
                out.push(without_identity(&cited.rewritten, keep_ids));
                reach::point("pre-step.placement");
                out.push(context.to_message());
                next.next();
            }
            _ => out.push(without_identity(message, keep_ids)),
        }
    }
    Ok(out)
}
