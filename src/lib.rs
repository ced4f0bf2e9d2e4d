//! Reference implementation of DeepSeek Harness **session references**.
//!
//! A host inserts a mention `@[label](dsh-session:<base64url(JSON.stringify(id))>)`
//! for another session; before the model step it parses mentions, reads each
//! referenced session and adds one untrusted, tag-safe JSON snapshot. This
//! crate is the exact, fast reference for all of it, matching the upstream
//! npm package `@deepseek-ai/dsh-session-reference@0.1.0-rc.8` byte for byte.
//!
//! Strings are JavaScript strings ([`JsString`], UTF-16 code units with lone
//! surrogates allowed). Data flows one way: wire → parse → model → render.
//!
//! ```
//! use dsh_session_reference::{mention, uri, JsString};
//!
//! let id = JsString::from("s1");
//! assert_eq!(uri::encode(id.units()), "dsh-session:InMxIg");
//! let text = JsString::from("see @[Lab](dsh-session:InMxIg)");
//! let parsed = mention::parse(text.units()).unwrap();
//! assert_eq!(parsed.text, JsString::from("see @Lab"));
//! assert_eq!(parsed.references[0].session_id, id);
//! ```
//!
//! The normative rules live in `spec/`; the conformance vectors in
//! `conformance/` (see `conformance/README.md`).

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(clippy::print_stdout)]

pub mod checks;
pub mod config;
pub mod discovery;
pub mod error;
pub mod js;
pub mod mention;
pub mod pre_step;
pub mod prepare;
pub mod projection;
pub mod protocol;
pub mod retention;
pub mod runner;
pub mod spill;
pub mod surface;
pub mod tag_safe;
pub mod uri;

pub use error::{Error, ErrorCode, Failure};
pub use js::json::Json;
pub use js::JsString;
