//! Fuzzes `prepare::prepare` on structured cases drawn from the bytes
//! (snapshots, references, budgets, spill stores); `checks::prepare_snapshot`
//! compares the outcome with the rules and the slow retention model and
//! panics when a property is violated.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Inputs longer than this are skipped.
const MAX_INPUT_BYTES: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT_BYTES {
        return;
    }
    dsh_session_reference::checks::prepare_snapshot(data);
});
