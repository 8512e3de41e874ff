//! Which keys each query of attention read, as the trace records it, so
//! the heatmap marks the masked cells `╳` without asking the model.

use crate::arch::Mask;
use crate::trace::Trace;

/// Which keys each query of a block's attention read, as the trace
/// records it: the anatomy's mask, and the sliding window it built for
/// the block (0: none; a window fault's too). Query t of a causal mask reads keys
/// `max(0, t + 1 − w) ..= t` (every key up to t without a window); a
/// two-way mask, or none at all (the `no-causal-mask` fault), every key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// The anatomy's mask.
    pub mask: Mask,
    /// The sliding window's width, `None` for none.
    pub window: Option<usize>,
}

impl Reach {
    /// What block `n` (from 1) of `trace` read.
    #[must_use]
    pub fn at(trace: &Trace, n: usize) -> Self {
        Self {
            mask: trace.anatomy.mask,
            window: trace.anatomy.window(trace.config.window_at(n)),
        }
    }

    /// Whether any key is hidden from some query: a causal mask.
    #[must_use]
    pub fn masks(self) -> bool {
        self.mask == Mask::Causal
    }

    /// Whether query row `t` of `queries` reads key `j`, of `keys` keys.
    /// The rows sit at the last positions (a decode step's one query over
    /// a cache of S keys is position S − 1), as [`crate::ops::Masking`].
    #[must_use]
    pub fn reads(self, t: usize, j: usize, queries: usize, keys: usize) -> bool {
        if !self.masks() {
            return j < keys;
        }
        let end = (t + keys.saturating_sub(queries) + 1).min(keys);
        j < end && self.window.is_none_or(|w| j + w >= end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells query `t` reads of 4 keys, as a row of `x` (read) and `.`.
    fn row(r: Reach, t: usize) -> String {
        (0..4)
            .map(|j| if r.reads(t, j, 4, 4) { 'x' } else { '.' })
            .collect()
    }

    #[test]
    fn a_causal_mask_reads_up_to_the_query_and_a_window_back() {
        let causal = Reach {
            mask: Mask::Causal,
            window: None,
        };
        let rows: Vec<String> = (0..4).map(|t| row(causal, t)).collect();
        assert_eq!(rows, ["x...", "xx..", "xxx.", "xxxx"]);
        let window = Reach {
            mask: Mask::Causal,
            window: Some(2),
        };
        let rows: Vec<String> = (0..4).map(|t| row(window, t)).collect();
        assert_eq!(rows, ["x...", "xx..", ".xx.", "..xx"]);
        // A two-way mask, or none by mistake, hides nothing.
        for mask in [Mask::TwoWay, Mask::None] {
            let r = Reach {
                mask,
                window: Some(2),
            };
            assert!(!r.masks());
            assert!((0..4).all(|t| row(r, t) == "xxxx"), "{mask:?}");
        }
    }

    #[test]
    fn the_reach_is_the_traced_anatomys() {
        let mut cfg = crate::ModelConfig::default();
        let causal = crate::trace_request(&cfg, &crate::Request::shapes())
            .unwrap()
            .trace;
        assert_eq!(
            Reach::at(&causal, 1),
            Reach {
                mask: Mask::Causal,
                window: None
            }
        );
        cfg.fault = Some(crate::config::Fault::NoCausalMask);
        let none = crate::trace_request(&cfg, &crate::Request::shapes())
            .unwrap()
            .trace;
        assert!(!Reach::at(&none, 1).masks());
        // The window the model built, not the one its config declares: a
        // window fault's heatmap marks what the model read.
        cfg.fault = None;
        cfg.attention.window = Some(2);
        let traced = |cfg: &crate::ModelConfig| {
            let t = crate::trace_request(cfg, &crate::Request::shapes());
            Reach::at(&t.unwrap().trace, 1).window
        };
        assert_eq!(traced(&cfg), Some(2));
        cfg.fault = Some(crate::config::Fault::NoSlidingWindow);
        assert_eq!(traced(&cfg), None);
        cfg.fault = Some(crate::config::Fault::WindowOffByOne);
        assert_eq!(traced(&cfg), Some(1));
    }
}
