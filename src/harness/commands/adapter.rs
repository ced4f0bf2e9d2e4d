//! `adapter`: the reference speaking the adapter protocol on standard input
//! and output (spec `protocol.framing`), with one set of behaviours (a
//! release's, or any a port declares), for a runner
//! (this crate's or another's) to drive.

use super::Exit;
use crate::features::Declared;
use crate::protocol::server;
use std::io;

/// Serves requests from standard input with the reference as `declared`
/// (its ops and behaviours), answering on standard output, until standard
/// input ends.
pub fn run(declared: Declared) -> Exit {
    // Requests of megabytes come through a pipe: read it a pipe's
    // worth at a time, not 8 KiB, so the writer is woken a few times
    // a request rather than hundreds (issue #13: the 9.2 MB candidate
    // round trip 71-83 ms -> 60-71 ms beside the same binary).
    let input = io::BufReader::with_capacity(1 << 20, io::stdin().lock());
    #[cfg(unix)]
    exit_once_answers_go_unread();
    // A request may nest up to `json::MAX_DEPTH` levels: the command line
    // runs every command on a thread with the stack for it (main.rs).
    match server::serve(&declared, input, io::stdout().lock()) {
        Ok(()) => Exit::Success,
        Err(error) => {
            eprintln!("adapter: {error}");
            Exit::Unusable
        }
    }
}

/// Ends the adapter as soon as no one can read its answers: the reader of
/// standard output is gone (a pipe reports an error), so the runner that
/// started it is. Without this an adapter stuck in a request (a mutant that
/// loops, under cargo-mutants) would outlive a runner killed from outside:
/// the runner gives each implementation a process group of its own, which
/// no signal to the runner's group reaches. A watching thread, so that a
/// request under way is no obstacle; reading standard input is not touched,
/// so requests piped in and then closed are still all answered.
#[cfg(unix)]
fn exit_once_answers_go_unread() {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::os::fd::AsFd;
    std::thread::spawn(|| {
        let stdout = io::stdout();
        loop {
            // No events asked for: poll returns only on an error or a hang-up.
            let mut watched = [PollFd::new(stdout.as_fd(), PollFlags::empty())];
            match poll(&mut watched, PollTimeout::NONE) {
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => return,
                Ok(_) => {
                    let gone = PollFlags::POLLERR | PollFlags::POLLHUP;
                    if watched[0]
                        .revents()
                        .is_some_and(|events| events.intersects(gone))
                    {
                        std::process::exit(0);
                    }
                    // Not a stream that reports its reader (POLLNVAL): stop watching.
                    return;
                }
            }
        }
    });
}
