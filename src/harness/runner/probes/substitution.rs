//! Attribution by substitution (spec `runner.probes`, ours): a lower op's
//! wrong answer explains a failure only when it reproduces it. Each op the
//! runner probes is, in the reference, a composition of its lower ops
//! (`mention/format` writes what `uri/encode` answers, `retain` measures
//! with `json/tag-safe`, `prepare` writes what `retain` keeps, …);
//! [`compose`] is that composition with every lower op's answer taken from
//! a function. Given the reference's lower answers it is the reference's own
//! answer (a test holds it to every vector); given an implementation's
//! answers in place of some op's, it is the *substituted run*: what the
//! reference would have answered with that implementation's lower layer.
//! What the substituted run reproduces of a failure, the lower op explains;
//! what it does not keeps its own cause.
//!
//! An edge with no composition here (`mention/parse` to `mention/format`:
//! parsing does not format) substitutes nothing, so it attributes nothing.

use super::questions::{
    agrees, config_probe, format_probe, mention_label, pre_step_preparations, prepare_probes,
    prompt_data, reference_answer, remote_listing, retain_question, spelled_id, Answers, Probe,
    UNBOUNDED,
};
use crate::checks::retention_model::{self, ProjectedItem};
use crate::features::Features;
use crate::harness::runner::members::without;
use crate::js::json::Json;
use crate::js::JsString;
use crate::mention;
use crate::projection::{self, Role};
use crate::protocol::dispatch;
use crate::protocol::wire::Outcome;
use crate::surface::Snapshot;
use crate::tag_safe::stringify_tag_safe;
use crate::{Error, ErrorCode};

/// A lower op's answer to a question, as the substituted run takes it (an
/// implementation's for the substituted ops, the reference's composition
/// for the others); `None` when it cannot be had (the probe allowance is
/// spent, the answer is no answer).
pub type Lower<'a> = dyn FnMut(&Probe) -> Option<Composed> + 'a;

/// The most projected items a substituted `retain` runs the retention
/// model over: it re-measures the whole data at every step it considers.
const MODELLED_ITEMS: usize = 4096;

/// What a composition answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Composed {
    /// This answer.
    Answer(Outcome),
    /// Not the reference's error: the lower answer it came from is no
    /// error, and what the op would answer past it is not composed.
    Unraised,
}

/// The reference's answer to `op` with `input`, whose own answer is `own`,
/// composed of the answers `lower` gives to its lower ops' questions (spec
/// `runner.probes`); `None` when the op, or this input of it, has no
/// composition, or a lower answer could not be had.
pub fn compose(
    features: Features,
    op: &str,
    input: &Json,
    own: &Outcome,
    lower: &mut Lower,
) -> Option<Composed> {
    if let Outcome::Error { code, .. } = own {
        if let Some(below) = raised_below(features, op, input, code, lower) {
            return below.map(|below| below.unwrap_or_else(|| Composed::Answer(own.clone())));
        }
    }
    let mut answers = |probe: &Probe| answer_of(lower, probe);
    let lower: &mut Answers = &mut answers;
    let answer = match op {
        "uri/decode" => decode(input, own, lower),
        "mention/format" => format(input, own, lower),
        "mention/parse" => parse(input, own, lower),
        "retain" => retain(features, input, own, lower),
        "prepare" => prepare(features, input, own, lower),
        "pre-step" => pre_step(features, input, own, lower),
        "candidates/list" => configured(features, input, own, lower),
        "candidates/remote" => remote(features, input, own, lower),
        _ => None,
    };
    answer.map(Composed::Answer)
}

/// `lower`'s answer to `probe` where only an answer will do.
fn answer_of(lower: &mut Lower, probe: &Probe) -> Option<Outcome> {
    match lower(probe)? {
        Composed::Answer(answer) => Some(answer),
        Composed::Unraised => None,
    }
}

/// Whether a lower answer raises the error of a code.
type Raises = fn(&Outcome, &str) -> bool;

/// Whether `answer` is the error `code`.
fn is_error(answer: &Outcome, code: &str) -> bool {
    matches!(answer, Outcome::Error { code: raised, .. } if raised == code)
}

/// When the reference's error `code` comes from a lower op (a parse that
/// fails, or the first
/// `prepare` of a pre-step that fails with it; the first source of a
/// preparation that cannot fit its budget): what the composition answers
/// with `lower`'s answer to that question (`Some(Some(None))` when the
/// same error), `Some(None)` when that answer cannot be had, `None` when
/// the error comes from no lower op.
fn raised_below(
    features: Features,
    op: &str,
    input: &Json,
    code: &str,
    lower: &mut Lower,
) -> Option<Option<Option<Composed>>> {
    let (questions, raised): (Vec<Probe>, Raises) = match op {
        "pre-step" => {
            let mut reference =
                |probe: &Probe| Some(dispatch::handle_in(features, probe.op, &probe.input));
            let ours = pre_step_preparations(input, &mut reference)?;
            let mut answers = |probe: &Probe| answer_of(lower, probe);
            // A mention that does not parse fails a pre-step first
            // (spec pre-step.errors).
            let parsed = match pre_step_preparations(input, &mut answers) {
                None => return Some(None),
                Some(Err(failed)) if is_error(&failed, code) => return Some(Some(None)),
                Some(Err(failed)) => return Some(Some(Some(Composed::Answer(failed)))),
                Some(Ok(_)) => ours.ok(),
            };
            let Some(questions) = parsed else {
                return Some(Some(Some(Composed::Unraised)));
            };
            (questions, is_error)
        }
        "prepare" if code == ErrorCode::BudgetExceeded.as_str() => {
            let questions = prepare_probes(features, input, None)
                .into_iter()
                .filter(|probe| probe.op == "retain")
                .collect();
            (questions, |answer, _| {
                answer == &Outcome::Output(Json::Null)
            })
        }
        _ => return None,
    };
    let source = questions.into_iter().find(|question| {
        raised(
            &reference_answer(features, question.op, &question.input),
            code,
        )
    })?;
    Some(match lower(&source) {
        None => None,
        Some(Composed::Unraised) => Some(Some(Composed::Unraised)),
        Some(Composed::Answer(answer)) if raised(&answer, code) => Some(None),
        Some(Composed::Answer(error @ Outcome::Error { .. })) => {
            Some(Some(Composed::Answer(error)))
        }
        Some(Composed::Answer(_)) => Some(Some(Composed::Unraised)),
    })
}

/// `uri/decode`: the id the URI spells, when `uri/encode` of that id is
/// the URI (spec `uri.decode.canonical`); what that encoding throws, it
/// throws.
fn decode(input: &Json, own: &Outcome, lower: &mut Answers) -> Option<Outcome> {
    let Some(uri) = input.get("uri").and_then(Json::as_js_str) else {
        return Some(own.clone());
    };
    let Some(id) = spelled_id(uri.units()) else {
        return Some(own.clone());
    };
    let encoded = lower(&Probe::new(
        "uri/encode",
        [("sessionId", Json::String(id.clone()))],
    ))?;
    Some(match encoded {
        Outcome::Output(Json::String(canonical)) if canonical.units() == uri.units() => {
            Outcome::Output(Json::String(id))
        }
        Outcome::Error { .. } => encoded,
        Outcome::Output(_) => Outcome::from(Error::new(
            ErrorCode::InvalidReference,
            "URI is not canonical",
        )),
    })
}

/// `mention/format`: the mention ends with `(` + `uri/encode`'s answer +
/// `)` (spec `mention.format.form`).
fn format(input: &Json, own: &Outcome, lower: &mut Answers) -> Option<Outcome> {
    let (Some(id), Outcome::Output(Json::String(mention))) = (input.get("sessionId"), own) else {
        return Some(own.clone());
    };
    let ours: Vec<u16> = format!("{})", crate::uri::encode_value(id))
        .encode_utf16()
        .collect();
    let encoded = lower(&Probe::new("uri/encode", [("sessionId", id.clone())]))?;
    let Outcome::Output(Json::String(theirs)) = encoded else {
        return matches!(encoded, Outcome::Error { .. }).then_some(encoded);
    };
    let head = mention.units().strip_suffix(&ours[..])?;
    let mut units = head.to_vec();
    units.extend_from_slice(theirs.units());
    units.push(u16::from(b')'));
    Some(Outcome::Output(Json::String(JsString::from_units(units))))
}

/// Why a composition stopped inside the mention scanner.
enum ScanStopped {
    /// A lower answer was an error: the composition answers it.
    Failed(Outcome),
    /// A lower answer could not be had.
    Unknown,
}

/// `mention/parse`: the scan of the reference, each matched URI decoded
/// by `uri/decode` (spec `mention.parse.all-or-nothing`).
fn parse(input: &Json, own: &Outcome, lower: &mut Answers) -> Option<Outcome> {
    let Some(text) = input.get("text").and_then(Json::as_js_str) else {
        return Some(own.clone());
    };
    let parsed = mention::parse_with(text.units(), |uri, slot| {
        let probe = Probe::new(
            "uri/decode",
            [("uri", Json::String(JsString::from_units(uri.to_vec())))],
        );
        match lower(&probe) {
            Some(Outcome::Output(Json::String(id))) => {
                *slot = id;
                Ok(())
            }
            Some(error @ Outcome::Error { .. }) => Err(ScanStopped::Failed(error)),
            _ => Err(ScanStopped::Unknown),
        }
    });
    match parsed {
        Ok(parsed) => Some(Outcome::Output(dispatch::parsed_json(parsed))),
        Err(ScanStopped::Failed(error)) => Some(error),
        Err(ScanStopped::Unknown) => None,
    }
}

/// `retain`: upstream's retention loop (the retention model) over the
/// projection `retain` with an unbounded budget answers, measuring each
/// data object by the byte length of its `json/tag-safe` (spec
/// `retention.size`, `retention.drop`, `retention.truncate`).
fn retain(features: Features, input: &Json, own: &Outcome, lower: &mut Answers) -> Option<Outcome> {
    let (Outcome::Output(_), Some(Json::Number(max_bytes))) = (own, input.get("maxBytes")) else {
        return Some(own.clone());
    };
    if *max_bytes >= UNBOUNDED {
        return Some(own.clone());
    }
    let snapshot_json = input.get("snapshot")?;
    let snapshot = Snapshot::from_json_in(snapshot_json, features).ok()?;
    let ours: Vec<ProjectedItem> = projection::project(&snapshot)
        .into_iter()
        .map(|item| (item.role, item.checkpoint, item.text.to_vec()))
        .collect();
    let whole = match lower(&retain_question(
        snapshot_json,
        input.get("label"),
        UNBOUNDED,
    ))? {
        Outcome::Output(whole) => whole,
        failed => return Some(failed),
    };
    let data = whole.get("data")?;
    let fixed = without(data, &["conversation"]);
    let conversation = data.get("conversation")?.as_array()?;
    if ours.len() > MODELLED_ITEMS {
        return None;
    }
    let items = checkpointed(conversation, &ours)?;
    let mut measure =
        |data: &Json| match lower(&Probe::new("json/tag-safe", [("value", data.clone())])) {
            Some(Outcome::Output(Json::String(text))) => {
                Some(retention_model::byte_length(text.units()))
            }
            _ => None,
        };
    // Whether anything is compacted is the projection's, as it says it.
    let compacted = match whole.get("stats").and_then(|stats| stats.get("compacted")) {
        Some(Json::Bool(compacted)) => Some(*compacted),
        _ => None,
    };
    let retained =
        retention_model::retain_measured(fixed, items, *max_bytes as usize, &mut measure)?;
    Some(Outcome::Output(match retained {
        None => Json::Null,
        Some((data, mut stats)) => {
            stats.compacted = compacted.unwrap_or(stats.compacted);
            Json::object([("data", data), ("stats", Json::Object(stats.members()))])
        }
    }))
}

/// The items of a substituted projection's `conversation`, each a
/// checkpoint when the reference's item in its place (of `ours`) is one:
/// by index when both project as many items, else the reference's next
/// item of the same role and text (a projection that leaves items out
/// keeps the others' flags); an item the reference does not project is
/// none.
fn checkpointed(conversation: &[Json], ours: &[ProjectedItem]) -> Option<Vec<ProjectedItem>> {
    let mut next = 0;
    conversation
        .iter()
        .map(|item| {
            let role = match item.get("role")?.as_js_str()? {
                role if role.is("user") => Role::User,
                role if role.is("assistant") => Role::Assistant,
                _ => return None,
            };
            let text = item.get("text")?.as_js_str()?.units().to_vec();
            // As many items as the reference projects: the same places.
            let found = if conversation.len() == ours.len() {
                Some(0)
            } else {
                ours[next..]
                    .iter()
                    .position(|(known, _, known_text)| *known == role && *known_text == text)
            };
            let checkpoint = match found {
                Some(offset) => {
                    next += offset + 1;
                    ours[next - 1].1
                }
                None => false,
            };
            Some((role, checkpoint, text))
        })
        .collect()
}

/// What a configuration-reading op answers when `config/check` reads its
/// configuration: `Some(error)` when the substituted reading refuses a
/// configuration the reference accepts, `Some(None)` when they accept
/// alike, `None` when it accepts one the reference refuses (there is no
/// reading to go on).
fn configuration(features: Features, input: &Json, lower: &mut Answers) -> Option<Option<Outcome>> {
    let Some(probe) = config_probe(input) else {
        return Some(None);
    };
    let ours = dispatch::handle_in(features, probe.op, &probe.input);
    match (ours, lower(&probe)?) {
        (Outcome::Output(_), refused @ Outcome::Error { .. }) => Some(Some(refused)),
        (Outcome::Error { .. }, Outcome::Output(_)) => None,
        _ => Some(None),
    }
}

/// `candidates/list`: its configuration read by `config/check`.
fn configured(
    features: Features,
    input: &Json,
    own: &Outcome,
    lower: &mut Answers,
) -> Option<Outcome> {
    Some(configuration(features, input, lower)?.unwrap_or_else(|| own.clone()))
}

/// `candidates/remote`: each candidate `candidates/list` answers (of its
/// input without `limit`), with the
/// mention `mention/format` writes of its id and label last (spec
/// `candidates.remote`).
fn remote(features: Features, input: &Json, own: &Outcome, lower: &mut Answers) -> Option<Outcome> {
    if let Some(refused) = configuration(features, input, lower)? {
        return Some(refused);
    }
    if !matches!(own, Outcome::Output(_)) {
        return Some(own.clone());
    }
    let listed = match lower(&remote_listing(input))? {
        Outcome::Output(Json::Array(listed)) => listed,
        Outcome::Output(_) => return None,
        failed => return Some(failed),
    };
    let mut candidates = Vec::with_capacity(listed.len());
    for candidate in listed {
        let Json::Object(mut members) = candidate else {
            return None;
        };
        // A candidate without the members its mention is formatted of (a
        // port that names them otherwise) cannot be composed.
        let label = mention_label(features);
        if !["sessionId", label]
            .iter()
            .all(|name| members.iter().any(|(member, _)| member.is(name)))
        {
            return None;
        }
        let mention = match lower(&format_probe(
            &Json::Object(members.clone()),
            "sessionId",
            label,
        ))? {
            Outcome::Output(mention) => mention,
            failed => return Some(failed),
        };
        members.push((JsString::from("mention"), mention));
        candidates.push(Json::Object(members));
    }
    Some(Outcome::Output(Json::Array(candidates)))
}

/// `prepare`: its configuration read by `config/check`, each source's
/// data and stats as `retain` answers them, the prompt's data written by
/// `json/tag-safe` (spec `prepare.render`).
fn prepare(
    features: Features,
    input: &Json,
    own: &Outcome,
    lower: &mut Answers,
) -> Option<Outcome> {
    if let Some(refused) = configuration(features, input, lower)? {
        return Some(refused);
    }
    let Outcome::Output(output) = own else {
        return Some(own.clone());
    };
    let context = output.get("additionalContext");
    let Some(data) = context.and_then(prompt_data) else {
        return Some(own.clone());
    };
    let mut substituted = output.clone();
    let mut substituted_data = data.clone();
    let sources = prepare_probes(features, input, Some(output));
    let splices = match splices(features, &sources, lower)? {
        Ok(splices) => splices,
        Err(answered) => return Some(answered),
    };
    // Spliced last first, so that a record already spliced moves none
    // before it.
    for (occurrence, (our_data, our_stats), (their_data, their_stats)) in splices.into_iter().rev()
    {
        substituted_data = replace_value(&substituted_data, &our_data, &their_data)?;
        substituted = replace_members(&substituted, &our_stats, &their_stats, occurrence)?;
    }
    let written = match lower(&Probe::new("json/tag-safe", [("value", substituted_data)]))? {
        Outcome::Output(Json::String(written)) => written,
        Outcome::Output(_) => return None,
        failed => return Some(failed),
    };
    let ours = JsString::from(stringify_tag_safe(&data).as_str());
    Some(Outcome::Output(replace_in_strings(
        &substituted,
        ours.units(),
        written.units(),
    )?))
}

/// A source's data and retention stats.
type Retained = (Json, Vec<(JsString, Json)>);

/// A source whose retention differs: the how-many-th record with its
/// stats it is, the reference's data and stats, and the implementation's.
type Splice = (usize, Retained, Retained);

/// Where the retention of each source of a preparation differs from the
/// reference's (the `retain` questions of `sources`), each found as the
/// how-many-th record with its stats (sources of the same stats are
/// recorded in their order); `Err` with what the preparation answers when
/// a source's retention decides it.
fn splices(
    features: Features,
    sources: &[Probe],
    lower: &mut Answers,
) -> Option<Result<Vec<Splice>, Outcome>> {
    let mut stats_seen: Vec<Vec<(JsString, Json)>> = Vec::new();
    let mut splices = Vec::new();
    for probe in sources.iter().filter(|probe| probe.op == "retain") {
        let ours = reference_answer(features, probe.op, &probe.input);
        let theirs = lower(probe)?;
        let our_stats = match &ours {
            Outcome::Output(retained) => retained.get("stats").and_then(Json::as_object),
            Outcome::Error { .. } => None,
        };
        let occurrence = our_stats.map_or(0, |stats| {
            stats_seen
                .iter()
                .filter(|seen| seen.as_slice() == stats)
                .count()
        });
        if let Some(stats) = our_stats {
            stats_seen.push(stats.to_vec());
        }
        if agrees(&ours, &Ok(theirs.clone())) {
            continue;
        }
        if theirs == Outcome::Output(Json::Null) {
            // A source that cannot fit fails the preparation.
            return Some(Err(Outcome::from(Error::new(
                ErrorCode::BudgetExceeded,
                "referenced session snapshot cannot fit the configured byte budget",
            ))));
        }
        if let Outcome::Error { .. } = theirs {
            // What a source's retention throws, the preparation throws.
            return Some(Err(theirs));
        }
        let (Outcome::Output(ours), Outcome::Output(theirs)) = (ours, theirs) else {
            return None;
        };
        let parts = |retained: &Json| {
            let stats = retained.get("stats")?.as_object()?.to_vec();
            Some((retained.get("data")?.clone(), stats))
        };
        splices.push((occurrence, parts(&ours)?, parts(&theirs)?));
    }
    Some(Ok(splices))
}

/// `pre-step`: each direct user message parsed by `mention/parse`, and
/// prepared by `prepare` from what it parsed; the prepared content and
/// context take the places of the reference's (spec `pre-step.messages`).
fn pre_step(
    features: Features,
    input: &Json,
    own: &Outcome,
    lower: &mut Answers,
) -> Option<Outcome> {
    let Outcome::Output(output) = own else {
        return Some(own.clone());
    };
    let mut reference = |probe: &Probe| Some(dispatch::handle_in(features, probe.op, &probe.input));
    let ours = pre_step_preparations(input, &mut reference)?.ok()?;
    let theirs = match pre_step_preparations(input, lower)? {
        Ok(theirs) => theirs,
        Err(failed) => return Some(failed),
    };
    if ours.len() != theirs.len() {
        return None;
    }
    let mut substituted = output.clone();
    for (our_probe, their_probe) in ours.iter().zip(&theirs) {
        let ours = dispatch::handle_in(features, our_probe.op, &our_probe.input);
        let theirs = lower(their_probe)?;
        if agrees(&ours, &Ok(theirs.clone())) {
            continue;
        }
        let (Outcome::Output(ours), Outcome::Output(theirs)) = (&ours, &theirs) else {
            return matches!(theirs, Outcome::Error { .. }).then_some(theirs);
        };
        for part in ["content", "additionalContext"] {
            substituted = replace_value(&substituted, ours.get(part)?, theirs.get(part)?)?;
        }
    }
    Some(Outcome::Output(substituted))
}

/// `target` with the first value equal to `from`, in document order,
/// replaced by `to`; `None` when there is none (the value is not where the
/// composition put it). Each source is replaced in its order, so that two
/// alike are each replaced once.
fn replace_value(target: &Json, from: &Json, to: &Json) -> Option<Json> {
    fn walk(value: &Json, from: &Json, to: &Json, found: &mut bool) -> Json {
        if *found {
            return value.clone();
        }
        if value == from {
            *found = true;
            return to.clone();
        }
        each_child(value, |child| walk(child, from, to, found))
    }
    if from == to {
        return Some(target.clone());
    }
    let mut found = false;
    let replaced = walk(target, from, to, &mut found);
    found.then_some(replaced)
}

/// `target` with the run of members equal to `from` that is the
/// `occurrence`-th (from 0) in document order replaced by `to`; `None`
/// when there is none.
fn replace_members(
    target: &Json,
    from: &[(JsString, Json)],
    to: &[(JsString, Json)],
    occurrence: usize,
) -> Option<Json> {
    /// `skip`: runs still to pass before the one replaced; `found`:
    /// whether it was.
    fn walk(
        value: &Json,
        from: &[(JsString, Json)],
        to: &[(JsString, Json)],
        skip: &mut usize,
        found: &mut bool,
    ) -> Json {
        match value {
            Json::Object(_) if *found => value.clone(),
            Json::Object(members) => {
                let at = (!from.is_empty())
                    .then(|| members.windows(from.len()).position(|run| run == from))
                    .flatten();
                let members = match at {
                    Some(_) if *skip > 0 => {
                        *skip -= 1;
                        members.clone()
                    }
                    Some(at) => {
                        *found = true;
                        spliced(members, at, from.len(), to)
                    }
                    None => members.clone(),
                };
                each_child(&Json::Object(members), |member| {
                    walk(member, from, to, skip, found)
                })
            }
            other => each_child(other, |child| walk(child, from, to, skip, found)),
        }
    }
    if from == to {
        return Some(target.clone());
    }
    let (mut skip, mut found) = (occurrence, false);
    let replaced = walk(target, from, to, &mut skip, &mut found);
    found.then_some(replaced)
}

/// `target` with the first occurrence of `from` in each string replaced
/// by `to`; `None` when no string holds it.
fn replace_in_strings(target: &Json, from: &[u16], to: &[u16]) -> Option<Json> {
    fn walk(value: &Json, from: &[u16], to: &[u16], found: &mut bool) -> Json {
        match value {
            Json::String(text) => {
                let units = text.units();
                match units.windows(from.len()).position(|run| run == from) {
                    Some(at) => {
                        *found = true;
                        Json::String(JsString::from_units(spliced(units, at, from.len(), to)))
                    }
                    None => value.clone(),
                }
            }
            other => each_child(other, |child| walk(child, from, to, found)),
        }
    }
    if from == to {
        return Some(target.clone());
    }
    if from.is_empty() {
        return None;
    }
    let mut found = false;
    let replaced = walk(target, from, to, &mut found);
    found.then_some(replaced)
}

/// `value` with `map` applied to each of its items or member values (a
/// copy of it when it has none): one level of the walks that rewrite an
/// answer.
fn each_child(value: &Json, mut map: impl FnMut(&Json) -> Json) -> Json {
    match value {
        Json::Array(items) => Json::Array(items.iter().map(&mut map).collect()),
        Json::Object(members) => Json::Object(
            members
                .iter()
                .map(|(name, member)| (name.clone(), map(member)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `items` with the `length` items at `at` replaced by `with`.
fn spliced<T: Clone>(items: &[T], at: usize, length: usize, with: &[T]) -> Vec<T> {
    let mut spliced = items[..at].to_vec();
    spliced.extend_from_slice(with);
    spliced.extend_from_slice(&items[at + length..]);
    spliced
}
