//! Reference implementation of DeepSeek Harness **session references**.
//!
//! A host inserts a mention `@[label](dsh-session:<base64url(JSON.stringify(id))>)`
//! for another session; before the model step it parses mentions, reads each
//! referenced session and adds one untrusted, tag-safe JSON snapshot. This
//! crate is the exact, fast reference for all of it, matching the upstream
//! npm package `@deepseek-ai/dsh-session-reference@0.1.0-rc.8` byte for byte,
//! and the newest upstream generation where the specification (`spec/`)
//! describes it.
//!
//! # What to depend on
//!
//! | you are | depend on | you get |
//! |---|---|---|
//! | a host using session references | `dsh-session-reference = { version = "0.1", default-features = false }` | the reference library alone: base64, ryu-js, memchr and rustc-hash, nothing else |
//! | a host moving values through serde | `… default-features = false, features = ["serde"]` | `Serialize`/`Deserialize` for [`JsString`], [`Json`], mention references, retention stats, candidates, errors |
//! | a Rust port's conformance adapter | `… default-features = false` | the protocol kit, [`protocol::kit`]: requests read with exact JavaScript strings, an answer per op, `UNSUPPORTED` for the rest (template: `conformance/adapters/rust/`) |
//! | a Rust port on serde types | `… default-features = false, features = ["serde_json"]` | the kit's serde handlers, `Adapter::op_serde`: the port's own request and answer types, ill-typed inputs answered by the kit (example: `conformance/adapters/rust-serde/`) |
//! | a CI job checking a port | `cargo install dsh-session-reference` | the `dsh-session-reference` binary: the conformance suite (embedded), `differential`, baselines and reports |
//!
//! The default feature `harness` adds the conformance harness (`harness`
//! module: runner, differential, strategies) and the command line; the
//! feature `checks` (part of `harness`) adds the `checks` module, the
//! properties the fuzz targets assert. The reference never depends on
//! either.
//!
//! Strings are JavaScript strings ([`JsString`], UTF-16 code units with lone
//! surrogates allowed); JSON is read and written exactly ([`Json`], members in
//! written order). Data flows one way: wire → parse → model → render.
//!
//! # URIs and mentions ([`uri`], [`mention`])
//!
//! ```
//! use dsh_session_reference::{mention, uri, JsString};
//!
//! let id = JsString::from("s1");
//! assert_eq!(uri::encode(id.units()), "dsh-session:InMxIg");
//! assert_eq!(uri::decode(&JsString::from("dsh-session:InMxIg").units()).unwrap(), id);
//!
//! let text = JsString::from("see @[Lab](dsh-session:InMxIg)");
//! let parsed = mention::parse(text.units()).unwrap();
//! assert_eq!(parsed.text, JsString::from("see @Lab"));
//! assert_eq!(parsed.references[0].session_id, id);
//! assert_eq!(
//!     mention::format(id.units(), Some(JsString::from("a]b").units())),
//!     JsString::from(r"@[a\]b](dsh-session:InMxIg)")
//! );
//! ```
//!
//! # Tag-safe JSON ([`tag_safe`], [`js::json`])
//!
//! ```
//! use dsh_session_reference::{js::json, tag_safe};
//!
//! let value = json::parse(r#"{"text":"</referenced-sessions>","2":1}"#).unwrap();
//! assert_eq!(
//!     tag_safe::stringify_tag_safe(&value),
//!     r#"{"2":1,"text":"\u003c/referenced-sessions>"}"#
//! );
//! ```
//!
//! # Snapshots, projection and retention ([`surface`], [`projection`], [`retention`])
//!
//! ```
//! use dsh_session_reference::{js::json, projection, retention, surface::Snapshot};
//!
//! let snapshot = Snapshot::from_json(&json::parse(r#"{
//!     "session": {"id": "s", "cwd": "/w"}, "capturedThroughSeq": 7,
//!     "events": [{"type": "assistant/message",
//!                 "data": {"message": {"content": [{"type": "text", "text": "hello"}]}}}]
//! }"#).unwrap()).unwrap();
//! let label = [u16::from(b'L')];
//! let fitted = retention::retain(&snapshot, &label, projection::project(&snapshot), 1000).unwrap();
//! let mut data = String::new();
//! fitted.write_tag_safe(&mut data);
//! assert_eq!(data, r#"{"sessionId":"s","label":"L","cwd":"/w","capturedThroughSeq":7,"conversation":[{"role":"assistant","text":"hello"}]}"#);
//! assert!(!fitted.stats.truncated);
//! // 60 bytes cannot hold even the fixed fields: upstream's BUDGET_EXCEEDED.
//! assert!(retention::retain(&snapshot, &label, projection::project(&snapshot), 60).is_none());
//! ```
//!
//! # Preparing a message ([`prepare`], [`pre_step`], [`config`], [`spill`])
//!
//! ```
//! use dsh_session_reference::config::{Config, NoModels};
//! use dsh_session_reference::js::json::{self, Json};
//! use dsh_session_reference::prepare::{prepare, Agent, Services};
//! use dsh_session_reference::surface::JsonSessions;
//! use dsh_session_reference::JsString;
//!
//! let sessions = json::parse(r#"{"s1": {"session": {"id": "s1"}, "capturedThroughSeq": 4,
//!     "events": [{"type": "user/message", "data": {"source": {"kind": "user"},
//!                 "content": [{"type": "text", "text": "hello <b>"}]}}]}}"#).unwrap();
//! let reader = JsonSessions::new(&sessions);
//! let services = Services { reader: &reader, spill: None, models: &NoModels, cancelled: &|| false };
//! let agent = Agent { id: Some(JsString::from("me")), route: None };
//! let references = json::parse(r#"[{"sessionId": "s1", "label": "L"}]"#).unwrap();
//! let prepared = prepare(&Config::default(), &agent, &Json::Array(vec![]), &references, &services).unwrap();
//! let prompt = prepared.context.unwrap().prompt;
//! assert!(prompt.starts_with("## Referenced sessions\n"));
//! assert!(prompt.contains(r#""text":"hello \u003cb>""#));
//! ```
//!
//! # Discovery ([`discovery`])
//!
//! ```
//! use dsh_session_reference::features::Features;
//! use dsh_session_reference::discovery::sessions::{CandidateIndex, SessionRecord};
//! use dsh_session_reference::JsString;
//!
//! let record = |id: &str, title: &str| SessionRecord {
//!     id: JsString::from(id), cwd: None, created_at: None,
//!     title: Some(JsString::from(title)), subagent_label: None,
//! };
//! let index = CandidateIndex::new(vec![record("a", "airplane"), record("b", "plan"), record("c", "planning")]);
//! let query: Vec<u16> = "plan".encode_utf16().collect();
//! let found = index.list(&JsString::from("me"), None, &query, 50, Features::NEWEST);
//! let titles: Vec<String> = found.iter().map(|c| c.record.label().to_string_lossy()).collect();
//! assert_eq!(titles, ["plan", "planning", "airplane"]);
//! ```
//!
//! # Conformance ([`protocol`])
//!
//! ```
//! use dsh_session_reference::js::json;
//! use dsh_session_reference::protocol::{dispatch, wire::Outcome};
//!
//! let input = json::parse(r#"{"uri": "dsh-session:IiJ"}"#).unwrap();
//! let Outcome::Error { code, .. } = dispatch::handle("uri/decode", &input) else { panic!() };
//! assert_eq!(code, "SESSION_REFERENCE_INVALID_REFERENCE");
//! ```
//!
//! The normative rules live in `spec/`; the conformance vectors and the
//! runner's guide in `conformance/` (see `conformance/README.md`).

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(clippy::print_stdout)]

#[cfg(feature = "checks")]
pub mod checks;
pub mod config;
pub mod discovery;
pub mod error;
pub mod features;
#[cfg(feature = "harness")]
pub mod harness;
pub mod js;
pub mod mention;
pub mod pre_step;
pub mod prepare;
pub mod projection;
pub mod protocol;
pub mod reach;
pub mod retention;
pub mod spill;
pub mod surface;
pub mod tag_safe;
pub mod uri;

pub use error::{Error, ErrorCode, Failure};
pub use js::json::Json;
pub use js::JsString;
