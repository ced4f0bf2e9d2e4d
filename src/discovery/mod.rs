//! Discovery: what a host lists after the user types `@` (spec
//! `candidates.*`, `files.*`).

pub mod files;
pub mod sessions;
