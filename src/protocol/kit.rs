//! A kit for writing a conformance adapter in Rust (spec
//! `protocol.framing`, `protocol.ops`): register a closure per op, and the
//! kit reads requests with exact JavaScript strings, answers `describe`,
//! answers `UNSUPPORTED` for every op not registered, and writes each answer
//! as one flushed line.
//!
//! Requests may carry lone surrogates (`"\ud800"`), which `serde_json`
//! refuses to read into a `String`; the kit reads them into [`Json`] and
//! [`JsString`] (UTF-16 code units), so every request can at least be
//! answered with its own id. A port whose strings are Rust `String`s
//! converts with [`JsString::to_str`] and answers what it cannot represent
//! as it sees fit (see `conformance/adapters/rust/README.md`).
//!
//! ```
//! use dsh_session_reference::protocol::kit::{string_field, Adapter};
//! use dsh_session_reference::{uri, Json};
//!
//! let adapter = Adapter::new("my-port", "0.1.0")
//!     .features(["uri"])
//!     .op("uri/encode", |input| {
//!         let session_id = string_field(input, "sessionId")?;
//!         Ok(Json::str(&uri::encode(session_id.units())))
//!     });
//! let requests = concat!(
//!     r#"{"id":"1","op":"uri/encode","input":{"sessionId":"s1"}}"#, "\n",
//!     r#"{"id":"2","op":"mention/parse","input":{"text":""}}"#, "\n",
//! );
//! let mut answers = Vec::new();
//! adapter.serve(requests.as_bytes(), &mut answers).unwrap();
//! let answers = String::from_utf8(answers).unwrap();
//! assert_eq!(
//!     answers.lines().collect::<Vec<_>>(),
//!     [
//!         r#"{"id":"1","output":"dsh-session:InMxIg"}"#,
//!         r#"{"id":"2","error":{"code":"UNSUPPORTED","message":"op \"mention/parse\" is not provided"}}"#,
//!     ]
//! );
//! ```
//!
//! In a real adapter, `serve` reads `std::io::stdin().lock()` and writes
//! `std::io::stdout().lock()`; `conformance/adapters/rust/` is a complete
//! template.

use super::server::serve_with;
use super::wire::{Outcome, UNSUPPORTED};
use crate::error::Failure;
use crate::js::json::Json;
use crate::js::JsString;
use std::io::{self, BufRead, Write};

/// What an op handler answers: an output, or a failure (a contract error
/// with its stable code, or [`Failure::Internal`] for anything else).
pub type OpResult = Result<Json, Failure>;

type Handler<'a> = Box<dyn FnMut(&Json) -> OpResult + 'a>;

/// An adapter under construction: name, version, declared features and
/// capabilities, and one handler per provided op.
pub struct Adapter<'a> {
    name: String,
    version: String,
    features: Vec<String>,
    capabilities: Vec<String>,
    ops: Vec<(String, Handler<'a>)>,
}

impl<'a> Adapter<'a> {
    /// An adapter that describes itself as `name` `version`, with no
    /// features and no ops yet.
    pub fn new(name: &str, version: &str) -> Self {
        Adapter {
            name: name.to_owned(),
            version: version.to_owned(),
            features: Vec::new(),
            capabilities: Vec::new(),
            ops: Vec::new(),
        }
    }

    /// Declares features (spec `protocol.features`): the vectors of these
    /// features are run.
    pub fn features<'f>(mut self, features: impl IntoIterator<Item = &'f str>) -> Self {
        self.features
            .extend(features.into_iter().map(str::to_owned));
        self
    }

    /// Declares capabilities (spec `protocol.capabilities`), such as
    /// `lone-surrogates`: vectors that require one run only when it is
    /// declared.
    pub fn capabilities<'c>(mut self, capabilities: impl IntoIterator<Item = &'c str>) -> Self {
        self.capabilities
            .extend(capabilities.into_iter().map(str::to_owned));
        self
    }

    /// Provides `op` (such as `uri/decode`) with `handler`, which gets the
    /// request's `input` object. A later handler for the same op replaces
    /// an earlier one.
    pub fn op(mut self, op: &str, handler: impl FnMut(&Json) -> OpResult + 'a) -> Self {
        self.ops.retain(|(name, _)| name != op);
        self.ops.push((op.to_owned(), Box::new(handler)));
        self
    }

    /// The `describe` output: `{name, version, protocol, features,
    /// capabilities}`.
    pub fn describe(&self) -> Json {
        let list =
            |items: &[String]| Json::Array(items.iter().map(|item| Json::str(item)).collect());
        Json::object([
            ("name", Json::str(&self.name)),
            ("version", Json::str(&self.version)),
            ("protocol", Json::Number(1.0)),
            ("features", list(&self.features)),
            ("capabilities", list(&self.capabilities)),
        ])
    }

    /// Answers one request.
    pub fn answer(&mut self, op: &str, input: &Json) -> Outcome {
        if op == "describe" {
            return Outcome::Output(self.describe());
        }
        match self.ops.iter_mut().find(|(name, _)| name == op) {
            Some((_, handler)) => handler(input).map_or_else(Outcome::from, Outcome::Output),
            None => Outcome::Error {
                code: UNSUPPORTED.to_owned(),
                message: format!("op {op:?} is not provided"),
            },
        }
    }

    /// Serves requests from `input` (one per line) until it closes,
    /// answering each on `output`.
    pub fn serve(mut self, input: impl BufRead, output: impl Write) -> io::Result<()> {
        serve_with(input, output, |op, request_input| {
            self.answer(op, request_input)
        })
    }
}

/// The string member `name` of an op's input, or an `INTERNAL` failure
/// saying it is missing.
pub fn string_field<'j>(input: &'j Json, name: &str) -> Result<&'j JsString, Failure> {
    input
        .get(name)
        .and_then(Json::as_js_str)
        .ok_or_else(|| Failure::Internal(format!("input.{name} must be a string")))
}
