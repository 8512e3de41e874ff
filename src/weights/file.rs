//! The safetensors file: an 8-byte little-endian header length, a JSON
//! header, then the tensor bytes.
//!
//! The header length is checked against [`MAX_HEADER`] and the file size
//! before the header is read; a tensor named twice is refused; the header
//! is parsed and its offsets checked by the `safetensors` crate's
//! [`Metadata`]; the data must end exactly at
//! the end of the file. Each tensor is then read on its own, so memory
//! never exceeds what the header declares and the file holds.

use super::WeightsError;
use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use safetensors::Dtype;
use safetensors::tensor::Metadata;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Largest header accepted, as the safetensors format itself limits it.
pub const MAX_HEADER: u64 = 100_000_000;

/// A checked header and the open file.
#[derive(Debug)]
pub struct Header {
    /// The path, for messages.
    pub path: String,
    file: std::fs::File,
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
        Ok(Self {
            path: label,
            file,
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

    /// Reads tensor `name` as f32 (from F32, F16 or BF16).
    ///
    /// # Errors
    /// [`WeightsError`] when it is absent, of another dtype, or unreadable.
    pub fn read(&self, name: &str) -> Result<ArrayD<f32>, WeightsError> {
        let corrupt = |reason: String| WeightsError::Corrupt {
            path: self.path.clone(),
            reason,
        };
        let info = self
            .meta
            .info(name)
            .ok_or_else(|| corrupt(format!("no tensor {name}")))?;
        let convert: fn(&[u8]) -> f32 = match info.dtype {
            Dtype::F32 => |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            Dtype::F16 => |b| f16::from_le_bytes([b[0], b[1]]).to_f32(),
            Dtype::BF16 => |b| bf16::from_le_bytes([b[0], b[1]]).to_f32(),
            other => {
                return Err(WeightsError::Dtype {
                    path: self.path.clone(),
                    name: name.to_string(),
                    dtype: format!("{other:?}"),
                });
            }
        };
        let (start, end) = info.data_offsets;
        let mut bytes = vec![0u8; end - start];
        let mut f = &self.file;
        f.seek(SeekFrom::Start(self.data_start + start as u64))
            .and_then(|_| f.read_exact(&mut bytes))
            .map_err(|e| corrupt(format!("cannot read {name}: {e}")))?;
        let width = info.dtype.bitsize() / 8;
        let values: Vec<f32> = bytes.chunks_exact(width).map(convert).collect();
        ArrayD::from_shape_vec(IxDyn(&info.shape), values)
            .map_err(|e| corrupt(format!("{name}: {e}")))
    }
}
