//! Session discovery at keystroke speed: 100 000 listed sessions (a third in
//! the agent's working directory, a third without one, a third elsewhere),
//! indexed once, then queried with 0–12 characters for the top 50, in both
//! generations. `benches/oracle/candidates.mjs` times upstream rc.8 on a
//! listing of the same shape.

mod common;
#[path = "common/session_words.rs"]
mod session_words;
use common::Rng;
use session_words::SESSION_WORDS;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use dsh_session_reference::discovery::sessions::{CandidateIndex, SessionRecord};
use dsh_session_reference::features::Features;
use dsh_session_reference::{JsString, Json};
use std::time::Duration;

const SESSIONS: usize = 100_000;

/// A deterministic listing: xorshift-chosen titles of two to four words.
fn listing() -> Vec<SessionRecord> {
    let mut rng = Rng::new();
    (0..SESSIONS)
        .map(|index| {
            let words = 2 + rng.below(3);
            let title: Vec<&str> = (0..words).map(|_| rng.pick(SESSION_WORDS)).collect();
            let cwd = match index % 3 {
                0 => Some(JsString::from("/work/project")),
                1 => None,
                _ => Some(JsString::from(
                    format!("/work/other-{}", index % 97).as_str(),
                )),
            };
            SessionRecord {
                id: JsString::from(format!("session-{index:06}-{:08x}", rng.next()).as_str()),
                cwd,
                created_at: Some(Json::Number(index as f64)),
                title: (index % 10 != 0).then(|| JsString::from(title.join(" ").as_str())),
                subagent_label: (index % 7 == 0).then(|| JsString::from("subagent: review")),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let index = CandidateIndex::new(listing());
    let agent = JsString::from("session-000001-00000000");
    let cwd = JsString::from("/work/project");
    let mut group = c.benchmark_group("candidates/100k");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for (release, features) in [("newest", Features::NEWEST), ("rc8", Features::RC8)] {
        // Empty; 1, 4, 8 and 12 characters matching as prefixes and word
        // starts; a scattered subsequence that matches nothing better, so no
        // candidate can be skipped; and a query matching nothing.
        for (case, query) in [
            ("empty", ""),
            ("1-char", "p"),
            ("4-chars", "plan"),
            ("8-chars", "refactor"),
            ("12-chars", "release note"),
            ("scattered", "rfctr"),
            ("no-match", "zzzz"),
        ] {
            let units: Vec<u16> = query.encode_utf16().collect();
            let id = BenchmarkId::new(release, case);
            group.bench_with_input(id, &units, |b, units| {
                b.iter(|| {
                    index
                        .list(&agent, Some(&cwd), black_box(units), 50, features)
                        .len()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
