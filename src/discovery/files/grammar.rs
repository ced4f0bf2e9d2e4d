//! The `@file` token grammar shared by editors: finding the token at the
//! cursor (spec `files.token.*`) and formatting a chosen candidate as prompt
//! text (spec `files.format.*`).

use super::{FileKind, FileReferenceCandidate};
use crate::js::{is_js_whitespace, JsString};
use crate::reach;

const AT: u16 = b'@' as u16;
const QUOTE: u16 = b'"' as u16;
const SLASH: u16 = b'/' as u16;

/// The `@` token the cursor is in (spec `files.token.result`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActiveToken {
    /// The token as typed: `@` or `@"`, then the query.
    pub prefix: JsString,
    /// The path text after `@` or `@"`: what discovery searches for.
    pub query: JsString,
    /// True for an open `@"` token.
    pub quoted: bool,
}

/// `slice(0, end)`'s end index for a string of `len` code units (JavaScript
/// `String.prototype.slice`): `None` is `undefined` (the whole string), a
/// negative value counts from the end, fractions are truncated, `NaN` is 0
/// (spec `files.token.cursor`).
pub fn slice_end(len: usize, end: Option<f64>) -> usize {
    reach::point("files.token.cursor");
    let Some(end) = end else {
        return len;
    };
    if end.is_nan() {
        return 0;
    }
    let end = end.trunc();
    let len_f = len as f64;
    let index = if end < 0.0 {
        (len_f + end).max(0.0)
    } else {
        end.min(len_f)
    };
    // `index` is an integer in 0..=len here.
    index as usize
}

/// `activeAtToken(line, cursor)`: the token that ends at `cursor` (a UTF-16
/// index, clamped to the line), looking only at the text before it (spec
/// `files.token.cursor`). See [`token_before_cursor`].
pub fn active_at_token(line: &[u16], cursor: usize) -> Option<ActiveToken> {
    reach::point("files.token.cursor");
    token_before_cursor(&line[..cursor.min(line.len())])
}

/// The token at the end of `before_cursor` (`line.slice(0, cursor)`).
///
/// First the quoted form (spec `files.token.quoted`): start of text or one
/// JavaScript whitespace, `@"`, then no `"` up to the cursor, so a closed
/// quote is no quoted token (spec `files.token.closed-quote`). Then the plain
/// form (spec `files.token.plain`): start of text or one JavaScript
/// whitespace, `@`, then no whitespace up to the cursor. Otherwise `None`
/// (spec `files.token.boundary`).
pub fn token_before_cursor(before_cursor: &[u16]) -> Option<ActiveToken> {
    let text = before_cursor;
    // `(?:^|\s)(@"([^"]*))$`: the `"` of `@"` is the last `"` of the text.
    if let Some(quote) = text.iter().rposition(|unit| *unit == QUOTE) {
        if quote >= 1 && text[quote - 1] == AT && (quote == 1 || is_js_whitespace(text[quote - 2]))
        {
            reach::point("files.token.quoted");
            if quote > 1 {
                reach::point("files.token.boundary");
            }
            return Some(ActiveToken {
                prefix: JsString::from_units(text[quote - 1..].to_vec()),
                query: JsString::from_units(text[quote + 1..].to_vec()),
                quoted: true,
            });
        }
        // A `"` closes an earlier `@"`: no quoted token.
        if text[..quote].windows(2).any(|pair| pair == [AT, QUOTE]) {
            reach::point("files.token.closed-quote");
        }
    }
    // `(?:^|\s)(@([^\s]*))$`: the `@` follows the last whitespace, or starts
    // the text when there is none.
    let start = text
        .iter()
        .rposition(|unit| is_js_whitespace(*unit))
        .map_or(0, |space| space + 1);
    if text.get(start) != Some(&AT) {
        // An `@` in the last run does not follow whitespace or the start.
        if text[start..].contains(&AT) {
            reach::point("files.token.boundary");
        }
        return None;
    }
    reach::point("files.token.plain");
    if start > 0 {
        reach::point("files.token.boundary");
    }
    Some(ActiveToken {
        prefix: JsString::from_units(text[start..].to_vec()),
        query: JsString::from_units(text[start + 1..].to_vec()),
        quoted: false,
    })
}

/// True for what the editor grammar cannot carry: C0 and C1 controls
/// (U+0000–U+001F, U+007F–U+009F) and `"` (spec `files.format.unsafe`).
fn is_unsafe(unit: u16) -> bool {
    matches!(unit, 0x0000..=0x001F | 0x007F..=0x009F) || unit == QUOTE
}

/// `formatFileMention(candidate, preserveQuote)`: the prompt text that
/// inserts `candidate`, or `None` when the path cannot be written safely.
///
/// A directory's path gets a trailing `/` (spec `files.format.directory`);
/// an unsafe path is not insertable (spec `files.format.unsafe`); a path
/// without JavaScript whitespace and without `preserve_quote` is `@path`
/// (spec `files.format.plain`, `files.format.preserve-quote`); otherwise it
/// is quoted, a directory's quote left open (spec `files.format.quoted`).
pub fn format_file_mention(
    candidate: &FileReferenceCandidate,
    preserve_quote: bool,
) -> Option<JsString> {
    let mut path = candidate.path.units().to_vec();
    if candidate.kind == FileKind::Directory {
        reach::point("files.format.directory");
        path.push(SLASH);
    }
    if path.iter().any(|unit| is_unsafe(*unit)) {
        reach::point("files.format.unsafe");
        return None;
    }
    let mut out = Vec::with_capacity(path.len() + 3);
    out.push(AT);
    if !(preserve_quote || path.iter().any(|unit| is_js_whitespace(*unit))) {
        reach::point("files.format.plain");
        out.extend_from_slice(&path);
        return Some(JsString::from_units(out));
    }
    reach::point("files.format.quoted");
    if preserve_quote {
        reach::point("files.format.preserve-quote");
    }
    out.push(QUOTE);
    out.extend_from_slice(&path);
    if candidate.kind == FileKind::File {
        out.push(QUOTE);
    }
    Some(JsString::from_units(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(line: &str) -> Option<(String, String, bool)> {
        let units: Vec<u16> = line.encode_utf16().collect();
        active_at_token(&units, units.len()).map(|t| {
            (
                t.prefix.to_string_lossy(),
                t.query.to_string_lossy(),
                t.quoted,
            )
        })
    }

    fn plain(query: &str) -> Option<(String, String, bool)> {
        Some((format!("@{query}"), query.to_owned(), false))
    }

    fn quoted(query: &str) -> Option<(String, String, bool)> {
        Some((format!("@\"{query}"), query.to_owned(), true))
    }

    #[test]
    fn facts_examples() {
        assert_eq!(token("@"), plain(""));
        assert_eq!(token("see @src/ma"), plain("src/ma"));
        assert_eq!(token("email a@b.c"), None);
        assert_eq!(token("x @\"my dir/fi"), quoted("my dir/fi"));
        assert_eq!(token("x @\"done\" y"), None);
        assert_eq!(token("x @\"done\""), plain("\"done\""));
        assert_eq!(token("a @b@c"), plain("b@c"));
        assert_eq!(token("nbsp\u{a0}@x"), plain("x"));
        assert_eq!(token("nel\u{85}@x"), None);
        assert_eq!(token("(@x"), None);
        assert_eq!(token("@\""), quoted(""));
        assert_eq!(token("@\"a @\"b"), quoted("b"));
    }

    #[test]
    fn slice_end_is_javascript_slice() {
        assert_eq!(slice_end(5, None), 5);
        assert_eq!(slice_end(5, Some(-1.0)), 4);
        assert_eq!(slice_end(5, Some(-9.0)), 0);
        assert_eq!(slice_end(5, Some(2.9)), 2);
        assert_eq!(slice_end(5, Some(-0.5)), 0);
        assert_eq!(slice_end(5, Some(99.0)), 5);
        assert_eq!(slice_end(5, Some(f64::NAN)), 0);
        assert_eq!(slice_end(5, Some(f64::INFINITY)), 5);
    }

    fn format(path: &str, kind: FileKind, preserve: bool) -> Option<String> {
        let candidate = FileReferenceCandidate {
            path: JsString::from(path),
            kind,
        };
        format_file_mention(&candidate, preserve).map(|m| m.to_string_lossy())
    }

    #[test]
    fn format_facts_examples() {
        use FileKind::{Directory, File};
        assert_eq!(
            format("src/a.ts", File, false).as_deref(),
            Some("@src/a.ts")
        );
        assert_eq!(format("src", Directory, false).as_deref(), Some("@src/"));
        assert_eq!(
            format("my dir", Directory, false).as_deref(),
            Some("@\"my dir/")
        );
        assert_eq!(
            format("my file.txt", File, false).as_deref(),
            Some("@\"my file.txt\"")
        );
        assert_eq!(format("a.ts", File, true).as_deref(), Some("@\"a.ts\""));
        assert_eq!(format("a\u{85}b", File, false), None);
        assert_eq!(
            format("a\u{a0}b", File, false).as_deref(),
            Some("@\"a\u{a0}b\"")
        );
        assert_eq!(format("", Directory, false).as_deref(), Some("@/"));
        assert_eq!(format("a\"b", File, false), None);
    }
}
