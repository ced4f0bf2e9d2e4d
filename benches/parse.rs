//! `mention::parse` throughput on three workloads: mention-free prose, text
//! dense with mentions, and a run of unclosed `@[` (upstream's quadratic
//! case). `benches/oracle/parse.mjs` builds the same inputs with the same
//! generator and times upstream on them.

mod common;
use common::Rng;

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use dsh_session_reference::{mention, uri};

/// Size of the `prose` and `dense` inputs in bytes (all ASCII).
const MIB: usize = 1_048_576;
/// Number of `@[` in the `unclosed` input.
const UNCLOSED_REPEATS: usize = 40_000;

/// Words for the generated prose: no `@`, no `:`, no `dsh-session` (the
/// same list as `PROSE_WORDS` in `benches/oracle/common.mjs`).
const WORDS: &[&str] = &[
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "it",
    "for",
    "was",
    "on",
    "with",
    "as",
    "we",
    "this",
    "by",
    "be",
    "from",
    "at",
    "session",
    "model",
    "context",
    "reference",
    "host",
    "user",
    "reply",
    "snapshot",
    "tool",
    "message",
    "label",
    "text",
    "parse",
    "before",
    "after",
    "every",
    "which",
    "while",
    "should",
    "would",
    "could",
    "never",
    "always",
    "quickly",
    "quiet",
    "harbour",
    "morning",
    "evening",
    "window",
    "river",
    "garden",
    "letter",
    "number",
    "between",
    "through",
    "without",
    "another",
    "question",
    "answer",
    "result",
    "reader",
    "writer",
    "summary",
    "detail",
];

/// FNV-1a (32-bit) of each input's UTF-16 code units, and the mention count
/// of `dense`: `benches/oracle/parse.mjs` checks the same values, so both
/// sides time identical inputs.
const PROSE_FNV1A: u32 = 0x6b3c_99b3;
const DENSE_FNV1A: u32 = 0xe5d7_5f42;
const DENSE_MENTIONS: usize = 22_725;
const UNCLOSED_FNV1A: u32 = 0xbc8c_2ac5;

fn fnv1a(units: &[u16]) -> u32 {
    units.iter().fold(0x811c_9dc5, |hash, &unit| {
        (hash ^ u32::from(unit)).wrapping_mul(0x0100_0193)
    })
}

/// Mention-free English-like prose of exactly `len` bytes: sentences of 6 to
/// 17 words with commas and semicolons, ending in `.`, `?`, `!` or `:`, and
/// paragraph breaks.
fn prose(rng: &mut Rng, len: usize) -> String {
    let mut out = String::with_capacity(len + 256);
    while out.len() < len {
        let words = 6 + rng.below(12);
        for index in 0..words {
            let word = rng.pick(WORDS);
            if index == 0 {
                out.push_str(&word[..1].to_ascii_uppercase());
                out.push_str(&word[1..]);
            } else {
                out.push_str(word);
            }
            if index + 1 < words {
                out.push_str(match rng.below(16) {
                    0 => ", ",
                    1 => "; ",
                    _ => " ",
                });
            }
        }
        out.push_str(match rng.below(20) {
            0 => "?",
            1 => "!",
            2 | 3 => ":",
            _ => ".",
        });
        out.push_str(if rng.below(6) == 0 { "\n\n" } else { " " });
    }
    out.truncate(len);
    out
}

/// Exactly `len` bytes with a mention about every 40 bytes: one prose word,
/// then either an explicit `@[label N](uri)` or a bare URI, all canonical.
/// Returns the text and the number of mentions.
fn dense(rng: &mut Rng, len: usize) -> (String, usize) {
    let mut out = String::with_capacity(len);
    let mut count = 0;
    loop {
        let word = rng.pick(WORDS);
        let uri = uri::encode(
            &format!("session-{count}")
                .encode_utf16()
                .collect::<Vec<_>>(),
        );
        let segment = if rng.below(2) == 0 {
            format!("{word} @[label {count}]({uri}) ")
        } else {
            format!("{word} {uri} ")
        };
        if out.len() + segment.len() > len {
            break;
        }
        out.push_str(&segment);
        count += 1;
    }
    while out.len() < len {
        out.push(' ');
    }
    (out, count)
}

fn bench_parse(c: &mut Criterion) {
    let mut rng = Rng::new();
    let prose = prose(&mut rng, MIB);
    let (dense, dense_mentions) = dense(&mut rng, MIB);
    let unclosed = "@[".repeat(UNCLOSED_REPEATS);
    assert!(!prose.contains('@') && !prose.contains("dsh-session:"));

    let mut group = c.benchmark_group("mention/parse");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    assert_eq!(dense_mentions, DENSE_MENTIONS);
    for (name, text, mentions, checksum) in [
        ("prose", &prose, 0, PROSE_FNV1A),
        ("dense", &dense, dense_mentions, DENSE_FNV1A),
        ("unclosed", &unclosed, 0, UNCLOSED_FNV1A),
    ] {
        let units: Vec<u16> = text.encode_utf16().collect();
        assert_eq!(
            fnv1a(&units),
            checksum,
            "{name}: input differs from the oracle's"
        );
        let parsed = mention::parse(&units).expect("the input parses");
        assert_eq!(parsed.references.len(), mentions, "{name}");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| mention::parse(black_box(&units))));
    }
    group.finish();
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
