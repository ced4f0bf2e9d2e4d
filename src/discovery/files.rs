//! File references (spec `files.*`).

use crate::js::json::Json;
use crate::protocol::wire::{Outcome, UNSUPPORTED};

/// Answers the file-reference ops of the protocol.
pub fn answer(op: &str, _input: &Json) -> Result<Json, Outcome> {
    Err(Outcome::Error {
        code: UNSUPPORTED.to_owned(),
        message: format!("{op} is not implemented yet"),
    })
}
