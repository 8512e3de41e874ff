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
use crate::config::{Head, ModelConfig, NormKind, Placement, PosEmb, QkvFusion};
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
    /// Hugging Face BERT: `encoder.layer.{i}.…` ([`super::bert`]); read
    /// with its config.json only.
    Bert,
    /// Hugging Face OPT: `model.decoder.layers.{i}.…` ([`super::opt`]);
    /// read with its config.json only.
    Opt,
    /// Hugging Face Falcon: `transformer.h.{i}.self_attention.…`
    /// ([`super::falcon`]); read with its config.json only.
    Falcon,
}

impl Layout {
    /// The family its names are, for messages: `GPT-2`, `Llama`, `OPT` …
    #[must_use]
    pub fn family(self) -> &'static str {
        match self {
            Layout::NanoGpt | Layout::HfConv1d => "GPT-2",
            Layout::Llama => "Llama",
            Layout::NeoX => "GPT-NeoX",
            Layout::Bert => "BERT",
            Layout::Opt => "OPT",
            Layout::Falcon => "Falcon",
        }
    }

    /// The config.json `model_type`s whose checkpoints are named so.
    #[must_use]
    pub fn model_types(self) -> &'static [&'static str] {
        match self {
            Layout::NanoGpt | Layout::HfConv1d => &["gpt2"],
            Layout::Llama => &[
                "llama", "mistral", "qwen2", "mixtral", "phi3", "gemma", "gemma2",
            ],
            Layout::NeoX => &["gpt_neox"],
            Layout::Bert => &["bert"],
            Layout::Opt => &["opt"],
            Layout::Falcon => &["falcon"],
        }
    }

    /// Whether no tensor shape tells its model: its config.json is needed.
    #[must_use]
    pub fn needs_config(self) -> bool {
        matches!(
            self,
            Layout::NeoX | Layout::Bert | Layout::Opt | Layout::Falcon
        )
    }
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
    /// Tells the family and the prefix by the block tensors the file
    /// holds: the first family in [`MARKS`] one of whose block words any
    /// tensor has (`{root}{stem}{i}.{word}…`, any block i), so a file that
    /// lacks one tensor is still told by the others.
    ///
    /// # Errors
    /// [`WeightsError::NotGpt`] when no tensor is a block's of any family.
    pub fn detect(h: &Tensors) -> Result<Self, WeightsError> {
        let tensors = h.tensors();
        let root_of = |stem: &str, words: &[&str]| {
            tensors.iter().find_map(|(n, _)| {
                n.match_indices(stem).find_map(|(at, _)| {
                    let root = &n[..at];
                    let rest = &n[at + stem.len()..];
                    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                    let after = rest[digits..].strip_prefix('.')?;
                    (digits > 0
                        && (root.is_empty() || root.ends_with('.'))
                        && words.iter().any(|w| after.starts_with(w)))
                    .then(|| root.to_string())
                })
            })
        };
        let Some((layout, root)) = MARKS
            .iter()
            .find_map(|(layout, stem, words)| root_of(stem, words).map(|r| (*layout, r)))
        else {
            return Err(WeightsError::NotGpt {
                path: h.path.clone(),
            });
        };
        if layout != Layout::NanoGpt {
            return Ok(Self {
                root,
                outer: String::new(),
                layout,
            });
        }
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
            Layout::Bert => return super::bert::expected(&self.root, cfg),
            Layout::Opt => return super::opt::expected(&self.root, cfg),
            Layout::Falcon => return super::falcon::expected(&self.root, cfg),
            Layout::NanoGpt | Layout::HfConv1d => {}
        }
        let (d, f) = (cfg.d_model, cfg.mlp.d_ff);
        let kv = cfg.attention.kv_heads * cfg.head_dim();
        let nano = self.layout == Layout::NanoGpt;
        let r = &self.root;
        let mut out = Vec::new();
        let mut push = |name: String, shape: Vec<usize>, target| {
            out.push(Expect {
                name,
                shape,
                target,
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
            |push: &mut dyn FnMut(String, Vec<usize>, Target), file: String, ours: String| {
                push(
                    format!("{file}.weight"),
                    vec![d],
                    Target::Same(format!("{ours}.weight")),
                );
                if norm_bias {
                    push(
                        format!("{file}.bias"),
                        vec![d],
                        Target::Same(format!("{ours}.bias")),
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
            push(format!("{fp}.attn.c_attn.weight"), shape, qkv("weight"));
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
                );
            }
            for (file, ours, dims) in linears {
                let (shape, target) = matrix(dims, format!("{op}.{ours}.weight"));
                push(format!("{fp}.{file}.weight"), shape, target);
                if file == "attn.c_proj" {
                    norm(&mut push, format!("{fp}.ln_2"), format!("{op}.ln_2"));
                }
                if cfg.bias {
                    let to = Target::Same(format!("{op}.{ours}.bias"));
                    push(format!("{fp}.{file}.bias"), vec![dims.1], to);
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
        push(format!("{r}wte.weight"), vec![v, d], table("wte"));
        push(format!("{r}wpe.weight"), vec![ctx, d], table("wpe"));
        let head = Target::Embedding {
            to: "lm_head.weight",
            transposed: true,
        };
        push(format!("{}lm_head.weight", self.outer), vec![v, d], head);
        out
    }

    /// Every problem of `h` against `cfg`, one entry per tensor: a
    /// tensor of a wrong shape, one the file holds that no part of the
    /// model is, and (apart, in [`Fit::missing`]) every parameter the
    /// model reads (`read`: name and shape, [`crate::model::params_read`])
    /// that the file lacks, by the file's name for it, or by ours when no
    /// tensor of this naming holds it.
    #[must_use]
    pub fn fit(&self, h: &Tensors, cfg: &ModelConfig, read: &[(String, Vec<usize>)]) -> Fit {
        let expected = self.expected(cfg);
        let reads = |name: &str| read.iter().any(|(n, _)| n == name);
        let mut fit = Fit::default();
        for e in &expected {
            let embedding = matches!(e.target, Target::Embedding { .. });
            let check_shape = !embedding || cfg.vocab.size.is_some();
            match h.shape(&e.name) {
                None if e.fills().iter().any(|n| reads(n)) => {
                    fit.missing
                        .push(format!("{} {}", h.own_name(&e.name), fmt_shape(&e.shape)));
                }
                Some(got) if check_shape && got != e.shape.as_slice() => {
                    fit.problems.push(format!(
                        "{}: expected {}, found {}",
                        h.own_name(&e.name),
                        fmt_shape(&e.shape),
                        fmt_shape(got)
                    ))
                }
                _ => {}
            }
        }
        let filled: Vec<String> = expected.iter().flat_map(Expect::fills).collect();
        for (name, shape) in read {
            if !filled.contains(name) {
                fit.missing.push(format!(
                    "{name} {} (ours: no {} tensor holds it)",
                    fmt_shape(shape),
                    self.layout.family()
                ));
            }
        }
        for (name, shape) in h.tensors() {
            if self.unread(&name).is_none() && !expected.iter().any(|e| e.name == name) {
                fit.problems.push(format!(
                    "unknown {} {}",
                    crate::text::one_line(&h.own_name(&name)),
                    fmt_shape(&shape)
                ));
            }
        }
        fit
    }

    /// Why the file's tensor `name` is left unread, if it is one the model
    /// never reads by design: a buffer some files save beside the weights
    /// (a causal mask, rotary `inv_freq`, BERT's `position_ids`), or a head
    /// the trace does not reach (BERT's `cls.…`).
    #[must_use]
    pub fn unread(&self, name: &str) -> Option<Unread> {
        let r = &self.root;
        let buffer = match self.layout {
            Layout::Llama => super::llama::is_buffer(r, name),
            Layout::NeoX => super::neox::is_buffer(r, name),
            Layout::Bert if super::bert::is_head(name) => return Some(Unread::Head),
            Layout::Bert => super::bert::is_buffer(r, name),
            Layout::Opt | Layout::Falcon => false,
            Layout::NanoGpt | Layout::HfConv1d => {
                name.starts_with(&format!("{r}h."))
                    && (name.ends_with(".attn.bias") || name.ends_with(".attn.masked_bias"))
            }
        };
        buffer.then_some(Unread::Buffer)
    }
}

/// What a file holds against what the model reads ([`Naming::fit`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fit {
    /// Tensors of a wrong shape, and tensors no part of the model is.
    pub problems: Vec<String>,
    /// What the model reads that the file lacks: the file's name and
    /// shape for it, e.g. `embeddings.token_type_embeddings.weight (2,64)`.
    pub missing: Vec<String>,
}

/// Why a file's tensor is left unread ([`Naming::unread`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unread {
    /// A buffer saved beside the weights, not a weight.
    Buffer,
    /// A head the trace does not reach (BERT's `cls.…`): named in a note.
    Head,
}

/// Each family's block tensors, in the order families are told apart: the
/// stem before the block index and the words after it that only that
/// family's blocks hold (GPT-2's, whose nanoGPT or Conv1D layout the
/// c_attn shape then tells, stand for both). OPT's q_proj is named as
/// Llama's and GPT-NeoX's norms as Llama's, Falcon's blocks as GPT-2's
/// `h.{i}`: each goes before the family it resembles, told by words only
/// it has.
pub const MARKS: [(Layout, &str, &[&str]); 6] = [
    (
        Layout::NanoGpt,
        "h.",
        &[
            "attn.c_attn.",
            "attn.c_proj.",
            "ln_1.",
            "ln_2.",
            "mlp.c_fc.",
            "mlp.c_proj.",
        ],
    ),
    (
        Layout::Opt,
        "layers.",
        &[
            "fc1.",
            "fc2.",
            "self_attn_layer_norm.",
            "self_attn.out_proj.",
        ],
    ),
    (Layout::Falcon, "h.", &["self_attention."]),
    (
        Layout::Bert,
        "encoder.layer.",
        &[
            "attention.self.",
            "attention.output.",
            "intermediate.dense.",
            "output.dense.",
        ],
    ),
    (
        Layout::NeoX,
        "layers.",
        &[
            "attention.query_key_value.",
            "attention.dense.",
            "mlp.dense_h_to_4h.",
            "mlp.dense_4h_to_h.",
        ],
    ),
    (
        Layout::Llama,
        "layers.",
        &[
            "self_attn.",
            "input_layernorm.",
            "post_attention_layernorm.",
            "mlp.gate_proj.",
            "mlp.up_proj.",
            "mlp.down_proj.",
            "mlp.gate_up_proj.",
            "block_sparse_moe.",
        ],
    ),
];

/// Why `cfg` cannot take the blocks a file of `layout` holds, if it
/// cannot, and what such a file holds (for the message): the first of
/// its family's requirements that `cfg` breaks.
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
    let (act, norm, pos) = (cfg.mlp.act, cfg.norms.kind, cfg.positions.kind);
    let gated = || {
        act.is_gated()
            .then(|| format!("act {act} has a gate projection"))
    };
    let layer_norm = || {
        (norm != NormKind::LayerNorm || !cfg.norm_bias())
            .then(|| format!("norm {norm} is not the file's LayerNorm with β"))
    };
    let positions = |want: PosEmb, file: &str| {
        (pos != want).then(|| format!("positions {pos} are not the file's {file}"))
    };
    let qkv = |want: &[QkvFusion], file: &str| {
        let got = cfg.attention.fused_qkv;
        (!want.contains(&got)).then(|| format!("fused_qkv {got} is not the file's {file}"))
    };
    let (broken, allowed): (Vec<Option<String>>, &'static str) = match layout {
        Layout::NeoX => (
            vec![
                qkv(&[QkvFusion::Grouped], "grouped query_key_value"),
                gated(),
                layer_norm(),
            ],
            "a GPT-NeoX checkpoint holds GPT-NeoX blocks (its config.json says how: read it beside the file or with --config)",
        ),
        Layout::Bert => (
            vec![
                qkv(&[QkvFusion::Apart], "query, key and value"),
                gated(),
                layer_norm(),
                positions(PosEmb::Learned, "learned table"),
                (cfg.vocab.head != Head::Pooler && cfg.vocab.size.is_some())
                    .then(|| format!("head {} is not the file's pooler", cfg.vocab.head)),
            ],
            "a BERT checkpoint holds a BERT encoder ending in its pooler (its config.json says how: read it beside the file or with --config)",
        ),
        Layout::Opt => (
            vec![
                qkv(&[QkvFusion::Apart], "q_proj, k_proj and v_proj"),
                gated(),
                layer_norm(),
                positions(PosEmb::Learned, "learned table"),
            ],
            "an OPT checkpoint holds OPT blocks (its config.json says how: read it beside the file or with --config)",
        ),
        Layout::Falcon => (
            vec![
                qkv(
                    &[QkvFusion::Concat, QkvFusion::Grouped],
                    "fused query_key_value",
                ),
                gated(),
                layer_norm(),
                positions(PosEmb::Rope, "rotary ones"),
            ],
            "a Falcon checkpoint holds Falcon blocks (its config.json says how: read it beside the file or with --config)",
        ),
        Layout::NanoGpt | Layout::HfConv1d => (
            vec![gated()],
            "a GPT-2 checkpoint holds GPT-2-style blocks (act relu, gelu or gelu-tanh)",
        ),
        // Llama's names also hold Gemma's (GeGLU, RMSNorm · (1 + w)), Gemma
        // 2's sandwich norms and Phi-3's fused projections.
        Layout::Llama => (
            vec![
                (!act.is_gated()).then(|| format!("act {act} has no gate projection")),
                (norm == NormKind::LayerNorm)
                    .then(|| format!("norm {norm} is not the file's RMSNorm")),
                positions(PosEmb::Rope, "rotary ones"),
                (cfg.norms.placement == Placement::Post || cfg.parallel).then(|| {
                    "a Post-LN or parallel block is not the file's pre-norm block".to_string()
                }),
                qkv(
                    &[QkvFusion::Apart, QkvFusion::Concat],
                    "q_proj, k_proj, v_proj (or Phi-3's qkv_proj)",
                ),
            ],
            "a Llama checkpoint holds Llama blocks (a gated MLP, RMSNorm, rotary positions, pre or sandwich norms)",
        ),
    };
    broken
        .into_iter()
        .flatten()
        .next()
        .map(|what| (what, allowed))
}
