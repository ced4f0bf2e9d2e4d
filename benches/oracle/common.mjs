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
