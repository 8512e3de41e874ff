//! [`Devices`]: a model split across devices, Megatron's way.
//!
//! Tensor parallelism over N devices gives each one a slice of every
//! attention and MLP weight: q, k, v and the MLP's up (and gate) by
//! columns, the attention's output projection and the MLP's down by rows.
//! Each device then holds h/N heads and d_ff/N hidden units, and its
//! row-parallel output is a partial sum until an `all_reduce` adds the
//! devices' parts. Sequence parallelism splits what lies between (norms,
//! residual adds) along T. Pipeline parallelism cuts the stack itself:
//! stage s of M holds blocks s·L/M+1 ..= (s+1)·L/M (the first the
//! embeddings, the last the final norm and the head), and sends its
//! output (B, T, d) to the next stage. Devices are numbered as Megatron
//! numbers them, tensor-parallel rank innermost: device = stage·N + rank.
//! Expert parallelism over N devices gives each E/N of a mixture's experts
//! and B/N of the batch (the expert-parallel devices are data-parallel
//! outside the experts): a token goes to the device holding its expert
//! and back, an `all_to_all` each way.
//!
//! ```text
//! q_proj (d, h·hd) → (d, h·hd/N)      heads h → h/N per device
//! out    (h·hd, d) → (h·hd/N, d)      y_k = ctx_k·Wo_k,  y = Σ_k y_k (all_reduce)
//! up     (d, ff)   → (d, ff/N)        down (ff, d) → (ff/N, d)
//! ```

use super::{ConfigError, ModelConfig, PosEmb, QkvFusion};

/// Most devices one tensor-parallel group may have here.
pub const MAX_TP: usize = 64;

/// Most pipeline stages here.
pub const MAX_PP: usize = 64;

/// Most expert-parallel devices here.
pub const MAX_EP: usize = 64;

/// Most micro-batches one pipelined step may have here.
pub const MAX_MICRO_BATCHES: usize = 1 << 16;

/// The rows of zeros padding a vocabulary of `v` to `padded`, in words:
/// `1 row`, `3 rows`.
#[must_use]
pub fn padding_rows(v: usize, padded: usize) -> String {
    match padded.saturating_sub(v) {
        1 => "1 row".to_string(),
        p => format!("{p} rows"),
    }
}

/// How the model is split across devices; one device (the default) is no
/// split at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Devices {
    /// N, the tensor-parallel devices (1: none).
    pub tp: usize,
    /// Sequence parallelism (with `tp` ≥ 2): norms and residual adds on
    /// (B, T/N, d) per device.
    pub sp: bool,
    /// M, the pipeline stages (1: none).
    pub pp: usize,
    /// m, the micro-batches one pipelined step runs (params' bubble).
    pub micro_batches: usize,
    /// N, the expert-parallel devices (1: none): each holds E/N experts
    /// and B/N of the batch.
    pub ep: usize,
    /// Whether a vocabulary N does not divide is padded with rows of
    /// zeros to the next multiple of N (`--pad-vocab`), as Megatron pads.
    pub pad_vocab: bool,
    /// Which device's shapes the trace shows, 0..N·M: stage·N + rank.
    pub device: usize,
}

impl Default for Devices {
    fn default() -> Self {
        Self {
            tp: 1,
            sp: false,
            pp: 1,
            micro_batches: 1,
            ep: 1,
            pad_vocab: false,
            device: 0,
        }
    }
}

impl Devices {
    /// Whether the layers are split across devices (tensor parallelism).
    #[must_use]
    pub fn split(&self) -> bool {
        self.tp > 1
    }

    /// Whether the stack is split into pipeline stages.
    #[must_use]
    pub fn piped(&self) -> bool {
        self.pp > 1
    }

    /// Whether a mixture's experts are split across devices.
    #[must_use]
    pub fn experts_split(&self) -> bool {
        self.ep > 1
    }

    /// The devices of one stage that meet at its collectives: the N of
    /// `--tp` or of `--ep` (never both).
    #[must_use]
    pub fn group(&self) -> usize {
        self.tp.max(1) * self.ep.max(1)
    }

    /// Whether more than one device runs the model, by any split.
    #[must_use]
    pub fn many(&self) -> bool {
        self.count() > 1
    }

    /// Every device: N·M.
    #[must_use]
    pub fn count(&self) -> usize {
        self.group() * self.pp
    }

    /// The shown device's rank in its group (tensor- or expert-parallel),
    /// 0..N.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.device % self.group()
    }

    /// The shown device's pipeline stage, 0..M.
    #[must_use]
    pub fn stage(&self) -> usize {
        self.device / self.group()
    }

    /// Whether the shown device's stage is the first (it embeds).
    #[must_use]
    pub fn first_stage(&self) -> bool {
        self.stage() == 0
    }

    /// Whether the shown device's stage is the last (the final norm and
    /// the head).
    #[must_use]
    pub fn last_stage(&self) -> bool {
        self.stage() + 1 >= self.pp
    }

    /// The blocks (numbered from 1) the shown device's stage holds, of
    /// `layers`: L/M of them.
    #[must_use]
    pub fn blocks(&self, layers: usize) -> std::ops::RangeInclusive<usize> {
        let per = layers / self.pp.max(1);
        let s = self.stage();
        s * per + 1..=(s + 1) * per
    }

    /// The share of a pipelined step its devices idle: (M−1)/(m+M−1), as
    /// a numerator and denominator.
    #[must_use]
    pub fn bubble(&self) -> (usize, usize) {
        let (m, n) = (self.micro_batches, self.pp);
        (n - 1, m + n - 1)
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

    /// The vocabulary as the devices hold it: V, or padded to the next
    /// multiple of N when `--pad-vocab` asks; `None` without one.
    #[must_use]
    pub fn padded_vocab(&self) -> Option<usize> {
        let (v, n) = (self.vocab.size?, self.devices.tp.max(1));
        Some(if self.devices.pad_vocab {
            v.div_ceil(n) * n
        } else {
            v
        })
    }

    /// The blocks (numbered from 1) this device holds: every block, or a
    /// pipeline stage's L/M.
    #[must_use]
    pub fn held_blocks(&self) -> std::ops::RangeInclusive<usize> {
        self.devices.blocks(self.layers)
    }

    /// The experts this device holds, from 0: all E, or under `--ep N`
    /// its E/N, rank·E/N onwards; empty without a mixture.
    #[must_use]
    pub fn held_experts(&self) -> std::ops::Range<usize> {
        let e = self.experts();
        let d = self.devices;
        let per = e / d.ep.max(1);
        let first = if d.experts_split() { d.rank() * per } else { 0 };
        first..first + per
    }

    /// How many blocks this device holds.
    #[must_use]
    pub fn held_layers(&self) -> usize {
        self.layers / self.devices.pp.max(1)
    }

    /// The tensor-parallel sizes this model allows: every N that splits
    /// its heads, its K/V heads (or is split by them), its MLP and, under
    /// sequence parallelism, its sequence.
    #[must_use]
    pub fn allowed_tp(&self) -> Vec<usize> {
        // A model no split is modelled for allows one device alone.
        if self.tp_refusal().is_some() {
            return vec![1];
        }
        (1..=MAX_TP.min(self.attention.heads))
            .filter(|&n| self.tp_misfit(n).is_none())
            .collect()
    }

    /// What of this model no tensor-parallel split is modelled for, and
    /// why, in words for "allowed: 1 …"; `None` when it can be split.
    fn tp_refusal(&self) -> Option<String> {
        let none = "no split of it is modelled yet";
        [
            (
                self.attention.fused_qkv != QkvFusion::Apart,
                "with a fused qkv projection",
                none,
            ),
            (
                self.mlp.fused_gate_up,
                "with a fused gate_up projection",
                none,
            ),
            (
                self.mixture.is_some(),
                "on a mixture of experts",
                "split its experts with --ep N instead",
            ),
            (
                self.positions.kind == PosEmb::Alibi,
                "with ALiBi positions",
                none,
            ),
            (self.decode > 0, "with --decode", none),
            (self.backward, "with --backward", none),
        ]
        .into_iter()
        .find_map(|(refused, what, why)| refused.then(|| format!("{what} ({why})")))
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
        if d.pp == 0 || d.pp > MAX_PP {
            return field("pp", d.pp.to_string(), format!("1 to {MAX_PP} stages"));
        }
        if d.micro_batches == 0 || d.micro_batches > MAX_MICRO_BATCHES {
            return field(
                "micro_batches",
                d.micro_batches.to_string(),
                format!("1 to {MAX_MICRO_BATCHES} micro-batches per pipelined step"),
            );
        }
        if d.micro_batches > 1 && !d.piped() {
            return field(
                "micro_batches",
                d.micro_batches.to_string(),
                "1 without --pp (micro-batches fill a pipeline's stages)".into(),
            );
        }
        if d.ep == 0 || d.ep > MAX_EP {
            return field("ep", d.ep.to_string(), format!("1 to {MAX_EP} devices"));
        }
        if d.experts_split() {
            self.validate_expert_split()?;
        }
        if d.device >= d.count() {
            let of = match (d.split(), d.piped()) {
                _ if d.experts_split() => format!("--ep {}", d.ep),
                (true, true) => format!("--tp {} × --pp {}", d.tp, d.pp),
                (false, true) => format!("--pp {}", d.pp),
                _ => format!("--tp {}", d.tp),
            };
            return field(
                "device",
                d.device.to_string(),
                format!("0..={} (one of the {of} devices)", d.count() - 1),
            );
        }
        if d.piped() {
            self.validate_stages()?;
        }
        if d.pad_vocab && !(d.split() && self.vocab.size.is_some()) {
            return field(
                "pad_vocab",
                "true".into(),
                "--pad-vocab with --tp 2 or more on a model with a vocabulary (the devices split it)".into(),
            );
        }
        if !d.split() {
            return Ok(());
        }
        // What no split is modelled for is said first: no N would do.
        if let Some(what) = self.tp_refusal() {
            return field("tp", d.tp.to_string(), format!("1 {what}"));
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
                by: "tp",
                n: d.tp,
                allowed: allowed
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        // The vocabulary is split by rows: N divides it, or it is padded.
        if let Some(v) = self.vocab.size
            && !v.is_multiple_of(d.tp)
            && !d.pad_vocab
        {
            let padded = v.div_ceil(d.tp) * d.tp;
            return field(
                "vocab",
                v.to_string(),
                format!(
                    "a multiple of tp {}, or --pad-vocab to pad it to {padded} ({} of zeros, as Megatron pads)",
                    d.tp,
                    padding_rows(v, padded)
                ),
            );
        }
        Ok(())
    }

    /// The expert-parallel sizes this model allows: every N that divides
    /// its experts and its batch; 1 alone without a mixture.
    #[must_use]
    pub fn allowed_ep(&self) -> Vec<usize> {
        (1..=MAX_EP.min(self.experts().max(1)))
            .filter(|&n| self.ep_misfit(n).is_none())
            .collect()
    }

    /// The first field `n` expert-parallel devices cannot split: its name
    /// and value.
    fn ep_misfit(&self, n: usize) -> Option<(&'static str, usize)> {
        let e = self.experts();
        [
            ("experts", e, e.is_multiple_of(n)),
            ("batch", self.batch, self.batch.is_multiple_of(n)),
        ]
        .into_iter()
        .find(|(_, _, ok)| !ok)
        .map(|(name, got, _)| (name, got))
    }

    /// The rules of expert parallelism: a mixture to split, its experts
    /// and the batch divisible by N, and what no expert split is modelled
    /// for yet refused.
    fn validate_expert_split(&self) -> Result<(), ConfigError> {
        let d = self.devices;
        let refuse = |what: &str| {
            Err(ConfigError::Field {
                field: "ep",
                got: d.ep.to_string(),
                allowed: format!("1 {what}"),
            })
        };
        if self.mixture.is_none() {
            return refuse(
                "on a model without a mixture of experts (expert parallelism splits the experts; add --experts E)",
            );
        }
        let with = [
            (
                d.split(),
                "with --tp (no expert split within a tensor-parallel group is modelled yet)",
            ),
            (
                d.piped(),
                "with --pp (no pipeline of expert-parallel stages is modelled yet)",
            ),
            (
                self.decode > 0,
                "with --decode (no expert-parallel generation is modelled yet)",
            ),
            (
                self.fault == Some(super::fault::Fault::MoeCapacity),
                "with the fault moe-capacity (a capacity across devices is not modelled)",
            ),
        ];
        if let Some((_, what)) = with.into_iter().find(|(on, _)| *on) {
            return refuse(what);
        }
        if let Some((name, got)) = self.ep_misfit(d.ep) {
            return Err(ConfigError::Split {
                field: name,
                got,
                by: "ep",
                n: d.ep,
                allowed: self
                    .allowed_ep()
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(())
    }

    /// The pipeline sizes this model allows: every M that divides its
    /// blocks.
    #[must_use]
    pub fn allowed_pp(&self) -> Vec<usize> {
        (1..=MAX_PP.min(self.layers))
            .filter(|&m| self.layers.is_multiple_of(m))
            .collect()
    }

    /// The rules of a pipeline: M divides the blocks, and what no
    /// pipeline is modelled for yet is refused.
    fn validate_stages(&self) -> Result<(), ConfigError> {
        let m = self.devices.pp;
        if !self.layers.is_multiple_of(m) {
            let allowed = self.allowed_pp();
            return Err(ConfigError::Stages {
                got: self.layers,
                pp: m,
                allowed: allowed
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let refuse = |what: &str| {
            Err(ConfigError::Field {
                field: "pp",
                got: m.to_string(),
                allowed: format!("1 {what} (no pipeline of it is modelled yet)"),
            })
        };
        if self.decode > 0 {
            return refuse("with --decode");
        }
        if self.backward {
            return refuse("with --backward");
        }
        // A block that reads x0 (skip-block1) past the first stage would
        // read it where no device holds it.
        let anatomy = crate::arch::Arch::of(self).anatomy;
        if (self.layers / m + 1..=self.layers).any(|n| anatomy.reads_x0(n)) {
            return refuse("with a block that reads x0 across stages");
        }
        Ok(())
    }
}
