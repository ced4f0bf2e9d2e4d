//! What is learned of an implementation from its answers (spec
//! `runner.probes`): its JSON spelling and the member edits of each op. It
//! stands in for the answers not asked, first, before any probe, and past
//! the allowance.

use super::questions::{prompt_data, reference_answer, Probe};
use crate::features::Features;
use crate::harness::runner::members::{apply_edits, member_edits, names_read_back, MemberEdit};
use crate::harness::runner::ops;
use crate::js::json::Json;
use crate::js::JsString;
use crate::protocol::wire::Outcome;
use std::borrow::Cow;
use std::collections::HashMap;

/// What was learned of an implementation in a run.
pub(super) struct LearnedModel {
    /// Its JSON spelling, learned from its `json/tag-safe` answers; `None`
    /// once an answer refuted it.
    spelling: Option<Spelling>,
    /// For each op other than `json/tag-safe`, the member edits learned
    /// from its answers (every answer they were learned from is the
    /// reference's with them made).
    edits: HashMap<&'static str, Vec<MemberEdit>>,
    /// Whether `retain` is asked: where it is not, what a preparation
    /// retains of its sources teaches `retain`'s member edits.
    retain_asked: bool,
}

impl LearnedModel {
    /// Nothing learned yet: the reference's spelling, no edit.
    pub(super) fn new(retain_asked: bool) -> LearnedModel {
        LearnedModel {
            spelling: Some(Spelling::default()),
            edits: HashMap::new(),
            retain_asked,
        }
    }

    /// Learns from the implementation's answer to a question (spec
    /// `runner.probes`): its JSON spelling from `json/tag-safe` (an answer
    /// that spaces a gap otherwise than an earlier one refutes it for the
    /// run), the member edits another op's answer is the reference's with.
    pub(super) fn learn(&mut self, op: &str, expected: &Outcome, actual: &Result<Outcome, String>) {
        let (Outcome::Output(ours), Ok(Outcome::Output(theirs))) = (expected, actual) else {
            return;
        };
        if op != "json/tag-safe" {
            return self.learn_edits(op, ours, theirs);
        }
        let (Json::String(ours), Json::String(theirs)) = (ours, theirs) else {
            return;
        };
        let learned = self
            .spelling
            .as_mut()
            .map(|spelling| spelling.learn(ours.units(), theirs.units()));
        if learned == Some(Learned::Refuted) {
            self.spelling = None;
        }
    }

    /// Learns the member edits that make the reference's output `ours` of
    /// `op` into the implementation's `theirs`.
    fn learn_edits(&mut self, op: &str, ours: &Json, theirs: &Json) {
        let Some(op) = ops::known_ops().find(|known| *known == op) else {
            return;
        };
        let mut taught = vec![(op, member_edits(ours, theirs))];
        // A preparation writes each source's retained data into its
        // prompt: where `retain` cannot be asked, their member edits are
        // what is learned of it.
        if op == "prepare" && !self.retain_asked {
            let data = |output: &Json| match output.get("additionalContext").and_then(prompt_data) {
                Some(Json::Array(sources)) => sources,
                _ => Vec::new(),
            };
            for (ours, theirs) in data(ours).iter().zip(&data(theirs)) {
                taught.push(("retain", member_edits(ours, theirs)));
            }
        }
        for (op, edits) in taught {
            let learned = self.edits.entry(op).or_default();
            for edit in edits.into_iter().flatten() {
                if !learned.contains(&edit) {
                    learned.push(edit);
                }
            }
        }
        self.edits.retain(|_, edits| !edits.is_empty());
    }

    /// Whether something that differs from the reference was learned of
    /// `op`.
    pub(super) fn differs(&self, op: &str) -> bool {
        match op {
            "json/tag-safe" => self.spelling.as_ref().is_some_and(Spelling::differs),
            _ => self.edits.contains_key(op),
        }
    }

    /// Whether something that differs from the reference was learned of
    /// `op` or of an op it is composed of ([`ops::composed_of`], which
    /// lists them all): what was learned can stand in for its answers.
    pub(super) fn differs_within(&self, op: &str) -> bool {
        self.differs(op) || ops::composed_of(op).iter().any(|lower| self.differs(lower))
    }

    /// The implementation's answer to a question as what was learned of it
    /// writes it: the reference's answer (at `features`) spelled as learned
    /// (when every gap of it was seen), or with the learned member edits
    /// made.
    pub(super) fn stand_in(&self, features: Features, probe: &Probe) -> Option<Outcome> {
        if !self.differs(probe.op) {
            return None;
        }
        let Outcome::Output(ours) = reference_answer(features, probe.op, &probe.input) else {
            return None;
        };
        if probe.op != "json/tag-safe" {
            let edits = self.edits.get(probe.op)?;
            return Some(Outcome::Output(apply_edits(&ours, edits)));
        }
        let spelling = self.spelling.as_ref()?;
        let spelled = spelling.spell(ours.as_js_str()?.units())?;
        Some(Outcome::Output(Json::String(JsString::from_units(spelled))))
    }

    /// `answer` of `op` with the member edits learned of `op` made.
    pub(super) fn edited(&self, op: &str, answer: &Json) -> Json {
        let edits = self.edits.get(op).map(Vec::as_slice);
        apply_edits(answer, edits.unwrap_or_default())
    }

    /// An answer of `op` as the op composed of it reads it (spec
    /// `runner.probes`): its members in the reference's names where `op`
    /// was learned to rename them ([`names_read_back`]).
    pub(super) fn read_back(&self, op: &str, answer: Outcome) -> Outcome {
        match (answer, self.renamed_back(op)) {
            (Outcome::Output(output), Some(back)) => Outcome::Output(apply_edits(&output, &back)),
            (answer, _) => answer,
        }
    }

    /// The edits that read `op`'s answers back in the reference's member
    /// names, when `op` was learned to rename some.
    pub(super) fn renamed_back(&self, op: &str) -> Option<Vec<MemberEdit>> {
        let back = names_read_back(self.edits.get(op)?);
        (!back.is_empty()).then_some(back)
    }
}

/// `answer` read with `back`, the edits that name its members as the
/// reference does ([`names_read_back`]); itself without.
pub(super) fn read_in<'a>(back: Option<&[MemberEdit]>, answer: &'a Json) -> Cow<'a, Json> {
    match back {
        Some(back) => Cow::Owned(apply_edits(answer, back)),
        None => Cow::Borrowed(answer),
    }
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
