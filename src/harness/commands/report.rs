//! `report`: the compliance page of several JSON reports of `conformance
//! --format json`, one per implementation, side by side (spec
//! `runner.compliance-page`; the page itself is [`compliance`]'s).

use super::output::say;
use super::Exit;
use crate::harness::runner::compliance;
use std::path::{Path, PathBuf};

/// Reads `reports` (one per implementation, in column order) and writes
/// their compliance page to `html`, and its Markdown summary to `markdown`
/// when given, naming each file written.
pub fn run(reports: &[PathBuf], html: &Path, markdown: Option<&Path>) -> Exit {
    let mut implementations = Vec::new();
    for path in reports {
        match compliance::read_report(path) {
            Ok(implementation) => implementations.push(implementation),
            Err(error) => {
                eprintln!("cannot use the report {error}");
                return Exit::Unusable;
            }
        }
    }
    let matrix = compliance::Matrix::new(implementations);
    let mut outputs = vec![(html, matrix.to_html())];
    outputs.extend(markdown.map(|path| (path, matrix.to_markdown())));
    for (path, text) in outputs {
        if let Err(error) = std::fs::write(path, text) {
            eprintln!("cannot write {}: {error}", path.display());
            return Exit::Unusable;
        }
        say!("wrote {}", path.display());
    }
    Exit::Success
}
