//! A small seeded pseudo-random generator: SplitMix64.
//!
//! The simulation needs the same numbers on every run and every platform for the same
//! seed, and nothing more: SplitMix64 (Steele, Lea and Flood, 2014) passes BigCrush, costs
//! a few multiplications per number, and can also be used as a hash, so that the random
//! unit of one client's one retry is a pure function of (seed, stream, client, draw) —
//! the same in every compared variant, whatever order the events run in.

/// The golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: a bijective mix of 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The SplitMix64 generator.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// A generator for one purpose of one seed: streams of the same seed do not overlap
    /// in any way that matters here.
    pub fn stream(seed: u64, stream: u64) -> SplitMix64 {
        SplitMix64::new(mix(
            seed ^ mix(stream.wrapping_mul(GAMMA).wrapping_add(GAMMA))
        ))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }

    /// A number in [0, 1) with 53 random bits.
    pub fn next_unit(&mut self) -> f64 {
        to_unit(self.next_u64())
    }
}

fn to_unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The random unit in [0, 1) of draw `draw` of client `client`, for a seed and stream.
pub fn unit(seed: u64, stream: u64, client: u32, draw: u32) -> f64 {
    let key = (u64::from(client) << 32) | u64::from(draw);
    let base = mix(seed.wrapping_add(stream.wrapping_mul(GAMMA)));
    to_unit(mix(base ^ mix(key.wrapping_add(GAMMA))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_splitmix64() {
        // The first outputs of the reference implementation for seed 1234567.
        let mut rng = SplitMix64::new(1_234_567);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                6_457_827_717_110_365_317,
                3_203_168_211_198_807_973,
                9_817_491_932_198_370_423
            ]
        );
    }

    #[test]
    fn units_are_in_range_and_spread() {
        let mut rng = SplitMix64::stream(1, 0);
        let values: Vec<f64> = (0..10_000).map(|_| rng.next_unit()).collect();
        assert!(values.iter().all(|v| (0.0..1.0).contains(v)));
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        let hashed: Vec<f64> = (0..10_000).map(|i| unit(1, 1, i, 0)).collect();
        let mean = hashed.iter().sum::<f64>() / hashed.len() as f64;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        assert_ne!(unit(1, 1, 0, 0), unit(2, 1, 0, 0));
        assert_ne!(unit(1, 1, 0, 0), unit(1, 1, 0, 1));
        assert_eq!(unit(7, 1, 3, 2), unit(7, 1, 3, 2));
    }
}
