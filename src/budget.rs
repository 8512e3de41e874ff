//! The budget of a model: parameters, FLOPs and bytes, derived from the
//! weights the model actually builds and from its trace's shapes.
//!
//! The model is built on the shape-only backend, so GPT-2 XL is counted
//! without allocating it. The closed form in [`closed`] only cross-checks
//! the count (the `params` check).
//!
//! ```
//! let cfg = shapetrace::config::preset::by_name("gpt2-small").unwrap();
//! let b = shapetrace::Budget::of(&cfg).unwrap();
//! assert_eq!(b.total, 124_439_808);
//! assert_eq!(b.block.attention_weights, 2_359_296); // 4·d²
//! assert_eq!(b.flops.per_token_per_block.matmul, 14_155_776);
//! ```
//!
//! `by_component` rows under `block.` count one block (every block is built
//! alike) and add up to `block.total`; the row `blocks` counts all L blocks,
//! and the rows not under `block.` add up to `total`.

pub mod closed;
pub mod count;
pub mod devices;
pub mod flops;
pub mod kv;
pub mod pictures;
pub mod table;
pub mod training;

use crate::config::names::named_enum;
use crate::config::{DType, ModelConfig};
use crate::error::Error;
use crate::plan::Request;
use count::{Counted, formula, sum};
pub use flops::Flops;
use serde::Serialize;

named_enum! {
    /// An element type to size memory in.
    Precision, "dtype" {
        /// 32-bit float, 4 bytes.
        F32 = "f32",
        /// IEEE half precision, 2 bytes.
        F16 = "f16",
        /// bfloat16 (f32's 8-bit exponent, a 7-bit mantissa), 2 bytes.
        Bf16 = "bf16",
        /// 64-bit float, 8 bytes.
        F64 = "f64",
    }
}

impl Precision {
    /// Bytes per element.
    #[must_use]
    pub fn size(self) -> u64 {
        match self {
            Precision::F16 | Precision::Bf16 => 2,
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }
}

impl From<DType> for Precision {
    fn from(d: DType) -> Self {
        match d {
            DType::F32 => Precision::F32,
            DType::F64 | DType::I64 => Precision::F64,
            DType::BF16 => Precision::Bf16,
            DType::F16 => Precision::F16,
        }
    }
}

/// `124439808` → `124,439,808`.
#[must_use]
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One line of the breakdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// `block.attn.q_proj.weight`, `blocks`, `ln_f.weight`, `wte`, …
    pub path: String,
    /// Its parameters.
    pub count: u64,
    /// e.g. `d² = 768² = 589,824`.
    pub formula: String,
}

/// The total minus embeddings, under both common conventions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NonEmbedding {
    /// Minus wpe only, as nanoGPT's get_num_params (a tied wte is the head).
    pub minus_position: u64,
    /// Minus wte and wpe, as in the scaling-law papers (an untied head stays).
    pub minus_all: u64,
    /// Minus wte, wpe and an untied LM head: the blocks and the final norm
    /// alone, what a model's depth and width decide.
    pub minus_all_and_head: u64,
}

/// One block's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BlockCount {
    /// The q, k, v and o matrices.
    pub attention_weights: u64,
    /// The MLP's matrices (up, down, and gate for SwiGLU); in a mixture of
    /// experts every expert's and the router's.
    pub mlp_weights: u64,
    /// The MLP matrices one token is multiplied by: `mlp_weights`, or in a
    /// mixture the router's and k experts' (of E).
    pub mlp_active_weights: u64,
    /// Attention with its biases.
    pub attention: u64,
    /// MLP with its biases.
    pub mlp: u64,
    /// Both norms, γ and β.
    pub norms: u64,
    /// Every parameter of one block: `attention + mlp + norms`.
    pub total: u64,
    /// The same without biases (LayerNorm's β counts as a bias).
    pub total_no_bias: u64,
}

/// Memory of the weights and of every traced activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bytes {
    /// The element type the bytes are counted in.
    pub dtype: Precision,
    /// Bytes of every parameter.
    pub weights: u64,
    /// The sum over trace events of elements × element size, each tensor in
    /// its own dtype (the ids i64, a 16-bit model's norms and softmax f32).
    pub activations: u64,
}

/// Everything `shapetrace params` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Budget {
    /// Every parameter the model builds, embeddings and head included
    /// (124,439,808 for GPT-2 small).
    pub total: u64,
    /// The same without biases (LayerNorm's β counts as a bias).
    pub total_no_bias: u64,
    /// The total minus the embeddings, both ways.
    pub non_embedding: NonEmbedding,
    /// The parameters one token's forward uses: the total, less in a
    /// mixture of experts the E − k experts of every block it skips.
    pub active_per_token: u64,
    /// One row per parameter tensor of one block, then `blocks`, then the
    /// tensors outside the blocks (final norm, embeddings, LM head); see
    /// the module docs for what adds up to what.
    pub by_component: Vec<Row>,
    /// One block's parameters by part.
    pub block: BlockCount,
    /// MLP weights / attention weights (2 for d_ff = 4·d).
    pub ffn_attention_ratio: f64,
    /// Forward-pass FLOPs per token and per block.
    pub flops: Flops,
    /// Memory of the weights and the traced activations.
    pub bytes: Bytes,
    /// The key/value cache decoding holds, per token and at the context.
    pub kv_cache: kv::KvCache,
    /// A model split across devices: the split and one device's
    /// communication per forward. Every other count here is that
    /// device's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub devices: Option<devices::Split>,
    /// A training step's memory (Adam, nothing recomputed), for a model
    /// run with the backward; `params --training` chooses its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training: Option<training::Training>,
    /// One block's subtotals with formulas, e.g. `attention weights`
    /// `4·d² = 4·768² = 2,359,296`.
    #[serde(skip)]
    pub groups: Vec<Row>,
    /// Elements of every traced activation, to size in any [`Precision`].
    #[serde(skip)]
    pub activation_elements: u64,
    /// The closed-form total of the declared architecture.
    #[serde(skip)]
    pub closed_total: u64,
    /// The config counted.
    #[serde(skip)]
    pub config: ModelConfig,
}

impl Budget {
    /// The final norm's parameters, γ and β (0 without one).
    #[must_use]
    pub fn final_norm(&self) -> u64 {
        self.by_component
            .iter()
            .filter(|r| r.path.starts_with("ln_f."))
            .map(|r| r.count)
            .sum()
    }

    /// The budget of `cfg`, with bytes in its own dtype.
    ///
    /// # Errors
    /// [`Error::Config`] when `cfg` is invalid.
    pub fn of(cfg: &ModelConfig) -> Result<Self, Error> {
        Self::with_bytes(cfg, cfg.dtype.into())
    }

    /// The budget of `cfg`, with bytes in `dtype`.
    ///
    /// # Errors
    /// [`Error::Config`] when `cfg` is invalid.
    pub fn with_bytes(cfg: &ModelConfig, dtype: Precision) -> Result<Self, Error> {
        let trace = crate::run::trace_request(cfg, &Request::shapes())?.trace;
        Self::with_trace(cfg, dtype, &trace)
    }

    /// The budget of `cfg`, with bytes in its own dtype, from `trace`, a
    /// shape-only trace of `cfg` the caller already has (`compare` traces
    /// each side once, not twice).
    ///
    /// # Errors
    /// [`Error::Config`] when `cfg` is invalid.
    pub fn of_trace(cfg: &ModelConfig, trace: &crate::trace::Trace) -> Result<Self, Error> {
        Self::with_trace(cfg, cfg.dtype.into(), trace)
    }

    fn with_trace(
        cfg: &ModelConfig,
        dtype: Precision,
        trace: &crate::trace::Trace,
    ) -> Result<Self, Error> {
        // A generating run's FLOPs and activations are its prompt's forward
        // (the prefill); what decoding adds is the cache, counted apart.
        let prefill;
        let forward;
        // A run with the backward: the budget is its forward's.
        let trace = if trace.config.backward {
            forward = crate::check::grads::forward_part(trace);
            &forward
        } else {
            trace
        };
        let trace = if trace.config.decode > 0 {
            let mut passes = crate::check::decode::passes(trace);
            prefill = passes.swap_remove(0).1;
            &prefill
        } else {
            trace
        };
        let params = count::built(cfg);
        // One block: the first this device holds (a pipeline stage's).
        let first = *cfg.held_blocks().start();
        let one: Vec<&Counted> = params.iter().filter(|p| p.block() == Some(first)).collect();
        let pick = |part: &str, matrix: bool| -> Vec<&Counted> {
            let part = format!(".{part}");
            let keep = |p: &&&Counted| p.name.contains(&part) && (!matrix || p.is_matrix());
            one.iter().filter(keep).copied().collect()
        };
        let no_bias = |ps: &[&Counted]| sum(ps.iter().copied().filter(|p| !p.is_bias()));
        // The MLP, or the mixture of experts in its place.
        let mlp = if cfg.mixture.is_some() {
            "moe."
        } else {
            "mlp."
        };
        let groups: Vec<(&str, Vec<&Counted>)> = vec![
            ("attention weights", pick("attn.", true)),
            ("MLP weights", pick(mlp, true)),
            ("attention", pick("attn.", false)),
            ("MLP", pick(mlp, false)),
            ("norms", pick("ln_", false)),
            ("block", one.clone()),
        ];
        let [aw, mw, a, m, n, b] = [0, 1, 2, 3, 4, 5].map(|i| sum(groups[i].1.iter().copied()));
        // A token runs the router and k of the E experts: one expert's
        // count, read off the first this device holds.
        let first = format!("moe.expert{}.", cfg.held_experts().start + 1);
        let (expert, expert_w) = (sum(pick(&first, false)), sum(pick(&first, true)));
        // The held experts a token skips, or under --ep the k it runs that
        // another device may hold (none in a dense model: `expert` is 0).
        let held = cfg.held_experts().len() as u64;
        let k = cfg.mixture.map_or(0, |m| m.top_k) as u64;
        let active_w = mw - held * expert_w + k * expert_w;
        let block = BlockCount {
            attention_weights: aw,
            mlp_weights: mw,
            mlp_active_weights: active_w,
            attention: a,
            mlp: m,
            norms: n,
            total: b,
            total_no_bias: no_bias(&one),
        };
        let named = |name: &str| sum(params.iter().filter(|p| p.name == name));
        let total = sum(&params);
        let (wte, wpe, head) = (named("wte"), named("wpe"), named("lm_head.weight"));
        let non_embedding = NonEmbedding {
            minus_position: total - wpe,
            minus_all: total - wpe - wte,
            minus_all_and_head: total - wpe - wte - head,
        };
        let active_per_token = total - cfg.held_layers() as u64 * held * expert
            + cfg.held_layers() as u64 * k * expert;
        let flops = flops::flops(&flops::Inputs {
            attn_weights: aw,
            mlp_weights: active_w,
            attention: flops::attention_per_token(trace),
            layers: cfg.held_layers(),
            // One device's heads, when split.
            heads: cfg.attention.heads / cfg.devices.tp.max(1),
            head_dim: cfg.head_dim(),
            seq: cfg.seq,
            // BERT's pooler reads one token a sequence: no head per token.
            vocab_d: match cfg.vocab.head {
                // A pipeline's head is on its last stage.
                _ if !cfg.devices.last_stage() => 0,
                // Split across devices, each scores its V'/N rows.
                crate::config::Head::Lm => cfg
                    .padded_vocab()
                    .map_or(0, |v| (v / cfg.devices.tp.max(1) * cfg.d_model) as u64),
                crate::config::Head::Pooler => 0,
            },
            // 6·N counts the parameters a token uses: a mixture's active ones.
            n: active_per_token - wpe,
        });
        let activation_elements = trace
            .events
            .iter()
            .map(|e| e.shape.iter().map(|&n| n as u64).product::<u64>())
            .sum();
        #[allow(clippy::cast_precision_loss)]
        let ratio = if aw == 0 { 0.0 } else { mw as f64 / aw as f64 };
        Ok(Self {
            total,
            total_no_bias: no_bias(&params.iter().collect::<Vec<_>>()),
            non_embedding,
            active_per_token,
            by_component: rows(cfg, &params, &one),
            block,
            ffn_attention_ratio: ratio,
            flops,
            kv_cache: kv::KvCache::of(cfg),
            devices: devices::split(cfg, trace),
            training: cfg.backward.then(|| {
                training::training(cfg, training::Optimizer::Adam, training::Recompute::None)
            }),
            bytes: Bytes {
                dtype,
                weights: total * dtype.size(),
                // The trace at hand is in the model's dtype; another is traced.
                activations: if model_dtype(dtype) == cfg.dtype {
                    tensor_bytes(trace)
                } else {
                    activation_bytes(cfg, dtype).unwrap_or(activation_elements * dtype.size())
                },
            },
            groups: groups
                .into_iter()
                .map(|(path, ps)| Row {
                    path: path.into(),
                    count: sum(ps.iter().copied()),
                    formula: formula(ps),
                })
                .collect(),
            activation_elements,
            closed_total: closed::total(cfg),
            config: cfg.clone(),
        })
    }

    /// The weights and activations in bytes of `dtype`.
    #[must_use]
    pub fn bytes_in(&self, dtype: Precision) -> Bytes {
        if dtype == self.bytes.dtype {
            return self.bytes;
        }
        Bytes {
            dtype,
            weights: self.total * dtype.size(),
            activations: activation_bytes(&self.config, dtype)
                .unwrap_or(self.activation_elements * dtype.size()),
        }
    }
}

/// The bytes of every tensor a run of `cfg` in `dtype` records, each in
/// its own dtype, from a shape-only trace in that dtype (which has the
/// casts a 16-bit model makes and an f32 one does not). `None` when `cfg`
/// cannot run in `dtype` (a fault that needs another).
fn activation_bytes(cfg: &ModelConfig, dtype: Precision) -> Option<u64> {
    let cfg = ModelConfig {
        dtype: model_dtype(dtype),
        ..cfg.clone()
    };
    let trace = crate::run::trace_request(&cfg, &Request::shapes())
        .ok()?
        .trace;
    Some(tensor_bytes(&trace))
}

/// The model dtype whose run a precision's bytes describe.
fn model_dtype(p: Precision) -> DType {
    match p {
        Precision::F32 => DType::F32,
        Precision::F16 => DType::F16,
        Precision::Bf16 => DType::BF16,
        Precision::F64 => DType::F64,
    }
}

/// Every traced tensor's bytes, each in its own dtype: of a generating
/// run, the prompt's forward (the prefill's), as [`Budget::of_trace`]
/// counts.
fn tensor_bytes(trace: &crate::trace::Trace) -> u64 {
    let decoding = trace.config.decode > 0;
    trace
        .events
        .iter()
        .filter(|e| !decoding || crate::trace::pass_of(&e.path) == Some("prefill"))
        .map(|e| e.shape.iter().map(|&n| n as u64).product::<u64>() * e.dtype.size() as u64)
        .sum()
}

/// One block's parameters, all blocks, then the rest; a tied head as 0.
fn rows(cfg: &ModelConfig, params: &[Counted], one: &[&Counted]) -> Vec<Row> {
    let row = |path: String, p: &Counted| Row {
        path,
        count: p.count(),
        formula: formula([p]),
    };
    let first = *cfg.held_blocks().start();
    let mut out: Vec<Row> = one
        .iter()
        .map(|p| row(p.name.replacen(&format!("block{first}."), "block.", 1), p))
        .collect();
    let all_blocks = sum(params.iter().filter(|p| p.block().is_some()));
    out.push(Row {
        path: "blocks".into(),
        count: all_blocks,
        formula: format!(
            "L·block = {}·{} = {}",
            cfg.held_layers(),
            thousands(sum(one.iter().copied())),
            thousands(all_blocks)
        ),
    });
    out.extend(
        params
            .iter()
            .filter(|p| p.block().is_none())
            .map(|p| row(p.name.clone(), p)),
    );
    // The head is the last stage's (every stage's on one).
    let head_here = cfg.devices.last_stage();
    if head_here
        && cfg.vocab.size.is_some()
        && cfg.vocab.tied
        && cfg.vocab.head == crate::config::Head::Lm
    {
        out.push(Row {
            path: "lm_head".into(),
            count: 0,
            formula: "tied to wte = 0".into(),
        });
    }
    out
}
