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
//! not compile. The feature `checks` alone gives only [`checks`], the
//! fuzz targets' checks, which need nothing but the reference.

pub mod checks;
#[cfg(feature = "harness")]
pub mod commands;
#[cfg(feature = "harness")]
pub mod runner;
#[cfg(feature = "harness")]
pub mod spec;
#[cfg(feature = "harness")]
pub mod strategies;

/// The vector files, spec files and skeleton adapters, embedded by
/// `build.rs`.
#[cfg(feature = "harness")]
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}
