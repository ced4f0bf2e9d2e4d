//! Protocol messages and their exact JSON form (spec `protocol.framing`).

use crate::error::Error;
use crate::js::json::{self, Json};
use crate::js::JsString;

/// The error code for an op the implementation does not know.
pub const UNSUPPORTED: &str = "UNSUPPORTED";
/// The error code for a failure outside the contract (no stable code).
pub const INTERNAL: &str = "INTERNAL";

/// One request: `{"id", "op", "input"}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Correlates the response; any JavaScript string.
    pub id: JsString,
    /// The operation, such as `uri/decode`.
    pub op: String,
    /// The operation's input object.
    pub input: Json,
}

impl Request {
    /// Reads a request line. The error names what is wrong. The input is
    /// moved out of the parsed line, not copied: it can be megabytes.
    pub fn from_line(line: &str) -> Result<Request, String> {
        let value = json::parse(line).map_err(|error| format!("request is not JSON: {error}"))?;
        let Json::Object(mut members) = value else {
            return Err("request has no string \"id\"".to_owned());
        };
        // `JSON.parse` keeps the last of duplicate members.
        let mut take = |name: &str| {
            members
                .iter()
                .rposition(|(key, _)| key.is(name))
                .map(|index| std::mem::replace(&mut members[index].1, Json::Null))
        };
        let id = match take("id") {
            Some(Json::String(id)) => id,
            _ => return Err("request has no string \"id\"".to_owned()),
        };
        let op = take("op")
            .as_ref()
            .and_then(Json::as_string)
            .ok_or("request has no string \"op\"")?;
        let input = take("input")
            .filter(|input| input.as_object().is_some())
            .ok_or("request has no object \"input\"")?;
        Ok(Request { id, op, input })
    }

    /// The request as one line of JSON (no newline), input members exactly
    /// as written.
    pub fn to_line(&self) -> String {
        json::to_wire(&Json::Object(vec![
            (JsString::from("id"), Json::String(self.id.clone())),
            (JsString::from("op"), Json::str(&self.op)),
            (JsString::from("input"), self.input.clone()),
        ]))
    }
}

/// What an operation answered: an output, or an error code and message.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// `{"output": …}`
    Output(Json),
    /// `{"error": {"code", "message"}}`
    Error {
        /// One of the seven stable codes, `UNSUPPORTED` or `INTERNAL`.
        code: String,
        /// A human-readable diagnosis; never compared.
        message: String,
    },
}

impl Outcome {
    /// An `INTERNAL` failure.
    pub fn internal(message: impl Into<String>) -> Outcome {
        Outcome::Error {
            code: INTERNAL.to_owned(),
            message: message.into(),
        }
    }
}

impl From<Error> for Outcome {
    fn from(error: Error) -> Self {
        Outcome::Error {
            code: error.code.as_str().to_owned(),
            message: error.message,
        }
    }
}

/// One response: the request's id and its outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The id of the request answered; `None` when the request had none.
    pub id: Option<JsString>,
    /// The outcome.
    pub outcome: Outcome,
}

impl Response {
    /// The response as one line of JSON (no newline). The output is written
    /// where it lies, not copied into a wrapping tree.
    pub fn to_line(&self) -> String {
        let mut line = String::new();
        self.push_line(&mut line);
        line
    }

    /// Appends [`Response::to_line`]'s text to `line`: the adapter loop
    /// writes every answer into one buffer, so an answer of megabytes goes
    /// into memory an earlier answer already touched.
    pub fn push_line(&self, line: &mut String) {
        line.push_str("{\"id\":");
        match &self.id {
            Some(id) => json::push_quoted(id.units(), false, line),
            None => line.push_str("null"),
        }
        match &self.outcome {
            Outcome::Output(output) => {
                line.push_str(",\"output\":");
                json::push_wire(output, line);
            }
            Outcome::Error { code, message } => {
                line.push_str(",\"error\":");
                json::push_wire(
                    &Json::object([("code", Json::str(code)), ("message", Json::str(message))]),
                    line,
                );
            }
        }
        line.push('}');
    }

    /// Reads a response line. The error names what is wrong.
    pub fn from_line(line: &str) -> Result<Response, String> {
        let value = json::parse(line).map_err(|error| format!("response is not JSON: {error}"))?;
        let id = match value.get("id") {
            Some(Json::String(id)) => Some(id.clone()),
            Some(Json::Null) => None,
            _ => return Err("response has no string \"id\"".to_owned()),
        };
        let outcome = match (value.get("output"), value.get("error")) {
            (Some(output), None) => Outcome::Output(output.clone()),
            (None, Some(error)) => Outcome::Error {
                code: error
                    .get("code")
                    .and_then(Json::as_string)
                    .ok_or("response error has no string \"code\"")?,
                message: error
                    .get("message")
                    .and_then(Json::as_string)
                    .unwrap_or_default(),
            },
            _ => return Err("response needs exactly one of \"output\" and \"error\"".to_owned()),
        };
        Ok(Response { id, outcome })
    }
}
