//! The lab's small matrices, written as the lesson writes them: rows
//! separated by `;`, numbers by `,` (`1,1;0,-1` is W1 = [[1, 1], [0, -1]]).
//! They are parsed, drawn from a seed, and multiplied one checked product at
//! a time, so that no sum silently becomes `inf`.
//!
//! ```
//! use shapetrace::lesson::matrix::{parse_matrix, checked_dot};
//! let w1 = parse_matrix("W1", "1,1;0,-1").unwrap();
//! assert_eq!(w1, [[1.0, 1.0], [0.0, -1.0]]);
//! assert!(parse_matrix("W1", "1,1;0").is_err()); // ragged
//! assert_eq!(checked_dot("z_1", &[(1.0, 1.0), (-2.0, 0.0)], &[1.0, -2.0]).unwrap(), 1.0);
//! assert!(checked_dot("z_1", &[(1e308, 2.0)], &[1e308]).is_err());
//! ```
//!
//! # Shapes
//! a matrix is (rows, cols), each at most [`MAX_SIZE`]

use super::{LessonError, fmt_factor, fmt_num};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Rows of numbers: `m[i][j]`.
pub type Matrix = Vec<Vec<f64>>;

/// The largest width d or hidden size f a lab by hand shows.
pub const MAX_SIZE: usize = 16;

/// Refuses a size outside 1..=[`MAX_SIZE`], naming it as `what`.
///
/// # Errors
/// [`LessonError::Size`].
pub fn check_size(what: &str, got: usize) -> Result<usize, LessonError> {
    if (1..=MAX_SIZE).contains(&got) {
        Ok(got)
    } else {
        Err(LessonError::Size {
            what: what.to_string(),
            got,
            max: MAX_SIZE,
        })
    }
}

/// Parses `1,1;0,-1` as the matrix named `name` (W1, W2, …): every row the
/// same length, every entry a finite number, at most [`MAX_SIZE`] rows and
/// columns.
///
/// # Errors
/// [`LessonError::Matrix`] naming the matrix, its text and what is wrong.
pub fn parse_matrix(name: &str, input: &str) -> Result<Matrix, LessonError> {
    let bad = |why: String| LessonError::Matrix {
        name: name.to_string(),
        input: input.to_string(),
        why,
    };
    if input.trim().is_empty() {
        return Err(bad("is empty".into()));
    }
    let mut m = Matrix::new();
    for (i, row) in input.split(';').enumerate() {
        let mut r = Vec::new();
        for entry in row.split(',') {
            let e = entry.trim();
            match e.parse::<f64>() {
                Ok(v) if v.is_finite() => r.push(v),
                _ => {
                    return Err(bad(format!(
                        "has '{}' in row {}, not a finite number",
                        crate::text::shown(e),
                        i + 1
                    )));
                }
            }
        }
        if let Some(first) = m.first().map(Vec::len).filter(|n| *n != r.len()) {
            return Err(bad(format!(
                "is ragged: row {} has {} {}, row 1 has {first}",
                i + 1,
                r.len(),
                if r.len() == 1 { "number" } else { "numbers" }
            )));
        }
        m.push(r);
    }
    let (rows, cols) = (m.len(), m[0].len());
    if rows > MAX_SIZE || cols > MAX_SIZE {
        return Err(bad(format!(
            "is {rows}×{cols}, larger than {MAX_SIZE}×{MAX_SIZE}"
        )));
    }
    Ok(m)
}

/// A rows×cols matrix of small whole numbers (-2 to 2), easy to work by hand.
#[must_use]
pub fn seeded(rows: usize, cols: usize, rng: &mut ChaCha8Rng) -> Matrix {
    (0..rows)
        .map(|_| {
            (0..cols)
                .map(|_| f64::from(rng.random_range(-2i8..=2)))
                .collect()
        })
        .collect()
}

/// The generator every seeded lab matrix is drawn from, in order.
#[must_use]
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// `(rows, cols)`, with a ragged matrix's first row taken as its width.
#[must_use]
pub fn dims(m: &[Vec<f64>]) -> (usize, usize) {
    (m.len(), m.first().map_or(0, Vec::len))
}

/// `a*b + c*d + …`, the written-out sum.
#[must_use]
pub fn terms(pairs: &[(f64, f64)]) -> String {
    let t: Vec<String> = pairs
        .iter()
        .map(|(a, b)| format!("{}*{}", fmt_factor(*a), fmt_factor(*b)))
        .collect();
    t.join(" + ")
}

/// The dot product of `pairs`, refused as soon as one product or partial
/// sum leaves the finite range; `name` and the written-out sum name where,
/// `x` is the input shown in the error.
///
/// # Errors
/// [`LessonError::Overflow`].
pub fn checked_dot(name: &str, pairs: &[(f64, f64)], x: &[f64]) -> Result<f64, LessonError> {
    let mut sum = 0.0;
    for (a, b) in pairs {
        sum += a * b;
        if !sum.is_finite() || !(a * b).is_finite() {
            return Err(overflow(format!("{name} = {}", terms(pairs)), x));
        }
    }
    Ok(sum)
}

/// The overflow error at `at` for the input `x`.
#[must_use]
pub fn overflow(at: String, x: &[f64]) -> LessonError {
    LessonError::Overflow {
        at,
        input: x.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(","),
    }
}
