//! The composition of the reference's lower answers and what is learned
//! of an implementation, where they were before `probes` held them (spec
//! `runner.probes`): kept so that paths naming them still resolve.

pub use super::members::{apply_edits, member_edits, names_read_back, MemberEdit};
pub use super::probes::learned::{Learned, Spelling};
pub use super::probes::questions::Answers;
pub use super::probes::substitution::{compose, Composed, Lower};
