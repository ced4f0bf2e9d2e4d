//! Inline mentions: `@[label](dsh-session:…)` and bare URIs (spec `mention.*`).
//!
//! [`parse`] reproduces upstream's global, Unicode-mode regular expression
//! match for match, but in linear time: upstream retries the label scan from
//! every `@[`, which is quadratic on text full of unclosed `@[`.

use crate::error::Error;
use crate::js::{code_point_len, is_js_whitespace, is_line_terminator, push_slot, JsString};
use crate::reach;
use crate::uri::{self, is_payload_unit, SCHEME_UNITS};

const AT: u16 = b'@' as u16;
const COLON: u16 = b':' as u16;
const OPEN_BRACKET: u16 = b'[' as u16;
const CLOSE_BRACKET: u16 = b']' as u16;
const OPEN_PAREN: u16 = b'(' as u16;
const CLOSE_PAREN: u16 = b')' as u16;
const BACKSLASH: u16 = b'\\' as u16;

/// One reference found in a text: the decoded session id and its label.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Reference {
    /// The decoded session id.
    pub session_id: JsString,
    /// The unescaped label of an explicit mention, or the id for a bare URI.
    pub label: JsString,
}

/// A reference slot before its id and label are decoded into it.
const VACANT_REFERENCE: Reference = Reference {
    session_id: JsString::EMPTY,
    label: JsString::EMPTY,
};

/// The result of [`parse`]: the readable text and the references in order.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Parsed {
    /// The text with every match replaced by `@` and its label.
    pub text: JsString,
    /// Every reference, in order of appearance, duplicates kept.
    pub references: Vec<Reference>,
}

/// Formats a mention: `@[` + escaped label + `](` + URI + `)`. The label
/// defaults to the id only when absent; `Some("")` gives `@[](…)`
/// (spec `mention.format.form`, `mention.format.escape`).
pub fn format(session_id: &[u16], label: Option<&[u16]>) -> JsString {
    reach::point("mention.format.default-label");
    format_encoded(label.unwrap_or(session_id), &uri::encode(session_id))
}

/// A mention of the label and an encoded URI (spec `mention.format.form`):
/// a session id of another type than string is encoded by
/// [`uri::encode_value`].
pub fn format_encoded(label: &[u16], encoded: &str) -> JsString {
    reach::point("mention.format.form");
    reach::point("mention.format.escape");
    let mut out = Vec::with_capacity(label.len() + encoded.len() + 5);
    out.extend_from_slice(&[AT, OPEN_BRACKET]);
    for &unit in label {
        if unit == BACKSLASH || unit == CLOSE_BRACKET {
            out.push(BACKSLASH);
        }
        out.push(unit);
    }
    out.extend_from_slice(&[CLOSE_BRACKET, OPEN_PAREN]);
    out.extend(encoded.encode_utf16());
    out.push(CLOSE_PAREN);
    JsString::from_units(out)
}

/// Parses every mention and bare URI in `text`, left to right, replacing each
/// with `@` + label. Any match whose URI does not decode fails the whole call
/// (spec `mention.parse.all-or-nothing`).
pub fn parse(text: &[u16]) -> Result<Parsed, Error> {
    Scanner::new(text).run(uri::decode_into)
}

/// [`parse`] with another decoder of each matched URI in place of
/// [`uri::decode`]'s: what the conformance runner substitutes an
/// implementation's `uri/decode` answers with (spec `runner.probes`). The
/// scan is the same; only the decoding, and so the failure, is `decode`'s.
pub fn parse_with<E>(
    text: &[u16],
    decode: impl FnMut(&[u16], &mut JsString) -> Result<(), E>,
) -> Result<Parsed, E> {
    Scanner::new(text).run(decode)
}

/// A match of either alternative of the upstream pattern.
struct Match {
    start: usize,
    end: usize,
    /// The URI: `dsh-session:` and what followed it.
    uri: (usize, usize),
    /// The raw (still escaped) label of an explicit mention.
    raw_label: Option<(usize, usize)>,
}

struct Scanner<'a> {
    text: &'a [u16],
    /// An explicit mention whose label starts at or before this position
    /// cannot match: an earlier attempt scanned through it and failed, and
    /// the label scan from any `@[` inside that region follows the same path
    /// (spec `mention.parse.label`). This is what makes the scan linear.
    failed_labels_until: usize,
    /// The last URI run scanned in an explicit mention: `(start, stop)`,
    /// where `stop` is the first whitespace or `)` at or after `start`.
    last_uri_run: Option<(usize, usize)>,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a [u16]) -> Self {
        Self {
            text,
            failed_labels_until: 0,
            last_uri_run: None,
        }
    }

    fn run<E>(
        mut self,
        mut decode: impl FnMut(&[u16], &mut JsString) -> Result<(), E>,
    ) -> Result<Parsed, E> {
        let text = self.text;
        let mut out: Vec<u16> = Vec::new();
        let mut references = Vec::new();
        let mut copied_until = 0;
        let mut position = 0;
        while let Some(found) = find_anchor(text, position) {
            let matched = if text[found] == AT {
                self.explicit_at(found)
            } else {
                bare_ending_at_colon(text, found, position)
            };
            let Some(matched) = matched else {
                position = found + 1;
                continue;
            };
            if references.is_empty() {
                // Each match is replaced by text no longer than itself.
                out.reserve_exact(text.len());
            }
            // The id and label are written into the reference's slot in
            // place (see `push_slot`).
            reach::point("mention.parse.scan");
            let reference = push_slot(&mut references, VACANT_REFERENCE);
            let (uri_start, uri_end) = matched.uri;
            reach::point("mention.parse.decode");
            reach::point("mention.parse.all-or-nothing");
            decode(&text[uri_start..uri_end], &mut reference.session_id)?;
            match matched.raw_label {
                Some((label_start, label_end)) => {
                    unescape_label_into(&text[label_start..label_end], &mut reference.label);
                }
                None => {
                    reach::point("mention.parse.bare-label");
                    reference.label.assign_slice(reference.session_id.units());
                }
            }
            reach::point("mention.parse.replacement");
            out.extend_from_slice(&text[copied_until..matched.start]);
            out.push(AT);
            out.extend_from_slice(reference.label.units());
            copied_until = matched.end;
            position = matched.end;
        }
        reach::point("mention.parse.references");
        if references.is_empty() {
            return Ok(Parsed {
                text: JsString::from_units(text.to_vec()),
                references,
            });
        }
        out.extend_from_slice(&text[copied_until..]);
        Ok(Parsed {
            text: JsString::from_units(out),
            references,
        })
    }

    /// Alternative A at `at`: `@[` label `](dsh-session:` run `)`
    /// (spec `mention.parse.explicit`).
    fn explicit_at(&mut self, at: usize) -> Option<Match> {
        let text = self.text;
        if text.get(at + 1) != Some(&OPEN_BRACKET) {
            return None;
        }
        reach::point("mention.parse.explicit");
        let label_start = at + 2;
        if label_start <= self.failed_labels_until {
            reach::point("mention.parse.linear");
            reach::point("mention.parse.fall-through");
            return None;
        }
        let close = match scan_label(text, label_start) {
            Ok(close) => close,
            Err(stopped_at) => {
                reach::point("mention.parse.fall-through");
                self.failed_labels_until = stopped_at;
                return None;
            }
        };
        let matched = self.uri_after_label(at, label_start, close);
        if matched.is_none() {
            reach::point("mention.parse.fall-through");
            self.failed_labels_until = close;
        }
        matched
    }

    fn uri_after_label(&mut self, at: usize, label_start: usize, close: usize) -> Option<Match> {
        let text = self.text;
        let uri_start = close + 2;
        if text.get(close + 1) != Some(&OPEN_PAREN) || !text[uri_start..].starts_with(&SCHEME_UNITS)
        {
            return None;
        }
        reach::point("mention.parse.uri-run");
        reach::point("mention.parse.js-whitespace");
        let run_start = uri_start + SCHEME_UNITS.len();
        let stop = match self.last_uri_run {
            Some((start, stop)) if start <= run_start && run_start <= stop => {
                reach::point("mention.parse.linear");
                stop
            }
            _ => text[run_start..]
                .iter()
                .position(|&unit| unit == CLOSE_PAREN || is_js_whitespace(unit))
                .map_or(text.len(), |offset| run_start + offset),
        };
        self.last_uri_run = Some((run_start, stop));
        if text.get(stop) == Some(&CLOSE_PAREN)
            && !text[run_start..stop]
                .iter()
                .any(|unit| is_payload_unit(*unit))
        {
            reach::point("mention.parse.empty-uri");
        }
        (text.get(stop) == Some(&CLOSE_PAREN)).then_some(Match {
            start: at,
            end: stop + 1,
            uri: (uri_start, stop),
            raw_label: Some((label_start, close)),
        })
    }
}

/// Scans a label from `start`: units are a backslash with the code point
/// after it (never a line terminator), or any code point but `\` and `]`.
/// Returns the position of the closing `]`, or where the scan failed.
fn scan_label(text: &[u16], start: usize) -> Result<usize, usize> {
    reach::point("mention.parse.label");
    let mut index = start;
    while index < text.len() {
        match text[index] {
            CLOSE_BRACKET => return Ok(index),
            BACKSLASH => match text.get(index + 1) {
                Some(&next) if !is_line_terminator(next) => {
                    index += 1 + code_point_len(text, index + 1);
                }
                _ => {
                    reach::point("mention.parse.label-escape");
                    return Err(index);
                }
            },
            _ => index += code_point_len(text, index),
        }
    }
    Err(text.len())
}

/// Alternative B whose scheme colon is at `colon`: `dsh-session:` then one or
/// more payload units, greedily, with no boundary on either side
/// (spec `mention.parse.bare`). `not_before` is where scanning resumed.
fn bare_ending_at_colon(text: &[u16], colon: usize, not_before: usize) -> Option<Match> {
    let scheme_len = SCHEME_UNITS.len();
    let start = (colon + 1).checked_sub(scheme_len)?;
    if start < not_before || text[start..=colon] != SCHEME_UNITS {
        return None;
    }
    reach::point("mention.parse.bare");
    let payload_len = text[colon + 1..]
        .iter()
        .take_while(|unit| is_payload_unit(**unit))
        .count();
    if payload_len == 0 {
        reach::point("mention.parse.empty-uri");
    }
    (payload_len > 0).then_some(Match {
        start,
        end: colon + 1 + payload_len,
        uri: (start, colon + 1 + payload_len),
        raw_label: None,
    })
}

/// The label with each backslash escape replaced by the code point it
/// escapes, into `label` (spec `mention.parse.label-unescape`).
fn unescape_label_into(raw: &[u16], label: &mut JsString) {
    reach::point("mention.parse.label-unescape");
    if !raw.contains(&BACKSLASH) {
        label.assign_slice(raw);
        return;
    }
    reach::point("mention.parse.label-escape");
    let mut out = Vec::with_capacity(raw.len());
    let mut index = 0;
    while index < raw.len() {
        if raw[index] == BACKSLASH && index + 1 < raw.len() {
            index += 1;
        }
        let step = code_point_len(raw, index);
        out.extend_from_slice(&raw[index..index + step]);
        index += step;
    }
    *label = JsString::from_units(out);
}

/// The first `@` or `:` at or after `from`: every match starts at an `@`
/// (explicit) or ends its scheme with a `:` (bare). Chunks are tested with a
/// branch-free fold that the compiler vectorizes, so mention-free prose is
/// scanned at memory speed.
fn find_anchor(text: &[u16], from: usize) -> Option<usize> {
    const CHUNK: usize = 32;
    let is_anchor = |unit: u16| unit == AT || unit == COLON;
    let rest = text.get(from..)?;
    let mut chunks = rest.chunks_exact(CHUNK);
    let mut offset = from;
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |hit, &unit| hit | is_anchor(unit)) {
            return chunk
                .iter()
                .position(|&unit| is_anchor(unit))
                .map(|p| offset + p);
        }
        offset += CHUNK;
    }
    chunks
        .remainder()
        .iter()
        .position(|&unit| is_anchor(unit))
        .map(|p| offset + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn parsed(text: &str) -> (String, Vec<(String, String)>) {
        let result = parse(&units(text)).expect("parses");
        (
            result.text.to_string_lossy(),
            result
                .references
                .iter()
                .map(|r| (r.session_id.to_string_lossy(), r.label.to_string_lossy()))
                .collect(),
        )
    }

    #[test]
    fn explicit_and_bare_mentions() {
        let (text, refs) = parsed("hi @[Lab](dsh-session:InMxIg) and dsh-session:InMyIg.");
        assert_eq!(text, "hi @Lab and @s2.");
        assert_eq!(
            refs,
            [("s1".into(), "Lab".into()), ("s2".into(), "s2".into())]
        );
    }

    #[test]
    fn broken_explicit_mention_falls_through_to_bare() {
        assert_eq!(parsed("@[x](dsh-session:InMxIg )").0, "@[x](@s1 )");
        assert_eq!(
            parsed("@[@[x](dsh-session:InMxIg)](dsh-session:InMyIg)").0,
            "@@[x](@s2)"
        );
    }

    #[test]
    fn many_unclosed_brackets_do_not_match() {
        let text = "@[".repeat(1000) + "dsh-session:InMxIg";
        assert_eq!(parsed(&text).1.len(), 1);
    }

    #[test]
    fn format_escapes_backslash_and_bracket() {
        let mention = format(&units("a]b\\c"), None);
        assert_eq!(
            mention.to_string_lossy(),
            "@[a\\]b\\\\c](dsh-session:ImFdYlxcYyI)"
        );
    }
}
