//! Fuzzes `retention::retain` against the slow retention model on snapshots,
//! labels and budgets drawn from the bytes; `checks::retain_differential`
//! panics when the two disagree or a property is violated.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Inputs longer than this are skipped.
const MAX_INPUT_BYTES: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT_BYTES {
        return;
    }
    dsh_session_reference::checks::retain_differential(data);
});
