//! Fuzzes the adapter protocol end to end: the first byte picks generation,
//! UTF-8 reading and op, the rest is one request line, read with
//! `Request::from_line` and dispatched; `checks::protocol_request` panics
//! when a property is violated (JSON round trips, outcome, response line).
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Inputs longer than this are skipped.
const MAX_INPUT_BYTES: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT_BYTES {
        return;
    }
    dsh_session_reference::checks::protocol_request(data);
});
