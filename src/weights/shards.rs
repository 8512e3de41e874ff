//! Where a checkpoint's tensors live: one `.safetensors` file, the
//! shards a Hugging Face `model.safetensors.index.json` names beside it,
//! or one GGUF file ([`super::gguf`], told by its magic `GGUF`, whatever
//! its name).
//!
//! `--weights` may name any of these files, or a folder holding `model.safetensors`
//! (taken first, as transformers does) or `model.safetensors.index.json`.
//!
//! ```text
//! model.safetensors.index.json   {"metadata": {…}, "weight_map": {tensor: shard, …}}
//! model-00001-of-00002.safetensors, model-00002-of-00002.safetensors   beside it
//! ```
//!
//! Every shard's header is read and checked, and every tensor the index
//! maps is found in the shard it names, before any tensor is read.

use super::WeightsError;
use super::file::Header;
use super::gguf::Gguf;
use crate::ops::mapped::{Mapped, Stored};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The single file a folder may hold.
pub const SINGLE: &str = "model.safetensors";
/// The index a folder of shards holds.
pub const INDEX: &str = "model.safetensors.index.json";
/// The Hugging Face config a checkpoint's folder may hold.
pub const CONFIG: &str = "config.json";
/// Largest index read (a 400B model's is under 1 MB).
pub const MAX_INDEX: u64 = 16 << 20;

/// A checkpoint's tensors: one file, or shards under an index.
#[derive(Debug)]
pub struct Tensors {
    /// The checkpoint in messages: the file, or the index.
    pub path: String,
    /// The `config.json` beside the file or the index, if one is there.
    pub config: Option<PathBuf>,
    /// One header per file: the single file, or each shard once.
    files: Vec<Header>,
    /// For shards: each tensor the index maps, and which of `files` holds
    /// it. `None` for a single file.
    map: Option<BTreeMap<String, usize>>,
    /// A GGUF file, in place of `files`.
    gguf: Option<Gguf>,
}

impl Tensors {
    /// Opens what `path` names: a folder, an index (a name ending in
    /// `.json`) or a single `.safetensors` file, checking every header.
    ///
    /// # Errors
    /// [`WeightsError`] for an unreadable or corrupt file, a folder with no
    /// checkpoint, or a bad index, a missing shard or a shard that lacks a
    /// tensor the index maps to it.
    pub fn open(path: &Path) -> Result<Self, WeightsError> {
        if path.is_dir() {
            let (single, index) = (path.join(SINGLE), path.join(INDEX));
            return if single.is_file() {
                Self::single(&single)
            } else if index.is_file() {
                Self::sharded(&index)
            } else {
                Err(WeightsError::NoCheckpoint {
                    dir: crate::text::lossless(path.as_os_str()),
                })
            };
        }
        let is_index = path
            .file_name()
            .is_some_and(|n| n.as_encoded_bytes().ends_with(b".json"));
        if super::gguf::is_gguf(path) {
            let g = Gguf::open(path)?;
            // Its metadata is its model file: it is its own config.
            Ok(Self {
                path: g.path.clone(),
                config: Some(path.to_path_buf()),
                files: vec![],
                map: None,
                gguf: Some(g),
            })
        } else if is_index {
            Self::sharded(path)
        } else {
            Self::single(path)
        }
    }

    /// One `.safetensors` file.
    fn single(path: &Path) -> Result<Self, WeightsError> {
        let h = Header::open(path)?;
        Ok(Self {
            path: h.path.clone(),
            config: beside(path),
            files: vec![h],
            map: None,
            gguf: None,
        })
    }

    /// The shards an index names, each header checked.
    fn sharded(path: &Path) -> Result<Self, WeightsError> {
        let label = crate::text::lossless(path.as_os_str());
        let weight_map = read_index(path, &label)?;
        let dir = path.parent().unwrap_or(Path::new(""));
        // Each shard once, in the order the index first names it.
        let mut names: Vec<&str> = Vec::new();
        let mut map = BTreeMap::new();
        for (tensor, shard) in &weight_map {
            let i = names.iter().position(|n| n == shard).unwrap_or_else(|| {
                names.push(shard);
                names.len() - 1
            });
            map.insert(tensor.clone(), i);
        }
        let mut files = Vec::with_capacity(names.len());
        for shard in &names {
            let h = Header::open(&dir.join(shard)).map_err(|e| match e {
                WeightsError::Read { reason, .. } => WeightsError::Shard {
                    index: label.clone(),
                    shard: (*shard).to_string(),
                    reason,
                },
                other => other,
            })?;
            files.push(h);
        }
        let lacking: Vec<(&String, usize)> = map
            .iter()
            .filter(|(t, i)| files[**i].shape(t).is_none())
            .map(|(t, i)| (t, *i))
            .collect();
        if let Some(&(tensor, i)) = lacking.first() {
            return Err(WeightsError::ShardLacks {
                index: label,
                tensor: tensor.clone(),
                shard: names[i].to_string(),
                more: lacking.len() - 1,
            });
        }
        Ok(Self {
            path: label,
            config: beside(path),
            files,
            map: Some(map),
            gguf: None,
        })
    }

    /// The header holding tensor `name`, if any.
    fn holder(&self, name: &str) -> Option<&Header> {
        match &self.map {
            None => self.files.first(),
            Some(m) => m.get(name).and_then(|&i| self.files.get(i)),
        }
    }

    /// The GGUF file, when the checkpoint is one.
    #[must_use]
    pub fn gguf(&self) -> Option<&Gguf> {
        self.gguf.as_ref()
    }

    /// Tensor `name` as the file itself names it, for messages: a GGUF
    /// file's own name (`output_norm.weight` for `model.norm.weight`), any
    /// other's as it is.
    #[must_use]
    pub fn own_name(&self, name: &str) -> String {
        match &self.gguf {
            Some(_) => super::gguf::names::gguf_name(name),
            None => name.to_string(),
        }
    }

    /// The shape of tensor `name`, if present.
    #[must_use]
    pub fn shape(&self, name: &str) -> Option<&[usize]> {
        if let Some(g) = &self.gguf {
            return g.shape(name);
        }
        self.holder(name)?.shape(name)
    }

    /// How tensor `name` is held once loaded, read off the header alone;
    /// `None` when absent or of a type no numeric run reads.
    #[must_use]
    pub fn stored(&self, name: &str) -> Option<Stored> {
        if let Some(g) = &self.gguf {
            return g.stored(name);
        }
        self.holder(name)?.stored(name)
    }

    /// Every tensor's name and shape: in file order for a single file, in
    /// name order for shards (only the tensors the index maps).
    #[must_use]
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        if let Some(g) = &self.gguf {
            return g.tensors();
        }
        match &self.map {
            None => self.files.first().map(Header::tensors).unwrap_or_default(),
            Some(m) => m
                .keys()
                .filter_map(|k| Some((k.clone(), self.shape(k)?.to_vec())))
                .collect(),
        }
    }

    /// Tensor `name` where it lies in its file's mapping (F32, F16 or
    /// BF16), or, from a GGUF file, f32 values of its own when dequantised
    /// or reordered.
    ///
    /// # Errors
    /// [`WeightsError`] when it is absent or of another dtype.
    pub fn mapped(&self, name: &str) -> Result<Mapped, WeightsError> {
        if let Some(g) = &self.gguf {
            return Ok(g.mapped(name)?);
        }
        match self.holder(name) {
            Some(h) => h.mapped(name),
            None => Err(WeightsError::Corrupt {
                path: self.path.clone(),
                reason: format!("no tensor {}", crate::text::one_line(name)),
            }),
        }
    }
}

/// Most entries of a checkpoint folder that [`inputs`] lists.
const MAX_FOLDER_ENTRIES: usize = 100_000;

/// Every file `--weights path` reads or may read, for the clash check that
/// keeps an output off its inputs: for a folder, its checkpoint, index,
/// the index's shards and `config.json` by name, and each other file in
/// it (the first 100,000 its listing gives); for an index, it, the
/// shards it names and the `config.json` beside it; for one file, it and the `config.json` beside it. An index
/// that cannot be read adds no shards: the run refuses it before writing.
#[must_use]
pub fn inputs(path: &Path) -> Vec<PathBuf> {
    if path.as_os_str() == crate::files::STDIN {
        return vec![];
    }
    if path.is_dir() {
        // What the run reads, named whatever the listing holds; then the
        // rest of the folder, as far as the listing is read.
        let mut all = vec![path.join(SINGLE)];
        all.extend(inputs(&path.join(INDEX)));
        all.extend(
            std::fs::read_dir(path)
                .into_iter()
                .flatten()
                .take(MAX_FOLDER_ENTRIES)
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| !p.is_dir()),
        );
        return all;
    }
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut all = vec![path.to_path_buf(), dir.join(CONFIG)];
    let is_index = path
        .file_name()
        .is_some_and(|n| n.as_encoded_bytes().ends_with(b".json"));
    if is_index && let Ok(map) = read_index(path, "") {
        let mut shards: Vec<&String> = map.values().collect();
        shards.sort_unstable();
        shards.dedup();
        all.extend(shards.into_iter().map(|s| dir.join(s)));
    }
    all
}

/// The `config.json` in the folder of `path`, if it is a file there; none
/// for standard input.
fn beside(path: &Path) -> Option<PathBuf> {
    if path.as_os_str() == crate::files::STDIN {
        return None;
    }
    let config = path.parent().unwrap_or(Path::new("")).join(CONFIG);
    config.is_file().then_some(config)
}

/// The index's `weight_map`: tensor name → shard file name, each shard a
/// plain file name (beside the index).
///
/// # Errors
/// [`WeightsError::Read`] or [`WeightsError::Index`] naming the bad value.
fn read_index(path: &Path, label: &str) -> Result<BTreeMap<String, String>, WeightsError> {
    let read = |e: std::io::Error| WeightsError::Read {
        path: label.to_string(),
        reason: e.to_string(),
    };
    let bad = |reason: String| WeightsError::Index {
        path: label.to_string(),
        reason,
    };
    let text = crate::files::open(path)
        .and_then(|f| f.read_capped(MAX_INDEX))
        .map_err(read)?;
    if let Some(dup) = crate::json::duplicate_key(&text) {
        return Err(bad(dup.to_string()));
    }
    let value: serde_json::Value = serde_json::from_slice(&text).map_err(|e| {
        bad(format!(
            "not JSON: {}",
            crate::text::one_line(&e.to_string())
        ))
    })?;
    let map = match value.get("weight_map") {
        Some(serde_json::Value::Object(m)) if !m.is_empty() => m,
        Some(v) => {
            return Err(bad(format!(
                "weight_map is {}",
                match v {
                    serde_json::Value::Object(_) => "empty",
                    v => crate::json::kind(v),
                }
            )));
        }
        None if value.is_object() => return Err(bad("it has no weight_map".into())),
        None => return Err(bad(format!("it is {}", crate::json::kind(&value)))),
    };
    let mut out = BTreeMap::new();
    for (tensor, shard) in map {
        let Some(shard) = shard.as_str() else {
            return Err(bad(format!(
                "weight_map maps {} to {}",
                crate::text::one_line(tensor),
                crate::json::kind(shard)
            )));
        };
        let plain = Path::new(shard)
            .file_name()
            .map(std::ffi::OsStr::as_encoded_bytes)
            == Some(shard.as_bytes());
        if !plain || shard.contains('/') {
            return Err(bad(format!(
                "weight_map maps {} to '{}', not a file name beside the index",
                crate::text::one_line(tensor),
                crate::text::shown(shard)
            )));
        }
        out.insert(tensor.clone(), shard.to_string());
    }
    Ok(out)
}
