//! `uri::encode` and `uri::decode` per call on a few session ids.
//! `benches/oracle/parse.mjs` times upstream on the same ids.

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dsh_session_reference::uri;

/// `(name, id)`: a short ASCII id, a UUID-like id, and an id with emoji and
/// a lone surrogate.
fn ids() -> Vec<(&'static str, Vec<u16>)> {
    let mut emoji: Vec<u16> = "chat \u{1F600} ".encode_utf16().collect();
    emoji.push(0xD800);
    emoji.extend(" \u{1F680}".encode_utf16());
    vec![
        ("short", "session-01HXYZ".encode_utf16().collect()),
        (
            "uuid",
            "123e4567-e89b-12d3-a456-426614174000"
                .encode_utf16()
                .collect(),
        ),
        ("emoji_lone_surrogate", emoji),
    ]
}

fn bench_uri(c: &mut Criterion) {
    let mut group = c.benchmark_group("uri");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .throughput(Throughput::Elements(1));
    for (name, id) in ids() {
        let encoded: Vec<u16> = uri::encode(&id).encode_utf16().collect();
        assert_eq!(
            uri::decode(&encoded).expect("decodes").units(),
            id.as_slice()
        );
        group.bench_with_input(BenchmarkId::new("encode", name), &id, |b, id| {
            b.iter(|| uri::encode(black_box(id)))
        });
        group.bench_with_input(BenchmarkId::new("decode", name), &encoded, |b, encoded| {
            b.iter(|| uri::decode(black_box(encoded)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_uri);
criterion_main!(benches);
