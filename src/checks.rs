//! Properties that must hold for any input, shared by the fuzz targets in
//! `fuzz/` and the corpus replay test, so both check the same thing.
//!
//! Each function takes raw fuzzer bytes, reads them as UTF-16 code units
//! (little-endian pairs, so lone surrogates occur), and **panics when a
//! property is violated** — that is how a fuzzer reports a finding.

use crate::{mention, uri, JsString};

/// Reads bytes as little-endian UTF-16 code units; an odd last byte is
/// dropped.
pub fn units_from_bytes(data: &[u8]) -> Vec<u16> {
    data.chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect()
}

/// `mention::parse` never panics; what it returns is consistent: each
/// reference formats to a mention that parses back to `@label` and itself.
pub fn mention_parse(data: &[u8]) {
    let text = units_from_bytes(data);
    let Ok(parsed) = mention::parse(&text) else {
        return;
    };
    if parsed.references.is_empty() {
        assert_eq!(
            parsed.text.units(),
            text.as_slice(),
            "text without references changed"
        );
    }
    for reference in &parsed.references {
        let mention = mention::format(reference.session_id.units(), Some(reference.label.units()));
        let again = mention::parse(mention.units()).expect("a formatted mention parses");
        let mut expected_text = vec![u16::from(b'@')];
        expected_text.extend_from_slice(reference.label.units());
        assert_eq!(
            again.text.units(),
            expected_text.as_slice(),
            "parse(format(r)).text"
        );
        assert_eq!(
            again.references,
            std::slice::from_ref(reference),
            "parse(format(r)).references"
        );
    }
}

/// `uri::decode` never panics, accepts only what `encode` produces, and
/// `encode` of the input read as an id decodes back to it.
pub fn uri_decode(data: &[u8]) {
    let units = units_from_bytes(data);
    if let Ok(session_id) = uri::decode(&units) {
        let again: Vec<u16> = uri::encode(session_id.units()).encode_utf16().collect();
        assert_eq!(
            again, units,
            "decode accepted a URI that encode does not produce"
        );
    }
    let encoded: Vec<u16> = uri::encode(&units).encode_utf16().collect();
    assert_eq!(
        uri::decode(&encoded),
        Ok(JsString::from_units(units)),
        "decode(encode(id))"
    );
}
