//! The op graph (spec `runner.probes`): the table of ops
//! (`runner::ops`) is the one statement of which op asks which, and the
//! questions and compositions of the probes hold to it.

use dsh_session_reference::features::Features;
use dsh_session_reference::harness::runner::ops;
use dsh_session_reference::harness::runner::probes::substitution::{compose, Composed};
use dsh_session_reference::harness::runner::probes::{derive, Probe};
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::protocol::dispatch;
use std::collections::BTreeSet;

/// Over every vector of the suite, each question goes to an op the
/// table says the request's op asks ([`ops::asked_by`]), each lower
/// answer a composition reads is of an op one step below it
/// ([`ops::Op::below`]), and every edge of the table is walked by
/// some vector: the graph is the table's, the code holds to it.
#[test]
fn questions_and_compositions_follow_the_op_table() {
    // runner.probes
    let suite = Suite::embedded().expect("the embedded suite");
    let (mut asked, mut composed) = (BTreeSet::new(), BTreeSet::new());
    let releases = [Features::RC8, Features::NEWEST];
    for ((_, vector), features) in suite.vectors().flat_map(|v| releases.map(|f| (v, f))) {
        let (op, input) = (vector.op.as_str(), &vector.input);
        let own = dispatch::handle_in(features, op, input);
        for probe in derive(features, op, input, &own) {
            assert!(
                ops::asked_by(op).any(|lower| lower == probe.op),
                "{}: {op} asks {}",
                vector.id,
                probe.op
            );
            asked.insert((op.to_owned(), probe.op));
        }
        let mut lower = |probe: &Probe| {
            composed.insert((op.to_owned(), probe.op));
            let answer = dispatch::handle_in(features, probe.op, &probe.input);
            Some(Composed::Answer(answer))
        };
        compose(features, op, input, &own, &mut lower);
    }
    for row in ops::OPS {
        for &lower in row.below {
            let edge = (row.name.to_owned(), lower);
            assert!(
                composed.contains(&edge),
                "{edge:?}: no composition reads it"
            );
            assert!(asked.contains(&edge), "{edge:?}: no question asks it");
        }
        for &lower in row.asks_only {
            let edge = (row.name.to_owned(), lower);
            assert!(asked.contains(&edge), "{edge:?}: no question asks it");
            assert!(
                !composed.contains(&edge),
                "{edge:?}: a composition reads it"
            );
        }
    }
    for (op, lower) in &composed {
        let below = ops::of(op).map_or(&[][..], |row| row.below);
        assert!(below.contains(lower), "{op} is composed of {lower}");
    }
}
