//! A small deterministic generator (xorshift) for the tests that draw their own random
//! cases (writemasks, swizzles, vec4 shapes) without the shared shader generator.

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    #[allow(dead_code)]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
