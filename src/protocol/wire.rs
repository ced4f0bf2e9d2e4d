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

/// The string `id` of a request line too deeply nested to be read (spec
/// `wire.json.depth`: an over-deep request still gets its own id back),
/// found without reading the rest; `None` for any other unreadable line.
pub fn id_of_too_deep(line: &str) -> Option<JsString> {
    match json::parse(line) {
        Err(error) if error.is_too_deep() => {}
        _ => return None,
    }
    match json::parse(raw_member(line, "id")?) {
        Ok(Json::String(id)) => Some(id),
        _ => None,
    }
}

/// The text of the last top-level member `name` of the JSON object `line`
/// as written (`JSON.parse` keeps the last of duplicates), or `None`. The
/// line is valid JSON (one that [`Request::from_line`] has read, or one
/// only too deep for it); the scan keeps no stack, whatever the depth.
pub fn raw_member<'l>(line: &'l str, name: &str) -> Option<&'l str> {
    let bytes = line.as_bytes();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let mut found = None;
    at = skip_space(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        return None;
    }
    loop {
        let key_end = value_end(bytes, at)?;
        let key = json::parse(&line[at..key_end]).ok()?;
        at = skip_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let value_start = skip_space(bytes, at + 1);
        let end = value_end(bytes, value_start)?;
        if key.as_js_str().is_some_and(|key| key.is(name)) {
            found = Some(&line[value_start..end]);
        }
        at = skip_space(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            _ => return found,
        }
    }
}

/// The index after JSON whitespace from `at`.
fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

/// The index just after the JSON value that starts at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut index = at;
            loop {
                match *bytes.get(index)? {
                    b'"' => {
                        index = string_end(bytes, index)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(index + 1);
                        }
                    }
                    _ => {}
                }
                index += 1;
            }
        }
        _ => {
            let mut index = at;
            while bytes
                .get(index)
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
            {
                index += 1;
            }
            Some(index)
        }
    }
}

/// The index just after the string whose opening quote is at `at`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut index = at + 1;
    loop {
        match *bytes.get(index)? {
            b'\\' => index += 2,
            b'"' => return Some(index + 1),
            _ => index += 1,
        }
    }
}
