//! The token ids a model trace starts from: the value of `--tokens`.
//!
//! The ids are an int64 array of shape (B, T), as nanoGPT's `idx`: each row
//! is one sequence of T token ids, the B rows are the batch. They are given
//! inline, `'1,2,3,4;5,6,7,8'` (rows split by `;`, ids by `,`), or as a
//! `.npy` file of int64 or int32 (see [`npy::read_ids`]), 2-D (B, T) or 1-D
//! (T,) for one sequence. [`parse`] reads them without knowing the model;
//! [`check_range`] then holds them to its vocabulary.

use crate::npy::{self, NpyError};
use crate::text::shown;
use crate::why::Why;
use ndarray::Array2;
use std::path::Path;

/// Most ids accepted in all, B × T: 1 << 20.
pub const MAX_IDS: usize = 1 << 20;

/// Token ids that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokensError {
    /// No ids at all: an empty argument or an array with no elements.
    #[error("{}", self.why().text())]
    Empty {
        /// The argument, or the `.npy` file.
        input: String,
    },
    /// An inline row with no ids, e.g. the middle of `'1,2;;3,4'`.
    #[error("{}", self.why().text())]
    EmptyRow {
        /// The row, from 0.
        row: usize,
    },
    /// An inline item that is not a whole number from 0 to `i64::MAX`.
    #[error("{}", self.why().text())]
    Item {
        /// The item as given, trimmed.
        item: String,
        /// Its row, from 0.
        row: usize,
        /// Its column, from 0.
        col: usize,
        /// What is wrong with it.
        why: ItemFault,
    },
    /// A negative id in a `.npy` file.
    #[error("{}", self.why().text())]
    Negative {
        /// The `.npy` file.
        path: String,
        /// The id.
        id: i64,
        /// Its row, from 0.
        row: usize,
        /// Its column, from 0.
        col: usize,
    },
    /// Inline rows of different lengths.
    #[error("{}", self.why().text())]
    Ragged {
        /// The first row whose length differs from row 0's, from 0.
        row: usize,
        /// Its length.
        len: usize,
        /// Row 0's length.
        first: usize,
    },
    /// A `.npy` array that is neither (B, T) nor (T,).
    #[error("{}", self.why().text())]
    Rank {
        /// The `.npy` file.
        path: String,
        /// Its shape, e.g. `(2,4,8)`.
        shape: String,
    },
    /// More than [`MAX_IDS`] ids.
    #[error("{}", self.why().text())]
    TooMany {
        /// How many ids were given (inline, how many items).
        count: usize,
    },
    /// An id outside the model's vocabulary.
    #[error("{}", self.why().text())]
    Range {
        /// The id.
        id: i64,
        /// Its row, from 0.
        row: usize,
        /// Its column, from 0.
        col: usize,
        /// The model's vocabulary size.
        vocab: usize,
    },
    /// The `.npy` file could not be read.
    #[error(transparent)]
    Npy(#[from] NpyError),
}

/// What is wrong with one inline `--tokens` item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemFault {
    /// Nothing between two commas.
    Empty,
    /// A minus sign and digits.
    Negative,
    /// Anything but digits.
    NotWhole,
    /// Digits past `i64::MAX`.
    TooLarge,
}

impl ItemFault {
    /// The catalog's selector for this fault (`err-tokens-item`).
    fn selector(self) -> &'static str {
        match self {
            Self::Empty => "empty",
            Self::Negative => "negative",
            Self::NotWhole => "whole",
            Self::TooLarge => "large",
        }
    }
}

impl TokensError {
    /// This error as a catalog message (`err-tokens-…`): its English is
    /// the `Display`, and a CLI renders it in the user's language.
    #[must_use]
    pub fn why(&self) -> Why {
        match self {
            Self::Empty { input } => Why::new("err-tokens-empty").arg("input", text(input)),
            Self::EmptyRow { row } => Why::new("err-tokens-empty-row").arg("row", *row),
            Self::Item {
                item,
                row,
                col,
                why,
            } => Why::new("err-tokens-item")
                .arg("item", text(item))
                .arg("row", *row)
                .arg("col", *col)
                .arg("why", why.selector()),
            Self::Negative { path, id, row, col } => Why::new("err-tokens-negative")
                .arg("path", text(path))
                .arg("id", id.to_string())
                .arg("row", *row)
                .arg("col", *col),
            Self::Ragged { row, len, first } => Why::new("err-tokens-ragged")
                .arg("row", *row)
                .arg("len", *len)
                .arg("first", *first),
            Self::Rank { path, shape } => Why::new("err-tokens-rank")
                .arg("path", text(path))
                .arg("shape", shape.as_str()),
            Self::TooMany { count } => Why::new("err-tokens-too-many")
                .arg("count", *count)
                .arg("max", MAX_IDS),
            Self::Range {
                id,
                row,
                col,
                vocab,
            } => Why::new("err-tokens-range")
                .arg("id", id.to_string())
                .arg("row", *row)
                .arg("col", *col)
                .arg("vocab", *vocab)
                .arg("max", vocab.saturating_sub(1)),
            Self::Npy(e) => e.why(),
        }
    }
}

/// A user's word, escaped, as a message argument.
fn text(s: &str) -> String {
    shown(s).to_string()
}

/// Parses the value of `--tokens` into (B, T) ids: an inline list
/// `'1,2,3,4;5,6,7,8'` (rows split by `;`, ids by `,`, spaces around items
/// and a trailing `;` allowed), or, when `arg` ends in `.npy`, that file
/// read with [`npy::read_ids`], (B, T) or (T,) taken as (1, T).
///
/// # Errors
/// [`TokensError`] for no ids, an empty row, an item that is not a whole
/// number 0 or more, rows of different lengths, an array of another rank,
/// more than [`MAX_IDS`] ids, or a file that cannot be read.
pub fn parse(arg: &str) -> Result<Array2<i64>, TokensError> {
    let is_npy = arg
        .len()
        .checked_sub(4)
        .and_then(|at| arg.get(at..))
        .is_some_and(|end| end.eq_ignore_ascii_case(".npy"));
    if is_npy { from_npy(arg) } else { inline(arg) }
}

/// Holds `ids` to a vocabulary of `vocab`: every id in `0..vocab`.
///
/// # Errors
/// [`TokensError::Range`] naming the first id outside, in row-major order,
/// and its (row, column).
pub fn check_range(ids: &Array2<i64>, vocab: usize) -> Result<(), TokensError> {
    let bad = |&id: &i64| usize::try_from(id).map_or(true, |i| i >= vocab);
    match ids.indexed_iter().find(|(_, id)| bad(id)) {
        Some(((row, col), &id)) => Err(TokensError::Range {
            id,
            row,
            col,
            vocab,
        }),
        None => Ok(()),
    }
}

fn inline(arg: &str) -> Result<Array2<i64>, TokensError> {
    if arg.trim().is_empty() {
        return Err(TokensError::Empty { input: arg.into() });
    }
    let mut rows: Vec<&str> = arg.split(';').collect();
    if rows.len() > 1 && rows.last().is_some_and(|r| r.trim().is_empty()) {
        rows.pop();
    }
    // Counted before anything is parsed: one item per ',' in a row, plus one.
    let count = rows.iter().map(|r| r.split(',').count()).sum();
    if count > MAX_IDS {
        return Err(TokensError::TooMany { count });
    }
    let mut ids = Vec::with_capacity(count);
    let mut first = 0;
    for (row, text) in rows.iter().enumerate() {
        if text.trim().is_empty() {
            return Err(TokensError::EmptyRow { row });
        }
        let start = ids.len();
        for (col, item) in text.split(',').enumerate() {
            ids.push(id(item.trim(), row, col)?);
        }
        let len = ids.len() - start;
        if row == 0 {
            first = len;
        } else if len != first {
            return Err(TokensError::Ragged { row, len, first });
        }
    }
    Ok(Array2::from_shape_vec((rows.len(), first), ids).expect("every row holds `first` ids"))
}

/// One inline item: a whole number 0 or more, digits only (no `+`).
fn id(item: &str, row: usize, col: usize) -> Result<i64, TokensError> {
    let why = if item.is_empty() {
        ItemFault::Empty
    } else if item
        .strip_prefix('-')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    {
        ItemFault::Negative
    } else if !item.bytes().all(|b| b.is_ascii_digit()) {
        ItemFault::NotWhole
    } else {
        match item.parse() {
            Ok(id) => return Ok(id),
            Err(_) => ItemFault::TooLarge,
        }
    };
    Err(TokensError::Item {
        item: item.into(),
        row,
        col,
        why,
    })
}

fn from_npy(arg: &str) -> Result<Array2<i64>, TokensError> {
    let path = Path::new(arg);
    let file = npy::Npy::open_ids(path)?;
    let (b, t) = match *file.shape() {
        [t] => (1, t),
        [b, t] => (b, t),
        _ => {
            return Err(TokensError::Rank {
                path: arg.into(),
                shape: crate::shape::fmt_shape(file.shape()),
            });
        }
    };
    // The header's shape matches the file's length, so the count is
    // bounded by the file; it is checked before the ids are read.
    let count = b.saturating_mul(t);
    if count == 0 {
        return Err(TokensError::Empty { input: arg.into() });
    }
    if count > MAX_IDS {
        return Err(TokensError::TooMany { count });
    }
    let ids = file
        .read_ids()?
        .into_shape_with_order((b, t))
        .expect("the header's shape holds b × t ids");
    if let Some(((row, col), &id)) = ids.indexed_iter().find(|(_, id)| **id < 0) {
        return Err(TokensError::Negative {
            path: arg.into(),
            id,
            row,
            col,
        });
    }
    Ok(ids)
}

#[cfg(test)]
mod tests;
