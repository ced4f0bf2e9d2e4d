//! JavaScript's `String(value)` and `Number(value)` of a value `JSON.parse`
//! built. Upstream reads some input members as JavaScript does whatever
//! their type: a template literal turns a path into text, `slice` turns a
//! cursor into a number (spec `protocol.input-types`, the members marked
//! *read*). No crate gives ECMAScript's conversions over our [`Json`], so
//! they are here.

use super::json::{stringify, Json};
use super::{is_js_whitespace, JsString};

/// `String(value)` (ECMAScript ToString); `None` is `undefined`. An array
/// is its items' texts joined with `,` (`null` items are empty), an object
/// is `[object Object]`, a number is written as JavaScript writes it.
pub fn to_js_string(value: Option<&Json>) -> JsString {
    let mut out = Vec::new();
    match value {
        None => out.extend("undefined".encode_utf16()),
        Some(value) => push_text(value, &mut out),
    }
    JsString::from_units(out)
}

fn push_text(value: &Json, out: &mut Vec<u16>) {
    match value {
        Json::String(text) => out.extend_from_slice(text.units()),
        Json::Null => out.extend("null".encode_utf16()),
        Json::Bool(flag) => out.extend(if *flag { "true" } else { "false" }.encode_utf16()),
        // `JSON.parse` builds finite numbers only, whose `JSON.stringify`
        // text is their `String` text.
        Json::Number(_) => out.extend(stringify(value).encode_utf16()),
        Json::Object(_) => out.extend("[object Object]".encode_utf16()),
        Json::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(u16::from(b','));
                }
                // `Array.prototype.join` writes null items as nothing.
                if *item != Json::Null {
                    push_text(item, out);
                }
            }
        }
    }
}

/// `Number(value)` (ECMAScript ToNumber); `None` is `undefined` (NaN).
pub fn to_number(value: Option<&Json>) -> f64 {
    match value {
        None | Some(Json::Object(_)) => f64::NAN,
        Some(Json::Null) => 0.0,
        Some(Json::Bool(flag)) => f64::from(u8::from(*flag)),
        Some(Json::Number(number)) => *number,
        Some(Json::String(text)) => string_to_number(text.units()),
        Some(array @ Json::Array(_)) => string_to_number(to_js_string(Some(array)).units()),
    }
}

/// ECMAScript StringToNumber: surrounding white space is ignored, empty
/// text is 0, `0x`/`0o`/`0b` prefix an unsigned integer, `Infinity` may be
/// signed, otherwise a decimal literal; anything else is NaN.
fn string_to_number(units: &[u16]) -> f64 {
    let start = units.iter().position(|&unit| !is_js_whitespace(unit));
    let Some(start) = start else {
        return 0.0;
    };
    let end = units
        .iter()
        .rposition(|&unit| !is_js_whitespace(unit))
        .map_or(start, |end| end + 1);
    let Ok(text) = String::from_utf16(&units[start..end]) else {
        return f64::NAN;
    };
    let radix = match text.get(..2) {
        Some("0x" | "0X") => Some(16),
        Some("0o" | "0O") => Some(8),
        Some("0b" | "0B") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        let digits = &text[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        // Exact below 2^53; beyond, each step rounds as the digits come.
        return digits.chars().fold(0.0, |value, c| {
            value * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        });
    }
    match text.as_str() {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    // Rust's float grammar is JavaScript's decimal literal plus `inf` and
    // `nan` spellings, which the character check leaves out.
    let decimal = text
        .bytes()
        .all(|byte| byte.is_ascii_digit() || matches!(byte, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !decimal {
        return f64::NAN;
    }
    text.parse().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::parse;

    fn number_of(json: &str) -> f64 {
        to_number(Some(&parse(json).expect("JSON")))
    }

    fn text_of(json: &str) -> String {
        to_js_string(Some(&parse(json).expect("JSON"))).to_string_lossy()
    }

    #[test]
    fn to_string_follows_javascript() {
        assert_eq!(text_of("1.5e21"), "1.5e+21");
        assert_eq!(text_of("-0"), "0");
        assert_eq!(text_of(r#"["a",null,["b",2],[]]"#), "a,,b,2,");
        assert_eq!(text_of(r#"{"a":1}"#), "[object Object]");
        assert_eq!(text_of("null"), "null");
        assert_eq!(to_js_string(None).to_string_lossy(), "undefined");
    }

    #[test]
    fn to_number_follows_javascript() {
        assert_eq!(number_of(r#"" 7 ""#), 7.0);
        assert_eq!(number_of(r#""\ufeff0x1F\n""#), 31.0);
        assert_eq!(number_of(r#""0b101""#), 5.0);
        assert_eq!(number_of(r#""""#), 0.0);
        assert_eq!(number_of(r#""-Infinity""#), f64::NEG_INFINITY);
        assert!(number_of(r#""inf""#).is_nan());
        assert!(number_of(r#""-0x1""#).is_nan());
        assert!(number_of(r#""1e""#).is_nan());
        assert_eq!(number_of(r#"".5e1""#), 5.0);
        assert_eq!(number_of("[3]"), 3.0);
        assert_eq!(number_of("[]"), 0.0);
        assert!(number_of("[1,2]").is_nan());
        assert_eq!(number_of("true"), 1.0);
        assert_eq!(number_of("null"), 0.0);
        assert!(number_of("{}").is_nan());
        assert!(to_number(None).is_nan());
    }
}
