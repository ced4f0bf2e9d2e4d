//! What the benches share: the deterministic generator their inputs come
//! from. The Node scripts in `benches/oracle/` use the same xorshift32 with
//! the same seed, so both sides time identical inputs.

/// xorshift32, seeded with `0x9E3779B9`.
pub struct Rng(u32);

impl Rng {
    /// The generator at its fixed seed.
    pub fn new() -> Self {
        Self(0x9E37_79B9)
    }

    /// The next 32 random bits.
    pub fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u32) as usize
    }

    /// One of `words`.
    pub fn pick(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len())]
    }
}
