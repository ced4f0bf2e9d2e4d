//! ECMAScript `String.prototype.toLowerCase` on JavaScript strings (spec
//! `candidates.lowercase`): full Unicode lower-case mappings, locale
//! independent, with the final-sigma rule; lone surrogates are kept.

/// `s.toLowerCase()`.
pub fn to_lower(units: &[u16]) -> Vec<u16> {
    if units.iter().all(|unit| *unit < 0x80) {
        return units
            .iter()
            .map(|unit| (*unit as u8).to_ascii_lowercase().into())
            .collect();
    }
    let mut out = Vec::with_capacity(units.len());
    let mut run = String::new();
    for decoded in char::decode_utf16(units.iter().copied()) {
        match decoded {
            Ok(ch) => run.push(ch),
            Err(lone) => {
                // Rust applies the final-sigma rule within a run of text, as
                // ECMAScript does; a lone surrogate is neither cased nor
                // case-ignorable, so it ends the run's context as well.
                out.extend(run.to_lowercase().encode_utf16());
                run.clear();
                out.push(lone.unpaired_surrogate());
            }
        }
    }
    out.extend(run.to_lowercase().encode_utf16());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(text: &str) -> String {
        String::from_utf16_lossy(&to_lower(&text.encode_utf16().collect::<Vec<_>>()))
    }

    #[test]
    fn full_mappings_not_folding() {
        assert_eq!(lower("İstanbul"), "i\u{307}stanbul");
        assert_eq!(lower("STRASSE ẞ ß"), "strasse ß ß");
        assert_eq!(lower("ΟΔΟΣ ΣΑ"), "οδος σα");
        assert_eq!(lower("ABC-def"), "abc-def");
        assert_eq!(to_lower(&[0x41, 0xD800, 0x42]), vec![0x61, 0xD800, 0x62]);
    }
}
