//! The protocol's session listing `[{id, cwd?, createdAt, title?,
//! subagentLabel?}]` as the records `candidates/*` lists (spec
//! `protocol.ops`, `candidates.*`).
//!
//! Upstream reads a listed `id`, `title` and `cwd` as JavaScript does
//! whatever their type (spec `protocol.input-types`, *read*): compared with
//! `!==` / `===`, copied into the answer, lower-cased (a `TypeError` for any
//! other type than string). The index works on strings, so a listed value
//! of another type gets a *stand-in*: a string longer than every string of
//! the listing and the agent's id, so equal to none of them, which the
//! answer replaces with the listed value. Cwds are compared with each
//! other and with the agent's (`candidates.rank`), so strictly equal
//! primitive cwds share one stand-in, the agent's included.

use super::wire::Outcome;
use crate::discovery::sessions::{contains_lowered, Candidate, SessionRecord};
use crate::features::Features;
use crate::js::case::to_lower;
use crate::js::json::Json;
use crate::js::{push_slot, JsString};
use crate::reach;
use crate::{mention, uri};

/// Where the protocol's session listing comes from: the request's
/// `sessions`, read in place, or taken out of it to be taken apart.
pub enum Listing<'a> {
    /// Read where it lies.
    Borrowed(&'a Json),
    /// Taken out of the request: its strings move into the records.
    Taken(Option<&'a mut Json>),
}

/// The members of a listed session the index reads, in the order
/// [`Listed::read`] unpacks them.
const LISTING_FIELDS: [&str; 5] = ["id", "cwd", "createdAt", "title", "subagentLabel"];

/// Which of [`LISTING_FIELDS`] a listed session's member `key` is.
fn listing_field(key: &JsString) -> Option<usize> {
    LISTING_FIELDS
        .iter()
        .position(|name| name.len() == key.len() && key.is(name))
}

/// A record's slot before the listing's fields move into it.
const VACANT_RECORD: SessionRecord = SessionRecord {
    id: JsString::EMPTY,
    cwd: None,
    created_at: None,
    title: None,
    subagent_label: None,
};

/// The unit stand-ins are made of, a lone low surrogate ([`Builder::finish`]).
const STAND_IN_UNIT: u16 = 0xDFFF;

/// A listed session's `id` and `title` as given, before they reach a record.
enum Listed<'j> {
    Borrowed(&'j Json),
    Taken(Json),
}

impl Listed<'_> {
    fn into_value(self) -> Json {
        match self {
            Listed::Borrowed(value) => value.clone(),
            Listed::Taken(value) => value,
        }
    }
}

/// The listing's records, and the listed values their stand-ins stand for.
pub struct Records {
    /// The records, in listing order, those the agent's id excludes left out
    /// when their id is not a string (the index leaves out the others).
    records: Vec<SessionRecord>,
    stand_ins: StandIns,
}

/// The listed values that stand-ins replace, and the agent's id as the
/// index compares it.
pub struct StandIns {
    /// The agent's string id, or a stand-in no listed id equals.
    agent_id: JsString,
    /// The agent's cwd as the index compares it: a string as it is, another
    /// value the stand-in of the listed cwds strictly equal to it.
    agent_cwd: Option<JsString>,
    /// Each stand-in with the listed value it replaces; `None` for an
    /// absent id (JavaScript's `undefined`).
    values: Vec<(JsString, Option<Json>)>,
}

impl Records {
    /// Reads `listing` for an agent whose id and cwd are `agent_id` and
    /// `agent_cwd` (absent: `None`, JavaScript's `undefined`). A listed
    /// session without an id is one whose id is `undefined`: left out when
    /// the agent has no id either, copied without `sessionId`, and a
    /// `TypeError` where upstream lower-cases or encodes it (spec
    /// `protocol.input-types.host`). With `display-title`, the release's
    /// host reads a listed `cwd` of `null` as no cwd; before it, the host
    /// hands the `null` on.
    pub fn read(
        listing: Listing<'_>,
        agent_id: Option<&Json>,
        agent_cwd: Option<&Json>,
        features: Features,
    ) -> Result<Records, Outcome> {
        let not_array = || Outcome::internal("input.sessions must be an array");
        match listing {
            Listing::Borrowed(input) => {
                let entries = input
                    .get("sessions")
                    .and_then(Json::as_array)
                    .ok_or_else(not_array)?;
                Records::borrow(
                    Builder::new(entries.len(), agent_id, agent_cwd, features),
                    entries,
                )
            }
            Listing::Taken(Some(Json::Array(entries))) => Records::take(
                Builder::new(entries.len(), agent_id, agent_cwd, features),
                entries,
            ),
            Listing::Taken(_) => Err(not_array()),
        }
    }

    /// The borrowed listing, each entry's members read in one pass, a later
    /// member of a name replacing an earlier one (`JSON.parse` keeps the
    /// last).
    fn borrow(mut builder: Builder, entries: &[Json]) -> Result<Records, Outcome> {
        for entry in entries {
            let record = push_slot(&mut builder.records, VACANT_RECORD);
            let mut fields: [Option<&Json>; 5] = [None; 5];
            for (key, value) in entry.as_object().unwrap_or_default() {
                if let Some(field) = listing_field(key) {
                    fields[field] = Some(value);
                }
            }
            let [id, cwd, created_at, title, subagent_label] =
                fields.map(|field| field.map(Listed::Borrowed));
            record.created_at = created_at.map(Listed::into_value);
            builder.settle_last(id, [title, cwd, subagent_label])?;
        }
        Ok(builder.finish())
    }

    /// The taken listing, each string moved straight into its field of the
    /// record's slot (moving members through an array of fields and then
    /// the whole record was a tenth of the op's time). A later member of a
    /// name replaces an earlier one: `JSON.parse` keeps the last.
    fn take(mut builder: Builder, entries: &mut [Json]) -> Result<Records, Outcome> {
        for entry in entries.iter_mut() {
            let record = push_slot(&mut builder.records, VACANT_RECORD);
            let mut id = None;
            let mut title = None;
            let mut cwd = None;
            let mut subagent_label = None;
            if let Json::Object(members) = entry {
                for (key, value) in members.iter_mut() {
                    let field = listing_field(key);
                    let mut taken = || Listed::Taken(std::mem::replace(value, Json::Null));
                    match field {
                        Some(0) => id = Some(taken()),
                        Some(1) => cwd = Some(taken()),
                        Some(2) => record.created_at = Some(std::mem::replace(value, Json::Null)),
                        Some(3) => title = Some(taken()),
                        Some(4) => subagent_label = Some(taken()),
                        _ => {}
                    }
                }
            }
            builder.settle_last(id, [title, cwd, subagent_label])?;
        }
        Ok(builder.finish())
    }

    /// What upstream's query filter does to a listing with stand-ins: it
    /// lower-cases each listed id, then its cwd (if any), then its label until
    /// one holds the query, and a value that is not a string throws there
    /// (`INTERNAL`). The fuzzy filter (`candidates-fuzzy`) is not
    /// established for such values: any stand-in under a query answers
    /// `INTERNAL` (ours).
    pub fn check_query(&self, query: &[u16], features: Features) -> Result<(), Outcome> {
        if query.is_empty() || !self.stand_ins.has_any() {
            return Ok(());
        }
        let not_text = || {
            Outcome::internal(
                "a listed id, cwd or title is not a string: toLocaleLowerCase is not a function",
            )
        };
        // The agent's own session is left out before the query is read.
        let others = || {
            self.records
                .iter()
                .filter(|record| record.id != self.stand_ins.agent_id)
        };
        if features.fuzzy {
            let listed =
                |text: Option<&JsString>| text.and_then(|text| self.stand_ins.listed(text));
            let any = others().any(|record| {
                listed(Some(&record.id)).is_some()
                    || listed(record.cwd.as_ref()).is_some_and(is_not_null)
                    || listed(record.title.as_ref()).is_some()
                    || listed(record.subagent_label.as_ref()).is_some()
            });
            return if any { Err(not_text()) } else { Ok(()) };
        }
        let needle = to_lower(query);
        let holds = |text: &JsString| contains_lowered(text.units(), &needle);
        for record in others() {
            if self.stand_ins.listed(&record.id).is_some() {
                return Err(not_text());
            }
            if holds(&record.id) {
                continue;
            }
            let cwd = record.cwd.as_ref();
            // `cwd?.toLocaleLowerCase()`: a `null` cwd is skipped.
            let listed_cwd = cwd.and_then(|cwd| self.stand_ins.listed(cwd));
            if listed_cwd.is_some_and(is_not_null) {
                return Err(not_text());
            }
            if cwd.is_some_and(holds) {
                continue;
            }
            if self.stand_ins.listed(record.label()).is_some() {
                return Err(not_text());
            }
            // With display titles, the display title is read last.
            if features.display_title
                && !holds(record.label())
                && self.stand_ins.listed(record.display_title()).is_some()
            {
                return Err(not_text());
            }
        }
        Ok(())
    }

    /// The records for the index, and what their stand-ins stand for.
    pub fn split(self) -> (Vec<SessionRecord>, StandIns) {
        (self.records, self.stand_ins)
    }
}

impl StandIns {
    /// The agent's id as the index compares it.
    pub fn agent_id(&self) -> &JsString {
        &self.agent_id
    }

    /// The agent's cwd as the index compares it.
    pub fn agent_cwd(&self) -> Option<&JsString> {
        self.agent_cwd.as_ref()
    }

    /// Whether a listed value of another type than string stands in the
    /// records.
    fn has_any(&self) -> bool {
        !self.values.is_empty()
    }

    /// The listed value `text` stands in for (`Some(None)`: an absent id).
    fn listed(&self, text: &JsString) -> Option<&Option<Json>> {
        if text.units().first() != Some(&STAND_IN_UNIT) {
            return None;
        }
        self.values
            .iter()
            .find(|(stand_in, _)| stand_in == text)
            .map(|(_, value)| value)
    }

    /// A candidate's answer with the listed values back in place of their
    /// stand-ins, a member whose listed value is absent left out (as
    /// `JSON.stringify` leaves out `undefined`); with `remote`, a label that
    /// is not a string fails upstream's mention (`INTERNAL`), and a listed id
    /// of another type is encoded as upstream encodes any value, an absent
    /// one failing (`JSON.stringify(undefined)` is no text to encode).
    pub fn answer(
        &self,
        candidate: &Candidate<'_>,
        features: Features,
        remote: bool,
    ) -> Result<Json, Outcome> {
        let mut json = candidate.to_json(features, remote);
        if !self.has_any() {
            return Ok(json);
        }
        let record = candidate.record;
        let mention_label = record.mention_label(features);
        if remote && self.listed(mention_label).is_some() {
            return Err(Outcome::internal(
                "a candidate's label is not a string: its mention cannot escape it",
            ));
        }
        let listed_id = self.listed(&record.id);
        if remote && listed_id.is_some_and(Option::is_none) {
            return Err(Outcome::internal(
                "a candidate has no id: JSON.stringify(undefined) is no text to encode",
            ));
        }
        if let Json::Object(members) = &mut json {
            members.retain_mut(|(key, value)| {
                if let Json::String(text) = value {
                    match self.listed(text) {
                        Some(Some(listed)) => *value = listed.clone(),
                        Some(None) => return false,
                        None => {}
                    }
                }
                if let (true, Some(Some(id))) = (key.is("mention"), listed_id) {
                    let encoded = uri::encode_value(id);
                    *value = Json::String(mention::format_encoded(mention_label.units(), &encoded));
                }
                true
            });
        }
        Ok(json)
    }
}

/// Builds [`Records`], giving each listed value of another type a stand-in
/// once the whole listing is read (its length depends on every string).
struct Builder {
    records: Vec<SessionRecord>,
    /// The listed values of another type than string: the record, which
    /// field, the value.
    others: Vec<(usize, Field, Option<Json>)>,
    /// The longest string of the listing's ids, titles and cwds and the
    /// agent's id and cwd.
    longest: usize,
    agent_id: Option<Json>,
    agent_cwd: Option<Json>,
    /// Whether the release's host reads a listed `cwd` of `null` as none
    /// (`display-title`).
    null_cwd_is_none: bool,
}

/// The fields of a record a listed value of another type stands in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Id,
    Title,
    Cwd,
    SubagentLabel,
}

impl Builder {
    fn new(
        count: usize,
        agent_id: Option<&Json>,
        agent_cwd: Option<&Json>,
        features: Features,
    ) -> Builder {
        let text_len =
            |value: Option<&Json>| value.and_then(Json::as_js_str).map_or(0, JsString::len);
        Builder {
            records: Vec::with_capacity(count),
            others: Vec::new(),
            longest: text_len(agent_id).max(text_len(agent_cwd)),
            agent_id: agent_id.cloned(),
            agent_cwd: agent_cwd.cloned(),
            null_cwd_is_none: features.display_title,
        }
    }

    /// Gives the last record its `id` and `title` as listed: a string as it
    /// is, another value a stand-in (see [`Builder::finish`]). A record
    /// whose listed id equals the agent's (`record.id !== agent.id` is false
    /// for a number, a boolean or null equal to it) is taken back out.
    fn settle_last(
        &mut self,
        id: Option<Listed<'_>>,
        [title, cwd, subagent_label]: [Option<Listed<'_>>; 3],
    ) -> Result<(), Outcome> {
        let index = self.records.len().saturating_sub(1);
        let id = match id {
            Some(Listed::Taken(Json::String(id))) => id,
            Some(Listed::Borrowed(Json::String(id))) => id.clone(),
            // Another type, or absent (`undefined`): the agent's own session
            // where `record.id !== agent.id` is false.
            other => {
                let listed = other.map(Listed::into_value);
                if strictly_equal(self.agent_id.as_ref(), listed.as_ref()) {
                    reach::point("candidates.exclude-self");
                    self.records.pop();
                    return Ok(());
                }
                self.others.push((index, Field::Id, listed));
                JsString::EMPTY
            }
        };
        // A null title is no title (`title ?? id`), nor is a null subagent
        // label a label; a cwd of another type, `null` included, is still a
        // cwd (`cwd === agentCwd`).
        let title = self.text_or_stand_in(index, Field::Title, title, true);
        let cwd = self.text_or_stand_in(index, Field::Cwd, cwd, self.null_cwd_is_none);
        let subagent_label =
            self.text_or_stand_in(index, Field::SubagentLabel, subagent_label, true);
        let text_len = |text: &Option<JsString>| text.as_ref().map_or(0, JsString::len);
        self.longest = self
            .longest
            .max(id.len())
            .max(text_len(&title))
            .max(text_len(&cwd))
            .max(text_len(&subagent_label));
        if let Some(record) = self.records.last_mut() {
            record.id = id;
            record.title = title;
            record.cwd = cwd;
            record.subagent_label = subagent_label;
        }
        Ok(())
    }

    /// A listed field's string, or a placeholder for a value of another type
    /// that [`Builder::finish`] replaces by its stand-in; `None` when absent
    /// (or `null`, when `null_is_absent`).
    fn text_or_stand_in(
        &mut self,
        index: usize,
        field: Field,
        listed: Option<Listed<'_>>,
        null_is_absent: bool,
    ) -> Option<JsString> {
        match listed.map(Listed::into_value) {
            None => None,
            Some(Json::Null) if null_is_absent => None,
            Some(Json::String(text)) => Some(text),
            Some(value) => {
                self.others.push((index, field, Some(value)));
                Some(JsString::EMPTY)
            }
        }
    }

    /// The records with a stand-in for each listed value of another type:
    /// a run of [`STAND_IN_UNIT`] longer than every string of the listing
    /// and the agent's id, then the value's position, so that it equals
    /// none of them and no other stand-in.
    fn finish(mut self) -> Records {
        let run = vec![STAND_IN_UNIT; self.longest + 1];
        let stand_in_at = |position: usize| {
            let mut units = run.clone();
            units.extend(position.to_string().encode_utf16());
            JsString::from_units(units)
        };
        let mut values: Vec<(JsString, Option<Json>)> = Vec::with_capacity(self.others.len());
        // The stand-ins of the cwds so far, to share among equal ones.
        let mut cwds: Vec<usize> = Vec::new();
        for (index, field, value) in self.others {
            let shared = (field == Field::Cwd)
                .then(|| {
                    cwds.iter()
                        .find(|at| strictly_equal(values[**at].1.as_ref(), value.as_ref()))
                        .map(|at| values[*at].0.clone())
                })
                .flatten();
            let stand_in = match shared {
                Some(stand_in) => stand_in,
                None => {
                    let stand_in = stand_in_at(values.len());
                    if field == Field::Cwd {
                        cwds.push(values.len());
                    }
                    values.push((stand_in.clone(), value));
                    stand_in
                }
            };
            if let Some(record) = self.records.get_mut(index) {
                match field {
                    Field::Id => record.id = stand_in,
                    Field::Title => record.title = Some(stand_in),
                    Field::Cwd => record.cwd = Some(stand_in),
                    Field::SubagentLabel => record.subagent_label = Some(stand_in),
                }
            }
        }
        let agent_cwd = match self.agent_cwd {
            None => None,
            Some(Json::String(cwd)) => Some(cwd),
            // Equal to the listed cwds strictly equal to it, else to none.
            Some(other) => Some(
                cwds.iter()
                    .find(|at| strictly_equal(values[**at].1.as_ref(), Some(&other)))
                    .map_or_else(
                        || JsString::from_units(run.clone()),
                        |at| values[*at].0.clone(),
                    ),
            ),
        };
        let agent_id = match &self.agent_id {
            Some(Json::String(id)) => id.clone(),
            // No listed string equals a string this long.
            _ => JsString::from_units(run),
        };
        Records {
            records: self.records,
            stand_ins: StandIns {
                agent_id,
                agent_cwd,
                values,
            },
        }
    }
}

/// Whether a listed value is anything but `null` (`cwd?.` skips `null`).
fn is_not_null(listed: &Option<Json>) -> bool {
    listed.as_ref() != Some(&Json::Null)
}

/// JavaScript's `===` between two values `JSON.parse` built (`None`:
/// `undefined`), neither a string: objects and arrays are never the same
/// object.
fn strictly_equal(agent: Option<&Json>, listed: Option<&Json>) -> bool {
    let (Some(agent), Some(listed)) = (agent, listed) else {
        return agent.is_none() && listed.is_none();
    };
    match (agent, listed) {
        (Json::Null, Json::Null) => true,
        (Json::Bool(a), Json::Bool(b)) => a == b,
        (Json::Number(a), Json::Number(b)) => a == b,
        _ => false,
    }
}
