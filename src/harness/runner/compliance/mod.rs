//! The compliance page: several JSON reports of `conformance --format json`
//! (one per implementation) side by side: each implementation's causes of
//! failure, then spec areas, then rules (spec `runner.compliance-page`).
//!
//! A run's own report says how one implementation fared, vector by vector.
//! A porting team wants to show where its port stands against upstream
//! rc.8, the newest generation and the reference at a glance; a CI job
//! wants the same as a short Markdown summary. A port's failures mostly
//! come from a few causes (one renamed member fails hundreds of vectors),
//! so the page opens with them: per implementation, each cause with its
//! count, its rules and its smallest vector. This module reads the reports
//! with the exact JSON layer (their values may hold lone surrogates, which
//! serde_json refuses), builds a [`Matrix`] (spec areas, then rules, as
//! rows; implementations as columns; pass/fail/skip counts in each cell)
//! and writes it as one self-contained HTML page ([`Matrix::to_html`]:
//! inline CSS, no script, nothing fetched) and as Markdown
//! ([`Matrix::to_markdown`]).
//!
//! A vector citing several rules counts in each rule's row; in the areas'
//! rows it counts once, in the area of its first behaviour rule (see
//! [`first_area`]), so that an implementation's areas add up to its totals.
//!
//! Its rooms: `reader` reads a report into an [`Column`], `matrix`
//! sets them side by side, `markdown` and `html` write the page, in the
//! `words` both share.

mod html;
mod markdown;
mod matrix;
mod reader;
#[cfg(test)]
mod tests;
mod words;

pub use html::{escape, excerpt};
pub use matrix::{
    area_of, first_area, Area, Cell, Column, Counts, FailedVector, Matrix, RuleRow, VectorEntry,
    Verdict, OTHER_AREA,
};
pub use reader::{parse_report, read_report, ReadError};
