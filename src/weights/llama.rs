//! Hugging Face Llama and Mistral names, and the model read off their shapes.
//!
//! ```text
//! file (nn.Linear [out, in])                          ours ((in, out)), blocks from 1
//! model.layers.{i}.input_layernorm.weight    (d)      → block{i+1}.ln_1.weight
//! model.layers.{i}.self_attn.q_proj.weight   (h·hd, d) → block{i+1}.attn.q_proj.weight
//! model.layers.{i}.self_attn.{k,v}_proj.weight (kv·hd, d) → block{i+1}.attn.{k,v}_proj.weight
//! model.layers.{i}.self_attn.o_proj.weight   (d, h·hd) → block{i+1}.attn.out.weight
//!   (.bias of each, (out), when the config has attention_bias; of the MLP's, mlp_bias)
//!   h·hd = d unless the config gives head_dim apart from d / h
//! model.layers.{i}.post_attention_layernorm.weight (d) → block{i+1}.ln_2.weight
//! model.layers.{i}.mlp.{gate,up}_proj.weight (d_ff, d) → block{i+1}.mlp.{gate,up}.weight
//! model.layers.{i}.mlp.down_proj.weight      (d, d_ff) → block{i+1}.mlp.down.weight
//! model.norm.weight (d) → ln_f.weight;  model.embed_tokens.weight (V, d) → wte
//! lm_head.weight (V, d) → lm_head.weight (d, V); absent when tied
//! ```
//!
//! Gemma 2's sandwich norms: `post_attention_layernorm` is the norm on
//! attention's output (`post_ln_1`), `pre_feedforward_layernorm` the MLP's
//! input norm (`ln_2`), `post_feedforward_layernorm` the MLP's output norm
//! (`post_ln_2`). Phi-3's fused `self_attn.qkv_proj` ((h+2·kv)·hd, d) and
//! `mlp.gate_up_proj` (2·d_ff, d) go to `attn.qkv_proj` and `mlp.gate_up`.
//!
//! The `model.` prefix is optional (a bare `LlamaModel`'s state dict). q and
//! k need no permutation: the rotary step turns the two halves of each head
//! (`rotate_half`), as Hugging Face's Llama does. Older files hold each
//! layer's `self_attn.rotary_emb.inv_freq` buffer, which is skipped.

use super::expect::{Expect, Target};
use super::{Checkpoint, WeightsError};
use crate::config::file::Overlay;
use crate::config::{Act, ModelConfig, NormKind, Placement, PosEmb, QkvFusion};

/// ε of the norms and θ of the rotary embedding of a model read off a
/// file without a config.json: Llama 2's and Mistral 7B's.
pub const EPS: f64 = 1e-5;
/// See [`EPS`].
pub const THETA: f64 = 10_000.0;

/// Every tensor a Llama checkpoint of `cfg` holds, under prefix `r`.
#[must_use]
pub fn expected(r: &str, cfg: &ModelConfig) -> Vec<Expect> {
    let (d, f, hq) = (cfg.d_model, cfg.mlp.d_ff, cfg.attn_width());
    let kv = cfg.attention.kv_heads * cfg.head_dim();
    let mut out = Vec::new();
    let mut push = |name: String, shape: Vec<usize>, target| {
        out.push(Expect {
            name,
            shape,
            target,
        });
    };
    for i in 0..cfg.layers {
        let (fp, op) = (format!("{r}layers.{i}"), format!("block{}", i + 1));
        let norm = |file: &str, ours: &str| {
            (
                format!("{fp}.{file}.weight"),
                vec![d],
                Target::Same(format!("{op}.{ours}.weight")),
            )
        };
        let (n, s, t) = norm("input_layernorm", "ln_1");
        push(n, s, t);
        // (file name, our name, our (in, out))
        let qkv: Vec<(&str, &str, (usize, usize))> = if cfg.attention.fused_qkv == QkvFusion::Concat
        {
            vec![("self_attn.qkv_proj", "attn.qkv_proj", (d, hq + 2 * kv))]
        } else {
            vec![
                ("self_attn.q_proj", "attn.q_proj", (d, hq)),
                ("self_attn.k_proj", "attn.k_proj", (d, kv)),
                ("self_attn.v_proj", "attn.v_proj", (d, kv)),
            ]
        };
        let mlp: Vec<(String, String, (usize, usize))> = if let Some(m) = cfg.mixture {
            mixture(m.experts, d, f)
        } else if cfg.mlp.fused_gate_up {
            vec![
                ("mlp.gate_up_proj".into(), "mlp.gate_up".into(), (d, 2 * f)),
                ("mlp.down_proj".into(), "mlp.down".into(), (f, d)),
            ]
        } else {
            vec![
                ("mlp.gate_proj".into(), "mlp.gate".into(), (d, f)),
                ("mlp.up_proj".into(), "mlp.up".into(), (d, f)),
                ("mlp.down_proj".into(), "mlp.down".into(), (f, d)),
            ]
        };
        let owned =
            |(a, b, dims): (&str, &str, (usize, usize))| (a.to_string(), b.to_string(), dims);
        let linears: Vec<(String, String, (usize, usize))> = qkv
            .into_iter()
            .map(owned)
            .chain([owned(("self_attn.o_proj", "attn.out", (hq, d)))])
            .chain(mlp)
            .collect();
        for (file, ours, (fan_in, fan_out)) in linears {
            let (file, ours) = (file.as_str(), ours.as_str());
            push(
                format!("{fp}.{file}.weight"),
                vec![fan_out, fan_in],
                Target::Transposed(format!("{op}.{ours}.weight")),
            );
            // attention_bias gives q, k, v, o theirs; mlp_bias gate, up, down.
            // Qwen2's q, k and v have biases where o has none.
            let biased = if file.starts_with("block_sparse_moe.") {
                // Mixtral's router and experts have no biases.
                false
            } else if file.starts_with("mlp.") {
                cfg.mlp_bias()
            } else if file == "self_attn.o_proj" {
                cfg.bias
            } else {
                cfg.bias || cfg.attention.qkv_bias
            };
            if biased {
                push(
                    format!("{fp}.{file}.bias"),
                    vec![fan_out],
                    Target::Same(format!("{op}.{ours}.bias")),
                );
            }
            if file == "self_attn.o_proj" {
                let sandwich = [
                    ("post_attention_layernorm", "post_ln_1"),
                    ("pre_feedforward_layernorm", "ln_2"),
                    ("post_feedforward_layernorm", "post_ln_2"),
                ];
                if cfg.norms.placement == Placement::Sandwich {
                    for (file, ours) in sandwich {
                        let (n, s, t) = norm(file, ours);
                        push(n, s, t);
                    }
                } else {
                    let (n, s, t) = norm("post_attention_layernorm", "ln_2");
                    push(n, s, t);
                }
            }
        }
    }
    if cfg.norms.final_norm {
        push(
            format!("{r}norm.weight"),
            vec![d],
            Target::Same("ln_f.weight".into()),
        );
    }
    let v = cfg.vocab.size.unwrap_or(0);
    out.extend(super::expect::ends(
        format!("{r}embed_tokens.weight"),
        "lm_head.weight",
        v,
        d,
    ));
    out
}

/// Whether `name` is a buffer older files save beside the weights (each
/// layer's rotary `inv_freq`), which the model does not need.
#[must_use]
pub fn is_buffer(r: &str, name: &str) -> bool {
    name.starts_with(&format!("{r}layers.")) && name.ends_with(".self_attn.rotary_emb.inv_freq")
}

impl Checkpoint {
    /// How many Llama layers the file holds (`layers.{i}.input_layernorm`
    /// from 0 on), and their width d_model, if it has one.
    pub(super) fn llama_blocks(&self) -> (usize, Option<usize>) {
        let (r, h) = (&self.naming.root, &self.file);
        let norm = |i: usize| h.shape(&format!("{r}layers.{i}.input_layernorm.weight"));
        let layers = (0..).take_while(|&i| norm(i).is_some()).count();
        (layers, norm(0).and_then(|s| s.first().copied()))
    }

    /// The Llama model these tensors describe, with `heads` attention
    /// heads; ε and θ, which no tensor holds, are [`EPS`] and [`THETA`].
    ///
    /// # Errors
    /// [`WeightsError::LlamaHeads`] when `heads` is `None` or does not fit
    /// the K/V width, [`WeightsError::Mismatch`] when block 0 is incomplete.
    pub(super) fn infer_llama(&self, heads: Option<usize>) -> Result<Overlay, WeightsError> {
        let (r, h) = (&self.naming.root, &self.file);
        let rows = |name: &str| {
            h.shape(&format!("{r}{name}"))
                .and_then(|s| s.first().copied())
        };
        let missing = |what: &str| WeightsError::Mismatch {
            path: self.path().to_string(),
            why: String::new(),
            count: 1,
            list: format!("missing {r}layers.0.{what}, needed to infer the model"),
            hint: "",
        };
        let (layers, d) = self.llama_blocks();
        let d = d.ok_or_else(|| missing("input_layernorm.weight"))?;
        let d_ff =
            rows("layers.0.mlp.up_proj.weight").ok_or_else(|| missing("mlp.up_proj.weight"))?;
        let kv_width = rows("layers.0.self_attn.k_proj.weight")
            .ok_or_else(|| missing("self_attn.k_proj.weight"))?;
        // q's width h·hd: d unless each head has its own width (head_dim).
        let q_width = rows("layers.0.self_attn.q_proj.weight").unwrap_or(d);
        // Heads h fit when hd = q_width/h divides the K/V width and its
        // K/V heads divide h.
        let fits = |h: usize| {
            h > 0
                && q_width.is_multiple_of(h)
                && kv_width.is_multiple_of(q_width / h)
                && kv_width / (q_width / h) > 0
                && h.is_multiple_of(kv_width / (q_width / h))
        };
        let heads = heads
            .filter(|&h| fits(h))
            .ok_or_else(|| WeightsError::LlamaHeads {
                path: self.path().to_string(),
                given: heads,
                d_model: d,
                kv_width,
                allowed: (1..=d)
                    .filter(|&h| fits(h))
                    .map(|h| h.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        Ok(Overlay {
            d_model: Some(d),
            heads: Some(heads),
            kv_heads: Some(kv_width / (q_width / heads)),
            head_dim: Some(if q_width == d { 0 } else { q_width / heads }),
            d_ff: Some(d_ff),
            layers: Some(layers),
            act: Some(Act::Swiglu),
            norm: Some(NormKind::RmsNorm),
            placement: Some(Placement::Pre),
            bias: Some(
                h.shape(&format!("{r}layers.0.self_attn.q_proj.bias"))
                    .is_some(),
            ),
            final_norm: Some(h.shape(&format!("{r}norm.weight")).is_some()),
            vocab: Some(rows("embed_tokens.weight").unwrap_or(0)),
            // No position table: the context follows T.
            context: Some(0),
            tied: Some(h.shape("lm_head.weight").is_none()),
            pos_emb: Some(PosEmb::Rope),
            rope_theta: Some(THETA),
            eps: Some(EPS),
            ..Overlay::default()
        })
    }
}

/// Mixtral's names, as its published checkpoints hold them: the router
/// `block_sparse_moe.gate` (E, d) and, for each expert e from 0,
/// `block_sparse_moe.experts.{e}.w1` (gate), `w3` (up), `w2` (down), each
/// [out, in]; ours count the experts from 1.
fn mixture(experts: usize, d: usize, f: usize) -> Vec<(String, String, (usize, usize))> {
    let mut out = vec![(
        "block_sparse_moe.gate".to_string(),
        "moe.router".to_string(),
        (d, experts),
    )];
    for e in 0..experts {
        for (w, ours, dims) in [
            ("w1", "gate", (d, f)),
            ("w3", "up", (d, f)),
            ("w2", "down", (f, d)),
        ] {
            out.push((
                format!("block_sparse_moe.experts.{e}.{w}"),
                format!("moe.expert{}.{ours}", e + 1),
                dims,
            ));
        }
    }
    out
}
