//! Retention cost on one large referenced session: N alternating user and
//! assistant messages of 160–200 bytes (deterministic prose), one reference,
//! the default budget (65 536 bytes: `Config::default()` with no known
//! model).
//!
//! - `prepare/one-session`: `prepare::prepare` end to end, the reader handing
//!   out the shared snapshot as a host's cache would.
//! - `retain/one-session`: `retention::retain` on an already read snapshot,
//!   projection included: the part that must be linear in N.
//!
//! Upstream re-serializes the whole data object after every dropped message,
//! so its cost grows with N²; `benches/oracle/prepare.mjs` times it on the
//! same messages (same generator) and checks the same data checksums.

mod common;
use common::Rng;
#[path = "common/messages.rs"]
mod messages;
use messages::message;

use std::sync::Arc;
use std::time::Duration;

use criterion::{
    black_box, criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use dsh_session_reference::config::{Config, NoModels};
use dsh_session_reference::prepare::{self, Agent, Services};
use dsh_session_reference::projection;
use dsh_session_reference::retention;
use dsh_session_reference::surface::{
    ReadError, SessionHeader, SessionReader, Snapshot, SurfaceEvent, UserSource,
};
use dsh_session_reference::{JsString, Json};

/// Message counts (2 000 and 4 000 match points of the oracle run).
const SIZES: &[usize] = &[1_000, 2_000, 4_000, 8_000, 100_000, 1_000_000];
/// Upstream's default `maxReferenceBytes`.
const BUDGET: u64 = 65_536;
const SESSION_ID: &str = "bench-session";
const LABEL: &str = "Bench session";

/// FNV-1a (32-bit) over UTF-16 code units, as the oracle computes it.
fn fnv1a(units: impl IntoIterator<Item = u16>, hash: u32) -> u32 {
    units.into_iter().fold(hash, |hash, unit| {
        (hash ^ u32::from(unit)).wrapping_mul(0x0100_0193)
    })
}
const FNV_OFFSET: u32 = 0x811c_9dc5;

/// The snapshot of `n` messages, user first, and the checksum of its texts.
fn snapshot(n: usize) -> (Snapshot, u32) {
    let mut rng = Rng::new();
    let mut checksum = FNV_OFFSET;
    let events = (0..n)
        .map(|index| {
            let text = JsString::from(message(&mut rng).as_str());
            checksum = fnv1a(text.units().iter().copied(), checksum);
            let texts = vec![text];
            if index % 2 == 0 {
                SurfaceEvent::User {
                    source: UserSource::Direct,
                    texts,
                }
            } else {
                SurfaceEvent::Assistant { texts }
            }
        })
        .collect();
    let snapshot = Snapshot {
        session: SessionHeader {
            id: Some(Json::str(SESSION_ID)),
            cwd: Some(Json::str("/workspace/bench")),
            version: None,
        },
        captured_through_seq: Some(Json::Number(2.0 * n as f64)),
        events,
    };
    (snapshot, checksum)
}

/// A reader over one shared snapshot.
struct Shared(Arc<Snapshot>);

impl SessionReader for Shared {
    fn read_surface(&self, id: &JsString) -> Result<Arc<Snapshot>, ReadError> {
        if self.0.session.id.as_ref().and_then(Json::as_js_str) == Some(id) {
            Ok(Arc::clone(&self.0))
        } else {
            Err(ReadError::Failed(format!("no session {id:?}")))
        }
    }
}

fn references() -> Json {
    Json::Array(vec![Json::object([
        ("sessionId", Json::str(SESSION_ID)),
        ("label", Json::str(LABEL)),
    ])])
}

fn run_prepare(reader: &Shared, agent: &Agent, content: &Json, references: &Json) -> String {
    let config = Config::default();
    let services = Services {
        reader,
        spill: None,
        models: &NoModels,
        cancelled: &|| false,
    };
    prepare::prepare(&config, agent, content, references, &services)
        .expect("prepare succeeds")
        .context
        .expect("one context")
        .prompt
}

fn bench_retention(c: &mut Criterion) {
    let agent = Agent {
        id: Some(JsString::from("bench-agent")),
        route: None,
    };
    let content = Json::Array(vec![Json::object([
        ("type", Json::str("text")),
        ("text", Json::str("see @Bench session")),
    ])]);
    let references = references();
    let label = JsString::from(LABEL);

    let mut prepare_group = c.benchmark_group("prepare/one-session");
    prepare_group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let mut snapshots = Vec::new();
    for &n in SIZES {
        let (snapshot, checksum) = snapshot(n);
        let reader = Shared(Arc::new(snapshot));
        // The data array and stats, for comparison with the oracle.
        let prompt = run_prepare(&reader, &agent, &content, &references);
        let start = prompt.find("<referenced-sessions>\n").expect("open") + 22;
        let end = prompt.find("\n</referenced-sessions>").expect("close");
        let data = &prompt[start..end];
        let retained = retention::retain(
            &reader.0,
            label.units(),
            projection::project(&reader.0),
            BUDGET,
        )
        .expect("fits");
        let s = retained.stats;
        eprintln!(
            "N={n}: texts fnv1a {checksum:08x}, data {} B fnv1a {:08x}, stats retained {} omittedMessages {} omittedBytes {} truncated {}",
            data.len(),
            fnv1a(data.encode_utf16(), FNV_OFFSET),
            s.retained_messages,
            s.omitted_messages,
            s.omitted_bytes,
            s.truncated,
        );
        prepare_group.throughput(Throughput::Elements(n as u64));
        prepare_group.bench_with_input(BenchmarkId::from_parameter(n), &reader, |b, reader| {
            b.iter(|| run_prepare(black_box(reader), &agent, &content, &references))
        });
        snapshots.push((n, reader));
    }
    prepare_group.finish();

    let mut retain_group = c.benchmark_group("retain/one-session");
    retain_group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (n, reader) in &snapshots {
        let snapshot: &Snapshot = &reader.0;
        retain_group.throughput(Throughput::Elements(*n as u64));
        retain_group.bench_with_input(BenchmarkId::from_parameter(n), snapshot, |b, snapshot| {
            b.iter(|| {
                let retained = retention::retain(
                    black_box(snapshot),
                    label.units(),
                    projection::project(snapshot),
                    BUDGET,
                )
                .expect("fits");
                retained.stats
            })
        });
    }
    retain_group.finish();
}

criterion_group!(benches, bench_retention);
criterion_main!(benches);
