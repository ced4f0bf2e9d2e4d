//! The conformance runner: drives an implementation over the vectors and
//! compares each outcome exactly (spec `conformance.comparison`), then
//! reports the run ([`report`]).

pub mod adapter;
pub mod baseline;
pub mod causes;
pub mod compliance;
pub mod cost;
pub mod diff;
pub mod differential;
pub mod json_path;
pub mod members;
pub mod ops;
pub mod pace;
pub mod probes;
pub mod readings;
pub mod report;
pub mod rule_reach;
pub mod value_classes;
pub mod vectors;

use crate::features::{self, Declared, Features};
use crate::js::json::{self, Json};
use crate::protocol::wire::{Outcome, UNSUPPORTED};
use adapter::{Description, Implementation};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use vectors::{Expect, Suite, Vector};

pub use diff::first_difference;

/// How one vector went.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// The outcome equals the expectation.
    Passed,
    /// It did not: what was expected, what came, and why they differ.
    Failed(Box<FailureDetail>),
    /// Not run: the implementation declares none of the vector's features.
    SkippedFeature,
    /// Not run: the implementation lacks a capability the vector requires
    /// (spec `protocol.capabilities`).
    SkippedCapability,
    /// Not run: none of the vector's features was selected (`--features`).
    SkippedNotSelected,
    /// Run, but the implementation answered `UNSUPPORTED`.
    SkippedUnsupported,
    /// Not selected by the filter.
    SkippedFilter,
    /// A cost vector, run only with `--cost` (spec `runner.cost`).
    SkippedCost,
}

impl Status {
    /// Why a skipped vector was skipped, in words; `None` when it ran.
    pub fn skip_reason(&self) -> Option<&'static str> {
        match self {
            Status::Passed | Status::Failed(_) => None,
            Status::SkippedFeature => Some("feature not declared"),
            Status::SkippedCapability => Some("capability not declared"),
            Status::SkippedNotSelected => Some("feature not selected"),
            Status::SkippedUnsupported => Some("answered UNSUPPORTED"),
            Status::SkippedFilter => Some("not matched by the filter"),
            Status::SkippedCost => Some("cost vector (run with --cost)"),
        }
    }

    /// `actual` failing `vector`, before stderr or a profile is known.
    fn failed(vector: &Vector, actual: Result<Outcome, String>) -> Status {
        Status::Failed(Box::new(FailureDetail {
            expected: vector.expect.clone(),
            actual,
            profile: None,
            stderr: String::new(),
            input_bytes: json::stringify(&vector.input).len(),
            chain: None,
            conversation: None,
        }))
    }
}

/// What a failed vector expected and got (spec `runner.reports`).
#[derive(Clone, Debug, PartialEq)]
pub struct FailureDetail {
    /// The vector's expectation.
    pub expected: Expect,
    /// The implementation's outcome, or the protocol failure (crash, hang,
    /// garbage, wrong id) that took its place.
    pub actual: Result<Outcome, String>,
    /// The reference profile that failed, when the reference ran itself.
    pub profile: Option<&'static str>,
    /// What the implementation wrote to stderr while answering, bounded.
    pub stderr: String,
    /// The size of the vector's input as JSON text, to pick a cause's
    /// smallest example (spec `runner.causes`).
    pub input_bytes: usize,
    /// The failing probes down to the lowest op that answers wrong, when
    /// one does (spec `runner.probes`): the failure's cause is that op's.
    pub chain: Option<probes::Chain>,
    /// What probing told the failure's conversation apart as, when its
    /// conversation differs and it told (spec `runner.probes`).
    pub conversation: Option<causes::Cause>,
}

impl FailureDetail {
    /// `cause`, or what probing told it as when it is the conversation's.
    fn told(&self, cause: causes::Cause) -> causes::Cause {
        match &self.conversation {
            Some(told) if cause == causes::conversation_cause() => told.clone(),
            _ => cause,
        }
    }

    /// The failure's cause for a vector of `op`, and its other reading if
    /// it has one (spec `runner.causes`).
    pub fn causes(&self, op: &str) -> (causes::Cause, Option<causes::Cause>) {
        let expected = match &self.expected {
            Expect::Output(output) => causes::Side::Output(output),
            Expect::Error(code) => causes::Side::Error(code),
        };
        if let Some(chain) = &self.chain {
            return (chain.cause(), chain.alternative());
        }
        let actual = causes::Side::of(&self.actual, &self.stderr);
        let cause = match causes::cause(op, expected, actual) {
            Some((cause, _)) => self.told(cause),
            // A failure always differs somehow; one that compares equal
            // under the cause model (numbers spelled alike) is still one.
            None => causes::Cause {
                family: Some(ops::family(op)),
                edit: "outcome differs".to_owned(),
            },
        };
        (cause, causes::alternative(op, expected, actual))
    }

    /// Every cause the failure shows (spec `runner.causes`,
    /// `runner.probes`), the first being [`FailureDetail::causes`]'s: each
    /// region of a prepared message's output gives its own; when
    /// substitution explains the failure, the lower ops' causes and what
    /// the substituted run leaves instead.
    pub fn all_causes(&self, op: &str) -> Vec<causes::Cause> {
        if let Some(chain) = &self.chain {
            return chain.causes();
        }
        let expected = match &self.expected {
            Expect::Output(output) => causes::Side::Output(output),
            Expect::Error(code) => causes::Side::Error(code),
        };
        let (first, _) = self.causes(op);
        let mut all = vec![first];
        for cause in causes::every(op, expected, causes::Side::of(&self.actual, &self.stderr)) {
            let cause = self.told(cause);
            if !all.contains(&cause) {
                all.push(cause);
            }
        }
        all
    }

    /// Where the outputs first differ, when both sides are outputs.
    pub fn difference(&self) -> Option<diff::Difference> {
        match (&self.expected, &self.actual) {
            (Expect::Output(expected), Ok(Outcome::Output(actual))) => {
                first_difference(expected, actual)
            }
            _ => None,
        }
    }

    /// The explanation a person reads: both sides on one line each, every
    /// non-ASCII and invisible code unit escaped (error messages too), and
    /// the first difference.
    pub fn explanation(&self) -> String {
        let text = match (&self.expected, &self.actual) {
            (_, Err(problem)) => format!("protocol failure: {problem}"),
            (Expect::Output(expected), Ok(Outcome::Output(actual))) => {
                diff::explain(expected, actual)
            }
            (expected, Ok(actual)) => format!(
                "expected: {}\n  actual:   {}",
                show_expect(expected),
                diff::show_answer(Ok(actual), diff::Shown::Escaped)
            ),
        };
        let text = match &self.chain {
            Some(chain) => format!("{text}\n  probed: {}", chain.explain("it")),
            None => text,
        };
        match self.profile {
            Some(profile) => format!("[{profile} profile] {text}"),
            None => text,
        }
    }
}

/// A vector, where it came from, and how it went.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorResult {
    /// The vector id.
    pub id: String,
    /// The vector file it is in.
    pub file: PathBuf,
    /// Its op.
    pub op: String,
    /// The spec rules it tests.
    pub rules: Vec<String>,
    /// The features it runs under.
    pub features: Vec<String>,
    /// The capabilities it requires.
    pub requires: Vec<String>,
    /// What happened.
    pub status: Status,
    /// How long the implementation took to answer (zero when not run).
    pub duration: Duration,
    /// A cost vector's measurements (spec `runner.cost`), when it ran.
    pub cost: Option<cost::Growth>,
}

/// The results of one run, in suite order.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One entry per vector.
    pub results: Vec<VectorResult>,
    /// Requests sent for probes (spec `runner.probes`): none in a passing
    /// run, at most as many as the vectors run (or 64) in any.
    pub probes: usize,
    /// The vectors answered after the timeout, within the grace period
    /// (spec `runner.slow`): compared as usual, and named.
    pub slow: Vec<(String, adapter::Slow)>,
}

impl Report {
    /// Vectors that passed.
    pub fn passed(&self) -> usize {
        self.count(|status| matches!(status, Status::Passed))
    }

    /// Vectors that failed.
    pub fn failed(&self) -> usize {
        self.count(|status| matches!(status, Status::Failed(_)))
    }

    /// Vectors skipped for any reason.
    pub fn skipped(&self) -> usize {
        self.results.len() - self.passed() - self.failed()
    }

    /// Vectors with exactly this status.
    pub fn count_of(&self, status: &Status) -> usize {
        self.count(|other| other == status)
    }

    fn count(&self, pick: impl Fn(&Status) -> bool) -> usize {
        self.results
            .iter()
            .filter(|result| pick(&result.status))
            .count()
    }

    /// The failed vectors with their details, in suite order.
    pub fn failures(&self) -> impl Iterator<Item = (&VectorResult, &FailureDetail)> {
        self.results
            .iter()
            .filter_map(|result| match &result.status {
                Status::Failed(detail) => Some((result, detail.as_ref())),
                _ => None,
            })
    }

    /// `N passed, N failed, N skipped`.
    pub fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed(),
            self.failed(),
            self.skipped()
        )
    }
}

/// Which vectors a run covers: by id pattern and by feature.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Id patterns ([`matches_filter`]); empty selects every id.
    pub filters: Vec<String>,
    /// Features to run; `None` runs every feature the implementation
    /// declares.
    pub features: Option<Vec<String>>,
}

impl Selection {
    fn matches_id(&self, id: &str) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|f| matches_filter(f, id))
    }

    /// Whether `--feature` picks a vector of `op` with `features`: one of
    /// its features or its op's feature is selected.
    fn selects(&self, op: &str, vector_features: &[String]) -> bool {
        let Some(selected) = &self.features else {
            return true;
        };
        selected.iter().any(|name| {
            features::ops_of(name).is_some_and(|ops| ops.contains(&op))
                || vector_features.iter().any(|feature| feature == name)
        })
    }

    /// Whether `vector` runs on an implementation that `declared` says
    /// declares what it names, with `capabilities`, or why it is skipped
    /// (spec `protocol.features`, `protocol.capabilities`).
    fn gate(
        &self,
        vector: &Vector,
        declared: &dyn Fn(&Vector) -> bool,
        capabilities: &[String],
    ) -> Result<(), Status> {
        if !self.matches_id(&vector.id) {
            return Err(Status::SkippedFilter);
        }
        if !self.selects(&vector.op, &vector.features) {
            return Err(Status::SkippedNotSelected);
        }
        if !declared(vector) {
            return Err(Status::SkippedFeature);
        }
        if !vector.requires.iter().all(|c| capabilities.contains(c)) {
            return Err(Status::SkippedCapability);
        }
        Ok(())
    }
}

/// Matches `pattern` against a vector id; `*` stands for any run of
/// characters, and a pattern without `*` matches ids that contain it.
pub fn matches_filter(pattern: &str, id: &str) -> bool {
    if !pattern.contains('*') {
        return id.contains(pattern);
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !id.starts_with(first) || id.len() < first.len() + last.len() || !id.ends_with(last) {
        return false;
    }
    let mut rest = &id[first.len()..id.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Runs every vector of `suite` that `selection` picks on
/// `implementation`, whose `description` (declared features and
/// capabilities) gates the vectors.
pub fn run(
    suite: &Suite,
    implementation: &mut dyn Implementation,
    description: &Description,
    selection: &Selection,
    on_result: impl FnMut(&Vector, &VectorResult),
) -> Report {
    let read = description.declared();
    let declared = |vector: &Vector| read.satisfies(&vector.op, &vector.features);
    let mut prober = probes::Prober::new(description);
    let mut reference = adapter::BuiltIn(prober.features());
    // As many requests as the run sends for its vectors, and half of
    // their bytes: reckoned at the first failure, so that a passing run
    // pays nothing for it.
    let mut allowance = None;
    let mut reckon = || {
        let (vectors, bytes) = suite
            .vectors()
            .filter(|(_, vector)| {
                selection
                    .gate(vector, &declared, &description.capabilities)
                    .is_ok()
            })
            .fold((0, 0), |(vectors, bytes), (_, vector)| {
                (vectors + 1, bytes + json::stringify(&vector.input).len())
            });
        probes::Allowance::of_run(vectors, bytes)
    };
    let mut slow = Vec::new();
    let mut report = run_with(suite, on_result, |vector| {
        selection.gate(vector, &declared, &description.capabilities)?;
        let answer = implementation.call(&vector.op, &vector.input);
        if let Some(late) = implementation.take_slow() {
            slow.push((vector.id.clone(), late));
        }
        let hung = matches!(&answer, Err(problem) if adapter::is_hang(problem));
        let mut status = check(vector, answer);
        // spec runner.probes: what the implementation answers is learned
        // from, a passing answer of JSON too (its spacing of every gap).
        let expected = || match &vector.expect {
            Expect::Output(output) => Outcome::Output(output.clone()),
            Expect::Error(code) => Outcome::Error {
                code: code.clone(),
                message: String::new(),
            },
        };
        match &status {
            Status::Failed(detail) => prober.observe(&vector.op, &expected(), &detail.actual),
            Status::Passed if vector.op == "json/tag-safe" => {
                prober.observe(&vector.op, &expected(), &Ok(expected()));
            }
            _ => {}
        }
        if let Status::Failed(detail) = &mut status {
            detail.stderr = implementation.take_stderr();
            if hung {
                // A hang is not probed: every probe would wait again.
                return Ok(status);
            }
            // spec runner.probes: a failure is traced to the lowest op that
            // already answers wrong, within the run's allowance.
            let own = detail.all_causes(&vector.op);
            let conversation = causes::conversation_cause();
            let shows_conversation = own.contains(&conversation);
            let failure = probes::Failure {
                op: &vector.op,
                input: &vector.input,
                answer: &detail.actual,
                stderr: &detail.stderr,
            };
            let allowance = *allowance.get_or_insert_with(&mut reckon);
            let chain =
                prober.attribute_within(&mut reference, implementation, failure, own, allowance);
            detail.chain = chain;
            if shows_conversation {
                let told = prober.tell_answered(
                    &vector.op,
                    &vector.input,
                    conversation.clone(),
                    &detail.actual,
                );
                detail.conversation = (told != conversation).then_some(told);
            }
        }
        Ok(status)
    });
    report.probes = prober.sent();
    report.slow = slow;
    report
}

/// [`run`] for the reference in every release ([`check_reference`]).
pub fn run_reference(
    suite: &Suite,
    selection: &Selection,
    on_result: impl FnMut(&Vector, &VectorResult),
) -> Report {
    let capabilities = adapter::reference_capabilities();
    run_with(suite, on_result, |vector| {
        selection.gate(
            vector,
            &|vector| features::op_feature(&vector.op).is_some(),
            &capabilities,
        )?;
        Ok(check_reference_selected(vector, selection))
    })
}

/// The run loop: decide each vector's status with `status_of` (`Err` for a
/// vector not run), time it, report it as it completes.
fn run_with(
    suite: &Suite,
    mut on_result: impl FnMut(&Vector, &VectorResult),
    mut status_of: impl FnMut(&Vector) -> Result<Status, Status>,
) -> Report {
    let mut report = Report::default();
    for (file, vector) in suite.vectors() {
        let started = Instant::now();
        let (status, duration) = match status_of(vector) {
            Ok(status) => (status, started.elapsed()),
            Err(skipped) => (skipped, Duration::ZERO),
        };
        let result = VectorResult {
            id: vector.id.clone(),
            file: file.path.clone(),
            op: vector.op.clone(),
            rules: vector.rules.clone(),
            features: vector.features.clone(),
            requires: vector.requires.clone(),
            status,
            duration,
            cost: None,
        };
        on_result(vector, &result);
        report.results.push(result);
    }
    report
}

/// The results of `suite`'s cost vectors that `selection` picks (spec
/// `runner.cost`): measured on `implementation` when given (`--cost`),
/// skipped as cost vectors otherwise. `description` gates them by feature.
pub fn run_cost(
    suite: &Suite,
    mut implementation: Option<&mut dyn Implementation>,
    description: &Description,
    selection: &Selection,
    mut on_result: impl FnMut(&VectorResult),
) -> Vec<VectorResult> {
    let mut results = Vec::new();
    for (file, vector) in suite.cost_vectors() {
        let started = Instant::now();
        let mut growth = None;
        let status = if !selection.matches_id(&vector.id) {
            Status::SkippedFilter
        } else if !selection.selects(&vector.op, &vector.features) {
            Status::SkippedNotSelected
        } else if !vector.declared_by(description) {
            Status::SkippedFeature
        } else {
            match implementation.as_deref_mut() {
                None => Status::SkippedCost,
                Some(implementation) => {
                    let input_bytes = json::stringify(&vector.input(vector.start)).len();
                    let measured = cost::measure(implementation, vector);
                    let stderr = implementation.take_stderr();
                    let failed = |actual| {
                        Status::Failed(Box::new(FailureDetail {
                            expected: Expect::Output(Json::str(&format!(
                                "time growing at most as n^{} (spec {})",
                                cost::LIMIT,
                                vector.rules.join(", ")
                            ))),
                            actual,
                            profile: None,
                            stderr,
                            input_bytes,
                            chain: None,
                            conversation: None,
                        }))
                    };
                    match measured {
                        cost::Measured::Unsupported => Status::SkippedUnsupported,
                        cost::Measured::Broken(problem) => failed(Err(problem)),
                        cost::Measured::Growth(measured) => {
                            let status = if measured.exceeds() {
                                failed(Ok(Outcome::Output(Json::str(&measured.describe()))))
                            } else {
                                Status::Passed
                            };
                            growth = Some(measured);
                            status
                        }
                    }
                }
            }
        };
        let ran = matches!(status, Status::Passed | Status::Failed(_));
        let result = VectorResult {
            id: vector.id.clone(),
            file: file.path.clone(),
            op: vector.op.clone(),
            rules: vector.rules.clone(),
            features: vector.features.clone(),
            requires: Vec::new(),
            status,
            duration: if ran {
                started.elapsed()
            } else {
                Duration::ZERO
            },
            cost: growth,
        };
        on_result(&result);
        results.push(result);
    }
    results
}

/// Runs one vector on the reference in every release whose behaviours it
/// runs on, or, when none does, with the behaviours it names: the
/// reference has every set, so every vector of the suite runs on it.
/// Passes when every such run passes.
pub fn check_reference(vector: &Vector) -> Status {
    check_reference_selected(vector, &Selection::default())
}

/// The reference's profiles `vector` runs on: each release whose
/// behaviours satisfy its features, or else the behaviours it names.
pub fn reference_profiles(vector: &Vector) -> Vec<(&'static str, Features)> {
    let releases: Vec<(&'static str, Features)> = features::distinct_releases()
        .filter(|release| Declared::release(release).satisfies(&vector.op, &vector.features))
        .map(|release| (release.name, release.features))
        .collect();
    if !releases.is_empty() {
        return releases;
    }
    let named = vector
        .features
        .iter()
        .fold(Features::RC8, |features, name| features.with(name, true));
    vec![("its features", named)]
}

fn check_reference_selected(vector: &Vector, selection: &Selection) -> Status {
    if !selection.selects(&vector.op, &vector.features) {
        return Status::SkippedNotSelected;
    }
    let mut status = Status::SkippedFeature;
    for (profile, features) in reference_profiles(vector) {
        match check(
            vector,
            adapter::BuiltIn(features).call(&vector.op, &vector.input),
        ) {
            Status::Failed(mut detail) => {
                detail.profile = Some(profile);
                return Status::Failed(detail);
            }
            Status::Passed if status == Status::SkippedFeature => status = Status::Passed,
            Status::Passed => {}
            other => status = other,
        }
    }
    status
}

/// Compares one answer with a vector's expectation.
pub fn check(vector: &Vector, answer: Result<Outcome, String>) -> Status {
    let passed = match (&vector.expect, &answer) {
        (_, Ok(Outcome::Error { code, .. })) if code == UNSUPPORTED => {
            return Status::SkippedUnsupported
        }
        (Expect::Output(expected), Ok(Outcome::Output(actual))) => {
            first_difference(expected, actual).is_none()
        }
        (Expect::Error(expected), Ok(Outcome::Error { code, .. })) => expected == code,
        _ => false,
    };
    if passed {
        Status::Passed
    } else {
        Status::failed(vector, answer)
    }
}

fn show_expect(expect: &Expect) -> String {
    match expect {
        Expect::Output(output) => format!("output {}", diff::show(output)),
        Expect::Error(code) => format!("error {code}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::Json;
    use crate::js::JsString;

    fn vector(expect: Expect) -> Vector {
        Vector {
            id: "uri.encode.example".to_owned(),
            rules: vec!["uri.encode.form".to_owned()],
            description: "example".to_owned(),
            op: "uri/encode".to_owned(),
            features: vec!["uri".to_owned()],
            requires: Vec::new(),
            input: Json::object([("sessionId", Json::str("abc"))]),
            expect,
            sides: Vec::new(),
        }
    }

    fn described(features: &[&str]) -> Description {
        Description {
            name: "test".to_owned(),
            version: "0".to_owned(),
            features: features.iter().map(|f| (*f).to_owned()).collect(),
            release: None,
            capabilities: Vec::new(),
        }
    }

    #[test]
    fn filters_match_substrings_and_wildcards() {
        assert!(matches_filter("decode", "uri.decode.ascii"));
        assert!(matches_filter("uri.*.ascii", "uri.decode.ascii"));
        assert!(matches_filter("*ascii", "uri.decode.ascii"));
        assert!(!matches_filter("mention.*", "uri.decode.ascii"));
        assert!(!matches_filter("uri.*.x*y", "uri.decode.ascii"));
    }

    #[test]
    fn member_order_is_part_of_the_output() {
        let expected = Json::object([("a", Json::Null), ("b", Json::Null)]);
        let actual = Json::object([("b", Json::Null), ("a", Json::Null)]);
        let status = check(
            &vector(Expect::Output(expected)),
            Ok(Outcome::Output(actual)),
        );
        let Status::Failed(detail) = status else {
            panic!("reordered members passed");
        };
        let detail = detail.explanation();
        assert!(
            detail.contains("member 0 is \"a\" expected, \"b\" found"),
            "{detail}"
        );
    }

    #[test]
    fn strings_are_compared_by_code_unit_and_shown_escaped() {
        // runner.diff: both outcomes escaped, the first differing code unit
        let expected = Json::String(JsString::from_units(vec![0x61, 0xD800]));
        let actual = Json::String(JsString::from_units(vec![0x61, 0xFFFD]));
        let Status::Failed(detail) = check(
            &vector(Expect::Output(expected)),
            Ok(Outcome::Output(actual)),
        ) else {
            panic!("U+FFFD passed for a lone surrogate");
        };
        let detail = detail.explanation();
        assert!(
            detail.contains("\"a\\ud800\"") && detail.contains("code unit 1"),
            "{detail}"
        );
    }

    #[test]
    fn error_codes_protocol_failures_and_unsupported() {
        // runner.protocol-failure: a failure to answer fails the vector
        let code = "SESSION_REFERENCE_INVALID_REFERENCE";
        let error = |code: &str| {
            Ok(Outcome::Error {
                code: code.to_owned(),
                message: String::new(),
            })
        };
        assert_eq!(
            check(&vector(Expect::Error(code.to_owned())), error(code)),
            Status::Passed
        );
        assert!(matches!(
            check(&vector(Expect::Error(code.to_owned())), error("INTERNAL")),
            Status::Failed(_)
        ));
        assert!(matches!(
            check(&vector(Expect::Error(code.to_owned())), Err("hung".into())),
            Status::Failed(_)
        ));
        assert_eq!(
            check(&vector(Expect::Error(code.to_owned())), error(UNSUPPORTED)),
            Status::SkippedUnsupported
        );
    }

    #[test]
    fn undeclared_features_and_filters_skip() {
        // runner.selection
        let suite = Suite::for_tests(vec![vector(Expect::Output(Json::str(
            "dsh-session:ImFiYyI",
        )))]);
        let mut reference = adapter::BuiltIn(Features::NEWEST);
        let none = run(
            &suite,
            &mut reference,
            &described(&["mention"]),
            &Selection::default(),
            |_, _| {},
        );
        assert_eq!(none.results[0].status, Status::SkippedFeature);
        let unselected = run(
            &suite,
            &mut reference,
            &described(&["uri"]),
            &Selection {
                filters: Vec::new(),
                features: Some(vec!["mention".to_owned()]),
            },
            |_, _| {},
        );
        assert_eq!(unselected.results[0].status, Status::SkippedNotSelected);
        let filtered = run(
            &suite,
            &mut reference,
            &described(&["uri"]),
            &Selection {
                filters: vec!["mention".to_owned()],
                features: None,
            },
            |_, _| {},
        );
        assert_eq!(filtered.results[0].status, Status::SkippedFilter);
        let ran = run(
            &suite,
            &mut reference,
            &described(&["uri"]),
            &Selection::default(),
            |_, _| {},
        );
        assert_eq!(ran.summary(), "1 passed, 0 failed, 0 skipped");
    }
}
