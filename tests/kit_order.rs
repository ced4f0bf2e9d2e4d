//! The kit's typed handlers answer an ill-typed member as upstream does,
//! in upstream's order of checks (spec `protocol.input-types`): a typed
//! port on the kit that declares `dynamic-inputs` and answers every
//! well-typed request as the reference does fails no vector whose input
//! has an ill-typed member, those where a well-typed member's own failure
//! comes first included (`candidates.config.before-query`,
//! `prepare.normalize.self-before-null`).

use dsh_session_reference::error::{Error, ErrorCode, Failure};
use dsh_session_reference::features::Features;
use dsh_session_reference::harness::runner::adapter::{BuiltIn, Description, Implementation};
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::harness::runner::{self, Selection, Status};
use dsh_session_reference::js::json;
use dsh_session_reference::protocol::dispatch::handle_in;
use dsh_session_reference::protocol::input_types::first_ill_typed;
use dsh_session_reference::protocol::kit::Adapter;
use dsh_session_reference::protocol::wire::Outcome;
use dsh_session_reference::Json;

/// A port on the kit: every op a typed handler (`op_text`) that answers
/// as the reference does.
struct TypedPort {
    generation: Features,
    description: Description,
}

impl Implementation for TypedPort {
    fn describe(&mut self) -> Result<Description, String> {
        Ok(self.description.clone())
    }

    fn call(&mut self, op: &str, input: &Json) -> Result<Outcome, String> {
        let generation = self.generation;
        let features: Vec<&str> = self
            .description
            .features
            .iter()
            .map(String::as_str)
            .collect();
        let mut adapter =
            Adapter::new("typed-port", "0")
                .features(features)
                .op_text(op, move |text| {
                    let input =
                        json::parse(text).map_err(|error| Failure::Internal(error.to_string()))?;
                    match handle_in(generation, op, &input) {
                        Outcome::Output(output) => Ok(json::to_wire(&output)),
                        Outcome::Error { code, message } => {
                            Err(match ErrorCode::from_wire(&code) {
                                Some(code) => Failure::Contract(Error::new(code, message)),
                                None => Failure::Internal(message),
                            })
                        }
                    }
                });
        Ok(adapter.answer(op, input, None))
    }
}

#[test]
fn the_kit_answers_ill_typed_members_in_upstreams_order() {
    let suite = Suite::embedded().expect("the embedded suite");
    for generation in [Features::RC8, Features::NEWEST] {
        let description = BuiltIn(generation).describe().expect("describes itself");
        let mut port = TypedPort {
            generation,
            description: description.clone(),
        };
        let ill_typed = |id: &str| {
            suite
                .find(id)
                .is_some_and(|(_, vector)| first_ill_typed(&vector.op, &vector.input).is_some())
        };
        let report = runner::run(
            &suite,
            &mut port,
            &description,
            &Selection::default(),
            |_, _| {},
        );
        let failed: Vec<&str> = report
            .results
            .iter()
            .filter(|result| matches!(result.status, Status::Failed(_)) && ill_typed(&result.id))
            .map(|result| result.id.as_str())
            .collect();
        assert!(failed.is_empty(), "{generation:?}: {failed:?}");
    }
}
