//! The words of the benches' session titles, shared by the candidate
//! listing of `benches/candidates.rs` and the candidate request of
//! `benches/json.rs` (`SESSION_WORDS` in `benches/oracle/common.mjs` is the
//! same list).

/// Title words, picked with the shared xorshift32 generator.
pub const SESSION_WORDS: &[&str] = &[
    "plan",
    "refactor",
    "parser",
    "release",
    "notes",
    "bug",
    "fix",
    "login",
    "cache",
    "review",
    "deploy",
    "schema",
    "migration",
    "tests",
    "flaky",
    "docs",
    "api",
    "design",
    "budget",
    "index",
];
