//! The commands on the vector files themselves: `show` (a vector with the
//! text of each rule it cites), `vectors export` (the embedded files, for
//! implementations that read them) and `regen` (the expectations rewritten
//! from the oracles' answers; spec/README.md records where they came from).

use super::output::say;
use super::Exit;
use crate::harness::runner::adapter::{External, Implementation};
use crate::harness::runner::cost::CostVector;
use crate::harness::runner::vectors::{self, Expect, Suite};
use crate::harness::spec;
use crate::js::json;
use crate::protocol::wire::{Outcome, UNSUPPORTED};
use crate::Json;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// The suite in `dir`, or the embedded one.
pub(super) fn load(dir: Option<&Path>) -> Result<Suite, Exit> {
    match dir {
        Some(dir) => Suite::load(dir),
        None => Suite::embedded(),
    }
    .map_err(|error| {
        eprintln!("cannot load vectors: {error}");
        Exit::Unusable
    })
}

/// Prints the vector `id` of the suite in `dir` (default: the embedded
/// one): its input, expected outcome, features and required capabilities,
/// and the text of each rule it cites.
pub fn show(id: &str, dir: Option<&Path>) -> Exit {
    let suite = match load(dir) {
        Ok(suite) => suite,
        Err(code) => return code,
    };
    let Some((file, vector)) = suite.find(id) else {
        if let Some((file, cost)) = suite.cost_vectors().find(|(_, cost)| cost.id == id) {
            show_cost(&file.path, cost);
            return Exit::Success;
        }
        eprintln!("no vector {id:?} in the suite ({})", suite.version);
        return Exit::Unusable;
    };
    say!("{} ({})", vector.id, file.path.display());
    say!("  {}", vector.description);
    say!("op:       {}", vector.op);
    say!(
        "features: {} (all; ! marks one that must be absent)",
        vector.features.join(", ")
    );
    if !vector.requires.is_empty() {
        say!("requires: {} (all)", vector.requires.join(", "));
    }
    say!("input:    {}", json::to_ascii(&vector.input));
    match &vector.expect {
        Expect::Output(output) => say!("expected: output {}", json::to_ascii(output)),
        Expect::Error(code) => say!("expected: error {code}"),
    }
    show_rules(&vector.rules);
    Exit::Success
}

/// `show` for a cost vector (spec `runner.cost`): its generator, sizes and
/// rules; it runs with `conformance --cost`.
fn show_cost(path: &Path, vector: &CostVector) {
    say!("{} ({})", vector.id, path.display());
    say!("  {}", vector.description);
    say!("op:        {}", vector.op);
    say!(
        "features:  {} (all; ! marks one that must be absent)",
        vector.features.join(", ")
    );
    say!("generator: {}", json::to_ascii(&vector.generator));
    say!(
        "sizes:     n from {} doubling up to {} (run with conformance --cost)",
        vector.start,
        vector.max
    );
    say!("input at n = 1: {}", json::to_ascii(&vector.input(1)));
    show_rules(&vector.rules);
}

/// Each rule's id, file and text.
fn show_rules(rules: &[String]) {
    say!("rules:");
    for rule in rules {
        match spec::rule(rule) {
            Some(found) => say!("  {rule} (spec/{}): {}", found.file, found.text),
            None => say!("  {rule}: (not in the embedded specification)"),
        }
    }
}

/// Writes the embedded vector files into `dir` (`dir/uri/decode.json`, …).
pub fn export(dir: &Path) -> Exit {
    match vectors::export_embedded(dir) {
        Ok(count) => {
            say!("wrote {count} vector files to {}", dir.display());
            Exit::Success
        }
        Err(error) => {
            eprintln!("cannot write {}: {error}", dir.display());
            Exit::Unusable
        }
    }
}

/// Rewrites the `expect` of each vector in `dir` with what the oracles
/// started by `commands` answer, when every oracle asked agrees; vectors no
/// oracle covers keep theirs. Ends with how many vectors each set of
/// oracles answered.
pub fn regen(commands: &[String], dir: &Path) -> Exit {
    let suite = match load(Some(dir)) {
        Ok(suite) => suite,
        Err(code) => return code,
    };
    // Per vector: the expectation and the oracles (their `describe` names)
    // that answered it.
    let mut answers: HashMap<String, (Expect, Vec<String>)> = HashMap::new();
    for command in commands {
        let mut oracle = External::new(command, Duration::from_secs(30));
        let description = match oracle.describe() {
            Ok(description) => description,
            Err(problem) => {
                eprintln!("{command}: describe failed: {problem}");
                return Exit::Unusable;
            }
        };
        let declares = |capability: &String| description.capabilities.contains(capability);
        let declared = description.declared();
        for (_, vector) in suite.vectors() {
            if !declared.satisfies(&vector.op, &vector.features) {
                continue;
            }
            // An oracle is asked only what it declares it can take
            // (protocol.capabilities): the newer upstream build, for one,
            // does not read snapshots without capturedThroughSeq.
            if !vectors::required_capabilities(&vector.op, &vector.input, &Json::Null)
                .iter()
                .all(declares)
            {
                continue;
            }
            let expect = match oracle.call(&vector.op, &vector.input) {
                Ok(Outcome::Output(output)) => Expect::Output(output),
                Ok(Outcome::Error { code, .. }) if code != UNSUPPORTED => Expect::Error(code),
                Ok(Outcome::Error { .. }) => continue,
                Err(problem) => {
                    eprintln!("{}: {command}: protocol failure: {problem}", vector.id);
                    return Exit::Unusable;
                }
            };
            if matches!(&expect, Expect::Output(output) if output.has_lone_surrogate())
                && !declares(&vectors::LONE_SURROGATES.to_owned())
            {
                continue;
            }
            match answers.get_mut(&vector.id) {
                Some((earlier, by)) if *earlier != expect => {
                    eprintln!(
                        "{}: the oracles disagree:\n  {}\n  {command}",
                        vector.id,
                        by.join(", ")
                    );
                    return Exit::Unusable;
                }
                Some((_, by)) => by.push(description.name.clone()),
                None => {
                    answers.insert(vector.id.clone(), (expect, vec![description.name.clone()]));
                }
            }
        }
    }
    for file in &suite.files {
        let text = file.rewritten(&|id| answers.get(id).map(|(expect, _)| expect.clone()));
        if let Err(error) = std::fs::write(&file.path, text) {
            eprintln!("cannot write {}: {error}", file.path.display());
            return Exit::Unusable;
        }
    }
    // Where the expectations came from (spec/README.md records it).
    let mut provenance: std::collections::BTreeMap<String, usize> = Default::default();
    let mut kept = 0;
    for (_, vector) in suite.vectors() {
        match answers.get(&vector.id) {
            Some((_, by)) => *provenance.entry(by.join(" + ")).or_default() += 1,
            None => kept += 1,
        }
    }
    for (oracles, count) in &provenance {
        say!("{count:5} vectors answered alike by {oracles}");
    }
    if kept > 0 {
        say!("{kept:5} vectors no oracle covers kept their expectation");
    }
    say!(
        "rewrote {} expectations in {} files",
        answers.len(),
        suite.files.len()
    );
    Exit::Success
}
