//! Whether a request's irregularities are the cause of its disagreement
//! (spec `runner.differential.classes`): substitution repairs them and puts
//! them back one at a time, and names the class by the one that alone makes
//! the disagreement.

use super::comparison::Mismatch;
use super::irregular::{irregularities, repaired, Irregularity};
use super::plan::PlannedOp;
use super::sides::{CaseVerdict, Sides};
use crate::harness::runner::causes::Cause;
use crate::js::json::Json;

/// What one request of a substitution told.
enum Asked {
    /// The sides disagree on it: the request, and the disagreement.
    Disagrees(Json, Box<Mismatch>),
    /// The sides agree on it.
    Agrees,
    /// It could not tell (not sent, or not compared).
    Unknown,
}

/// What substitution decided about a disagreement on an irregular request
/// (spec `runner.differential.classes`).
enum Substituted {
    /// The request with every irregularity repaired disagrees too: this is
    /// the disagreement, and no irregularity is its cause.
    Regular(Json, Box<Mismatch>),
    /// The repaired request agrees, and the irregularity at this index put
    /// back alone makes the same disagreement (the request, the
    /// disagreement): it is sufficient, the cause.
    Sufficient(Json, Box<Mismatch>, usize),
    /// No irregularity alone was sufficient (or the repaired request could
    /// not be asked), and repairing the one at this index alone makes the
    /// sides agree: it is necessary, the cause.
    Necessary(usize),
    /// Neither.
    Undecided,
}

/// Requests one substitution asks at most, beyond the disagreement's own.
const SUBSTITUTION_REQUESTS: usize = 16;

/// Delta debugging over a request's irregularities (Zeller: a state is a
/// cause when putting the failing run's value into the passing run
/// reproduces the failure). `asked` asks the request with the given
/// irregularities repaired; `target` is the disagreement's cause. An
/// irregularity put back is refined into those it holds (an object of
/// another type holding an integer-like key is the key's); necessity is
/// tried innermost first.
fn substitution(
    irregular: &[Irregularity],
    target: &Cause,
    asked: &mut dyn FnMut(Vec<&Irregularity>) -> Asked,
) -> Substituted {
    let mut budget = SUBSTITUTION_REQUESTS;
    let mut ask = |skip: &[usize]| {
        if budget == 0 {
            return Asked::Unknown;
        }
        budget -= 1;
        asked(
            irregular
                .iter()
                .enumerate()
                .filter(|(at, _)| !skip.contains(at))
                .map(|(_, irregularity)| irregularity)
                .collect(),
        )
    };
    let same = |asked: Asked| match asked {
        Asked::Disagrees(request, found) if found.signature.cause == *target => {
            Some((request, found))
        }
        _ => None,
    };
    let inside = |outer: &Irregularity, inner: &Irregularity| {
        inner.path.len() > outer.path.len() && inner.path.starts_with(&outer.path)
    };
    match ask(&[]) {
        Asked::Disagrees(regular, found) => return Substituted::Regular(regular, found),
        Asked::Agrees => {
            for (at, outer) in irregular.iter().enumerate() {
                if irregular.iter().any(|other| inside(other, outer)) {
                    continue;
                }
                let held: Vec<usize> = (0..irregular.len())
                    .filter(|inner| inside(outer, &irregular[*inner]))
                    .collect();
                let whole: Vec<usize> = std::iter::once(at).chain(held.iter().copied()).collect();
                let Some((request, found)) = same(ask(&whole)) else {
                    continue;
                };
                if held.is_empty() {
                    return Substituted::Sufficient(request, found, at);
                }
                if let Some((request, found)) = same(ask(&[at])) {
                    return Substituted::Sufficient(request, found, at);
                }
                for inner in &held {
                    if let Some((request, found)) = same(ask(&[at, *inner])) {
                        return Substituted::Sufficient(request, found, *inner);
                    }
                }
                return Substituted::Sufficient(request, found, at);
            }
        }
        Asked::Unknown => {}
    }
    for at in (0..irregular.len()).rev() {
        let all_but: Vec<usize> = (0..irregular.len()).filter(|other| *other != at).collect();
        if let Asked::Agrees = ask(&all_but) {
            return Substituted::Necessary(at);
        }
    }
    Substituted::Undecided
}

/// A disagreement as substitution leaves it.
pub(super) struct Isolated {
    /// The request that shows it.
    pub(super) input: Json,
    /// The disagreement.
    pub(super) mismatch: Mismatch,
    /// Whether its class is an irregularity's, named by an edit that only
    /// this request makes (a shrunk one would lose it).
    pub(super) renamed: bool,
}

/// `mismatch`, the disagreement of `planned`'s `input`, isolated (spec
/// runner.differential.classes): where the request is irregular (a member
/// of another type, a null item, an integer-like key, drawn only where
/// both declare `dynamic-inputs`), substitution decides whether that is
/// the cause: the request with every irregularity repaired disagrees too
/// (then that is the disagreement), or agrees, and one irregularity put
/// back alone makes the same disagreement (then the class is that one's).
pub(super) fn isolate(
    sides: &mut Sides<'_>,
    planned: &PlannedOp,
    input: Json,
    mismatch: Mismatch,
    dynamic_inputs: bool,
) -> Isolated {
    let irregular = if dynamic_inputs {
        irregularities(planned.op, &input)
    } else {
        Vec::new()
    };
    // A crash or a hang is no answer: nothing to substitute.
    if irregular.is_empty() || mismatch.signature.kind == "protocol" {
        return Isolated::as_is(input, mismatch);
    }
    let target = mismatch.signature.cause.clone();
    let mut asked = |repairs: Vec<&Irregularity>| {
        let candidate = repaired(input.clone(), &repairs);
        match sides.ask(planned.op, planned.scope, &candidate) {
            CaseVerdict::Disagree(found) if found.signature.kind != "protocol" => {
                let found = sides.trace(planned.op, &candidate, *found);
                Asked::Disagrees(candidate, Box::new(found))
            }
            CaseVerdict::Agree => Asked::Agrees,
            _ => Asked::Unknown,
        }
    };
    let renamed = |input, mismatch: Mismatch, at: usize| Isolated {
        input,
        mismatch: mismatch.irregular_by(planned.op, &irregular[at]),
        renamed: true,
    };
    match substitution(&irregular, &target, &mut asked) {
        Substituted::Regular(regular, found) => Isolated::as_is(regular, *found),
        Substituted::Sufficient(candidate, found, at) => renamed(candidate, *found, at),
        Substituted::Necessary(at) => renamed(input, mismatch, at),
        Substituted::Undecided => Isolated::as_is(input, mismatch),
    }
}

impl Isolated {
    /// `mismatch` on `input`, its class its own.
    fn as_is(input: Json, mismatch: Mismatch) -> Isolated {
        Isolated {
            input,
            mismatch,
            renamed: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::signature::Signature;
    use super::*;

    fn mismatch(cause: &str) -> Box<Mismatch> {
        Box::new(Mismatch {
            also: Vec::new(),
            signature: Signature {
                cause: Cause {
                    family: None,
                    edit: cause.to_owned(),
                },
                alternative: None,
                op: "candidates/list".to_owned(),
                kind: "error/output",
                path: "$".to_owned(),
            },
            explanation: String::new(),
            a: Err(String::new()),
            b: Err(String::new()),
            chain: None,
        })
    }

    /// runner.differential.classes: substitution names the irregularity
    /// that alone makes the disagreement, refined into what it holds; when
    /// the regular request disagrees too, that is the disagreement; when
    /// nothing is sufficient, the innermost necessary one.
    #[test]
    fn substitution_finds_the_irregularity_that_makes_the_disagreement() {
        let input =
            crate::js::json::parse(r#"{"a":{"1":0},"b":5,"sessions":[{"id":"s","cwd":5}]}"#)
                .expect("fixture");
        let irregular = irregularities("candidates/list", &input);
        let target = mismatch("x").signature.cause;
        // The listed cwd of another type makes it: sufficient.
        let by_cwd = |repairs: Vec<&Irregularity>| {
            if repairs.iter().any(|repair| repair.locus == "cwd") {
                Asked::Agrees
            } else {
                Asked::Disagrees(Json::Null, mismatch("x"))
            }
        };
        let named = match substitution(&irregular, &target, &mut { by_cwd }) {
            Substituted::Sufficient(_, _, at) => irregular[at].locus.clone(),
            _ => panic!("not sufficient"),
        };
        assert_eq!(named, "cwd");
        // Every request disagrees: the regular one is the disagreement.
        let always = |_: Vec<&Irregularity>| Asked::Disagrees(Json::Null, mismatch("x"));
        assert!(matches!(
            substitution(&irregular, &target, &mut { always }),
            Substituted::Regular(..)
        ));
        // The regular request cannot be asked: the one whose repair alone
        // makes the sides agree is necessary.
        let necessary = |repairs: Vec<&Irregularity>| match repairs.len() {
            1 if repairs[0].locus == "cwd" => Asked::Agrees,
            1 => Asked::Disagrees(Json::Null, mismatch("x")),
            _ => Asked::Unknown,
        };
        let named = match substitution(&irregular, &target, &mut { necessary }) {
            Substituted::Necessary(at) => irregular[at].locus.clone(),
            _ => panic!("not necessary"),
        };
        assert_eq!(named, "cwd");
    }
}
