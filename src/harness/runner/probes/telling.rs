//! Telling a conversation apart (spec `runner.causes`, `runner.probes`): a
//! failure whose conversation differs is the projection's, retention's or
//! the budget's as the probes already answered show it, or an `INTERNAL`
//! error's or the model lookup's where no conversation is implicated.

use super::learned::{read_in, LearnedModel};
use super::questions::{agrees, derive, key, retain_question, UNBOUNDED};
use crate::features::Features;
use crate::harness::runner::causes::{self, Cause, Told};
use crate::harness::runner::members::without;
use crate::js::json::Json;
use crate::protocol::dispatch;
use crate::protocol::wire::{Outcome, INTERNAL};
use std::collections::HashMap;

/// What telling reads: the reference's behaviours, the answers the run's
/// probes had (the expected side's and the implementation's with its
/// stderr, by request), and what was learned of the implementation.
pub(super) struct Teller<'a> {
    pub(super) features: Features,
    pub(super) expected: &'a HashMap<String, Result<Outcome, String>>,
    pub(super) answers: &'a HashMap<String, (Result<Outcome, String>, String)>,
    pub(super) learned: &'a LearnedModel,
}

impl Teller<'_> {
    /// What a failed request of `op` whose conversation differs tells once
    /// its probes were answered: `cause` itself unless it is the
    /// conversation's; then the projection's when `op` is `retain` with an
    /// unbounded budget (the projection alone), retention's when the
    /// `retain` of the same snapshot with an unbounded budget agrees, the
    /// budget's when the `retain` of each source of a preparation with the
    /// reference's budget agrees; else (nothing lower was asked) the
    /// conversation's.
    pub(super) fn tell(&self, op: &str, input: &Json, cause: Cause) -> Cause {
        if cause == causes::conversation_cause() && self.lookup_failure_decides(op, input) {
            return causes::lookup_cause();
        }
        if cause != causes::conversation_cause() || !matches!(op, "retain" | "prepare") {
            return cause;
        }
        if op == "retain" && input.get("maxBytes") == Some(&Json::Number(UNBOUNDED)) {
            return causes::told_conversation(Told::Projection);
        }
        let own = dispatch::handle_in(self.features, op, input);
        let retained: Vec<Option<bool>> = derive(self.features, op, input, &own)
            .iter()
            .filter(|probe| probe.op == "retain")
            .map(|probe| {
                let key = key(probe.op, &probe.input);
                let expected = self.expected.get(&key)?.as_ref().ok()?;
                let (actual, _) = self.answers.get(&key)?;
                // Two errors that agree prove nothing of a conversation.
                let output = matches!(expected, Outcome::Output(_));
                Some(output && agrees(expected, actual))
            })
            .collect();
        let agreed = !retained.is_empty() && retained.iter().all(|agrees| *agrees == Some(true));
        match op {
            "retain" if agreed => causes::told_conversation(Told::Retention),
            "prepare" if agreed => causes::told_conversation(Told::Budget),
            _ => cause,
        }
    }

    /// [`Teller::tell`], but a budget told where one side answered
    /// `INTERNAL` is that error's cause (spec `runner.causes`); and when
    /// that leaves a `retain`'s conversation untold, what the
    /// implementation's answer `actual` itself shows
    /// ([`Teller::kept_of_its_projection`]).
    pub(super) fn tell_answered(
        &self,
        op: &str,
        input: &Json,
        cause: Cause,
        actual: &Result<Outcome, String>,
    ) -> Cause {
        let told = self.tell(op, input, cause);
        if let Some(error) = self.internal_not_the_conversation(op, input, &told, actual) {
            return error;
        }
        if told != causes::conversation_cause() || op != "retain" {
            return told;
        }
        let Ok(Outcome::Output(answer)) = actual else {
            return told;
        };
        self.kept_of_its_projection(input, answer).unwrap_or(told)
    }

    /// What a `retain`'s answer `answer` to `input` shows when its data's
    /// members are its projection's and every item it retains is, in
    /// order, an item of that projection (of the same role, the same text
    /// or one cut with a notice): the projection's cause when that
    /// projection's conversation differs from the reference's, else
    /// retention's. The projection is the implementation's own answer to
    /// the projection probe when it was asked, else the reference's (its
    /// projection then agrees as far as the answer shows).
    fn kept_of_its_projection(&self, input: &Json, answer: &Json) -> Option<Cause> {
        // Both answers in the reference's member names, as a composition
        // reads them.
        let back = self.learned.renamed_back("retain");
        let answer = read_in(back.as_deref(), answer);
        let data = answer.get("data")?;
        let retained = data.get("conversation").and_then(Json::as_array)?;
        let snapshot = input.get("snapshot").unwrap_or(&Json::Null);
        let request = retain_question(snapshot, input.get("label"), UNBOUNDED).input;
        let Outcome::Output(reference) = dispatch::handle_in(self.features, "retain", &request)
        else {
            return None;
        };
        let projection = match self.answers.get(&key("retain", &request)) {
            Some((Ok(Outcome::Output(asked)), _)) => read_in(back.as_deref(), asked).into_owned(),
            _ => reference.clone(),
        };
        let fixed = |data: &Json| without(data, &["conversation"]);
        let whole = projection.get("data")?;
        if fixed(whole) != fixed(data) {
            return None;
        }
        let projected = whole
            .get("conversation")
            .and_then(Json::as_array)
            .unwrap_or_default();
        let mut next = 0;
        for item in retained {
            let (Some(role), Some(Json::String(text))) = (item.get("role"), item.get("text"))
            else {
                return None;
            };
            next += 1 + projected[next..].iter().position(|known| {
                known.get("role") == Some(role)
                    && known
                        .get("text")
                        .and_then(Json::as_js_str)
                        .is_some_and(|known| known.units() == text.units() || is_cut(text.units()))
            })?;
        }
        // What it kept is of its projection: the projection's conversation
        // differing from the reference's is what differs, else retention.
        let conversation = |projection: &Json| {
            projection
                .get("data")
                .and_then(|data| data.get("conversation"))
                .cloned()
        };
        Some(causes::told_conversation(
            if conversation(&projection) != conversation(&reference) {
                Told::Projection
            } else {
                Told::Retention
            },
        ))
    }

    /// The cause of an `INTERNAL` error one side answered where the
    /// conversation was told (spec `runner.causes`) but no conversation
    /// is implicated: every source retained alike with the reference's
    /// budget (`told` the budget), or every preparation of a pre-step
    /// answered alike; a crash copying the content, a check elsewhere:
    /// `unexpected error` or `error INTERNAL not raised`, what differs.
    fn internal_not_the_conversation(
        &self,
        op: &str,
        input: &Json,
        told: &Cause,
        actual: &Result<Outcome, String>,
    ) -> Option<Cause> {
        let budget = *told == causes::told_conversation(Told::Budget);
        let pre_step_conversation = *told == causes::conversation_cause() && op == "pre-step";
        if !(budget || pre_step_conversation) {
            return None;
        }
        let expected = dispatch::handle_in(self.features, op, input);
        let internal =
            |answer: &Outcome| matches!(answer, Outcome::Error { code, .. } if code == INTERNAL);
        let error = match (&expected, actual) {
            (Outcome::Output(_), Ok(answer)) if internal(answer) => causes::unexpected_error(op),
            (expected, Ok(Outcome::Output(_))) if internal(expected) => {
                causes::not_raised(INTERNAL)
            }
            _ => return None,
        };
        // A pre-step's preparations, each answered alike (or none).
        let prepared_alike = || {
            derive(self.features, op, input, &expected)
                .iter()
                .filter(|probe| probe.op == "prepare")
                .all(|probe| {
                    let key = key(probe.op, &probe.input);
                    match (self.expected.get(&key), self.answers.get(&key)) {
                        (Some(Ok(expected)), Some((actual, _))) => agrees(expected, actual),
                        _ => false,
                    }
                })
        };
        (budget || prepared_alike()).then_some(error)
    }

    /// Whether the reference's failure of a preparation is its model
    /// lookup's (spec `prepare.budget.lookup-failed`): the request sends a
    /// `models` entry that fails, the reference answers an error, and the
    /// same request without `models` does not fail alike. Such a failure
    /// says nothing of the conversation, which was never read.
    fn lookup_failure_decides(&self, op: &str, input: &Json) -> bool {
        if !matches!(op, "prepare" | "pre-step") {
            return false;
        }
        let Some(Json::Object(models)) = input.get("models") else {
            return false;
        };
        if !models
            .iter()
            .any(|(_, model)| model.get("lookupError").is_some())
        {
            return false;
        }
        let Outcome::Error { code, .. } = dispatch::handle_in(self.features, op, input) else {
            return false;
        };
        let without_models = Json::Object(without(input, &["models"]));
        !matches!(
            dispatch::handle_in(self.features, op, &without_models),
            Outcome::Error { code: other, .. } if other == code
        )
    }
}

/// Whether a retained text is a cut one: it holds an omission notice,
/// `\n[` then the implementation's words (spec `retention.notice`; a port
/// may word it otherwise), or nothing is left of it.
fn is_cut(text: &[u16]) -> bool {
    text.is_empty()
        || text
            .windows(2)
            .any(|pair| pair == [u16::from(b'\n'), u16::from(b'[')])
}
