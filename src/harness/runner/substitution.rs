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

use super::probes::{self, Probe, UNBOUNDED};
use crate::features::Features;
use crate::harness::checks::retention_model::{self, ProjectedItem};
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

/// [`Lower`]'s answers where only an answer will do.
pub type Answers<'a> = dyn FnMut(&Probe) -> Option<Outcome> + 'a;

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
    let mut answers = |probe: &Probe| match lower(probe)? {
        Composed::Answer(answer) => Some(answer),
        Composed::Unraised => None,
    };
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
            let ours = probes::pre_step_preparations(input, &mut reference)?;
            let mut answers = |probe: &Probe| match lower(probe)? {
                Composed::Answer(answer) => Some(answer),
                Composed::Unraised => None,
            };
            // A mention that does not parse fails a pre-step first
            // (spec pre-step.errors).
            let parsed = match probes::pre_step_preparations(input, &mut answers) {
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
            let questions = probes::prepare_probes(features, input, None)
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
            &probes::reference_answer(features, question.op, &question.input),
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
    let Some(id) = probes::spelled_id(uri.units()) else {
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
enum Stopped {
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
            Some(error @ Outcome::Error { .. }) => Err(Stopped::Failed(error)),
            _ => Err(Stopped::Unknown),
        }
    });
    match parsed {
        Ok(parsed) => Some(Outcome::Output(dispatch::parsed_json(parsed))),
        Err(Stopped::Failed(error)) => Some(error),
        Err(Stopped::Unknown) => None,
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
    let mut members = vec![(JsString::from("snapshot"), snapshot_json.clone())];
    members.extend(
        input
            .get("label")
            .map(|label| (JsString::from("label"), label.clone())),
    );
    members.push((JsString::from("maxBytes"), Json::Number(UNBOUNDED)));
    let whole = match lower(&Probe {
        op: "retain",
        input: Json::Object(members),
    })? {
        Outcome::Output(whole) => whole,
        failed => return Some(failed),
    };
    let data = whole.get("data")?.as_object()?;
    let fixed: Vec<(JsString, Json)> = data
        .iter()
        .filter(|(name, _)| !name.is("conversation"))
        .cloned()
        .collect();
    let conversation = whole.get("data")?.get("conversation")?.as_array()?;
    if ours.len() > MODELLED_ITEMS {
        return None;
    }
    // Each item of the substituted projection is a checkpoint when the
    // reference's item in its place is one: by index when both project as
    // many items, else the reference's next item of the same role and text
    // (a projection that leaves items out keeps the others' flags); an item
    // the reference does not project is none.
    let mut next = 0;
    let items = conversation
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
        .collect::<Option<Vec<ProjectedItem>>>()?;
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

/// What a configuration-reading op answers when `config/check` reads its
/// configuration: `Some(error)` when the substituted reading refuses a
/// configuration the reference accepts, `Some(None)` when they accept
/// alike, `None` when it accepts one the reference refuses (there is no
/// reading to go on).
fn configuration(features: Features, input: &Json, lower: &mut Answers) -> Option<Option<Outcome>> {
    let Some(config) = input.get("config") else {
        return Some(None);
    };
    let probe = Probe::new("config/check", [("config", config.clone())]);
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
    let listed = match lower(&probes::remote_listing(input))? {
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
        let label = probes::mention_label(features);
        if !["sessionId", label]
            .iter()
            .all(|name| members.iter().any(|(member, _)| member.is(name)))
        {
            return None;
        }
        let mention = match lower(&probes::format_probe(
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
    let Some(data) = context.and_then(probes::prompt_data) else {
        return Some(own.clone());
    };
    let mut substituted = output.clone();
    let mut substituted_data = data.clone();
    let sources = probes::prepare_probes(features, input, Some(output));
    // Each source's record is found as the how-many-th record with its
    // stats (sources of the same stats are recorded in their order), and
    // spliced last first, so that a record already spliced moves none
    // before it.
    let mut stats_seen: Vec<Vec<(JsString, Json)>> = Vec::new();
    let mut splices = Vec::new();
    for probe in sources.iter().filter(|probe| probe.op == "retain") {
        let ours = probes::reference_answer(features, probe.op, &probe.input);
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
        if probes::agrees(&ours, &Ok(theirs.clone())) {
            continue;
        }
        if theirs == Outcome::Output(Json::Null) {
            // A source that cannot fit fails the preparation.
            return Some(Outcome::from(Error::new(
                ErrorCode::BudgetExceeded,
                "referenced session snapshot cannot fit the configured byte budget",
            )));
        }
        if let Outcome::Error { .. } = theirs {
            // What a source's retention throws, the preparation throws.
            return Some(theirs);
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
    let ours = probes::pre_step_preparations(input, &mut reference)?.ok()?;
    let theirs = match probes::pre_step_preparations(input, lower)? {
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
        if probes::agrees(&ours, &Ok(theirs.clone())) {
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
            Json::Array(items) => Json::Array(
                items
                    .iter()
                    .map(|item| walk(item, from, to, skip, found))
                    .collect(),
            ),
            _ if *found => value.clone(),
            Json::Object(members) => {
                let at = (!from.is_empty())
                    .then(|| members.windows(from.len()).position(|run| run == from))
                    .flatten();
                let at = match at {
                    Some(_) if *skip > 0 => {
                        *skip -= 1;
                        None
                    }
                    at => at,
                };
                let members: Vec<(JsString, Json)> = match at {
                    Some(at) => {
                        *found = true;
                        let mut spliced = members[..at].to_vec();
                        spliced.extend_from_slice(to);
                        spliced.extend_from_slice(&members[at + from.len()..]);
                        spliced
                    }
                    None => members.clone(),
                };
                Json::Object(
                    members
                        .into_iter()
                        .map(|(name, member)| {
                            let member = walk(&member, from, to, skip, found);
                            (name, member)
                        })
                        .collect(),
                )
            }
            other => other.clone(),
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
                        let mut spliced = units[..at].to_vec();
                        spliced.extend_from_slice(to);
                        spliced.extend_from_slice(&units[at + from.len()..]);
                        Json::String(JsString::from_units(spliced))
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

/// Where whitespace may stand between two tokens of a JSON text: after
/// what (`{`, `[`, `,`, `:`, a value, or the start) and before what (`}`,
/// `]`, another token, or the end).
type Gap = (u16, u16);

/// An implementation's JSON text learned from its `json/tag-safe` answers
/// (spec `runner.probes`): the reference's text with whitespace in some
/// gaps between tokens, the same in every answer of the same gap (Python's
/// `json.dumps` separators, `", "` and `": "`). Strings must be spelled
/// alike. A value with a gap no answer showed cannot be spelled.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spelling {
    gaps: Vec<(Gap, Vec<u16>)>,
}

/// What one answer taught a [`Spelling`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Learned {
    /// The answer is the reference's text with whitespace in its gaps,
    /// the same as before in each: learned.
    Spelling,
    /// The answer is written otherwise: it teaches nothing of spacing.
    Nothing,
    /// A gap's whitespace differs from an earlier answer's: the
    /// implementation's spacing is not one spelling.
    Refuted,
}

/// JSON's whitespace (RFC 8259 `ws`).
fn is_json_whitespace(unit: u16) -> bool {
    matches!(unit, 0x20 | 0x09 | 0x0A | 0x0D)
}

/// The gaps of a JSON text `ours` (the reference's, which has no
/// whitespace between tokens), each with the index of the token after it.
fn gaps(ours: &[u16]) -> Vec<(usize, Gap)> {
    const VALUE: u16 = b'v' as u16;
    const START: u16 = b'^' as u16;
    const OTHER: u16 = b'x' as u16;
    const END: u16 = b'$' as u16;
    let closer = |unit: u16| unit == u16::from(b'}') || unit == u16::from(b']');
    let structural = |unit: u16| b"{[,:".iter().any(|&c| u16::from(c) == unit);
    let mut found = Vec::new();
    let mut before = START;
    let mut at = 0;
    while at < ours.len() {
        let unit = ours[at];
        let after = if closer(unit) { unit } else { OTHER };
        found.push((at, (before, after)));
        if unit == u16::from(b'"') {
            at += 1;
            while at < ours.len() && ours[at] != u16::from(b'"') {
                at += if ours[at] == u16::from(b'\\') { 2 } else { 1 };
            }
            at += 1;
            before = VALUE;
        } else if structural(unit) {
            at += 1;
            before = unit;
        } else if closer(unit) {
            at += 1;
            before = VALUE;
        } else {
            while at < ours.len()
                && !structural(ours[at])
                && !closer(ours[at])
                && ours[at] != u16::from(b'"')
            {
                at += 1;
            }
            before = VALUE;
        }
    }
    found.push((ours.len(), (before, END)));
    found
}

impl Spelling {
    /// Learns from one answer: `theirs` for the value the reference spells
    /// `ours`. An answer that is not `ours` with whitespace in its gaps
    /// teaches nothing ([`Learned::Nothing`]: the implementation writes that
    /// value otherwise); one whose whitespace in a gap differs from an
    /// earlier answer's refutes the spelling ([`Learned::Refuted`]).
    pub fn learn(&mut self, ours: &[u16], theirs: &[u16]) -> Learned {
        let mut seen_gaps: Vec<(Gap, Vec<u16>)> = Vec::new();
        let mut from = 0;
        let mut copied = 0;
        for (at, gap) in gaps(ours) {
            if theirs.get(copied..copied + (at - from)) != Some(&ours[from..at]) {
                return Learned::Nothing;
            }
            copied += at - from;
            let space = theirs[copied..]
                .iter()
                .take_while(|&&unit| is_json_whitespace(unit))
                .count();
            seen_gaps.push((gap, theirs[copied..copied + space].to_vec()));
            copied += space;
            from = at;
        }
        if copied != theirs.len() {
            return Learned::Nothing;
        }
        let mut learned = self.gaps.clone();
        for (gap, seen) in seen_gaps {
            match learned.iter().find(|(known, _)| *known == gap) {
                Some((_, known)) if *known != seen => return Learned::Refuted,
                Some(_) => {}
                None => learned.push((gap, seen)),
            }
        }
        self.gaps = learned;
        Learned::Spelling
    }

    /// Whether some gap holds whitespace: the spelling differs from the
    /// reference's.
    pub fn differs(&self) -> bool {
        self.gaps.iter().any(|(_, space)| !space.is_empty())
    }

    /// The implementation's text of the value the reference spells
    /// `ours`, when every gap of it was seen.
    pub fn spell(&self, ours: &[u16]) -> Option<Vec<u16>> {
        let mut spelled = Vec::with_capacity(ours.len() * 2);
        let mut from = 0;
        for (at, gap) in gaps(ours) {
            spelled.extend_from_slice(&ours[from..at]);
            let (_, space) = self.gaps.iter().find(|(known, _)| *known == gap)?;
            spelled.extend_from_slice(space);
            from = at;
        }
        Some(spelled)
    }
}

/// One edit of a member an implementation makes to every answer of an op
/// (spec `runner.probes`): learned from its answers, applied to the
/// reference's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemberEdit {
    /// Every member of this name is written `null`.
    Null(JsString),
    /// No member of this name is written.
    Missing(JsString),
    /// A member of the first name is written `null` right after the
    /// member of the second where there is none.
    NullAdded(JsString, JsString),
    /// Every member of the first name is written under the second, the
    /// same name in another case style (`sessionId` as `session_id`).
    Renamed(JsString, JsString),
}

/// Whether two member names are one name in two case styles: the same
/// letters and digits, case and `_`/`-` aside.
fn same_name(one: &JsString, other: &JsString) -> bool {
    let folded = |name: &JsString| -> String {
        name.to_string_lossy()
            .chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    one != other && folded(one) == folded(other)
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

/// The member edits that make `ours` into `theirs`, when such edits do
/// and there is one at least.
pub fn member_edits(ours: &Json, theirs: &Json) -> Option<Vec<MemberEdit>> {
    fn collect(ours: &Json, theirs: &Json, edits: &mut Vec<MemberEdit>) {
        match (ours, theirs) {
            (Json::Object(ours), Json::Object(theirs)) => {
                for pair in theirs.windows(2) {
                    let ((after, _), (name, value)) = (&pair[0], &pair[1]);
                    if *value == Json::Null && !ours.iter().any(|(known, _)| known == name) {
                        push(edits, MemberEdit::NullAdded(name.clone(), after.clone()));
                    }
                }
                for (at, (name, value)) in ours.iter().enumerate() {
                    let renamed = theirs.get(at).filter(|(other, _)| {
                        same_name(name, other) && !ours.iter().any(|(known, _)| known == other)
                    });
                    if let (Some((to, theirs)), false) =
                        (renamed, theirs.iter().any(|(known, _)| known == name))
                    {
                        push(edits, MemberEdit::Renamed(name.clone(), to.clone()));
                        collect(value, theirs, edits);
                        continue;
                    }
                    match theirs.iter().find(|(known, _)| known == name) {
                        None => push(edits, MemberEdit::Missing(name.clone())),
                        Some((_, Json::Null)) if *value != Json::Null => {
                            push(edits, MemberEdit::Null(name.clone()));
                        }
                        Some((_, theirs)) => collect(value, theirs, edits),
                    }
                }
            }
            (Json::Array(ours), Json::Array(theirs)) => {
                for (ours, theirs) in ours.iter().zip(theirs) {
                    collect(ours, theirs, edits);
                }
            }
            _ => {}
        }
    }
    fn push(edits: &mut Vec<MemberEdit>, edit: MemberEdit) {
        if !edits.contains(&edit) {
            edits.push(edit);
        }
    }
    let mut edits = Vec::new();
    collect(ours, theirs, &mut edits);
    (!edits.is_empty() && apply_edits(ours, &edits) == *theirs).then_some(edits)
}

/// The edits that read an answer made with `edits` back in the
/// reference's member names: each rename undone. What a port wrote `null`
/// or left out stays so: that is what its answer tells the op composed of
/// it, where a name in another case style is only how it spells it.
pub fn names_read_back(edits: &[MemberEdit]) -> Vec<MemberEdit> {
    edits
        .iter()
        .filter_map(|edit| match edit {
            MemberEdit::Renamed(from, to) => Some(MemberEdit::Renamed(to.clone(), from.clone())),
            _ => None,
        })
        .collect()
}

/// `value` with `edits` made to every member at any depth.
pub fn apply_edits(value: &Json, edits: &[MemberEdit]) -> Json {
    match value {
        Json::Object(members) => {
            let mut edited = Vec::with_capacity(members.len());
            for (name, member) in members {
                if edits.contains(&MemberEdit::Missing(name.clone())) {
                    continue;
                }
                let member = if edits.contains(&MemberEdit::Null(name.clone())) {
                    Json::Null
                } else {
                    apply_edits(member, edits)
                };
                let written = edits.iter().find_map(|edit| match edit {
                    MemberEdit::Renamed(from, to) if from == name => Some(to.clone()),
                    _ => None,
                });
                edited.push((written.unwrap_or_else(|| name.clone()), member));
                for edit in edits {
                    if let MemberEdit::NullAdded(added, after) = edit {
                        let absent = !members.iter().any(|(known, _)| known == added);
                        if after == name && absent {
                            edited.push((added.clone(), Json::Null));
                        }
                    }
                }
            }
            Json::Object(edited)
        }
        Json::Array(items) => {
            Json::Array(items.iter().map(|item| apply_edits(item, edits)).collect())
        }
        other => other.clone(),
    }
}
