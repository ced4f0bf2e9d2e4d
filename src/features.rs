//! Features and releases (spec `protocol.features`, `runner.releases`): what an
//! implementation answers, one feature per behaviour that changed between
//! upstream releases, and the releases that run here as sets of them.
//!
//! Every module of the reference reads a changed behaviour in one place,
//! from [`Features`] (`if features.same_workspace`), never from a release
//! or a generation: a port that follows a release between two others, or
//! a fork that took one behaviour early, is served by the same code.

/// The behaviours that differ between upstream releases, each on or off
/// (spec `protocol.features`). [`Features::RC8`] has none, [`Features::NEWEST`]
/// every one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Features {
    /// `same-workspace`: each candidate carries `sameWorkspace`
    /// (`candidates.v2.same-workspace`).
    pub same_workspace: bool,
    /// `display-title`: each candidate carries `displayTitle` (a subagent's
    /// label, else the label), and a query also matches it
    /// (`candidates.v2.display-title`, `candidates.v2.match`).
    pub display_title: bool,
    /// `remote-display-label`: a Remote candidate's mention is labelled by
    /// its display title, not its label (`candidates.remote`).
    pub remote_display_label: bool,
    /// `seq-domain`: `capturedThroughSeq` is a session sequence number; any
    /// other present value fails (`surface.seq-outside-domain`).
    pub seq_domain: bool,
    /// `developer-events-ignored`: developer and system message events are
    /// ignored instead of failing (`surface.developer-system`).
    pub developer_events_ignored: bool,
    /// `omission-notices`: a truncated source gets an omission notice after
    /// the snapshot (`prepare.omissions`).
    pub omission_notices: bool,
    /// `spill`: a truncated source's full snapshot is offered to the spill
    /// store, and its notice says what became of it (`spill.*`).
    pub spill: bool,
    /// `automatic-budget`: without `maxReferenceBytes` the budget follows
    /// the route's model (`prepare.budget.automatic`); rc.8 uses 64 KiB.
    pub automatic_budget: bool,
    /// `context-fraction`: `referenceContextFraction` is read and checked
    /// (`config.fraction`); rc.8 ignores it.
    pub context_fraction: bool,
    /// `captured-format-version`: a source record carries the session's
    /// `capturedFormatVersion` (`prepare.captured-format-version`).
    pub captured_format_version: bool,
    /// `config-fraction-type` (**ours**): a `referenceContextFraction` of
    /// another JSON type than a number is invalid (`config.fraction-type`).
    pub fraction_type: bool,
    /// `candidates-fuzzy` (**ours**): the specification's fuzzy match and
    /// relevance (`candidates.fuzzy.*`).
    pub fuzzy: bool,
}

/// A behaviour's protocol name, and the field that holds it.
pub struct Behaviour {
    /// Its name in `describe` and in a vector's `features`.
    pub name: &'static str,
    /// The ops whose answers it can change.
    pub ops: &'static [&'static str],
    /// Whether `features` has it.
    pub get: fn(&Features) -> bool,
    /// Turns it on or off in `features`.
    pub set: fn(&mut Features, bool),
    /// Whether the specification decides it (no upstream code does).
    pub ours: bool,
}

const PREPARING: &[&str] = &["prepare", "pre-step"];
const READING: &[&str] = &["retain", "prepare", "pre-step"];
const CONFIGURED: &[&str] = &[
    "config/check",
    "prepare",
    "pre-step",
    "candidates/list",
    "candidates/remote",
];
const DISCOVERING: &[&str] = &["candidates/list", "candidates/remote"];

macro_rules! behaviour {
    ($name:literal, $field:ident, $ops:expr, $ours:literal) => {
        Behaviour {
            name: $name,
            ops: $ops,
            get: |features| features.$field,
            set: |features, on| features.$field = on,
            ours: $ours,
        }
    };
}

/// Every behaviour, in the order the specification lists them.
pub const BEHAVIOURS: &[Behaviour] = &[
    behaviour!("same-workspace", same_workspace, DISCOVERING, false),
    behaviour!("display-title", display_title, DISCOVERING, false),
    behaviour!(
        "remote-display-label",
        remote_display_label,
        &["candidates/remote"],
        false
    ),
    behaviour!("seq-domain", seq_domain, READING, false),
    behaviour!(
        "developer-events-ignored",
        developer_events_ignored,
        READING,
        false
    ),
    behaviour!("omission-notices", omission_notices, PREPARING, false),
    behaviour!("spill", spill, PREPARING, false),
    behaviour!("automatic-budget", automatic_budget, PREPARING, false),
    behaviour!("context-fraction", context_fraction, CONFIGURED, false),
    behaviour!(
        "captured-format-version",
        captured_format_version,
        PREPARING,
        false
    ),
    behaviour!("config-fraction-type", fraction_type, CONFIGURED, true),
    behaviour!("candidates-fuzzy", fuzzy, DISCOVERING, true),
];

/// Every op of the protocol (spec `protocol.ops`), in the order of the op
/// features.
pub const OPS: &[&str] = &[
    "uri/encode",
    "uri/decode",
    "mention/format",
    "mention/parse",
    "json/tag-safe",
    "retain",
    "prepare",
    "pre-step",
    "config/check",
    "candidates/list",
    "candidates/remote",
    "files/token",
    "files/format",
    "files/list",
];

/// The op features: names for the ops an implementation answers (spec
/// `protocol.features`), `(feature, ops)`. Each op's own feature, the one
/// its vectors name, is the first row that holds it; `candidates-list` is
/// `candidates/list` without the Remote face, as releases before
/// 0.1.0-rc.8 have it (`runner.releases`).
pub const OP_FEATURES: &[(&str, &[&str])] = &[
    ("uri", &["uri/encode", "uri/decode"]),
    ("mention", &["mention/format", "mention/parse"]),
    ("json", &["json/tag-safe"]),
    ("retain", &["retain"]),
    ("prepare", &["prepare"]),
    ("pre-step", &["pre-step"]),
    ("config", &["config/check"]),
    ("candidates", &["candidates/list", "candidates/remote"]),
    ("candidates-list", &["candidates/list"]),
    ("files", &["files/token", "files/format", "files/list"]),
];

/// The ops of the op feature `name`, if it is one.
pub fn ops_of(name: &str) -> Option<&'static [&'static str]> {
    OP_FEATURES
        .iter()
        .find(|(feature, _)| *feature == name)
        .map(|(_, ops)| *ops)
}

/// The generation names of the first vocabulary, each the set it bundled:
/// `(name, op feature, behaviours)`. They keep meaning what they meant.
pub const BUNDLES: &[(&str, &str, &[&str])] = &[
    ("prepare-v1", "prepare", &[]),
    ("pre-step-v1", "pre-step", &[]),
    ("config-v1", "config", &[]),
    ("candidates-v1", "candidates", &[]),
    (
        "surface-v2",
        "retain",
        &["seq-domain", "developer-events-ignored"],
    ),
    ("prepare-v2", "prepare", NEWEST_PREPARING),
    ("pre-step-v2", "pre-step", NEWEST_PREPARING),
    ("config-v2", "config", &["context-fraction"]),
    (
        "candidates-v2",
        "candidates",
        &["same-workspace", "display-title", "remote-display-label"],
    ),
];

const NEWEST_PREPARING: &[&str] = &[
    "seq-domain",
    "developer-events-ignored",
    "omission-notices",
    "spill",
    "automatic-budget",
    "context-fraction",
    "captured-format-version",
];

impl Features {
    /// The npm package 0.1.0-rc.8: none of the behaviours.
    pub const RC8: Features = Features {
        same_workspace: false,
        display_title: false,
        remote_display_label: false,
        seq_domain: false,
        developer_events_ignored: false,
        omission_notices: false,
        spill: false,
        automatic_budget: false,
        context_fraction: false,
        captured_format_version: false,
        fraction_type: false,
        fuzzy: false,
    };

    /// The newest documents with the specification's decisions: every
    /// behaviour.
    pub const NEWEST: Features = Features {
        same_workspace: true,
        display_title: true,
        remote_display_label: true,
        seq_domain: true,
        developer_events_ignored: true,
        omission_notices: true,
        spill: true,
        automatic_budget: true,
        context_fraction: true,
        captured_format_version: true,
        fraction_type: true,
        fuzzy: true,
    };

    /// The behaviour named `name`, if it is one.
    pub fn behaviour(name: &str) -> Option<&'static Behaviour> {
        BEHAVIOURS.iter().find(|behaviour| behaviour.name == name)
    }

    /// Whether it has the behaviour named `name` (`false` for any other name).
    pub fn has(&self, name: &str) -> bool {
        Features::behaviour(name).is_some_and(|behaviour| (behaviour.get)(self))
    }

    /// These features with the behaviour `name` turned on or off (any
    /// other name changes nothing).
    pub fn with(mut self, name: &str, on: bool) -> Features {
        if let Some(behaviour) = Features::behaviour(name) {
            (behaviour.set)(&mut self, on);
        }
        self
    }

    /// The names of the behaviours it has, in [`BEHAVIOURS`] order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        BEHAVIOURS
            .iter()
            .filter(|behaviour| (behaviour.get)(self))
            .map(|behaviour| behaviour.name)
    }
}

/// The op feature that defines `op`, if it is an op of the protocol.
pub fn op_feature(op: &str) -> Option<&'static str> {
    OP_FEATURES
        .iter()
        .find(|(_, ops)| ops.contains(&op))
        .map(|(feature, _)| *feature)
}

/// The behaviours that can change `op`'s answers.
pub fn behaviours_of(op: &str) -> impl Iterator<Item = &'static Behaviour> + '_ {
    BEHAVIOURS
        .iter()
        .filter(move |behaviour| behaviour.ops.contains(&op))
}

/// What an implementation declares, read: the ops it answers and its
/// behaviours (spec `protocol.features`), and the release it is, when it
/// was made as one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    /// The ops it answers, in [`OPS`] order.
    pub ops: Vec<&'static str>,
    /// The behaviours it declares.
    pub features: Features,
    /// The release it was made as ([`Declared::release`]).
    pub release: Option<&'static str>,
}

impl Declared {
    /// Reads a `describe`'s feature names: op features, behaviours, and
    /// the first vocabulary's generation names as the sets they bundled.
    /// Other names are ignored (spec `protocol.features`).
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Declared {
        let mut ops: Vec<&'static str> = Vec::new();
        let mut features = Features::RC8;
        for name in names {
            if let Some(feature_ops) = ops_of(name) {
                ops.extend(feature_ops);
            } else if let Some((_, op, behaviours)) =
                BUNDLES.iter().find(|(bundle, _, _)| *bundle == name)
            {
                ops.extend(ops_of(op).unwrap_or_default());
                for behaviour in *behaviours {
                    features = features.with(behaviour, true);
                }
            } else {
                features = features.with(name, true);
            }
        }
        ops.sort_by_key(|op| OPS.iter().position(|known| known == op));
        ops.dedup();
        Declared {
            ops,
            features,
            release: None,
        }
    }

    /// Every op, with `features`: the reference's declaration.
    pub fn every_op(features: Features) -> Declared {
        Declared {
            ops: OPS.to_vec(),
            features,
            release: None,
        }
    }

    /// The release's ops and behaviours, named as the release.
    pub fn release(release: &Release) -> Declared {
        Declared {
            features: release.features,
            release: Some(release.name),
            ..Declared::from_names(release.ops.iter().copied())
        }
    }

    /// Whether it answers `op`.
    pub fn answers(&self, op: &str) -> bool {
        self.ops.contains(&op)
    }

    /// Whether it declares the feature `name`: an op feature whose ops it
    /// all answers, or a behaviour.
    pub fn declares(&self, name: &str) -> bool {
        match ops_of(name) {
            Some(ops) => ops.iter().all(|op| self.answers(op)),
            None => self.features.has(name),
        }
    }

    /// Whether a vector of `op` whose `features` are `conditions` runs on
    /// it (spec `protocol.features`): it answers `op`, and has each
    /// behaviour named and none named with a leading `!`. The op feature a
    /// vector names is its op's, which it answers; a name of neither kind
    /// is never declared.
    pub fn satisfies<S: AsRef<str>>(&self, op: &str, conditions: &[S]) -> bool {
        self.answers(op)
            && conditions
                .iter()
                .all(|condition| match condition.as_ref().strip_prefix('!') {
                    Some(absent) => {
                        Features::behaviour(absent).is_some() && !self.features.has(absent)
                    }
                    None => match ops_of(condition.as_ref()) {
                        Some(ops) => ops.contains(&op),
                        None => self.features.has(condition.as_ref()),
                    },
                })
    }

    /// Its names: the op features that name the ops it answers (the first
    /// that holds each, so every op once: `candidates` where it answers both
    /// candidate ops, `candidates-list` where only the listing), then the
    /// behaviours.
    pub fn names(&self) -> Vec<&'static str> {
        let mut named: Vec<&'static str> = Vec::new();
        let mut ops = Vec::new();
        for (feature, feature_ops) in OP_FEATURES {
            let whole = feature_ops.iter().all(|op| self.answers(op));
            if whole && !feature_ops.iter().all(|op| ops.contains(op)) {
                named.push(*feature);
                ops.extend(feature_ops.iter());
            }
        }
        named.extend(self.features.names());
        named
    }

    /// The release it is: the one it was made as, else the first with its
    /// behaviours that has every op it answers.
    pub fn release_name(&self) -> Option<&'static str> {
        self.release.or_else(|| {
            RELEASES
                .iter()
                .find(|release| {
                    let declared = Declared::release(release);
                    declared.features == self.features
                        && self.ops.iter().all(|op| declared.answers(op))
                })
                .map(|release| release.name)
        })
    }

    /// These ops and behaviours run as `release` (spec `runner.releases`):
    /// its behaviours in place of these, and of these ops those it has (all
    /// of its ops when none is declared).
    pub fn as_release(self, release: &Release) -> Declared {
        let of_release = Declared::release(release);
        let ops = if self.ops.is_empty() {
            of_release.ops
        } else {
            self.ops
                .into_iter()
                .filter(|op| of_release.answers(op))
                .collect()
        };
        Declared { ops, ..of_release }
    }
}

/// An upstream release, as the ops and the behaviours it has (spec
/// `runner.releases`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Release {
    /// Its name on the command line and in `describe`.
    pub name: &'static str,
    /// Its ops, as op features (`protocol.features`).
    pub ops: &'static [&'static str],
    /// Its behaviours.
    pub features: Features,
    /// How its set was established.
    pub how: &'static str,
}

/// Every op.
const EVERY_OP: &[&str] = &[
    "uri",
    "mention",
    "json",
    "retain",
    "prepare",
    "pre-step",
    "config",
    "candidates",
    "files",
];

/// The ops of the releases before 0.1.0-rc.8: no pre-step listener, so no
/// `pre-step`, and no Remote face, so `candidates/list` alone.
const BEFORE_RC8: &[&str] = &[
    "uri",
    "mention",
    "json",
    "retain",
    "prepare",
    "config",
    "candidates-list",
    "files",
];

/// A release before rc.8: rc.8's behaviours on [`BEFORE_RC8`]'s ops.
const fn before_rc8(name: &'static str, how: &'static str) -> Release {
    Release {
        name,
        ops: BEFORE_RC8,
        features: Features::RC8,
        how,
    }
}

/// A release of rc.8's ops and behaviours.
const fn as_rc8(name: &'static str, how: &'static str) -> Release {
    Release {
        name,
        ops: EVERY_OP,
        features: Features::RC8,
        how,
    }
}

/// Every release in upstream's history, oldest first (spec
/// `runner.releases`), and `newest`.
pub const RELEASES: &[Release] = &[
    before_rc8(
        "0.0.1-rc.1",
        "the npm package, read: no pre-step listener, no Remote face; URI, mentions, projection and retention run identical to rc.8's",
    ),
    before_rc8(
        "0.1.0-rc.1",
        "read: the package's source is rc.7's (index.ts blob 43bed83)",
    ),
    before_rc8(
        "0.1.0-rc.2",
        "read: the package's source is rc.7's (index.ts blob 43bed83)",
    ),
    before_rc8(
        "0.1.0-rc.3",
        "read: the package's source is rc.7's (index.ts blob 43bed83)",
    ),
    before_rc8(
        "0.1.0-rc.5",
        "read: the package's source is rc.7's (index.ts blob 43bed83)",
    ),
    before_rc8(
        "0.1.0-rc.6",
        "read: the package's source is rc.7's (index.ts blob 43bed83)",
    ),
    before_rc8(
        "0.1.0-rc.7",
        "its source at bb4ca698, built and run on rc.8's peers (shared/oracles/upstream-0.1.0-rc.7)",
    ),
    as_rc8(
        "0.1.0-rc.8",
        "the npm package, run (conformance/adapters/upstream-npm)",
    ),
    as_rc8(
        "0.1.1-rc.1",
        "read: the package's source and tests are rc.8's byte for byte, and so are the dependencies it uses",
    ),
    as_rc8(
        "0.1.1-rc.2",
        "read: the package's source and tests are rc.8's byte for byte, and so are the dependencies it uses",
    ),
    Release {
        name: "0.1.2-rc.1",
        ops: EVERY_OP,
        features: Features {
            same_workspace: true,
            seq_domain: true,
            ..Features::RC8
        },
        how: "a vendored bundle, run on rc.8's peers (shared/oracles/upstream-0.1.2-rc.1)",
    },
    Release {
        name: "newer-62dde13e",
        ops: EVERY_OP,
        features: Features {
            fraction_type: false,
            fuzzy: false,
            ..Features::NEWEST
        },
        how: "a fork's bundle (sha256 62dde13e…), run on rc.8's peers (shared/oracles/upstream-un-a)",
    },
    Release {
        name: "newest",
        ops: EVERY_OP,
        features: Features::NEWEST,
        how: "the newest documents, and the specification where they are silent (the emulation, conformance/adapters/upstream-next)",
    },
];

impl Release {
    /// How many ops it has.
    fn op_count(&self) -> usize {
        Declared::release(self).ops.len()
    }
}

/// The releases that differ in behaviour: of those with the same
/// behaviours, the first with the most ops (0.1.0-rc.8 stands for the
/// releases before it and for 0.1.1-rc.1 and rc.2, and runs every vector
/// they run). The reference runs the suite once in each.
pub fn distinct_releases() -> impl DoubleEndedIterator<Item = &'static Release> {
    let rank = |index: usize, release: &Release| (release.op_count(), std::cmp::Reverse(index));
    RELEASES
        .iter()
        .enumerate()
        .filter(move |&(index, release)| {
            RELEASES.iter().enumerate().all(|(other_index, other)| {
                other.features != release.features
                    || rank(other_index, other) <= rank(index, release)
            })
        })
        .map(|(_, release)| release)
}

/// The release named `name` (`rc8` is `0.1.0-rc.8`).
pub fn release(name: &str) -> Option<&'static Release> {
    let name = match name {
        "rc8" | "rc.8" => "0.1.0-rc.8",
        other => other,
    };
    RELEASES.iter().find(|release| release.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_vocabulary_means_what_it_meant() {
        let rc8 = Declared::from_names([
            "uri",
            "mention",
            "json",
            "retain",
            "prepare-v1",
            "pre-step-v1",
            "config-v1",
            "candidates-v1",
            "files",
        ]);
        assert_eq!(rc8.release_name(), Some("0.1.0-rc.8"));
        assert_eq!(rc8.ops, OPS);
        let newer = Declared::from_names([
            "uri",
            "mention",
            "json",
            "retain",
            "surface-v2",
            "prepare-v2",
            "pre-step-v2",
            "config-v2",
            "candidates-v2",
        ]);
        assert_eq!(newer.release_name(), Some("newer-62dde13e"));
        assert!(!newer.answers("files/list"));
        let newest = Declared::from_names([
            "prepare-v2",
            "candidates-v2",
            "candidates-fuzzy",
            "config-fraction-type",
        ]);
        assert_eq!(newest.release_name(), Some("newest"));
    }

    /// runner.releases: every release of upstream's history by name, each
    /// with rc.8's behaviours or a later set; the releases before rc.8 are
    /// rc.8 less `pre-step` and the Remote face, and the reference runs
    /// each distinct set of behaviours once, in the release with most ops.
    #[test]
    fn every_release_is_named_and_runs_once_per_behaviour_set() {
        let names: Vec<&str> = RELEASES.iter().map(|release| release.name).collect();
        assert_eq!(
            names,
            [
                "0.0.1-rc.1",
                "0.1.0-rc.1",
                "0.1.0-rc.2",
                "0.1.0-rc.3",
                "0.1.0-rc.5",
                "0.1.0-rc.6",
                "0.1.0-rc.7",
                "0.1.0-rc.8",
                "0.1.1-rc.1",
                "0.1.1-rc.2",
                "0.1.2-rc.1",
                "newer-62dde13e",
                "newest"
            ]
        );
        let rc8 = Declared::release(release("rc8").expect("rc.8"));
        for name in &names[..7] {
            let old = Declared::release(release(name).expect("listed"));
            assert_eq!(old.features, Features::RC8);
            let missing: Vec<&str> = rc8
                .ops
                .iter()
                .copied()
                .filter(|op| !old.answers(op))
                .collect();
            assert_eq!(missing, ["pre-step", "candidates/remote"], "{name}");
            assert_eq!(old.release_name(), Some(*name));
        }
        for name in ["0.1.1-rc.1", "0.1.1-rc.2"] {
            let same = Declared::release(release(name).expect("listed"));
            assert_eq!((same.ops, same.features), (rc8.ops.clone(), rc8.features));
        }
        let distinct: Vec<&str> = distinct_releases().map(|release| release.name).collect();
        assert_eq!(
            distinct,
            ["0.1.0-rc.8", "0.1.2-rc.1", "newer-62dde13e", "newest"]
        );
        // The reference's every-op declaration is named as rc.8, not as a
        // release of the same behaviours with fewer ops.
        assert_eq!(
            Declared::every_op(Features::RC8).release_name(),
            Some("0.1.0-rc.8")
        );
    }

    /// protocol.features: `candidates-list` is the listing without the
    /// Remote face; a vector names its op's feature, `candidates`, and runs
    /// where the op is answered.
    #[test]
    fn the_listing_alone_is_declarable() {
        let listing = Declared::from_names(["candidates-list"]);
        assert!(listing.answers("candidates/list") && !listing.answers("candidates/remote"));
        assert_eq!(listing.names(), ["candidates-list"]);
        assert!(listing.satisfies("candidates/list", &["candidates", "!display-title"]));
        assert!(!listing.satisfies("candidates/remote", &["candidates"]));
        assert!(!listing.declares("candidates") && listing.declares("candidates-list"));
        let both = Declared::from_names(["candidates-list", "candidates"]);
        assert_eq!(both.names(), ["candidates"]);
    }

    #[test]
    fn any_set_is_served_and_named_back() {
        let mixed =
            Declared::from_names(["candidates", "seq-domain", "same-workspace", "nonsense"]);
        assert_eq!(
            mixed.names(),
            ["candidates", "same-workspace", "seq-domain"]
        );
        assert_eq!(mixed.release_name(), Some("0.1.2-rc.1"));
        assert!(mixed.declares("same-workspace") && !mixed.declares("display-title"));
        for behaviour in BEHAVIOURS {
            assert!(Features::NEWEST.has(behaviour.name) && !Features::RC8.has(behaviour.name));
            assert!(Features::RC8.with(behaviour.name, true).has(behaviour.name));
        }
    }
}
