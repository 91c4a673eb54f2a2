//! A small deterministic generator (xorshift64*), for agents and the test scene of
//! `crowd::scene`. Each agent carries its own, seeded
//! from the crowd's seed and its index, so its draws depend on nothing else (not on other
//! agents, nor on how rayon schedules the step).

/// xorshift64* state (never zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rng(u64);

/// SplitMix64's finaliser: spreads nearby seeds (0, 1, 2...) over the whole state space.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self(mix(seed) | 1)
    }

    /// A generator starting from `state` as it is (made odd, so it is never zero): for
    /// callers with their own seeding.
    pub fn from_state(state: u64) -> Self {
        Self(state | 1)
    }

    /// The generator of agent `index` of a crowd seeded with `seed`.
    pub fn for_agent(seed: u64, index: u64) -> Self {
        Self(mix(mix(seed) ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03)) | 1)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    #[inline]
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in 0..n (0 when n is 0).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_draw_different_numbers_within_range() {
        let mut a = Rng::for_agent(1, 0);
        let mut b = Rng::for_agent(1, 1);
        let mut c = Rng::for_agent(2, 0);
        let (x, y, z) = (a.next_u64(), b.next_u64(), c.next_u64());
        assert!(x != y && x != z && y != z);
        let mut r = Rng::new(3);
        for _ in 0..1000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            assert!(r.below(7) < 7);
        }
        assert_eq!(r.below(0), 0);
    }
}
