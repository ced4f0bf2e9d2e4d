//! The canonical `dsh-session:` URI (spec `uri.*`).

use crate::error::{Error, ErrorCode};
use crate::js::json::{self, Json};
use crate::js::JsString;
use crate::reach;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// The URI scheme, with its colon (spec `uri.scheme`).
pub const SCHEME: &str = "dsh-session:";

/// The scheme as UTF-16 code units, for scanning JavaScript strings.
pub(crate) const SCHEME_UNITS: [u16; 12] = {
    let bytes = SCHEME.as_bytes();
    let mut units = [0u16; 12];
    let mut index = 0;
    while index < 12 {
        units[index] = bytes[index] as u16;
        index += 1;
    }
    units
};

/// True for the payload alphabet: base64url, `A–Z a–z 0–9 - _`
/// (spec `uri.decode.alphabet`).
pub fn is_payload_unit(unit: u16) -> bool {
    matches!(unit, 0x41..=0x5A | 0x61..=0x7A | 0x30..=0x39 | 0x2D | 0x5F)
}

/// Encodes a session id: the scheme, then the unpadded base64url of the
/// UTF-8 of the id's `JSON.stringify` literal (spec `uri.encode.form`).
pub fn encode(session_id: &[u16]) -> String {
    encode_literal(&json::quote(session_id))
}

/// Encodes any value `JSON.parse` builds as upstream's encoder does, which
/// takes `JSON.stringify` of whatever it is given (spec
/// `protocol.input-types`: `sessionId` is read).
pub fn encode_value(session_id: &Json) -> String {
    encode_literal(&json::stringify(session_id))
}

fn encode_literal(literal: &str) -> String {
    reach::point("uri.encode.form");
    reach::point("uri.encode.json-literal");
    reach::point("uri.scheme");
    reach::point("uri.encode.base64url");
    let mut uri = String::with_capacity(SCHEME.len() + literal.len().div_ceil(3) * 4);
    uri.push_str(SCHEME);
    URL_SAFE_NO_PAD.encode_string(literal.as_bytes(), &mut uri);
    uri
}

/// Decodes a URI back to its session id. Succeeds exactly for the URIs that
/// [`encode`] produces (spec `uri.decode.accept-set`); everything else is
/// `SESSION_REFERENCE_INVALID_REFERENCE`.
pub fn decode(uri: &[u16]) -> Result<JsString, Error> {
    let mut session_id = JsString::EMPTY;
    decode_into(uri, &mut session_id)?;
    Ok(session_id)
}

/// [`decode`] into `session_id`, which a short id is written into in place
/// (see [`JsString::assign_latin1`]): the mention scanner decodes each
/// reference's id straight into its slot.
pub(crate) fn decode_into(uri: &[u16], session_id: &mut JsString) -> Result<(), Error> {
    if decode_canonical(uri, session_id) {
        reach::point("uri.decode.accept-set");
        Ok(())
    } else {
        reach::point("uri.decode.error");
        Err(invalid_uri(uri))
    }
}

/// Payloads up to this many units are decoded in stack buffers, without
/// allocating: every session id of a mention-dense text is one.
const SHORT_PAYLOAD: usize = 128;

/// Whether `uri` is canonical; if so, its session id is in `session_id`.
fn decode_canonical(uri: &[u16], session_id: &mut JsString) -> bool {
    reach::point("uri.scheme");
    let Some(payload) = uri.strip_prefix(&SCHEME_UNITS[..]) else {
        reach::point("uri.decode.prefix");
        return false;
    };
    reach::point("uri.decode.prefix");
    if payload.is_empty() || !payload.iter().all(|unit| is_payload_unit(*unit)) {
        reach::point("uri.decode.alphabet");
        return false;
    }
    reach::point("uri.decode.alphabet");
    if payload.len() > SHORT_PAYLOAD {
        let payload: Vec<u8> = payload.iter().map(|unit| *unit as u8).collect();
        return URL_SAFE_NO_PAD
            .decode(payload)
            .inspect_err(|_| reach::point("uri.decode.canonical"))
            .is_ok_and(|literal| literal_session_id(&literal, session_id));
    }
    let mut bytes = [0u8; SHORT_PAYLOAD];
    for (byte, unit) in bytes.iter_mut().zip(payload) {
        *byte = *unit as u8;
    }
    // Base64 of at most 128 characters decodes to at most 96 bytes.
    let mut literal = [0u8; SHORT_PAYLOAD / 4 * 3];
    URL_SAFE_NO_PAD
        .decode_slice(&bytes[..payload.len()], &mut literal)
        .inspect_err(|_| reach::point("uri.decode.canonical"))
        .is_ok_and(|length| literal_session_id(&literal[..length], session_id))
}

/// Whether `literal`, the decoded payload, is exactly the `JSON.stringify`
/// literal of a session id; if so, the id is in `session_id` (spec
/// `uri.decode.canonical`). Strict base64url already rejected what could
/// only come from a non-canonical payload (a length of 1 mod 4, non-zero
/// trailing bits), so this agrees with upstream's lenient decode followed by
/// its re-encode comparison.
fn literal_session_id(literal: &[u8], session_id: &mut JsString) -> bool {
    // The common case: `"` + printable ASCII without `"` or `\` + `"` is
    // its own canonical literal; no parse or re-quote needed.
    if let [b'"', inner @ .., b'"'] = literal {
        if inner
            .iter()
            .all(|&byte| (0x20..0x7F).contains(&byte) && byte != b'"' && byte != b'\\')
        {
            reach::point("uri.decode.json-string");
            reach::point("uri.decode.canonical");
            session_id.assign_latin1(inner);
            return true;
        }
    }
    let Ok(text) = std::str::from_utf8(literal) else {
        reach::point("uri.decode.canonical");
        return false;
    };
    let Ok(Json::String(parsed)) = json::parse(text) else {
        reach::point("uri.decode.json-string");
        return false;
    };
    reach::point("uri.decode.json-string");
    if json::quote(parsed.units()).as_bytes() != literal {
        reach::point("uri.decode.canonical");
        return false;
    }
    reach::point("uri.decode.canonical");
    *session_id = parsed;
    true
}

/// Upstream's message: `invalid session reference URI ` + `JSON.stringify(uri)`.
fn invalid_uri(uri: &[u16]) -> Error {
    Error::new(
        ErrorCode::InvalidReference,
        format!("invalid session reference URI {}", json::quote(uri)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    #[test]
    fn encodes_like_upstream() {
        assert_eq!(encode(&units("abc")), "dsh-session:ImFiYyI");
        assert_eq!(encode(&[0x61, 0xD800, 0x62]), "dsh-session:ImFcdWQ4MDBiIg");
        assert_eq!(encode(&units("<tag>")), "dsh-session:Ijx0YWc-Ig");
    }

    #[test]
    fn decodes_only_canonical_uris() {
        assert_eq!(
            decode(&units("dsh-session:ImFiYyI")),
            Ok(JsString::from("abc"))
        );
        for bad in [
            "dsh-session:",
            "dsh-session:IiJ",
            "dsh-session:ImFiY2QiQ",
            "dsh-session:Ilx1MDA2MSI",
            "dsh-session:bnVsbA",
        ] {
            let error = decode(&units(bad)).expect_err(bad);
            assert_eq!(error.code, ErrorCode::InvalidReference);
        }
    }
}
