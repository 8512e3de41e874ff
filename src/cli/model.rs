//! Model options, shared by every subcommand.

use clap::Args;
use shapetrace::config::{Act, DType, Fault, MAX_DIM, MAX_LAYERS, NormKind, Placement};
use shapetrace::load::Sources;
use shapetrace::plan::{ModeChoice, Request, parse_bytes};
use shapetrace::{ModelConfig, Overlay};
use std::path::PathBuf;

fn size(s: &str) -> Result<u128, String> {
    parse_bytes(s).map_err(|e| e.to_string())
}

fn dim(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("expected a whole number from 1 to {MAX_DIM}"))
}

fn layers(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("expected a whole number from 1 to {MAX_LAYERS}"))
}

fn seed(s: &str) -> Result<u64, String> {
    s.parse::<u64>()
        .map_err(|_| format!("expected a whole number from 0 to {}", u64::MAX))
}

fn dim_or_zero(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| format!("expected a whole number from 0 to {MAX_DIM}"))
}

/// Model options, accepted before or after any subcommand.
#[derive(Debug, Args)]
#[command(next_help_heading = "Model options")]
pub struct ModelArgs {
    /// Start from a preset: lesson, lesson-swiglu, lesson-gqa, lesson-post-ln,
    /// gpt2-small, gpt2-medium, gpt2-large, gpt2-xl, shakespeare-char.
    #[arg(long, global = true)]
    pub preset: Option<String>,
    /// Start from a model file: native TOML, or a Hugging Face config.json
    /// (gpt2, llama, mistral), told apart by content. Flags still override it.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Block weights from a nanoGPT or Hugging Face GPT-2 .safetensors
    /// checkpoint; without --config or --preset the model is read off its
    /// shapes (give --heads). Needs a numeric run.
    #[arg(long, global = true, value_name = "FILE.safetensors")]
    pub weights: Option<PathBuf>,
    /// The input x0 from an f32 .npy of shape (B, T, d_model); B and T come
    /// from the file. Needs a numeric run.
    #[arg(long, global = true, value_name = "FILE.npy")]
    pub input: Option<PathBuf>,
    /// Trace shapes and dtypes only, computing no values.
    #[arg(long, global = true, conflicts_with = "numeric")]
    pub shape_only: bool,
    /// Compute values even when large; refuse (exit 2) over --max-memory.
    #[arg(long, global = true)]
    pub numeric: bool,
    /// Memory limit of a numeric run, e.g. 4GiB, 512MiB, 2G (binary units);
    /// above it the run traces shapes only, with a note. Default 4GiB.
    #[arg(long, global = true, value_name = "SIZE", value_parser = size, allow_hyphen_values = true)]
    pub max_memory: Option<u128>,
    /// B, the batch size.
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub batch: Option<usize>,
    /// T, the sequence length.
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub seq: Option<usize>,
    /// d_model, the width of the residual stream.
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub d_model: Option<usize>,
    /// Attention heads (must divide --d-model).
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub heads: Option<usize>,
    /// K/V heads for grouped-query attention (must divide --heads).
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub kv_heads: Option<usize>,
    /// Hidden width of the MLP.
    #[arg(long, global = true, value_parser = dim, allow_negative_numbers = true)]
    pub d_ff: Option<usize>,
    /// Number of blocks (at most 4096).
    #[arg(long, global = true, value_parser = layers, allow_negative_numbers = true)]
    pub layers: Option<usize>,
    /// relu, gelu (exact erf), gelu-tanh or swiglu.
    #[arg(long, global = true)]
    pub act: Option<Act>,
    /// layernorm or rmsnorm.
    #[arg(long, global = true)]
    pub norm: Option<NormKind>,
    /// pre (x + f(LN(x))) or post (LN(x + f(x))).
    #[arg(long, global = true)]
    pub placement: Option<Placement>,
    /// Give linear layers and LayerNorms biases.
    #[arg(long, global = true, conflicts_with = "no_bias")]
    pub bias: bool,
    /// No biases anywhere.
    #[arg(long, global = true)]
    pub no_bias: bool,
    /// Add a final norm ln_f after the last block.
    #[arg(long, global = true, conflicts_with = "no_final_norm")]
    pub final_norm: bool,
    #[arg(long, global = true, hide = true)]
    pub no_final_norm: bool,
    /// Vocabulary size V: adds the embeddings wte, wpe and the LM head to
    /// the counts; 0 for none.
    #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
    pub vocab: Option<usize>,
    /// Positions in wpe (T may not exceed it); 0 follows --seq.
    #[arg(long, global = true, value_parser = dim_or_zero, allow_negative_numbers = true)]
    pub context: Option<usize>,
    /// The LM head reuses wte (as GPT-2).
    #[arg(long, global = true, conflicts_with = "untied")]
    pub tied: bool,
    /// The LM head is its own (d, V) matrix.
    #[arg(long, global = true)]
    pub untied: bool,
    /// f32 or f64.
    #[arg(long, global = true)]
    pub dtype: Option<DType>,
    /// Seed of every weight and of the input x0.
    #[arg(long, global = true, value_parser = seed, allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// Build a known mistake: ffn-no-down, attn-no-merge, bias-w1-64,
    /// merge-no-transpose, no-causal-mask, skip-block1, norm-over-seq, no-out-proj.
    #[arg(long, global = true)]
    pub fault: Option<Fault>,
}

fn flag(on: bool, off: bool) -> Option<bool> {
    match (on, off) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

impl ModelArgs {
    /// The flags as an overlay, to lay over a preset or model file.
    #[must_use]
    pub fn overlay(&self) -> Overlay {
        Overlay {
            preset: self.preset.clone(),
            name: None,
            pos_emb: None,
            rope_theta: None,
            batch: self.batch,
            seq: self.seq,
            d_model: self.d_model,
            heads: self.heads,
            kv_heads: self.kv_heads,
            d_ff: self.d_ff,
            layers: self.layers,
            act: self.act,
            norm: self.norm,
            placement: self.placement,
            bias: flag(self.bias, self.no_bias),
            final_norm: flag(self.final_norm, self.no_final_norm),
            vocab: self.vocab,
            context: self.context,
            tied: flag(self.tied, self.untied),
            dtype: self.dtype,
            seed: self.seed,
            eps: None,
            fault: self.fault,
        }
    }

    /// The file names of `--weights` and `--input`, joined by ` + `.
    #[must_use]
    pub fn given_label(&self) -> Option<String> {
        let names: Vec<String> = [&self.weights, &self.input]
            .into_iter()
            .flatten()
            .map(|p| {
                // Shown escaped by the stepper's header.
                shapetrace::text::lossless(p.file_name().unwrap_or(p.as_os_str()))
            })
            .collect();
        (!names.is_empty()).then(|| names.join(" + "))
    }

    /// The config (preset, model file, checkpoint and input, then flags,
    /// validated) and the request with the loaded weights and input.
    ///
    /// # Errors
    /// An unknown preset, a bad file, an invalid config, or a numeric run
    /// that is required but over the limit.
    pub fn resolve(
        &self,
        values: bool,
        keep_output: bool,
    ) -> Result<(ModelConfig, Request), shapetrace::Error> {
        let mode = if self.shape_only {
            ModeChoice::ShapeOnly
        } else if self.numeric {
            ModeChoice::Numeric
        } else {
            ModeChoice::Auto
        };
        let req = Request {
            mode,
            values,
            keep_output,
            max_memory: self.max_memory,
            ..Request::default()
        };
        let src = Sources {
            config: self.config.clone(),
            weights: self.weights.clone(),
            input: self.input.clone(),
        };
        shapetrace::load::resolve(&self.overlay(), &src, req)
    }
}
