//! [`Devices`]: a model split across devices, Megatron's way.
//!
//! Tensor parallelism over N devices gives each one a slice of every
//! attention and MLP weight: q, k, v and the MLP's up (and gate) by
//! columns, the attention's output projection and the MLP's down by rows.
//! Each device then holds h/N heads and d_ff/N hidden units, and its
//! row-parallel output is a partial sum until an `all_reduce` adds the
//! devices' parts. Sequence parallelism splits what lies between (norms,
//! residual adds) along T.
//!
//! ```text
//! q_proj (d, h·hd) → (d, h·hd/N)      heads h → h/N per device
//! out    (h·hd, d) → (h·hd/N, d)      y_k = ctx_k·Wo_k,  y = Σ_k y_k (all_reduce)
//! up     (d, ff)   → (d, ff/N)        down (ff, d) → (ff/N, d)
//! ```

use super::{ConfigError, ModelConfig, PosEmb, QkvFusion};

/// Most devices one tensor-parallel group may have here.
pub const MAX_TP: usize = 64;

/// How the model is split across devices; one device (the default) is no
/// split at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Devices {
    /// N, the tensor-parallel devices (1: none).
    pub tp: usize,
    /// Sequence parallelism (with `tp` ≥ 2): norms and residual adds on
    /// (B, T/N, d) per device.
    pub sp: bool,
    /// Which device's shapes the trace shows, 0..N.
    pub device: usize,
}

impl Default for Devices {
    fn default() -> Self {
        Self {
            tp: 1,
            sp: false,
            device: 0,
        }
    }
}

impl Devices {
    /// Whether the model is split at all.
    #[must_use]
    pub fn split(&self) -> bool {
        self.tp > 1
    }
}

impl ModelConfig {
    /// K/V heads on each device: kv/N, or every device keeps one whole
    /// K/V head (replicated) when there are fewer K/V heads than devices.
    #[must_use]
    pub fn local_kv_heads(&self) -> usize {
        let (kv, n) = (self.attention.kv_heads, self.devices.tp);
        if kv >= n { kv / n } else { 1 }
    }

    /// The tensor-parallel sizes this model allows: every N that splits
    /// its heads, its K/V heads (or is split by them), its MLP and, under
    /// sequence parallelism, its sequence.
    #[must_use]
    pub fn allowed_tp(&self) -> Vec<usize> {
        (1..=MAX_TP.min(self.attention.heads))
            .filter(|&n| self.tp_misfit(n).is_none())
            .collect()
    }

    /// The first field of the model (not the sequence) `n` devices
    /// cannot split.
    fn tp_misfit_model(&self, n: usize) -> Option<(&'static str, usize)> {
        self.tp_misfit(n).filter(|(name, _)| *name != "seq")
    }

    /// The first field `n` devices cannot split: its name and value.
    fn tp_misfit(&self, n: usize) -> Option<(&'static str, usize)> {
        let (h, kv) = (self.attention.heads, self.attention.kv_heads);
        let kv_ok = if kv >= n {
            kv.is_multiple_of(n)
        } else {
            n.is_multiple_of(kv)
        };
        [
            ("heads", h, h.is_multiple_of(n)),
            ("kv_heads", kv, kv_ok),
            ("d_ff", self.mlp.d_ff, self.mlp.d_ff.is_multiple_of(n)),
            (
                "seq",
                self.seq,
                !self.devices.sp || self.seq.is_multiple_of(n),
            ),
        ]
        .into_iter()
        .find(|(_, _, ok)| !ok)
        .map(|(name, got, _)| (name, got))
    }

    /// The rules of a split model: N within 1..=[`MAX_TP`], every split
    /// field divisible, the device one of the N, and the parts no split is
    /// modelled for yet refused.
    pub(super) fn validate_devices(&self) -> Result<(), ConfigError> {
        let d = self.devices;
        let field = |field, got: String, allowed: String| {
            Err(ConfigError::Field {
                field,
                got,
                allowed,
            })
        };
        if d.tp == 0 || d.tp > MAX_TP {
            return field("tp", d.tp.to_string(), format!("1 to {MAX_TP} devices"));
        }
        if d.sp && d.tp < 2 {
            return field(
                "sp",
                "true".into(),
                "--sp with --tp 2 or more (sequence parallelism splits T over the tensor-parallel devices)".into(),
            );
        }
        if d.device >= d.tp {
            return field(
                "device",
                d.device.to_string(),
                format!("0..={} (one of the --tp {} devices)", d.tp - 1, d.tp),
            );
        }
        if !d.split() {
            return Ok(());
        }
        // Sequence parallelism cuts T: the sequence, not the devices, is
        // what to change when only it does not divide.
        if d.sp && !self.seq.is_multiple_of(d.tp) && self.tp_misfit_model(d.tp).is_none() {
            return field(
                "seq",
                self.seq.to_string(),
                format!(
                    "a multiple of tp {} under --sp (each device holds T/{} positions), or drop --sp",
                    d.tp, d.tp
                ),
            );
        }
        if let Some((name, got)) = self.tp_misfit(d.tp) {
            let allowed = self.allowed_tp();
            return Err(ConfigError::Split {
                field: name,
                got,
                tp: d.tp,
                allowed: allowed
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let refuse = |what: &str| {
            field(
                "tp",
                d.tp.to_string(),
                format!("1 {what} (no split of it is modelled yet)"),
            )
        };
        if self.attention.fused_qkv != QkvFusion::Apart {
            return refuse("with a fused qkv projection");
        }
        if self.mlp.fused_gate_up {
            return refuse("with a fused gate_up projection");
        }
        if self.mixture.is_some() {
            return refuse("on a mixture of experts");
        }
        if self.positions.kind == PosEmb::Alibi {
            return refuse("with ALiBi positions");
        }
        if self.decode > 0 {
            return refuse("with --decode");
        }
        if self.backward {
            return refuse("with --backward");
        }
        Ok(())
    }
}
