//! Checkpoints: block weights from a `.safetensors` file, named as in
//! nanoGPT's state_dict, as in Hugging Face's GPT-2, or as in Hugging
//! Face's Llama and Mistral ([`llama`]); one file, or the shards of a
//! `model.safetensors.index.json` ([`shards`]).
//!
//! [`Checkpoint::open`] reads and checks the headers alone (bounded, before
//! any tensor is read). [`Checkpoint::infer`] derives a config from the
//! tensor shapes. [`Checkpoint::load`] checks every tensor against a config
//! — all missing, unknown and mis-shaped tensors in one message — then
//! takes each as a [`mapped::Mapped`] view of the file's mapping into
//! [`Weights`], under the model's own parameter names and in its `x·W`
//! (in, out) layout: transposes and q/k/v splits are strides and offsets,
//! not copies. The model builder takes its parameters from there
//! (`model::Source::Loaded`); the numeric backend reads F32 tensors in
//! place and widens F16/BF16 ones as each op reads them ([`mapped`]).
//!
//! ```text
//! nanoGPT (nn.Linear, [out, in])        ours ((in, out))
//! transformer.h.{i}.attn.c_attn.weight  [d+2·kv·hd, d] → block{i+1}.attn.{q,k,v}_proj.weight
//! transformer.h.{i}.attn.c_proj.weight  [d, d]         → block{i+1}.attn.out.weight
//! transformer.h.{i}.mlp.c_fc.weight     [d_ff, d]      → block{i+1}.mlp.up.weight
//! transformer.h.{i}.mlp.c_proj.weight   [d, d_ff]      → block{i+1}.mlp.down.weight
//! transformer.h.{i}.ln_{1,2}.{weight,bias}, transformer.ln_f.*  (optional _orig_mod. prefix)
//! Hugging Face GPT-2: h.{i}.… (or transformer.h.{i}.…), Conv1D [in, out]: no transpose
//! Hugging Face Llama/Mistral: model.layers.{i}.…, nn.Linear [out, in]: see [`llama`]
//! ```

pub mod bert;
pub mod expect;
pub mod falcon;
pub mod file;
pub mod gguf;
pub mod grads;
pub mod infer;
pub mod llama;
pub mod names;
pub mod neox;
pub mod opt;
pub mod shards;

use crate::config::ModelConfig;
use crate::ops::mapped::{self, Mapped};
use names::Target;
use std::collections::HashMap;
use std::path::Path;

/// A checkpoint that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {reason}", crate::text::shown(.path))]
    Read {
        /// The checkpoint.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// The file is not a well-formed safetensors file (header, offsets).
    #[error("{} is not a valid safetensors file: {reason}", crate::text::shown(.path))]
    Corrupt {
        /// The checkpoint.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A tensor has an element type the tool cannot read.
    #[error("{}: tensor {} is {dtype}; allowed dtypes: F32, F16, BF16", crate::text::shown(.path), crate::text::shown(.name))]
    Dtype {
        /// The checkpoint.
        path: String,
        /// The tensor, e.g. `transformer.h.0.attn.c_attn.weight`.
        name: String,
        /// Its dtype, e.g. `I64`.
        dtype: String,
    },
    /// A GGUF file that cannot be used ([`gguf`]).
    #[error(transparent)]
    Gguf(#[from] gguf::GgufError),
    /// Tensors are missing, extra or of the wrong shape for the model.
    #[error("{} does not fit the model{why}; {}: {list}{hint}", crate::text::shown(.path), problems(*.count))]
    Mismatch {
        /// The checkpoint.
        path: String,
        /// What the file holds against what the model wants, when their
        /// block count or width differ (empty otherwise).
        why: String,
        /// How many tensor problems were found.
        count: usize,
        /// The missing, unknown or mis-shaped tensors, joined by `; `: the
        /// first few, then how many more.
        list: String,
        /// What would do instead, when the only problems are missing
        /// tensors ([`MISSING_HINT`]); empty otherwise.
        hint: &'static str,
    },
    /// No tensor is named as a block of any naming read.
    #[error(
        "{} has no block tensors of a naming shapetrace reads; allowed names: transformer.h.{{i}}.attn.… (nanoGPT, optionally _orig_mod.), h.{{i}}.attn.… (Hugging Face GPT-2), model.layers.{{i}}.self_attn.… (Llama, Mistral, Qwen2, Gemma, Phi-3, Mixtral), gpt_neox.layers.{{i}}.… (GPT-NeoX), encoder.layer.{{i}}.… (BERT), model.decoder.layers.{{i}}.… (OPT) or transformer.h.{{i}}.self_attention.… (Falcon)",
        crate::text::shown(.path)
    )]
    NotGpt {
        /// The checkpoint.
        path: String,
    },
    /// A checkpoint whose model no tensor shape tells, without a config.
    #[error(
        "{} is a {family} checkpoint with no config.json beside it; allowed: its config.json beside the file, or --config config.json (its rotary share and residual wiring are in no tensor)",
        crate::text::shown(.path)
    )]
    NeedsConfig {
        /// The checkpoint.
        path: String,
        /// The family its names are, e.g. `GPT-NeoX`.
        family: &'static str,
    },
    /// The heads cannot be read from a checkpoint, and none were given.
    #[error(
        "--weights without --config or --preset needs --heads; d_model {d_model} allows heads: {allowed}"
    )]
    NeedHeads {
        /// The width read from the checkpoint.
        d_model: usize,
        /// The divisors of d_model, listed for the message.
        allowed: String,
    },
    /// The config's blocks are ones the checkpoint cannot fill: SwiGLU's
    /// gate projection from a GPT-2 file, or a Llama file's blocks run as
    /// something else (LayerNorm, learned positions, no gate).
    #[error("{}: {what}; {allowed}", crate::text::shown(.path))]
    Unsupported {
        /// The checkpoint.
        path: String,
        /// What the config has that the checkpoint lacks.
        what: String,
        /// What the file holds and the settings allowed, e.g. `a GPT-2
        /// checkpoint holds GPT-2-style blocks (act relu, gelu or gelu-tanh)`.
        allowed: &'static str,
    },
    /// Llama names without a config: the heads are not in the file, and
    /// none that fit were given.
    #[error(
        "{} holds Llama tensors and no config.json beside it; allowed: --config config.json, or --heads with the K/V width {kv_width} and d_model {d_model} allowing {allowed}{}",
        crate::text::shown(.path),
        .given.map_or_else(String::new, |h| format!(" (--heads {h} does not fit)"))
    )]
    LlamaHeads {
        /// The checkpoint.
        path: String,
        /// The `--heads` given, if any.
        given: Option<usize>,
        /// The width read from the checkpoint.
        d_model: usize,
        /// Rows of block 0's k_proj: kv_heads · head_dim.
        kv_width: usize,
        /// The heads that fit both, listed for the message.
        allowed: String,
    },
    /// `--weights` names a folder without a checkpoint in it.
    #[error(
        "{} is a folder without model.safetensors or model.safetensors.index.json; allowed: a .safetensors file, a model.safetensors.index.json, or a folder holding one",
        crate::text::shown(.dir)
    )]
    NoCheckpoint {
        /// The folder.
        dir: String,
    },
    /// A `model.safetensors.index.json` that cannot be used.
    #[error(
        "{} is not a usable safetensors index: {reason}; allowed: a JSON object whose weight_map maps each tensor to a shard file beside it",
        crate::text::shown(.path)
    )]
    Index {
        /// The index.
        path: String,
        /// What is wrong, naming the bad value.
        reason: String,
    },
    /// A shard the index names cannot be read.
    #[error(
        "{} names shard {}, which cannot be read: {reason}; allowed: shards that sit beside the index",
        crate::text::shown(.index),
        crate::text::shown(.shard)
    )]
    Shard {
        /// The index.
        index: String,
        /// The shard's file name, as the index gives it.
        shard: String,
        /// The system's reason.
        reason: String,
    },
    /// The index maps a tensor to a shard that does not hold it.
    #[error(
        "{} maps tensor {} to shard {}, which does not hold it{}; allowed: an index mapping each tensor to the shard that holds it",
        crate::text::shown(.index),
        crate::text::shown(.tensor),
        crate::text::shown(.shard),
        if *.more == 0 { String::new() } else { format!(" ({} more tensors so mapped)", .more) }
    )]
    ShardLacks {
        /// The index.
        index: String,
        /// The first tensor missing from its shard.
        tensor: String,
        /// The shard the index names for it.
        shard: String,
        /// How many other tensors are missing from theirs.
        more: usize,
    },
    /// A config.json of another family than the file's names: its
    /// settings would be laid on tensors they were never made for.
    #[error(
        "{} holds {family} tensors, but the model is a config.json of model_type {}; allowed: a config.json of model_type {allowed}, as the file's names are",
        crate::text::shown(.path),
        crate::text::shown(.model_type)
    )]
    Family {
        /// The checkpoint.
        path: String,
        /// The family its names are, e.g. `Falcon`.
        family: &'static str,
        /// The config.json's `model_type`, e.g. `gpt_neox`.
        model_type: String,
        /// The model types named as the file is, listed.
        allowed: String,
    },
    /// A tied model on a file whose own LM head differs from its wte: the
    /// file's head would be silently replaced by wte.
    #[error(
        "{}: its lm_head.weight differs from wte.weight, but the model ties the head to wte; allowed: --untied to run the file's own head, or a file whose head equals wte",
        crate::text::shown(.path)
    )]
    TiedHead {
        /// The checkpoint.
        path: String,
    },
}

/// The way out of a checkpoint that lacks tensors the model reads.
pub const MISSING_HINT: &str = "; allowed: a checkpoint holding every tensor the model reads, or --fill-missing seeded to draw the missing ones from the seed (each named in a note)";

/// What a run does with a tensor the model reads and the checkpoint lacks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Fill {
    /// Refuse the checkpoint, naming every missing tensor.
    #[default]
    Refuse,
    /// Draw it from the run seed, naming it in a note and the trace log's
    /// header (`--fill-missing seeded`).
    Seeded,
}

/// The note naming what `--fill-missing seeded` drew from the seed in
/// place of what checkpoint `path` lacks; `None` when nothing was.
#[must_use]
pub fn seeded_note(path: &str, seeded: &[String]) -> Option<String> {
    (!seeded.is_empty()).then(|| {
        format!(
            "{}: --fill-missing seeded drew {} from the seed, in place of what the file lacks: {}",
            crate::text::shown(path),
            crate::text::plural(seeded.len(), "tensor"),
            seeded.join(", ")
        )
    })
}

/// "1 tensor problem", "3 tensor problems".
fn problems(n: usize) -> String {
    format!("{n} tensor problem{}", if n == 1 { "" } else { "s" })
}

/// A checkpoint's headers, checked; its tensors are read by [`Checkpoint::load`].
#[derive(Debug)]
pub struct Checkpoint {
    /// The checked safetensors headers and the open files: one, or shards.
    pub file: shards::Tensors,
    /// The prefixes and layout its tensor names use.
    pub naming: names::Naming,
}

impl Checkpoint {
    /// Opens `path` (a `.safetensors` file, a `model.safetensors.index.json`
    /// or a folder holding one) and reads every header, refusing a corrupt
    /// or truncated file, a bad index or a missing shard before any tensor
    /// is read.
    ///
    /// # Errors
    /// [`WeightsError`] for an unreadable, corrupt or non-GPT, non-Llama file.
    pub fn open(path: &Path) -> Result<Self, WeightsError> {
        let file = shards::Tensors::open(path)?;
        let naming = names::Naming::detect(&file)?;
        Ok(Self { file, naming })
    }

    /// The file's label in messages (the index, for shards).
    #[must_use]
    pub fn path(&self) -> &str {
        &self.file.path
    }

    /// Refuses a model read from a config.json of `model_type` when the
    /// file's names are another family's.
    ///
    /// # Errors
    /// [`WeightsError::Family`] naming both.
    pub fn of_family(&self, model_type: &str) -> Result<(), WeightsError> {
        let layout = self.naming.layout;
        if layout.model_types().contains(&model_type) {
            return Ok(());
        }
        Err(WeightsError::Family {
            path: self.path().to_string(),
            family: layout.family(),
            model_type: model_type.to_string(),
            allowed: layout.model_types().join(", "),
        })
    }

    /// The model file of a run given `--weights` alone: the `config.json`
    /// beside the file or the index, if there is one; a GGUF file itself
    /// (its metadata declares the model).
    #[must_use]
    pub fn config_beside(&self) -> Option<&Path> {
        self.file.config.as_deref()
    }
}

/// Loaded parameters under the model's names, each a view of the mapped
/// file in the model's layout.
#[derive(Debug, Clone, Default)]
pub struct Weights {
    tensors: HashMap<String, Mapped>,
    /// The file's tensors that filled the model: their names, shapes and
    /// where each went ([`Expect`]), for writing the gradients back under
    /// them ([`grads::as_file`]).
    saved_as: Vec<names::Expect>,
    /// What the model reads that the file lacks, drawn from the seed
    /// under [`Fill::Seeded`]: the file's name and shape for each.
    seeded: Vec<String>,
    /// The file's tensors left unread as heads the trace does not reach
    /// (BERT's `cls.…`).
    heads_unread: Vec<String>,
}

impl Weights {
    /// The file's tensors that filled the model, as the file names them.
    #[must_use]
    pub fn saved_as(&self) -> &[names::Expect] {
        &self.saved_as
    }

    /// What the model reads that the file lacked, drawn from the seed
    /// (`--fill-missing seeded`), e.g. `embeddings.token_type_embeddings.weight (2,64)`.
    #[must_use]
    pub fn seeded(&self) -> &[String] {
        &self.seeded
    }

    /// The file's tensors left unread as heads the trace does not reach.
    #[must_use]
    pub fn heads_unread(&self) -> &[String] {
        &self.heads_unread
    }

    /// Every 16-bit tensor keeps its f32 values once widened
    /// ([`Mapped::keep_widened`]): for a run whose memory limit holds the
    /// whole model in f32.
    #[must_use]
    pub fn keep_widened(self) -> Self {
        let tensors = self
            .tensors
            .into_iter()
            .map(|(k, v)| (k, v.keep_widened()))
            .collect();
        Self { tensors, ..self }
    }

    /// Whether the parameter `name` (e.g. `wte`) was loaded.
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.tensors.contains_key(name)
    }

    /// The parameter `name`, if loaded with exactly `shape`.
    #[must_use]
    pub fn get(&self, name: &str, shape: &[usize]) -> Option<&Mapped> {
        self.tensors.get(name).filter(|t| t.shape() == shape)
    }

    /// How many parameters are loaded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tensors.len()
    }

    /// Whether nothing is loaded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tensors.is_empty()
    }

    /// Every loaded parameter's name and tensor, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Mapped)> {
        self.tensors.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl Checkpoint {
    /// Bytes the weights of `cfg` hold during a numeric run from this
    /// file, for the memory estimate, when the file holds 16-bit tensors;
    /// `None` for an F32 file, whose mapped tensors hold what seeded f32
    /// weights would, counted once ([`ModelConfig::numeric_bytes`]: the
    /// pages are the file's, never copied). Each tensor the model expects counts
    /// in the shape the model wants (so a file too small for the model
    /// does not shrink the estimate). The file is mapped: a tensor it holds
    /// counts once, as stored (a page read is resident, but never copied);
    /// one it lacks is seeded, 4 bytes a value. An F32 tensor is read in
    /// place; a 16-bit one is widened to f32 by each op that reads it, so
    /// add the widest block's weights in f32, or the widest single tensor
    /// (a tied head's wte), whichever is more. An f64 run converts every
    /// tensor: 8 bytes a value.
    #[must_use]
    pub fn held_bytes(&self, cfg: &ModelConfig) -> Option<u128> {
        let mut held = 0u128;
        let mut widened: HashMap<String, u128> = HashMap::new();
        let mut widest = 0u128;
        for e in self.naming.expected(cfg) {
            if matches!(e.target, Target::Embedding { .. }) && cfg.vocab.size.is_none() {
                continue;
            }
            let values = e.shape.iter().map(|&n| n as u128).product::<u128>();
            // How it is held once loaded (a GGUF tensor dequantised or
            // reordered at load is f32 of its own), read off the header.
            let stored = self.file.stored(&e.name).unwrap_or(mapped::Stored::F32);
            if cfg.dtype == crate::config::DType::F64 {
                held += 8 * values;
                continue;
            }
            held += stored.width() as u128 * values;
            if stored != mapped::Stored::F32 {
                let block = e.name.split('.').find_map(|s| s.parse::<usize>().ok());
                let key = block.map_or_else(|| e.name.clone(), |b| b.to_string());
                *widened.entry(key).or_default() += 4 * values;
                widest = widest.max(4 * values);
            }
        }
        let block = widened.values().copied().max()?;
        Some(held + block.max(widest))
    }

    /// Checks every tensor's name and shape against `cfg`, reading none:
    /// `read` is every parameter the model reads, by name and shape
    /// ([`crate::model::params_read`]); one the file lacks is refused,
    /// unless `fill` is [`Fill::Seeded`]. What the seed is to draw then,
    /// by the file's names.
    ///
    /// # Errors
    /// [`WeightsError::Unsupported`] for a config whose blocks the
    /// checkpoint cannot fill; [`WeightsError::Mismatch`] listing every
    /// missing, unknown or mis-shaped tensor.
    pub fn fits(
        &self,
        cfg: &ModelConfig,
        read: &[(String, Vec<usize>)],
        fill: Fill,
    ) -> Result<Vec<String>, WeightsError> {
        if let Some((what, allowed)) = names::unsupported(self.naming.layout, cfg) {
            return Err(WeightsError::Unsupported {
                path: self.path().to_string(),
                what,
                allowed,
            });
        }
        let fit = self.naming.fit(&self.file, cfg, read);
        let mut problems = fit.problems;
        let seeded = match fill {
            Fill::Seeded => fit.missing,
            Fill::Refuse => {
                let missing = fit.missing.iter().map(|m| format!("missing {m}"));
                problems = missing.chain(problems).collect();
                Vec::new()
            }
        };
        if !problems.is_empty() {
            let (layers, d) = self.blocks();
            let why = if (layers, d) == (cfg.layers, Some(cfg.d_model)) {
                String::new()
            } else {
                let d = d.map_or_else(|| "?".to_string(), |d| d.to_string());
                let from = match self.config_beside() {
                    Some(_) if self.file.gguf().is_some() => "from its metadata".to_string(),
                    Some(p) => format!(
                        "from {} beside it",
                        crate::text::shown(&crate::text::lossless(p.as_os_str()))
                    ),
                    None => "off the file".to_string(),
                };
                format!(
                    " (the file holds {layers} blocks of d_model {d}, the model {} of d_model {}; \
                     without --config and --preset the model is read {from})",
                    cfg.layers, cfg.d_model
                )
            };
            let only_missing = problems.iter().all(|p| p.starts_with("missing "));
            return Err(WeightsError::Mismatch {
                path: self.path().to_string(),
                why,
                count: problems.len(),
                list: crate::text::listed_by(&problems, "; "),
                hint: if only_missing { MISSING_HINT } else { "" },
            });
        }
        Ok(seeded)
    }

    /// Checks every tensor against `cfg` ([`Checkpoint::fits`]) and reads
    /// the weights.
    ///
    /// # Errors
    /// As [`Checkpoint::fits`]; [`WeightsError::Dtype`] for a dtype other
    /// than F32, F16 or BF16.
    pub fn load(
        &self,
        cfg: &ModelConfig,
        read: &[(String, Vec<usize>)],
        fill: Fill,
    ) -> Result<Weights, WeightsError> {
        let seeded = self.fits(cfg, read, fill)?;
        let heads_unread = self
            .file
            .tensors()
            .into_iter()
            .filter(|(n, _)| self.naming.unread(n) == Some(names::Unread::Head))
            .map(|(n, _)| n)
            .collect();
        let mut tensors = HashMap::new();
        let mut saved_as = Vec::new();
        let outside = |name: &str| WeightsError::Corrupt {
            path: self.path().to_string(),
            reason: format!(
                "{}: a slice outside the tensor",
                crate::text::one_line(name)
            ),
        };
        for e in self.naming.expected(cfg) {
            let embedding = matches!(e.target, Target::Embedding { .. });
            if (embedding && cfg.vocab.size.is_none()) || self.file.shape(&e.name).is_none() {
                continue;
            }
            let t = self.file.mapped(&e.name)?;
            saved_as.push(e.clone());
            match e.target {
                Target::Same(to) => {
                    tensors.insert(to, t);
                }
                Target::Transposed(to) => {
                    tensors.insert(to, t.transposed());
                }
                Target::Qkv {
                    prefix,
                    part,
                    d,
                    kv,
                    transposed,
                } => {
                    let t = if transposed { t.transposed() } else { t };
                    for (name, lo, hi) in [("q", 0, d), ("k", d, d + kv), ("v", d + kv, d + 2 * kv)]
                    {
                        let piece = t.columns(lo, hi).ok_or_else(|| outside(&e.name))?;
                        tensors.insert(format!("{prefix}.{name}_proj.{part}"), piece);
                    }
                }
                Target::Embedding { to, transposed } => {
                    let t = if transposed { t.transposed() } else { t };
                    tensors.insert(to.to_string(), t);
                }
            }
        }
        // A tied model runs wte as its head: a different head in the file
        // is refused, an equal one (nanoGPT saves both) dropped.
        if cfg.vocab.tied
            && let Some(head) = tensors.remove("lm_head.weight")
            && tensors
                .get("wte")
                .is_some_and(|wte| !head.clone().transposed().same_values(wte))
        {
            return Err(WeightsError::TiedHead {
                path: self.path().to_string(),
            });
        }
        Ok(Weights {
            tensors,
            saved_as,
            seeded,
            heads_unread,
        })
    }
}
