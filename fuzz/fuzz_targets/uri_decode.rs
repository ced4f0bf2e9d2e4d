//! Fuzzes `uri::decode` and `uri::encode`: input bytes are little-endian
//! UTF-16 code units; `checks::uri_decode` panics when a property is violated.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Inputs longer than this are skipped.
const MAX_INPUT_BYTES: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT_BYTES {
        return;
    }
    dsh_session_reference::checks::uri_decode(data);
});
