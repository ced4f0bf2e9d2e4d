//! The conformance harness, behind the default feature `harness`: the
//! runner that drives any implementation through the adapter protocol, the
//! differential tester, the random-input strategies and the fuzz checks,
//! with the vectors and the specification embedded.
//!
//! It depends on the reference; nothing in the reference depends on it. A
//! host that only needs the reference builds the crate with
//! `default-features = false` and gets none of this module's dependencies
//! (clap, nix, proptest, serde, quick-junit, sha2); CI builds that
//! configuration, so a reference module that reached into the harness would
//! not compile.

pub mod checks;
pub mod commands;
pub mod runner;
pub mod spec;
pub mod strategies;

/// The vector files and spec files, embedded by `build.rs`.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}
