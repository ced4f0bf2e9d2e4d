//! The exact JSON layer (`js::json`) on representative protocol messages,
//! beside `serde_json` on the same bytes as the anchor: parse (text to tree)
//! and write (tree to one wire line).
//!
//! Inputs, built with the benches' generator (`benches/round-trip.mjs` sends
//! the same requests through the adapters):
//! - `candidates-100k`: a `candidates/list` request over the 100 000 sessions
//!   of `benches/candidates.rs` (without subagent labels), about 9.2 MB;
//! - `snapshot-8000`: a `prepare` request with a session of 8 000 messages
//!   (`benches/retention.rs`), about 2.4 MB;
//! - `mention-dense`: a `mention/parse` request whose text is the dense
//!   mention text of `benches/parse.rs` at 1.28 MB.
//!
//! All three are plain JSON that `serde_json` reads too (`serde_json::Value`,
//! whose objects are sorted maps: it neither keeps member order nor
//! duplicates, and its strings cannot hold lone surrogates). Parsing is timed
//! without dropping the tree, on both sides: the adapter drops a request
//! only after answering it. Each tree is dropped before the next parse
//! (`BatchSize::PerIteration`), as the adapter holds one request at a time;
//! `iter_with_large_drop` kept a whole sample's trees alive, up to 20 of
//! the 9.2 MB request's (some 700 MB), so that every parse also paid for
//! memory fresh from the kernel (issue #13: 34-36 ms against 28.6 ms).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common;
use common::Rng;

#[path = "common/messages.rs"]
mod messages;
#[path = "common/session_words.rs"]
mod session_words;
use messages::message;
use session_words::SESSION_WORDS;

use criterion::measurement::WallTime;
use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkGroup, Criterion, Throughput,
};
use dsh_session_reference::js::json;
use dsh_session_reference::uri;
use std::fmt::Write;
use std::time::Duration;

/// A few of the prose words of `benches/parse.rs` (the text's exact words do
/// not matter to JSON).
const PROSE_WORDS: &[&str] = &["the", "session", "model", "harbour", "between", "a"];

fn candidates_request(count: usize) -> String {
    let mut rng = Rng::new();
    let mut out = String::from(
        r#"{"id":"1","op":"candidates/list","input":{"agent":{"id":"session-000001-00000000","cwd":"/work/project"},"query":"plan","sessions":["#,
    );
    for index in 0..count {
        let words = 2 + rng.below(3);
        let title: Vec<&str> = (0..words).map(|_| rng.pick(SESSION_WORDS)).collect();
        if index > 0 {
            out.push(',');
        }
        let _ = write!(out, r#"{{"id":"session-{index:06}-{:08x}""#, rng.next());
        match index % 3 {
            0 => out.push_str(r#","cwd":"/work/project""#),
            2 => {
                let _ = write!(out, r#","cwd":"/work/other-{}""#, index % 97);
            }
            _ => {}
        }
        let _ = write!(out, r#","createdAt":{index}"#);
        if index % 10 != 0 {
            let _ = write!(out, r#","title":"{}""#, title.join(" "));
        }
        out.push('}');
    }
    out.push_str("]}}");
    out
}

fn snapshot_request(n: usize) -> String {
    let mut rng = Rng::new();
    let mut out = String::from(
        r#"{"id":"1","op":"prepare","input":{"agent":{"id":"bench-agent"},"content":[{"type":"text","text":"see @Bench session"}],"references":[{"sessionId":"bench-session","label":"Bench session"}],"sessions":{"bench-session":{"session":{"id":"bench-session","cwd":"/workspace/bench"},"capturedThroughSeq":"#,
    );
    let _ = write!(out, "{},\"events\":[", 2 * n);
    for index in 0..n {
        if index > 0 {
            out.push(',');
        }
        let text = message(&mut rng);
        if index % 2 == 0 {
            let _ = write!(
                out,
                r#"{{"type":"user/message","data":{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"{text}"}}]}}}}"#
            );
        } else {
            let _ = write!(
                out,
                r#"{{"type":"assistant/message","data":{{"message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}}}}}}"#
            );
        }
    }
    out.push_str("]}}}}");
    out
}

fn mention_request(len: usize) -> String {
    let mut rng = Rng::new();
    let mut text = String::with_capacity(len);
    let mut count = 0;
    loop {
        let word = rng.pick(PROSE_WORDS);
        let id: Vec<u16> = format!("session-{count}").encode_utf16().collect();
        let uri = uri::encode(&id);
        let segment = if rng.below(2) == 0 {
            format!("{word} @[label {count}]({uri}) ")
        } else {
            format!("{word} {uri} ")
        };
        if text.len() + segment.len() > len {
            break;
        }
        text.push_str(&segment);
        count += 1;
    }
    while text.len() < len {
        text.push(' ');
    }
    format!(r#"{{"id":"1","op":"mention/parse","input":{{"text":"{text}"}}}}"#)
}

/// A benchmark group with the settings both directions share.
fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(20);
    group
}

fn bench_json(c: &mut Criterion) {
    let inputs = [
        ("candidates-100k", candidates_request(100_000)),
        ("snapshot-8000", snapshot_request(8_000)),
        ("mention-dense", mention_request(1_280_000)),
    ];
    let mut parse = group(c, "json/parse");
    for (name, text) in &inputs {
        let ours = json::parse(text).expect("valid JSON");
        let theirs: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
        // Same bytes, same meaning: serde_json reads our wire line back to
        // the value it read from the input.
        let line = json::to_wire(&ours);
        assert_eq!(line.as_str(), text.as_str(), "{name}: wire line differs");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&line).expect("valid JSON"),
            theirs
        );
        parse.throughput(Throughput::Bytes(text.len() as u64));
        parse.bench_function(format!("{name}/ours"), |b| {
            b.iter_batched(
                || (),
                |()| json::parse(black_box(text)),
                BatchSize::PerIteration,
            )
        });
        parse.bench_function(format!("{name}/serde_json"), |b| {
            b.iter_batched(
                || (),
                |()| serde_json::from_str::<serde_json::Value>(black_box(text)),
                BatchSize::PerIteration,
            )
        });
    }
    parse.finish();

    let mut write = group(c, "json/write");
    for (name, text) in &inputs {
        let ours = json::parse(text).expect("valid JSON");
        let theirs: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
        write.throughput(Throughput::Bytes(text.len() as u64));
        write.bench_function(format!("{name}/ours"), |b| {
            b.iter(|| json::to_wire(black_box(&ours)))
        });
        write.bench_function(format!("{name}/serde_json"), |b| {
            b.iter(|| serde_json::to_string(black_box(&theirs)))
        });
    }
    write.finish();
}

criterion_group!(benches, bench_json);
criterion_main!(benches);
