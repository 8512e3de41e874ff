//! The ggml tensor types a GGUF file may declare: each one's name, and
//! how many weights a block holds in how many bytes.
//!
//! ```text
//! F32 1 in 4   F16, BF16 1 in 2   Q8_0 32 in 34 (an f16 scale d, then 32 i8: d·q)
//! Q4_0 32 in 18   Q4_1 32 in 20   Q5_0 32 in 22   Q5_1 32 in 24   Q8_1 32 in 40
//! Q2_K 256 in 84   Q3_K 256 in 110   Q4_K 256 in 144   Q5_K 256 in 176
//! Q6_K 256 in 210   Q8_K 256 in 292   IQ*, TQ*: as llama.cpp's ggml.c lists them
//! ```

/// One ggml tensor type, by its number in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GgmlType(pub u32);

/// (number, name, weights per block, bytes per block), as ggml lists them.
const TYPES: &[(u32, &str, u64, u64)] = &[
    (0, "F32", 1, 4),
    (1, "F16", 1, 2),
    (2, "Q4_0", 32, 18),
    (3, "Q4_1", 32, 20),
    (6, "Q5_0", 32, 22),
    (7, "Q5_1", 32, 24),
    (8, "Q8_0", 32, 34),
    (9, "Q8_1", 32, 40),
    (10, "Q2_K", 256, 84),
    (11, "Q3_K", 256, 110),
    (12, "Q4_K", 256, 144),
    (13, "Q5_K", 256, 176),
    (14, "Q6_K", 256, 210),
    (15, "Q8_K", 256, 292),
    (16, "IQ2_XXS", 256, 66),
    (17, "IQ2_XS", 256, 74),
    (18, "IQ3_XXS", 256, 98),
    (19, "IQ1_S", 256, 50),
    (20, "IQ4_NL", 32, 18),
    (21, "IQ3_S", 256, 110),
    (22, "IQ2_S", 256, 82),
    (23, "IQ4_XS", 256, 136),
    (24, "I8", 1, 1),
    (25, "I16", 1, 2),
    (26, "I32", 1, 4),
    (27, "I64", 1, 8),
    (28, "F64", 1, 8),
    (29, "IQ1_M", 256, 56),
    (30, "BF16", 1, 2),
    (34, "TQ1_0", 256, 54),
    (35, "TQ2_0", 256, 66),
];

/// F32.
pub const F32: GgmlType = GgmlType(0);
/// F16.
pub const F16: GgmlType = GgmlType(1);
/// Q8_0: blocks of 32 weights, an f16 scale then 32 signed bytes.
pub const Q8_0: GgmlType = GgmlType(8);
/// BF16.
pub const BF16: GgmlType = GgmlType(30);

/// Every type's name, for the message refusing an unknown one.
#[must_use]
pub fn names() -> String {
    TYPES
        .iter()
        .map(|t| format!("{} ({})", t.1, t.0))
        .collect::<Vec<_>>()
        .join(", ")
}

impl GgmlType {
    /// The type numbered `n`, if ggml has one.
    #[must_use]
    pub fn known(n: u32) -> Option<Self> {
        TYPES.iter().any(|t| t.0 == n).then_some(Self(n))
    }

    fn entry(self) -> (u32, &'static str, u64, u64) {
        TYPES
            .iter()
            .copied()
            .find(|t| t.0 == self.0)
            .unwrap_or((self.0, "?", 1, 0))
    }

    /// Its name, e.g. `Q8_0`.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.entry().1
    }

    /// Weights per block (1 for a plain type).
    #[must_use]
    pub fn block(self) -> u64 {
        self.entry().2
    }

    /// Bytes per block.
    #[must_use]
    pub fn block_bytes(self) -> u64 {
        self.entry().3
    }

    /// Bytes of `n` weights, when `n` is whole blocks; `None` otherwise or
    /// on overflow.
    #[must_use]
    pub fn bytes(self, n: u64) -> Option<u64> {
        if !n.is_multiple_of(self.block()) {
            return None;
        }
        (n / self.block()).checked_mul(self.block_bytes())
    }

    /// Whether a numeric run can read it: F32, F16, BF16 as stored, Q8_0
    /// dequantised to f32.
    #[must_use]
    pub fn numeric(self) -> bool {
        matches!(self, F32 | F16 | BF16 | Q8_0)
    }
}

/// The types a numeric run reads, for messages.
pub const NUMERIC: &str = "F32, F16, BF16, Q8_0 (dequantised to f32)";

/// Q8_0 blocks dequantised: each 34 bytes an f16 scale d then 32 i8 q,
/// giving d·q. `bytes` is whole blocks (the reader checked).
#[must_use]
pub fn dequantise_q8_0(bytes: &[u8]) -> Vec<f32> {
    let mut out = Vec::with_capacity(bytes.len() / 34 * 32);
    for b in bytes.chunks_exact(34) {
        let d = half::f16::from_le_bytes([b[0], b[1]]).to_f32();
        out.extend(b[2..].iter().map(|&q| d * f32::from(q.cast_signed())));
    }
    out
}
