//! Rotary frequencies rescaled for a longer context: [`RopeScaling`].

use super::ConfigError;
use serde::{Deserialize, Serialize};

/// How rotary frequencies are rescaled for a context longer than the
/// model was trained on, as Hugging Face's `rope_scaling` (or
/// `rope_parameters`) with `rope_type` `linear` or `llama3`.
///
/// With ω_i = θ^(−2i/hd), the frequency of pair i of a head:
/// ```text
/// linear   ω_i / factor                     (positions divided by factor)
/// llama3   λ_i = 2π/ω_i, λ_lo = ctx/low, λ_hi = ctx/high
///          λ_i > λ_lo:  ω_i / factor          (long waves stretched)
///          λ_i < λ_hi:  ω_i                   (short waves kept)
///          between:     (1 − s)·ω_i/factor + s·ω_i,  s = (ctx/λ_i − low)/(high − low)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum RopeScaling {
    /// Every frequency divided by `factor`.
    Linear {
        /// How much longer the context is.
        factor: f64,
    },
    /// Llama 3's: low frequencies divided by `factor`, high ones kept, a
    /// smooth blend between.
    Llama3 {
        /// How much longer the context is.
        factor: f64,
        /// Wavelengths longer than ctx / low_freq_factor are stretched.
        low_freq_factor: f64,
        /// Wavelengths shorter than ctx / high_freq_factor are kept.
        high_freq_factor: f64,
        /// ctx: the context the model was trained on.
        original_max_position_embeddings: usize,
    },
}

impl RopeScaling {
    /// The frequency of pair `i` of a head of width `hd`, rescaled.
    #[must_use]
    pub fn frequency(scaling: Option<RopeScaling>, theta: f64, i: usize, hd: usize) -> f64 {
        let w = theta.powf(-2.0 * i as f64 / hd as f64);
        match scaling {
            None => w,
            Some(RopeScaling::Linear { factor }) => w / factor,
            Some(RopeScaling::Llama3 {
                factor,
                low_freq_factor: low,
                high_freq_factor: high,
                original_max_position_embeddings: ctx,
            }) => {
                let (ctx, wavelen) = (ctx as f64, 2.0 * std::f64::consts::PI / w);
                if wavelen > ctx / low {
                    w / factor
                } else if wavelen < ctx / high {
                    w
                } else {
                    let s = (ctx / wavelen - low) / (high - low);
                    (1.0 - s) * w / factor + s * w
                }
            }
        }
    }

    /// Checks the factors: finite, factor ≥ 1, high > low > 0, ctx ≥ 1.
    ///
    /// # Errors
    /// [`ConfigError::RopeScaling`] naming the bad factor.
    pub fn validate(self) -> Result<(), ConfigError> {
        let bad = |field: &'static str, got: f64, allowed: &'static str| {
            Err(ConfigError::RopeScaling {
                kind: self.kind(),
                field,
                got,
                allowed,
            })
        };
        let factor = match self {
            RopeScaling::Linear { factor } | RopeScaling::Llama3 { factor, .. } => factor,
        };
        if !(factor.is_finite() && factor >= 1.0) {
            return bad("factor", factor, "a finite number ≥ 1");
        }
        if let RopeScaling::Llama3 {
            low_freq_factor: low,
            high_freq_factor: high,
            original_max_position_embeddings: ctx,
            ..
        } = self
        {
            if !(low.is_finite() && low > 0.0) {
                return bad("low_freq_factor", low, "a finite number > 0");
            }
            if !(high.is_finite() && high > low) {
                return bad(
                    "high_freq_factor",
                    high,
                    "a finite number > low_freq_factor",
                );
            }
            if ctx == 0 {
                return bad(
                    "original_max_position_embeddings",
                    0.0,
                    "a whole number ≥ 1",
                );
            }
        }
        Ok(())
    }

    /// Its name, as `rope_type` spells it.
    #[must_use]
    pub fn kind(self) -> &'static str {
        match self {
            RopeScaling::Linear { .. } => "linear",
            RopeScaling::Llama3 { .. } => "llama3",
        }
    }
}
