//! Configuration of session references and its validation (spec `config.*`).

use crate::error::{Error, ErrorCode};
use crate::features::Features;
use crate::js::coerce::to_number;
use crate::js::json::Json;
use crate::reach;

/// The hard maximum of references one message may carry.
pub const MAX_REFERENCES: usize = 3;
/// The default number of discovery candidates.
pub const DEFAULT_CANDIDATE_LIMIT: u64 = 50;
/// The budget used when nothing better is known: 64 KiB per reference.
pub const DEFAULT_MAX_REFERENCE_BYTES: u64 = 65_536;
/// The default share of the model's context given to references.
pub const DEFAULT_REFERENCE_CONTEXT_FRACTION: f64 = 0.2;
/// Largest integer a JavaScript number holds exactly: `Number.MAX_SAFE_INTEGER`.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A validated configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// The behaviours preparation follows.
    pub features: Features,
    /// Distinct references allowed per message, 1 to 3.
    pub max_references: usize,
    /// Discovery candidates returned by default.
    pub candidate_limit: u64,
    /// A fixed per-reference budget; `None` means automatic.
    pub max_reference_bytes: Option<u64>,
    /// Share of the model context for references when the budget is automatic.
    pub reference_context_fraction: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            features: Features::NEWEST,
            max_references: MAX_REFERENCES,
            candidate_limit: DEFAULT_CANDIDATE_LIMIT,
            max_reference_bytes: None,
            reference_context_fraction: DEFAULT_REFERENCE_CONTEXT_FRACTION,
        }
    }
}

/// `Number.isSafeInteger(value) && value > 0`, as a count.
pub fn positive_safe_integer(value: &Json) -> Option<u64> {
    match value {
        Json::Number(n) if n.fract() == 0.0 && *n > 0.0 && *n <= MAX_SAFE_INTEGER => {
            Some(*n as u64)
        }
        _ => None,
    }
}

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidConfig, message)
}

impl Config {
    /// Validates a configuration object. Absent and `null` members take their
    /// defaults (spec `config.null-is-absent`); the integers are checked in
    /// the order maxReferences, candidateLimit, maxReferenceBytes (spec
    /// `config.positive-integers`), then the maximum of references (spec
    /// `config.max-references`), then the fraction (spec `config.fraction`).
    /// Without `automatic-budget`, `maxReferenceBytes` defaults to 64 KiB;
    /// without `context-fraction` the fraction is not read; with it but
    /// without `config-fraction-type`, a fraction of another type is read
    /// as JavaScript compares it (`config.fraction-type`).
    pub fn from_json(config: Option<&Json>, features: Features) -> Result<Config, Error> {
        let member = |name: &str| {
            config.and_then(|config| config.get(name)).filter(|value| {
                let present = **value != Json::Null;
                if !present {
                    reach::point("config.null-is-absent");
                }
                present
            })
        };
        let integer = |name: &str, default: Option<u64>| -> Result<Option<u64>, Error> {
            match member(name) {
                None => {
                    reach::point("config.defaults");
                    Ok(default)
                }
                Some(value) => {
                    reach::point("config.positive-integers");
                    if !matches!(value, Json::Number(_)) {
                        reach::point("config.wrong-type");
                    }
                    positive_safe_integer(value).map(Some).ok_or_else(|| {
                        invalid(format!(
                            "session-reference: {name} must be a positive safe integer"
                        ))
                    })
                }
            }
        };
        let max_references = integer("maxReferences", Some(MAX_REFERENCES as u64))?.unwrap_or(3);
        let candidate_limit =
            integer("candidateLimit", Some(DEFAULT_CANDIDATE_LIMIT))?.unwrap_or(50);
        let fixed_default = (!features.automatic_budget).then_some(DEFAULT_MAX_REFERENCE_BYTES);
        let max_reference_bytes = integer("maxReferenceBytes", fixed_default)?;
        if member("maxReferences").is_some() {
            reach::point("config.max-references");
        }
        if max_references > MAX_REFERENCES as u64 {
            return Err(invalid(
                "session-reference: maxReferences must not exceed 3".to_owned(),
            ));
        }
        let reference_context_fraction = match member("referenceContextFraction") {
            _ if !features.context_fraction => DEFAULT_REFERENCE_CONTEXT_FRACTION,
            None => {
                reach::point("config.defaults");
                DEFAULT_REFERENCE_CONTEXT_FRACTION
            }
            Some(Json::Number(f)) => {
                reach::point("config.fraction");
                if features.fraction_type {
                    reach::point("config.fraction-type");
                }
                *f
            }
            Some(_) if features.fraction_type => {
                reach::point("config.fraction-type");
                f64::NAN
            }
            // Upstream compares (and later multiplies) the value as it is.
            Some(other) => to_number(Some(other)),
        };
        if !(0.0..=1.0).contains(&reference_context_fraction) {
            return Err(invalid(
                "session-reference: referenceContextFraction must be between zero and one"
                    .to_owned(),
            ));
        }
        Ok(Config {
            features,
            max_references: max_references as usize,
            candidate_limit,
            max_reference_bytes,
            reference_context_fraction,
        })
    }
}

/// What is known of the capacity of the model a turn runs on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Capacity {
    /// No adapter serves the route.
    NoAdapter,
    /// The model is known but its context window is not.
    Unknown,
    /// The context window in tokens.
    ContextWindow(f64),
    /// The lookup itself failed, for another reason than a missing adapter:
    /// preparation is rejected (spec `prepare.budget.lookup-failed`).
    LookupFailed,
}

/// Looks up a model's context capacity: the host's model registry.
pub trait ModelCatalog {
    /// The capacity of `model` at `provider`.
    fn capacity(&self, provider: &[u16], model: &[u16]) -> Capacity;
}

/// The per-reference byte budget (spec `prepare.budget.fixed`,
/// `prepare.budget.automatic`): an explicit `maxReferenceBytes` wins;
/// otherwise `max(64 KiB, floor(contextWindow × 4 × fraction))` for the
/// route's model, four bytes a token, and 64 KiB when the route, the
/// adapter or the capacity is unknown. A lookup that fails otherwise is
/// `Err(LookupFailed)` (spec `prepare.budget.lookup-failed`): the caller
/// rejects the preparation.
pub fn budget(
    config: &Config,
    route: Option<(&[u16], &[u16])>,
    models: &dyn ModelCatalog,
) -> Result<u64, LookupFailed> {
    if let Some(fixed) = config.max_reference_bytes {
        reach::point("prepare.budget.fixed");
        return Ok(fixed);
    }
    let Some((provider, model)) = route else {
        reach::point("prepare.budget.automatic");
        return Ok(DEFAULT_MAX_REFERENCE_BYTES);
    };
    match models.capacity(provider, model) {
        Capacity::ContextWindow(tokens) => {
            reach::point("prepare.budget.automatic");
            let bytes = (tokens * 4.0 * config.reference_context_fraction).floor();
            // `as` saturates; NaN (an infinite window times zero) becomes 0.
            Ok((bytes as u64).max(DEFAULT_MAX_REFERENCE_BYTES))
        }
        Capacity::NoAdapter | Capacity::Unknown => {
            reach::point("prepare.budget.automatic");
            Ok(DEFAULT_MAX_REFERENCE_BYTES)
        }
        Capacity::LookupFailed => {
            reach::point("prepare.budget.lookup-failed");
            Err(LookupFailed)
        }
    }
}

/// The model lookup of an automatic budget failed for another reason than
/// a missing adapter (spec `prepare.budget.lookup-failed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LookupFailed;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::parse;

    struct Window(f64);
    impl ModelCatalog for Window {
        fn capacity(&self, _: &[u16], _: &[u16]) -> Capacity {
            Capacity::ContextWindow(self.0)
        }
    }

    #[test]
    fn automatic_budgets_match_upstream_examples() {
        let config = Config::default();
        let route: Option<(&[u16], &[u16])> = Some((&[0x70], &[0x6D]));
        for (window, expected) in [
            (131_072.0, 104_857),
            (128_000.0, 102_400),
            (81_919.0, 65_536),
            (81_920.0, 65_536),
            (1_048_576.0, 838_860),
        ] {
            assert_eq!(
                budget(&config, route, &Window(window)),
                Ok(expected),
                "{window}"
            );
        }
        assert_eq!(budget(&config, None, &Window(1e9)), Ok(65_536));
    }

    #[test]
    fn integers_are_checked_in_order() {
        let error = Config::from_json(
            Some(&parse(r#"{"maxReferences":4,"candidateLimit":0}"#).expect("json")),
            Features::NEWEST,
        )
        .expect_err("invalid");
        assert!(
            error.message.contains("candidateLimit"),
            "{}",
            error.message
        );
        assert!(Config::from_json(
            Some(&parse(r#"{"maxReferences":null}"#).expect("json")),
            Features::RC8
        )
        .is_ok());
    }
}

/// A registry that knows no model: every automatic budget is 64 KiB.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoModels;

impl ModelCatalog for NoModels {
    fn capacity(&self, _provider: &[u16], _model: &[u16]) -> Capacity {
        Capacity::NoAdapter
    }
}
