//! The file's names and layout, and what a config expects the file to hold.
//! GPT-2 names are listed here; Hugging Face Llama/Mistral names in
//! [`super::llama`].
//!
//! # Shapes (file side, nanoGPT layout; Hugging Face Conv1D swaps each matrix)
//! - `h.{i}.ln_{1,2}.weight`, `.bias`: (d)
//! - `h.{i}.attn.c_attn.weight`: (d + 2·kv·hd, d); `.bias`: (d + 2·kv·hd)
//! - `h.{i}.attn.c_proj.weight`: (d, d); `h.{i}.mlp.c_fc.weight`: (d_ff, d);
//!   `h.{i}.mlp.c_proj.weight`: (d, d_ff)
//! - optional `wte.weight` (V, d), `wpe.weight` (ctx, d), `lm_head.weight` (V, d)

use super::WeightsError;
use super::shards::Tensors;
use crate::config::{ModelConfig, NormKind, Placement, PosEmb, QkvFusion};
use crate::ops::fmt_shape;

/// How the file stores a linear layer's matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// nanoGPT's `nn.Linear`: [out, in], transposed on load.
    NanoGpt,
    /// Hugging Face GPT-2's `Conv1D`: [in, out], as ours.
    HfConv1d,
    /// Hugging Face Llama/Mistral: `model.layers.{i}.…`, `nn.Linear`
    /// [out, in] (transposed on load), q, k, v apart, a gated MLP.
    Llama,
    /// Hugging Face GPT-NeoX: `gpt_neox.layers.{i}.…`, `nn.Linear` [out,
    /// in], one fused query_key_value; read with its config.json only.
    NeoX,
}

pub use super::expect::{Expect, Target};

/// The prefixes before `h.{i}.` and before `lm_head.`, and the layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Naming {
    /// `transformer.`, `_orig_mod.transformer.` or empty (GPT-2);
    /// `model.` or empty (Llama).
    pub root: String,
    /// `_orig_mod.` or empty.
    pub outer: String,
    /// How the file stores its matrices.
    pub layout: Layout,
}

impl Naming {
    /// Finds block 0 (GPT-2's c_attn, else Llama's q_proj) to tell the
    /// prefix and layout.
    ///
    /// # Errors
    /// [`WeightsError::NotGpt`] when no block 0 is found.
    pub fn detect(h: &Tensors) -> Result<Self, WeightsError> {
        let tensors = h.tensors();
        let root_of = |suffix: &str| {
            tensors
                .iter()
                .find_map(|(n, _)| n.strip_suffix(suffix))
                .filter(|r| r.is_empty() || r.ends_with('.'))
                .map(str::to_string)
        };
        let Some(root) = root_of("h.0.attn.c_attn.weight") else {
            let found = |layout, block0| {
                root_of(block0).map(|root| Self {
                    root,
                    outer: String::new(),
                    layout,
                })
            };
            return found(Layout::Llama, super::llama::BLOCK0)
                .or_else(|| found(Layout::Llama, super::llama::FUSED_BLOCK0))
                .or_else(|| found(Layout::NeoX, super::neox::BLOCK0))
                .ok_or_else(|| WeightsError::NotGpt {
                    path: h.path.clone(),
                });
        };
        let outer = if root.starts_with("_orig_mod.") {
            "_orig_mod.".to_string()
        } else {
            String::new()
        };
        let c_attn = h
            .shape(&format!("{root}h.0.attn.c_attn.weight"))
            .unwrap_or(&[]);
        let layout = match c_attn {
            [a, b] if a > b => Layout::NanoGpt,
            [a, b] if a < b => Layout::HfConv1d,
            // Square or not a matrix: the shape check will name it.
            _ if root.is_empty() => Layout::HfConv1d,
            _ => Layout::NanoGpt,
        };
        Ok(Self {
            root,
            outer,
            layout,
        })
    }

    /// Every tensor a checkpoint of `cfg` holds, with its target.
    #[must_use]
    pub fn expected(&self, cfg: &ModelConfig) -> Vec<Expect> {
        match self.layout {
            Layout::Llama => return super::llama::expected(&self.root, cfg),
            Layout::NeoX => return super::neox::expected(&self.root, cfg),
            Layout::NanoGpt | Layout::HfConv1d => {}
        }
        let (d, f) = (cfg.d_model, cfg.mlp.d_ff);
        let kv = cfg.attention.kv_heads * cfg.head_dim();
        let nano = self.layout == Layout::NanoGpt;
        let r = &self.root;
        let mut out = Vec::new();
        let mut push = |name: String, shape: Vec<usize>, target, required| {
            out.push(Expect {
                name,
                shape,
                target,
                required,
            });
        };
        // A matrix of ours (in, out): its file shape and target.
        let matrix = |(i, o): (usize, usize), to: String| {
            if nano {
                (vec![o, i], Target::Transposed(to))
            } else {
                (vec![i, o], Target::Same(to))
            }
        };
        let norm_bias = cfg.norm_bias();
        let norm =
            |push: &mut dyn FnMut(String, Vec<usize>, Target, bool), file: String, ours: String| {
                push(
                    format!("{file}.weight"),
                    vec![d],
                    Target::Same(format!("{ours}.weight")),
                    true,
                );
                if norm_bias {
                    push(
                        format!("{file}.bias"),
                        vec![d],
                        Target::Same(format!("{ours}.bias")),
                        true,
                    );
                }
            };
        for i in 0..cfg.layers {
            let (fp, op) = (format!("{r}h.{i}"), format!("block{}", i + 1));
            norm(&mut push, format!("{fp}.ln_1"), format!("{op}.ln_1"));
            let (shape, _) = matrix((d, d + 2 * kv), String::new());
            let qkv = |part| Target::Qkv {
                prefix: format!("{op}.attn"),
                part,
                d,
                kv,
                transposed: nano,
            };
            push(
                format!("{fp}.attn.c_attn.weight"),
                shape,
                qkv("weight"),
                true,
            );
            let linears = [
                ("attn.c_proj", "attn.out", (d, d)),
                ("mlp.c_fc", "mlp.up", (d, f)),
                ("mlp.c_proj", "mlp.down", (f, d)),
            ];
            if cfg.bias {
                push(
                    format!("{fp}.attn.c_attn.bias"),
                    vec![d + 2 * kv],
                    qkv("bias"),
                    true,
                );
            }
            for (file, ours, dims) in linears {
                let (shape, target) = matrix(dims, format!("{op}.{ours}.weight"));
                push(format!("{fp}.{file}.weight"), shape, target, true);
                if file == "attn.c_proj" {
                    norm(&mut push, format!("{fp}.ln_2"), format!("{op}.ln_2"));
                }
                if cfg.bias {
                    let to = Target::Same(format!("{op}.{ours}.bias"));
                    push(format!("{fp}.{file}.bias"), vec![dims.1], to, true);
                }
            }
        }
        if cfg.norms.final_norm {
            norm(&mut push, format!("{r}ln_f"), "ln_f".into());
        }
        let (v, ctx) = (cfg.vocab.size.unwrap_or(0), cfg.positions());
        let table = |to| Target::Embedding {
            to,
            transposed: false,
        };
        push(format!("{r}wte.weight"), vec![v, d], table("wte"), false);
        push(format!("{r}wpe.weight"), vec![ctx, d], table("wpe"), false);
        let head = Target::Embedding {
            to: "lm_head.weight",
            transposed: true,
        };
        push(
            format!("{}lm_head.weight", self.outer),
            vec![v, d],
            head,
            false,
        );
        out
    }

    /// Every problem of `h` against `cfg`, one entry per tensor.
    #[must_use]
    pub fn problems(&self, h: &Tensors, cfg: &ModelConfig) -> Vec<String> {
        let expected = self.expected(cfg);
        let mut out = Vec::new();
        for e in &expected {
            let embedding = matches!(e.target, Target::Embedding { .. });
            let check_shape = !embedding || cfg.vocab.size.is_some();
            match h.shape(&e.name) {
                None if e.required => {
                    out.push(format!("missing {} {}", e.name, fmt_shape(&e.shape)));
                }
                Some(got) if check_shape && got != e.shape.as_slice() => out.push(format!(
                    "{}: expected {}, found {}",
                    e.name,
                    fmt_shape(&e.shape),
                    fmt_shape(got)
                )),
                _ => {}
            }
        }
        for (name, shape) in h.tensors() {
            let buffer = match self.layout {
                Layout::Llama => super::llama::is_buffer(&self.root, &name),
                Layout::NeoX => super::neox::is_buffer(&self.root, &name),
                _ => {
                    name.starts_with(&format!("{}h.", self.root))
                        && (name.ends_with(".attn.bias") || name.ends_with(".attn.masked_bias"))
                }
            };
            if !buffer && !expected.iter().any(|e| e.name == name) {
                out.push(format!(
                    "unknown {} {}",
                    crate::text::one_line(&name),
                    fmt_shape(&shape)
                ));
            }
        }
        out
    }
}

/// Why `cfg` cannot take the blocks a file of `layout` holds, if it
/// cannot, and what such a file holds (for the message).
#[must_use]
pub fn unsupported(layout: Layout, cfg: &ModelConfig) -> Option<(String, &'static str)> {
    // Experts' names are Mixtral's (block_sparse_moe.experts.N.w1, …), in
    // a Llama-named file only.
    if let Some(m) = cfg.mixture.filter(|_| layout != Layout::Llama) {
        return Some((
            format!("experts {} (a mixture of experts)", m.experts),
            "a checkpoint of dense blocks (experts 0): a mixture's experts are read from Mixtral's names only",
        ));
    }
    if layout == Layout::NeoX {
        let what = if cfg.attention.fused_qkv != QkvFusion::Grouped {
            format!(
                "fused_qkv {} is not the file's grouped query_key_value",
                cfg.attention.fused_qkv
            )
        } else if cfg.mlp.act.is_gated() {
            format!("act {} has a gate projection", cfg.mlp.act)
        } else if cfg.norms.kind != NormKind::LayerNorm || !cfg.norm_bias() {
            format!("norm {} is not the file's LayerNorm with β", cfg.norms.kind)
        } else {
            return None;
        };
        return Some((
            what,
            "a GPT-NeoX checkpoint holds GPT-NeoX blocks (its config.json says how: read it beside the file or with --config)",
        ));
    }
    if layout != Layout::Llama {
        let what = cfg
            .mlp
            .act
            .is_gated()
            .then(|| format!("act {} has a gate projection", cfg.mlp.act));
        return what.map(|w| {
            (
                w,
                "a GPT-2 checkpoint holds GPT-2-style blocks (act relu, gelu or gelu-tanh)",
            )
        });
    }
    // Llama's names also hold Gemma's (GeGLU, RMSNorm · (1 + w)), Gemma
    // 2's sandwich norms and Phi-3's fused projections.
    let what = if !cfg.mlp.act.is_gated() {
        format!("act {} has no gate projection", cfg.mlp.act)
    } else if cfg.norms.kind == NormKind::LayerNorm {
        format!("norm {} is not the file's RMSNorm", cfg.norms.kind)
    } else if cfg.positions.kind != PosEmb::Rope {
        format!(
            "positions {} are not the file's rotary ones",
            cfg.positions.kind
        )
    } else if cfg.norms.placement == Placement::Post || cfg.parallel {
        "a Post-LN or parallel block is not the file's pre-norm block".to_string()
    } else if cfg.attention.fused_qkv == QkvFusion::Grouped {
        "fused_qkv grouped is not the file's q_proj, k_proj, v_proj (or Phi-3's qkv_proj)"
            .to_string()
    } else {
        return None;
    };
    Some((
        what,
        "a Llama checkpoint holds Llama blocks (a gated MLP, RMSNorm, rotary positions, pre or sandwich norms)",
    ))
}
