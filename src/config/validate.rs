//! The rules a config must satisfy.
//!
//! [`ModelConfig::validate`] holds for every use of a config, shape-only
//! included. [`ModelConfig::numeric_bytes`] estimates what a run that
//! computes values would hold; [`crate::plan`] compares it with the limit.

use super::{
    ConfigError, DType, Head, MAX_DECODE, MAX_DIM, MAX_EXPERTS, MAX_LAYERS, ModelConfig, Placement,
    PosEmb, divisors,
};

impl ModelConfig {
    /// Checks every rule a model must satisfy before it is built.
    ///
    /// # Errors
    /// The first broken rule, naming the value and what is allowed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Err(e) = DType::parse_model(self.dtype.as_str()) {
            return Err(ConfigError::Name(e));
        }
        let mut dims = vec![
            ("batch", self.batch),
            ("seq", self.seq),
            ("d_model", self.d_model),
            ("heads", self.attention.heads),
            ("kv_heads", self.attention.kv_heads),
            ("head_dim", self.head_dim()),
            ("d_ff", self.mlp.d_ff),
            ("layers", self.layers),
        ];
        dims.extend(self.vocab.size.map(|v| ("vocab", v)));
        for (name, got) in dims {
            if got == 0 {
                return Err(ConfigError::Zero { name });
            }
            let max = if name == "layers" {
                MAX_LAYERS
            } else {
                MAX_DIM
            };
            if got > max {
                return Err(ConfigError::TooLarge { name, got, max });
            }
        }
        let context = self.positions.context;
        if let Some(got) = context.filter(|&c| c > MAX_DIM) {
            return Err(ConfigError::TooLarge {
                name: "context",
                got,
                max: MAX_DIM,
            });
        }
        if let Some(context) = context.filter(|&c| self.seq > c) {
            return Err(ConfigError::SeqOverContext {
                seq: self.seq,
                context,
            });
        }
        let a = &self.attention;
        for (name, got) in [("head_dim", a.head_dim), ("window", a.window)] {
            let Some(got) = got else { continue };
            if got > MAX_DIM {
                return Err(ConfigError::TooLarge {
                    name,
                    got,
                    max: MAX_DIM,
                });
            }
        }
        // A head width given apart from d_model need not divide it.
        if a.head_dim.is_none() && !self.d_model.is_multiple_of(a.heads) {
            return Err(ConfigError::HeadsDontDivide {
                d_model: self.d_model,
                heads: a.heads,
                allowed: divisors(self.d_model),
            });
        }
        if !a.heads.is_multiple_of(a.kv_heads) {
            return Err(ConfigError::KvHeadsDontDivide {
                heads: a.heads,
                kv_heads: a.kv_heads,
                allowed: divisors(a.heads),
            });
        }
        // Every count the tool makes must fit u64 with room for FLOPs and bytes.
        let (b, t, d, f, l, h, w) = [
            self.batch,
            self.seq,
            self.d_model,
            self.mlp.d_ff,
            self.layers,
            a.heads,
            self.attn_width().max(self.kv_width()),
        ]
        .map(|v| v as u128)
        .into();
        let sizes = [
            ("the stream (B·T·d_model)", b * t * d),
            ("the MLP hidden layer (B·T·d_ff)", b * t * f),
            ("the scores (B·heads·T·T)", b * h * t * t),
            ("the merged heads (B·T·heads·head_dim)", b * t * w),
            (
                "the weights (layers·d_model·(4·heads·head_dim + 3·d_ff))",
                l * d * (4 * w + 3 * f),
            ),
            (
                "the embeddings (vocab·d_model)",
                self.vocab.size.unwrap_or(0) as u128 * d,
            ),
        ];
        if let Some((what, got)) = sizes.into_iter().find(|(_, n)| *n > super::MAX_ELEMENTS) {
            return Err(ConfigError::TooManyElements { what, got });
        }
        let (n, p) = (&self.norms, &self.positions);
        if !(n.eps.is_finite() && n.eps > 0.0) {
            return Err(ConfigError::Eps(n.eps));
        }
        if !(p.rope_theta.is_finite() && p.rope_theta > 1.0) {
            return Err(ConfigError::RopeTheta(p.rope_theta));
        }
        if p.kind == PosEmb::Rope && !self.head_dim().is_multiple_of(2) {
            return Err(ConfigError::OddRotary(self.head_dim()));
        }
        if p.rope_scaling.is_some() && p.kind != PosEmb::Rope {
            return Err(ConfigError::NeedsRotary("rope_scaling"));
        }
        if self.parallel && n.placement != Placement::Pre {
            return Err(ConfigError::ParallelPlacement(n.placement));
        }
        if let Some(window) = a.window.filter(|_| self.encoder) {
            return Err(ConfigError::WindowInEncoder(window));
        }
        if let Some(s) = p.rope_scaling {
            s.validate()?;
        }
        self.validate_experts()?;
        self.validate_variants()?;
        self.validate_devices()?;
        // What the fault needs to show, read off its row.
        if let Some(fault) = self.fault
            && let Some(need) = fault.spec().unmet(self)
        {
            return Err(ConfigError::FaultNeeds {
                fault,
                needs: need.words(),
            });
        }
        Ok(())
    }

    /// The mixture of experts' rules: at most [`MAX_EXPERTS`] experts,
    /// 1 ≤ top_k ≤ experts, and values in f32 or f64 (routing in 16 bits
    /// is not modelled).
    fn validate_experts(&self) -> Result<(), ConfigError> {
        let Some(super::Mixture {
            experts: e,
            top_k: k,
        }) = self.mixture
        else {
            return Ok(());
        };
        if e > MAX_EXPERTS {
            return Err(ConfigError::Experts {
                what: "experts",
                got: e,
                allowed: format!("0 (a dense MLP) to {MAX_EXPERTS}"),
            });
        }
        if !(1..=e).contains(&k) {
            return Err(ConfigError::Experts {
                what: "top_k",
                got: k,
                allowed: format!("1 to experts ({e})"),
            });
        }
        if self.dtype.is_half() {
            return Err(ConfigError::Experts {
                what: "experts",
                got: e,
                allowed: format!(
                    "experts with dtype f32 or f64 (routing in {} is not modelled), or experts 0",
                    self.dtype
                ),
            });
        }
        Ok(())
    }

    /// The settings of the block anatomies real families use: partial
    /// rotary, a shared norm, the position offset, alternating windows,
    /// query scaling and soft caps.
    fn validate_variants(&self) -> Result<(), ConfigError> {
        let field = |field, got: String, allowed: String| {
            Err(ConfigError::Field {
                field,
                got,
                allowed,
            })
        };
        let hd = self.head_dim();
        let (a, n, p, v) = (&self.attention, &self.norms, &self.positions, &self.vocab);
        if let Some(rotary_dims) = p.rotary_dims {
            if p.kind != PosEmb::Rope {
                return Err(ConfigError::NeedsRotary("rotary_dims"));
            }
            if rotary_dims > hd || !rotary_dims.is_multiple_of(2) {
                return field(
                    "rotary_dims",
                    rotary_dims.to_string(),
                    format!("an even number from 2 to head_dim ({hd}), or 0 for all"),
                );
            }
        }
        let ends = [
            ("token_types", v.token_types.is_some()),
            ("embed_norm", n.embed),
            ("head", v.head != super::Head::Lm),
            ("embed_scale", v.embed_scale),
            ("pos_offset", p.offset > 0),
            ("logit_softcap", v.logit_softcap.is_some_and(|c| c > 0.0)),
        ];
        if let (None, Some((name, _))) = (v.size, ends.iter().find(|(_, set)| *set)) {
            return field(
                name,
                "set".into(),
                "only with a vocabulary (vocab ≥ 1): it belongs to the embeddings or the head"
                    .into(),
            );
        }
        if v.head == super::Head::Pooler {
            if let Some(cap) = v.logit_softcap.filter(|&c| c > 0.0) {
                return field(
                    "logit_softcap",
                    cap.to_string(),
                    "0 with head pooler (there are no logits to cap)".into(),
                );
            }
            if !v.tied {
                return field(
                    "tied",
                    "false".into(),
                    "tied with head pooler (the pooler takes the LM head's place: there is no head to untie)"
                        .into(),
                );
            }
        }
        if n.bias == Some(true) && n.kind != super::NormKind::LayerNorm {
            return field(
                "norm_bias",
                "true".into(),
                format!("norm_bias with norm layernorm ({} has no β)", n.kind),
            );
        }
        if self.mlp.fused_gate_up && self.mixture.is_some() {
            return field(
                "fused_gate_up",
                "true".into(),
                "fused_gate_up without experts (a mixture's experts keep gate and up apart, as Mixtral's w1 and w3)".into(),
            );
        }
        // The backward follows the training-time forward: one pass, dense
        // MLPs, and with a vocabulary a next token to score.
        if self.backward && self.decode > 0 {
            return field(
                "backward",
                "true".into(),
                "--backward without --decode (training runs the forward once; drop --decode, or --backward)".into(),
            );
        }
        if self.backward && self.mixture.is_some() {
            return field(
                "backward",
                "true".into(),
                "--backward on a dense MLP (a mixture's routing has no backward here yet; drop --experts)".into(),
            );
        }
        if self.backward && self.vocab.size.is_some() && v.head != Head::Pooler && self.seq < 2 {
            return field(
                "backward",
                "true".into(),
                format!(
                    "--backward with seq at least 2 (seq {}: the next-token loss needs a next token; raise --seq)",
                    self.seq
                ),
            );
        }
        if self.decode > MAX_DECODE {
            return field(
                "decode",
                self.decode.to_string(),
                format!("0..={MAX_DECODE} decode steps"),
            );
        }
        // A decode step reads a causal cache and ends in logits (or, with
        // no vocabulary, the blocks' output), at positions T..T+N.
        if self.decode > 0 && self.encoder {
            return field(
                "decode",
                self.decode.to_string(),
                "0 in an encoder (two-way attention has no cache to grow: every token reads every later one)".into(),
            );
        }
        if self.decode > 0 && v.head == Head::Pooler {
            return field(
                "decode",
                self.decode.to_string(),
                "0 for a model ending in a pooler (decoding picks each token from the logits)"
                    .into(),
            );
        }
        if self.decode > 0 && p.kind == PosEmb::Alibi && self.attention.window.is_some() {
            return field(
                "decode",
                self.decode.to_string(),
                "0 with ALiBi under a sliding window (a ring cache keeps no key order for m·(j − t))".into(),
            );
        }
        if let Some(context) = self.positions.context.filter(|&c| {
            self.decode > 0 && p.kind == PosEmb::Learned && self.seq.saturating_add(self.decode) > c
        }) {
            return field(
                "decode",
                self.decode.to_string(),
                format!(
                    "0..={} (seq {} + decode must fit the {context} learned positions; lower --seq or --decode, or raise --context for seeded weights)",
                    context.saturating_sub(self.seq),
                    self.seq
                ),
            );
        }
        if self.encoder && p.kind == PosEmb::Alibi {
            return field(
                "pos_emb",
                "alibi".into(),
                "learned or rope in an encoder (ALiBi's m·(j − t) would reward keys ahead of the query)".into(),
            );
        }
        if let Some(got) = v.token_types.filter(|&t| t > MAX_DIM) {
            return Err(ConfigError::TooLarge {
                name: "token_types",
                got,
                max: MAX_DIM,
            });
        }
        if self.mlp.fused_gate_up && !self.mlp.act.is_gated() {
            return field(
                "fused_gate_up",
                "true".into(),
                "fused_gate_up with a gated MLP (act swiglu or geglu)".into(),
            );
        }
        if n.shared && !self.parallel {
            return field(
                "shared_norm",
                "true".into(),
                "shared_norm with parallel (a sequential block's sublayers each read their own norm)".into(),
            );
        }
        if p.offset > MAX_DIM {
            return Err(ConfigError::TooLarge {
                name: "pos_offset",
                got: p.offset,
                max: MAX_DIM,
            });
        }
        if p.offset > 0 && p.kind != PosEmb::Learned {
            return field(
                "pos_offset",
                p.offset.to_string(),
                "0 with rotary positions (an offset shifts the rows of a learned wpe)".into(),
            );
        }
        if let (Some(every), None) = (a.full_every, a.window) {
            return field(
                "full_every",
                every.to_string(),
                "0 without a window (every block attends fully already): with --window 0 add --full-every 0".into(),
            );
        }
        for (name, got) in [("full_every", a.full_every), ("query_scale", a.query_scale)] {
            if let Some(got) = got.filter(|&g| g > MAX_DIM) {
                return Err(ConfigError::TooLarge {
                    name,
                    got,
                    max: MAX_DIM,
                });
            }
        }
        for (name, cap) in [
            ("attn_softcap", a.softcap.unwrap_or(0.0)),
            ("logit_softcap", v.logit_softcap.unwrap_or(0.0)),
        ] {
            if !(cap.is_finite() && cap >= 0.0) {
                return field(
                    name,
                    cap.to_string(),
                    "a finite number ≥ 0 (0: none)".into(),
                );
            }
        }
        Ok(())
    }

    /// Rough bytes a numeric run holds at once: weights (the embeddings too,
    /// with a vocabulary), the input and a few live activations of the
    /// widest kind (the logits, with a vocabulary), in the values it holds
    /// (f32 for a 16-bit model).
    #[must_use]
    pub fn numeric_bytes(&self) -> u128 {
        self.numeric_bytes_with(None)
    }

    /// [`ModelConfig::numeric_bytes`] with the weights' bytes given, for a
    /// mapped 16-bit checkpoint (`Checkpoint::held_bytes`: the file's
    /// tensors as stored, plus one block widened to f32); `None` counts the
    /// weights as f32 once, seeded or mapped from an F32 file.
    #[must_use]
    pub fn numeric_bytes_with(&self, weights_held: Option<u128>) -> u128 {
        // A decoding run's checks hold one forward of all T + N positions.
        let (b, t, d, f, l) = (
            self.batch as u128,
            self.seq.saturating_add(self.decode) as u128,
            self.d_model as u128,
            self.mlp.d_ff as u128,
            self.layers as u128,
        );
        let h = self.attention.heads as u128;
        let (a, kv) = (self.attn_width() as u128, self.kv_width() as u128);
        // Saturating: a replayed log's header is not validated.
        let m = |xs: &[u128]| xs.iter().fold(1u128, |a, x| a.saturating_mul(*x));
        // Per block: q and out (d, h·hd), k and v (d, kv·hd), three (d, d_ff).
        // A mixture holds every expert's (and its router's).
        let attn = m(&[2, d, a]).saturating_add(m(&[2, d, kv]));
        let experts = self.experts() as u128;
        let mlp = m(&[experts.max(1), 3, d, f]).saturating_add(m(&[d, experts]));
        let mut weights = m(&[l, attn.saturating_add(mlp)]);
        // The widest activations: a fused projection's output is wider
        // than its parts (gate_up (B,T,2·d_ff), qkv (B,T,(h+2·kv)·hd)).
        let mut widest = m(&[b, t, 2, f])
            .max(m(&[b, h, t, t]))
            .max(m(&[b, t, a.saturating_add(m(&[2, kv]))]))
            .max(m(&[b, t, d]));
        // From token ids: wte, wpe and an untied head, and the logits (B, T, V).
        if let Some(v) = self.vocab.size {
            let v = v as u128;
            let heads = if self.vocab.tied { 1 } else { 2 };
            // BERT's token types, embedding norm and pooler.
            let ends = m(&[self.vocab.token_types.unwrap_or(0) as u128, d])
                .saturating_add(m(&[d, d]))
                .saturating_add(m(&[4, d]));
            weights = weights
                .saturating_add(m(&[heads, v, d]))
                .saturating_add(m(&[self.positions() as u128, d]))
                .saturating_add(ends);
            widest = widest.max(m(&[b, t, v]));
        }
        // bf16 and f16 are run on f32 values, rounded after each step.
        let held = if self.dtype == DType::F64 { 8 } else { 4 };
        // The backward holds, in f64, the tape (every step's output and
        // every weight) and the gradients of both.
        let backward = if self.backward {
            let per_block = m(&[b, t]).saturating_mul(
                m(&[12, d])
                    .saturating_add(m(&[3, f]))
                    .saturating_add(m(&[2, h, t])),
            );
            let logits = self.vocab.size.map_or(0, |v| m(&[2, b, t, v as u128]));
            let acts = m(&[l, per_block]).saturating_add(logits);
            m(&[8, 2, weights.saturating_add(acts)])
        } else {
            0
        };
        let forward = match weights_held {
            Some(w) => w.saturating_add(m(&[6, widest, held])),
            None => m(&[weights.saturating_add(m(&[6, widest])), held]),
        };
        // Split across N·M devices, each a thread holds its own
        // activations (the heads and hidden units its share, the stream
        // whole), beside the one-device run `shard` compares them with;
        // each builds a whole wte (and untied head) before keeping its
        // part, or its stage's.
        let n = self.devices.tp as u128;
        let all = self.devices.count() as u128;
        let devices = if all > 1 {
            let mut local = (m(&[b, t, 2, f]) / n)
                .max(m(&[b, h, t, t]) / n)
                .max(m(&[b, t, a.saturating_add(m(&[2, kv]))]) / n)
                .max(m(&[b, t, d]));
            let mut whole = 0;
            if let Some(v) = self.vocab.size {
                local = local.max(m(&[b, t, v as u128]));
                let heads = if self.vocab.tied { 1 } else { 2 };
                whole = m(&[heads, v as u128, d, held]);
            }
            // Under --ep every device keeps whole copies of all but the
            // experts, of which it keeps E/N.
            let ep = self.devices.ep.max(1) as u128;
            let own = if ep > 1 {
                let expert_all = m(&[l, experts, 3, d, f]);
                let others = weights.saturating_sub(expert_all);
                m(&[others.saturating_add(expert_all / ep), held])
            } else {
                0
            };
            m(&[
                all,
                m(&[6, local, held])
                    .saturating_add(whole)
                    .saturating_add(own),
            ])
        } else {
            0
        };
        forward.saturating_add(backward).saturating_add(devices)
    }
}
