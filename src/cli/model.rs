//! Model options, shared by every subcommand.

use clap::Args;
use shapetrace::load::Sources;
use shapetrace::plan::{ModeChoice, Request, parse_bytes};
use shapetrace::{ModelConfig, Overlay};
use std::path::PathBuf;

fn size(s: &str) -> Result<u128, String> {
    parse_bytes(s).map_err(|e| e.to_string())
}

/// `--preset`'s parser: any text, which the config's own lookup judges (its
/// refusal names every preset, in the user's language), and the presets'
/// names as the possible values the shell completions offer.
#[derive(Clone)]
struct PresetName;

impl clap::builder::TypedValueParser for PresetName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            shapetrace::config::preset::PRESETS
                .iter()
                .map(|(name, _)| clap::builder::PossibleValue::new(*name)),
        ))
    }
}

/// Model options, accepted before or after any subcommand.
#[derive(Debug, Args)]
#[command(next_help_heading = "Model options")]
pub struct ModelArgs {
    /// Start from a preset: lesson, lesson-swiglu, lesson-gqa, lesson-post-ln,
    /// lesson-parallel, lesson-sandwich, lesson-encoder, lesson-moe, lesson-lm
    /// (token ids to logits), lesson-bf16, gpt2-small, gpt2-medium, gpt2-large, gpt2-xl,
    /// shakespeare-char.
    #[arg(long, global = true, value_parser = PresetName, hide_possible_values = true)]
    pub preset: Option<String>,
    /// Start from a model file: native TOML, a Hugging Face config.json
    /// (gpt2, llama, mistral, qwen2, mixtral, phi3, gpt_neox, falcon, opt, gemma, gemma2,
    /// bert), or a GGUF file's metadata (llama, qwen2), told apart by
    /// content. Flags still override it.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Weights from a .safetensors of nanoGPT or of Hugging Face GPT-2,
    /// Llama (Mistral, Qwen2, Gemma, Phi-3, Mixtral), GPT-NeoX, BERT, OPT
    /// or Falcon, a model.safetensors.index.json (sharded), a folder
    /// holding one, or a llama.cpp GGUF file (llama, qwen2; F32, F16, BF16,
    /// Q8_0; other quantisations trace shapes only); a config.json beside
    /// it (a GGUF file's metadata) is the model unless --config or --preset
    /// is given, else the model is read off its shapes (give --heads).
    /// Needs a numeric run.
    #[arg(long, global = true, value_name = "FILE.safetensors")]
    pub weights: Option<PathBuf>,
    /// What to do with a tensor the model reads and the --weights
    /// checkpoint lacks (a BERT file without its token-type table, a
    /// head, a bias, a norm): by default the run is refused naming each
    /// one; `seeded` draws them from the seed and names every one in a
    /// note and in the trace log's header.
    #[arg(long, global = true, value_name = "seeded", value_parser = ["seeded"], requires = "weights")]
    pub fill_missing: Option<String>,
    /// The input x0 from an f32 .npy of shape (B, T, d_model); B and T come
    /// from the file. Needs a numeric run.
    #[arg(long, global = true, value_name = "FILE.npy")]
    pub input: Option<PathBuf>,
    /// The token ids a model with a vocabulary starts from: '1,2,3,4;5,6,7,8'
    /// (rows are batch elements) or an int64 .npy of shape (B, T); B and T
    /// come from them. Without it such a model draws its ids from the seed.
    #[arg(
        long,
        global = true,
        value_name = "IDS|FILE.npy",
        allow_hyphen_values = true
    )]
    pub tokens: Option<String>,
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
    /// The config's flags, declared with its fields in [`Overlay`].
    #[command(flatten)]
    pub set: Overlay,
    // The negations of the overlay's switches (clap derives no `--no-` form).
    /// No biases anywhere.
    #[arg(long, global = true, conflicts_with = "bias")]
    pub no_bias: bool,
    #[arg(long, global = true, hide = true, conflicts_with = "final_norm")]
    pub no_final_norm: bool,
    /// The LM head is its own (d, V) matrix.
    #[arg(long, global = true, conflicts_with = "tied")]
    pub untied: bool,
}

impl ModelArgs {
    /// The flags as an overlay, to lay over a preset or model file.
    #[must_use]
    pub fn overlay(&self) -> Overlay {
        let mut o = Overlay {
            preset: self.preset.clone(),
            ..self.set.clone()
        };
        // --bias and --no-bias say biases everywhere or nowhere: the MLP's
        // and Qwen2's q, k, v biases, that a config.json sets apart, too.
        if let Some(b) = o.bias.or(self.no_bias.then_some(false)) {
            o.mlp_bias = Some(b);
            o.qkv_bias = Some(b);
        }
        for (field, off) in [
            (&mut o.bias, self.no_bias),
            (&mut o.final_norm, self.no_final_norm),
            (&mut o.tied, self.untied),
        ] {
            if off {
                *field = Some(false);
            }
        }
        o
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
    /// validated) and the request with the loaded weights and input, for a
    /// run of one forward (`trace`) or of many.
    ///
    /// # Errors
    /// An unknown preset, a bad file, an invalid config, or a numeric run
    /// that is required but over the limit.
    pub fn resolve(
        &self,
        values: bool,
        keep_output: bool,
        one_forward: bool,
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
            one_forward,
            max_memory: self.max_memory,
            ..Request::default()
        };
        shapetrace::load::resolve(&self.overlay(), &self.sources(), req)
    }

    /// The files named on the command line.
    pub fn sources(&self) -> Sources {
        Sources {
            config: self.config.clone(),
            weights: self.weights.clone(),
            input: self.input.clone(),
            tokens: self.tokens.clone(),
            fill: match self.fill_missing {
                Some(_) => shapetrace::weights::Fill::Seeded,
                None => shapetrace::weights::Fill::Refuse,
            },
        }
    }

    /// As [`ModelArgs::resolve`] for `params --weights FILE.gguf`: the
    /// model from the GGUF file's metadata (unless --config or --preset
    /// gives it), its tensors unread.
    pub fn resolve_gguf_params(&self) -> Result<(ModelConfig, Request), shapetrace::Error> {
        let mut src = self.sources();
        if src.config.is_none() && self.preset.is_none() {
            src.config = src.weights.clone();
        }
        src.weights = None;
        let req = Request {
            max_memory: self.max_memory,
            ..Request::default()
        };
        shapetrace::load::resolve(&self.overlay(), &src, req)
    }
}

#[cfg(test)]
mod tests {
    use crate::cli::Cli;
    use clap::Parser;
    use shapetrace::Overlay;

    fn overlay(args: &[&str]) -> Overlay {
        let argv = std::iter::once("shapetrace").chain(args.iter().copied());
        Cli::try_parse_from(argv).unwrap().model.overlay()
    }

    #[test]
    fn the_preset_each_switch_and_its_negation_reach_the_overlay() {
        let on = overlay(&["--preset", "gpt2-small", "--bias", "--final-norm", "--tied"]);
        let want = (Some("gpt2-small"), Some(true), Some(true), Some(true));
        assert_eq!(
            (on.preset.as_deref(), on.bias, on.final_norm, on.tied),
            want
        );
        let off = overlay(&["check", "--no-bias", "--no-final-norm", "--untied"]);
        assert_eq!(
            (off.bias, off.final_norm, off.tied),
            (Some(false), Some(false), Some(false))
        );
        assert_eq!(overlay(&["params"]), Overlay::default());
    }
}
