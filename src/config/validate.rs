//! The rules a config must satisfy.
//!
//! [`ModelConfig::validate`] holds for every use of a config, shape-only
//! included. [`ModelConfig::numeric_bytes`] estimates what a run that
//! computes values would hold; [`crate::plan`] compares it with the limit.

use super::{
    ConfigError, DType, MAX_DIM, MAX_EXPERTS, MAX_LAYERS, ModelConfig, Placement, PosEmb, divisors,
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
            ("heads", self.heads),
            ("kv_heads", self.kv_heads),
            ("head_dim", self.head_dim()),
            ("d_ff", self.d_ff),
            ("layers", self.layers),
        ];
        dims.extend(self.vocab.map(|v| ("vocab", v)));
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
        if self.context > MAX_DIM {
            return Err(ConfigError::TooLarge {
                name: "context",
                got: self.context,
                max: MAX_DIM,
            });
        }
        if self.context != 0 && self.seq > self.context {
            return Err(ConfigError::SeqOverContext {
                seq: self.seq,
                context: self.context,
            });
        }
        for (name, got) in [("head_dim", self.head_dim), ("window", self.window)] {
            if got > MAX_DIM {
                return Err(ConfigError::TooLarge {
                    name,
                    got,
                    max: MAX_DIM,
                });
            }
        }
        // A head width given apart from d_model need not divide it.
        if self.head_dim == 0 && !self.d_model.is_multiple_of(self.heads) {
            return Err(ConfigError::HeadsDontDivide {
                d_model: self.d_model,
                heads: self.heads,
                allowed: divisors(self.d_model),
            });
        }
        if !self.heads.is_multiple_of(self.kv_heads) {
            return Err(ConfigError::KvHeadsDontDivide {
                heads: self.heads,
                kv_heads: self.kv_heads,
                allowed: divisors(self.heads),
            });
        }
        // Every count the tool makes must fit u64 with room for FLOPs and bytes.
        let (b, t, d, f, l, h, a) = [
            self.batch,
            self.seq,
            self.d_model,
            self.d_ff,
            self.layers,
            self.heads,
            self.attn_width().max(self.kv_heads * self.head_dim()),
        ]
        .map(|v| v as u128)
        .into();
        let sizes = [
            ("the stream (B·T·d_model)", b * t * d),
            ("the MLP hidden layer (B·T·d_ff)", b * t * f),
            ("the scores (B·heads·T·T)", b * h * t * t),
            ("the merged heads (B·T·heads·head_dim)", b * t * a),
            (
                "the weights (layers·d_model·(4·heads·head_dim + 3·d_ff))",
                l * d * (4 * a + 3 * f),
            ),
            (
                "the embeddings (vocab·d_model)",
                self.vocab.unwrap_or(0) as u128 * d,
            ),
        ];
        if let Some((what, got)) = sizes.into_iter().find(|(_, n)| *n > super::MAX_ELEMENTS) {
            return Err(ConfigError::TooManyElements { what, got });
        }
        if !(self.eps.is_finite() && self.eps > 0.0) {
            return Err(ConfigError::Eps(self.eps));
        }
        if !(self.rope_theta.is_finite() && self.rope_theta > 1.0) {
            return Err(ConfigError::RopeTheta(self.rope_theta));
        }
        if self.pos_emb == PosEmb::Rope && !self.head_dim().is_multiple_of(2) {
            return Err(ConfigError::OddRotary(self.head_dim()));
        }
        if self.rope_scaling.is_some() && self.pos_emb != PosEmb::Rope {
            return Err(ConfigError::NeedsRotary("rope_scaling"));
        }
        if self.parallel && self.placement != Placement::Pre {
            return Err(ConfigError::ParallelPlacement(self.placement));
        }
        if self.encoder && self.window > 0 {
            return Err(ConfigError::WindowInEncoder(self.window));
        }
        if let Some(s) = self.rope_scaling {
            s.validate()?;
        }
        self.validate_experts()?;
        self.validate_variants()?;
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
        let (e, k) = (self.experts, self.top_k);
        if e == 0 {
            return Ok(());
        }
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
        if self.rotary_dims > 0 {
            if self.pos_emb != PosEmb::Rope {
                return Err(ConfigError::NeedsRotary("rotary_dims"));
            }
            if self.rotary_dims > hd || !self.rotary_dims.is_multiple_of(2) {
                return field(
                    "rotary_dims",
                    self.rotary_dims.to_string(),
                    format!("an even number from 2 to head_dim ({hd}), or 0 for all"),
                );
            }
        }
        let ends = [
            ("token_types", self.token_types > 0),
            ("embed_norm", self.embed_norm),
            ("head", self.head != super::Head::Lm),
            ("embed_scale", self.embed_scale),
            ("pos_offset", self.pos_offset > 0),
            ("logit_softcap", self.logit_softcap > 0.0),
        ];
        if let (None, Some((name, _))) = (self.vocab, ends.iter().find(|(_, set)| *set)) {
            return field(
                name,
                "set".into(),
                "only with a vocabulary (vocab ≥ 1): it belongs to the embeddings or the head"
                    .into(),
            );
        }
        if self.head == super::Head::Pooler {
            if self.logit_softcap > 0.0 {
                return field(
                    "logit_softcap",
                    self.logit_softcap.to_string(),
                    "0 with head pooler (there are no logits to cap)".into(),
                );
            }
            if !self.tied {
                return field(
                    "tied",
                    "false".into(),
                    "tied with head pooler (the pooler takes the LM head's place: there is no head to untie)"
                        .into(),
                );
            }
        }
        if self.norm_bias == Some(true) && self.norm != super::NormKind::LayerNorm {
            return field(
                "norm_bias",
                "true".into(),
                format!("norm_bias with norm layernorm ({} has no β)", self.norm),
            );
        }
        if self.fused_gate_up && self.experts > 0 {
            return field(
                "fused_gate_up",
                "true".into(),
                "fused_gate_up without experts (a mixture's experts keep gate and up apart, as Mixtral's w1 and w3)".into(),
            );
        }
        if self.encoder && self.pos_emb == PosEmb::Alibi {
            return field(
                "pos_emb",
                "alibi".into(),
                "learned or rope in an encoder (ALiBi's m·(j − t) would reward keys ahead of the query)".into(),
            );
        }
        if self.token_types > MAX_DIM {
            return Err(ConfigError::TooLarge {
                name: "token_types",
                got: self.token_types,
                max: MAX_DIM,
            });
        }
        if self.fused_gate_up && !self.act.is_gated() {
            return field(
                "fused_gate_up",
                "true".into(),
                "fused_gate_up with a gated MLP (act swiglu or geglu)".into(),
            );
        }
        if self.shared_norm && !self.parallel {
            return field(
                "shared_norm",
                "true".into(),
                "shared_norm with parallel (a sequential block's sublayers each read their own norm)".into(),
            );
        }
        if self.pos_offset > MAX_DIM {
            return Err(ConfigError::TooLarge {
                name: "pos_offset",
                got: self.pos_offset,
                max: MAX_DIM,
            });
        }
        if self.pos_offset > 0 && self.pos_emb != PosEmb::Learned {
            return field(
                "pos_offset",
                self.pos_offset.to_string(),
                "0 with rotary positions (an offset shifts the rows of a learned wpe)".into(),
            );
        }
        if self.full_every > 0 && self.window == 0 {
            return field(
                "full_every",
                self.full_every.to_string(),
                "0 without a window (every block attends fully already): with --window 0 add --full-every 0".into(),
            );
        }
        for (name, got) in [
            ("full_every", self.full_every),
            ("query_scale", self.query_scale),
        ] {
            if got > MAX_DIM {
                return Err(ConfigError::TooLarge {
                    name,
                    got,
                    max: MAX_DIM,
                });
            }
        }
        for (name, cap) in [
            ("attn_softcap", self.attn_softcap),
            ("logit_softcap", self.logit_softcap),
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
        let (b, t, d, f, l) = (
            self.batch as u128,
            self.seq as u128,
            self.d_model as u128,
            self.d_ff as u128,
            self.layers as u128,
        );
        let h = self.heads as u128;
        let (a, kv) = (
            self.attn_width() as u128,
            (self.kv_heads * self.head_dim()) as u128,
        );
        // Saturating: a replayed log's header is not validated.
        let m = |xs: &[u128]| xs.iter().fold(1u128, |a, x| a.saturating_mul(*x));
        // Per block: q and out (d, h·hd), k and v (d, kv·hd), three (d, d_ff).
        // A mixture holds every expert's (and its router's).
        let attn = m(&[2, d, a]).saturating_add(m(&[2, d, kv]));
        let experts = (self.experts as u128).max(1);
        let mlp = m(&[experts, 3, d, f]).saturating_add(m(&[d, self.experts as u128]));
        let mut weights = m(&[l, attn.saturating_add(mlp)]);
        // The widest activations: a fused projection's output is wider
        // than its parts (gate_up (B,T,2·d_ff), qkv (B,T,(h+2·kv)·hd)).
        let mut widest = m(&[b, t, 2, f])
            .max(m(&[b, h, t, t]))
            .max(m(&[b, t, a.saturating_add(m(&[2, kv]))]))
            .max(m(&[b, t, d]));
        // From token ids: wte, wpe and an untied head, and the logits (B, T, V).
        if let Some(v) = self.vocab {
            let v = v as u128;
            let heads = if self.tied { 1 } else { 2 };
            // BERT's token types, embedding norm and pooler.
            let ends = m(&[self.token_types as u128, d])
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
        match weights_held {
            Some(w) => w.saturating_add(m(&[6, widest, held])),
            None => m(&[weights.saturating_add(m(&[6, widest])), held]),
        }
    }
}
