//! The adapter loop: the reference speaking the protocol on stdin/stdout
//! (spec `protocol.framing`).

use super::dispatch;
use super::wire::{Outcome, Request, Response};
use crate::config::Generation;
use std::io::{self, BufRead, Write};

/// Answers requests line by line, as `generation` behaves, until `input`
/// closes. Every response is flushed as soon as it is written, so a runner
/// never waits on a buffer.
pub fn serve(
    generation: Generation,
    input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    for line in input.split(b'\n') {
        let line = line?;
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let response = match std::str::from_utf8(line)
            .map_err(|_| "request is not UTF-8".to_owned())
            .and_then(Request::from_line)
        {
            Ok(request) => Response {
                id: Some(request.id),
                outcome: dispatch::handle_in(generation, &request.op, &request.input),
            },
            Err(problem) => Response {
                id: None,
                outcome: Outcome::internal(problem),
            },
        };
        writeln!(output, "{}", response.to_line())?;
        output.flush()?;
    }
    Ok(())
}
