//! The conformance adapter protocol (spec `protocol.*`): one JSON request a
//! line in, one JSON response a line out. [`wire`] holds the message types,
//! [`dispatch`] answers requests with the reference implementation, and
//! [`server`] is the stdin/stdout loop behind `dsh-session-reference adapter`.

pub mod dispatch;
pub mod server;
pub mod wire;
