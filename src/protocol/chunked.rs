//! `candidates/*` over a long listing, read a chunk of it at a time
//! (spec `candidates.rank`, `protocol.framing`; issue #61).
//!
//! A host lists candidates as the user types `@`. Read into one tree, a
//! listing of 100 000 sessions (a 9 MB request) held ten times its text.
//! Here the request is skimmed ([`Skim`]): everything but the listing is
//! read as usual, and the listing's sessions are read [`CHUNK_SESSIONS`] at
//! a time.
//!
//! Why the answer is the same: candidates are ranked by a total order
//! (rank, relevance, listing position), and whether a session is a hit, and
//! how it ranks, depends only on the session, the agent and the query. So
//! the best `limit` of a listing are the best `limit` of the best kept so
//! far followed by the next chunk. Each chunk is ranked by the op's own
//! code ([`dispatch::candidates_kept`]), and the request is answered by the
//! same handler as any other, its listing replaced by the sessions kept.
//!
//! That holds for a plain listing, so this module answers only then, and
//! otherwise answers nothing, leaving the request to be read whole. Plain:
//! every session an object whose `id` is a string. A session without one
//! may be the agent's own, left out of the records, and the records would
//! no longer stand at their listing places. A title, cwd or subagent label
//! of another type is plain: its stand-in, drawn for the chunk, ranks and
//! filters its session alone as the whole listing's does, and the query
//! filter that throws on it throws in its chunk too. Also: no chunk's
//! ranking an error (the whole request names it), and text the skim
//! places.

use super::dispatch;
use super::wire::{Outcome, Request, Response};
use crate::features::Features;
use crate::js::json::{ArrayItems, Json};
use crate::js::skim::{Skim, Span};

/// Sessions read at a time: a chunk's tree is a few hundred kilobytes.
pub const CHUNK_SESSIONS: usize = 2048;

/// The answer to a `candidates/*` request line whose listing is plain,
/// read `chunk` sessions at a time and answered by `answer` (see the
/// module's documentation); `None` for any other line.
pub fn respond(
    line: &str,
    chunk: usize,
    features: Features,
    answer: impl FnOnce(&str, &mut Json) -> Outcome,
) -> Option<Response> {
    let listing = find_listing(line)?;
    let rest = [&line[..listing.start], "[]", &line[listing.end..]].concat();
    let mut request = Request::from_line(&rest).ok()?;
    let remote = match request.op.as_str() {
        "candidates/list" => false,
        "candidates/remote" => true,
        _ => return None,
    };
    // The listing is the input's third level: request, input, sessions.
    let mut sessions = ArrayItems::new(line, listing.start, 3).ok()?;
    let mut kept: Vec<Json> = Vec::new();
    let chunk = chunk.max(1);
    while sessions.end().is_none() {
        for _ in 0..chunk {
            let Some(session) = sessions.next_item().ok()? else {
                break;
            };
            if !is_plain(&session) {
                return None;
            }
            kept.push(session);
        }
        *sessions_of(&mut request.input)? = Json::Array(kept);
        let positions = dispatch::candidates_kept(features, &request.input, remote).ok()?;
        let Json::Array(listed) = std::mem::replace(sessions_of(&mut request.input)?, Json::Null)
        else {
            return None;
        };
        kept = kept_at(listed, positions);
    }
    *sessions_of(&mut request.input)? = Json::Array(kept);
    let outcome = answer(&request.op, &mut request.input);
    Some(Response {
        id: Some(request.id),
        outcome,
    })
}

/// Where a request line's listing lies: its `input.sessions` member, the
/// last of each name (as `JSON.parse` keeps it); the line around it, and
/// the listing itself, are read by the parser, which checks them. Looked for
/// only behind an `op` member naming a `candidates/*` op, written as such
/// (the order a request is written in, `id`, `op`, `input`): the line of
/// any other op is left after its first members, not skimmed to its end.
/// The op the request is answered as is read again from the whole line.
fn find_listing(line: &str) -> Option<Span> {
    let mut skim = Skim::new(line);
    let mut candidates = false;
    let mut found = None;
    skim.object(|skim, key| {
        if skim.key_is(&key, "op") {
            let op = skim.value()?;
            candidates = CANDIDATES_OPS.contains(&&line[op]);
            return Some(());
        }
        if !skim.key_is(&key, "input") {
            return skim.value().map(drop);
        }
        if !candidates {
            return None;
        }
        found = None;
        skim.object(|skim, key| {
            let value = skim.value()?;
            if skim.key_is(&key, "sessions") {
                found = Some(value);
            }
            Some(())
        })
    })?;
    found
}

/// The ops read a chunk of the listing at a time, as JSON strings.
const CANDIDATES_OPS: [&str; 2] = ["\"candidates/list\"", "\"candidates/remote\""];

/// The input's listing (its last `sessions` member).
fn sessions_of(input: &mut Json) -> Option<&mut Json> {
    match input {
        Json::Object(members) => members
            .iter_mut()
            .rev()
            .find(|(key, _)| key.is("sessions"))
            .map(|(_, value)| value),
        _ => None,
    }
}

/// Whether a listed session is plain (see the module's documentation): an
/// object whose `id` (the last, as `JSON.parse` keeps it) is a string.
fn is_plain(session: &Json) -> bool {
    matches!(session.get("id"), Some(Json::String(_)))
}

/// The sessions of `listed` at `positions`, in that order. Ranked best
/// first, they keep listing order among equals, and every later chunk's
/// sessions were listed after them: ranked again with it, they rank as they
/// would at their listing positions.
fn kept_at(mut listed: Vec<Json>, positions: Vec<usize>) -> Vec<Json> {
    positions
        .into_iter()
        .filter_map(|position| {
            listed
                .get_mut(position)
                .map(|session| std::mem::replace(session, Json::Null))
        })
        .collect()
}
