//! A kit for writing a conformance adapter in Rust (spec
//! `protocol.framing`, `protocol.ops`, `protocol.input-types`): register a
//! handler per op, and the kit reads requests with exact JavaScript
//! strings, answers `describe`, answers `UNSUPPORTED` for every op not
//! registered, and writes each answer as one flushed line.
//!
//! A handler comes in one of three kinds:
//! - [`Adapter::op`] takes the input as [`Json`] and answers [`Json`]: exact
//!   JavaScript strings and numbers, any JSON type in any member (a port
//!   that reads inputs as upstream does; it may declare `dynamic-inputs`);
//! - [`Adapter::op_text`] takes the input as the raw JSON text the request
//!   holds (spellings such as `1.0` or `9007199254740993` as written) and
//!   answers raw JSON text, which the kit checks is one JSON value;
//! - `Adapter::op_serde` (feature `serde_json`) decodes the input into the
//!   port's own `Deserialize` type and encodes its `Serialize` answer.
//!
//! Typed handlers ([`Adapter::op_text`], `Adapter::op_serde`) are called
//! only with inputs whose typed members have their declared JSON types
//! ([`input_types`]): the kit answers any other input itself with what
//! upstream answers, which is what the reference answers
//! ([`dispatch::handle_in`], with the behaviours the declared features
//! name): the member's code, a well-typed member's own failure where
//! upstream checks it first (a configuration before the query, a
//! reference to the agent itself before a later ill-typed reference), or
//! the output upstream reads out of the value. An input the port's type still
//! cannot decode (a member it requires is absent, a lone surrogate in a
//! Rust `String`) is answered `INTERNAL` with the decoder's message.
//!
//! Requests may carry lone surrogates (`"\ud800"`), which `serde_json`
//! refuses to read into a `String`; the kit reads them into [`Json`] and
//! [`JsString`](crate::js::JsString) (UTF-16 code units), so every request can at least be
//! answered with its own id.
//!
//! ```
//! use dsh_session_reference::protocol::kit::{string_field, Adapter};
//! use dsh_session_reference::{uri, Json};
//!
//! let adapter = Adapter::new("my-port", "0.1.0")
//!     .features(["uri", "mention"])
//!     .op("uri/encode", |input| {
//!         let session_id = string_field(input, "sessionId")?;
//!         Ok(Json::str(&uri::encode(session_id.units())))
//!     })
//!     // The raw input text in, raw JSON text out; `text` is a string here.
//!     .op_text("mention/parse", |input| Ok(format!("{{\"echo\":{input}}}")));
//! let requests = concat!(
//!     r#"{"id":"1","op":"uri/encode","input":{"sessionId":"s1"}}"#, "\n",
//!     r#"{"id":"2","op":"mention/parse","input":{"text":"a", "n":1.0}}"#, "\n",
//!     r#"{"id":"3","op":"mention/parse","input":{"text":5}}"#, "\n",
//!     r#"{"id":"4","op":"uri/decode","input":{"uri":""}}"#, "\n",
//! );
//! let mut answers = Vec::new();
//! adapter.serve(requests.as_bytes(), &mut answers).unwrap();
//! let answers = String::from_utf8(answers).unwrap();
//! assert_eq!(
//!     answers.lines().collect::<Vec<_>>(),
//!     [
//!         r#"{"id":"1","output":"dsh-session:InMxIg"}"#,
//!         r#"{"id":"2","output":{"echo":{"text":"a","n":1}}}"#,
//!         r#"{"id":"3","error":{"code":"INTERNAL","message":"input.text is not a string (protocol.input-types: upstream answers INTERNAL)"}}"#,
//!         r#"{"id":"4","error":{"code":"UNSUPPORTED","message":"op \"uri/decode\" is not provided"}}"#,
//!     ]
//! );
//! ```
//!
//! In a real adapter, `serve` reads `std::io::stdin().lock()` and writes
//! `std::io::stdout().lock()`; `conformance/adapters/rust/` is a complete
//! template on [`Json`] handlers, `conformance/adapters/rust-serde/` one on
//! serde types.

pub use super::input_types::string_field;

use super::dispatch;
use super::input_types;
use super::scan::{id_of_too_deep, raw_member};
use super::wire::{Outcome, Request, Response, UNSUPPORTED};
use crate::error::Failure;
use crate::features::{Declared, Features};
use crate::js::json::{self, Json};
use std::io::{self, BufRead, Write};

/// What an op handler answers: an output, or a failure (a contract error
/// with its stable code, or [`Failure::Internal`] for anything else).
pub type OpResult = Result<Json, Failure>;

/// What a raw-text handler answers: one JSON value as text, or a failure.
pub type TextResult = Result<String, Failure>;

/// A registered handler, by the form of input it takes.
enum Handler<'a> {
    /// The parsed input, any JSON type in any member.
    Json(Box<dyn FnMut(&Json) -> OpResult + 'a>),
    /// The input's raw text, typed members of their declared types.
    Text(Box<dyn FnMut(&str) -> TextResult + 'a>),
}

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
    /// features, no capabilities and no ops yet. Declaring no capability
    /// needs no call: a typed port usually declares none.
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
    pub fn features<'f>(mut self, features: impl AsRef<[&'f str]>) -> Self {
        self.features
            .extend(features.as_ref().iter().map(|f| (*f).to_owned()));
        self
    }

    /// Declares capabilities (spec `protocol.capabilities`), such as
    /// `lone-surrogates`: vectors that require one run only when it is
    /// declared. `[]` declares none, as not calling it does.
    pub fn capabilities<'c>(mut self, capabilities: impl AsRef<[&'c str]>) -> Self {
        self.capabilities
            .extend(capabilities.as_ref().iter().map(|c| (*c).to_owned()));
        self
    }

    /// Provides `op` (such as `uri/decode`) with `handler`, which gets the
    /// request's `input` object as it is, of any JSON types. A later
    /// handler for the same op replaces an earlier one.
    pub fn op(self, op: &str, handler: impl FnMut(&Json) -> OpResult + 'a) -> Self {
        self.register(op, Handler::Json(Box::new(handler)))
    }

    /// Provides `op` with `handler`, which gets the request's `input`
    /// object as the raw JSON text the request holds, and answers the
    /// output as JSON text. It is called only when every typed member of
    /// the input has its declared type (spec `protocol.input-types`); the
    /// kit answers any other input itself. An answer that is not one JSON
    /// value is answered `INTERNAL`.
    pub fn op_text(self, op: &str, handler: impl FnMut(&str) -> TextResult + 'a) -> Self {
        self.register(op, Handler::Text(Box::new(handler)))
    }

    /// Provides `op` with `handler`, which gets the request's `input`
    /// decoded by `serde_json` into `I` and answers an `O` that the kit
    /// encodes (member order as `O` serializes it: the protocol's order is
    /// part of the output). As [`Adapter::op_text`], it is called only with
    /// well-typed inputs; an input `I` still cannot be decoded from is
    /// answered `INTERNAL` with serde's message.
    #[cfg(feature = "serde_json")]
    pub fn op_serde<I, O>(
        self,
        op: &str,
        mut handler: impl FnMut(I) -> Result<O, Failure> + 'a,
    ) -> Self
    where
        I: serde::de::DeserializeOwned,
        O: serde::Serialize,
    {
        self.op_text(op, move |input| {
            // The kit has read the request already, so its depth is within
            // `json::MAX_DEPTH` (spec `wire.json.depth`): serde_json's own
            // limit of 128 levels would refuse the depth vectors.
            let mut decoder = serde_json::Deserializer::from_str(input);
            decoder.disable_recursion_limit();
            let input = serde::Deserialize::deserialize(&mut decoder)
                .and_then(|input: I| decoder.end().map(|()| input))
                .map_err(|error| {
                    Failure::Internal(format!("the input does not decode: {error}"))
                })?;
            let output = handler(input)?;
            serde_json::to_string(&output)
                .map_err(|error| Failure::Internal(format!("the output does not encode: {error}")))
        })
    }

    fn register(mut self, op: &str, handler: Handler<'a>) -> Self {
        self.ops.retain(|(name, _)| name != op);
        self.ops.push((op.to_owned(), handler));
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

    /// The behaviours the declared features name (spec
    /// `protocol.features`): the reference answers ill-typed inputs with
    /// them.
    fn behaviours(&self) -> Features {
        Declared::from_names(self.features.iter().map(String::as_str)).features
    }

    /// Answers one request whose input is `input`, written as `raw_input`
    /// in the request line (`None` when it cannot be located, as for a
    /// request built in memory: the parsed input is written anew).
    pub fn answer(&mut self, op: &str, input: &Json, raw_input: Option<&str>) -> Outcome {
        if op == "describe" {
            return Outcome::Output(self.describe());
        }
        let Some((_, handler)) = self.ops.iter_mut().find(|(name, _)| name == op) else {
            return Outcome::Error {
                code: UNSUPPORTED.to_owned(),
                message: format!("op {op:?} is not provided"),
            };
        };
        let answer = match handler {
            Handler::Json(handler) => handler(input),
            Handler::Text(handler) => {
                if let Some(ill_typed) = input_types::first_ill_typed(op, input) {
                    return ill_typed_answer(self.behaviours(), op, input, &ill_typed);
                }
                let written;
                let text = match raw_input {
                    Some(text) => text,
                    None => {
                        written = json::to_wire(input);
                        &written
                    }
                };
                handler(text).and_then(|output| {
                    json::parse(&output).map_err(|error| {
                        Failure::Internal(format!(
                            "the handler's output is not one JSON value: {error}"
                        ))
                    })
                })
            }
        };
        answer.map_or_else(Outcome::from, Outcome::Output)
    }

    /// Serves requests from `input` (one per line) until it closes,
    /// answering each on `output`: blank lines are skipped, a line that is
    /// not a request is answered `INTERNAL` with `id: null`, and every
    /// answer is flushed as soon as it is written.
    pub fn serve(mut self, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            if input.read_until(b'\n', &mut buffer)? == 0 {
                return Ok(());
            }
            let line = buffer.strip_suffix(b"\n").unwrap_or(&buffer);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let text = std::str::from_utf8(line).ok();
            let line = text.ok_or_else(|| "request is not UTF-8".to_owned());
            let response = match line.and_then(|line| Ok((line, Request::from_line(line)?))) {
                Ok((line, request)) => Response {
                    outcome: self.answer(&request.op, &request.input, raw_member(line, "input")),
                    id: Some(request.id),
                },
                Err(problem) => Response {
                    id: text.and_then(id_of_too_deep),
                    outcome: Outcome::internal(problem),
                },
            };
            let mut text = response.to_line();
            text.push('\n');
            output.write_all(text.as_bytes())?;
            output.flush()?;
        }
    }
}

/// The answer to an input whose member `ill_typed` has another type than
/// declared: the reference's, which reads every member as upstream does and
/// checks in upstream's order (spec `protocol.input-types`).
fn ill_typed_answer(
    features: Features,
    op: &str,
    input: &Json,
    ill_typed: &input_types::IllTyped,
) -> Outcome {
    match dispatch::handle_in(features, op, input) {
        Outcome::Error { code, .. } => Outcome::Error {
            message: format!(
                "{} (protocol.input-types: upstream answers {code})",
                ill_typed.describe()
            ),
            code,
        },
        output @ Outcome::Output(_) => output,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_members_are_found_as_written() {
        let line =
            r#"{"id":"1", "op" : "x","input":{"a":[1.0,"}\"]"],"b":9007199254740993} ,"z":true}"#;
        assert_eq!(
            raw_member(line, "input"),
            Some(r#"{"a":[1.0,"}\"]"],"b":9007199254740993}"#)
        );
        assert_eq!(raw_member(line, "op"), Some(r#""x""#));
        assert_eq!(raw_member(line, "z"), Some("true"));
        assert_eq!(
            raw_member(r#"{"input":1,"inp\u0075t":-2.5e3}"#, "input"),
            Some("-2.5e3")
        );
        assert_eq!(raw_member(r#"{"input":null}"#, "input"), Some("null"));
        assert_eq!(raw_member("{}", "input"), None);
    }

    #[test]
    fn declaring_no_capability_needs_no_call() {
        let declared = |adapter: &Adapter<'_>| adapter.describe().get("capabilities").cloned();
        let none = Some(Json::Array(Vec::new()));
        assert_eq!(declared(&Adapter::new("t", "0")), none);
        assert_eq!(declared(&Adapter::new("t", "0").capabilities([])), none);
        assert_eq!(
            declared(&Adapter::new("t", "0").capabilities(["optional-seq"])),
            Some(Json::Array(vec![Json::str("optional-seq")]))
        );
    }

    #[test]
    fn typed_handlers_see_well_typed_raw_input_and_answer_checked_text() {
        let mut adapter = Adapter::new("t", "0")
            .op_text("candidates/list", |input| Ok(input.to_owned()))
            .op_text("uri/decode", |_| Ok("[1,".to_owned()));
        let input = json::parse(r#"{"limit":"3"}"#).unwrap();
        let Outcome::Error { code, .. } = adapter.answer("candidates/list", &input, None) else {
            panic!("an ill-typed limit is answered by the kit");
        };
        assert_eq!(code, "SESSION_REFERENCE_INVALID_REFERENCE");
        let input = json::parse(r#"{"limit":2.0}"#).unwrap();
        assert_eq!(
            adapter.answer("candidates/list", &input, Some(r#"{"limit":2.0}"#)),
            Outcome::Output(input.clone())
        );
        let Outcome::Error { code, .. } =
            adapter.answer("uri/decode", &json::parse(r#"{"uri":""}"#).unwrap(), None)
        else {
            panic!("text that is not one JSON value is refused");
        };
        assert_eq!(code, "INTERNAL");
    }

    #[cfg(feature = "serde_json")]
    #[test]
    fn serde_handlers_decode_the_ports_types_and_encode_its_answers() {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Input {
            session_id: String,
            max_bytes: f64,
        }
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Output {
            session_id: String,
            half: f64,
        }
        let mut adapter = Adapter::new("t", "0").op_serde("retain", |input: Input| {
            Ok(Output {
                session_id: input.session_id,
                half: input.max_bytes / 2.0,
            })
        });
        let answer = |adapter: &mut Adapter<'_>, raw: &str| {
            adapter.answer("retain", &json::parse(raw).unwrap(), Some(raw))
        };
        assert_eq!(
            answer(
                &mut adapter,
                r#"{"sessionId":"s","maxBytes":3.0,"label":"L"}"#
            ),
            Outcome::Output(json::parse(r#"{"sessionId":"s","half":1.5}"#).unwrap())
        );
        // Ill-typed: upstream's answer, in upstream's order, before decoding.
        let Outcome::Error { code, .. } = answer(&mut adapter, r#"{"maxBytes":"3"}"#) else {
            panic!("an ill-typed maxBytes is the kit's to answer");
        };
        assert_eq!(code, "INTERNAL");
        let Outcome::Error { code, .. } = answer(&mut adapter, r#"{"maxBytes":3,"label":5}"#)
        else {
            panic!("an ill-typed label is the kit's to answer");
        };
        assert_eq!(code, "SESSION_REFERENCE_INVALID_REFERENCE");
        // Well-typed but not decodable into the port's type: INTERNAL.
        let Outcome::Error { code, message } = answer(&mut adapter, r#"{"maxBytes":3}"#) else {
            panic!("a missing member does not decode");
        };
        assert_eq!(code, "INTERNAL");
        assert!(message.contains("sessionId"), "{message}");
    }
}
