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
//! That holds by construction only for a plain listing, so this module
//! answers only then, and otherwise answers nothing, leaving the request to
//! be read whole. Plain: every session an object whose `id` is a string and
//! whose `title`, `cwd` and `subagentLabel`, when present, are strings (a
//! value of another type gets a stand-in measured against the whole
//! listing, and upstream's query filter throws on the first it meets), no
//! chunk's ranking an error (the whole request names it), and text the
//! skim places with certainty.

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
        let read = kept.len();
        while kept.len() - read < chunk {
            match sessions.next_item().ok()? {
                Some(session) if is_plain(&session) => kept.push(session),
                Some(_) => return None,
                None => break,
            }
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

/// Where a request line's listing lies: its `input.sessions` array, the
/// last of each name (as `JSON.parse` keeps it), from its `[`.
fn find_listing(line: &str) -> Option<Span> {
    let mut skim = Skim::new(line);
    let mut found = None;
    skim.object(|skim, key| {
        if !skim.key_is(&key, "input") {
            return skim.value().map(drop);
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
    found.filter(|array| skim.at_end() && line.as_bytes()[array.start] == b'[')
}

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

/// Whether a listed session is plain (see the module's documentation),
/// its members read in one pass: the last `id` decides, and a `title`,
/// `cwd` or `subagentLabel` of another type makes it not plain even when a
/// later member of the name replaces it (the whole reading answers that).
fn is_plain(session: &Json) -> bool {
    let Json::Object(members) = session else {
        return false;
    };
    let mut has_id = false;
    let mut texts = true;
    for (key, value) in members {
        let text = matches!(value, Json::String(_));
        if key.is("id") {
            has_id = text;
        } else if key.is("title") || key.is("cwd") || key.is("subagentLabel") {
            texts &= text;
        }
    }
    has_id && texts
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
