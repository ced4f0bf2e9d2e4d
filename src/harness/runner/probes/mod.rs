//! Causes by probing and substitution (spec `runner.probes`, ours): the ops
//! are layers of one another (`mention/format` writes what `uri/encode`
//! answers, `prepare` retains what `retain` does and writes it as
//! `json/tag-safe` does), and the reference knows every intermediate value.
//! So when a request fails, the runner asks the implementation the lower
//! ops' questions of that same request (its *probes*), with the reference's
//! answers as the expectation. A lower op that answers wrong explains the
//! failure only as far as substitution reproduces it: the reference composed
//! with the implementation's answers of that op in place of its own
//! ([`substitution`]) must change its answer the way the implementation's
//! differs; what the substituted run does not reproduce keeps its own
//! causes. So one bug of a lower layer is one cause, however many ops show
//! it, and hides no other bug beside it.
//!
//! A probe is derived from the failed request and from the reference's own
//! answer to it (the ids a text mentions, the data a snapshot retains, the
//! budget a preparation computes). Probes go only to ops the implementation
//! declares, never need a capability it does not declare (a lone
//! surrogate without `lone-surrogates`, an ill-typed member without
//! `dynamic-inputs`, …), and are bounded per failure ([`MAX_PROBES`]) and
//! per run ([`Allowance`]); answers are cached by request for the whole
//! run, so a passing run sends none and a lower op asked again costs
//! nothing. What was learned of the implementation (its JSON spelling, its
//! member edits) stands in for what is not asked: first, before any probe,
//! when it explains the failure and tells its conversation apart (a
//! pervasive bug then costs its first failures' probes only), and past the
//! allowance.
//!
//! Each room builds on those before it: [`questions`], [`substitution`],
//! [`learned`], [`chain`], [`allowance`], [`telling`], [`prober`].

pub mod allowance;
pub mod chain;
pub mod learned;
pub mod prober;
pub mod questions;
pub mod substitution;
pub mod telling;

pub use allowance::{Allowance, MAX_PROBES, MIN_ALLOWANCE, MIN_ALLOWANCE_BYTES};
pub use chain::{Chain, ProbeStep};
pub use prober::{Failure, Prober};
pub use questions::{agrees, derive, reference_answer, refused_by_its_op, Probe};
