//! The adapter loop: one request a line in, one answer a line out (spec
//! `protocol.framing`). [`serve`] runs it with the reference; the
//! [`kit`](super::kit) has its own, which hands typed handlers the raw
//! input text.

use super::dispatch;
use super::scan::id_of_too_deep;
use super::wire::{Outcome, Request, Response, UNSUPPORTED};
use crate::features::{self, Declared};
use std::io::{self, BufRead, Write};

/// Answers requests line by line, with `declared`'s behaviours, until
/// `input` closes: `describe` as `declared`, an op it does not answer
/// `UNSUPPORTED` (a release without it, spec `runner.releases`).
pub fn serve(declared: &Declared, input: impl BufRead, output: impl Write) -> io::Result<()> {
    let features = declared.features;
    serve_taking(input, output, |op, request_input| match op {
        "describe" => Outcome::Output(dispatch::describe_declared(declared)),
        _ if !declared.answers(op) && features::OPS.contains(&op) => Outcome::Error {
            code: UNSUPPORTED.to_owned(),
            message: format!(
                "op {op:?} is not in {}",
                declared.release_name().unwrap_or("the features served")
            ),
        },
        _ => dispatch::handle_taking(features, op, request_input),
    })
}

/// Answers each request line of `input` with `answer(op, input)` on
/// `output` until `input` closes; `answer` may take parts of the request's
/// input (see [`dispatch::handle_taking`]). Requests are read with exact
/// JavaScript strings (lone surrogates kept), blank lines are skipped, a
/// line that is not a request is answered `INTERNAL` with `id: null` (one
/// only too deep to read with its own id, spec `wire.json.depth`), and
/// every answer is flushed as soon as it is written, so a runner never
/// waits on a buffer. The request and its answer are
/// dropped only after the answer is flushed: freeing a request of megabytes
/// takes milliseconds that the runner need not wait for.
///
/// One line buffer serves every request and one text buffer every answer:
/// a request or answer of megabytes goes into memory the previous one
/// already touched, not grown anew by doubling.
fn serve_taking(
    mut input: impl BufRead,
    mut output: impl Write,
    mut answer: impl FnMut(&str, &mut crate::Json) -> Outcome,
) -> io::Result<()> {
    let mut buffer = Vec::new();
    let mut text = String::new();
    loop {
        buffer.clear();
        if input.read_until(b'\n', &mut buffer)? == 0 {
            break;
        }
        let line = buffer.strip_suffix(b"\n").unwrap_or(&buffer);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line = std::str::from_utf8(line).ok();
        let mut request = line
            .ok_or_else(|| "request is not UTF-8".to_owned())
            .and_then(Request::from_line);
        let response = match &mut request {
            Ok(request) => Response {
                outcome: answer(&request.op, &mut request.input),
                id: Some(request.id.clone()),
            },
            Err(problem) => Response {
                id: line.and_then(id_of_too_deep),
                outcome: Outcome::internal(std::mem::take(problem)),
            },
        };
        text.clear();
        response.push_line(&mut text);
        text.push('\n');
        output.write_all(text.as_bytes())?;
        output.flush()?;
        drop((request, response));
    }
    Ok(())
}
