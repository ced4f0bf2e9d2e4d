//! Peak memory of `prepare::prepare` on one referenced session of 1 000 000
//! alternating user/assistant messages of 160–200 bytes (the generator of
//! `benches/retention.rs`), against the snapshot's own size.
//!
//!   cargo build --release --example prepare_memory
//!   /usr/bin/time -v target/release/examples/prepare_memory [MESSAGES]
//!
//! (`benches/memory.sh` does both.) Goal: peak memory while preparing ≤ 3×
//! the snapshot's own size.
//!
//! Two independent measurements:
//!
//! - RSS, from `/proc/self/status`: VmRSS/VmHWM at start, after building the
//!   snapshot and after `prepare`. After the build, the high-water mark is
//!   reset (`5` written to `/proc/self/clear_refs`), so VmHWM read after
//!   `prepare` is the peak RSS *during* `prepare` (snapshot included).
//! - Heap, from a counting global allocator: live requested bytes and their
//!   peak, exact, without malloc's own overhead.
//!
//! "Snapshot own size" counts the heap bytes the snapshot owns as stored:
//! each text's UTF-16 units × 2 (texts are built with exact capacity), each
//! event's `texts` vector buffer (1 × `size_of::<JsString>()`), and the
//! `events` buffer (capacity × `size_of::<SurfaceEvent>()`); plus the `Arc`
//! box holding the `Snapshot` struct and the header's two strings. malloc's
//! own per-allocation overhead (about 16 B a block with glibc, 2 blocks per
//! message) is not counted: it shows as the gap between the RSS growth of the
//! build and this size. The allocator's count of the build must agree.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use dsh_session_reference::config::{Config, NoModels};
use dsh_session_reference::prepare::{self, Agent, Services};
use dsh_session_reference::surface::{
    ReadError, SessionHeader, SessionReader, Snapshot, SurfaceEvent, UserSource,
};
use dsh_session_reference::{projection, retention};
use dsh_session_reference::{JsString, Json};

#[path = "../benches/common/mod.rs"]
mod common;
use common::Rng;
#[path = "../benches/common/messages.rs"]
mod messages;
use messages::message;

/// Live heap bytes (as requested) and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc(layout);
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc_zeroed(layout);
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = System.realloc(ptr, layout, new_size);
        if !new.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Resets the heap high-water mark to the live bytes; returns them.
fn reset_heap_peak() -> usize {
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    live
}

const DEFAULT_MESSAGES: usize = 1_000_000;
const SESSION_ID: &str = "bench-session";
const LABEL: &str = "Bench session";

/// A text stored with exact capacity (ASCII: one unit per byte).
fn exact(text: &str) -> JsString {
    let mut units = Vec::with_capacity(text.len());
    units.extend(text.encode_utf16());
    units.shrink_to_fit();
    JsString::from_units(units)
}

/// The snapshot of `n` messages, user first (same texts as the bench's).
fn snapshot(n: usize) -> Snapshot {
    let mut rng = Rng::new();
    let mut events = Vec::with_capacity(n);
    for index in 0..n {
        let texts = vec![exact(&message(&mut rng))];
        events.push(if index % 2 == 0 {
            SurfaceEvent::User {
                source: UserSource::Direct,
                texts,
            }
        } else {
            SurfaceEvent::Assistant { texts }
        });
    }
    Snapshot {
        session: SessionHeader {
            id: Some(Json::String(exact(SESSION_ID))),
            cwd: Some(Json::String(exact("/workspace/bench"))),
            version: None,
        },
        captured_through_seq: Some(Json::Number(2.0 * n as f64)),
        events,
    }
}

/// The snapshot's own heap bytes, by category (see the module comment).
struct OwnSize {
    text_units: usize,
    texts_vectors: usize,
    events_buffer: usize,
    header: usize,
}

impl OwnSize {
    fn of(snapshot: &Snapshot) -> OwnSize {
        let mut size = OwnSize {
            text_units: 0,
            texts_vectors: 0,
            events_buffer: snapshot.events.capacity() * size_of::<SurfaceEvent>(),
            // The Arc's box (two counts and the Snapshot struct) and the
            // header's two strings.
            header: 2 * size_of::<usize>()
                + size_of::<Snapshot>()
                + SESSION_ID.len() * 2
                + "/workspace/bench".len() * 2,
        };
        for event in &snapshot.events {
            if let SurfaceEvent::User { texts, .. } | SurfaceEvent::Assistant { texts } = event {
                size.texts_vectors += texts.capacity() * size_of::<JsString>();
                size.text_units += texts.iter().map(|t| t.len() * 2).sum::<usize>();
            }
        }
        size
    }

    fn total(&self) -> usize {
        self.text_units + self.texts_vectors + self.events_buffer + self.header
    }
}

/// VmRSS and VmHWM in bytes.
fn status() -> (usize, usize) {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<usize>()
                    .ok()
            })
            .map_or(0, |kib| kib * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / 1_048_576.0)
}

fn report(stage: &str) -> (usize, usize) {
    let (rss, hwm) = status();
    println!(
        "{stage:<28} VmRSS {:>11}  VmHWM {:>11}  heap live {:>11}  heap peak {:>11}",
        mib(rss),
        mib(hwm),
        mib(LIVE.load(Relaxed)),
        mib(PEAK.load(Relaxed)),
    );
    (rss, hwm)
}

/// A reader over one shared snapshot, as a host's cache would hand it out.
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

fn main() {
    let n = std::env::args()
        .nth(1)
        .map(|arg| arg.replace('_', "").parse().expect("MESSAGES: a count"))
        .unwrap_or(DEFAULT_MESSAGES);
    println!(
        "prepare memory: one session of {n} messages (160–200 ASCII bytes, user/assistant), default Config (budget 65 536), NoModels, no spill"
    );
    let (rss_start, _) = report("start");
    let heap_start = LIVE.load(Relaxed);

    let reader = Shared(Arc::new(snapshot(n)));
    let own = OwnSize::of(&reader.0);
    let heap_snapshot = LIVE.load(Relaxed) - heap_start;
    let (rss_built, _) = report("after building the snapshot");
    println!(
        "snapshot own size: {} = text units × 2 {} + texts vectors {} ({} B each) + events buffer {} ({} × {} B) + Arc box and header {} B",
        mib(own.total()),
        mib(own.text_units),
        mib(own.texts_vectors),
        size_of::<JsString>(),
        mib(own.events_buffer),
        reader.0.events.capacity(),
        size_of::<SurfaceEvent>(),
        own.header,
    );
    println!(
        "  allocator count of the build: {} ({} bytes; formula {} bytes{}); RSS growth of the build: {}",
        mib(heap_snapshot),
        heap_snapshot,
        own.total(),
        if heap_snapshot == own.total() { ", equal" } else { ", DIFFERENT" },
        mib(rss_built - rss_start),
    );

    // Peak RSS from here on is the peak during prepare.
    let hwm_reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let heap_before = reset_heap_peak();
    let (rss_before, _) = report(if hwm_reset {
        "before prepare (HWM reset)"
    } else {
        "before prepare (no HWM reset)"
    });

    let agent = Agent {
        id: Some(JsString::from("bench-agent")),
        route: None,
    };
    let content = Json::Array(vec![Json::object([
        ("type", Json::str("text")),
        ("text", Json::str("see @Bench session")),
    ])]);
    let references = Json::Array(vec![Json::object([
        ("sessionId", Json::str(SESSION_ID)),
        ("label", Json::str(LABEL)),
    ])]);
    let config = Config::default();
    let services = Services {
        reader: &reader,
        spill: None,
        models: &NoModels,
        cancelled: &|| false,
    };
    let started = Instant::now();
    let prepared = prepare::prepare(&config, &agent, &content, &references, &services)
        .expect("prepare succeeds");
    let elapsed = started.elapsed();
    let heap_peak = PEAK.load(Relaxed);
    let (_, hwm_prepare) = report("after prepare");
    let prompt_len = prepared.context.as_ref().map_or(0, |c| c.prompt.len());
    println!(
        "prepare: {:.1} ms (one cold call), prompt {prompt_len} bytes",
        elapsed.as_secs_f64() * 1e3
    );
    drop(prepared);

    // Where the extra memory goes: the public steps of prepare, one by one.
    let snapshot: &Snapshot = &reader.0;
    let label: Vec<u16> = LABEL.encode_utf16().collect();
    let live = reset_heap_peak();
    let items = projection::project(snapshot);
    let projected = LIVE.load(Relaxed) - live;
    let items_len = items.len();
    let retained = retention::retain(snapshot, &label, items, 65_536).expect("fits");
    let retain_peak = PEAK.load(Relaxed) - live;
    let retained_live = LIVE.load(Relaxed) - live;
    let stats = retained.stats;
    let conversation_capacity = retained.conversation.capacity();
    drop(retained);
    println!(
        "breakdown (heap above the snapshot): projection::project {} ({items_len} items × {} B); \
         retention::retain peak {} (the projected items and retain's per-item slots, live together), \
         {} still held by its result ({} retained messages in a conversation vector of capacity {} × {} B); \
         {} omitted",
        mib(projected),
        size_of::<projection::Item<'_>>(),
        mib(retain_peak),
        mib(retained_live),
        stats.retained_messages,
        conversation_capacity,
        size_of::<retention::Message<'_>>(),
        stats.omitted_messages,
    );

    let size = own.total() as f64;
    let peak_rss_prepare = hwm_prepare;
    let rss_ratio = peak_rss_prepare as f64 / size;
    let rss_ratio_no_base = (peak_rss_prepare - rss_start) as f64 / size;
    let heap_ratio = heap_peak as f64 / size;
    println!(
        "peak during prepare: RSS {} (process baseline {} included), heap {} (snapshot {} + prepare's own {})",
        mib(peak_rss_prepare),
        mib(rss_start),
        mib(heap_peak),
        mib(heap_before),
        mib(heap_peak - heap_before),
    );
    println!(
        "ratio to the snapshot's own size {}: peak RSS {:.2}× (without the process baseline {:.2}×), peak heap {:.2}× — goal ≤ 3×: {}",
        mib(own.total()),
        rss_ratio,
        rss_ratio_no_base,
        heap_ratio,
        if rss_ratio <= 3.0 { "PASS" } else { "FAIL" },
    );
    println!(
        "json: {{\"messages\":{n},\"snapshot_bytes\":{},\"heap_snapshot_bytes\":{heap_snapshot},\"rss_start\":{rss_start},\"rss_after_build\":{rss_built},\"rss_before_prepare\":{rss_before},\"hwm_reset\":{hwm_reset},\"peak_rss_prepare\":{peak_rss_prepare},\"peak_heap_prepare\":{heap_peak},\"heap_before_prepare\":{heap_before},\"prepare_s\":{},\"prompt_bytes\":{prompt_len},\"ratio_rss\":{rss_ratio},\"ratio_heap\":{heap_ratio}}}",
        own.total(),
        elapsed.as_secs_f64(),
    );
}
