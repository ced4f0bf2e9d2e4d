// What the oracle timing scripts share: the input generator of the Rust
// benches (benches/common/mod.rs) and the output modes.

// xorshift32 seeded with 0x9E3779B9, as `Rng` in benches/common/mod.rs.
export class Rng {
  constructor() {
    this.state = 0x9e3779b9;
  }
  next() {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }
  below(n) {
    return this.next() % n;
  }
  pick(words) {
    return words[this.below(words.length)];
  }
}

// ORACLE_JSON=1 (benches/side-by-side.sh): the human lines go to stderr and
// stdout carries one JSON object per measurement ({"id", "median_s", ...},
// ids as criterion names the Rust benches). Without it nothing changes.
export const JSON_LINES = process.env.ORACLE_JSON === "1";
export const log = JSON_LINES ? console.error : console.log;
export const emit = (record) => {
  if (JSON_LINES) console.log(JSON.stringify(record));
};

// The word lists of the benches' inputs, each identical to its Rust twin.
// Session titles: SESSION_WORDS in benches/common/session_words.rs.
export const SESSION_WORDS = [
  "plan", "refactor", "parser", "release", "notes", "bug", "fix", "login", "cache", "review",
  "deploy", "schema", "migration", "tests", "flaky", "docs", "api", "design", "budget", "index",
];
// Mention texts: WORDS in benches/parse.rs.
export const PROSE_WORDS = [
  "the", "a", "of", "and", "to", "in", "is", "that", "it", "for", "was", "on", "with", "as",
  "we", "this", "by", "be", "from", "at", "session", "model", "context", "reference", "host",
  "user", "reply", "snapshot", "tool", "message", "label", "text", "parse", "before", "after",
  "every", "which", "while", "should", "would", "could", "never", "always", "quickly", "quiet",
  "harbour", "morning", "evening", "window", "river", "garden", "letter", "number", "between",
  "through", "without", "another", "question", "answer", "result", "reader", "writer",
  "summary", "detail",
];
// Conversation messages: WORDS in benches/common/messages.rs.
export const MESSAGE_WORDS = [
  "the", "a", "of", "and", "to", "in", "is", "that", "it", "for", "session", "model", "context",
  "reference", "snapshot", "message", "budget", "retention", "reply", "tool", "result", "before",
  "after", "while", "should", "would", "window", "river", "garden", "letter", "number", "summary",
];
