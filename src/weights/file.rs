//! The safetensors file: an 8-byte little-endian header length, a JSON
//! header, then the tensor bytes.
//!
//! The header length is checked against [`MAX_HEADER`] and the file size
//! before the header is read; a tensor named twice is refused; the header
//! is parsed and its offsets checked by the `safetensors` crate's
//! [`Metadata`]; the data must end exactly at
//! the end of the file. Only then is the file mapped (read-only, private;
//! see [`super::mapped`] for the stance on files changed under a run), and
//! each tensor is read where it lies.

use super::WeightsError;
use crate::ops::mapped::{Mapped, Stored};
use memmap2::{Mmap, MmapOptions};
use safetensors::Dtype;
use safetensors::tensor::Metadata;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// Largest header accepted, as the safetensors format itself limits it.
pub const MAX_HEADER: u64 = 100_000_000;

/// A checked header and the file, mapped.
#[derive(Debug)]
pub struct Header {
    /// The path, for messages.
    pub path: String,
    map: Arc<Mmap>,
    data_start: u64,
    /// Every tensor's dtype, shape and byte range, as the header declares.
    pub meta: Metadata,
}

impl Header {
    /// Opens `path` and checks its header.
    ///
    /// # Errors
    /// [`WeightsError::Read`] or [`WeightsError::Corrupt`].
    pub fn open(path: &Path) -> Result<Self, WeightsError> {
        let label = crate::text::lossless(path.as_os_str());
        let read_err = |e: std::io::Error| WeightsError::Read {
            path: label.clone(),
            reason: e.to_string(),
        };
        let corrupt = |reason: String| WeightsError::Corrupt {
            path: label.clone(),
            reason,
        };
        // A piped checkpoint is read into memory (bounded), to seek in.
        let (mut file, size) =
            crate::files::open_seekable(path, crate::files::MAX_PIPED).map_err(read_err)?;
        let mut len = [0u8; 8];
        file.read_exact(&mut len).map_err(|_| {
            corrupt(format!(
                "{size} bytes, shorter than the 8-byte header length"
            ))
        })?;
        let n = u64::from_le_bytes(len);
        if n > size.saturating_sub(8) {
            return Err(corrupt(format!(
                "its first 8 bytes give a header of {n} bytes, but the file has {size} \
                 (not a safetensors file, or cut short)"
            )));
        }
        if n > MAX_HEADER {
            return Err(corrupt(format!(
                "its header of {n} bytes is over the {MAX_HEADER}-byte limit"
            )));
        }
        let mut text = vec![0u8; usize::try_from(n).unwrap_or(0)];
        file.read_exact(&mut text).map_err(read_err)?;
        // `Metadata` keeps the last of two tensors of one name; refuse them.
        if let Some(dup) = crate::json::duplicate_key(&text) {
            return Err(corrupt(format!("its header names a tensor twice: {dup}")));
        }
        let meta: Metadata = serde_json::from_slice(&text).map_err(|e| {
            corrupt(format!(
                "bad header: {}",
                crate::text::one_line(&e.to_string())
            ))
        })?;
        let data_start = 8 + n;
        let data = meta.data_len() as u64;
        if data_start + data != size {
            return Err(corrupt(format!(
                "the header declares {data} data bytes, the file holds {} (truncated or padded)",
                size.saturating_sub(data_start)
            )));
        }
        let map = map(&file).map_err(read_err)?;
        if map.len() as u64 != size {
            return Err(corrupt(format!(
                "it changed while being opened ({size} bytes, then {})",
                map.len()
            )));
        }
        Ok(Self {
            path: label,
            map: Arc::new(map),
            data_start,
            meta,
        })
    }

    /// The shape of tensor `name`, if present.
    #[must_use]
    pub fn shape(&self, name: &str) -> Option<&[usize]> {
        self.meta.info(name).map(|i| i.shape.as_slice())
    }

    /// Every tensor's name and shape, in file order.
    #[must_use]
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        self.meta
            .offset_keys()
            .into_iter()
            .filter_map(|k| {
                let shape = self.meta.info(&k)?.shape.clone();
                Some((k, shape))
            })
            .collect()
    }

    /// How tensor `name` is stored, if present and F32, F16 or BF16.
    #[must_use]
    pub fn stored(&self, name: &str) -> Option<Stored> {
        match self.meta.info(name)?.dtype {
            Dtype::F32 => Some(Stored::F32),
            Dtype::F16 => Some(Stored::F16),
            Dtype::BF16 => Some(Stored::BF16),
            _ => None,
        }
    }

    /// Tensor `name` where it lies in the mapping, as stored.
    ///
    /// # Errors
    /// [`WeightsError`] when it is absent or of a dtype other than F32,
    /// F16 or BF16.
    pub fn mapped(&self, name: &str) -> Result<Mapped, WeightsError> {
        let corrupt = |reason: String| WeightsError::Corrupt {
            path: self.path.clone(),
            reason,
        };
        let info = self
            .meta
            .info(name)
            .ok_or_else(|| corrupt(format!("no tensor {}", crate::text::one_line(name))))?;
        let dtype = match info.dtype {
            Dtype::F32 => Stored::F32,
            Dtype::F16 => Stored::F16,
            Dtype::BF16 => Stored::BF16,
            other => {
                return Err(WeightsError::Dtype {
                    path: self.path.clone(),
                    name: name.to_string(),
                    dtype: format!("{other:?}"),
                });
            }
        };
        // The header's offsets were checked against the file's length.
        let start = usize::try_from(self.data_start)
            .ok()
            .and_then(|d| d.checked_add(info.data_offsets.0));
        start
            .and_then(|s| Mapped::new(Arc::clone(&self.map), s, dtype, &info.shape))
            .ok_or_else(|| {
                corrupt(format!(
                    "{}: data outside the file",
                    crate::text::one_line(name)
                ))
            })
    }
}

/// Maps `file` read-only and private.
pub(crate) fn map(file: &std::fs::File) -> std::io::Result<Mmap> {
    #[allow(unsafe_code)]
    // SAFETY: memmap2 cannot promise that the bytes behind a mapping stay
    // put: that is up to whoever else may write the file. This process
    // never writes it, maps it read-only and private, and reads it only
    // through shared slices, so it is sound as long as the checkpoint is
    // not rewritten or truncated during the run: the stance every mapped
    // reader takes (PyTorch's `mmap=True`, safetensors' `safe_open`,
    // llama.cpp), stated in `super::mapped` and the README.
    unsafe {
        MmapOptions::new().map_copy_read_only(file)
    }
}
