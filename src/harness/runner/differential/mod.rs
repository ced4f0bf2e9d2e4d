//! Differential testing of two implementations (spec `runner.differential`):
//! the same seeded random requests go to both, and every disagreement is
//! reported with the smallest request found that still disagrees.

mod case_loop;
pub mod classes;
pub mod comparison;
pub mod confusion;
pub mod corpus;
pub mod coverage;
mod draws;
mod guide;
pub mod irregular;
mod isolation;
pub mod json_report;
pub mod minimize;
pub mod normalize;
pub mod options;
pub mod order;
pub mod plan;
mod ranking;
mod related;
pub mod requests;
mod shrink;
mod sides;
pub mod signature;
pub mod summary;
mod valued;

pub use super::ops::{known_ops, reference_features};
pub use case_loop::run;
pub use classes::{Class, CASES_KEPT};
pub use comparison::{compare, Mismatch};
pub use json_report::{
    JsonClass, JsonDifferential, JsonExample, JsonSlowCase, NotCompared, NotImplemented, OpCount,
    OpReason,
};
pub use normalize::normalize;
pub use options::{Options, Progress};
pub use plan::{plan, Plan, PlannedOp};
pub use shrink::HANG_SHRINK_PROBES;
pub use summary::{Starved, Stopped, Summary, STARVED_PERCENT};
