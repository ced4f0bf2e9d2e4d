//! The plan of a run (spec `runner.differential`): which ops it draws,
//! what their requests may use ([`Scope`], [`Reach`]), and what it leaves
//! out, decided from the two `describe` answers before the first case.

use crate::features::{self, Features};
use crate::harness::runner::adapter::Description;
use crate::harness::runner::ops::{known_ops, reference_features};
use crate::harness::runner::probes::Prober;
use crate::harness::runner::vectors::{LONE_SURROGATES, OPTIONAL_SEQ};
use crate::protocol::input_types::DYNAMIC_INPUTS;

/// What an op's requests may use: the behaviours both sides have, and
/// those they differ in (spec `runner.differential`). Where the sides
/// differ in a behaviour, a request stays where it does not show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The behaviours both sides have.
    pub both: Features,
    /// The behaviours one side has and the other not.
    pub differ: Features,
}

impl Scope {
    /// Both sides with `features`.
    pub const fn of(features: Features) -> Scope {
        Scope {
            both: features,
            differ: Features::RC8,
        }
    }

    /// Sides with `a` and `b`, for `op`: only the behaviours that can
    /// change its answers count.
    pub fn between(op: &str, a: Features, b: Features) -> Scope {
        let mut scope = Scope::of(Features::RC8);
        for behaviour in features::behaviours_of(op) {
            let (in_a, in_b) = ((behaviour.get)(&a), (behaviour.get)(&b));
            (behaviour.set)(&mut scope.both, in_a && in_b);
            (behaviour.set)(&mut scope.differ, in_a != in_b);
        }
        scope
    }

    /// Whether the sides differ in any behaviour: their answers are
    /// compared with the differences hidden ([`normalize`](super::normalize::normalize)).
    pub fn is_mixed(&self) -> bool {
        self.differ != Features::RC8
    }
}

/// What both implementations declare beyond a generation's features, each
/// widening what requests may hold (spec `runner.differential`). Without
/// it on both sides, a request stays where every implementation of the
/// generation answers alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// Both declare `candidates-fuzzy`: a non-empty query may match several
    /// candidates, or match one only fuzzily (spec `candidates.fuzzy.*`).
    /// Without it, a listing holds at most one candidate the query matches
    /// in any way, and that one matches by substring. The requests read it
    /// from each op's [`Scope`] (`both.fuzzy`); here it is what the run
    /// reports ([`Plan::narrowed`]).
    pub fuzzy: bool,
    /// Both declare `config-fraction-type`: `referenceContextFraction` may
    /// be of another JSON type than a number (spec `config.fraction-type`);
    /// read, like `fuzzy`, from each op's [`Scope`].
    pub fraction_types: bool,
    /// Both declare the capability `optional-seq`: a snapshot may lack
    /// `capturedThroughSeq` (spec `surface.seq-absent`).
    pub optional_seq: bool,
    /// Both declare the capability `dynamic-inputs`: an input member may
    /// have another JSON type than the protocol declares (spec
    /// `protocol.input-types`). Without it every request is drawn well
    /// typed ([`well_typed`](crate::protocol::input_types::well_typed)): a typed port's requests.
    pub dynamic_inputs: bool,
}

impl Reach {
    /// Everything: what the reference declares in each generation.
    pub const ALL: Reach = Reach {
        fuzzy: true,
        fraction_types: true,
        optional_seq: true,
        dynamic_inputs: true,
    };
}

impl Default for Reach {
    fn default() -> Self {
        Reach::ALL
    }
}

/// One op the run generates, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedOp {
    /// The op.
    pub op: &'static str,
    /// What its requests may use.
    pub scope: Scope,
}

/// Which ops a run generates and which it leaves out, with why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The ops both implementations support, in the order of the op table.
    pub ops: Vec<PlannedOp>,
    /// Ops not generated, each with the reason.
    pub left_out: Vec<(String, String)>,
    /// Ops whose behaviours differ between the sides, each with what is
    /// hidden.
    pub mixed: Vec<(String, String)>,
    /// Both declare the capability `lone-surrogates`: requests may hold lone
    /// surrogates, and answers holding them are compared (spec
    /// `protocol.capabilities`).
    pub lone_surrogates: bool,
    /// The capabilities both declare: a request that needs another is not
    /// sent (spec `protocol.capabilities`).
    pub capabilities: Vec<String>,
    /// What else both declare, which widens the requests (features
    /// `candidates-fuzzy` and `config-fraction-type`, capability
    /// `optional-seq`).
    pub reach: Reach,
    /// The reference's behaviours disagreements are probed with (spec
    /// `runner.probes`): B's ([`reference_features`]). Probing is off for
    /// the ops whose behaviours differ between the sides, whose lower ops'
    /// answers differ by design.
    pub probes: Option<Features>,
    /// The ops a disagreement may be probed on: every op both sides answer
    /// with the same behaviours, drawn or not. `--ops mention/format`
    /// still traces a wrong mention to `uri/encode`, so one bug stays one
    /// class however the draw is narrowed (spec
    /// `runner.differential.classes`).
    pub probe_ops: Vec<&'static str>,
}

impl Plan {
    /// A prober for the run's disagreements, when it probes.
    pub(super) fn prober(&self) -> Option<Prober> {
        let features = self.probes?;
        Some(Prober::within(
            features,
            self.probe_ops.clone(),
            self.capabilities.clone(),
        ))
    }

    /// What the run leaves out because one side does not declare it, one
    /// line each.
    pub fn narrowed(&self) -> Vec<&'static str> {
        let mut lines = Vec::new();
        if !self.reach.fuzzy {
            lines.push("candidates: a non-empty query matches at most one candidate, by substring (the feature candidates-fuzzy is not declared by both)");
        }
        if !self.reach.fraction_types {
            lines.push("configurations: referenceContextFraction is a number or null (the feature config-fraction-type is not declared by both)");
        }
        if !self.reach.optional_seq {
            lines.push("snapshots: capturedThroughSeq always present (the capability optional-seq is not declared by both)");
        }
        if !self.reach.dynamic_inputs {
            lines.push("inputs: every typed member drawn of its declared JSON type (the capability dynamic-inputs is not declared by both)");
        }
        lines
    }
}

/// Decides what to generate from the two `describe` answers, restricted to
/// `only` when given.
pub fn plan(a: &Description, b: &Description, only: Option<&[String]>) -> Plan {
    let capable = |capability: &str| {
        [a, b]
            .iter()
            .all(|d| d.capabilities.iter().any(|c| c == capability))
    };
    let (declared_a, declared_b) = (a.declared(), b.declared());
    let both = |name: &str| declared_a.declares(name) && declared_b.declares(name);
    let mut plan = Plan {
        lone_surrogates: capable(LONE_SURROGATES),
        capabilities: a
            .capabilities
            .iter()
            .filter(|capability| capable(capability))
            .cloned()
            .collect(),
        reach: Reach {
            dynamic_inputs: capable(DYNAMIC_INPUTS),
            fuzzy: both("candidates-fuzzy"),
            fraction_types: both("config-fraction-type"),
            optional_seq: capable(OPTIONAL_SEQ),
        },
        probes: Some(reference_features(b)),
        ..Plan::default()
    };
    for op in known_ops() {
        let answered = declared_a.answers(op) && declared_b.answers(op);
        let scope = Scope::between(op, declared_a.features, declared_b.features);
        if answered && !scope.is_mixed() {
            plan.probe_ops.push(op);
        }
        if only.is_some_and(|only| !only.iter().any(|o| o == op)) {
            continue;
        }
        let Some(missing) = [(&declared_a, a), (&declared_b, b)]
            .into_iter()
            .find(|(declared, _)| !declared.answers(op))
            .map(|(_, description)| &description.name)
        else {
            if scope.is_mixed() {
                let differ: Vec<&str> = scope.differ.names().collect();
                plan.mixed.push((
                    op.to_owned(),
                    format!("{} ({})", hidden(op), differ.join(", ")),
                ));
            }
            plan.ops.push(PlannedOp { op, scope });
            continue;
        };
        let feature = features::op_feature(op).unwrap_or(op);
        plan.left_out.push((
            op.to_owned(),
            format!("{missing} does not declare the feature {feature}"),
        ));
    }
    plan
}

/// What a comparison of sides whose behaviours differ leaves out, per op.
fn hidden(op: &str) -> &'static str {
    match op {
        "prepare" | "pre-step" => "requests without route, spill store, developer/system events or capturedThroughSeq outside its domain; the omissions section and capturedFormatVersion hidden",
        "candidates/list" | "candidates/remote" => "requests with no or an empty query; displayTitle and sameWorkspace hidden",
        "config/check" => "configurations without referenceContextFraction",
        "retain" => "snapshots without developer/system events or capturedThroughSeq outside its domain",
        _ => "nothing",
    }
}
