//! Projection of a snapshot to user/assistant conversation text
//! (spec `projection.*`).

use crate::reach;
use crate::surface::{Snapshot, SurfaceEvent, UserSource};
use std::borrow::Cow;

/// Who said it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A direct user message or a compact checkpoint.
    User,
    /// An assistant message.
    Assistant,
}

impl Role {
    /// The role as written in snapshot data.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One projected message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item<'a> {
    /// Its role.
    pub role: Role,
    /// True for compact checkpoints, which retention never drops.
    pub checkpoint: bool,
    /// The text blocks joined with `\n` (borrowed when there was one block).
    pub text: Cow<'a, [u16]>,
}

/// Projects the snapshot's events, in surface order, to conversation items:
/// direct user messages and checkpoints as `user`, assistant messages as
/// `assistant`, everything else left out; an item whose joined text is
/// empty is dropped (spec `projection.order`, `projection.empty-dropped`).
pub fn project(snapshot: &Snapshot) -> Vec<Item<'_>> {
    snapshot
        .events
        .iter()
        .filter_map(|event| {
            let (role, checkpoint, texts) = match event {
                SurfaceEvent::User {
                    source: UserSource::Direct,
                    texts,
                } => {
                    reach::point("projection.user-direct");
                    (Role::User, false, texts)
                }
                SurfaceEvent::User {
                    source: UserSource::Checkpoint,
                    texts,
                } => {
                    reach::point("projection.checkpoint");
                    (Role::User, true, texts)
                }
                SurfaceEvent::Assistant { texts } => {
                    reach::point("projection.assistant");
                    (Role::Assistant, false, texts)
                }
                SurfaceEvent::User {
                    source: UserSource::Other,
                    ..
                } => {
                    reach::point("projection.excluded-sources");
                    return None;
                }
                SurfaceEvent::Ignored => return None,
            };
            let text = join_lines(texts);
            if text.is_empty() {
                reach::point("projection.empty-dropped");
                return None;
            }
            Some(Item {
                role,
                checkpoint,
                text,
            })
        })
        .collect()
}

/// Joins texts with `\n`; empty texts take part (`["", ""]` → `"\n"`)
/// (spec `projection.text-join`).
fn join_lines(texts: &[crate::JsString]) -> Cow<'_, [u16]> {
    match texts {
        [] => Cow::Borrowed(&[]),
        [only] => Cow::Borrowed(only.units()),
        many => {
            reach::point("projection.text-join");
            let mut joined = Vec::with_capacity(many.iter().map(|t| t.len() + 1).sum());
            for (index, text) in many.iter().enumerate() {
                if index > 0 {
                    joined.push(u16::from(b'\n'));
                }
                joined.extend_from_slice(text.units());
            }
            Cow::Owned(joined)
        }
    }
}
