//! The conformance adapter protocol (spec `protocol.*`): one JSON request a
//! line in, one JSON response a line out. [`wire`] holds the message types,
//! [`dispatch`] answers requests with the reference implementation,
//! [`listing`] reads `candidates/*`'s session listing, [`files`] answers the
//! file-reference ops, [`scan`] reads one member of a request line,
//! [`server`] is the stdin/stdout loop behind `dsh-session-reference
//! adapter`, [`kit`] lets a Rust port serve its own ops, and [`input_types`]
//! says which input members a typed port declares with one JSON type (spec
//! `protocol.input-types`). Imports go one way: `server` and `kit` →
//! `dispatch` → `files`, `scan` → `listing`, `input_types`, `wire`.

pub mod chunked;
pub mod dispatch;
pub mod files;
pub mod input_types;
pub mod kit;
pub mod listing;
pub mod scan;
pub mod server;
pub mod wire;
