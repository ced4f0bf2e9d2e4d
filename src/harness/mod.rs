//! The conformance harness, behind the default feature `harness`: the
//! runner that drives any implementation through the adapter protocol, the
//! differential tester and the random-input strategies, with the vectors
//! and the specification embedded.
//!
//! It depends on the reference; nothing in the reference depends on it. A
//! host that only needs the reference builds the crate with
//! `default-features = false` and gets none of this module's dependencies
//! (clap, nix, proptest, serde, quick-junit, sha2); CI builds that
//! configuration, so a reference module that reached into the harness would
//! not compile. The fuzz targets' properties are not the harness's: they
//! are [`crate::checks`] (feature `checks`), which the harness reads too
//! and which needs nothing but the reference; `harness::checks` stays as
//! the path it had.

pub use crate::checks;
pub mod commands;
pub mod runner;
pub mod spec;
pub mod strategies;

/// The vector files, spec files and skeleton adapters, embedded by
/// `build.rs`.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}
