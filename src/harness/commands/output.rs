//! What the commands print on standard output, and how: the output is each
//! command's purpose (a report, a vector, a prepared message), so it is
//! written here, through [`emit`], rather than with `print!` (which the
//! library does not use: `clippy::print_stdout`). A reader that goes away
//! early, such as `head` at the end of a pipe, ends the process quietly.

/// `println!` that ends the process quietly (exit 2) when standard output
/// is gone, such as a closed pipe, instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::harness::commands::output::emit(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` with [`say!`]'s handling of a closed output.
macro_rules! say_raw {
    ($($arg:tt)*) => {
        $crate::harness::commands::output::emit(&format!($($arg)*))
    };
}

pub(crate) use {say, say_raw};

/// Writes `text` to standard output and flushes it; when standard output
/// is gone, ends the process with exit status 2, the status of a command
/// that could not be done ([`super::Exit::Unusable`]).
pub(crate) fn emit(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        std::process::exit(2);
    }
}
