//! `Serialize`/`Deserialize` for [`JsString`] and [`Json`] (feature
//! `serde`), so that Rust hosts can move the reference's values through
//! serde formats such as serde_json.
//!
//! Serde's string model is Rust text, which cannot hold a lone surrogate:
//! serializing a string that holds one is an error naming the code unit,
//! never a silent U+FFFD. Objects keep their members in written order,
//! duplicates included. A number serializes as an integer when it is a safe
//! integer (so serde_json writes `1`, as `JSON.stringify` does) and as a
//! double otherwise. Where JavaScript semantics are the point (the wire, the
//! conformance vectors), use [`crate::js::json`] instead.

use super::json::Json;
use super::{first_lone_surrogate, JsString};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, Serialize, SerializeMap, SerializeSeq, Serializer};
use std::fmt;

/// The largest integer a double holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

impl JsString {
    /// The string as Rust text, or a serde error naming the first lone
    /// surrogate.
    fn to_serde_text<E: ser::Error>(&self) -> Result<String, E> {
        String::from_utf16(self.units()).map_err(|_| {
            let index = first_lone_surrogate(self.units()).unwrap_or_default();
            E::custom(format!(
                "string holds a lone surrogate (\\u{:04x} at code unit {index}), which serde text cannot carry",
                self.units().get(index).copied().unwrap_or_default()
            ))
        })
    }
}

impl Serialize for JsString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_serde_text()?)
    }
}

impl<'de> Deserialize<'de> for JsString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|text| JsString::from(text.as_str()))
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(value) => serializer.serialize_bool(*value),
            Json::Number(n) if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER => {
                // -0 is written 0, as JSON.stringify writes it.
                #[allow(clippy::cast_possible_truncation)]
                serializer.serialize_i64(*n as i64)
            }
            Json::Number(n) => serializer.serialize_f64(*n),
            Json::String(text) => text.serialize(serializer),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (key, value) in members {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        Json::deserialize(deserializer)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Json, E> {
        Ok(Json::Number(value as f64))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Json, E> {
        Ok(Json::Number(value as f64))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Json, E> {
        Ok(Json::Number(value))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Json, E> {
        Ok(Json::str(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry::<JsString, Json>()? {
            members.push((key, value));
        }
        Ok(Json::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json;

    #[test]
    fn values_round_trip_through_serde_json_in_member_order() {
        let value = json::parse(r#"{"b":[1,2.5,-0,null,true],"a":"x\u00e9","b":{}}"#).unwrap();
        let text = serde_json::to_string(&value).unwrap();
        assert_eq!(text, r#"{"b":[1,2.5,0,null,true],"a":"xé","b":{}}"#);
        let back: Json = serde_json::from_str(&text).unwrap();
        assert_eq!(json::to_wire(&back), text);
    }

    #[test]
    fn a_lone_surrogate_is_an_error_naming_it() {
        let value = Json::String(JsString::from_units(vec![0x61, 0xD800]));
        let error = serde_json::to_string(&value).unwrap_err().to_string();
        assert!(error.contains("\\ud800 at code unit 1"), "{error}");
        let pair = Json::String(JsString::from("😀"));
        assert_eq!(serde_json::to_string(&pair).unwrap(), "\"😀\"");
    }
}
