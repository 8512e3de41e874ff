//! Model files (`--config FILE.toml`) and the overlay they share with flags.
//!
//! Every key is optional; a missing key keeps the base preset's value. An
//! unknown key is an error that names the key, its line and the keys allowed.

use super::{Act, DType, Fault, ModelConfig, NormKind, Placement, PosEmb};
use serde::Deserialize;

/// A partial config: what a model file or the command line sets.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    pub preset: Option<String>,
    /// The name the resolved config carries instead of its base preset's,
    /// e.g. `llama (config.json)`; never read from a file.
    #[serde(skip)]
    pub name: Option<String>,
    pub batch: Option<usize>,
    pub seq: Option<usize>,
    pub d_model: Option<usize>,
    pub heads: Option<usize>,
    pub kv_heads: Option<usize>,
    pub d_ff: Option<usize>,
    pub layers: Option<usize>,
    pub act: Option<Act>,
    pub norm: Option<NormKind>,
    pub placement: Option<Placement>,
    pub bias: Option<bool>,
    pub final_norm: Option<bool>,
    /// V; 0 removes the vocabulary (no embeddings, no head).
    pub vocab: Option<usize>,
    /// Position-embedding rows; 0 follows seq.
    pub context: Option<usize>,
    pub tied: Option<bool>,
    pub pos_emb: Option<PosEmb>,
    pub rope_theta: Option<f64>,
    pub dtype: Option<DType>,
    pub seed: Option<u64>,
    pub eps: Option<f64>,
    pub fault: Option<Fault>,
}

/// A model file that could not be read or parsed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FileError {
    #[error("cannot read {}: {reason}", crate::text::shown(.path))]
    Read { path: String, reason: String },
    #[error("{}:{line}:{col}: {msg}", crate::text::shown(.path))]
    Parse {
        path: String,
        line: usize,
        col: usize,
        msg: String,
    },
    #[error("{} is {size} bytes; allowed: a model file of at most {MAX_FILE} bytes", crate::text::shown(.path))]
    TooLarge { path: String, size: u64 },
    #[error(transparent)]
    Hf(#[from] super::hf::HfError),
}

/// The parser's message, then the offending line itself (which names the key).
fn with_line(msg: &str, text: &str, line: usize) -> String {
    let msg = crate::text::one_line(msg);
    match text
        .lines()
        .nth(line - 1)
        .map(crate::text::one_line)
        .filter(|l| !l.is_empty())
    {
        Some(l) if l.chars().count() <= 60 => format!("{msg} (in `{l}`)"),
        Some(l) => format!("{msg} (in `{}…`)", l.chars().take(57).collect::<String>()),
        None => msg,
    }
}
/// Largest model file read, TOML or JSON.
pub const MAX_FILE: u64 = 1 << 20;

impl Overlay {
    /// Parses TOML text; `path` only labels errors.
    ///
    /// # Errors
    /// [`FileError::Parse`] with the line and column of the first problem.
    pub fn from_toml(text: &str, path: &str) -> Result<Self, FileError> {
        toml::from_str(text).map_err(|e| {
            let start = e.span().map_or(0, |s| s.start).min(text.len());
            let before = &text[..start];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            FileError::Parse {
                path: path.to_string(),
                line,
                col,
                msg: with_line(e.message(), text, line),
            }
        })
    }

    /// Reads and parses a model file: a Hugging Face config.json when its
    /// text is JSON (see [`super::hf::is_json`]), native TOML otherwise. A
    /// file over [`MAX_FILE`] bytes is refused before it is read, a pipe
    /// once it has given more; `-` is standard input.
    ///
    /// # Errors
    /// [`FileError`] when the file cannot be read or parsed.
    pub fn from_file(path: &std::path::Path) -> Result<Self, FileError> {
        let label = crate::text::lossless(path.as_os_str());
        let read = |e: std::io::Error| FileError::Read {
            path: label.clone(),
            reason: e.to_string(),
        };
        let input = crate::files::open(path).map_err(read)?;
        if let Some(size) = input.size().filter(|&s| s > MAX_FILE) {
            return Err(FileError::TooLarge { path: label, size });
        }
        let text = input.read_text(MAX_FILE).map_err(read)?;
        let text = super::hf::strip_bom(&text);
        if super::hf::is_json(text) {
            let mut o = super::hf::parse(text, &label)?;
            // The name is printed at the top of params, check and the
            // stepper: the file's name in it is shown, escaped, its bytes
            // that are not UTF-8 named.
            let file_name = path.file_name().map_or_else(
                || crate::text::shown(&label).to_string(),
                crate::text::shown_os,
            );
            o.name = Some(format!("{} ({file_name})", o.name.unwrap_or_default()));
            return Ok(o);
        }
        Self::from_toml(text, &label)
    }

    /// Lays `self` over `base`: every set field wins.
    ///
    /// When the heads change and the kv-heads are not given, a base without
    /// grouped-query attention stays without it (kv-heads follow heads).
    pub fn apply(&self, base: &mut ModelConfig) {
        if let (Some(h), None) = (self.heads, self.kv_heads)
            && base.kv_heads == base.heads
        {
            base.kv_heads = h;
        }
        macro_rules! set {
            ($($f:ident),*) => { $(if let Some(v) = self.$f.clone() { base.$f = v; })* };
        }
        set!(
            batch, seq, d_model, heads, kv_heads, d_ff, layers, act, norm, placement, bias,
            final_norm, context, tied, pos_emb, rope_theta, dtype, seed, eps
        );
        if let Some(v) = self.vocab {
            base.vocab = (v != 0).then_some(v);
        }
        if self.fault.is_some() {
            base.fault = self.fault;
        }
    }

    /// Fields set in `other` win over those in `self`.
    #[must_use]
    pub fn then(mut self, other: &Overlay) -> Overlay {
        macro_rules! take {
            ($($f:ident),*) => { $(if other.$f.is_some() { self.$f = other.$f.clone(); })* };
        }
        take!(
            preset, name, batch, seq, d_model, heads, kv_heads, d_ff, layers, act, norm, placement,
            bias, final_norm, vocab, context, tied, pos_emb, rope_theta, dtype, seed, eps, fault
        );
        self
    }

    /// Resolves the preset named here (or `lesson`), then lays `self` over it.
    ///
    /// # Errors
    /// An unknown preset name, or a config that fails validation.
    pub fn resolve(&self) -> Result<ModelConfig, crate::Error> {
        let name = self.preset.as_deref().unwrap_or("lesson");
        let mut cfg = super::preset::by_name(name)?;
        self.apply(&mut cfg);
        if let Some(n) = &self.name {
            cfg.preset.clone_from(n);
        }
        cfg.validate()?;
        Ok(cfg)
    }
}
