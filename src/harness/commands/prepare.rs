//! `prepare`: what a host would send to the model for one user message,
//! with the sessions it mentions read from snapshot files (`*.json`) in a
//! folder: the reference's pre-step ([`pre_step`]) as a host runs it, with
//! no model to look up.

use super::output::{say, say_raw};
use super::Exit;
use crate::config::{Config, NoModels};
use crate::js::json;
use crate::pre_step::pre_step;
use crate::prepare::{Agent, Services};
use crate::spill::{FolderSpillStore, SpillStore};
use crate::surface::FolderReader;
use crate::{JsString, Json};
use std::path::{Path, PathBuf};

/// Prepares the user message `text`, typed in the session `agent`, with
/// the sessions of the folder `sessions`, and prints each resulting
/// message's text (and a reference message's source record). A fixed
/// `max_reference_bytes` replaces the automatic budget; with `spill_dir`,
/// the full snapshots of truncated references are saved there.
pub fn run(
    text: &str,
    sessions: &Path,
    agent: &str,
    max_reference_bytes: Option<u64>,
    spill_dir: Option<PathBuf>,
) -> Exit {
    let reader = match FolderReader::open(sessions) {
        Ok(reader) => reader,
        Err(problem) => {
            eprintln!("cannot read sessions: {problem}");
            return Exit::Unusable;
        }
    };
    let store = spill_dir.map(FolderSpillStore::new);
    let services = Services {
        reader: &reader,
        spill: store.as_ref().map(|store| store as &dyn SpillStore),
        models: &NoModels,
        cancelled: &|| false,
    };
    let config = Config {
        max_reference_bytes,
        ..Config::default()
    };
    let agent = Agent {
        id: Some(JsString::from(agent)),
        route: None,
    };
    let message = Json::object([
        ("source", Json::object([("kind", Json::str("user"))])),
        (
            "content",
            Json::Array(vec![Json::object([
                ("type", Json::str("text")),
                ("text", Json::str(text)),
            ])]),
        ),
    ]);
    match pre_step(&config, &agent, &[message], &services) {
        Ok(messages) => {
            for (index, message) in messages.iter().enumerate() {
                let kind = message
                    .get("source")
                    .and_then(|s| s.get("kind"))
                    .and_then(Json::as_string)
                    .unwrap_or_default();
                say!("--- message {} ({kind})", index + 1);
                let blocks = message
                    .get("content")
                    .and_then(Json::as_array)
                    .unwrap_or_default();
                for block in blocks {
                    if let Some(text) = block.get("text").and_then(Json::as_js_str) {
                        say!("{}", text.to_string_lossy());
                    }
                }
                if kind == "session-reference" {
                    say!("--- source record");
                    say_raw!(
                        "{}",
                        json::to_pretty(message.get("source").unwrap_or(&Json::Null), 2)
                    );
                }
            }
            Exit::Success
        }
        Err(failure) => {
            eprintln!("{failure}");
            Exit::Failed
        }
    }
}
