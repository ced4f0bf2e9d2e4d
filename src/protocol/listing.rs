//! The protocol's session listing `[{id, cwd?, createdAt, title?,
//! subagentLabel?}]` as the records `candidates/*` lists (spec
//! `protocol.ops`, `candidates.*`).
//!
//! Upstream reads a listed `id` and `title` as JavaScript does whatever
//! their type (spec `protocol.input-types`, *read*): compared with `!==`,
//! copied into the answer, lower-cased (a `TypeError` for any other type
//! than string). The index works on strings, so a listed value of another
//! type gets a *stand-in*: a string longer than every string of the
//! listing and the agent's id, so equal to none of them, which the answer
//! replaces with the listed value.

use super::wire::Outcome;
use crate::discovery::sessions::{contains_lowered, Candidate, SessionRecord};
use crate::features::Features;
use crate::js::case::to_lower;
use crate::js::json::Json;
use crate::js::{push_slot, JsString};
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
    fn get(&self) -> &Json {
        match self {
            Listed::Borrowed(value) => value,
            Listed::Taken(value) => value,
        }
    }

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
    /// Each stand-in with the listed value it replaces.
    values: Vec<(JsString, Json)>,
}

impl Records {
    /// Reads `listing` for an agent whose id is `agent_id` (absent: `None`,
    /// JavaScript's `undefined`). A listed session without an id is outside
    /// the protocol: `INTERNAL`.
    pub fn read(listing: Listing<'_>, agent_id: Option<&Json>) -> Result<Records, Outcome> {
        let not_array = || Outcome::internal("input.sessions must be an array");
        match listing {
            Listing::Borrowed(input) => {
                let entries = input
                    .get("sessions")
                    .and_then(Json::as_array)
                    .ok_or_else(not_array)?;
                Records::borrow(entries, agent_id)
            }
            Listing::Taken(Some(Json::Array(entries))) => Records::take(entries, agent_id),
            Listing::Taken(_) => Err(not_array()),
        }
    }

    fn borrow(entries: &[Json], agent_id: Option<&Json>) -> Result<Records, Outcome> {
        let mut builder = Builder::new(entries.len(), agent_id);
        for entry in entries {
            let text = |name: &str| entry.get(name).and_then(Json::as_js_str).cloned();
            let record = push_slot(&mut builder.records, VACANT_RECORD);
            record.cwd = text("cwd");
            record.created_at = entry.get("createdAt").cloned();
            record.subagent_label = text("subagentLabel");
            let id = entry.get("id").map(Listed::Borrowed);
            let title = entry.get("title").map(Listed::Borrowed);
            builder.settle_last(id, title)?;
        }
        Ok(builder.finish())
    }

    /// The taken listing, each string moved straight into its field of the
    /// record's slot (moving members through an array of fields and then
    /// the whole record was a tenth of the op's time). A later member of a
    /// name replaces an earlier one: `JSON.parse` keeps the last.
    fn take(entries: &mut [Json], agent_id: Option<&Json>) -> Result<Records, Outcome> {
        let mut builder = Builder::new(entries.len(), agent_id);
        for entry in entries.iter_mut() {
            let record = push_slot(&mut builder.records, VACANT_RECORD);
            let mut id = None;
            let mut title = None;
            if let Json::Object(members) = entry {
                for (key, value) in members.iter_mut() {
                    let field = LISTING_FIELDS
                        .iter()
                        .position(|name| name.len() == key.len() && key.is(name));
                    let mut taken = || Listed::Taken(std::mem::replace(value, Json::Null));
                    match field {
                        Some(0) => id = Some(taken()),
                        Some(1) => record.cwd = take_text(value),
                        Some(2) => record.created_at = Some(std::mem::replace(value, Json::Null)),
                        Some(3) => title = Some(taken()),
                        Some(4) => record.subagent_label = take_text(value),
                        _ => {}
                    }
                }
            }
            builder.settle_last(id, title)?;
        }
        Ok(builder.finish())
    }

    /// What upstream's query filter does to a listing with stand-ins: it
    /// lower-cases each listed id, then its cwd, then its label until one
    /// holds the query, and a value that is not a string throws there
    /// (`INTERNAL`). The fuzzy filter (`candidates-fuzzy`) is not
    /// established for such values: any stand-in under a query answers
    /// `INTERNAL` (ours).
    pub fn check_query(&self, query: &[u16], features: Features) -> Result<(), Outcome> {
        if query.is_empty() || !self.stand_ins.has_any() {
            return Ok(());
        }
        let not_text = || {
            Outcome::internal(
                "a listed id or title is not a string: toLocaleLowerCase is not a function",
            )
        };
        if features.fuzzy {
            return Err(not_text());
        }
        let needle = to_lower(query);
        let holds = |text: &JsString| contains_lowered(text.units(), &needle);
        for record in &self.records {
            if self.stand_ins.listed(&record.id).is_some() {
                return Err(not_text());
            }
            let found = holds(&record.id) || record.cwd.as_ref().is_some_and(holds);
            if !found && self.stand_ins.listed(record.label()).is_some() {
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

    /// Whether a listed value of another type than string stands in the
    /// records.
    fn has_any(&self) -> bool {
        !self.values.is_empty()
    }

    fn listed(&self, text: &JsString) -> Option<&Json> {
        if text.units().first() != Some(&STAND_IN_UNIT) {
            return None;
        }
        self.values
            .iter()
            .find(|(stand_in, _)| stand_in == text)
            .map(|(_, value)| value)
    }

    /// A candidate's answer with the listed values back in place of their
    /// stand-ins; with `remote`, a label that is not a string fails
    /// upstream's mention (`INTERNAL`), and a listed id of another type is
    /// encoded as upstream encodes any value.
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
        if let Json::Object(members) = &mut json {
            for (key, value) in members.iter_mut() {
                if let Json::String(text) = value {
                    if let Some(listed) = self.listed(text) {
                        *value = listed.clone();
                    }
                }
                if let (true, Some(id)) = (key.is("mention"), listed_id) {
                    let encoded = uri::encode_value(id);
                    *value = Json::String(mention::format_encoded(mention_label.units(), &encoded));
                }
            }
        }
        Ok(json)
    }
}

/// Builds [`Records`], giving each listed value of another type a stand-in
/// once the whole listing is read (its length depends on every string).
struct Builder {
    records: Vec<SessionRecord>,
    /// The listed values of another type than string: the record, whether
    /// it is the title (else the id), the value.
    others: Vec<(usize, bool, Json)>,
    /// The longest string of the listing's ids and titles and the agent's id.
    longest: usize,
    agent_id: Option<Json>,
}

impl Builder {
    fn new(count: usize, agent_id: Option<&Json>) -> Builder {
        Builder {
            records: Vec::with_capacity(count),
            others: Vec::new(),
            longest: agent_id.and_then(Json::as_js_str).map_or(0, JsString::len),
            agent_id: agent_id.cloned(),
        }
    }

    /// Gives the last record its `id` and `title` as listed: a string as it
    /// is, another value a stand-in (see [`Builder::finish`]). A record
    /// whose listed id equals the agent's (`record.id !== agent.id` is false
    /// for a number, a boolean or null equal to it) is taken back out.
    fn settle_last(
        &mut self,
        id: Option<Listed<'_>>,
        title: Option<Listed<'_>>,
    ) -> Result<(), Outcome> {
        let index = self.records.len().saturating_sub(1);
        let id = match id {
            None => return Err(Outcome::internal("a session has no id")),
            Some(Listed::Taken(Json::String(id))) => id,
            Some(Listed::Borrowed(Json::String(id))) => id.clone(),
            Some(listed) => {
                if self
                    .agent_id
                    .as_ref()
                    .is_some_and(|agent| strictly_equal(agent, listed.get()))
                {
                    self.records.pop();
                    return Ok(());
                }
                self.others.push((index, false, listed.into_value()));
                JsString::EMPTY
            }
        };
        // A null title is no title (`title ?? id`).
        let title = match title.map(Listed::into_value) {
            None | Some(Json::Null) => None,
            Some(Json::String(title)) => Some(title),
            Some(value) => {
                self.others.push((index, true, value));
                Some(JsString::EMPTY)
            }
        };
        self.longest = self
            .longest
            .max(id.len())
            .max(title.as_ref().map_or(0, JsString::len));
        if let Some(record) = self.records.last_mut() {
            record.id = id;
            record.title = title;
        }
        Ok(())
    }

    /// The records with a stand-in for each listed value of another type:
    /// a run of [`STAND_IN_UNIT`] longer than every string of the listing
    /// and the agent's id, then the value's position, so that it equals
    /// none of them and no other stand-in.
    fn finish(mut self) -> Records {
        let run = vec![STAND_IN_UNIT; self.longest + 1];
        let mut values = Vec::with_capacity(self.others.len());
        for (position, (index, is_title, value)) in self.others.into_iter().enumerate() {
            let mut units = run.clone();
            units.extend(position.to_string().encode_utf16());
            let stand_in = JsString::from_units(units);
            if let Some(record) = self.records.get_mut(index) {
                if is_title {
                    record.title = Some(stand_in.clone());
                } else {
                    record.id = stand_in.clone();
                }
            }
            values.push((stand_in, value));
        }
        let agent_id = match &self.agent_id {
            Some(Json::String(id)) => id.clone(),
            // No listed string equals a string this long.
            _ => JsString::from_units(run),
        };
        Records {
            records: self.records,
            stand_ins: StandIns { agent_id, values },
        }
    }
}

/// JavaScript's `===` between two values `JSON.parse` built, of which
/// `listed` is not a string: objects and arrays are never the same object.
fn strictly_equal(agent: &Json, listed: &Json) -> bool {
    match (agent, listed) {
        (Json::Null, Json::Null) => true,
        (Json::Bool(a), Json::Bool(b)) => a == b,
        (Json::Number(a), Json::Number(b)) => a == b,
        _ => false,
    }
}

/// The string `value` holds, moved out (an empty string left behind), or
/// `None` for any other value.
fn take_text(value: &mut Json) -> Option<JsString> {
    match value {
        Json::String(text) => Some(std::mem::take(text)),
        _ => None,
    }
}
