//! Tag-safe JSON: `JSON.stringify` with every `<` written as `\u003c`
//! (spec `json.tag-safe.*`), so snapshot data can never spell a tag such as
//! `</referenced-sessions>`.

use crate::js::json::{self, Json};
use crate::reach;

/// `JSON.stringify(value)` with every `<` replaced by the six characters
/// `\u003c`. Every `<` lies inside a string literal, so parsing the result
/// gives back the same value.
pub fn stringify_tag_safe(value: &Json) -> String {
    reach::point("json.tag-safe.op");
    reach::point("json.tag-safe.less-than");
    json::stringify(value).replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_only_less_than() {
        let value = json::parse(r#"{"t":"hello <b> & </x>"}"#).expect("valid");
        assert_eq!(
            stringify_tag_safe(&value),
            r#"{"t":"hello \u003cb> & \u003c/x>"}"#
        );
    }
}
