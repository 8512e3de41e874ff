//! NumPy `.npy` files of f32, little-endian, C order: the input x0
//! (`--input`) and the model's output (`--output`); and integer arrays of
//! token ids (`--tokens`), int64 or int32, read by [`read_ids`].
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
#[cfg(test)]
pub(crate) mod tests;

use ndarray::{ArrayD, IxDyn};
use std::io::{Read, Write};
use std::path::Path;

/// Largest header accepted.
pub const MAX_HEADER: u64 = 65_536;

/// What a float array may be, for messages.
const ALLOWED_F32: &str = "a float32 .npy of shape (B, T, d_model)";

/// What an array of token ids may be, for messages.
const ALLOWED_IDS: &str = "an int64 or int32 .npy of shape (B, T) or (T,)";

/// The element types read, each named by its header `descr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elem {
    /// `<f4`: float32, little-endian.
    F32,
    /// `<i8`: int64, little-endian.
    I64,
    /// `<i4`: int32, little-endian.
    I32,
}

impl Elem {
    fn from_descr(descr: &str) -> Option<Self> {
        [Self::F32, Self::I64, Self::I32]
            .into_iter()
            .find(|e| e.descr() == descr)
    }

    /// The header's `descr` for this element type.
    fn descr(self) -> &'static str {
        match self {
            Self::F32 => "<f4",
            Self::I64 => "<i8",
            Self::I32 => "<i4",
        }
    }

    /// Bytes per element.
    fn width(self) -> u64 {
        match self {
            Self::F32 | Self::I32 => 4,
            Self::I64 => 8,
        }
    }
}

/// Which arrays a caller reads: floats, or token ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    F32,
    Ids,
}

impl Want {
    fn accepts(self, elem: Elem) -> bool {
        match self {
            Self::F32 => elem == Elem::F32,
            Self::Ids => matches!(elem, Elem::I64 | Elem::I32),
        }
    }

    fn allowed(self) -> &'static str {
        match self {
            Self::F32 => ALLOWED_F32,
            Self::Ids => ALLOWED_IDS,
        }
    }

    /// The refusal of a file whose `descr` this caller does not read.
    fn dtype_error(self, path: String, descr: String) -> NpyError {
        match self {
            Self::F32 => NpyError::Dtype { path, descr },
            Self::Ids => NpyError::IdsDtype { path, descr },
        }
    }
}

/// An `.npy` file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NpyError {
    /// The file could not be opened, read or written.
    #[error("{}", self.why().text())]
    Read {
        /// The `.npy` file.
        path: String,
        /// The system's reason.
        reason: String,
        /// Its kind, which words it in another language.
        kind: std::io::ErrorKind,
    },
    /// The file is not a well-formed `.npy` (bad magic, header or length).
    #[error("{}", self.why().text())]
    Corrupt {
        /// The `.npy` file.
        path: String,
        /// What is wrong, e.g. `shorter than the magic string`.
        reason: String,
        /// What the caller reads, e.g. `a float32 .npy of shape (B, T, d_model)`.
        allowed: &'static str,
    },
    /// The array is not float32 little-endian.
    #[error("{}", self.why().text())]
    Dtype {
        /// The `.npy` file.
        path: String,
        /// The header's `descr`, e.g. `<f8`.
        descr: String,
    },
    /// An array of token ids is not int64 or int32 little-endian.
    #[error("{}", self.why().text())]
    IdsDtype {
        /// The `.npy` file.
        path: String,
        /// The header's `descr`, e.g. `<f4`.
        descr: String,
    },
    /// The array is stored column-major.
    #[error("{}", self.why().text())]
    Fortran {
        /// The `.npy` file.
        path: String,
    },
}

impl NpyError {
    /// This error as a catalog message (`err-npy-…`, `err-read`): its
    /// English is the `Display`. A corrupt file's reason stays the
    /// reader's English (`err-npy-corrupt` passes it through).
    #[must_use]
    pub fn why(&self) -> crate::why::Why {
        use crate::why::Why;
        let file =
            |key: &str, path: &str| Why::new(key).arg("path", crate::text::shown(path).to_string());
        match self {
            Self::Read { path, reason, kind } => {
                crate::text::read_error(&crate::text::shown(path).to_string(), reason, *kind)
            }
            Self::Corrupt {
                path,
                reason,
                allowed,
            } => file("err-npy-corrupt", path)
                .arg("reason", reason.as_str())
                .arg("allowed", *allowed),
            Self::Dtype { path, descr } => {
                file("err-npy-dtype", path).arg("descr", crate::text::shown(descr).to_string())
            }
            Self::IdsDtype { path, descr } => {
                file("err-npy-ids-dtype", path).arg("descr", crate::text::shown(descr).to_string())
            }
            Self::Fortran { path } => file("err-npy-fortran", path),
        }
    }
}

/// Reads an f32 array from `path`.
///
/// # Errors
/// [`NpyError`] for an unreadable, corrupt, non-f32 or Fortran-order file.
pub fn read(path: &Path) -> Result<ArrayD<f32>, NpyError> {
    Npy::open(path)?.read()
}

/// Reads an array of token ids from `path`: int64 (`<i8`) or int32 (`<i4`),
/// little-endian, C order, widened to i64. Any shape is read; the caller
/// judges it (see [`crate::tokens::parse`]).
///
/// # Errors
/// [`NpyError`] for an unreadable, corrupt, non-integer ([`NpyError::IdsDtype`])
/// or Fortran-order file, or one whose length does not match its shape.
pub fn read_ids(path: &Path) -> Result<ArrayD<i64>, NpyError> {
    Npy::open_ids(path)?.read_ids()
}

/// An `.npy` file whose header is read and checked, its values not yet:
/// the shape is known before anything large is read.
#[derive(Debug)]
pub struct Npy {
    label: String,
    file: std::fs::File,
    shape: Vec<usize>,
    elem: Elem,
    want: Want,
}

impl Npy {
    /// Opens `path`, an f32 array, and reads its header.
    ///
    /// # Errors
    /// [`NpyError`] for an unreadable, corrupt, non-f32 or Fortran-order
    /// file, or one whose length does not match its shape.
    pub fn open(path: &Path) -> Result<Self, NpyError> {
        Self::open_as(path, Want::F32)
    }

    /// Opens `path`, an array of token ids (`<i8` or `<i4`), and reads its
    /// header: the shape is known before the ids are read.
    ///
    /// # Errors
    /// [`NpyError`] for an unreadable, corrupt, non-integer or Fortran-order
    /// file, or one whose length does not match its shape.
    pub fn open_ids(path: &Path) -> Result<Self, NpyError> {
        Self::open_as(path, Want::Ids)
    }

    fn open_as(path: &Path, want: Want) -> Result<Self, NpyError> {
        let label = crate::text::lossless(path.as_os_str());
        let corrupt = |reason: &str| NpyError::Corrupt {
            path: label.clone(),
            reason: crate::text::one_line(reason),
            allowed: want.allowed(),
        };
        let io = |e: std::io::Error| NpyError::Read {
            path: label.clone(),
            reason: e.to_string(),
            kind: e.kind(),
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
        let Some(elem) = Elem::from_descr(&descr).filter(|&e| want.accepts(e)) else {
            return Err(want.dtype_error(label, descr));
        };
        if fortran_order {
            return Err(NpyError::Fortran { path: label });
        }
        let count = shape
            .iter()
            .try_fold(1u64, |a, &n| a.checked_mul(n as u64))
            .and_then(|n| n.checked_mul(elem.width()));
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
            elem,
            want,
        })
    }

    /// The array's shape, from the header.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Reads the values of an f32 array (one opened with [`Npy::open`]).
    ///
    /// # Errors
    /// [`NpyError::Read`] when the file cannot be read to its end;
    /// [`NpyError::Dtype`] for an array of ids.
    pub fn read(mut self) -> Result<ArrayD<f32>, NpyError> {
        if self.elem != Elem::F32 {
            return Err(Want::F32.dtype_error(self.label, self.elem.descr().into()));
        }
        let bytes = self.bytes()?;
        let values = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        self.shaped(values)
    }

    /// Reads the values of an array of ids (one opened with
    /// [`Npy::open_ids`]), widened to i64.
    ///
    /// # Errors
    /// [`NpyError::Read`] when the file cannot be read to its end;
    /// [`NpyError::IdsDtype`] for an f32 array.
    pub fn read_ids(mut self) -> Result<ArrayD<i64>, NpyError> {
        let values = match self.elem {
            Elem::I64 => self
                .bytes()?
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                .collect(),
            Elem::I32 => self
                .bytes()?
                .chunks_exact(4)
                .map(|b| i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .collect(),
            Elem::F32 => {
                return Err(Want::Ids.dtype_error(self.label, self.elem.descr().into()));
            }
        };
        self.shaped(values)
    }

    /// The rest of the file: the values' bytes, checked against the shape
    /// when the file was opened.
    fn bytes(&mut self) -> Result<Vec<u8>, NpyError> {
        let mut bytes = Vec::new();
        self.file
            .read_to_end(&mut bytes)
            .map_err(|e| NpyError::Read {
                path: self.label.clone(),
                reason: e.to_string(),
                kind: e.kind(),
            })?;
        Ok(bytes)
    }

    fn shaped<T>(self, values: Vec<T>) -> Result<ArrayD<T>, NpyError> {
        ArrayD::from_shape_vec(IxDyn(&self.shape), values).map_err(|e| NpyError::Corrupt {
            path: self.label,
            reason: crate::text::one_line(&e.to_string()),
            allowed: self.want.allowed(),
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
