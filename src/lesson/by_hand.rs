//! The FFN by hand: `y = ReLU(x·W1)·W2`, then the residual `x + y`, with
//! every dot product written out as one [`Step`], so a UI can step through
//! them. The lesson's example is d = 2 → 3 → 2 with no biases:
//!
//! ```
//! use shapetrace::lesson::by_hand::FfnByHand;
//! let f = FfnByHand::lesson(&[1.0, 2.0]).unwrap();
//! assert_eq!(f.steps[2].text, "z_3 = 1*(-1) + 2*1 = 1");
//! assert_eq!((&f.z, &f.h, &f.y, &f.out), (&vec![1., 4., 1.], &vec![1., 4., 1.], &vec![0., 5.], &vec![1., 7.]));
//! let g = FfnByHand::lesson(&[2.0, -1.0]).unwrap();
//! assert_eq!((&g.z, &g.h, &g.y), (&vec![2., -2., -3.], &vec![2., 0., 0.], &vec![2., 0.]));
//! assert_eq!(g.off_units(), [2, 3]);
//! ```
//!
//! # Shapes
//! x: (d); W1: (d, f); z, h: (f); W2: (f, d); y, x + y: (d)

use super::{LessonError, fmt_factor, fmt_num, fmt_vec};
use std::fmt::Write as _;

/// The lesson's W1: (2, 3); column j feeds hidden unit j.
pub const W1: [[f64; 3]; 2] = [[1.0, 0.0, -1.0], [0.0, 2.0, 1.0]];
/// The lesson's W2: (3, 2); row j is what hidden unit j adds to y.
pub const W2: [[f64; 2]; 3] = [[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0]];

/// Which part of the computation a step belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `z = x·W1`: x against each column of W1.
    Hidden,
    /// `h = ReLU(z)`.
    Relu,
    /// `y = h·W2`: h against each column of W2.
    Output,
    /// `x + y`.
    Residual,
}

/// One computed number: a dot product, one ReLU or one residual sum.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub stage: Stage,
    /// What it computes: `z_1`, `h_2`, `y_1`, `out_2` (1-based).
    pub name: String,
    /// The pairs multiplied and added; empty for ReLU and the residual.
    pub products: Vec<(f64, f64)>,
    pub value: f64,
    /// The line as the lesson writes it: `z_1 = 1*1 + 2*0 = 1`.
    pub text: String,
}

/// The whole worked example: inputs, every intermediate and every step.
#[derive(Debug, Clone, PartialEq)]
pub struct FfnByHand {
    pub x: Vec<f64>,
    pub w1: Vec<Vec<f64>>,
    pub w2: Vec<Vec<f64>>,
    pub z: Vec<f64>,
    pub h: Vec<f64>,
    pub y: Vec<f64>,
    /// `x + y`.
    pub out: Vec<f64>,
    pub steps: Vec<Step>,
}

/// `name = a*b + c*d = value`, one step of a dot product.
fn dot(stage: Stage, name: String, pairs: Vec<(f64, f64)>) -> Step {
    let value = pairs.iter().map(|(a, b)| a * b).sum();
    let terms: Vec<String> = pairs
        .iter()
        .map(|(a, b)| format!("{}*{}", fmt_factor(*a), fmt_factor(*b)))
        .collect();
    let text = format!("{name} = {} = {}", terms.join(" + "), fmt_num(value));
    Step {
        stage,
        name,
        products: pairs,
        value,
        text,
    }
}

/// A step that is not a dot product: one ReLU or one residual sum.
fn single(stage: Stage, name: String, value: f64, text: String) -> Step {
    Step {
        stage,
        name,
        products: vec![],
        value,
        text,
    }
}

impl FfnByHand {
    /// The lesson's d = 2 → 3 → 2 example on `x`.
    ///
    /// # Errors
    /// [`LessonError::Length`] unless x has 2 entries.
    pub fn lesson(x: &[f64]) -> Result<Self, LessonError> {
        Self::new(x, &W1.map(|r| r.to_vec()), &W2.map(|r| r.to_vec()))
    }

    /// `ReLU(x·W1)·W2` and `x + y`, step by step.
    ///
    /// # Errors
    /// [`LessonError::Length`] when x does not have W1's rows, or
    /// [`LessonError::Shape`] when W1 and W2 do not chain back to d.
    pub fn new(x: &[f64], w1: &[Vec<f64>], w2: &[Vec<f64>]) -> Result<Self, LessonError> {
        let (d, f) = (w1.len(), w1.first().map_or(0, Vec::len));
        if x.len() != d {
            return Err(LessonError::Length {
                input: x.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(","),
                got: x.len(),
                want: d,
            });
        }
        let rectangular = |m: &[Vec<f64>], cols| m.iter().all(|r| r.len() == cols);
        if !(rectangular(w1, f) && w2.len() == f && rectangular(w2, d)) {
            return Err(LessonError::Shape(format!(
                "W1 must be ({d}, f) and W2 (f, {d}) with the same f"
            )));
        }
        // x against column c of m: the pairs of one dot product.
        let column = |m: &[Vec<f64>], v: &[f64], c: usize| -> Vec<(f64, f64)> {
            v.iter().zip(m).map(|(a, row)| (*a, row[c])).collect()
        };
        let mut steps: Vec<Step> = (0..f)
            .map(|j| dot(Stage::Hidden, format!("z_{}", j + 1), column(w1, x, j)))
            .collect();
        let z: Vec<f64> = steps.iter().map(|s| s.value).collect();
        let h: Vec<f64> = z.iter().map(|v| v.max(0.0)).collect();
        steps.extend(z.iter().zip(&h).enumerate().map(|(j, (zj, hj))| {
            let off = if *zj <= 0.0 { ": switched off" } else { "" };
            let name = format!("h_{}", j + 1);
            let text = format!("{name} = max(0, {}) = {}{off}", fmt_num(*zj), fmt_num(*hj));
            single(Stage::Relu, name, *hj, text)
        }));
        let outputs: Vec<Step> = (0..d)
            .map(|k| dot(Stage::Output, format!("y_{}", k + 1), column(w2, &h, k)))
            .collect();
        let y: Vec<f64> = outputs.iter().map(|s| s.value).collect();
        steps.extend(outputs);
        let out: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
        steps.extend(
            x.iter()
                .zip(&y)
                .zip(&out)
                .enumerate()
                .map(|(k, ((xk, yk), ok))| {
                    let name = format!("out_{}", k + 1);
                    let text = format!(
                        "{name} = {} + {} = {}",
                        fmt_num(*xk),
                        fmt_factor(*yk),
                        fmt_num(*ok)
                    );
                    single(Stage::Residual, name, *ok, text)
                }),
        );
        Ok(Self {
            x: x.to_vec(),
            w1: w1.to_vec(),
            w2: w2.to_vec(),
            z,
            h,
            y,
            out,
            steps,
        })
    }

    /// The hidden units ReLU switches off (z ≤ 0), 1-based.
    #[must_use]
    pub fn off_units(&self) -> Vec<usize> {
        (1..=self.z.len())
            .filter(|j| self.z[j - 1] <= 0.0)
            .collect()
    }

    /// `y` as a sum of W2's rows, weighted by h:
    /// `y = 2*[1, 0] + 0*[0, 1] + 0*[-1, 1] = [2, 0]`.
    #[must_use]
    pub fn rows_view(&self) -> String {
        let terms: Vec<String> = self
            .h
            .iter()
            .zip(&self.w2)
            .map(|(hj, row)| format!("{}*{}", fmt_factor(*hj), fmt_vec(row)))
            .collect();
        format!("y = {} = {}", terms.join(" + "), fmt_vec(&self.y))
    }

    /// The whole example as the lesson writes it.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = String::new();
        let (d, f) = (self.x.len(), self.z.len());
        let mat = |m: &[Vec<f64>]| {
            let rows: Vec<String> = m.iter().map(|r| fmt_vec(r)).collect();
            format!("[{}]", rows.join(", "))
        };
        let _ = writeln!(out, "FFN by hand: d = {d} → {f} → {d}, ReLU, no biases");
        let _ = writeln!(out, "x  = {}", fmt_vec(&self.x));
        let _ = writeln!(
            out,
            "W1 = {}   ({d}×{f}: column j feeds unit j)",
            mat(&self.w1)
        );
        let _ = writeln!(
            out,
            "W2 = {}   ({f}×{d}: row j is what unit j adds)",
            mat(&self.w2)
        );
        let stage = |s: Stage| self.steps.iter().filter(move |x| x.stage == s);
        let heads = [
            (Stage::Hidden, "1. z = x·W1 (x against each column of W1)"),
            (Stage::Relu, "2. h = ReLU(z)"),
            (Stage::Output, "3. y = h·W2"),
            (Stage::Residual, "4. residual: the FFN output is added to x"),
        ];
        for (s, head) in heads {
            let _ = writeln!(out, "\n{head}");
            for step in stage(s) {
                let _ = writeln!(out, "   {}", step.text);
            }
            let summary = match s {
                Stage::Hidden => format!("z = {}", fmt_vec(&self.z)),
                Stage::Relu => self.relu_note(),
                Stage::Output => format!("y = {}\n   {}", fmt_vec(&self.y), self.rows_view()),
                Stage::Residual => format!(
                    "x + y = {} + {} = {}",
                    fmt_vec(&self.x),
                    fmt_vec(&self.y),
                    fmt_vec(&self.out)
                ),
            };
            let _ = writeln!(out, "   {summary}");
        }
        out
    }

    fn relu_note(&self) -> String {
        let h = format!("h = {}", fmt_vec(&self.h));
        let off: Vec<String> = self.off_units().iter().map(ToString::to_string).collect();
        match off.as_slice() {
            [] => format!("{h}: every z is positive, so ReLU changes nothing"),
            [one] => format!("{h}: unit {one} is switched off"),
            [init @ .., last] => {
                format!("{h}: units {} and {last} are switched off", init.join(", "))
            }
        }
    }
}
