//! The order of checks, explored exhaustively in a small scope (spec
//! `runner.differential.reach`, `pre-step.errors`): every order of one to
//! three `pre-step` messages, each passing every check or failing at one
//! tier, under each cancel stage. Random draws rarely put a cancel stage
//! beside a later message's failure; a port that checks in another order
//! than upstream differs on a handful of these inputs only, so each of them
//! is sent once, after the drawn cases.
//!
//! The same inputs are the vectors of `pre-step/order-of-checks.json`,
//! whose expectations come from the oracles (a test holds the two equal).

use crate::js::json::{self, Json};

/// One message of the scope: what it mentions, and the text that does.
const MESSAGES: &[(&str, &str)] = &[
    // Passes every check; `s1` is truncated at the budget (a save to cancel).
    ("ok", "see dsh-session:InMxIg"),
    // Tier 1: a scheme that does not parse.
    ("parse", "what is dsh-session:foo"),
    // Tier 2: the agent itself.
    ("self", "see dsh-session:Im1lIg"),
    // Tier 3: a session the store lacks.
    ("read", "see dsh-session:InM5Ig"),
    // Tier 3: a session whose record cannot fit the budget.
    ("budget", "see dsh-session:InNiIg"),
];

/// The cancel stages: before the step, at its 1st to 3rd read, at its
/// first spill save (spec `prepare.cancel`, `prepare.cancel.stage`).
const STAGES: &[(&str, &str)] = &[
    ("cancelled", "true"),
    ("on-read-1", r#"{"onRead":1}"#),
    ("on-read-2", r#"{"onRead":2}"#),
    ("on-read-3", r#"{"onRead":3}"#),
    ("on-save-1", r#"{"onSave":1}"#),
];

/// The session a message of `kind` mentions, as the store holds it.
fn session(kind: &str) -> Option<(&'static str, String)> {
    let snapshot = |id: &str, cwd: &str, text: &str| {
        format!(
            r#"{{"session":{{"id":"{id}","cwd":"{cwd}"}},"capturedThroughSeq":2,"events":[{{"type":"user/message","data":{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"{text}"}}]}}}},{{"type":"assistant/message","data":{{"message":{{"content":[{{"type":"text","text":"noted"}}]}}}}}}]}}"#
        )
    };
    match kind {
        "ok" => Some(("s1", snapshot("s1", "/w", &"plan ".repeat(40)))),
        "budget" => Some(("sb", snapshot("sb", &format!("/{}", "w".repeat(220)), "hi"))),
        _ => None,
    }
}

/// Every case of the scope: its name (`ok-self.on-read-1`: the messages'
/// kinds, then the stage) and its `pre-step` input, in a fixed order.
pub fn cases() -> Vec<(String, Json)> {
    let mut orders: Vec<Vec<usize>> = Vec::new();
    for length in 1..=3u32 {
        let count = MESSAGES.len().pow(length);
        for mut code in 0..count {
            let mut order = vec![0; length as usize];
            for slot in order.iter_mut().rev() {
                *slot = code % MESSAGES.len();
                code /= MESSAGES.len();
            }
            orders.push(order);
        }
    }
    let mut cases = Vec::with_capacity(orders.len() * STAGES.len());
    for order in &orders {
        let kinds: Vec<&str> = order.iter().map(|&at| MESSAGES[at].0).collect();
        let messages: Vec<String> = order
            .iter()
            .map(|&at| {
                format!(
                    r#"{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"{}"}}]}}"#,
                    MESSAGES[at].1
                )
            })
            .collect();
        let mut sessions: Vec<(&str, String)> = Vec::new();
        for kind in ["ok", "budget"] {
            if kinds.contains(&kind) {
                sessions.extend(session(kind));
            }
        }
        let sessions: Vec<String> = sessions
            .iter()
            .map(|(id, snapshot)| format!(r#""{id}":{snapshot}"#))
            .collect();
        for (stage, cancel) in STAGES {
            let text = format!(
                r#"{{"config":{{"maxReferenceBytes":200}},"agent":{{"id":"me","cwd":"/w"}},"messages":[{}],"sessions":{{{}}},"cancel":{cancel},"spill":{{"mode":"saves"}}}}"#,
                messages.join(","),
                sessions.join(",")
            );
            if let Ok(input) = json::parse(&text) {
                cases.push((format!("{}.{stage}", kinds.join("-")), input));
            }
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every order of one to three of the five messages, under each of the
    /// five stages.
    #[test]
    fn the_scope_is_every_order_under_every_stage() {
        let cases = cases();
        assert_eq!(cases.len(), (5 + 25 + 125) * 5);
        assert_eq!(cases[0].0, "ok.cancelled");
        assert!(cases.iter().any(|(name, _)| name == "ok-ok-self.on-read-1"));
        let names: std::collections::BTreeSet<&str> =
            cases.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names.len(), cases.len(), "names are unique");
    }

    /// The vectors of `pre-step/order-of-checks.json` are the scope's
    /// cases that answer an error, named after them: every case whose
    /// answer is an error in the reference, in every release, has its
    /// vector (the small scope and the vectors cannot drift apart).
    #[test]
    fn the_order_vectors_are_the_scope_s_failing_cases() {
        use crate::features::Features;
        use crate::harness::runner::vectors::Suite;
        let suite = Suite::embedded().expect("the embedded suite");
        let vectors: Vec<_> = suite
            .files
            .iter()
            .flat_map(|file| &file.vectors)
            .filter(|vector| vector.id.starts_with("pre-step.order."))
            .collect();
        let scope = cases();
        for vector in &vectors {
            let name = &vector.id["pre-step.order.".len()..];
            assert!(
                scope
                    .iter()
                    .any(|(case, input)| name.starts_with(case.as_str()) && *input == vector.input),
                "{} is no case of the scope",
                vector.id
            );
        }
        for features in [Features::RC8, Features::NEWEST] {
            for (case, input) in &scope {
                let answer = crate::protocol::dispatch::handle_in(features, "pre-step", input);
                if matches!(answer, crate::protocol::wire::Outcome::Error { .. }) {
                    assert!(
                        vectors.iter().any(|vector| vector.input == *input),
                        "{case} answers an error and has no vector"
                    );
                }
            }
        }
    }
}
