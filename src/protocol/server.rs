//! The adapter loop: one request a line in, one answer a line out (spec
//! `protocol.framing`). [`serve`] runs it with the reference; the
//! [`kit`](super::kit) has its own, which hands typed handlers the raw
//! input text.

use super::chunked;
use super::dispatch;
use super::scan::id_of_too_deep;
use super::wire::{Outcome, Request, Response, UNSUPPORTED};
use crate::features::{self, Declared};
use std::io::{self, BufRead, Write};

/// Answers requests line by line, with `declared`'s behaviours, until
/// `input` closes: `describe` as `declared`, an op it does not answer
/// `UNSUPPORTED` (a release without it, spec `runner.releases`). A
/// `candidates/*` request over a plain listing is read a chunk of its
/// listing at a time ([`chunked`]), its answer the same.
pub fn serve(declared: &Declared, input: impl BufRead, output: impl Write) -> io::Result<()> {
    let features = declared.features;
    let answer = |op: &str, request_input: &mut crate::Json| match op {
        "describe" => Outcome::Output(dispatch::describe_declared(declared)),
        _ if !declared.answers(op) && features::OPS.contains(&op) => Outcome::Error {
            code: UNSUPPORTED.to_owned(),
            message: format!(
                "op {op:?} is not in {}",
                declared.release_name().unwrap_or("the features served")
            ),
        },
        _ => dispatch::handle_taking(features, op, request_input),
    };
    serve_taking(input, output, |line| {
        let chunked =
            line.and_then(|line| chunked::respond(line, chunked::CHUNK_SESSIONS, features, answer));
        match chunked {
            Some(response) => Answered {
                response,
                request: None,
            },
            None => respond_whole(line, answer),
        }
    })
}

/// A response, and the request it answers when that is kept to be dropped
/// after the response is written ([`serve_taking`]).
struct Answered {
    response: Response,
    request: Option<Request>,
}

/// The response to a request line read whole (`None`: not UTF-8), its
/// input answered by `answer`, which may take parts of it (see
/// [`dispatch::handle_taking`]). A line that is not a request is answered
/// `INTERNAL` with `id: null` (one only too deep to read with its own id,
/// spec `wire.json.depth`). The request is kept, to be dropped after its
/// answer is written.
fn respond_whole(
    line: Option<&str>,
    answer: impl FnOnce(&str, &mut crate::Json) -> Outcome,
) -> Answered {
    let request = line
        .ok_or_else(|| "request is not UTF-8".to_owned())
        .and_then(Request::from_line);
    match request {
        Ok(mut request) => Answered {
            response: Response {
                outcome: answer(&request.op, &mut request.input),
                id: Some(request.id.clone()),
            },
            request: Some(request),
        },
        Err(problem) => Answered {
            response: Response {
                id: line.and_then(id_of_too_deep),
                outcome: Outcome::internal(problem),
            },
            request: None,
        },
    }
}

/// Answers each request line of `input` (`None`: not UTF-8) with
/// `respond(line)`'s response on `output` until `input` closes. Requests are read with
/// exact JavaScript strings (lone surrogates kept), blank lines are
/// skipped, and every answer is flushed as soon as it is written, so a
/// runner never waits on a buffer. The request and its response are
/// dropped only after the response is flushed: freeing a request of
/// megabytes takes milliseconds that the runner need not wait for.
///
/// One line buffer serves every request and one text buffer every answer:
/// a request or answer of megabytes goes into memory the previous one
/// already touched, not grown anew by doubling.
fn serve_taking(
    mut input: impl BufRead,
    mut output: impl Write,
    mut respond: impl FnMut(Option<&str>) -> Answered,
) -> io::Result<()> {
    let mut buffer = Vec::new();
    let _ = buffer.try_reserve(LINE_RESERVE);
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
        let Answered { response, request } = respond(std::str::from_utf8(line).ok());
        text.clear();
        response.push_line(&mut text);
        text.push('\n');
        output.write_all(text.as_bytes())?;
        output.flush()?;
        drop((request, response));
    }
    Ok(())
}

/// The address space the line buffer takes at once: a request line of up
/// to this many bytes is read in place, touching only its own pages, where
/// a buffer grown by doubling copies the line at each step and its earlier
/// copies stay resident until the allocator returns them (a 9 MB line
/// cost 24 MB). Reserving is not using: the pages are the system's until
/// touched, and a system that will not reserve this much grows the buffer
/// as before.
const LINE_RESERVE: usize = 256 << 20;
