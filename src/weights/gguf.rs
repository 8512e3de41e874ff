//! GGUF files (llama.cpp's format, v2 and v3, little-endian) as
//! checkpoints and as model files.
//!
//! The header is read and checked first ([`read`]: bounded lengths and
//! counts, offsets inside the file and aligned, no two tensors
//! overlapping, byte sizes matching type × elements, no name twice, known
//! ggml types, 1 to 4 dims); then each tensor is offered under its Hugging
//! Face Llama name ([`names`]) in torch's shape (ggml lists `ne[0]` first: a
//! torch [out, in] matrix is stored with dims [in, out]), so the Llama
//! naming reads a GGUF file unchanged. The model comes from the metadata
//! ([`config`]).
//!
//! ```text
//! F32, F16, BF16     a view of the mapping, as a safetensors tensor is
//! Q8_0               dequantised to f32 at load (d · q per block of 32)
//! llama attn_q/k     rows put back in the model's order (names::unpermute),
//!                    so read into f32 values of their own at load
//! any other type     shapes only: a run needing numbers is refused naming it
//! ```

pub mod config;
pub mod names;
pub mod read;
mod run;
pub mod types;

use crate::ops::mapped::{Mapped, Stored};
use memmap2::Mmap;
use read::{Info, Parsed, Value};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use types::GgmlType;

/// A GGUF file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GgufError {
    /// The file is not a well-formed GGUF file.
    #[error("{} is not a valid GGUF file: {reason}", crate::text::shown(.path))]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong, naming the bad value and what is allowed.
        reason: String,
    },
    /// A tensor of a type no numeric run reads, in a run that needs numbers.
    #[error(
        "{}: tensor {} is {ty}, which a numeric run cannot read; allowed for --tokens, --input, --output, --numeric, check and probes: {}; without them the file traces shapes only",
        crate::text::shown(.path),
        crate::text::shown(.name),
        types::NUMERIC
    )]
    Quantized {
        /// The file.
        path: String,
        /// The tensor as the file names it, e.g. `blk.0.attn_q.weight`.
        name: String,
        /// Its ggml type, e.g. `Q4_K`.
        ty: &'static str,
    },
    /// The metadata lacks a key the model needs.
    #[error("{}: missing metadata key {key} (needed for the model's config)", crate::text::shown(.path))]
    Missing {
        /// The file.
        path: String,
        /// The key, e.g. `llama.block_count`.
        key: String,
    },
    /// A metadata value the model cannot take.
    #[error("{}: metadata key {key} is {}; allowed: {allowed}", crate::text::shown(.path), crate::text::shown(.got))]
    Bad {
        /// The file.
        path: String,
        /// The key, e.g. `general.architecture`.
        key: String,
        /// Its value.
        got: String,
        /// What it may hold.
        allowed: String,
    },
    /// The config.json the metadata amounts to was refused: its message.
    #[error("{0}")]
    Hf(String),
}

/// Whether `path` is a regular file starting with the magic `GGUF`, or
/// one named `*.gguf` (whose wrong magic is then refused as a GGUF file's).
#[must_use]
pub fn is_gguf(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gguf"))
    {
        return true;
    }
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"GGUF"
}

/// A checked GGUF file, mapped, its tensors under Hugging Face names.
#[derive(Debug)]
pub struct Gguf {
    /// The path, for messages.
    pub path: String,
    map: Arc<Mmap>,
    /// The checked header.
    pub parsed: Parsed,
    /// Hugging Face name → index in `parsed.infos` and torch shape.
    by_name: BTreeMap<String, (usize, Vec<usize>)>,
    /// (q heads, k heads) whose rows the converter reordered: a llama file.
    heads: Option<(usize, usize)>,
}

impl Gguf {
    /// Opens and checks `path`.
    ///
    /// # Errors
    /// [`GgufError::Corrupt`] naming the bad value, or one of an
    /// unreadable file (as [`super::WeightsError::Read`] reads).
    pub fn open(path: &Path) -> Result<Self, super::WeightsError> {
        let label = crate::text::lossless(path.as_os_str());
        let read_err = |e: std::io::Error| super::WeightsError::Read {
            path: label.clone(),
            reason: e.to_string(),
        };
        let corrupt = |reason: String| GgufError::Corrupt {
            path: label.clone(),
            reason,
        };
        let (file, size) =
            crate::files::open_seekable(path, crate::files::MAX_PIPED).map_err(read_err)?;
        if size < 24 {
            return Err(corrupt(format!(
                "{size} bytes, shorter than the 24-byte header (magic, version, counts)"
            ))
            .into());
        }
        let map = super::file::map(&file).map_err(read_err)?;
        let parsed = read::parse(&map).map_err(corrupt)?;
        let heads = heads(&parsed).map_err(corrupt)?;
        let mut by_name = BTreeMap::new();
        for (i, info) in parsed.infos.iter().enumerate() {
            let hf = names::hf_name(&info.name);
            let shape: Option<Vec<usize>> = info
                .dims
                .iter()
                .rev()
                .map(|&d| usize::try_from(d).ok())
                .collect();
            let shape = shape.ok_or_else(|| corrupt(format!("{} is too large", info.name)))?;
            if let (Some((q, k)), Some(is_q)) = (heads, names::permuted(&info.name)) {
                let rows = shape[0];
                let h = if is_q { q } else { k };
                if h == 0 || rows % (2 * h) != 0 {
                    return Err(corrupt(format!(
                        "tensor {} has {rows} rows; allowed: a multiple of 2 × its {h} heads",
                        crate::text::shown(&info.name)
                    ))
                    .into());
                }
            }
            if let Some((j, _)) = by_name.insert(hf.clone(), (i, shape)) {
                return Err(corrupt(format!(
                    "tensors {} and {} are both {}",
                    crate::text::shown(&parsed.infos[j].name),
                    crate::text::shown(&info.name),
                    crate::text::shown(&hf)
                ))
                .into());
            }
        }
        Ok(Self {
            path: label,
            map: Arc::new(map),
            parsed,
            by_name,
            heads,
        })
    }

    fn info(&self, name: &str) -> Option<(&Info, &[usize])> {
        let (i, shape) = self.by_name.get(name)?;
        Some((self.parsed.infos.get(*i)?, shape))
    }

    /// The torch shape of tensor `name` (a Hugging Face name), if present.
    #[must_use]
    pub fn shape(&self, name: &str) -> Option<&[usize]> {
        self.info(name).map(|(_, s)| s)
    }

    /// Every tensor's Hugging Face name and torch shape, in file order.
    #[must_use]
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        let mut all: Vec<(usize, String, Vec<usize>)> = self
            .by_name
            .iter()
            .map(|(k, (i, s))| (*i, k.clone(), s.clone()))
            .collect();
        all.sort_unstable_by_key(|t| t.0);
        all.into_iter().map(|(_, k, s)| (k, s)).collect()
    }

    /// How tensor `name` is held once loaded: F16 and BF16 as stored,
    /// anything dequantised or reordered as f32; `None` when absent or of
    /// a type no numeric run reads.
    #[must_use]
    pub fn stored(&self, name: &str) -> Option<Stored> {
        let (info, _) = self.info(name)?;
        let reordered = self.heads.is_some() && names::permuted(&info.name).is_some();
        match info.ty {
            types::F16 if !reordered => Some(Stored::F16),
            types::BF16 if !reordered => Some(Stored::BF16),
            t if t.numeric() => Some(Stored::F32),
            _ => None,
        }
    }

    /// The first tensor (in file order) of a type no numeric run reads.
    #[must_use]
    pub fn unreadable(&self) -> Option<GgufError> {
        let info = self.parsed.infos.iter().find(|i| !i.ty.numeric())?;
        Some(GgufError::Quantized {
            path: self.path.clone(),
            name: info.name.clone(),
            ty: info.ty.name(),
        })
    }

    /// Tensor `name` for the model: a view of the mapping, or f32 values
    /// of its own when dequantised or reordered (see the module's table).
    ///
    /// # Errors
    /// [`GgufError::Quantized`] for a type no numeric run reads, or
    /// [`GgufError::Corrupt`] when it is absent.
    pub fn mapped(&self, name: &str) -> Result<Mapped, GgufError> {
        let corrupt = |reason: String| GgufError::Corrupt {
            path: self.path.clone(),
            reason,
        };
        let (info, shape) = self
            .info(name)
            .ok_or_else(|| corrupt(format!("no tensor {}", crate::text::one_line(name))))?;
        let start = self
            .parsed
            .data_start
            .checked_add(info.offset)
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(|| corrupt(format!("{}: data outside the file", info.name)))?;
        let outside = || corrupt(format!("{}: data outside the file", info.name));
        let plain = match info.ty {
            types::F32 => Some(Stored::F32),
            types::F16 => Some(Stored::F16),
            types::BF16 => Some(Stored::BF16),
            _ => None,
        };
        let reorder = self
            .heads
            .zip(names::permuted(&info.name))
            .map(|((q, k), is_q)| if is_q { q } else { k });
        let values = match (plain, info.ty) {
            (Some(dtype), _) => {
                let m =
                    Mapped::new(Arc::clone(&self.map), start, dtype, shape).ok_or_else(outside)?;
                if reorder.is_none() {
                    return Ok(m);
                }
                m.widen().into_raw_vec_and_offset().0
            }
            (None, types::Q8_0) => {
                let end = usize::try_from(info.bytes)
                    .ok()
                    .and_then(|b| b.checked_add(start))
                    .filter(|&e| e <= self.map.len())
                    .ok_or_else(outside)?;
                types::dequantise_q8_0(&self.map[start..end])
            }
            (None, ty) => {
                return Err(GgufError::Quantized {
                    path: self.path.clone(),
                    name: info.name.clone(),
                    ty: ty.name(),
                });
            }
        };
        // Rows are torch's first axis: the last ggml dim's count of ne[0]-wide rows.
        let width = shape.get(1..).map_or(1, |r| r.iter().product::<usize>());
        let values = match reorder {
            Some(heads) => names::unpermute(&values, width, heads),
            None => values,
        };
        Mapped::owned(values, shape).ok_or_else(outside)
    }

    /// Bytes as stored, per ggml type: (type, weights, bytes), in type order.
    #[must_use]
    pub fn storage(&self) -> Vec<(GgmlType, u64, u64)> {
        let mut by: BTreeMap<GgmlType, (u64, u64)> = BTreeMap::new();
        for i in &self.parsed.infos {
            let n = i.dims.iter().product::<u64>();
            let e = by.entry(i.ty).or_default();
            e.0 = e.0.saturating_add(n);
            e.1 = e.1.saturating_add(i.bytes);
        }
        by.into_iter().map(|(t, (n, b))| (t, n, b)).collect()
    }

    /// The model its metadata declares, as a model file would give it.
    ///
    /// # Errors
    /// [`GgufError`] naming the missing or bad key.
    pub fn overlay(&self, file_name: &str) -> Result<crate::Overlay, GgufError> {
        config::overlay(&self.parsed, &self.path, file_name)
    }
}

/// A llama file's (q, k) head counts, whose rows its converter reordered;
/// `None` for any other architecture.
fn heads(p: &Parsed) -> Result<Option<(usize, usize)>, String> {
    if p.meta.get("general.architecture") != Some(&Value::Str("llama".into())) {
        return Ok(None);
    }
    let count = |key: &str| match p.meta.get(key) {
        Some(Value::Int(n)) if *n > 0 && *n < 1 << 20 => Ok(usize::try_from(*n).ok()),
        None => Ok(None),
        Some(v) => Err(format!(
            "{key} is {v}; allowed: a count from 1 to {}",
            (1 << 20) - 1
        )),
    };
    let q = count("llama.attention.head_count")?
        .ok_or("a llama file without llama.attention.head_count (its q and k rows cannot be put back in order)")?;
    let k = count("llama.attention.head_count_kv")?.unwrap_or(q);
    Ok(Some((q, k)))
}
