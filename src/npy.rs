//! NumPy `.npy` files of f32, little-endian, C order: the input x0
//! (`--input`) and the model's output (`--output`).
//!
//! ```text
//! \x93NUMPY  major minor  header length (u16 for 1.0, u32 for 2.0/3.0)
//! {'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 64), }   padded to 64 bytes
//! the values, row-major
//! ```
//!
//! Versions 1.0, 2.0 and 3.0 are read, and the header must be the plain
//! dict literal above (see `npy/header.rs`). The header is bounded by
//! [`MAX_HEADER`], and the data must be exactly as long as the shape says,
//! checked against the file size before reading.

mod header;

use ndarray::{ArrayD, IxDyn};
use std::io::{Read, Write};
use std::path::Path;

/// Largest header accepted.
pub const MAX_HEADER: u64 = 65_536;

/// An `.npy` file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NpyError {
    /// The file could not be opened, read or written.
    #[error("cannot read {}: {reason}", crate::text::shown(.path))]
    Read {
        /// The `.npy` file.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// The file is not a well-formed `.npy` (bad magic, header or length).
    #[error(
        "{} is not a valid .npy file: {reason}; allowed: a float32 .npy of shape (B, T, d_model)",
        crate::text::shown(.path)
    )]
    Corrupt {
        /// The `.npy` file.
        path: String,
        /// What is wrong, e.g. `shorter than the magic string`.
        reason: String,
    },
    /// The array is not float32 little-endian.
    #[error("{} holds dtype '{}'; allowed: '<f4' (float32, little-endian)", crate::text::shown(.path), crate::text::shown(.descr))]
    Dtype {
        /// The `.npy` file.
        path: String,
        /// The header's `descr`, e.g. `<f8`.
        descr: String,
    },
    /// The array is stored column-major.
    #[error("{} is in Fortran order; allowed: C order (numpy.ascontiguousarray)", crate::text::shown(.path))]
    Fortran {
        /// The `.npy` file.
        path: String,
    },
}

/// Reads an f32 array from `path`.
///
/// # Errors
/// [`NpyError`] for an unreadable, corrupt, non-f32 or Fortran-order file.
pub fn read(path: &Path) -> Result<ArrayD<f32>, NpyError> {
    Npy::open(path)?.read()
}

/// An `.npy` file whose header is read and checked, its values not yet:
/// the shape is known before anything large is read.
#[derive(Debug)]
pub struct Npy {
    label: String,
    file: std::fs::File,
    shape: Vec<usize>,
}

impl Npy {
    /// Opens `path` and reads its header.
    ///
    /// # Errors
    /// [`NpyError`] for an unreadable, corrupt, non-f32 or Fortran-order
    /// file, or one whose length does not match its shape.
    pub fn open(path: &Path) -> Result<Self, NpyError> {
        let label = crate::text::lossless(path.as_os_str());
        let corrupt = |reason: &str| NpyError::Corrupt {
            path: label.clone(),
            reason: crate::text::one_line(reason),
        };
        let io = |e: std::io::Error| NpyError::Read {
            path: label.clone(),
            reason: e.to_string(),
        };
        // A piped array is read into memory (bounded), like a checkpoint.
        let (mut f, size) =
            crate::files::open_seekable(path, crate::files::MAX_PIPED).map_err(io)?;
        let mut magic = [0u8; 8];
        f.read_exact(&mut magic)
            .map_err(|_| corrupt("shorter than the magic string"))?;
        if &magic[..6] != b"\x93NUMPY" {
            return Err(corrupt("no \\x93NUMPY magic string"));
        }
        let len_bytes = header::length_bytes(magic[6], magic[7]).map_err(|e| corrupt(&e))?;
        let mut len = [0u8; 4];
        f.read_exact(&mut len[..len_bytes])
            .map_err(|_| corrupt("truncated header length"))?;
        let n = u64::from(u32::from_le_bytes(len));
        let start = 8 + len_bytes as u64 + n;
        if n > MAX_HEADER || start > size {
            return Err(corrupt("header length beyond the file or over 64 KiB"));
        }
        let mut header = vec![0u8; usize::try_from(n).unwrap_or(0)];
        f.read_exact(&mut header).map_err(io)?;
        let header = String::from_utf8_lossy(&header);
        let header::Header {
            descr,
            fortran_order,
            shape,
        } = header::parse(&header).map_err(|e| corrupt(&e))?;
        if descr != "<f4" {
            return Err(NpyError::Dtype { path: label, descr });
        }
        if fortran_order {
            return Err(NpyError::Fortran { path: label });
        }
        let count = shape
            .iter()
            .try_fold(1u64, |a, &n| a.checked_mul(n as u64))
            .and_then(|n| n.checked_mul(4));
        if count != Some(size - start) {
            return Err(corrupt(&format!(
                "shape {} needs {} data bytes, the file holds {}",
                crate::ops::fmt_shape(&shape),
                count.map_or_else(|| "too many".to_string(), |c| c.to_string()),
                size - start
            )));
        }
        Ok(Self {
            label,
            file: f,
            shape,
        })
    }

    /// The array's shape, from the header.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Reads the values.
    ///
    /// # Errors
    /// [`NpyError::Read`] when the file cannot be read to its end.
    pub fn read(mut self) -> Result<ArrayD<f32>, NpyError> {
        let mut bytes = Vec::new();
        self.file
            .read_to_end(&mut bytes)
            .map_err(|e| NpyError::Read {
                path: self.label.clone(),
                reason: e.to_string(),
            })?;
        let values = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        ArrayD::from_shape_vec(IxDyn(&self.shape), values).map_err(|e| NpyError::Corrupt {
            path: self.label,
            reason: crate::text::one_line(&e.to_string()),
        })
    }
}

/// Writes `a` as a version 1.0 f32 `.npy` into `out`.
///
/// # Errors
/// Any write error.
pub fn write(out: &mut impl Write, a: &ArrayD<f32>) -> std::io::Result<()> {
    let dims: Vec<String> = a.shape().iter().map(ToString::to_string).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + header + newline, padded to 64.
    let pad = (64 - (10 + header.len() + 1) % 64) % 64;
    header.push_str(&" ".repeat(pad));
    header.push('\n');
    out.write_all(b"\x93NUMPY\x01\x00")?;
    let len = u16::try_from(header.len()).unwrap_or(u16::MAX);
    out.write_all(&len.to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    for v in a.iter() {
        out.write_all(&v.to_le_bytes())?;
    }
    Ok(())
}
