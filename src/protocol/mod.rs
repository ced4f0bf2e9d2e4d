//! The conformance adapter protocol (spec `protocol.*`): one JSON request a
//! line in, one JSON response a line out. [`wire`] holds the message types,
//! [`dispatch`] answers requests with the reference implementation,
//! [`server`] is the stdin/stdout loop behind `dsh-session-reference
//! adapter`, and [`kit`] lets a Rust port serve its own ops through the same
//! loop.

pub mod dispatch;
pub mod kit;
pub mod server;
pub mod wire;
