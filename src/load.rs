//! Everything a run can point at outside the binary — a model file, a
//! checkpoint, an input — turned into a config and a [`Request`].
//!
//! The layers, last wins: the config inferred from the checkpoint (only
//! without `--config` and `--preset`), the model file, B and T of the input,
//! then the flags. With `--weights` and neither `--config` nor `--preset`,
//! a `config.json` beside the checkpoint (or its index) is the model file,
//! and nothing is inferred. Sizes are checked before anything large is read: a
//! checkpoint is refused when its numeric run would exceed the limit, and
//! its tensors are read only once the config is known to fit them.
//!
//! ```
//! use shapetrace::load::{Sources, resolve};
//! use shapetrace::{Overlay, Request};
//! let src = Sources {
//!     weights: Some("tests/fixtures/nanogpt-tiny.safetensors".into()),
//!     input: Some("tests/fixtures/nanogpt-tiny-input.npy".into()),
//!     ..Sources::default()
//! };
//! let heads = Overlay { heads: Some(4), ..Overlay::default() };
//! let (cfg, mut req) = resolve(&heads, &src, Request::default()).unwrap();
//! assert_eq!((cfg.d_model, cfg.layers, cfg.batch, cfg.seq), (64, 2, 2, 4)); // read off the files
//! req.keep_output = true;
//! let traced = shapetrace::trace_request(&cfg, &req).unwrap();
//! assert_eq!(traced.output.unwrap().shape(), [2, 4, 64]);
//! assert!(traced.plan.note().is_none()); // numbers, under the 4 GiB limit
//! ```

use crate::error::Error;
use crate::plan::Request;
use crate::weights::Checkpoint;
use crate::{ModelConfig, Overlay, npy};
use std::path::PathBuf;
use std::sync::Arc;

/// Files named on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    /// `--config`: TOML or a Hugging Face config.json.
    pub config: Option<PathBuf>,
    /// `--weights`: a nanoGPT, Hugging Face GPT-2 or Llama/Mistral
    /// `.safetensors`, a `model.safetensors.index.json` naming shards beside
    /// it, a folder holding either, or a GGUF file (its own model file).
    pub weights: Option<PathBuf>,
    /// `--input`: x0 as an f32 `.npy` of shape (B, T, d_model).
    pub input: Option<PathBuf>,
    /// `--tokens`: the token ids, `'1,2;3,4'` or an int64 `.npy` (B, T).
    pub tokens: Option<String>,
    /// `--fill-missing`: what to do with a tensor the model reads and the
    /// checkpoint lacks (refuse, by default).
    pub fill: crate::weights::Fill,
}

/// The note of what a config read off `c`'s shapes (`base`) took on
/// trust rather than from the file: what no tensor shape says and no flag
/// set.
fn guessed(c: &Checkpoint, base: &Overlay, flags: &Overlay) -> String {
    use crate::weights::names::Layout;
    let mut took = Vec::new();
    if flags.act.is_none() {
        took.push(match c.naming.layout {
            Layout::NanoGpt => "act gelu (nanoGPT's exact erf; --act gelu-tanh for GPT-2's)".into(),
            Layout::HfConv1d => "act gelu-tanh (Hugging Face GPT-2's gelu_new)".into(),
            Layout::Llama => "act swiglu".to_string(),
            // Never read off its shapes: infer refuses it first.
            Layout::NeoX | Layout::Bert | Layout::Opt | Layout::Falcon => String::new(),
        });
    }
    if c.naming.layout == Layout::Llama {
        took.push(format!(
            "RMSNorm ε {:e}, rope θ {} unscaled, no sliding window",
            base.eps.unwrap_or_default(),
            base.rope_theta.unwrap_or_default()
        ));
    } else {
        took.push(format!("LayerNorm ε {:e}", base.eps.unwrap_or_default()));
    }
    if flags.placement.is_none() {
        took.push("Pre-LN".into());
    }
    let heads = base.heads.unwrap_or_default();
    format!(
        "{}: no config.json beside it, so the model is read off its shapes; taken on trust: {}; heads {heads} from --heads (--config config.json sets them all)",
        crate::text::shown(c.path()),
        took.join(", ")
    )
}

/// Resolves the config from `flags` and `src`, and fills `req` with the
/// loaded weights and input.
///
/// # Errors
/// Any bad file, any invalid config, a checkpoint that does not fit the
/// config, or a numeric run (required by the weights or input) over the limit.
pub fn resolve(
    flags: &Overlay,
    src: &Sources,
    mut req: Request,
) -> Result<(ModelConfig, Request), Error> {
    let file = match &src.config {
        Some(p) => Overlay::from_file(p)?,
        None => Overlay::default(),
    };
    let ckpt = src.weights.as_deref().map(Checkpoint::open).transpose()?;
    // With --weights alone, the config.json beside it is the model file.
    let beside = ckpt
        .as_ref()
        .filter(|_| src.config.is_none() && flags.preset.is_none())
        .and_then(Checkpoint::config_beside)
        .map(std::path::Path::to_path_buf);
    let file = match &beside {
        Some(p) => Overlay::from_file(p)?,
        None => file,
    };
    let model_file = src.config.as_ref().or(beside.as_ref());
    let mut base = Overlay::default();
    if let Some(c) = &ckpt
        && model_file.is_none()
        && flags.preset.is_none()
    {
        base = c.infer(flags.heads)?;
        base.name = src
            .weights
            .as_ref()
            .and_then(|p| p.file_name())
            .map(crate::text::lossless);
        base.notes = Some(vec![guessed(c, &base, flags)]);
    }
    // The input's header first: its values are read once the run it
    // needs is known to fit the memory limit.
    let input = src.input.as_deref().map(npy::Npy::open).transpose()?;
    let ids = src
        .tokens
        .as_deref()
        .map(crate::tokens::parse)
        .transpose()?;
    if ids.is_some() && input.is_some() {
        return Err(Error::TokensAndInput);
    }
    // B and T come from the input or the ids; a flag may only agree.
    let given = match (&input, &ids, &src.input, &src.tokens) {
        (Some(x), _, Some(p), _) => {
            let &[b, t, _] = x.shape() else {
                return Err(Error::InputRank {
                    got: crate::ops::fmt_shape(x.shape()),
                });
            };
            Some((b, t, "--input", crate::text::lossless(p.as_os_str())))
        }
        (_, Some(ids), _, Some(arg)) => Some((ids.nrows(), ids.ncols(), "--tokens", arg.clone())),
        _ => None,
    };
    let mut dims = Overlay::default();
    if let Some((b, t, from, path)) = given {
        for (flag, dim, value, file) in [("batch", "B", flags.batch, b), ("seq", "T", flags.seq, t)]
        {
            if let Some(value) = value.filter(|&v| v != file) {
                return Err(Error::InputDims {
                    flag,
                    value,
                    from,
                    path,
                    dim,
                    file,
                });
            }
        }
        dims.batch = Some(b);
        dims.seq = Some(t);
    }
    let model = base.then(&file).then(&dims);
    // A config.json of another family than the checkpoint's names is
    // refused before its settings are laid on the file's tensors.
    if let (Some(c), Some(model_type)) = (&ckpt, &model.family) {
        c.of_family(model_type)?;
    }
    req.notes.extend(model.notes.iter().flatten().cloned());
    let cfg = match model.clone().then(flags).resolve() {
        Ok(cfg) => cfg,
        // Named with the model file when that file is at fault: when it is
        // invalid without the flags too.
        Err(e) => {
            return Err(match model_file {
                Some(p) if model.resolve().is_err() => Error::InModelFile {
                    path: crate::text::lossless(p.as_os_str()),
                    inner: Box::new(e.into()),
                },
                _ => e.into(),
            });
        }
    };
    if let Some(ids) = ids {
        let vocab = cfg.vocab.size.ok_or(Error::TokensNoVocab)?;
        crate::tokens::check_range(&ids, vocab)?;
        req.tokens = Some(Arc::new(ids));
    }
    if let Some(x) = input {
        crate::plan::require_numbers(&cfg, &req, "--input")?;
        req.input = Some(Arc::new(x.read()?));
    }
    if let Some(c) = ckpt {
        // Shapes alone (--shape-only, or a GGUF file of a type no numeric
        // run reads): the file's names and shapes are checked against the
        // model, and none of its tensors is read.
        if req.mode == crate::plan::ModeChoice::ShapeOnly || c.quantized(&mut req)? {
            let read = crate::model::params_read(&cfg, req.input.is_none());
            req.seeded = c.fits(&cfg, &read, src.fill)?;
            req.notes
                .extend(crate::weights::seeded_note(c.path(), &req.seeded));
            req.mode = crate::plan::ModeChoice::ShapeOnly;
            return Ok((cfg, req));
        }
        // A 16-bit file is widened op by op, unless the limit also holds
        // every weight in f32 and the run makes more than one forward: then
        // each is widened once and kept, and the estimate counts the f32
        // weights (as seeded ones), not the file.
        req.weights_held = c.held_bytes(&cfg);
        // (An f64 run converts every weight anyway: `held_bytes` counts it.)
        let keep = !req.one_forward
            && cfg.dtype != crate::config::DType::F64
            && req.weights_held.is_some()
            && cfg.numeric_bytes() <= req.limit();
        if keep {
            req.weights_held = None;
        }
        crate::plan::require_numbers(&cfg, &req, "--weights")?;
        // A run from x0 reads the blocks alone; one from ids (given or
        // seeded) its ends too.
        let read = crate::model::params_read(&cfg, req.input.is_none());
        let w = c.load(&cfg, &read, src.fill)?;
        req.seeded = w.seeded().to_vec();
        req.notes
            .extend(crate::weights::seeded_note(c.path(), &req.seeded));
        if !w.heads_unread().is_empty() {
            req.notes.push(format!(
                "{}: {} of a head the trace does not reach left unread ({} …): the trace ends in the model's own output",
                crate::text::shown(c.path()),
                crate::text::plural(w.heads_unread().len(), "tensor"),
                w.heads_unread()[0]
            ));
        }
        let w = if keep { w.keep_widened() } else { w };
        req.weights = Some(Arc::new(w));
    }
    Ok((cfg, req))
}
