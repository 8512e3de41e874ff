//! The key/value cache a model holds while it decodes: every layer keeps
//! the keys and the values of every position it has seen, kv heads of hd
//! each.
//!
//! ```text
//! bytes per token = 2 · layers · kv_heads · hd · bytes of the dtype      (k and v)
//! bytes at S      = per token · S        (a layer under a sliding window w keeps min(S, w))
//! ```
//!
//! Mistral-7B in bf16: 2 · 32 · 8 · 128 · 2 = 131,072 bytes per token;
//! with one K/V head per query head (MHA, 32) it would be 4× that.

use super::{Precision, thousands};
use crate::config::ModelConfig;
use serde::Serialize;

/// The cache's sizes, to be priced in any [`Precision`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KvCache {
    /// Layers L: each keeps its own cache.
    pub layers: u64,
    /// K/V heads kv (h without grouped-query attention).
    pub kv_heads: u64,
    /// Query heads h: what an MHA model would cache.
    pub heads: u64,
    /// Head width hd.
    pub head_dim: u64,
    /// The positions the model holds, its context: the cache at its longest.
    pub context: u64,
    /// Each layer's sliding window, `None` for a layer that keeps every
    /// position (Gemma 2 alternates).
    pub windows: Vec<Option<u64>>,
}

impl KvCache {
    /// The cache of `cfg`'s model.
    #[must_use]
    pub fn of(cfg: &ModelConfig) -> Self {
        let n = |x: usize| u64::try_from(x).unwrap_or(u64::MAX);
        Self {
            // One device's: a pipeline stage's blocks.
            layers: n(cfg.held_layers()),
            // One device's, when split: its K/V heads and query heads.
            kv_heads: n(cfg.local_kv_heads()),
            heads: n(cfg.attention.heads / cfg.devices.tp.max(1)),
            head_dim: n(cfg.head_dim()),
            context: n(cfg.context()),
            windows: cfg.held_blocks().map(|l| cfg.window_at(l).map(n)).collect(),
        }
    }

    /// Bytes one token adds to every layer's cache: 2·L·kv·hd·bytes.
    #[must_use]
    pub fn per_token(&self, p: Precision) -> u64 {
        self.per_token_with(self.kv_heads, p)
    }

    /// What one token would add with a K/V head per query head (MHA):
    /// 2·L·h·hd·bytes.
    #[must_use]
    pub fn per_token_mha(&self, p: Precision) -> u64 {
        self.per_token_with(self.heads, p)
    }

    fn per_token_with(&self, heads: u64, p: Precision) -> u64 {
        2u64.saturating_mul(self.layers)
            .saturating_mul(heads)
            .saturating_mul(self.head_dim)
            .saturating_mul(p.size())
    }

    /// Bytes of one sequence's cache after `positions` tokens: each layer
    /// holds min(positions, its window).
    #[must_use]
    pub fn at(&self, positions: u64, p: Precision) -> u64 {
        let per_layer = 2u64
            .saturating_mul(self.kv_heads)
            .saturating_mul(self.head_dim)
            .saturating_mul(p.size());
        self.windows
            .iter()
            .map(|w| per_layer.saturating_mul(w.map_or(positions, |w| positions.min(w))))
            .fold(0u64, u64::saturating_add)
    }

    /// The per-token formula with its numbers: `2·L·kv·hd·bytes = 2·32·8·128·2`.
    #[must_use]
    pub fn formula(&self, p: Precision) -> String {
        format!(
            "2·L·kv·hd·bytes = 2·{}·{}·{}·{}",
            thousands(self.layers),
            thousands(self.kv_heads),
            thousands(self.head_dim),
            p.size()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{KvCache, Precision};

    fn mistral() -> KvCache {
        KvCache {
            layers: 32,
            kv_heads: 8,
            heads: 32,
            head_dim: 128,
            context: 32_768,
            windows: vec![Some(4096); 32],
        }
    }

    #[test]
    fn mistral_7b_in_bf16_caches_131072_bytes_a_token_and_mha_would_cache_4x() {
        let c = mistral();
        assert_eq!(c.per_token(Precision::Bf16), 131_072);
        assert_eq!(c.per_token_mha(Precision::Bf16), 4 * 131_072);
        assert_eq!(c.formula(Precision::Bf16), "2·L·kv·hd·bytes = 2·32·8·128·2");
    }

    #[test]
    fn a_sliding_window_caps_each_layer_and_a_full_layer_grows() {
        let c = mistral();
        // Under the window every position is kept; past it, 4096.
        assert_eq!(c.at(100, Precision::Bf16), 100 * 131_072);
        assert_eq!(c.at(32_768, Precision::Bf16), 4096 * 131_072);
        // Gemma 2's alternation: the full layers keep growing.
        let alternating = KvCache {
            windows: (0..32).map(|l| (l % 2 == 0).then_some(4096)).collect(),
            ..mistral()
        };
        let half = 131_072 / 2;
        assert_eq!(
            alternating.at(32_768, Precision::Bf16),
            half * 4096 + half * 32_768
        );
    }
}
