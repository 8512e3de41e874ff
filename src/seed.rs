//! Per-tensor seeds: each named tensor draws from its own random stream,
//! so changing one layer (say the activation) leaves every other weight,
//! and the input, unchanged.

/// FNV-1a hash of a name.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The seed of the tensor `name` under the run seed `seed`.
#[must_use]
pub fn seed_for(seed: u64, name: &str) -> u64 {
    // splitmix64 finaliser over the mixed value.
    let mut z = seed ^ fnv1a(name);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
